"""Typed change tools: create, read, submit for approval, approve and reject change requests."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.errors import business_rule, record_not_found
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.change import (
    APPROVAL_STAGES,
    APPROVED,
    FLOWS,
    NEW,
    REJECTED,
    STATE_LABELS,
    next_state,
    pending_approvals,
)
from enterprise_envs.mocks.itsm.surfaces.typed.common import (
    GROUP,
    LEVEL,
    NUMBER,
    TEXT,
    View,
    find_ci,
    find_group,
)

_STR = {"type": "string"}
_DATETIME = string(
    "Planned date-time, 'YYYY-MM-DD HH:MM:SS' (UTC).", 19, pattern=r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$"
)
_TYPES = ["normal", "standard", "emergency"]

SUMMARY_SCHEMA: dict[str, Any] = obj(
    {
        name: _STR
        for name in (
            "number", "sys_id", "type", "state", "approval", "short_description", "risk", "impact",
            "priority", "assignment_group", "configuration_item", "requested_by", "start_date", "end_date",
        )
    },
    required=["number", "sys_id", "type", "state", "approval"],
)  # fmt: skip
APPROVAL_SCHEMA: dict[str, Any] = obj(
    {name: _STR for name in ("approver", "state", "comments")}, required=["approver", "state"]
)
DETAIL_SCHEMA: dict[str, Any] = obj(
    {
        **SUMMARY_SCHEMA["properties"],
        **{
            name: _STR
            for name in (
                "description", "justification", "implementation_plan", "backout_plan", "test_plan",
                "close_code", "close_notes", "next_state",
            )
        },
        "approvals": {"type": "array", "items": APPROVAL_SCHEMA},
    },
    required=["number", "sys_id", "type", "state", "approval", "approvals"],
)  # fmt: skip


def summary(view: View, row: Row) -> dict[str, Any]:
    """A change in one line's worth of fields."""
    return {
        "number": row["number"],
        "sys_id": row["sys_id"],
        "type": row["type"],
        "state": STATE_LABELS.get(row["state"], row["state"]),
        "approval": view.label("change_request", "approval", row["approval"]),
        "short_description": row["short_description"],
        "risk": view.label("change_request", "risk", row["risk"]),
        "impact": view.label("change_request", "impact", row["impact"]),
        "priority": view.label("change_request", "priority", row["priority"]),
        "assignment_group": view.ref("sys_user_group", row["assignment_group"]),
        "configuration_item": view.ref("cmdb_ci", row["cmdb_ci"]),
        "requested_by": view.user(row["requested_by"]),
        "start_date": row["start_date"],
        "end_date": row["end_date"],
    }


def detail(ctx: CallContext, row: Row) -> dict[str, Any]:
    """A change with its plans, closure and approvals."""
    view = View(ctx)
    approvals, _ = records.query(
        ctx, "sysapproval_approver", "sysapproval = ?", (row["sys_id"],), order_by="sys_created_on, sys_id"
    )
    return {
        **summary(view, row),
        "description": row["description"],
        "justification": row["justification"],
        "implementation_plan": row["implementation_plan"],
        "backout_plan": row["backout_plan"],
        "test_plan": row["test_plan"],
        "close_code": row["close_code"],
        "close_notes": row["close_notes"],
        "next_state": _next_label(row),
        "approvals": [
            {
                "approver": view.user(approval["approver"]),
                "state": view.label("sysapproval_approver", "state", approval["state"]),
                "comments": approval["comments"],
            }
            for approval in approvals
        ],
    }


def _next_label(row: Row) -> str:
    """What moves the change on, in words ("" once it is Closed or Canceled)."""
    state, flow = row["state"], FLOWS.get(row["type"], ())
    if state == NEW:
        return f"submit_change moves it to {STATE_LABELS[next_state(row)]}"
    if state in APPROVAL_STAGES:
        return "waiting for approval"
    if state in flow and flow.index(state) + 1 < len(flow):
        return STATE_LABELS[flow[flow.index(state) + 1]]
    return ""


def find_change(ctx: CallContext, key: str) -> Row:
    """A change request by number or sys_id."""
    return records.find(ctx, "change_request", key)


# -- handlers ---------------------------------------------------------------------------------

_PLAIN_FIELDS = (
    "type", "short_description", "description", "risk", "impact", "start_date", "end_date", "justification",
    "implementation_plan", "backout_plan", "test_plan",
)  # fmt: skip


