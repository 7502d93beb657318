"""Incident behaviour rules: each allowed path works; each forbidden path answers the vendor's
error and changes nothing (the serialized database is byte-identical)."""

from __future__ import annotations

import json

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm.services.common import priority_for
from tests.mocks.itsm.helpers import as_user, incident_in_state, requester, table_bytes, user_where


def patch(backend: Backend, sys_id: str, identity=None, **fields: str):
    return backend.call(
        "table_update",
        {"table": "incident", "sys_id": sys_id, "fields": fields},
        surface="rest",
        identity=identity,
    )


def assert_refused(backend: Backend, result, status: int, text: str, before: bytes) -> None:
    assert result.status == status, result.body
    assert result.body["status"] == "failure"
    assert text in (result.body["error"]["message"] + " " + (result.body["error"]["detail"] or ""))
    assert table_bytes(backend) == before, "a refused call changed the database"


def test_create_requires_caller_and_short_description(itsm: Backend) -> None:
    before = table_bytes(itsm)
    result = itsm.call("table_create", {"table": "incident", "fields": {"description": "x"}}, surface="rest")
    assert_refused(itsm, result, 403, "mandatory: Caller, Short description", before)


@pytest.mark.parametrize(("impact", "urgency"), [("1", "1"), ("1", "3"), ("2", "2"), ("3", "1"), ("3", "3")])
def test_priority_is_derived_from_impact_and_urgency(itsm: Backend, impact: str, urgency: str) -> None:
    caller = user_where(itsm, "roles = '' AND active = 'true'")
    result = itsm.call(
        "create_incident",
        {
            "caller": caller["user_name"],
            "short_description": "VPN drops",
            "impact": impact,
            "urgency": urgency,
        },
    )
    assert result.status == 200, result.body
    row = itsm.store.get("incident", result.body["sys_id"])
    assert row["priority"] == priority_for(impact, urgency)
    assert row["state"] == "1" and row["active"] == "true" and row["number"].startswith("INC")


