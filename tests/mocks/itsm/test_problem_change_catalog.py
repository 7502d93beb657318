"""Problem, change and service catalog rules, through the typed tools and the Table API.

Every test runs on a fresh ``tiny`` world (real SQLite). A forbidden action must return the
vendor's error body and leave the database byte-for-byte as it was.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm import ITSM, identity_of
from enterprise_envs.mocks.itsm.services.change import CAB_GROUP
from enterprise_envs.mocks.itsm.world import ADMIN_USER_NAME, AGENT_USER_NAME

RESOLUTION_FIELDS = {
    "fix_applied": ["Cause notes", "Fix notes"],
    "risk_accepted": ["Cause notes", "Resolution notes"],
    "canceled": ["Resolution notes"],
    "duplicate": ["Duplicate of"],
}
RESOLUTION_VALUES = {"cause_notes": "Cause.", "fix_notes": "Fix.", "close_notes": "Notes."}


# -- helpers ------------------------------------------------------------------------------------


@pytest.fixture
def backend() -> Iterator[Backend]:
    world = Backend(ITSM, size="tiny")
    yield world
    world.close()


def typed(
    backend: Backend, tool: str, args: dict[str, Any], identity: Identity | None = None
) -> dict[str, Any]:
    """Call a typed tool that must succeed; its body must satisfy the tool's output schema."""
    result = backend.call(tool, args, surface="typed", identity=identity)
    assert result.ok, (tool, result.status, result.body)
    schema = ITSM.surface("typed")[tool].output_schema
    errors = list(Draft202012Validator(schema).iter_errors(result.body))
    assert not errors, (tool, [error.message for error in errors])
    return result.body


def rest(backend: Backend, tool: str, args: dict[str, Any], identity: Identity | None = None) -> CallResult:
    """Call a Table API tool."""
    return backend.call(tool, args, surface="rest", identity=identity)


def patch(
    backend: Backend, table: str, sys_id: str, fields: dict[str, str], identity: Identity | None = None
):
    """PATCH one record through the Table API."""
    return rest(backend, "table_update", {"table": table, "sys_id": sys_id, "fields": fields}, identity)


def refused(
    backend: Backend,
    tool: str,
    args: dict[str, Any],
    *,
    surface: str = "typed",
    identity: Identity | None = None,
    status: int = 403,
    detail: str = "",
) -> dict[str, Any]:
    """Call something that must fail: the vendor's error envelope, nothing written."""
    before = backend.serialize()
    result = backend.call(tool, args, surface=surface, identity=identity)
    assert result.status == status, (tool, result.status, result.body)
    assert result.body["status"] == "failure"
    assert set(result.body["error"]) == {"message", "detail"}
    assert detail in (result.body["error"]["detail"] or ""), result.body
    assert backend.serialize() == before, f"{tool} failed but changed the database"
    assert not backend.internal_errors
    return result.body


def mandatory(labels: list[str]) -> str:
    return "Data Policy Exception: The following fields are mandatory: " + ", ".join(labels)


def user(backend: Backend, user_name: str) -> Row:
    found = backend.store.find_one("sys_user", "user_name", user_name)
    assert found is not None, user_name
    return found


def as_user(backend: Backend, sys_id: str) -> Identity:
    row = backend.store.get("sys_user", sys_id)
    assert row is not None
    return identity_of(row)


def by_number(backend: Backend, table: str, number: str) -> Row:
    found = backend.store.find_one(table, "number", number)
    assert found is not None, number
    return found


def resolver_group(backend: Backend) -> Row:
    """An assignment group (not the CAB) whose manager is an active user."""
    for group in backend.store.select("sys_user_group", "name != ?", (CAB_GROUP,), order_by="name"):
        manager = backend.store.get("sys_user", group["manager"]) if group["manager"] else None
        if manager is not None and manager["active"] != "false":
            return group
    raise AssertionError("the tiny world has no group with a manager")


def cab_approvers(backend: Backend) -> list[str]:
    """sys_ids of the CAB members who hold the approver role."""
    cab = backend.store.find_one("sys_user_group", "name", CAB_GROUP)
    assert cab is not None
    members = backend.store.column_values("sys_user_grmember", "user", '"group" = ?', (cab["sys_id"],))
    out = []
    for sys_id in members:
        row = backend.store.get("sys_user", sys_id)
        if row and row["active"] != "false" and "approver" in row["roles"].split(","):
            out.append(sys_id)
    assert len(out) >= 2, "the tests need a CAB with at least two approvers"
    return out


def approvals(backend: Backend, change_sys_id: str) -> list[Row]:
    return backend.store.select(
        "sysapproval_approver", "sysapproval = ?", (change_sys_id,), order_by="sys_created_on, sys_id"
    )


def pending(backend: Backend, change_sys_id: str, approver: str) -> Row:
    rows = [
        row
        for row in approvals(backend, change_sys_id)
        if row["approver"] == approver and row["state"] == "requested"
    ]
    assert len(rows) == 1, rows
    return rows[0]