def create_change(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Create a change request in state New."""
    values = {name: args[name] for name in _PLAIN_FIELDS if name in args}
    if args.get("assignment_group"):
        values["assignment_group"] = find_group(ctx, args["assignment_group"])["sys_id"]
    if args.get("configuration_item"):
        values["cmdb_ci"] = find_ci(ctx, args["configuration_item"])["sys_id"]
    return summary(View(ctx), records.create(ctx, "change_request", values))


def get_change(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One change with its approvals."""
    return detail(ctx, find_change(ctx, args["number"]))


def submit_change(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Move a New change to its type's next state (the same state write as a REST update)."""
    row = find_change(ctx, args["number"])
    if row["state"] != NEW:
        raise business_rule(
            f"Change {row['number']} is {STATE_LABELS.get(row['state'], row['state'])}: "
            "only a New change can be submitted"
        )
    return detail(ctx, records.update(ctx, "change_request", row, {"state": next_state(row)}))


def _decide(ctx: CallContext, args: dict[str, Any], decision: str) -> dict[str, Any]:
    """Set the caller's pending approval of a change to approved or rejected."""
    change = find_change(ctx, args["number"])
    pending = pending_approvals(ctx, change["sys_id"])
    mine = [row for row in pending if row["approver"] == ctx.identity.user_sys_id]
    # Someone else's pending approval goes to the access check: only an admin may act on it.
    target = (mine or pending or [None])[0]
    if target is None:
        raise record_not_found(f"Pending approval for {change['number']}")
    values = {"state": decision}
    if "comments" in args:
        values["comments"] = args["comments"]
    records.update(ctx, "sysapproval_approver", target, values)
    return detail(ctx, ctx.store.get("change_request", change["sys_id"]) or change)


def approve_change(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Approve the change as its approver."""
    return _decide(ctx, args, APPROVED)


def reject_change(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Reject the change as its approver (back to New)."""
    return _decide(ctx, args, REJECTED)


# -- tools ------------------------------------------------------------------------------------


def change_tools() -> list[Tool]:
    """The typed change tools."""
    return [
        Tool(
            "create_change",
            "Create a change request (state New). Type: 'normal' (needs approval by the assignment "
            "group's manager, then the Change Advisory Board), 'emergency' (CAB approval only) or "
            "'standard' (pre-approved routine work). Then call submit_change. A normal or emergency "
            "change needs an assignment group to be submitted.",
            obj(
                {
                    "type": {"type": "string", "enum": _TYPES, "description": "Change type."},
                    "short_description": string("One-line summary of the change.", 160, minLength=1),
                    "description": TEXT,
                    "configuration_item": string("Affected configuration item: its name or sys_id.", 200),
                    "assignment_group": GROUP,
                    "risk": {
                        "type": "string",
                        "enum": ["1", "2", "3", "4"],
                        "description": "1 = Very High, 2 = High, 3 = Moderate (default), 4 = Low.",
                    },
                    "impact": LEVEL,
                    "start_date": _DATETIME,
                    "end_date": _DATETIME,
                    "justification": TEXT,
                    "implementation_plan": TEXT,
                    "backout_plan": TEXT,
                    "test_plan": TEXT,
                },
                required=["type", "short_description"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            create_change,
        ),
        Tool(
            "get_change",
            "Read one change request in full: state, approval status, plans, and each approval "
            "(approver, decision, comments).",
            obj({"number": NUMBER}, required=["number"]),
            DETAIL_SCHEMA,
            ToolKind.READ,
            get_change,
        ),
        Tool(
            "submit_change",
            "Submit a New change for approval: normal goes to Assess (approval requested from the "
            "assignment group's manager), emergency to Authorize (CAB approval requested), standard "
            "straight to Scheduled. Returns the change with its approvals.",
            obj({"number": NUMBER}, required=["number"]),
            DETAIL_SCHEMA,
            ToolKind.WRITE,
            submit_change,
        ),
        Tool(
            "approve_change",
            "Approve a change waiting for your approval. Approval in Assess sends it to the CAB "
            "(Authorize); one CAB approval schedules it. Only the requested approver may approve.",
            obj({"number": NUMBER, "comments": TEXT}, required=["number"]),
            DETAIL_SCHEMA,
            ToolKind.WRITE,
            approve_change,
        ),
        Tool(
            "reject_change",
            "Reject a change waiting for your approval, saying why (comments are required). The change "
            "goes back to New; it can be fixed and submitted again.",
            obj({"number": NUMBER, "comments": TEXT}, required=["number", "comments"]),
            DETAIL_SCHEMA,
            ToolKind.WRITE,
            reject_change,
        ),
    ]
