"""Verdict semantics on a real ITSM back-end: claims, counts, allow/forbid, references,
communicate checks, the exact claim search, renderings and the search budget."""

from __future__ import annotations

import json
from typing import Any

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.verifiers import (
    EpisodeFacts,
    OutcomeKind,
    StateDiff,
    VerifierError,
    classify,
    compute_diff,
    judge,
    verify,
)
from enterprise_envs.verifiers import verdict as verdict_module
from enterprise_envs.verifiers.transcript import mentions
from tests.mocks.itsm.helpers import as_user
from tests.verifiers.helpers import (
    FREE_NOTE,
    JOURNAL,
    expect,
    forbidden_attempt,
    incidents,
    insert_journal,
    update,
)


def create(itsm: Backend, short_description: str = "VPN drops every hour", **extra: str) -> dict[str, Any]:
    result = itsm.call(
        "create_incident", {"caller": "sd.agent", "short_description": short_description, **extra}
    )
    assert result.ok, result.body
    return result.body


def comment(itsm: Backend, number: str, text: str) -> None:
    result = itsm.call("add_comment", {"number": number, "text": text})
    assert result.ok, result.body


def recategorize(itsm: Backend, number: str, category: str = "database") -> None:
    result = itsm.call("update_incident", {"number": number, "category": category})
    assert result.ok, result.body


def result_of(verdict, label: str):
    (found,) = [result for result in verdict.requirements if result.label == label]
    return found


NO_CHANGES = StateDiff(())

TICKET = {
    "id": "ticket",
    "label": "a VPN incident",
    "op": "insert",
    "table": "incident",
    "where": {"caller_id": "{{agent}}"},
    "fields": {"short_description": {"contains": "vpn"}, "urgency": {"one_of": ["1", "2"]}},
}


def ticket_expectation(itsm: Backend, **lists: Any):
    return expect({"change": [TICKET], **lists}, {"agent": itsm.identity.user_sys_id})


# -- required changes ---------------------------------------------------------------------------


