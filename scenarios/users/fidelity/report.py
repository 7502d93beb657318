"""The fidelity report: every registered metric over a set of conversations, as text or JSON."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.scenarios.users.fidelity.behaviour import guard_counts
from enterprise_envs.scenarios.users.fidelity.integrity import Canaries
from enterprise_envs.scenarios.users.fidelity.metrics import METRICS
from enterprise_envs.scenarios.users.fidelity.profile import (
    MIN_GROUP_SIZE,
    Diversity,
    Onset,
    behaviour_profile,
    dice,
    dice_by_dimension,
    diversity,
    frustration_onset,
)
from enterprise_envs.scenarios.users.fidelity.transcript import Finding, Ratio, Transcript, _many


@dataclass
class FidelityReport:
    """All metrics over a set of conversations (see each metric's function for its definition).

    Attributes:
        conversations: Conversations counted.
        user_turns: User turns counted, the opening included.
        metrics: Each :data:`~.metrics.METRICS` metric's ratio, by name; a metric also reads as an
            attribute (``report.leak_rate``).
        backends: Recorded user turns per simulator backend.
        guard_hits: Hits per guard check over the recorded user turns.
        profile: The population's behaviour profile (:func:`~.profile.behaviour_profile`).
        profile_dice: Its Dice similarity to the reference profile, when one was given.
        profile_dice_by_dimension: That similarity per dimension.
        diversity: Population diversity, when computed.
        frustration_onset: Frustration onset by persona variant.
        findings: Every counted failure, metric by metric in registry order.
    """

    conversations: int
    user_turns: int
    metrics: dict[str, Ratio] = field(default_factory=dict)
    backends: dict[str, int] = field(default_factory=dict)
    guard_hits: dict[str, int] = field(default_factory=dict)
    profile: dict[str, int] = field(default_factory=dict)
    profile_dice: float | None = None
    profile_dice_by_dimension: dict[str, float] = field(default_factory=dict)
    diversity: Diversity | None = None
    frustration_onset: dict[str, Onset] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def __getattr__(self, name: str) -> Ratio:
        # Each metric was a field before the registry; ``report.leak_rate`` keeps working. Read
        # ``metrics`` through ``__dict__``: while the object is built or copied it may not exist yet.
        metrics = self.__dict__.get("metrics", {})
        if name in metrics:
            return metrics[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def rates(self) -> dict[str, Ratio]:
        """The rate metrics by name, in registry order (a metric not measured counts nothing)."""
        return {metric.name: self.metrics.get(metric.name, Ratio()) for metric in METRICS}

    def integrity_ok(self) -> bool:
        """Whether every integrity metric (:attr:`~.metrics.Metric.integrity`) counted nothing."""
        rates = self.rates()
        return all(rates[metric.name].hits == 0 for metric in METRICS if metric.integrity)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (``json.dumps`` works on it as is)."""
        return {
            "conversations": self.conversations,
            "user_turns": self.user_turns,
            "metrics": {name: ratio.to_dict() for name, ratio in self.rates().items()},
            "integrity_ok": self.integrity_ok(),
            "backends": dict(self.backends),
            "guard_hits": dict(self.guard_hits),
            "profile": dict(sorted(self.profile.items())),
            "profile_dice": self.profile_dice,
            "profile_dice_by_dimension": dict(self.profile_dice_by_dimension),
            "diversity": self.diversity.to_dict() if self.diversity else None,
            "frustration_onset": {name: onset.to_dict() for name, onset in self.frustration_onset.items()},
            "findings": [finding.to_dict() for finding in self.findings],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    def to_text(self) -> str:
        """A readable report: a table of the metrics, then profile, diversity and findings."""
        lines = [f"Fidelity over {self.conversations} conversations, {self.user_turns} user turns"]
        rows = [("metric", "value", "count", "flag")]
        rates = self.rates()
        for metric in METRICS:
            ratio = rates[metric.name]
            value = "n/a" if ratio.value is None else f"{ratio.value:.3f}"
            flag = "FAIL" if metric.integrity and ratio.hits else ""
            rows.append((metric.name, value, f"{ratio.hits}/{ratio.total}", flag))
        lines += _table(rows)
        if self.backends:
            lines.append("backends: " + ", ".join(f"{k}={v}" for k, v in self.backends.items()))
        if self.guard_hits:
            lines.append("guard hits: " + ", ".join(f"{k}={v}" for k, v in self.guard_hits.items()))
        if self.profile:
            lines.append("")
            lines.append("behaviour profile:")
            lines += _table([("feature", "count"), *((k, str(v)) for k, v in sorted(self.profile.items()))])
        if self.profile_dice is not None:
            by_dimension = ", ".join(f"{k} {v:.3f}" for k, v in self.profile_dice_by_dimension.items())
            lines.append(f"Dice vs reference: {self.profile_dice:.3f} ({by_dimension})")
        if self.diversity is not None:
            d = self.diversity
            lines.append("")
            sizes = ", ".join(f"{name} {size}" for name, size in d.groups.items())
            lines.append(
                f"diversity over {d.conversations} conversations, {len(d.groups)} variants ({sizes}):"
            )
            if d.small_groups:
                lines.append(
                    f"left out of the ANOVA (fewer than {MIN_GROUP_SIZE} conversations): "
                    + ", ".join(d.small_groups)
                )
            rows = [("style feature", "within", "between")]
            rows += [(name, _fmt(v.within), _fmt(v.between)) for name, v in d.variance.items()]
            lines += _table(rows)
            lines.append(
                f"distinct openings {_fmt(d.distinct_openings)}, distinct-2 {_fmt(d.distinct_2)}, "
                f"trigram overlap {_fmt(d.trigram_overlap)}"
            )
        if self.frustration_onset:
            lines.append("")
            lines.append("frustration onset by variant (user turn first not calm; gave up):")
            rows = [
                (
                    "variant",
                    "conversations",
                    "frustrated",
                    "median",
                    "IQR",
                    "range",
                    "gave up",
                    "median gave up",
                )
            ]
            for name, onset in self.frustration_onset.items():
                span = f"{onset.onsets[0]}-{onset.onsets[-1]}" if onset.onsets else "n/a"
                rows.append(
                    (
                        name,
                        str(onset.conversations),
                        str(len(onset.onsets)),
                        _fmt(onset.median),
                        _fmt(onset.spread),
                        span,
                        str(len(onset.give_ups)),
                        _fmt(onset.give_up_median),
                    )
                )
            lines += _table(rows)
        if self.findings:
            lines.append("")
            lines.append("findings:")
            lines += _table(
                [("metric", "conversation", "turn", "detail")]
                + [(f.metric, f.transcript, str(f.turn), f.detail) for f in self.findings]
            )
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for number, row in enumerate(rows):
        out.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return out


def fidelity_report(
    transcripts: Transcript | Iterable[Transcript],
    canaries: Canaries = (),
    reference: Mapping[str, int] | Iterable[Transcript] | None = None,
    with_diversity: bool = True,
) -> FidelityReport:
    """Every metric over a set of conversations.

    Args:
        transcripts: The conversations (one or many).
        canaries: Hidden values (solution ids, KB numbers, expected field values) for
            :func:`canary_hits`: one list for all, or a mapping from transcript label to list.
        reference: A reference behaviour profile (or reference conversations, profiled) to compare
            the population's profile with by :func:`dice`.
        with_diversity: Compute :func:`diversity` (needs two or more conversations).

    Returns:
        The report; ``findings`` lists what every registered metric counted against the simulator.
    """
    population = _many(transcripts)
    profile = behaviour_profile(population)
    reference_profile: Mapping[str, int] | None = None
    if reference is not None:
        reference_profile = reference if isinstance(reference, Mapping) else behaviour_profile(reference)
    backends, guards = guard_counts(population)
    measured = {metric.name: metric.measure(population, canaries) for metric in METRICS}
    return FidelityReport(
        conversations=len(population),
        user_turns=sum(len(t.user_texts()) for t in population),
        metrics={name: ratio for name, (ratio, _found) in measured.items()},
        backends=backends,
        guard_hits=guards,
        profile=dict(profile),
        profile_dice=dice(profile, reference_profile) if reference_profile is not None else None,
        profile_dice_by_dimension=dice_by_dimension(profile, reference_profile) if reference_profile else {},
        diversity=diversity(population) if with_diversity and len(population) >= 2 else None,
        frustration_onset=frustration_onset(population),
        findings=[finding for _ratio, found in measured.values() for finding in found],
    )