def requester(backend: Backend, skip: tuple[str, ...] = ()) -> Row:
    """An active user with no roles (an employee), not one of ``skip``."""
    for row in backend.store.select("sys_user", "roles = '' AND active = 'true'", order_by="user_name"):
        if row["sys_id"] not in skip:
            return row
    raise AssertionError("no requester in the tiny world")


def open_incidents(backend: Backend, count: int) -> list[Row]:
    rows = backend.store.select(
        "incident", "active = 'true' AND problem_id = ''", order_by="number", limit=count
    )
    assert len(rows) == count
    return rows


def new_change(backend: Backend, kind: str, group: Row | None = None, **extra: str) -> dict[str, Any]:
    args: dict[str, Any] = {"type": kind, "short_description": f"{kind} change", **extra}
    if group is not None:
        args["assignment_group"] = group["name"]
    return typed(backend, "create_change", args)


def scheduled_normal_change(backend: Backend) -> Row:
    """A normal change taken through both approvals to Scheduled."""
    group = resolver_group(backend)
    number = new_change(backend, "normal", group)["number"]
    typed(backend, "submit_change", {"number": number})
    typed(backend, "approve_change", {"number": number}, as_user(backend, group["manager"]))
    typed(backend, "approve_change", {"number": number}, as_user(backend, cab_approvers(backend)[0]))
    row = by_number(backend, "change_request", number)
    assert row["state"] == "-2"
    return row


# -- problems -----------------------------------------------------------------------------------


def test_create_problem_links_incidents_and_sets_defaults(backend: Backend) -> None:
    incidents = open_incidents(backend, 2)
    body = typed(
        backend,
        "create_problem",
        {
            "short_description": "VPN drops every hour",
            "urgency": "2",
            "incidents": [i["number"] for i in incidents],
        },
    )
    assert body["state"] == "New"
    assert body["priority"] == "4 - Low"  # impact 3 (default) x urgency 2
    assert body["incidents"] == sorted(i["number"] for i in incidents)
    problem = by_number(backend, "problem", body["number"])
    agent = user(backend, AGENT_USER_NAME)
    assert problem["number"].startswith("PRB")
    assert (problem["state"], problem["problem_state"], problem["impact"], problem["urgency"]) == (
        "101",
        "101",
        "3",
        "2",
    )
    assert (problem["active"], problem["known_error"], problem["opened_by"]) == (
        "true",
        "false",
        agent["sys_id"],
    )
    assert problem["opened_at"] == backend.clock.now_text()
    for incident in incidents:
        assert backend.store.get("incident", incident["sys_id"])["problem_id"] == problem["sys_id"]


def test_create_problem_with_an_assignee(backend: Backend) -> None:
    agent = user(backend, AGENT_USER_NAME)
    body = typed(
        backend, "create_problem", {"short_description": "Mail delays", "assigned_to": agent["email"]}
    )
    assert body["assigned_to"] == typed_user(backend, agent["sys_id"])
    assert body["incidents"] == []
    refused(
        backend,
        "create_problem",
        {"short_description": "Nobody", "assigned_to": "no.such.person"},
        status=404,
    )
    refused(
        backend, "create_problem", {"short_description": "Bad link", "incidents": ["INC9999999"]}, status=404
    )


def test_link_incident_to_problem(backend: Backend) -> None:
    first, second = open_incidents(backend, 2)
    number = typed(
        backend,
        "create_problem",
        {"short_description": "Printer queue stalls", "incidents": [first["number"]]},
    )["number"]
    body = typed(backend, "link_incident_to_problem", {"incident": second["number"], "problem": number})
    assert body["incidents"] == sorted([first["number"], second["number"]])
    assert backend.store.get("incident", second["sys_id"])["problem_id"] == body["sys_id"]


def test_problem_needs_a_short_description(backend: Backend) -> None:
    refused(
        backend,
        "table_create",
        {"table": "problem", "fields": {"description": "no summary"}},
        surface="rest",
        detail=mandatory(["Short description"]),
    )


def test_problem_priority_is_derived(backend: Backend) -> None:
    body = typed(backend, "create_problem", {"short_description": "Slow SAP", "impact": "1", "urgency": "1"})
    assert body["priority"] == "1 - Critical"
    refused(
        backend,
        "table_update",
        {"table": "problem", "sys_id": body["sys_id"], "fields": {"priority": "4"}},
        surface="rest",
        detail="read only: Priority",
    )


