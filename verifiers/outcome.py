"""Outcome classes: success, failure, invalid, kept apart.

``invalid`` means something the policy did not cause broke the episode: an exception in a mock
handler, in the verifier or in the user simulator, or an infrastructure error that was not
injected. Such episodes should be rerun or masked, never trained on as failures. Injected
faults (rate limits, 503s, timeouts declared by the scenario) are the policy's to handle and
never make an episode invalid. Malformed actions and budget exhaustion are the policy's doing:
the verdict (from the end state) decides between success and failure, and the reason records
them.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.verifiers.verdict import Verdict


class OutcomeKind(enum.Enum):
    """The three outcome classes."""

    SUCCESS = "success"
    FAILURE = "failure"
    INVALID = "invalid"


@dataclass(frozen=True)
class EpisodeFacts:
    """What happened in an episode, apart from the end state.

    Attributes:
        internal_errors: Exceptions raised by mock handlers (``Backend.internal_errors``).
        verifier_error: The verifier's exception, if it raised.
        simulator_error: The user simulator's failure, if any.
        infrastructure_errors: Errors of the environment that no scenario injected (a server
            that died, a lost connection).
        malformed_actions: Agent actions that could not be parsed.
        budget_exhausted: The episode hit its step or tool-call budget.
        injected_faults: How many injected faults the policy met (for the record only).
    """

    internal_errors: Sequence[dict[str, Any]] = ()
    verifier_error: str | None = None
    simulator_error: str | None = None
    infrastructure_errors: Sequence[str] = ()
    malformed_actions: int = 0
    budget_exhausted: bool = False
    injected_faults: int = 0


@dataclass(frozen=True)
class Outcome:
    """An episode's class and why."""

    kind: OutcomeKind
    reason: str
    notes: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"kind": self.kind.value, "reason": self.reason, "notes": list(self.notes)}


def classify(verdict: Verdict | None, facts: EpisodeFacts) -> Outcome:
    """Classify an episode.

    Args:
        verdict: The verdict, or None if verification did not run or raised.
        facts: What else happened.
    """
    if facts.internal_errors:
        first = facts.internal_errors[0]
        return Outcome(
            OutcomeKind.INVALID, f"mock handler error in {first.get('tool')}: {first.get('error')}"
        )
    if facts.verifier_error:
        return Outcome(OutcomeKind.INVALID, f"verifier error: {facts.verifier_error}")
    if facts.simulator_error:
        return Outcome(OutcomeKind.INVALID, f"user simulator error: {facts.simulator_error}")
    if facts.infrastructure_errors:
        return Outcome(OutcomeKind.INVALID, f"infrastructure error: {facts.infrastructure_errors[0]}")
    if verdict is None:
        return Outcome(OutcomeKind.INVALID, "no verdict")
    notes = []
    if facts.malformed_actions:
        notes.append(f"{facts.malformed_actions} malformed action(s)")
    if facts.budget_exhausted:
        notes.append("budget exhausted")
    if facts.injected_faults:
        notes.append(f"{facts.injected_faults} injected fault(s) met")
    if verdict.passed:
        return Outcome(OutcomeKind.SUCCESS, "verified", tuple(notes))
    return Outcome(OutcomeKind.FAILURE, _first_failure(verdict, facts), tuple(notes))


def _first_failure(verdict: Verdict, facts: EpisodeFacts) -> str:
    for result in verdict.requirements:
        if not result.passed:
            reason = f"{result.kind} '{result.label}' not met: {result.evidence}"
            break
    else:
        if verdict.unexplained:
            change = verdict.unexplained[0]
            reason = f"unexplained change: {change.op} {change.label()}"
        else:
            reason = "verdict failed"
    if facts.budget_exhausted:
        reason = f"budget exhausted; {reason}"
    return reason