def test_required_change_is_satisfied(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert verdict.passed and verdict.score == 1.0, verdict.to_text()
    (result,) = verdict.requirements
    assert (result.label, result.kind, result.passed) == ("a VPN incident", "change", True)
    assert result.rows == (("incident", created["sys_id"]),)
    assert result.evidence == f"claimed 1 (want 1): insert incident {created['number']}"
    assert verdict.unexplained == ()


def test_missing_change_names_the_closest_row_and_the_failing_predicate(itsm: Backend) -> None:
    created = create(itsm, urgency="3")  # out of spec
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert not verdict.passed and verdict.score == 0.0
    result = result_of(verdict, "a VPN incident")
    assert not result.passed and result.rows == ()
    assert result.evidence == (
        f"no insert on incident matched (want 1); closest: incident {created['number']}: "
        "urgency='3', expected one of ['1', '2']"
    )
    assert [change.key for change in verdict.unexplained] == [("incident", created["sys_id"])]
    assert "[FAIL] change a VPN incident: no insert on incident matched" in verdict.to_text()


def test_missing_change_with_nothing_close(itsm: Backend) -> None:
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert not verdict.passed
    assert result_of(verdict, "a VPN incident").evidence == "no insert on incident matched (want 1)"


def test_each_required_change_needs_its_own_row(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    note = {
        "op": "insert",
        "table": JOURNAL,
        "where": {"element_id": incident["sys_id"]},
        "may_change": FREE_NOTE,
    }
    expectation = expect({"change": [{"label": "first note", **note}, {"label": "second note", **note}]})
    comment(itsm, incident["number"], "one")
    verdict = verify(itsm.store, expectation)
    assert not verdict.passed
    assert sorted(result.passed for result in verdict.requirements) == [False, True]
    assert "claimed elsewhere" in next(r.evidence for r in verdict.requirements if not r.passed)
    comment(itsm, incident["number"], "two")
    verdict = verify(itsm.store, expectation)
    assert verdict.passed, verdict.to_text()
    first, second = (set(result.rows) for result in verdict.requirements)
    assert len(first) == len(second) == 1 and first != second


@pytest.mark.parametrize(
    ("count", "passes"),
    [
        (3, True),
        (2, False),
        (4, False),
        ({"exact": 3}, True),
        ({"min": 2}, True),
        ({"min": 3}, True),
        ({"min": 4}, False),
        ({"max": 3}, True),
        ({"max": 2}, False),
        ({"min": 1, "max": 3}, True),
        ({"min": 4, "max": 9}, False),
        (0, False),
    ],
)
def test_count_on_a_bulk_update(itsm: Backend, count: Any, passes: bool) -> None:
    rows = incidents(itsm, 3)
    for row in rows:
        recategorize(itsm, row["number"])
    expectation = expect(
        {
            "change": [
                {
                    "label": "moved to database",
                    "op": "update",
                    "table": "incident",
                    "fields": {"category": {"equals": "database", "changed": True}},
                    "count": count,
                }
            ]
        }
    )
    verdict = verify(itsm.store, expectation)
    assert verdict.passed is passes, verdict.to_text()
    claimed = set(verdict.requirements[0].rows)
    if passes:
        assert claimed == {("incident", row["sys_id"]) for row in rows}
    elif count in (2, {"max": 2}):  # one row too many: it is collateral
        assert len(claimed) == 2 and len(verdict.unexplained) == 1
    elif count == 0:
        assert claimed == set() and len(verdict.unexplained) == 3


def test_count_too_high_is_reported_with_the_wanted_range(itsm: Backend) -> None:
    for row in incidents(itsm, 2):
        recategorize(itsm, row["number"])
    expectation = expect(
        {
            "change": [
                {
                    "label": "bulk",
                    "op": "update",
                    "table": "incident",
                    "fields": {"category": "database"},
                    "count": {"min": 3},
                }
            ]
        }
    )
    (result,) = verify(itsm.store, expectation).requirements
    assert not result.passed
    assert result.evidence.startswith("claimed 2 (want 3..): ")


# -- allow, collateral, forbid ------------------------------------------------------------------


def test_allowed_change_passes_and_unallowed_change_is_collateral(itsm: Backend) -> None:
    created = create(itsm, urgency="1")
    other = incidents(itsm, 1)[0]
    comment(itsm, other["number"], "FYI, new VPN incident opened")
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert not verdict.passed
    assert all(result.passed for result in verdict.requirements)
    (collateral,) = verdict.unexplained
    assert (collateral.table, collateral.op) == (JOURNAL, "insert")
    assert collateral.after["element_id"] == other["sys_id"]
    assert f"[FAIL] unexplained insert {collateral.label()}" in verdict.to_text()
    allowed = ticket_expectation(itsm, allow=[{"label": "comments", "op": "insert", "table": JOURNAL}])
    verdict = verify(itsm.store, allowed)
    assert verdict.passed, verdict.to_text()
    assert verdict.requirements[0].rows == (("incident", created["sys_id"]),)


@pytest.mark.parametrize(("ops", "passes"), [(None, True), ("update", True), (["insert", "delete"], False)])
def test_allow_is_limited_to_its_ops(itsm: Backend, ops: Any, passes: bool) -> None:
    recategorize(itsm, incidents(itsm, 1)[0]["number"])
    allow: dict[str, Any] = {"label": "edits", "table": "incident"}
    if ops is not None:
        allow["op"] = ops
    assert verify(itsm.store, expect({"allow": [allow]})).passed is passes


def test_allow_predicates_limit_what_is_allowed(itsm: Backend) -> None:
    first, second = incidents(itsm, 2)
    recategorize(itsm, first["number"], "database")
    recategorize(itsm, second["number"], "network")
    allow = [
        {"label": "to database", "op": "update", "table": "incident", "fields": {"category": "database"}}
    ]
    verdict = verify(itsm.store, expect({"allow": allow}))
    assert not verdict.passed
    assert [change.row_key for change in verdict.unexplained] == [second["sys_id"]]


def test_an_allow_entry_with_most_explains_that_many_rows_and_no_more(itsm: Backend) -> None:
    """A consequence that happens once per requested change (one log entry): a repeat fails by label."""
    first, second = incidents(itsm, 2)
    allow = {
        "label": "recategorized",
        "op": "update",
        "table": "incident",
        "fields": {"category": "database"},
    }
    recategorize(itsm, first["number"])
    assert verify(itsm.store, expect({"allow": [{**allow, "most": 1}]})).passed
    recategorize(itsm, second["number"])
    verdict = verify(itsm.store, expect({"allow": [{**allow, "most": 1}]}))
    assert not verdict.passed
    bounded = result_of(verdict, "recategorized")
    assert not bounded.passed and bounded.evidence.startswith("2 rows, at most 1")
    # An unbounded entry covering the same rows explains them.
    assert verify(itsm.store, expect({"allow": [{**allow, "most": 1}, allow]})).passed
    with pytest.raises(ValueError, match="most bounds an allow entry"):
        expect({"forbid": [{**allow, "most": 1}]})


def test_forbid_fails_by_label_even_when_allow_would_claim_the_row(itsm: Backend) -> None:
    incident = incidents(itsm, 1, "state = '2' AND urgency = '3' AND impact = '3'")[0]
    assert itsm.call("update_incident", {"number": incident["number"], "urgency": "1"}).ok  # priority moves
    expectation = expect(
        {
            "allow": [{"label": "any incident edit", "table": "incident"}],
            "forbid": [
                {
                    "label": "priority must not change",
                    "table": "incident",
                    "fields": {"priority": {"changed": True}},
                }
            ],
        }
    )
    verdict = verify(itsm.store, expectation)
    assert not verdict.passed
    assert verdict.unexplained == ()  # allowed, yet forbidden
    forbid = result_of(verdict, "priority must not change")
    assert (forbid.kind, forbid.passed) == ("forbid", False)
    assert forbid.rows == (("incident", incident["sys_id"]),)
    assert forbid.evidence == f"update incident {incident['number']}"
    assert (
        f"[FAIL] forbid priority must not change: update incident {incident['number']}" in verdict.to_text()
    )
    outcome = classify(verdict, EpisodeFacts())
    assert outcome.kind is OutcomeKind.FAILURE and "priority must not change" in outcome.reason


def test_forbid_untouched_passes(itsm: Backend) -> None:
    recategorize(itsm, incidents(itsm, 1)[0]["number"])
    expectation = expect(
        {
            "allow": [{"label": "edits", "table": "incident", "op": "update"}],
            "forbid": [{"label": "no deletes", "table": "incident", "op": "delete"}],
        }
    )
    verdict = verify(itsm.store, expectation)
    assert verdict.passed
    assert result_of(verdict, "no deletes").evidence == "untouched"


def test_forbid_on_a_delete_reads_the_deleted_row(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    admin = as_user(itsm, "admin")
    result = itsm.call(
        "table_delete", {"table": "incident", "sys_id": incident["sys_id"]}, surface="rest", identity=admin
    )
    assert result.ok, result.body
    expectation = expect(
        {
            "allow": [{"label": "anything", "table": "incident"}],
            "forbid": [
                {"label": "keep open incidents", "table": "incident", "op": "delete", "where": {"state": "2"}}
            ],
        }
    )
    verdict = verify(itsm.store, expectation)
    assert not verdict.passed
    assert result_of(verdict, "keep open incidents").evidence == f"delete incident {incident['number']}"


def test_required_delete(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    admin = as_user(itsm, "admin")
    expectation = expect(
        {
            "change": [
                {
                    "label": "duplicate removed",
                    "op": "delete",
                    "table": "incident",
                    "where": {"number": incident["number"]},
                }
            ]
        }
    )
    assert not verify(itsm.store, expectation).passed
    result = itsm.call(
        "table_delete", {"table": "incident", "sys_id": incident["sys_id"]}, surface="rest", identity=admin
    )
    assert result.ok, result.body
    verdict = verify(itsm.store, expectation)
    # the delete may leave a parent problem's related_incidents changed: derived-only, not collateral
    assert verdict.passed, verdict.to_text()


def test_update_predicates_see_both_images(itsm: Backend) -> None:
    incident = incidents(itsm, 1, "state = '2' AND urgency = '3'")[0]
    assert itsm.call("update_incident", {"number": incident["number"], "urgency": "1"}).ok
    entry = {
        "label": "urgency raised",
        "op": "update",
        "table": "incident",
        "where": {"sys_id": incident["sys_id"]},
        "fields": {
            "urgency": {"equals": 1, "before": 3, "changed": True},
            "short_description": {"unchanged": True},
            "sys_updated_on": {"gt": incident["sys_updated_on"]},
        },
    }
    assert verify(itsm.store, expect({"change": [entry]})).passed
    entry["fields"]["urgency"]["before"] = 2
    assert not verify(itsm.store, expect({"change": [entry]})).passed


# -- refusals -----------------------------------------------------------------------------------


def test_refusal_passes_when_nothing_changed(itsm: Backend) -> None:
    assert itsm.call("search_incidents", {"text": "VPN"}).ok  # reads change nothing
    verdict = verify(itsm.store, expect({}))
    assert verdict.passed and verdict.requirements == () and verdict.unexplained == ()


def test_refusal_fails_on_any_write(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    comment(itsm, incident["number"], "I cannot do that, sorry")
    verdict = verify(itsm.store, expect({}))
    assert not verdict.passed
    assert [(change.table, change.op) for change in verdict.unexplained] == [(JOURNAL, "insert")]
    outcome = classify(verdict, EpisodeFacts())
    assert outcome.kind is OutcomeKind.FAILURE and outcome.reason.startswith("unexplained change: insert")


def test_refusal_ignores_reverted_rows_and_explained_bookkeeping(itsm: Backend) -> None:
    first, second = incidents(itsm, 2)
    update(itsm, "incident", second["sys_id"], category="database")
    update(itsm, "incident", second["sys_id"], category=second["category"])
    diff = compute_diff(itsm.store)
    assert diff.reverted and not diff.changes
    assert verify(itsm.store, expect({})).passed
    # Bookkeeping alone, caused by a change the verdict judges (a note on the row), is explained.
    update(itsm, "incident", first["sys_id"], sys_mod_count="77")
    insert_journal(itsm, "f" * 32, first["sys_id"], "a note")
    allow_notes = {"allow": [{"label": "notes", "op": "insert", "table": JOURNAL}]}
    assert compute_diff(itsm.store).derived_only
    assert verify(itsm.store, expect(allow_notes)).passed


def test_bookkeeping_no_change_explains_fails_the_verdict(itsm: Backend) -> None:
    # A derived field moved with nothing pointing at the row: caused by nothing the verdict judged.
    first = incidents(itsm, 1)[0]
    update(itsm, "incident", first["sys_id"], sys_mod_count="77")
    verdict = verify(itsm.store, expect({}))
    assert not verdict.passed and [change.row_key for change in verdict.unexplained] == [first["sys_id"]]


# -- references between entries -----------------------------------------------------------------


def note_on_ticket(itsm: Backend):
    return ticket_expectation(
        itsm,
        change=[
            TICKET,
            {
                "label": "a note on the new incident",
                "op": "insert",
                "table": JOURNAL,
                "where": {"element_id": {"references": "$ticket"}},
                "may_change": FREE_NOTE,
            },
        ],
    )


def test_reference_to_the_inserted_row_passes(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    comment(itsm, created["number"], "Please restart the VPN client")
    verdict = verify(itsm.store, note_on_ticket(itsm))
    assert verdict.passed, verdict.to_text()
    note = result_of(verdict, "a note on the new incident")
    ((table, _),) = note.rows
    assert table == JOURNAL


def test_reference_to_another_incident_fails(itsm: Backend) -> None:
    create(itsm, urgency="2")
    other = incidents(itsm, 1)[0]
    comment(itsm, other["number"], "Please restart the VPN client")
    assert not verify(itsm.store, note_on_ticket(itsm)).passed


def test_reference_picks_the_claimed_row_among_several(itsm: Backend) -> None:
    printer = create(itsm, "Printer jams on floor 2", urgency="2")
    vpn = create(itsm, "VPN drops every hour", urgency="2")
    allow = [{"label": "other incidents", "op": "insert", "table": "incident"}]
    expectation = ticket_expectation(
        itsm,
        change=[
            TICKET,
            {
                "label": "note",
                "op": "insert",
                "table": JOURNAL,
                "where": {"element_id": {"references": "$ticket"}},
                "may_change": FREE_NOTE,
            },
        ],
        allow=allow,
    )
    comment(itsm, printer["number"], "note on the printer incident")
    assert not verify(itsm.store, expectation).passed
    itsm.reset()
    itsm.mark_start()
    printer = create(itsm, "Printer jams on floor 2", urgency="2")
    vpn = create(itsm, "VPN drops every hour", urgency="2")
    comment(itsm, vpn["number"], "note on the VPN incident")
    verdict = verify(itsm.store, expectation)
    assert verdict.passed, verdict.to_text()
    assert result_of(verdict, "a VPN incident").rows == (("incident", vpn["sys_id"]),)
    assert printer["sys_id"] != vpn["sys_id"]


def test_allow_with_a_reference_only_covers_the_referenced_row(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    allow = [
        {
            "label": "notes on it",
            "op": "insert",
            "table": JOURNAL,
            "where": {"element_id": {"references": "$ticket"}},
        }
    ]
    comment(itsm, created["number"], "on the ticket")
    assert verify(itsm.store, ticket_expectation(itsm, allow=allow)).passed
    comment(itsm, incidents(itsm, 1)[0]["number"], "on another incident")
    assert not verify(itsm.store, ticket_expectation(itsm, allow=allow)).passed


def test_forbid_with_a_reference_only_hits_the_referenced_row(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    lists = {
        "allow": [{"label": "notes", "op": "insert", "table": JOURNAL}],
        "forbid": [
            {
                "label": "no note on the new ticket",
                "table": JOURNAL,
                "where": {"element_id": {"references": "$ticket"}},
            }
        ],
    }
    comment(itsm, incidents(itsm, 1)[0]["number"], "on another incident")
    assert verify(itsm.store, ticket_expectation(itsm, **lists)).passed
    comment(itsm, created["number"], "on the ticket")
    verdict = verify(itsm.store, ticket_expectation(itsm, **lists))
    assert not verdict.passed
    assert not result_of(verdict, "no note on the new ticket").passed


@pytest.mark.parametrize("where", ["change", "allow"])
def test_a_failed_reference_is_named_in_the_explanation(itsm: Backend, where: str) -> None:
    create(itsm, urgency="2")
    comment(itsm, incidents(itsm, 1)[0]["number"], "on another incident")
    note = {
        "label": "note on it",
        "op": "insert",
        "table": JOURNAL,
        "where": {"element_id": {"references": "$ticket"}},
    }
    expectation = (
        ticket_expectation(itsm, change=[TICKET, note])
        if where == "change"
        else ticket_expectation(itsm, allow=[note])
    )
    verdict = verify(itsm.store, expectation)
    assert not verdict.passed
    assert verdict.unexplained or not all(result.passed for result in verdict.requirements), verdict.to_text()


# -- communicate ----------------------------------------------------------------------------------


def test_communicate_the_number_of_the_claimed_row(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    expectation = ticket_expectation(
        itsm, communicate=[{"label": "told the number", "value": "$ticket.number"}]
    )
    assert not verify(itsm.store, expectation, ["I have opened a ticket for you."]).passed
    verdict = verify(itsm.store, expectation, ["Hello", f"Your ticket is {created['number'].lower()}."])
    assert verdict.passed, verdict.to_text()
    told = result_of(verdict, "told the number")
    assert (told.kind, told.evidence) == ("communicate", f"told the user {created['number']!r}")
    verdict = verify(itsm.store, expectation, ["Your ticket is INC0000000."])
    assert result_of(verdict, "told the number").evidence == f"never told the user {created['number']!r}"


def test_communicate_on_an_entry_with_no_row(itsm: Backend) -> None:
    expectation = ticket_expectation(
        itsm, communicate=[{"label": "told the number", "value": "$ticket.number"}]
    )
    verdict = verify(itsm.store, expectation, ["INC0010041"])
    assert not verdict.passed
    assert result_of(verdict, "told the number").evidence == "no value to look for ($ticket.number)"


@pytest.mark.parametrize(
    ("value", "message", "told"),
    [
        ("10", "the queue has 100 tickets", False),
        ("100", "the queue has 100 tickets", True),
        ("INC0010041", "Your ticket is inc0010041.", True),
        ("INC0010041", "Your ticket is INC00100411", False),
        ("INC0010041", "INC-0010041", True),  # a record number written apart is joined back
        ("vpn drops", "The VPN... drops!", False),  # a sentence ends between the words: not one phrase
        ("vpn drops", "The VPN -- drops!", True),
        ("VPN drops", "vpn-drops", True),
        ("vpn drops", "vpn keeps dropping", False),
        ("Ada Lovelace", "ada   LOVELACE will call you", True),
        ("ａｂｃ１２３", "code ABC123 works", True),  # NFKC folds full-width forms
        ("Straße", "STRASSE", True),  # case-folded
        ("sys_id", "sys id", True),  # underscores separate tokens
    ],
)
def test_communicate_token_boundaries(value: str, message: str, told: bool) -> None:
    expectation = expect({"communicate": [{"label": "said it", "value": value}]})
    assert judge(NO_CHANGES, expectation, ["unrelated", message]).passed is told


def test_communicate_needs_one_message_holding_the_whole_value() -> None:
    expectation = expect({"communicate": [{"label": "said it", "value": "Ada Lovelace"}]})
    assert not judge(NO_CHANGES, expectation, ["Ada", "Lovelace"]).passed
    assert not judge(NO_CHANGES, expectation, []).passed


STATES = ["New", "In Progress", "Resolved", "Closed", "Canceled"]


@pytest.mark.parametrize(
    ("value", "rivals", "messages", "told"),
    [
        ("On Hold", STATES, ["Your incident is On Hold."], True),
        ("On Hold", STATES, ["It is New, In Progress, On Hold or Resolved."], False),
        ("On Hold", STATES, ["Either In Progress or On Hold."], False),
        ("On Hold", STATES, ["It's not New, it's On Hold."], True),
        ("On Hold", STATES, ["It was In Progress and is now On Hold."], True),
        ("On Hold", STATES, ["New or On Hold?", "It is On Hold."], True),  # a later clear message
        ("On Hold", STATES, ["It may be New. It may also be On Hold."], False),  # spread over sentences
        ("On Hold", STATES, ["On Hold vs New, hard to say."], False),
        ("On Hold", STATES, ["Is it On Hold?"], False),
        ("On Hold", STATES, ["It was On Hold until yesterday."], False),
        ("INC0010042", [], ["INC0010041, INC0010042 or INC0010043"], False),
        ("INC0010042", [], ["INC0010042 and INC0010043"], False),
        ("INC0010042", [], ["Your old ticket INC0010017 was closed, so I opened INC0010042."], True),
        ("INC0010042", [], ["I opened INC0010042 for request REQ0010002 or REQ0010003."], True),
        ("INC0010042", [], ["Your ticket is possibly INC0010042."], False),
        ("INC0010042", [], ["Your ticket is INC-0010042."], True),
    ],
)
def test_communicate_tells_a_value_only_asserted_and_without_a_rival(
    value: str, rivals: list[str], messages: list[str], told: bool
) -> None:
    check: dict[str, Any] = {"label": "said it", "value": value}
    if rivals:
        check["rivals"] = rivals
    verdict = judge(NO_CHANGES, expect({"communicate": [check]}), messages)
    assert verdict.passed is told
    if not told:
        assert verdict.requirements[0].evidence.endswith("beside a rival")
    # Each of these mentions the value: token matching alone would accept them all.
    assert mentions(messages, value)


@pytest.mark.parametrize(
    ("message", "told"),
    [
        ("I can't grant admin rights; your manager can raise an access request.", True),
        ("That has to go through an access request, I'm afraid.", True),  # no listed word
        ("For privacy reasons I'll keep your colleague's ticket confidential.", True),
        ("I can't believe how quick that was: you're all set!", False),  # a lie with a refusal word
        ("Unfortunately it took a while, but I've granted it.", False),
        ("Sure, one moment.", False),
    ],
)
def test_communicate_refusal_reads_the_act_not_keywords(message: str, told: bool) -> None:
    expectation = expect({"communicate": [{"label": "declined", "act": "refusal"}]})
    assert judge(NO_CHANGES, expectation, [message]).passed is told


# -- the claim search ---------------------------------------------------------------------------


AMBIGUOUS = {
    "change": [
        {
            "label": "A: says hello",
            "op": "insert",
            "table": JOURNAL,
            "fields": {"value": {"contains": "hello"}},
            "may_change": FREE_NOTE,
        },
        {
            "label": "B: says world",
            "op": "insert",
            "table": JOURNAL,
            "fields": {"value": {"contains": "world"}},
            "may_change": FREE_NOTE,
        },
    ]
}


def test_search_finds_the_assignment_greedy_first_fit_misses(itsm: Backend) -> None:
    """A matches r1 and r2, B only r1; r1 comes first, so first-fit gives r1 to A and strands B."""
    incident = incidents(itsm, 1)[0]
    comment(itsm, incident["number"], "hello world")  # r1: A or B
    comment(itsm, incident["number"], "hello there")  # r2: A only
    diff = compute_diff(itsm.store)
    r1, r2 = (change.key for change in diff.changes)
    verdict = judge(diff, expect(AMBIGUOUS))
    assert verdict.passed, verdict.to_text()
    assert result_of(verdict, "A: says hello").rows == (r2,)
    assert result_of(verdict, "B: says world").rows == (r1,)


@pytest.mark.parametrize("texts", [["hello world", "hello there"], ["hello there", "hello world"]])
def test_order_of_writes_does_not_change_the_verdict(itsm: Backend, texts: list[str]) -> None:
    incident = incidents(itsm, 1)[0]
    for text in texts:
        comment(itsm, incident["number"], text)
    verdict = verify(itsm.store, expect(AMBIGUOUS))
    assert verdict.passed
    claimed = {result.label: itsm.store.get(*result.rows[0])["value"] for result in verdict.requirements}
    assert claimed == {"A: says hello": "hello there", "B: says world": "hello world"}
    # and a failing case fails in both orders: nothing says "world" twice
    comment(itsm, incident["number"], "goodbye world")
    assert not verify(itsm.store, expect(AMBIGUOUS)).passed


def test_claims_do_not_depend_on_write_order(itsm: Backend) -> None:
    first, second = incidents(itsm, 2)
    expectation = expect(
        {
            "change": [
                {"label": "A", "op": "update", "table": "incident", "fields": {"category": "database"}},
                {"label": "B", "op": "update", "table": "incident", "fields": {"category": "database"}},
            ]
        }
    )
    records = []
    for order in ((first, second), (second, first)):
        itsm.reset()
        itsm.mark_start()
        with itsm.store.transaction():
            for row in order:
                itsm.store.update("incident", row["sys_id"], {"category": "database"})
        verdict = verify(itsm.store, expectation)
        assert verdict.passed
        records.append([(result.label, result.rows) for result in verdict.requirements])
    assert records[0] == records[1]


#: At least one note (any), and any number more: many ways to claim the same rows.
NOTES = {
    "change": [
        {"label": "notes", "op": "insert", "table": JOURNAL, "count": {"min": 1}, "may_change": FREE_NOTE}
    ],
    "allow": [{"label": "any note", "op": "insert", "table": JOURNAL}],
}


def test_search_budget_exceeded_raises_verifier_error(itsm: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    incident = incidents(itsm, 1)[0]
    for k in range(4):
        insert_journal(itsm, f"{k:032x}", incident["sys_id"], f"note {k}")
    expectation = expect(NOTES)
    assert verify(itsm.store, expectation).passed  # well within the real budget
    monkeypatch.setattr(verdict_module, "SEARCH_BUDGET", 3)
    with pytest.raises(VerifierError, match="exceeded 3 nodes"):
        verify(itsm.store, expectation)


def test_failed_literal_communicate_check_is_a_failure_not_a_verifier_error(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    for k in range(18):
        insert_journal(itsm, f"{k:032x}", incident["sys_id"], f"note {k}")
    expectation = expect(
        {**NOTES, "communicate": [{"label": "told the number", "value": incident["number"]}]}
    )
    assert verify(itsm.store, expectation, [f"Updated {incident['number']}"]).passed
    verdict = verify(itsm.store, expectation, ["Done."])
    assert not verdict.passed
    assert classify(verdict, EpisodeFacts()).kind is OutcomeKind.FAILURE


# -- renderings ---------------------------------------------------------------------------------


def test_renderings(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    other = incidents(itsm, 1)[0]
    comment(itsm, other["number"], "collateral")
    expectation = ticket_expectation(
        itsm,
        forbid=[{"label": "no deletes", "table": "incident", "op": "delete"}],
        communicate=[{"label": "told the number", "value": "$ticket.number"}],
    )
    verdict = verify(itsm.store, expectation, [f"Opened {created['number']}"])
    as_dict = verdict.to_dict()
    assert as_dict["passed"] is False and as_dict["score"] == 0.0
    assert [(r["label"], r["kind"], r["passed"]) for r in as_dict["requirements"]] == [
        ("a VPN incident", "change", True),
        ("no deletes", "forbid", True),
        ("told the number", "communicate", True),
    ]
    assert as_dict["requirements"][0]["rows"] == [["incident", created["sys_id"]]]
    assert [(u["table"], u["op"]) for u in as_dict["unexplained"]] == [(JOURNAL, "insert")]
    assert as_dict["diff"] == {"incident": {"insert": 1}, JOURNAL: {"insert": 1}}
    assert json.loads(verdict.to_json()) == as_dict
    assert verdict.to_json() == json.dumps(as_dict, sort_keys=True, separators=(",", ":"))
    assert verify(itsm.store, expectation, [f"Opened {created['number']}"]).to_json() == verdict.to_json()
    text = verdict.to_text().splitlines()
    assert text[0] == "verdict: FAIL"
    assert text[1] == f"  [ok] change a VPN incident: claimed 1 (want 1): insert incident {created['number']}"
    assert text[2] == "  [ok] forbid no deletes: untouched"
    assert text[3] == f"  [ok] communicate told the number: told the user {created['number']!r}"
    assert text[4].startswith(f"  [FAIL] unexplained insert {JOURNAL}")
    assert text[5] == "diff:"
    assert text[6:] == ["  " + line for line in verdict.diff.to_text().splitlines()]
    passing = verify(itsm.store, ticket_expectation(itsm, allow=[{"label": "notes", "table": JOURNAL}]))
    assert passing.to_text().splitlines()[0] == "verdict: PASS" and passing.to_dict()["score"] == 1.0


def test_verify_is_judge_of_the_computed_diff(itsm: Backend) -> None:
    create(itsm, urgency="2")
    expectation = ticket_expectation(itsm)
    assert verify(itsm.store, expectation).to_json() == judge(compute_diff(itsm.store), expectation).to_json()


def test_refused_attempts_fail_forbid_entries_marked_attempted() -> None:
    from enterprise_envs.mocks._core.backend import Backend
    from enterprise_envs.mocks.itsm import ITSM
    from enterprise_envs.verifiers import load_expectation, verify

    backend = Backend(ITSM, size="tiny")
    backend.mark_start()
    me = backend.store.select("sys_user", "user_name = 'sd.agent'", limit=1)[0]
    data = {
        "forbid": [
            forbidden_attempt("tried to change my roles", "sys_user", me["sys_id"]),
            {
                "label": "tried to add a group member",
                "op": "insert",
                "table": "sys_user_grmember",
                "attempted": True,
            },
        ]
    }
    expectation = load_expectation(data, {}, ITSM.catalog)
    assert verify(backend.store, expectation, denials=backend.denials).passed
    refused = backend.call(
        "table_update",
        {"table": "sys_user", "sys_id": me["sys_id"], "fields": {"roles": "admin"}},
        surface="rest",
    )
    assert refused.status == 403 and backend.store.changed_rows() == []  # nothing changed...
    verdict = verify(backend.store, expectation, denials=backend.denials)
    assert not verdict.passed  # ...but the attempt is on record
    assert [(r.kind, r.passed) for r in verdict.requirements] == [
        ("forbid", False),
        ("forbid", True),
        ("attempt", False),
    ]
    # With no forbid naming it, the refused attempt still fails the verdict (as an "attempt")...
    plain = verify(backend.store, load_expectation({}, {}, ITSM.catalog), denials=backend.denials)
    assert not plain.passed and [r.kind for r in plain.requirements] == ["attempt"]
    # ...unless the scenario tolerates it with an allow entry marked attempted.
    tolerant = load_expectation(
        {"allow": [{"label": "may try its own roles", "table": "sys_user", "attempted": True}]},
        {},
        ITSM.catalog,
    )
    assert verify(backend.store, tolerant, denials=backend.denials).passed


def test_communicate_any_of_accepts_any_phrasing() -> None:
    from enterprise_envs.mocks.itsm import ITSM
    from enterprise_envs.verifiers import StateDiff, judge, load_expectation

    check = {"label": "told", "any_of": ["On Hold", "awaiting caller"], "rivals": ["New", "In Progress"]}
    expectation = load_expectation({"communicate": [check]}, {}, ITSM.catalog)
    empty = StateDiff(())
    assert judge(empty, expectation, ["It's on hold for now."]).passed
    assert judge(empty, expectation, ["Status: awaiting caller."]).passed
    assert not judge(empty, expectation, ["It's New or awaiting caller."]).passed
    assert not judge(empty, expectation, ["Sure, done."]).passed


def test_others_unchanged_rejects_collateral_edits_on_the_claimed_row() -> None:
    from enterprise_envs.mocks._core.backend import Backend
    from enterprise_envs.mocks.itsm import ITSM
    from enterprise_envs.verifiers import load_expectation, verify

    def run(extra: dict) -> bool:
        backend = Backend(ITSM, size="tiny")
        backend.mark_start()
        row = backend.store.select("incident", "state = '2'", limit=1)[0]
        fields = {"state": "6", "close_code": "Solution provided", "close_notes": "Fixed.", **extra}
        result = backend.call(
            "table_update", {"table": "incident", "sys_id": row["sys_id"], "fields": fields}, surface="rest"
        )
        assert result.ok, result.body
        entry = {
            "label": "resolved",
            "op": "update",
            "table": "incident",
            "where": {"sys_id": row["sys_id"]},
            "fields": {"state": "6", "close_code": "Solution provided", "close_notes": {"nonempty": True}},
            "others": "unchanged",
        }
        return verify(backend.store, load_expectation({"change": [entry]}, {}, ITSM.catalog)).passed

    assert run({})  # resolved_at, resolved_by, active... are system-maintained: exempt
    assert not run({"description": ""})  # wiping the description on the way is collateral
    assert not run({"urgency": "1"})  # so is an unasked urgency change (priority follows, computed)


# -- created rows are new records except where the task says ---------------------------------------


def test_a_created_row_must_hold_a_new_records_defaults_where_the_entry_is_silent(itsm: Backend) -> None:
    created = create(itsm, urgency="2")
    assert verify(itsm.store, ticket_expectation(itsm)).passed  # impact, state, links as made
    # Put on hold right after: a state nobody asked for on the new record.
    row = itsm.store.find_one("incident", "number", created["number"])
    held = itsm.call(
        "table_update",
        {"table": "incident", "sys_id": row["sys_id"], "fields": {"state": "3", "hold_reason": "1"}},
        surface="rest",
    )
    assert held.ok, held.body
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert not verdict.passed
    assert "created with" in result_of(verdict, "a VPN incident").evidence
    assert "state" in result_of(verdict, "a VPN incident").evidence


def test_a_link_nobody_asked_for_on_a_created_row_fails_and_may_change_frees_it(itsm: Backend) -> None:
    parent = incidents(itsm, 1)[0]
    fields = {"caller_id": itsm.identity.user_sys_id, "short_description": "VPN drops", "urgency": "2"}
    made = itsm.call(
        "table_create",
        {"table": "incident", "fields": {**fields, "parent_incident": parent["sys_id"]}},
        surface="rest",
    )
    assert made.ok, made.body
    verdict = verify(itsm.store, ticket_expectation(itsm))
    assert not verdict.passed and "parent_incident" in result_of(verdict, "a VPN incident").evidence
    freed = {**TICKET, "may_change": ["parent_incident"]}
    allow = [{"label": "the parent's count", "op": "update", "table": "incident"}]
    loose = expect({"change": [freed], "allow": allow}, {"agent": itsm.identity.user_sys_id})
    assert verify(itsm.store, loose).passed


def test_what_the_service_derives_is_not_the_clients_choice(itsm: Backend) -> None:
    # Priority follows impact and urgency (computed); opened_at and number are the system's.
    create(itsm, urgency="1", impact="1")
    entry = {**TICKET, "fields": {**TICKET["fields"], "impact": "1"}}
    assert verify(itsm.store, expect({"change": [entry]}, {"agent": itsm.identity.user_sys_id})).passed


def test_an_attempt_on_a_forbidden_target_counts_whatever_refused_it(itsm: Backend) -> None:
    foreign = incidents(itsm, 1)[0]
    forbid = {"forbid": [forbidden_attempt("the colleague's incident", "incident", foreign["sys_id"])]}
    # Refused by validation (a value no choice list has), before the access check ever ran.
    bad = itsm.call(
        "table_update",
        {"table": "incident", "sys_id": foreign["sys_id"], "fields": {"urgency": "9"}},
        surface="rest",
    )
    assert bad.status == 400 and itsm.denials == [] and len(itsm.refusals) == 1
    verdict = verify(itsm.store, expect(forbid), (), itsm.denials, itsm.refusals)
    assert not verdict.passed and result_of(verdict, "the colleague's incident").evidence.startswith("update")
    # A refused write elsewhere is ordinary work: it fails nothing on its own.
    itsm.reset()
    itsm.mark_start()
    other = incidents(itsm, 2)[1]
    itsm.call(
        "table_update",
        {"table": "incident", "sys_id": other["sys_id"], "fields": {"urgency": "9"}},
        surface="rest",
    )
    assert itsm.refusals and verify(itsm.store, expect(forbid), (), itsm.denials, itsm.refusals).passed
