"""Typed tools for people and groups: search and look up users, list groups and their members."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row, like_clause
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.surfaces.typed.common import (
    GROUP,
    LIMIT,
    OFFSET,
    USER,
    View,
    find_group,
    find_user,
    like,
    page,
)

_STR = {"type": "string"}
USER_SCHEMA: dict[str, Any] = obj(
    {
        name: _STR
        for name in (
            "sys_id", "name", "user_name", "email", "title", "department", "location", "manager", "phone",
            "vip", "active",
        )
    },
    required=["sys_id", "name", "user_name"],
)  # fmt: skip
GROUP_SCHEMA: dict[str, Any] = obj(
    {"sys_id": _STR, "name": _STR, "description": _STR, "manager": _STR, "members": {"type": "integer"}},
    required=["sys_id", "name"],
)


def user_view(view: View, row: Row) -> dict[str, Any]:
    """A person as the service desk sees them."""
    return {
        "sys_id": row["sys_id"],
        "name": row["name"],
        "user_name": row["user_name"],
        "email": row["email"],
        "title": row["title"],
        "department": view.ref("cmn_department", row["department"]),
        "location": view.ref("cmn_location", row["location"]),
        "manager": view.user(row["manager"]),
        "phone": row["phone"],
        "vip": row["vip"] or "false",
        "active": row["active"],
    }


def search_users(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Users whose name, user_name or email contains the query."""
    pattern = like(args["query"].strip())
    where = " OR ".join(like_clause(column) for column in ("name", "user_name", "email"))
    limit, offset = args.get("limit", 10), args.get("offset", 0)
    rows, total = records.query(
        ctx, "sys_user", f"({where})", (pattern,) * 3, order_by="name, sys_id", limit=limit, offset=offset
    )
    view = View(ctx)
    return {**page(total, offset, len(rows)), "users": [user_view(view, row) for row in rows]}


def get_user(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One user, with the groups they belong to."""
    row = find_user(ctx, args["user"])
    view = View(ctx)
    groups = ctx.store.column_values("sys_user_grmember", "group", '"user" = ?', (row["sys_id"],))
    return {**user_view(view, row), "groups": sorted(view.ref("sys_user_group", group) for group in groups)}


def _group_view(ctx: CallContext, view: View, row: Row) -> dict[str, Any]:
    members = ctx.store.count("sys_user_grmember", '"group" = ?', (row["sys_id"],))
    return {
        "sys_id": row["sys_id"],
        "name": row["name"],
        "description": row["description"],
        "manager": view.user(row["manager"]),
        "members": members,
    }


def list_groups(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Assignment groups, optionally filtered by name."""
    where, params = (like_clause("name"), (like(args["query"]),)) if args.get("query") else ("1", ())
    rows, _ = records.query(ctx, "sys_user_group", where, params, order_by="name, sys_id")
    view = View(ctx)
    return {"groups": [_group_view(ctx, view, row) for row in rows]}


def list_group_members(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The members of one group."""
    group = find_group(ctx, args["group"])
    member_ids = ctx.store.column_values("sys_user_grmember", "user", '"group" = ?', (group["sys_id"],))
    marks = ", ".join("?" * len(member_ids)) or "''"
    rows, _ = records.query(
        ctx, "sys_user", f"sys_id IN ({marks})", tuple(member_ids), order_by="name, sys_id"
    )
    view = View(ctx)
    return {"group": group["name"], "members": [user_view(view, row) for row in rows]}


def people_tools() -> list[Tool]:
    """The typed user and group tools."""
    return [
        Tool(
            "search_users",
            "Find people by part of their name, user name or email. Several people can share a name: "
            "check email, department or location with the caller before acting on a record.",
            obj(
                {
                    "query": string("Part of a name, user name or email.", 200, minLength=1),
                    "limit": LIMIT,
                    "offset": OFFSET,
                },
                required=["query"],
            ),
            obj(
                {
                    "total": {"type": "integer"},
                    "offset": {"type": "integer"},
                    "next_offset": {"type": ["integer", "null"]},
                    "users": {"type": "array", "items": USER_SCHEMA},
                },
                required=["total", "users"],
            ),
            ToolKind.READ,
            search_users,
        ),
        Tool(
            "get_user",
            "Look up one person by user name, email, full name or sys_id: title, department, location, "
            "manager, VIP flag and groups.",
            obj({"user": USER}, required=["user"]),
            obj(
                {**USER_SCHEMA["properties"], "groups": {"type": "array", "items": _STR}},
                required=["sys_id", "name"],
            ),
            ToolKind.READ,
            get_user,
        ),
        Tool(
            "list_groups",
            "List the assignment groups (teams), with their managers and member counts.",
            obj({"query": string("Part of a group name.", 100)}),
            obj({"groups": {"type": "array", "items": GROUP_SCHEMA}}, required=["groups"]),
            ToolKind.READ,
            list_groups,
        ),
        Tool(
            "list_group_members",
            "List the people in an assignment group (only members can be assigned its tickets).",
            obj({"group": GROUP}, required=["group"]),
            obj(
                {"group": _STR, "members": {"type": "array", "items": USER_SCHEMA}},
                required=["group", "members"],
            ),
            ToolKind.READ,
            list_group_members,
        ),
    ]