def test_problem_moves_forward_only_and_needs_an_assignee(backend: Backend) -> None:
    sys_id = typed(backend, "create_problem", {"short_description": "Disk fills up"})["sys_id"]
    agent = user(backend, AGENT_USER_NAME)["sys_id"]
    # Beyond New, assigned_to is mandatory.
    refused(
        backend,
        "table_update",
        {"table": "problem", "sys_id": sys_id, "fields": {"state": "102"}},
        surface="rest",
        detail=mandatory(["Assigned to"]),
    )
    assert patch(backend, "problem", sys_id, {"state": "102", "assigned_to": agent}).ok
    # Skipping forward is fine, going back is not.
    assert patch(backend, "problem", sys_id, {"state": "104"}).ok
    row = backend.store.get("problem", sys_id)
    assert (row["state"], row["problem_state"]) == ("104", "104")
    refused(
        backend,
        "table_update",
        {"table": "problem", "sys_id": sys_id, "fields": {"state": "102"}},
        surface="rest",
        detail="Fix in Progress to Assess is not allowed",
    )


def test_problem_backward_move_allowed_when_transitions_are_not_enforced() -> None:
    world = Backend(ITSM, size="tiny", settings={"enforce_state_transitions": False})
    try:
        sys_id = typed(world, "create_problem", {"short_description": "Lenient"})["sys_id"]
        agent = user(world, AGENT_USER_NAME)["sys_id"]
        assert patch(world, "problem", sys_id, {"state": "104", "assigned_to": agent}).ok
        assert patch(world, "problem", sys_id, {"state": "102"}).ok
        assert world.store.get("problem", sys_id)["problem_state"] == "102"
    finally:
        world.close()


@pytest.mark.parametrize("code", sorted(RESOLUTION_FIELDS))
@pytest.mark.parametrize("target", ["106", "107"])
def test_problem_resolution_needs_the_fields_of_its_code(backend: Backend, code: str, target: str) -> None:
    sys_id = typed(backend, "create_problem", {"short_description": f"Resolve as {code}"})["sys_id"]
    agent = user(backend, AGENT_USER_NAME)["sys_id"]
    assert patch(backend, "problem", sys_id, {"state": "103", "assigned_to": agent}).ok
    args = {"table": "problem", "sys_id": sys_id}
    refused(
        backend,
        "table_update",
        {**args, "fields": {"state": target}},
        surface="rest",
        detail=mandatory(["Resolution code"]),
    )
    refused(
        backend,
        "table_update",
        {**args, "fields": {"state": target, "resolution_code": code}},
        surface="rest",
        detail=mandatory(RESOLUTION_FIELDS[code]),
    )
    fields = {"state": target, "resolution_code": code}
    if code == "duplicate":
        fields["duplicate_of"] = backend.store.select("problem", "sys_id != ?", (sys_id,), limit=1)[0][
            "sys_id"
        ]
    else:
        fields.update({name: RESOLUTION_VALUES[name] for name in ("cause_notes", "fix_notes", "close_notes")})
    assert patch(backend, "problem", sys_id, fields).ok
    row = backend.store.get("problem", sys_id)
    assert (row["state"], row["problem_state"]) == (target, target)
    closed = target == "107"
    assert row["active"] == ("false" if closed else "true")
    assert bool(row["closed_at"]) is closed
    assert row["closed_by"] == (agent if closed else "")


def test_closed_problem_is_frozen(backend: Backend) -> None:
    sys_id = typed(backend, "create_problem", {"short_description": "Frozen"})["sys_id"]
    agent = user(backend, AGENT_USER_NAME)["sys_id"]
    fields = {
        "state": "106",
        "assigned_to": agent,
        "resolution_code": "canceled",
        "close_notes": "Not a problem.",
    }
    assert patch(backend, "problem", sys_id, fields).ok
    assert patch(backend, "problem", sys_id, {"state": "107"}).ok
    row = backend.store.get("problem", sys_id)
    assert (row["active"], row["closed_by"]) == ("false", agent)
    for fields in ({"comments": "one more thing"}, {"state": "106"}, {"short_description": "renamed"}):
        refused(
            backend,
            "table_update",
            {"table": "problem", "sys_id": sys_id, "fields": fields},
            surface="rest",
            detail="is Closed and can no longer be updated",
        )


# -- changes: defaults, submit, approvals ---------------------------------------------------------


def test_create_change_defaults(backend: Backend) -> None:
    body = new_change(backend, "normal")
    assert (body["state"], body["approval"], body["type"]) == ("New", "Not Yet Requested", "normal")
    row = by_number(backend, "change_request", body["number"])
    agent = user(backend, AGENT_USER_NAME)["sys_id"]
    assert row["number"].startswith("CHG")
    assert (row["state"], row["type"], row["approval"], row["risk"], row["impact"], row["priority"]) == (
        "-5",
        "normal",
        "not requested",
        "3",
        "3",
        "4",
    )
    assert (row["requested_by"], row["opened_by"], row["active"]) == (agent, agent, "true")
    other = requester(backend)["sys_id"]
    created = rest(
        backend,
        "table_create",
        {"table": "change_request", "fields": {"short_description": "For someone", "requested_by": other}},
    )
    assert created.status == 201
    assert backend.store.get("change_request", created.body["result"]["sys_id"])["requested_by"] == other


