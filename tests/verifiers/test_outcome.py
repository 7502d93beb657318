"""Outcome classes: invalid (not the policy's doing), failure and success."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.faults import FaultConfig
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers import EpisodeFacts, Outcome, OutcomeKind, StateDiff, classify, judge, verify
from tests.verifiers.helpers import JOURNAL, expect, incidents

REFUSAL = {"forbid": [{"label": "no incident touched", "table": "incident"}]}
NOTE = {
    "change": [
        {
            "label": "a note",
            "op": "insert",
            "table": JOURNAL,
            "may_change": ["element", "element_id", "value"],
        }
    ]
}


@pytest.fixture(scope="module")
def faulty() -> Iterator[Backend]:
    """A tiny world where every call meets an injected 503."""
    backend = Backend(ITSM, size="tiny")
    yield backend
    backend.close()


@pytest.fixture
def outage(faulty: Backend) -> Backend:
    faulty.reset(faults=FaultConfig(unavailable_p=1.0))
    faulty.mark_start()
    return faulty


def passing():
    return judge(StateDiff(()), expect({}))


def failing():
    return judge(StateDiff(()), expect(NOTE))


def handler_error() -> dict[str, object]:
    # the shape Backend.call records in internal_errors when a handler raises
    return {"call_index": 3, "tool": "update_incident", "error": "KeyError('state')", "traceback": "..."}


@pytest.mark.parametrize("verdict", [passing(), failing(), None], ids=["passed", "failed", "no-verdict"])
@pytest.mark.parametrize(
    ("facts", "reason"),
    [
        (
            EpisodeFacts(internal_errors=[handler_error()]),
            "mock handler error in update_incident: KeyError('state')",
        ),
        (
            EpisodeFacts(verifier_error="claim search exceeded 3 nodes"),
            "verifier error: claim search exceeded 3 nodes",
        ),
        (
            EpisodeFacts(simulator_error="persona broke character"),
            "user simulator error: persona broke character",
        ),
        (
            EpisodeFacts(infrastructure_errors=["MCP server died", "connection reset"]),
            "infrastructure error: MCP server died",
        ),
    ],
    ids=["internal", "verifier", "simulator", "infrastructure"],
)
def test_errors_outside_the_policy_make_the_episode_invalid(
    verdict, facts: EpisodeFacts, reason: str
) -> None:
    outcome = classify(verdict, facts)
    assert outcome.kind is OutcomeKind.INVALID
    assert outcome.reason == reason


def test_invalid_reasons_come_in_a_fixed_order() -> None:
    facts = EpisodeFacts(
        internal_errors=[handler_error()],
        verifier_error="v",
        simulator_error="s",
        infrastructure_errors=["i"],
    )
    assert classify(passing(), facts).reason.startswith("mock handler error")
    facts = EpisodeFacts(verifier_error="v", simulator_error="s", infrastructure_errors=["i"])
    assert classify(passing(), facts).reason == "verifier error: v"
    facts = EpisodeFacts(simulator_error="s", infrastructure_errors=["i"])
    assert classify(passing(), facts).reason == "user simulator error: s"


def test_no_verdict_is_invalid() -> None:
    assert classify(None, EpisodeFacts()) == Outcome(OutcomeKind.INVALID, "no verdict")


def test_passed_verdict_is_success() -> None:
    outcome = classify(passing(), EpisodeFacts())
    assert outcome == Outcome(OutcomeKind.SUCCESS, "verified", ())
    assert outcome.to_dict() == {"kind": "success", "reason": "verified", "notes": []}


def test_failed_verdict_is_failure_naming_the_first_unmet_requirement() -> None:
    outcome = classify(failing(), EpisodeFacts())
    assert outcome.kind is OutcomeKind.FAILURE
    assert outcome.reason == "change 'a note' not met: no insert on sys_journal_field matched (want 1)"
    assert json.loads(json.dumps(outcome.to_dict())) == outcome.to_dict()


def test_injected_faults_are_never_invalid(outage: Backend) -> None:
    incident = incidents(outage, 1)[0]
    result = outage.call("add_comment", {"number": incident["number"], "text": "hello"})
    assert (result.status, result.injected, result.error) == (503, True, "unavailable")
    retry = outage.call("update_incident", {"number": incident["number"], "urgency": "1"})
    assert retry.status == 503 and retry.injected
    assert outage.internal_errors == []
    assert len(outage.faults.log) == 2
    facts = EpisodeFacts(internal_errors=outage.internal_errors, injected_faults=len(outage.faults.log))

    refusal = classify(verify(outage.store, expect(REFUSAL)), facts)  # nothing changed: a refusal passes
    assert refusal.kind is OutcomeKind.SUCCESS
    assert refusal.notes == ("2 injected fault(s) met",)

    task = classify(verify(outage.store, expect(NOTE)), facts)  # the note was never written
    assert task.kind is OutcomeKind.FAILURE
    assert task.reason.startswith("change 'a note' not met")
    assert task.notes == ("2 injected fault(s) met",)


def test_malformed_actions_are_the_policys_doing(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    unknown = itsm.call("add_coment", {"number": incident["number"], "text": "typo in the tool name"})
    bad_args = itsm.call("add_comment", {"number": incident["number"]})
    assert unknown.status == bad_args.status == 400 and not unknown.injected
    assert itsm.internal_errors == []
    facts = EpisodeFacts(internal_errors=itsm.internal_errors, malformed_actions=2)
    failure = classify(verify(itsm.store, expect(NOTE)), facts)
    assert failure.kind is OutcomeKind.FAILURE
    assert failure.notes == ("2 malformed action(s)",)
    assert "not met" in failure.reason
    assert itsm.call("add_comment", {"number": incident["number"], "text": "fixed"}).ok
    success = classify(verify(itsm.store, expect(NOTE)), facts)
    assert success.kind is OutcomeKind.SUCCESS  # the end state decides
    assert success.notes == ("2 malformed action(s)",)


def test_budget_exhaustion_is_recorded_and_the_verdict_decides() -> None:
    facts = EpisodeFacts(budget_exhausted=True, malformed_actions=1, injected_faults=3)
    failure = classify(failing(), facts)
    assert failure.kind is OutcomeKind.FAILURE
    assert failure.reason.startswith("budget exhausted; change 'a note' not met")
    assert failure.notes == ("1 malformed action(s)", "budget exhausted", "3 injected fault(s) met")
    success = classify(passing(), facts)
    assert success.kind is OutcomeKind.SUCCESS
    assert success.reason == "verified"
    assert "budget exhausted" in success.notes


def test_unexplained_change_is_the_reason_when_every_requirement_holds(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    assert itsm.call("update_incident", {"number": incident["number"], "category": "database"}).ok
    outcome = classify(verify(itsm.store, expect({})), EpisodeFacts())
    assert outcome.kind is OutcomeKind.FAILURE
    assert outcome.reason == f"unexplained change: update incident {incident['number']}"
