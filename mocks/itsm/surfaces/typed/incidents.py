"""Typed incident tools: search, read, create, update, comment, assign, resolve, reopen, hold."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row, like_clause
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.errors import bad_request, business_rule, record_not_found
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.incident import STATE_LABELS
from enterprise_envs.mocks.itsm.surfaces.typed.common import (
    GROUP,
    LEVEL,
    LIMIT,
    NUMBER,
    OFFSET,
    TEXT,
    USER,
    View,
    find_ci,
    find_group,
    find_user,
    like,
    page,
)
from enterprise_envs.mocks.itsm.tables import behaviour_rules

_STATE_BY_LABEL = {label.lower(): value for value, label in STATE_LABELS.items()}
_HOLD_REASONS = {
    label: value for value, label in behaviour_rules()["incident"]["hold_reason"].items() if value.isdigit()
}
_CATEGORIES = ["inquiry", "software", "hardware", "network", "database"]
_STR = {"type": "string"}

SUMMARY_SCHEMA: dict[str, Any] = obj(
    {
        name: _STR
        for name in (
            "number", "sys_id", "short_description", "state", "priority", "caller", "assignment_group",
            "assigned_to", "category", "opened_at", "updated_at",
        )
    },
    required=["number", "sys_id", "state", "priority"],
)  # fmt: skip
DETAIL_SCHEMA: dict[str, Any] = obj(
    {
        **SUMMARY_SCHEMA["properties"],
        **{
            name: _STR
            for name in (
                "description", "subcategory", "impact", "urgency", "configuration_item", "hold_reason",
                "close_code", "close_notes", "resolved_at", "resolved_by", "parent_incident", "problem",
                "reopen_count", "child_incidents", "contact_type",
            )
        },
        "journal": {"type": "array", "items": obj({k: _STR for k in ("type", "by", "at", "text")})},
    },
    required=["number", "sys_id", "state", "priority", "journal"],
)  # fmt: skip
LIST_SCHEMA: dict[str, Any] = obj(
    {
        "total": {"type": "integer"},
        "offset": {"type": "integer"},
        "next_offset": {"type": ["integer", "null"]},
        "incidents": {"type": "array", "items": SUMMARY_SCHEMA},
    },
    required=["total", "incidents"],
)


def summary(view: View, row: Row) -> dict[str, Any]:
    """An incident in one line's worth of fields."""
    return {
        "number": row["number"],
        "sys_id": row["sys_id"],
        "short_description": row["short_description"],
        "state": STATE_LABELS.get(row["state"], row["state"]),
        "priority": view.label("incident", "priority", row["priority"]),
        "caller": view.user(row["caller_id"]),
        "assignment_group": view.ref("sys_user_group", row["assignment_group"]),
        "assigned_to": view.user(row["assigned_to"]),
        "category": row["category"],
        "opened_at": row["opened_at"],
        "updated_at": row["sys_updated_on"],
    }


def detail(view: View, row: Row) -> dict[str, Any]:
    """An incident with its description, resolution and journal."""
    return {
        **summary(view, row),
        "description": row["description"],
        "subcategory": row["subcategory"],
        "impact": view.label("incident", "impact", row["impact"]),
        "urgency": view.label("incident", "urgency", row["urgency"]),
        "configuration_item": view.ref("cmdb_ci", row["cmdb_ci"]),
        "hold_reason": view.label("incident", "hold_reason", row["hold_reason"])
        if row["hold_reason"]
        else "",
        "close_code": row["close_code"],
        "close_notes": row["close_notes"],
        "resolved_at": row["resolved_at"],
        "resolved_by": view.user(row["resolved_by"]),
        "parent_incident": view.ref("incident", row["parent_incident"]),
        "problem": view.ref("problem", row["problem_id"]),
        "reopen_count": row["reopen_count"] or "0",
        "child_incidents": row["child_incidents"] or "0",
        "contact_type": row["contact_type"],
        "journal": view.journal("incident", row["sys_id"]),
    }


def find_incident(ctx: CallContext, key: str) -> Row:
    """An incident by number or sys_id."""
    return records.find(ctx, "incident", key)


def _reference_values(ctx: CallContext, args: dict[str, Any]) -> dict[str, str]:
    """Resolve the people, group and CI arguments an agent gave by name to sys_ids."""
    values: dict[str, str] = {}
    if "caller" in args:
        values["caller_id"] = find_user(ctx, args["caller"])["sys_id"]
    if "assignment_group" in args:
        values["assignment_group"] = find_group(ctx, args["assignment_group"])["sys_id"]
    if "assigned_to" in args:
        values["assigned_to"] = find_user(ctx, args["assigned_to"])["sys_id"] if args["assigned_to"] else ""
    if "configuration_item" in args:
        ci = args["configuration_item"]
        values["cmdb_ci"] = find_ci(ctx, ci)["sys_id"] if ci else ""
    if "parent_incident" in args:
        parent = args["parent_incident"]
        values["parent_incident"] = find_incident(ctx, parent)["sys_id"] if parent else ""
    return values


_PLAIN_FIELDS = (
    "short_description",
    "description",
    "category",
    "subcategory",
    "impact",
    "urgency",
    "contact_type",
)