def test_change_dates_must_be_in_order(backend: Backend) -> None:
    args = {"type": "normal", "short_description": "Backwards", "start_date": "2026-03-10 10:00:00"}
    refused(
        backend,
        "create_change",
        {**args, "end_date": "2026-03-09 10:00:00"},
        status=400,
        detail="before the planned start date",
    )
    sys_id = typed(backend, "create_change", {**args, "end_date": "2026-03-10 12:00:00"})["sys_id"]
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"start_date": "2026-03-11 00:00:00"}},
        surface="rest",
        status=400,
    )


def test_normal_change_full_flow(backend: Backend) -> None:
    group = resolver_group(backend)
    manager = as_user(backend, group["manager"])
    cab = cab_approvers(backend)
    agent = backend.identity
    number = new_change(backend, "normal", group)["number"]
    change = by_number(backend, "change_request", number)

    body = typed(backend, "submit_change", {"number": number})
    assert (body["state"], body["approval"]) == ("Assess", "Requested")
    rows = approvals(backend, change["sys_id"])
    assert [(r["approver"], r["state"], r["group"]) for r in rows] == [
        (group["manager"], "requested", group["sys_id"])
    ]
    assert body["approvals"] == [
        {"approver": typed_user(backend, group["manager"]), "state": "Requested", "comments": ""}
    ]

    # The agent (itil, not the approver) may not approve: the ACL answers 403.
    if agent.user_sys_id != group["manager"]:
        refused(backend, "approve_change", {"number": number}, detail="ACL Exception Update Failed")
        refused(
            backend,
            "table_update",
            {"table": "sysapproval_approver", "sys_id": rows[0]["sys_id"], "fields": {"state": "approved"}},
            surface="rest",
            detail="ACL Exception Update Failed",
        )

    body = typed(backend, "approve_change", {"number": number, "comments": "Looks good"}, manager)
    assert (body["state"], body["approval"]) == ("Authorize", "Requested")
    rows = approvals(backend, change["sys_id"])
    assert (rows[0]["state"], rows[0]["comments"]) == ("approved", "Looks good")
    cab_rows = rows[1:]
    assert sorted(r["approver"] for r in cab_rows) == sorted(cab)
    assert {r["state"] for r in cab_rows} == {"requested"}

    body = typed(backend, "approve_change", {"number": number}, as_user(backend, cab[1]))
    assert (body["state"], body["approval"]) == ("Scheduled", "Approved")
    decided = {r["approver"]: r["state"] for r in approvals(backend, change["sys_id"])[1:]}
    assert decided == {approver: "approved" if approver == cab[1] else "not_required" for approver in cab}

    view = typed(backend, "get_change", {"number": number})
    assert (view["state"], view["next_state"]) == ("Scheduled", "Implement")
    assert view["approvals"][0] == {
        "approver": typed_user(backend, group["manager"]),
        "state": "Approved",
        "comments": "Looks good",
    }
    assert sorted(a["state"] for a in view["approvals"][1:]) == sorted(
        ["Approved"] + ["No Longer Required"] * (len(cab) - 1)
    )

    # Then one step at a time: Implement, Review, Closed.
    sys_id = change["sys_id"]
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"state": "0"}},
        surface="rest",
        detail="Scheduled to Review is not allowed",
    )
    assert patch(backend, "change_request", sys_id, {"state": "-1"}).ok
    assert patch(backend, "change_request", sys_id, {"state": "0"}).ok
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"state": "3"}},
        surface="rest",
        detail=mandatory(["Resolution code", "Resolution notes"]),
    )
    refused(
        backend,
        "table_update",
        {
            "table": "change_request",
            "sys_id": sys_id,
            "fields": {"state": "3", "close_code": "done", "close_notes": "x"},
        },
        surface="rest",
        status=400,
    )
    closing = {"state": "3", "close_code": "successful", "close_notes": "Implemented as planned."}
    assert patch(backend, "change_request", sys_id, closing).ok
    row = backend.store.get("change_request", sys_id)
    assert (row["state"], row["active"], row["closed_by"]) == ("3", "false", agent.user_sys_id)
    assert row["closed_at"] == backend.clock.now_text()
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"work_notes": "late note"}},
        surface="rest",
        detail="is Closed and can no longer be updated",
    )


def typed_user(backend: Backend, sys_id: str) -> str:
    row = backend.store.get("sys_user", sys_id)
    return f"{row['name']} ({row['user_name']})"


