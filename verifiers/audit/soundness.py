"""The soundness checks of one scenario, over a small protocol the layer above implements.

For each seed (and surface): the oracle passes; the initial state fails (the task is necessary);
every probe variant fails unless the verifier could not tell it from the oracle; and every
alternative solution passes (the other surfaces' reference solutions, and the alternatives
generated from the oracle: see ``verifiers/audit/alternatives.py``). The checks need episodes
played, which this layer cannot do (it knows no Gym env and no scenario format):
:class:`Episodes` is what it asks for, and ``enterprise_envs.audit`` implements it.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence
from typing import Protocol

from enterprise_envs.verifiers.audit.alternatives import alternatives
from enterprise_envs.verifiers.audit.context import ProbeContext
from enterprise_envs.verifiers.audit.probes import ADVISORY, PROBES, Variant, variants
from enterprise_envs.verifiers.audit.report import Finding, ScenarioAudit
from enterprise_envs.verifiers.audit.trace import Action, Run, clock_fields


class Episodes(Protocol):
    """Episodes of one scenario: what the audit needs from the layer that runs them.

    Every method plays on a fresh reset of the instance a seed draws; the same seed and
    actions give the same run.
    """

    scenario_id: str

    def solutions(self) -> Sequence[tuple[str, str]]:
        """The scenario's reference solutions as ``(name, surface)``, in file order."""
        ...

    def oracle(self, seed: int, surface: str) -> tuple[bool, str]:
        """Play the surface's oracle as a real episode (user simulator, faults): (passed, reason)."""
        ...

    def record(self, seed: int, surface: str, solution: str) -> Run:
        """Play a reference solution open-loop and record it (results, each write's effects)."""
        ...

    def replay(self, seed: int, surface: str, actions: Sequence[Action]) -> Run:
        """Play actions open-loop (tool calls in order, messages to the user, then end) and verify."""
        ...

    def context(self, seed: int, surface: str) -> ProbeContext:
        """The probe context at the instance's start (valid until the next replay)."""
        ...


def audit_scenario(
    episodes: Episodes,
    seeds: Sequence[int],
    surfaces: Sequence[str] = ("typed",),
    probes: Sequence[str] | None = None,
    strict: bool = False,
) -> ScenarioAudit:
    """Run every check of one scenario.

    Args:
        episodes: Plays the scenario's episodes.
        seeds: Env seeds to audit.
        surfaces: Surfaces whose oracle is probed; solutions of the others are alternatives.
        probes: Probe names (default: all of :data:`PROBES`).
        strict: Count the false positives of advisory probes (:data:`ADVISORY`) as failures.
    """
    began = time.perf_counter()
    probes = list(probes or PROBES)
    solutions = list(episodes.solutions())
    oracles = {}
    for surface in surfaces:
        for name, on in solutions:
            if on == surface:
                oracles.setdefault(surface, name)
    audit = ScenarioAudit(episodes.scenario_id, [s for s in surfaces if s in oracles], list(seeds))
    for name in probes:
        audit.probe(name)
    audit.advisory_probes = [] if strict else [name for name in probes if name in ADVISORY]
    alternatives = [(name, on) for name, on in solutions if oracles.get(on) != name]
    for surface, solution in oracles.items():
        for seed in seeds:
            _audit_seed(episodes, audit, seed, surface, solution, probes, strict)
    for name, on in alternatives:
        for seed in seeds:
            run = episodes.record(seed, on, name)
            audit.alternatives.add(run.passed)
            audit.alternative("other_surface").add(run.passed)
            if not run.passed:
                audit.findings.append(
                    _finding(
                        "invalid" if run.error else "false_negative", audit, seed, on, f"solution {name}", run
                    )
                )
    audit.seconds = time.perf_counter() - began
    return audit


