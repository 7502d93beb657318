"""The audit's report: per-scenario figures, findings with their trajectories, yield, exit status."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

#: Finding kinds that fail a scenario's audit.
FAILING = ("oracle_failed", "not_necessary", "false_positive", "false_negative", "invalid")
#: Outcomes of one probe variant.
OUTCOMES = ("rejected", "accepted", "equivalent", "tolerated", "invalid")


@dataclass
class Tally:
    """``ok`` out of ``total``."""

    ok: int = 0
    total: int = 0

    def add(self, ok: bool) -> None:
        """Count one."""
        self.ok += int(ok)
        self.total += 1

    @property
    def rate(self) -> float | None:
        """Ok / total, None when nothing was counted."""
        return self.ok / self.total if self.total else None

    def cell(self) -> str:
        """``ok/total`` or ``-``."""
        return f"{self.ok}/{self.total}" if self.total else "-"


@dataclass
class ProbeTally:
    """Outcomes of one probe's variants.

    ``rejected``: the verdict failed (good). ``accepted``: it passed, and the run differs from the
    oracle (a verifier false positive). ``equivalent``: the verifier sees exactly what it saw of
    the oracle (same changed rows, messages, refusals), so no verdict could differ: not judged.
    ``tolerated``: a privilege attempt the access check refused, nothing else changed, verdict
    passed (allowed, listed). ``invalid``: a handler or the verifier raised.
    """

    rejected: int = 0
    accepted: int = 0
    equivalent: int = 0
    tolerated: int = 0
    invalid: int = 0

    def add(self, outcome: str) -> None:
        """Count one outcome."""
        setattr(self, outcome, getattr(self, outcome) + 1)

    @property
    def judged(self) -> int:
        """Variants whose verdict could tell them from the oracle."""
        return self.rejected + self.accepted

    @property
    def rate(self) -> float | None:
        """Rejection rate over judged variants (None when none was judged)."""
        return self.rejected / self.judged if self.judged else None

    def cell(self) -> str:
        """``rejected/judged`` (``-`` when none was judged)."""
        return f"{self.rejected}/{self.judged}" if self.judged else "-"


@dataclass
class Finding:
    """One thing the audit found: a failing check with everything needed to reproduce it.

    Attributes:
        kind: ``oracle_failed``, ``not_necessary``, ``false_positive`` (a probe the verifier
            accepted), ``false_negative`` (an alternative solution it rejected), ``invalid`` (a
            crash), or ``tolerated`` (a refused privilege attempt the verdict let pass; listed,
            not failing).
        scenario: Scenario id.
        seed: The env seed.
        surface: Tool surface.
        check: The probe variant or solution.
        trajectory: The actions played, with each tool result's status.
        verdict: The verdict as a dict (None if there was none).
        explanation: The verdict's text (``Verdict.to_text``) or the error.
        against_oracle: How the run's changed rows differ from the oracle's.
    """

    kind: str
    scenario: str
    seed: int
    surface: str
    check: str
    trajectory: list[dict[str, Any]] = field(default_factory=list)
    verdict: dict[str, Any] | None = None
    explanation: str = ""
    against_oracle: str = ""

    def headline(self) -> str:
        """One line."""
        return f"{self.kind}: {self.scenario} seed {self.seed} ({self.surface}) {self.check}"

    def to_text(self) -> str:
        """The finding in full: headline, trajectory, verdict, difference from the oracle."""
        lines = [self.headline(), "  trajectory:"]
        for action in self.trajectory:
            lines.append("    " + json.dumps(action, ensure_ascii=False, sort_keys=True)[:400])
        lines.append("  " + self.explanation.replace("\n", "\n  "))
        if self.against_oracle:
            lines.append("  against the oracle:\n    " + self.against_oracle.replace("\n", "\n    "))
        return "\n".join(lines)


@dataclass
class ScenarioAudit:
    """The audit of one scenario over its seeds and surfaces."""

    scenario: str
    surfaces: list[str]
    seeds: list[int]
    oracle: Tally = field(default_factory=Tally)
    necessity: Tally = field(default_factory=Tally)
    alternatives: Tally = field(default_factory=Tally)
    #: Alternatives per family (``other_surface``: the other surfaces' reference solutions).
    alternative_families: dict[str, Tally] = field(default_factory=dict)
    probes: dict[str, ProbeTally] = field(default_factory=dict)
    seconds: float = 0.0
    findings: list[Finding] = field(default_factory=list)
    tolerated: list[Finding] = field(default_factory=list)
    advisory: list[Finding] = field(default_factory=list)
    #: Probes whose false positives were reported apart (left out of the overall rejection rate).
    advisory_probes: list[str] = field(default_factory=list)
    #: Probes (or parts of probes) that could not run on the scenario's system, with why.
    skipped: dict[str, str] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """Every check held: no failing finding."""
        return not any(finding.kind in FAILING for finding in self.findings)

    def probe(self, name: str) -> ProbeTally:
        """The tally of one probe (created on first use)."""
        return self.probes.setdefault(name, ProbeTally())

    def alternative(self, family: str) -> Tally:
        """The tally of one family of alternatives (created on first use)."""
        return self.alternative_families.setdefault(family, Tally())

    @property
    def rejection(self) -> ProbeTally:
        """All probes together, advisory ones aside."""
        total = ProbeTally()
        for name, tally in self.probes.items():
            if name in self.advisory_probes:
                continue
            for outcome in OUTCOMES:
                setattr(total, outcome, getattr(total, outcome) + getattr(tally, outcome))
        return total

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "scenario": self.scenario,
            "surfaces": self.surfaces,
            "seeds": self.seeds,
            "passed": self.passed,
            "oracle_pass_rate": self.oracle.rate,
            "oracle": asdict(self.oracle),
            "necessity_rate": self.necessity.rate,
            "necessity": asdict(self.necessity),
            "alternative_acceptance_rate": self.alternatives.rate,
            "alternatives": asdict(self.alternatives),
            "alternative_families": {
                name: asdict(tally) for name, tally in self.alternative_families.items()
            },
            "probe_rejection_rate": self.rejection.rate,
            "advisory_probes": self.advisory_probes,
            "probes": {name: {**asdict(tally), "rate": tally.rate} for name, tally in self.probes.items()},
            "seconds": round(self.seconds, 3),
            "findings": [asdict(finding) for finding in self.findings],
            "tolerated": [asdict(finding) for finding in self.tolerated],
            "advisory": [asdict(finding) for finding in self.advisory],
            "skipped": dict(sorted(self.skipped.items())),
        }


@dataclass
class AuditReport:
    """The audit of several scenarios."""

    scenarios: list[ScenarioAudit]
    probes: list[str]
    seconds: float = 0.0
    advisory: dict[str, str] = field(default_factory=dict)
    #: The dialogue-act reader on the labelled corpora: corpus -> check (and ``all``) -> score.
    reader: dict[str, dict[str, Any]] = field(default_factory=dict)

    def families(self) -> dict[str, dict[str, int]]:
        """Per probe family over every scenario: tried, rejected, false positives, and the rest.

        ``alternative:<family>`` rows are the false-negative side: valid solutions tried, accepted
        and rejected (false negatives).
        """
        out: dict[str, dict[str, int]] = {}
        for name in self.probes:
            total = ProbeTally()
            for audit in self.scenarios:
                tally = audit.probes.get(name)
                for outcome in OUTCOMES:
                    setattr(total, outcome, getattr(total, outcome) + getattr(tally or ProbeTally(), outcome))
            tried = sum(getattr(total, outcome) for outcome in OUTCOMES)
            out[name] = {
                "tried": tried,
                "rejected": total.rejected,
                "false_positives": total.accepted,
                "equivalent": total.equivalent,
                "tolerated": total.tolerated,
                "invalid": total.invalid,
            }
        names = sorted({name for audit in self.scenarios for name in audit.alternative_families})
        for name in names:
            tried = sum(a.alternative_families.get(name, Tally()).total for a in self.scenarios)
            accepted = sum(a.alternative_families.get(name, Tally()).ok for a in self.scenarios)
            out[f"alternative:{name}"] = {
                "tried": tried,
                "accepted": accepted,
                "false_negatives": tried - accepted,
            }
        return out

    @property
    def passed(self) -> list[ScenarioAudit]:
        """Scenarios that passed every check."""
        return [audit for audit in self.scenarios if audit.passed]

    @property
    def yield_rate(self) -> float:
        """Scenarios that passed every check over scenarios audited."""
        return len(self.passed) / len(self.scenarios) if self.scenarios else 0.0

    @property
    def exit_status(self) -> int:
        """0 when every audited scenario passed every check, else 1 (for CI)."""
        return 0 if self.scenarios and len(self.passed) == len(self.scenarios) else 1

    def findings(self) -> list[Finding]:
        """Every failing finding."""
        return [finding for audit in self.scenarios for finding in audit.findings]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "yield": self.yield_rate,
            "passed": len(self.passed),
            "audited": len(self.scenarios),
            "seconds": round(self.seconds, 3),
            "probes": self.probes,
            "advisory_probes": self.advisory,
            "families": self.families(),
            "reader": self.reader,
            "scenarios": [audit.to_dict() for audit in self.scenarios],
        }

    def to_json(self) -> str:
        """Deterministic JSON (timings aside)."""
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True, indent=2)

    def to_text(self, explain: bool = False) -> str:
        """A table (one row per scenario, a column per probe: rejected/judged), findings, yield."""
        short = {name: _short(name) + ("*" if name in self.advisory else "") for name in self.probes}
        width = max([len("scenario"), *(len(audit.scenario) for audit in self.scenarios)])
        head = f"{'scenario':<{width}}  {'oracle':>6}  {'needed':>6}  {'alt':>5}  " + "  ".join(
            f"{short[name]:>{_cell(name)}}" for name in self.probes
        )
        head += f"  {'reject':>7}  {'toler':>5}  {'sec':>6}  ok"
        lines = [head]
        for audit in self.scenarios:
            cells = "  ".join(
                f"{audit.probes.get(name, ProbeTally()).cell():>{_cell(name)}}" for name in self.probes
            )
            rate = audit.rejection.rate
            lines.append(
                f"{audit.scenario:<{width}}  {audit.oracle.cell():>6}  {audit.necessity.cell():>6}  "
                f"{audit.alternatives.cell():>5}  {cells}  {_pct(rate):>7}  {len(audit.tolerated):>5}  "
                f"{audit.seconds:>6.2f}  {'yes' if audit.passed else 'NO'}"
            )
        lines.append("")
        if any(name in self.advisory for name in self.probes):
            lines.append(
                "* advisory: false positives listed, not failing ("
                + "; ".join(f"{name}: {why}" for name, why in self.advisory.items() if name in self.probes)
                + ")"
            )
        lines += self._families_text()
        lines += self._reader_text()
        lines.append(
            f"yield: {len(self.passed)}/{len(self.scenarios)} scenarios passed every check "
            f"({self.yield_rate:.0%}) in {self.seconds:.1f} s"
        )
        findings = self.findings()
        if findings:
            lines.append("")
            lines.append(f"findings ({len(findings)}):")
            for finding in findings:
                lines.append(finding.to_text() if explain else "  " + finding.headline())
        skipped = [
            (audit.scenario, probe, why) for audit in self.scenarios for probe, why in audit.skipped.items()
        ]
        lines.append("")
        lines.append(
            f"skipped probes: {len(skipped) or 'none'} (a probe that cannot run on a system is listed here)"
        )
        for scenario, probe, why in sorted(skipped):
            lines.append(f"  {scenario}: {probe}: {why}")
        tolerated = [finding for audit in self.scenarios for finding in audit.tolerated]
        if tolerated:
            lines.append("")
            lines.append(
                f"tolerated ({len(tolerated)}): privilege attempts the access check refused; nothing else "
                "differed from the oracle and the verdict passed"
            )
            for finding in tolerated[: 200 if explain else 10]:
                lines.append("  " + finding.headline())
            if not explain and len(tolerated) > 10:
                lines.append(f"  ... and {len(tolerated) - 10} more (--explain lists them)")
        advisory = [finding for audit in self.scenarios for finding in audit.advisory]
        if advisory:
            lines.append("")
            lines.append(f"advisory ({len(advisory)}): false positives of advisory probes")
            for finding in advisory[: None if explain else 20]:
                lines.append(finding.to_text() if explain else "  " + finding.headline())
            if not explain and len(advisory) > 20:
                lines.append(f"  ... and {len(advisory) - 20} more (--explain shows them in full)")
        return "\n".join(lines)

    def _families_text(self) -> list[str]:
        families = self.families()
        if not families:
            return []
        width = max(len(name) for name in families)
        lines = [
            "",
            f"{'probe family':<{width}}  {'tried':>6}  {'rejected':>8}  {'false +':>7}  {'equiv':>6}  "
            f"{'toler':>6}  {'invalid':>7}",
        ]
        for name, row in families.items():
            if name.startswith("alternative:"):
                lines.append(
                    f"{name:<{width}}  {row['tried']:>6}  accepted {row['accepted']}, "
                    f"false negatives {row['false_negatives']}"
                )
                continue
            lines.append(
                f"{name:<{width}}  {row['tried']:>6}  {row['rejected']:>8}  {row['false_positives']:>7}  "
                f"{row['equivalent']:>6}  {row['tolerated']:>6}  {row['invalid']:>7}"
            )
        lines.append("")
        return lines

    def _reader_text(self) -> list[str]:
        if not self.reader:
            return []
        lines = [
            "dialogue-act reader on the labelled corpora (precision / recall; target >= 0.99 / >= 0.97):"
        ]
        for corpus, checks in self.reader.items():
            cells = ", ".join(
                f"{check} {_pct2(row['precision'])} / {_pct2(row['recall'])}"
                for check, row in checks.items()
                if check != "all"
            )
            total = checks.get("all", {})
            lines.append(
                f"  {corpus} ({total.get('messages', 0)} messages): all {_pct2(total.get('precision'))} / "
                f"{_pct2(total.get('recall'))}; {cells}"
            )
        lines.append("")
        return lines


_SHORT = {
    "no_op": "noop",
    "end_at_once": "end",
    "answer_only": "answer",
    "minus_write": "minus",
    "plus_write": "plus",
    "same_row": "row",
    "wrong_record": "wrong",
    "perturb": "perturb",
    "bulk": "bulk",
    "privilege": "priv",
    "canary": "canary",
    "unchecked": "uncheck",
    "hedge": "hedge",
    "runbook": "runbook",
}


def _short(name: str) -> str:
    return _SHORT.get(name, name[:7])


def _cell(name: str) -> int:
    return max(len(_short(name)) + 1, 5)


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.0%}"


def _pct2(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.3f}"


def merge(reports: Sequence[AuditReport]) -> AuditReport:
    """One report of several (parallel workers each audit some scenarios)."""
    probes = reports[0].probes if reports else []
    advisory = reports[0].advisory if reports else {}
    scenarios = sorted((audit for report in reports for audit in report.scenarios), key=lambda a: a.scenario)
    reader = next((report.reader for report in reports if report.reader), {})
    return AuditReport(
        scenarios, probes, max((report.seconds for report in reports), default=0.0), advisory, reader
    )