def test_emergency_change_goes_straight_to_the_cab(backend: Backend) -> None:
    group = resolver_group(backend)
    cab = cab_approvers(backend)
    number = new_change(backend, "emergency", group)["number"]
    sys_id = by_number(backend, "change_request", number)["sys_id"]
    body = typed(backend, "submit_change", {"number": number})
    assert (body["state"], body["approval"]) == ("Authorize", "Requested")
    assert sorted(r["approver"] for r in approvals(backend, sys_id)) == sorted(cab)
    # Scheduled only comes from an approval.
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"state": "-2"}},
        surface="rest",
        detail="Approval is required",
    )
    body = typed(backend, "approve_change", {"number": number}, as_user(backend, cab[0]))
    assert (body["state"], body["approval"]) == ("Scheduled", "Approved")
    assert sorted(r["state"] for r in approvals(backend, sys_id)) == sorted(
        ["approved"] + ["not_required"] * (len(cab) - 1)
    )


def test_standard_change_is_pre_approved(backend: Backend) -> None:
    number = new_change(backend, "standard", resolver_group(backend))["number"]
    body = typed(backend, "submit_change", {"number": number})
    assert (body["state"], body["approval"], body["approvals"]) == ("Scheduled", "Approved", [])
    assert approvals(backend, body["sys_id"]) == []
    refused(backend, "submit_change", {"number": number}, detail="only a New change can be submitted")


def test_submit_needs_an_assignment_group(backend: Backend) -> None:
    number = new_change(backend, "normal")["number"]
    refused(backend, "submit_change", {"number": number}, detail=mandatory(["Assignment group"]))


@pytest.mark.parametrize("target", ["-3", "-2"])
def test_normal_change_cannot_jump_past_its_approvals(backend: Backend, target: str) -> None:
    group = resolver_group(backend)
    number = new_change(backend, "normal", group)["number"]
    sys_id = by_number(backend, "change_request", number)["sys_id"]
    args = {"table": "change_request", "sys_id": sys_id, "fields": {"state": target}}
    refused(backend, "table_update", args, surface="rest", detail="Approval is required")
    typed(backend, "submit_change", {"number": number})
    refused(backend, "table_update", args, surface="rest", detail="Approval is required")
    # Creating a change directly in a later state is refused too.
    refused(
        backend,
        "table_create",
        {
            "table": "change_request",
            "fields": {"short_description": "Sneaky", "state": target, "assignment_group": group["sys_id"]},
        },
        surface="rest",
        detail="A new change starts in state New",
    )


def test_rejection_needs_comments_and_returns_the_change_to_new(backend: Backend) -> None:
    group = resolver_group(backend)
    manager = as_user(backend, group["manager"])
    number = new_change(backend, "normal", group)["number"]
    sys_id = by_number(backend, "change_request", number)["sys_id"]
    typed(backend, "submit_change", {"number": number})
    typed(backend, "approve_change", {"number": number}, manager)
    cab = cab_approvers(backend)
    voter = as_user(backend, cab[0])
    refused(
        backend,
        "reject_change",
        {"number": number, "comments": ""},
        identity=voter,
        detail=mandatory(["Comments"]),
    )
    row = pending(backend, sys_id, cab[0])
    refused(
        backend,
        "table_update",
        {"table": "sysapproval_approver", "sys_id": row["sys_id"], "fields": {"state": "rejected"}},
        surface="rest",
        identity=voter,
        detail=mandatory(["Comments"]),
    )

    body = typed(backend, "reject_change", {"number": number, "comments": "No backout plan."}, voter)
    assert (body["state"], body["approval"]) == ("New", "Rejected")
    states = {r["approver"]: r["state"] for r in approvals(backend, sys_id)[1:]}
    assert states == {approver: "rejected" if approver == cab[0] else "not_required" for approver in cab}
    # A decided approval cannot be changed, and nobody has a pending one any more.
    refused(
        backend,
        "table_update",
        {"table": "sysapproval_approver", "sys_id": row["sys_id"], "fields": {"state": "approved"}},
        surface="rest",
        identity=voter,
        detail="can no longer be changed",
    )
    refused(backend, "approve_change", {"number": number}, identity=voter, status=404)

    # Fixed and submitted again: a fresh technical approval.
    typed(backend, "submit_change", {"number": number})
    change = backend.store.get("change_request", sys_id)
    assert (change["state"], change["approval"]) == ("-4", "requested")
    assert pending(backend, sys_id, group["manager"])


def test_approver_cannot_redirect_an_approval(backend: Backend) -> None:
    group = resolver_group(backend)
    first = new_change(backend, "normal", group)["number"]
    other = new_change(backend, "normal", group)["sys_id"]
    typed(backend, "submit_change", {"number": first})
    row = pending(backend, by_number(backend, "change_request", first)["sys_id"], group["manager"])
    refused(
        backend,
        "table_update",
        {
            "table": "sysapproval_approver",
            "sys_id": row["sys_id"],
            "fields": {"sysapproval": other, "state": "approved"},
        },
        surface="rest",
        identity=as_user(backend, group["manager"]),
        detail="read only: Sysapproval",
    )


