"""The metric registry: one :class:`Metric` declaration per rate the fidelity report shows.

The report's rows, JSON keys, :meth:`~.report.FidelityReport.rates` and
:meth:`~.report.FidelityReport.integrity_ok` are all read from :data:`METRICS`, in its order, so
adding a metric is writing its check and declaring it here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from enterprise_envs.scenarios.users.fidelity import behaviour, integrity
from enterprise_envs.scenarios.users.fidelity.integrity import Canaries
from enterprise_envs.scenarios.users.fidelity.transcript import Finding, Ratio, Transcript, _many

#: A metric's check over a population: its ratio and the findings naming what it counted.
Check = Callable[[list[Transcript], Canaries], tuple[Ratio, list[Finding]]]


@dataclass(frozen=True)
class Metric:
    """One fidelity metric, declared once.

    Attributes:
        name: The metric's name: its report row, JSON key and :class:`FidelityReport` attribute.
        integrity: Whether it must be zero for a simulator that keeps its facts closed and stays
            in role (a hit fails :meth:`~.report.FidelityReport.integrity_ok`).
        definition: What it counts, in one line (the function named ``name`` has the full rule).
        check: Its ratio and findings over a population; the canaries are the one input beyond
            the transcripts that any metric takes, so every check receives them.
    """

    name: str
    integrity: bool
    definition: str
    check: Check

    def measure(
        self, transcripts: Transcript | Iterable[Transcript], canaries: Canaries = ()
    ) -> tuple[Ratio, list[Finding]]:
        """The metric's ratio and findings over one transcript or many."""
        return self.check(_many(transcripts), canaries)


def _without_canaries(
    check: Callable[[list[Transcript]], tuple[Ratio, list[Finding]]],
) -> Check:
    return lambda transcripts, _canaries: check(transcripts)


def _rate_only(rate: Callable[[list[Transcript]], Ratio]) -> Check:
    # A rate with nothing to point at (a share of good behaviour, or read from turn records).
    return lambda transcripts, _canaries: (rate(transcripts), [])


#: Every metric, in report order: the integrity metrics first.
METRICS: tuple[Metric, ...] = (
    Metric(
        "leak_rate",
        True,
        "user turns telling a fact they may not tell yet, over user turns",
        _without_canaries(integrity._leak_check),
    ),
    Metric(
        "canary_hits",
        True,
        "user turns containing a registered hidden value the agent did not say, over user turns",
        integrity._canary_check,
    ),
    Metric(
        "premature_disclosure",
        True,
        "facts first told before min_turn or before being asked, over facts told",
        _without_canaries(integrity._premature_check),
    ),
    Metric(
        "coaching_rate",
        True,
        "user turns telling the agent how to do its job, over user turns",
        _without_canaries(integrity._coaching_check),
    ),
    Metric(
        "role_swap_rate",
        True,
        "user turns that read like the agent, over user turns",
        _without_canaries(integrity._role_swap_check),
    ),
    Metric(
        "false_stop_rate",
        True,
        "conversations ended by a satisfied user whose goal is not met, over conversations",
        _without_canaries(integrity._false_stop_check),
    ),
    Metric(
        "front_loading",
        False,
        "identifiers given in the opening, over identifiers given",
        _rate_only(behaviour.front_loading),
    ),
    Metric(
        "unknown_honesty",
        False,
        "questions about an unknown answered with I don't know, over such questions",
        _without_canaries(behaviour._unknown_check),
    ),
    Metric(
        "refusal_adherence",
        False,
        "requests for a refused item answered with a refusal, over such requests",
        _without_canaries(behaviour._refusal_check),
    ),
    Metric(
        "repeat_pushback",
        False,
        "questions for a fact already given answered with push-back or the value, over such questions",
        _without_canaries(behaviour._repeat_check),
    ),
    Metric(
        "missing_corrections",
        False,
        "wrong restatements of the user's facts left standing, over such restatements",
        _without_canaries(behaviour._missing_check),
    ),
    Metric(
        "false_corrections",
        False,
        "right restatements answered with a correction, over right restatements",
        _without_canaries(behaviour._false_check),
    ),
    Metric(
        "self_contradiction",
        False,
        "user turns taking back what the user said, over user replies",
        _without_canaries(behaviour._contradiction_check),
    ),
    Metric(
        "say_no_rate",
        False,
        "checks answered with a no while the goal is unmet, over such checks",
        _without_canaries(behaviour._say_no_check),
    ),
    Metric(
        "guard_hit_rate",
        False,
        "recorded user turns whose guard fired or that fell back to the rules, over recorded turns",
        _rate_only(behaviour.guard_hit_rate),
    ),
)

#: The names of the metrics that must be zero for a simulator that keeps its facts closed and
#: stays in role (:attr:`Metric.integrity`).
INTEGRITY_METRICS: tuple[str, ...] = tuple(metric.name for metric in METRICS if metric.integrity)