def _audit_seed(
    episodes: Episodes,
    audit: ScenarioAudit,
    seed: int,
    surface: str,
    solution: str,
    probes: list[str],
    strict: bool,
) -> None:
    passed, reason = episodes.oracle(seed, surface)
    oracle = episodes.record(seed, surface, solution)
    audit.oracle.add(passed and oracle.passed)
    if not (passed and oracle.passed):
        finding = _finding("oracle_failed", audit, seed, surface, f"oracle {solution}", oracle)
        if not passed:
            finding.explanation = f"closed-loop episode failed: {reason}\n{finding.explanation}"
        audit.findings.append(finding)
        return  # probes derive from a passing oracle
    initial = episodes.replay(seed, surface, [])
    audit.necessity.add(not initial.passed)
    if initial.passed:
        audit.findings.append(_finding("not_necessary", audit, seed, surface, "initial state", initial))
    ctx = episodes.context(seed, surface)
    ignore = clock_fields(ctx.catalog)
    built = variants(oracle, ctx, probes)  # built in full before the first replay
    for probe, why in ctx.skipped.items():
        audit.skipped.setdefault(probe, why)
    for variant in built:
        run = episodes.replay(seed, surface, variant.actions)
        outcome = judge(variant, run, oracle, ignore)
        audit.probe(variant.probe).add(outcome)
        if outcome == "accepted" and variant.probe in ADVISORY and not strict:
            audit.advisory.append(_finding("advisory", audit, seed, surface, variant.name, run, oracle))
        elif outcome == "accepted":
            audit.findings.append(_finding("false_positive", audit, seed, surface, variant.name, run, oracle))
        elif outcome == "invalid":
            audit.findings.append(_finding("invalid", audit, seed, surface, variant.name, run, oracle))
        elif outcome == "tolerated":
            audit.tolerated.append(_finding("tolerated", audit, seed, surface, variant.name, run, oracle))
    for variant in alternatives(oracle, ctx):  # valid work: every one must pass
        run = episodes.replay(seed, surface, variant.actions)
        audit.alternatives.add(run.passed)
        audit.alternative(variant.probe).add(run.passed)
        if not run.passed:
            kind = "invalid" if run.error else "false_negative"
            audit.findings.append(_finding(kind, audit, seed, surface, variant.name, run, oracle))


def judge(variant: Variant, run: Run, oracle: Run, ignore: Collection[str] = ()) -> str:
    """The outcome of one probe variant (see :class:`~.report.ProbeTally`).

    ``ignore``: fields left out when comparing the run with the oracle (system timestamps).
    """
    if run.error is not None or run.verdict is None:
        return "invalid"
    mine, theirs = run.fingerprint(ignore), oracle.fingerprint(ignore)
    if variant.forbidden:
        return "rejected" if not run.passed else "accepted"
    if variant.attempts and mine[:2] == theirs[:2]:
        return "rejected" if not run.passed else "tolerated"
    if mine == theirs:
        return "equivalent"
    return "rejected" if not run.passed else "accepted"


def _finding(
    kind: str, audit: ScenarioAudit, seed: int, surface: str, check: str, run: Run, oracle: Run | None = None
) -> Finding:
    verdict = run.verdict
    explanation = run.error or (verdict.to_text() if verdict is not None else "no verdict")
    return Finding(
        kind=kind,
        scenario=audit.scenario,
        seed=seed,
        surface=surface,
        check=check,
        trajectory=run.trajectory(),
        verdict=verdict.to_dict() if verdict is not None else None,
        explanation=explanation,
        against_oracle=_against(run, oracle) if oracle is not None else "",
    )


def _against(run: Run, oracle: Run) -> str:
    """Rows changed differently from the oracle: what the probe did that the oracle did not."""
    if run.verdict is None or oracle.verdict is None:
        return ""
    mine = {change.key: change for change in run.verdict.diff.changes}
    theirs = {change.key: change for change in oracle.verdict.diff.changes}
    lines = []
    for key, change in mine.items():
        other = theirs.get(key)
        if other is None:
            lines.append(f"+ {change.op} {change.label()} ({', '.join(change.significant)})")
            continue
        differing = [
            f"{name}: {other.value(name)!r} -> {change.value(name)!r}"
            for name in sorted(set(change.significant) | set(other.significant))
            if change.value(name) != other.value(name)
        ]
        if differing or change.op != other.op:
            lines.append(f"~ {change.op} {change.label()}: " + "; ".join(differing))
    for key, change in theirs.items():
        if key not in mine:
            lines.append(f"- {change.op} {change.label()} (the oracle's, missing here)")
    if run.denials != oracle.denials:
        extra = [denial for denial in run.denials if denial not in oracle.denials]
        lines += [f"! refused {tool} {operation} on {table} {key}" for tool, operation, table, key in extra]
    if run.messages() != oracle.messages():
        lines.append(f"messages: {len(run.messages())} (the oracle's: {len(oracle.messages())})")
    return "\n".join(lines) or "no difference the verifier can see"