@pytest.mark.parametrize("state", ["-5", "-4", "-3", "-2", "-1"])
def test_cancel_allowed_before_review(backend: Backend, state: str) -> None:
    group = resolver_group(backend)
    if state in ("-2", "-1"):
        row = scheduled_normal_change(backend)
        if state == "-1":
            assert patch(backend, "change_request", row["sys_id"], {"state": "-1"}).ok
    else:
        number = new_change(backend, "normal", group)["number"]
        if state in ("-4", "-3"):
            typed(backend, "submit_change", {"number": number})
        if state == "-3":
            typed(backend, "approve_change", {"number": number}, as_user(backend, group["manager"]))
        row = by_number(backend, "change_request", number)
    assert backend.store.get("change_request", row["sys_id"])["state"] == state
    assert patch(backend, "change_request", row["sys_id"], {"state": "4"}).ok
    row = backend.store.get("change_request", row["sys_id"])
    assert (row["state"], row["active"], row["closed_at"]) == ("4", "false", "")
    assert "requested" not in {r["state"] for r in approvals(backend, row["sys_id"])}
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": row["sys_id"], "fields": {"state": "-5"}},
        surface="rest",
        detail="is Canceled and can no longer be updated",
    )


def test_cancel_refused_from_review_and_closed(backend: Backend) -> None:
    sys_id = scheduled_normal_change(backend)["sys_id"]
    assert patch(backend, "change_request", sys_id, {"state": "-1"}).ok
    assert patch(backend, "change_request", sys_id, {"state": "0"}).ok
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"state": "4"}},
        surface="rest",
        detail="is Review and can no longer be canceled",
    )
    assert patch(
        backend,
        "change_request",
        sys_id,
        {"state": "3", "close_code": "successful_issues", "close_notes": "Minor issues."},
    ).ok
    refused(
        backend,
        "table_update",
        {"table": "change_request", "sys_id": sys_id, "fields": {"state": "4"}},
        surface="rest",
        detail="is Closed and can no longer be updated",
    )


def test_approve_without_pending_approval_is_not_found(backend: Backend) -> None:
    number = new_change(backend, "normal", resolver_group(backend))["number"]
    body = refused(backend, "approve_change", {"number": number}, status=404)
    assert body["error"]["message"] == "No Record found"
    refused(backend, "get_change", {"number": "CHG9999999"}, status=404)


def test_admin_may_approve_on_behalf_of_the_approver(backend: Backend) -> None:
    group = resolver_group(backend)
    number = new_change(backend, "normal", group)["number"]
    typed(backend, "submit_change", {"number": number})
    admin = identity_of(user(backend, ADMIN_USER_NAME))
    assert typed(backend, "approve_change", {"number": number}, admin)["state"] == "Authorize"


# -- service catalog ------------------------------------------------------------------------------


def catalog_item(backend: Backend) -> Row:
    rows = backend.store.select(
        "sc_cat_item", "active = 'true' AND \"group\" != ''", order_by="name", limit=1
    )
    assert rows
    return rows[0]


def test_list_catalog_items(backend: Backend) -> None:
    item = catalog_item(backend)
    everything = typed(backend, "list_catalog_items", {})["items"]
    assert len(everything) == backend.store.count("sc_cat_item", "active != 'false'")
    found = typed(backend, "list_catalog_items", {"query": item["name"]})["items"]
    assert {"sys_id": item["sys_id"], "name": item["name"], "price": item["price"]}.items() <= next(
        row for row in found if row["sys_id"] == item["sys_id"]
    ).items()
    assert typed(backend, "list_catalog_items", {"query": "no such thing anywhere"}) == {"items": []}


def test_order_catalog_item_on_behalf_of_someone(backend: Backend) -> None:
    item = catalog_item(backend)
    employee = requester(backend)
    manager_id = employee["manager"] or requester(backend, skip=(employee["sys_id"],))["sys_id"]
    manager = backend.store.get("sys_user", manager_id)
    body = typed(
        backend,
        "order_catalog_item",
        {
            "item": item["name"].upper(),
            "requested_for": employee["email"],
            "quantity": 2,
            "on_behalf_of": manager["user_name"],
            "special_instructions": "Deliver to reception.",
        },
    )
    request = by_number(backend, "sc_request", body["request"])
    ritm = by_number(backend, "sc_req_item", body["requested_item"])
    total = f"{float(item['price']) * 2:.2f}"
    assert body["request"].startswith("REQ") and body["requested_item"].startswith("RITM")
    assert (body["quantity"], body["price"], body["state"], body["stage"]) == (
        2,
        total,
        "Open",
        "request_approved",
    )
    assert (request["requested_for"], request["opened_by"]) == (employee["sys_id"], manager["sys_id"])
    assert (request["request_state"], request["stage"], request["approval"], request["price"]) == (
        "requested",
        "requested",
        "approved",
        total,
    )
    assert request["special_instructions"] == "Deliver to reception."
    assert item["name"] in request["description"]
    assert (ritm["request"], ritm["cat_item"], ritm["quantity"], ritm["price"]) == (
        request["sys_id"],
        item["sys_id"],
        "2",
        f"{float(item['price']):.2f}",
    )
    assert (ritm["state"], ritm["stage"], ritm["approval"], ritm["active"]) == (
        "1",
        "request_approved",
        "approved",
        "true",
    )
    assert (ritm["short_description"], ritm["assignment_group"], ritm["opened_by"]) == (
        item["name"],
        item["group"],
        manager["sys_id"],
    )

    view = typed(backend, "get_requested_item", {"number": ritm["number"]})
    assert (view["state"], view["stage"], view["item"], view["request"], view["quantity"]) == (
        "Open",
        "request_approved",
        item["name"],
        request["number"],
        2,
    )
    assert view["requested_for"] == typed_user(backend, employee["sys_id"])