def test_priority_cannot_be_set_against_the_matrix(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    wrong = "1" if row["priority"] != "1" else "5"
    before = table_bytes(itsm)
    assert_refused(itsm, patch(itsm, row["sys_id"], priority=wrong), 403, "read only: Priority", before)
    ok = patch(itsm, row["sys_id"], impact="1", urgency="1")
    assert ok.status == 200 and ok.body["result"]["priority"] == "1"


def test_on_hold_requires_a_reason_and_leaving_hold_clears_it(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    before = table_bytes(itsm)
    assert_refused(itsm, patch(itsm, row["sys_id"], state="3"), 403, "mandatory: On hold reason", before)
    assert patch(itsm, row["sys_id"], state="3", hold_reason="4").status == 200
    assert patch(itsm, row["sys_id"], state="2").status == 200
    assert itsm.store.get("incident", row["sys_id"])["hold_reason"] == ""


def test_resolve_requires_code_and_notes_then_stamps_resolution(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    before = table_bytes(itsm)
    result = patch(itsm, row["sys_id"], state="6")
    assert_refused(
        itsm,
        result,
        403,
        "Data Policy Exception: The following fields are mandatory: Resolution code, Resolution notes",
        before,
    )
    assert_refused(
        itsm,
        patch(itsm, row["sys_id"], state="6", close_code="Made up", close_notes="x"),
        400,
        "not a valid choice",
        before,
    )
    ok = patch(itsm, row["sys_id"], state="6", close_code="Solution provided", close_notes="Reset the token.")
    assert ok.status == 200
    stored = itsm.store.get("incident", row["sys_id"])
    assert stored["resolved_at"] == itsm.clock.now_text()
    assert stored["resolved_by"] == itsm.identity.user_sys_id
    assert stored["incident_state"] == "6" and stored["active"] == "true"


def test_itil_cannot_close_but_itil_admin_can(itsm: Backend) -> None:
    row = incident_in_state(itsm, "6")
    before = table_bytes(itsm)
    assert_refused(itsm, patch(itsm, row["sys_id"], state="7"), 403, "ACL Exception Update Failed", before)
    boss = user_where(itsm, "roles LIKE '%itil_admin%'")
    ok = patch(itsm, row["sys_id"], identity=as_user(itsm, boss["user_name"]), state="7")
    assert ok.status == 200, ok.body
    stored = itsm.store.get("incident", row["sys_id"])
    assert stored["active"] == "false" and stored["closed_at"] and stored["closed_by"] == boss["sys_id"]


@pytest.mark.parametrize("state", ["7", "8"])
def test_closed_and_canceled_incidents_are_frozen(itsm: Backend, state: str) -> None:
    row = incident_in_state(itsm, state)
    before = table_bytes(itsm)
    assert_refused(itsm, patch(itsm, row["sys_id"], state="2"), 403, "can no longer be updated", before)
    assert_refused(
        itsm, patch(itsm, row["sys_id"], comments="hello?"), 403, "can no longer be updated", before
    )
    result = itsm.call("reopen_incident", {"number": row["number"], "reason": "still broken"})
    assert_refused(itsm, result, 403, "Open a new incident instead", before)


def test_reopen_a_resolved_incident(itsm: Backend) -> None:
    row = incident_in_state(itsm, "6")
    result = itsm.call("reopen_incident", {"number": row["number"], "reason": "It broke again this morning."})
    assert result.status == 200, result.body
    stored = itsm.store.get("incident", row["sys_id"])
    assert stored["state"] == "2"
    assert stored["reopen_count"] == str(int(row["reopen_count"] or 0) + 1)
    assert (
        stored["reopened_by"] == itsm.identity.user_sys_id
        and stored["reopened_time"] == itsm.clock.now_text()
    )
    assert stored["close_code"] == "" and stored["resolved_at"] == ""
    journal = itsm.store.select(
        "sys_journal_field", "element_id = ? AND element = 'comments'", (row["sys_id"],)
    )
    assert any(entry["value"] == "It broke again this morning." for entry in journal)


def test_state_model_blocks_skipping_to_closed(itsm: Backend) -> None:
    row = incident_in_state(itsm, "1")
    admin = as_user(itsm, "admin")
    before = table_bytes(itsm)
    result = patch(
        itsm, row["sys_id"], identity=admin, state="7", close_code="Solution provided", close_notes="n"
    )
    assert_refused(itsm, result, 403, "Invalid state transition", before)


def test_state_model_switch_off_allows_it(itsm_session_backend: Backend) -> None:
    from enterprise_envs.mocks.itsm import ITSM

    lenient = Backend(ITSM, size="tiny", settings={"enforce_state_transitions": False})
    row = incident_in_state(lenient, "1")
    result = patch(
        lenient,
        row["sys_id"],
        identity=as_user(lenient, "admin"),
        state="7",
        close_code="Solution provided",
        close_notes="n",
    )
    assert result.status == 200, result.body


def test_assignee_must_belong_to_the_group(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    network = itsm.store.find_one("sys_user_group", "name", "Network")
    outsider = user_where(itsm, "roles = '' AND active = 'true'")
    before = table_bytes(itsm)
    result = patch(itsm, row["sys_id"], assignment_group=network["sys_id"], assigned_to=outsider["sys_id"])
    assert_refused(itsm, result, 400, "not a member of the assignment group", before)
    member = itsm.store.select("sys_user_grmember", '"group" = ?', (network["sys_id"],), limit=1)[0]["user"]
    ok = patch(itsm, row["sys_id"], assignment_group=network["sys_id"], assigned_to=member)
    assert ok.status == 200, ok.body


def test_group_change_counts_a_reassignment_and_drops_the_assignee(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2", "assigned_to != ''")
    other = itsm.store.select("sys_user_group", "sys_id != ?", (row["assignment_group"],), limit=1)[0]
    result = itsm.call("assign_incident", {"number": row["number"], "assignment_group": other["name"]})
    assert result.status == 200, result.body
    stored = itsm.store.get("incident", row["sys_id"])
    assert stored["reassignment_count"] == str(int(row["reassignment_count"] or 0) + 1)
    assert stored["assigned_to"] == ""


def test_requester_sees_and_comments_only_on_own_incidents(itsm: Backend) -> None:
    me = requester(itsm)
    listed = itsm.call("table_list", {"table": "incident"}, surface="rest", identity=me)
    assert listed.status == 200
    assert listed.body["result"]
    for row in listed.body["result"]:
        assert me.user_sys_id in {row[name]["value"] for name in ("caller_id", "opened_by") if row[name]}
    assert int(listed.headers["X-Total-Count"]) == len(listed.body["result"])
    mine = itsm.store.select(
        "incident", "caller_id = ? AND active = 'true' AND state != '3'", (me.user_sys_id,), limit=1
    )[0]
    other = itsm.store.select(
        "incident", "caller_id != ? AND opened_by != ?", (me.user_sys_id, me.user_sys_id), limit=1
    )[0]
    before = table_bytes(itsm)
    got = itsm.call(
        "table_get", {"table": "incident", "sys_id": other["sys_id"]}, surface="rest", identity=me
    )
    assert_refused(itsm, got, 404, "No Record found", before)
    assert_refused(
        itsm, patch(itsm, other["sys_id"], identity=me, comments="hi"), 404, "No Record found", before
    )
    assert_refused(
        itsm,
        patch(itsm, mine["sys_id"], identity=me, urgency="1"),
        403,
        "ACL Exception Update Failed",
        before,
    )
    assert_refused(itsm, patch(itsm, mine["sys_id"], identity=me, work_notes="internal"), 403, "ACL", before)
    assert patch(itsm, mine["sys_id"], identity=me, comments="Any news?").status == 200


def test_only_admins_delete(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    before = table_bytes(itsm)
    result = itsm.call("table_delete", {"table": "incident", "sys_id": row["sys_id"]}, surface="rest")
    assert_refused(itsm, result, 403, "ACL Exception Delete Failed", before)
    done = itsm.call(
        "table_delete",
        {"table": "incident", "sys_id": row["sys_id"]},
        surface="rest",
        identity=as_user(itsm, "admin"),
    )
    assert done.status == 204 and itsm.store.get("incident", row["sys_id"]) is None


@pytest.mark.parametrize(
    ("fields", "status", "text"),
    [
        ({"no_such_field": "x"}, 400, "does not exist on table incident"),
        ({"urgency": "9"}, 400, "not a valid choice"),
        ({"caller_id": "f" * 32}, 400, "not the sys_id of a sys_user record"),
        ({"caller_id": "Robert'); DROP TABLE incident;--"}, 400, "Invalid reference"),
        ({"reassignment_count": "99"}, 403, "read only"),
        ({"active": "maybe"}, 400, "not true or false"),
        ({"short_description": "x" * 161}, 400, "Maximum length"),
    ],
)
def test_bad_values_are_refused_atomically(itsm: Backend, fields: dict, status: int, text: str) -> None:
    row = incident_in_state(itsm, "2")
    before = table_bytes(itsm)
    assert_refused(
        itsm, patch(itsm, row["sys_id"], **{"short_description": "ok", **fields}), status, text, before
    )


def test_comments_and_work_notes_become_journal_entries(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    result = patch(itsm, row["sys_id"], work_notes="Checked the DHCP lease.", comments="We are on it.")
    assert result.status == 200
    assert result.body["result"]["work_notes"] == ""  # journal fields read as empty, like the vendor
    entries = itsm.store.select(
        "sys_journal_field", "element_id = ?", (row["sys_id"],), order_by="sys_created_on DESC, sys_id"
    )
    texts = {(entry["element"], entry["value"]) for entry in entries}
    assert {("work_notes", "Checked the DHCP lease."), ("comments", "We are on it.")} <= texts
    shown = itsm.call(
        "table_get",
        {
            "table": "incident",
            "sys_id": row["sys_id"],
            "sysparm_display_value": "true",
            "sysparm_fields": "work_notes",
        },
        surface="rest",
    )
    assert "Checked the DHCP lease." in shown.body["result"]["work_notes"]


def test_caller_reply_takes_an_awaiting_caller_hold_back_to_work(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2", "caller_id IN (SELECT sys_id FROM sys_user WHERE roles = '')")
    assert patch(itsm, row["sys_id"], state="3", hold_reason="1").status == 200
    caller = itsm.store.get("sys_user", row["caller_id"])
    from enterprise_envs.mocks.itsm import identity_of

    assert (
        patch(itsm, row["sys_id"], identity=identity_of(caller), comments="Here is the screenshot.").status
        == 200
    )
    stored = itsm.store.get("incident", row["sys_id"])
    assert stored["state"] == "2" and stored["hold_reason"] == ""


def test_parent_keeps_a_true_child_count(itsm: Backend) -> None:
    parent, child = itsm.store.select(
        "incident", "state = '2' AND parent_incident = '' AND child_incidents IN ('', '0')", limit=2
    )
    assert (
        itsm.call("update_incident", {"number": child["number"], "parent_incident": parent["number"]}).status
        == 200
    )
    assert itsm.store.get("incident", parent["sys_id"])["child_incidents"] == "1"
    assert itsm.call("update_incident", {"number": child["number"], "parent_incident": ""}).status == 200
    assert itsm.store.get("incident", parent["sys_id"])["child_incidents"] == "0"


def test_requesters_never_see_work_notes(itsm: Backend) -> None:
    me = requester(itsm)
    mine = itsm.store.select("incident", "caller_id = ? AND active = 'true'", (me.user_sys_id,), limit=1)[0]
    assert patch(itsm, mine["sys_id"], work_notes="Internal: suspect the user's laptop.").status == 200
    typed = itsm.call("get_incident", {"number": mine["number"]}, identity=me)
    assert typed.status == 200
    assert all(entry["type"] == "comment" for entry in typed.body["journal"])
    shown = itsm.call(
        "table_get",
        {"table": "incident", "sys_id": mine["sys_id"], "sysparm_display_value": "true"},
        surface="rest",
        identity=me,
    )
    assert "Internal" not in json.dumps(shown.body)
    staff_view = itsm.call("get_incident", {"number": mine["number"]})
    assert any(entry["type"] == "work_note" for entry in staff_view.body["journal"])


def test_requesters_cannot_write_journal_rows_directly(itsm: Backend) -> None:
    me = requester(itsm)
    other = itsm.store.select("incident", "caller_id != ?", (me.user_sys_id,), limit=1)[0]
    before = table_bytes(itsm)
    fields = {"element": "comments", "element_id": other["sys_id"], "name": "incident", "value": "spoofed"}
    result = itsm.call(
        "table_create", {"table": "sys_journal_field", "fields": fields}, surface="rest", identity=me
    )
    assert_refused(itsm, result, 403, "ACL Exception Insert Failed", before)


def test_add_comment_accepts_a_sys_id(itsm: Backend) -> None:
    row = incident_in_state(itsm, "2")
    result = itsm.call("add_comment", {"number": row["sys_id"], "text": "Called the user back."})
    assert result.status == 200 and result.body["number"] == row["number"]