def _field_values(ctx: CallContext, args: dict[str, Any]) -> dict[str, str]:
    values = {name: args[name] for name in _PLAIN_FIELDS if name in args}
    values.update(_reference_values(ctx, args))
    return values


# -- handlers ---------------------------------------------------------------------------------


def search_incidents(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Filtered, paged incident search, newest first."""
    terms, params = ["1"], []
    if "caller" in args:
        terms.append("caller_id = ?")
        params.append(find_user(ctx, args["caller"])["sys_id"])
    if "assignment_group" in args:
        terms.append("assignment_group = ?")
        params.append(find_group(ctx, args["assignment_group"])["sys_id"])
    if "assigned_to" in args:
        terms.append("assigned_to = ?")
        params.append(find_user(ctx, args["assigned_to"])["sys_id"])
    if "state" in args:
        states = [_STATE_BY_LABEL[label.lower()] for label in args["state"]]
        terms.append(f"state IN ({', '.join('?' * len(states))})")
        params.extend(states)
    if "active" in args:
        terms.append("active = ?")
        params.append("true" if args["active"] else "false")
    if "text" in args:
        terms.append(f"({like_clause('short_description')} OR {like_clause('description')})")
        params.extend([like(args["text"])] * 2)
    limit, offset = args.get("limit", 10), args.get("offset", 0)
    rows, total = records.query(
        ctx, "incident", " AND ".join(terms), tuple(params),
        order_by="opened_at DESC, sys_id", limit=limit, offset=offset,
    )  # fmt: skip
    view = View(ctx)
    return {**page(total, offset, len(rows)), "incidents": [summary(view, row) for row in rows]}


def get_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One incident in full."""
    return detail(View(ctx), find_incident(ctx, args["number"]))


def create_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Open a new incident."""
    row = records.create(ctx, "incident", _field_values(ctx, args))
    return summary(View(ctx), row)


def update_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Change descriptive fields of an incident."""
    row = find_incident(ctx, args["number"])
    values = _field_values(ctx, {key: value for key, value in args.items() if key != "number"})
    if "problem" in args:
        values["problem_id"] = (
            records.find(ctx, "problem", args["problem"])["sys_id"] if args["problem"] else ""
        )
    if not values:
        raise bad_request("Nothing to update", "Give at least one field to change")
    return summary(View(ctx), records.update(ctx, "incident", row, values))


def add_comment(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Add a customer-visible comment or an internal work note to any task record."""
    table, row = _task_record(ctx, args["number"])
    element = "work_notes" if args.get("kind", "comment") == "work_note" else "comments"
    records.update(ctx, table, row, {element: args["text"]})
    return {"number": row["number"], "added": "work_note" if element == "work_notes" else "comment"}


_PREFIX_TABLE = {
    "INC": "incident",
    "PRB": "problem",
    "CHG": "change_request",
    "REQ": "sc_request",
    "RITM": "sc_req_item",
}


def _task_record(ctx: CallContext, key: str) -> tuple[str, Row]:
    """A task record by number (its prefix names the table) or by sys_id (any task table)."""
    upper = key.strip().upper()
    for prefix, table in sorted(_PREFIX_TABLE.items(), key=lambda item: -len(item[0])):
        if upper.startswith(prefix):
            return table, records.find(ctx, table, key)
    if records.is_sys_id(key.strip()):
        for table in _PREFIX_TABLE.values():
            if ctx.store.get(table, key.strip()) is not None:
                return table, records.get(ctx, table, key.strip())
        raise record_not_found(f"task {key!r}")
    raise bad_request(
        "Unknown record number", f"{key!r} is not an INC, PRB, CHG, REQ or RITM number or a sys_id"
    )


def assign_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Set the assignment group and (optionally) the assignee."""
    row = find_incident(ctx, args["number"])
    values = _reference_values(
        ctx, {k: v for k, v in args.items() if k in ("assignment_group", "assigned_to")}
    )
    return summary(View(ctx), records.update(ctx, "incident", row, values))


def resolve_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Resolve with a resolution code and notes."""
    row = find_incident(ctx, args["number"])
    values = {"state": "6", "close_code": args["close_code"], "close_notes": args["close_notes"]}
    return summary(View(ctx), records.update(ctx, "incident", row, values))


def reopen_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Reopen a resolved incident, saying why."""
    row = find_incident(ctx, args["number"])
    if row["state"] != "6":
        hint = " Open a new incident instead." if row["state"] in ("7", "8") else ""
        state = STATE_LABELS[row["state"]]
        raise business_rule(
            f"Incident {row['number']} is {state}; only Resolved incidents can be reopened.{hint}"
        )
    values = {"state": "2", "comments": args["reason"]}
    return summary(View(ctx), records.update(ctx, "incident", row, values))


def hold_incident(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Put an incident on hold for a reason."""
    row = find_incident(ctx, args["number"])
    values = {"state": "3", "hold_reason": _HOLD_REASONS[args["hold_reason"]]}
    if args.get("comment"):
        values["comments"] = args["comment"]
    return summary(View(ctx), records.update(ctx, "incident", row, values))


# -- tools ------------------------------------------------------------------------------------

_FIELD_PROPS: dict[str, Any] = {
    "short_description": string("One-line summary of the issue.", 160),
    "description": TEXT,
    "category": {"type": "string", "enum": _CATEGORIES, "description": "Incident category."},
    "subcategory": string("Subcategory, e.g. vpn, email, monitor.", 40),
    "impact": LEVEL,
    "urgency": LEVEL,
    "configuration_item": string("Affected configuration item: its name or sys_id ('' to clear).", 200),
    "contact_type": {"type": "string", "enum": ["phone", "email", "self-service", "walk-in", "chat"]},
}


def incident_tools() -> list[Tool]:
    """The typed incident tools."""
    return [
        Tool(
            "search_incidents",
            "Find incidents. Filter by caller, assignment group, assignee, state, active flag or text in "
            "the description; results are newest first and paged (next_offset). Use it to find a "
            "caller's open incidents before creating a new one.",
            obj(
                {
                    "caller": USER,
                    "assignment_group": GROUP,
                    "assigned_to": USER,
                    "state": {
                        "type": "array",
                        "items": {"type": "string", "enum": list(STATE_LABELS.values())},
                        "description": "Any of these states.",
                        "maxItems": 6,
                    },
                    "active": {
                        "type": "boolean",
                        "description": "true: open incidents only (not Closed/Canceled).",
                    },
                    "text": string("Words in the short description or description.", 200),
                    "limit": LIMIT,
                    "offset": OFFSET,
                }
            ),
            LIST_SCHEMA,
            ToolKind.READ,
            search_incidents,
        ),
        Tool(
            "get_incident",
            "Read one incident in full: description, state, priority, assignment, resolution and its "
            "journal (comments and work notes).",
            obj({"number": NUMBER}, required=["number"]),
            DETAIL_SCHEMA,
            ToolKind.READ,
            get_incident,
        ),
        Tool(
            "create_incident",
            "Open a new incident for a caller. Priority is computed from impact and urgency "
            "(1 = High, 3 = Low). Returns the new incident's number: tell it to the caller.",
            obj(
                {"caller": USER, **_FIELD_PROPS, "assignment_group": GROUP, "assigned_to": USER},
                required=["caller", "short_description"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            create_incident,
        ),
        Tool(
            "update_incident",
            "Change an incident's descriptive fields: short description, description, category, "
            "impact, urgency, configuration item, parent incident (to mark it a duplicate child), or "
            "the problem it is linked to. Use the dedicated tools to assign, resolve, reopen or hold.",
            obj(
                {
                    "number": NUMBER,
                    **_FIELD_PROPS,
                    "parent_incident": string("Parent incident number ('' to clear).", 64),
                    "problem": string("Problem number to link ('' to unlink).", 64),
                },
                required=["number"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            update_incident,
        ),
        Tool(
            "add_comment",
            "Add to the journal of an incident, problem, change or request: kind 'comment' is visible "
            "to the caller, 'work_note' is internal to IT staff.",
            obj(
                {
                    "number": NUMBER,
                    "text": TEXT,
                    "kind": {
                        "type": "string",
                        "enum": ["comment", "work_note"],
                        "description": "Default comment.",
                    },
                },
                required=["number", "text"],
            ),
            obj({"number": _STR, "added": _STR}, required=["number", "added"]),
            ToolKind.WRITE,
            add_comment,
        ),
        Tool(
            "assign_incident",
            "Assign an incident to a group and optionally a person in that group (the person must be a "
            "member). Changing the group clears the assignee unless you give one.",
            obj(
                {"number": NUMBER, "assignment_group": GROUP, "assigned_to": USER},
                required=["number", "assignment_group"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            assign_incident,
        ),
        Tool(
            "resolve_incident",
            "Resolve an incident once the issue is fixed. Needs a resolution code and notes saying what "
            "was done. The caller can still reopen it.",
            obj(
                {
                    "number": NUMBER,
                    "close_code": string(
                        "Resolution code, e.g. 'Solution provided', 'Workaround provided', 'Duplicate', "
                        "'Resolved by caller', 'User error', 'Known error'.",
                        80,
                    ),
                    "close_notes": string("What was done to resolve it.", 4000),
                },
                required=["number", "close_code", "close_notes"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            resolve_incident,
        ),
        Tool(
            "reopen_incident",
            "Reopen a Resolved incident (back to In Progress), with the reason as a comment. Closed or "
            "Canceled incidents cannot be reopened: open a new incident instead.",
            obj({"number": NUMBER, "reason": TEXT}, required=["number", "reason"]),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            reopen_incident,
        ),
        Tool(
            "hold_incident",
            "Put an incident On Hold while waiting on the caller, a problem, a vendor or a change.",
            obj(
                {
                    "number": NUMBER,
                    "hold_reason": {"type": "string", "enum": sorted(_HOLD_REASONS)},
                    "comment": TEXT,
                },
                required=["number", "hold_reason"],
            ),
            SUMMARY_SCHEMA,
            ToolKind.WRITE,
            hold_incident,
        ),
    ]