def test_requester_orders_for_themselves_not_in_anothers_name(backend: Backend) -> None:
    item = catalog_item(backend)
    employee = requester(backend)
    me = identity_of(employee)
    body = typed(
        backend, "order_catalog_item", {"item": item["sys_id"], "requested_for": employee["user_name"]}, me
    )
    assert by_number(backend, "sc_request", body["request"])["opened_by"] == employee["sys_id"]
    other = requester(backend, skip=(employee["sys_id"],))
    args = {
        "item": item["sys_id"],
        "requested_for": employee["user_name"],
        "on_behalf_of": other["user_name"],
    }
    # A requester cannot even see other users ...
    refused(backend, "order_catalog_item", args, identity=me, status=404)
    # ... and a non-staff user who can (an approver) still may not order in someone else's name.
    approver = Identity.of(employee["sys_id"], employee["user_name"], ["approver"])
    refused(backend, "order_catalog_item", args, identity=approver, detail="ACL Exception Insert Failed")


def test_inactive_item_cannot_be_ordered(backend: Backend) -> None:
    item = catalog_item(backend)
    admin = identity_of(user(backend, ADMIN_USER_NAME))
    assert patch(backend, "sc_cat_item", item["sys_id"], {"active": "false"}, admin).ok
    assert item["name"] not in {row["name"] for row in typed(backend, "list_catalog_items", {})["items"]}
    employee = requester(backend)
    refused(
        backend,
        "order_catalog_item",
        {"item": item["name"], "requested_for": employee["user_name"]},
        status=400,
        detail="inactive",
    )


def test_quantity_is_between_one_and_ten(backend: Backend) -> None:
    item = catalog_item(backend)
    employee = requester(backend)
    refused(
        backend,
        "order_catalog_item",
        {"item": item["name"], "requested_for": employee["user_name"], "quantity": 11},
        status=400,
    )
    body = typed(
        backend, "order_catalog_item", {"item": item["name"], "requested_for": employee["user_name"]}
    )
    request = by_number(backend, "sc_request", body["request"])
    for quantity in ("0", "11"):
        refused(
            backend,
            "table_create",
            {
                "table": "sc_req_item",
                "fields": {"request": request["sys_id"], "cat_item": item["sys_id"], "quantity": quantity},
            },
            surface="rest",
            status=400,
            detail="between 1 and 10",
        )
    # A second item through the Table API: the request's total follows.
    created = rest(
        backend,
        "table_create",
        {
            "table": "sc_req_item",
            "fields": {"request": request["sys_id"], "cat_item": item["sys_id"], "quantity": "3"},
        },
    )
    assert created.status == 201, created.body
    assert backend.store.get("sc_request", request["sys_id"])["price"] == f"{float(item['price']) * 4:.2f}"


def test_closed_requested_item_is_final(backend: Backend) -> None:
    item = catalog_item(backend)
    body = typed(
        backend,
        "order_catalog_item",
        {"item": item["name"], "requested_for": requester(backend)["user_name"]},
    )
    sys_id = by_number(backend, "sc_req_item", body["requested_item"])["sys_id"]
    assert patch(backend, "sc_req_item", sys_id, {"state": "2"}).ok
    assert patch(backend, "sc_req_item", sys_id, {"state": "3"}).ok
    row = backend.store.get("sc_req_item", sys_id)
    assert (row["active"], row["closed_by"], row["closed_at"]) == (
        "false",
        backend.identity.user_sys_id,
        backend.clock.now_text(),
    )
    assert typed(backend, "get_requested_item", {"number": row["number"]})["state"] == "Closed Complete"
    refused(
        backend,
        "table_update",
        {"table": "sc_req_item", "sys_id": sys_id, "fields": {"state": "2"}},
        surface="rest",
        detail="can no longer be updated",
    )


# -- the same goal through either surface ---------------------------------------------------------


