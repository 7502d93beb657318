"""Typed problem tools: open a problem (linking its incidents) and link more incidents to it."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.problem import STATE_LABELS
from enterprise_envs.mocks.itsm.surfaces.typed.common import LEVEL, NUMBER, TEXT, USER, View, find_user

_STR = {"type": "string"}
PROBLEM_SCHEMA: dict[str, Any] = obj(
    {
        **{
            name: _STR
            for name in (
                "number", "sys_id", "short_description", "state", "priority", "impact", "urgency",
                "assigned_to",
            )
        },
        "incidents": {"type": "array", "items": _STR, "description": "Numbers of the linked incidents."},
    },
    required=["number", "sys_id", "state", "priority", "incidents"],
)  # fmt: skip


def problem_view(ctx: CallContext, row: Row) -> dict[str, Any]:
    """A problem with its linked incidents' numbers."""
    view = View(ctx)
    incidents, _ = records.query(ctx, "incident", "problem_id = ?", (row["sys_id"],), order_by="number")
    return {
        "number": row["number"],
        "sys_id": row["sys_id"],
        "short_description": row["short_description"],
        "state": STATE_LABELS.get(row["state"], row["state"]),
        "priority": view.label("problem", "priority", row["priority"]),
        "impact": view.label("problem", "impact", row["impact"]),
        "urgency": view.label("problem", "urgency", row["urgency"]),
        "assigned_to": view.user(row["assigned_to"]),
        "incidents": [incident["number"] for incident in incidents],
    }


def _link(ctx: CallContext, problem: Row, incident_key: str) -> None:
    incident = records.find(ctx, "incident", incident_key)
    records.update(ctx, "incident", incident, {"problem_id": problem["sys_id"]})


def create_problem(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Open a problem and link the given incidents to it."""
    values = {
        name: args[name] for name in ("short_description", "description", "impact", "urgency") if name in args
    }
    if args.get("assigned_to"):
        values["assigned_to"] = find_user(ctx, args["assigned_to"])["sys_id"]
    problem = records.create(ctx, "problem", values)
    for key in dict.fromkeys(args.get("incidents", [])):
        _link(ctx, problem, key)
    return problem_view(ctx, problem)


def link_incident_to_problem(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Link one incident to a problem."""
    problem = records.find(ctx, "problem", args["problem"])
    _link(ctx, problem, args["incident"])
    return problem_view(ctx, problem)


def problem_tools() -> list[Tool]:
    """The typed problem tools."""
    return [
        Tool(
            "create_problem",
            "Open a problem to find the root cause behind one or more incidents, and link those "
            "incidents to it. Priority is computed from impact and urgency (1 = High, 3 = Low). Returns "
            "the problem's number and its linked incidents.",
            obj(
                {
                    "short_description": string(
                        "One-line summary of the underlying problem.", 160, minLength=1
                    ),
                    "description": TEXT,
                    "impact": LEVEL,
                    "urgency": LEVEL,
                    "assigned_to": USER,
                    "incidents": {
                        "type": "array",
                        "items": NUMBER,
                        "maxItems": 20,
                        "description": "Incident numbers to link to the new problem.",
                    },
                },
                required=["short_description"],
            ),
            PROBLEM_SCHEMA,
            ToolKind.WRITE,
            create_problem,
        ),
        Tool(
            "link_incident_to_problem",
            "Link an incident to an existing problem (it replaces any problem the incident was linked "
            "to). Returns the problem with all its linked incidents.",
            obj(
                {
                    "incident": string("Incident number (INC...) or sys_id.", 64),
                    "problem": string("Problem number (PRB...) or sys_id.", 64),
                },
                required=["incident", "problem"],
            ),
            PROBLEM_SCHEMA,
            ToolKind.WRITE,
            link_incident_to_problem,
        ),
    ]