def outcome(backend: Backend) -> list[tuple[str, str, tuple[tuple[str, str], ...]]]:
    """The changed rows as (table, key, final values); new rows are keyed by content, not sys_id."""
    changed = backend.store.changed_rows()
    new_ids = {sys_id for _, sys_id, before in changed if before is None}
    names: dict[str, str] = {}
    for table, sys_id, _ in changed:
        row = backend.store.get(table, sys_id)
        if sys_id in new_ids and row is not None:
            names[sys_id] = f"new {table} {row.get('number') or row.get('approver')}"
    out = []
    for table, sys_id, _ in changed:
        row = backend.store.get(table, sys_id) or {}
        values = tuple(sorted((k, names.get(v, v)) for k, v in row.items() if k != "sys_id"))
        out.append((table, names.get(sys_id, sys_id), values))
    return sorted(out)


def test_normal_change_approvals_same_through_rest_and_typed() -> None:
    worlds = [Backend(ITSM, size="tiny"), Backend(ITSM, size="tiny")]
    try:
        results = []
        for world, surface in zip(worlds, ("typed", "rest"), strict=True):
            group = resolver_group(world)
            manager = as_user(world, group["manager"])
            voter_id = cab_approvers(world)[1]
            voter = as_user(world, voter_id)
            fields = {"type": "normal", "short_description": "Patch the firewall"}
            if surface == "typed":
                number = typed(world, "create_change", {**fields, "assignment_group": group["name"]})[
                    "number"
                ]
                typed(world, "submit_change", {"number": number})
                typed(world, "approve_change", {"number": number, "comments": "ok"}, manager)
                typed(world, "approve_change", {"number": number}, voter)
            else:
                created = rest(
                    world,
                    "table_create",
                    {"table": "change_request", "fields": {**fields, "assignment_group": group["sys_id"]}},
                )
                sys_id = created.body["result"]["sys_id"]
                assert patch(world, "change_request", sys_id, {"state": "-4"}).ok
                row = pending(world, sys_id, group["manager"])
                assert patch(
                    world,
                    "sysapproval_approver",
                    row["sys_id"],
                    {"state": "approved", "comments": "ok"},
                    manager,
                ).ok
                row = pending(world, sys_id, voter_id)
                assert patch(world, "sysapproval_approver", row["sys_id"], {"state": "approved"}, voter).ok
            assert not world.internal_errors
            results.append(outcome(world))
        typed_rows, rest_rows = results
        assert {(t, k) for t, k, _ in typed_rows} == {(t, k) for t, k, _ in rest_rows}
        assert typed_rows == rest_rows
        tables = sorted(t for t, _, _ in typed_rows)
        assert tables.count("change_request") == 1
        assert tables.count("sysapproval_approver") == 1 + len(cab_approvers(worlds[0]))
    finally:
        for world in worlds:
            world.close()


def test_rejection_same_through_rest_and_typed() -> None:
    worlds = [Backend(ITSM, size="tiny"), Backend(ITSM, size="tiny")]
    try:
        results = []
        for world, surface in zip(worlds, ("typed", "rest"), strict=True):
            group = resolver_group(world)
            manager = as_user(world, group["manager"])
            # Both start from the same emergency change waiting for the CAB.
            number = new_change(world, "emergency", group)["number"]
            typed(world, "submit_change", {"number": number})
            world.mark_start()
            voter_id = cab_approvers(world)[0]
            voter = as_user(world, voter_id)
            sys_id = by_number(world, "change_request", number)["sys_id"]
            if surface == "typed":
                typed(
                    world,
                    "reject_change",
                    {"number": number, "comments": "Outside the change window."},
                    voter,
                )
                typed(world, "submit_change", {"number": number})
            else:
                row = pending(world, sys_id, voter_id)
                assert patch(
                    world,
                    "sysapproval_approver",
                    row["sys_id"],
                    {"state": "rejected", "comments": "Outside the change window."},
                    voter,
                ).ok
                assert patch(world, "change_request", sys_id, {"state": "-3"}).ok
            assert manager  # the manager is not involved in an emergency change
            assert not world.internal_errors
            results.append(outcome(world))
        assert results[0] == results[1]
        states = [dict(values)["state"] for table, _, values in results[0] if table == "sysapproval_approver"]
        cab = len(cab_approvers(worlds[0]))
        assert sorted(states) == sorted(["rejected"] + ["not_required"] * (cab - 1) + ["requested"] * cab)
    finally:
        for world in worlds:
            world.close()


def test_typed_surface_has_the_ten_new_tools() -> None:
    names = set(ITSM.surface("typed").tools)
    assert {
        "create_problem",
        "link_incident_to_problem",
        "create_change",
        "get_change",
        "submit_change",
        "approve_change",
        "reject_change",
        "list_catalog_items",
        "order_catalog_item",
        "get_requested_item",
    } <= names
    for name in ("create_problem", "create_change", "approve_change", "order_catalog_item"):
        tool = ITSM.surface("typed")[name]
        assert 40 < len(tool.description) < 400
        Draft202012Validator.check_schema(tool.output_schema)
