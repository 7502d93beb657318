"""Surface ``typed``: task-level identity tools, the way identity MCP servers expose them.

A help desk works with people and groups by the names people use: a user is given by id, login
(or its short name) or e-mail address, a group by id or name. Answers are compact JSON (a person's
name, login, e-mail, status, department, title, employee number, manager). Every tool calls the
same service functions as the ``rest`` surface (``mocks/identity/services``), so the same goal
reached through either surface leaves the same rows; errors are Okta's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row, like_clause, like_literal
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind, obj, string, wait_tool
from enterprise_envs.mocks.identity.access import group_roles, roles_of
from enterprise_envs.mocks.identity.errors import not_allowed_in_status
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services import directory, factors, lifecycle, membership
from enterprise_envs.mocks.identity.services.common import resolve_group, resolve_user

__all__ = ["build_typed_surface"]

_USER = string("The person: their login (or its part before @), e-mail address, or user id (00u...).", 200,
               minLength=1)  # fmt: skip
_GROUP = string("The group: its name (e.g. VPN Users) or id (00g...).", 200, minLength=1)
_LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "description": "Maximum results (default 10)."}
_OFFSET = {"type": "integer", "minimum": 0, "maximum": 100000, "description": "Results to skip, for paging."}
_STR = {"type": "string"}
_NULLABLE = {"type": ["string", "null"]}

USER_SUMMARY: dict[str, Any] = obj(
    {
        "id": _STR, "name": _STR, "login": _STR, "email": _STR, "status": _STR, "department": _STR,
        "title": _STR, "employee_number": _STR, "manager": _STR,
    },
    required=["id", "name", "login", "email", "status"],
)  # fmt: skip
USER_DETAIL: dict[str, Any] = obj(
    {
        **USER_SUMMARY["properties"],
        "mobile_phone": _STR,
        "created": _STR,
        "activated": _NULLABLE,
        "status_changed": _NULLABLE,
        "last_login": _NULLABLE,
        "password_changed": _NULLABLE,
        "admin_roles": {"type": "array", "items": _STR},
        "lifecycle_actions": {"type": "array", "items": _STR},
    },
    required=["id", "name", "login", "email", "status", "admin_roles", "lifecycle_actions"],
)
GROUP_VIEW: dict[str, Any] = obj(
    {
        "id": _STR, "name": _STR, "description": _STR, "type": _STR, "members": {"type": "integer"},
        "admin_roles": {"type": "array", "items": _STR},
    },
    required=["id", "name", "type"],
)  # fmt: skip
FACTOR_VIEW: dict[str, Any] = obj(
    {"id": _STR, "type": _STR, "provider": _STR, "status": _STR, "enrolled": _STR},
    required=["id", "type", "status"],
)
APP_VIEW: dict[str, Any] = obj(
    {"id": _STR, "label": _STR, "name": _STR, "assigned": _STR, "status": _STR},
    required=["id", "label", "assigned"],
)
CHANGED: dict[str, Any] = obj(
    {"user": USER_SUMMARY, "action": _STR, "changed": {"type": "boolean"}, "detail": _STR},
    required=["user", "action"],
)


def _name(row: Row) -> str:
    return row["displayName"] or f"{row['firstName']} {row['lastName']}".strip()


def summary(row: Row) -> dict[str, Any]:
    """A person in one line's worth of fields."""
    return {
        "id": row["id"],
        "name": _name(row),
        "login": row["login"],
        "email": row["email"],
        "status": row["status"],
        "department": row["department"],
        "title": row["title"],
        "employee_number": row["employeeNumber"],
        "manager": row["manager"],
    }


def detail(ctx: CallContext, row: Row) -> dict[str, Any]:
    """A person with their lifecycle times, admin roles and the operations their status allows."""
    return {
        **summary(row),
        "mobile_phone": row["mobilePhone"],
        "created": row["created"],
        "activated": row["activated"] or None,
        "status_changed": row["statusChanged"] or None,
        "last_login": row["lastLogin"] or None,
        "password_changed": row["passwordChanged"] or None,
        "admin_roles": roles_of(ctx.store, row["id"]),
        "lifecycle_actions": [move.name for move in lifecycle.allowed_moves(row["status"]) if move.link],
    }


def _group_view(ctx: CallContext, row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "name": row["name"],
        "description": row["description"],
        "type": row["type"],
        "members": ctx.store.count("group_member", '"groupId" = ?', (row["id"],)),
        "admin_roles": group_roles(ctx.store, row["id"]),
    }


# -- handlers ------------------------------------------------------------------------------------

_SEARCHED = ("firstName", "lastName", "displayName", "login", "email", "employeeNumber")


def find_users(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """People whose name, login, e-mail or employee number contains every word of the query."""
    words = args["query"].split()[:8]
    conditions, params = [], []
    for word in words:
        conditions.append("(" + " OR ".join(like_clause(f'"{name}"') for name in _SEARCHED) + ")")
        params += [f"%{like_literal(word)}%"] * len(_SEARCHED)
    if not args.get("include_deactivated", False):
        conditions.append("status != 'DEPROVISIONED'")
    limit, offset = args.get("limit", 10), args.get("offset", 0)
    rows, total = ENGINE.query(
        ctx, "user", " AND ".join(conditions) or "1", tuple(params),
        order_by='"lastName", "firstName", id', limit=limit, offset=offset,
    )  # fmt: skip
    following = offset + len(rows)
    return {
        "total": total,
        "next_offset": following if following < total else None,
        "users": [summary(row) for row in rows],
    }


def get_user(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One person in detail."""
    return detail(ctx, resolve_user(ctx, args["user"]))


_DONE = {
    "unlock": "Unlocked: the account is ACTIVE again and the user signs in with their current password.",
    "reset_factors": "Every enrolled MFA factor was reset; the user enrolls again at next sign-in.",
    "expire_password": "Password expired: the user must choose a new one at next sign-in.",
    "reset_password": "Password reset started: the user got an e-mail with a reset link (status RECOVERY).",
    "suspend": "Suspended: the user cannot sign in until unsuspended; groups and apps are kept.",
    "unsuspend": "Unsuspended: the account is ACTIVE again.",
    "deactivate": "Deactivated: status DEPROVISIONED; the user was removed from every app.",
    "activate": "Reactivated: the user got an activation e-mail.",
    "reactivate": "Activation restarted: the user got a new activation e-mail.",
}


def _apply(ctx: CallContext, name: str, user: Row) -> dict[str, Any]:
    """Apply the lifecycle operation ``name`` to ``user``; the answer says what it did."""
    outcome = lifecycle.apply(ctx, name, user)
    after = outcome.user or user
    return {"user": summary(after), "action": name, "changed": after != user, "detail": _DONE[name]}


def _lifecycle_tool(name: str) -> Callable[[CallContext, dict[str, Any]], dict[str, Any]]:
    def handle(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        return _apply(ctx, name, resolve_user(ctx, args["user"]))

    return handle


def reset_mfa(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Reset every enrolled factor of a person."""
    user = resolve_user(ctx, args["user"])
    enrolled = [row["factorType"] for row in factors.enrolled_factors(ctx, user)]
    outcome = lifecycle.apply(ctx, "reset_factors", user)
    text = (
        f"Reset {len(enrolled)} factor(s): {', '.join(enrolled)}." if enrolled else "No factor was enrolled."
    )
    return {
        "user": summary(outcome.user or user),
        "action": "reset_factors",
        "changed": bool(enrolled),
        "detail": f"{text} {_DONE['reset_factors']}",
    }


def reactivate_user(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Bring back a deactivated account, or restart an unfinished activation."""
    user = resolve_user(ctx, args["user"])
    if user["status"] == "DEPROVISIONED":
        name = "activate"
    elif user["status"] in lifecycle.MOVES["reactivate"].starts:
        name = "reactivate"
    else:
        # The access check first, as the lifecycle operations make it.
        lifecycle.apply(ctx, "reactivate", user)
        raise not_allowed_in_status()
    return _apply(ctx, name, user)


def list_factors(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """A person's enrolled MFA factors."""
    user = resolve_user(ctx, args["user"])
    return {
        "user": user["login"],
        "factors": [
            {
                "id": row["id"],
                "type": row["factorType"],
                "provider": row["provider"],
                "status": row["status"],
                "enrolled": row["created"],
            }
            for row in factors.enrolled_factors(ctx, user)
        ],
    }


def find_groups(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Groups whose name or description contains the query."""
    pattern = f"%{like_literal(args['query'].strip())}%"
    rows, _ = ENGINE.query(
        ctx, "group", f"({like_clause('name')} OR {like_clause('description')})", (pattern, pattern),
        order_by='"name", id', limit=args.get("limit", 20),
    )  # fmt: skip
    return {"groups": [_group_view(ctx, row) for row in rows]}


def list_user_groups(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The groups a person is a member of."""
    user = resolve_user(ctx, args["user"])
    groups = sorted(directory.user_groups(ctx, user), key=lambda row: (row["name"].lower(), row["id"]))
    return {"user": user["login"], "groups": [_group_view(ctx, row) for row in groups]}


def list_group_members(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The members of a group."""
    group = resolve_group(ctx, args["group"])
    limit, offset = args.get("limit", 50), args.get("offset", 0)
    rows, total = ENGINE.query(
        ctx, "user", 'id IN (SELECT "userId" FROM group_member WHERE "groupId" = ?)', (group["id"],),
        order_by='"lastName", "firstName", id', limit=limit, offset=offset,
    )  # fmt: skip
    following = offset + len(rows)
    return {
        "group": group["name"],
        "type": group["type"],
        "total": total,
        "next_offset": following if following < total else None,
        "members": [summary(row) for row in rows],
    }


def _membership_change(
    doc: str, change: Callable[[CallContext, Row, Row], bool], done: str, unchanged: str
) -> Callable[[CallContext, dict[str, Any]], dict[str, Any]]:
    """A handler changing a person's membership of a group (``change``: the membership service's).

    ``done`` and ``unchanged`` are the detail when ``change`` changed something or nothing, with
    ``{group}`` for the group's name; ``doc`` is the handler's docstring.
    """

    def handle(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        user, group = resolve_user(ctx, args["user"]), resolve_group(ctx, args["group"])
        changed = change(ctx, group, user)
        detail_text = (done if changed else unchanged).format(group=group["name"])
        return {"user": user["login"], "group": group["name"], "changed": changed, "detail": detail_text}

    handle.__doc__ = doc
    return handle


add_user_to_group = _membership_change(
    "Make a person a member of a group.",
    membership.add_member,
    "Added to {group}; they get the apps assigned to it.",
    "Already a member of {group}; nothing changed.",
)
remove_user_from_group = _membership_change(
    "Take a person out of a group.",
    membership.remove_member,
    "Removed from {group}; apps held only through it were removed.",
    "Not a member of {group}; nothing changed.",
)


def list_user_apps(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The apps a person holds, and whether directly or through a group."""
    user = resolve_user(ctx, args["user"])
    rows, _ = ENGINE.query(ctx, "app_user", '"userId" = ?', (user["id"],))
    apps = []
    for row in rows:
        app = ctx.store.get("app", row["appId"])
        if app is None:
            continue
        apps.append(
            {
                "id": app["id"],
                "label": app["label"],
                "name": app["name"],
                "assigned": "directly" if row["scope"] == "USER" else "through a group",
                "status": app["status"],
            }
        )
    apps.sort(key=lambda item: (item["label"].lower(), item["id"]))
    return {"user": user["login"], "apps": apps}


# -- the surface ---------------------------------------------------------------------------------

_R, _W = ToolKind.READ, ToolKind.WRITE


def _user_arg_tool(name: str, description: str, output: dict[str, Any], kind: ToolKind, handler: Any) -> Tool:
    return Tool(name, description, obj({"user": _USER}, required=["user"]), output, kind, handler)


def build_typed_surface() -> Surface:
    """The task-level identity tools (see the module docstring)."""
    membership_out = obj(
        {"user": _STR, "group": _STR, "changed": {"type": "boolean"}, "detail": _STR},
        required=["user", "group", "changed"],
    )
    return Surface(
        "typed",
        [
            Tool(
                "find_users",
                "Find people by part of their name, login, e-mail address or employee number (every word "
                "must match). Several people can share a name: check the e-mail address or employee number "
                "with the person before acting. Deactivated accounts are left out unless "
                "include_deactivated.",
                obj(
                    {
                        "query": string(
                            "Words to look for, e.g. 'ana lopez' or an e-mail address.", 200, minLength=1
                        ),
                        "include_deactivated": {
                            "type": "boolean",
                            "description": "Also deactivated accounts.",
                        },
                        "limit": _LIMIT,
                        "offset": _OFFSET,
                    },
                    required=["query"],
                ),
                obj(
                    {
                        "total": {"type": "integer"},
                        "next_offset": {"type": ["integer", "null"]},
                        "users": {"type": "array", "items": USER_SUMMARY},
                    },
                    required=["total", "users"],
                ),
                _R,
                find_users,
            ),
            _user_arg_tool(
                "get_user",
                "Look up one person by login, e-mail address or id: account status (ACTIVE, LOCKED_OUT, "
                "SUSPENDED, PASSWORD_EXPIRED, RECOVERY, PROVISIONED, STAGED, DEPROVISIONED), department, "
                "title, employee number, manager, last sign-in, admin roles, and the account actions their "
                "status allows.",
                USER_DETAIL,
                _R,
                get_user,
            ),
            _user_arg_tool(
                "unlock_user",
                "Unlock a LOCKED_OUT account (too many failed sign-ins): it becomes ACTIVE and the person "
                "signs in with their current password. Fails if the account is not locked out.",
                CHANGED,
                _W,
                _lifecycle_tool("unlock"),
            ),
            _user_arg_tool(
                "reset_mfa",
                "Reset all of a person's MFA factors (lost or new phone, broken authenticator): every "
                "enrolled factor is removed and they enroll again at next sign-in. Not for deactivated "
                "accounts.",
                CHANGED,
                _W,
                reset_mfa,
            ),
            _user_arg_tool(
                "list_factors",
                "List a person's enrolled MFA factors (push, sms, call, email, token:software:totp, "
                "webauthn, question) with their status.",
                obj(
                    {"user": _STR, "factors": {"type": "array", "items": FACTOR_VIEW}},
                    required=["user", "factors"],
                ),
                _R,
                list_factors,
            ),
            _user_arg_tool(
                "expire_password",
                "Expire a person's password so they must choose a new one at next sign-in (ACTIVE or "
                "PASSWORD_EXPIRED accounts).",
                CHANGED,
                _W,
                _lifecycle_tool("expire_password"),
            ),
            _user_arg_tool(
                "reset_password",
                "Send a person a password-reset e-mail; the account is in RECOVERY until they finish. "
                "Never ask for, or give out, a password.",
                CHANGED,
                _W,
                _lifecycle_tool("reset_password"),
            ),
            _user_arg_tool(
                "suspend_user",
                "Suspend an ACTIVE account: the person cannot sign in until unsuspended; groups and apps "
                "are kept.",
                CHANGED,
                _W,
                _lifecycle_tool("suspend"),
            ),
            _user_arg_tool(
                "unsuspend_user",
                "Unsuspend a SUSPENDED account: it becomes ACTIVE again.",
                CHANGED,
                _W,
                _lifecycle_tool("unsuspend"),
            ),
            _user_arg_tool(
                "deactivate_user",
                "Deactivate an account (a leaver): status DEPROVISIONED, removed from every app; group "
                "memberships stay. Any status but already deactivated.",
                CHANGED,
                _W,
                _lifecycle_tool("deactivate"),
            ),
            _user_arg_tool(
                "reactivate_user",
                "Bring back a deactivated (DEPROVISIONED) account, or resend the activation of one that was "
                "never finished (PROVISIONED or RECOVERY): the person gets an activation e-mail. Other "
                "statuses are refused.",
                CHANGED,
                _W,
                reactivate_user,
            ),
            Tool(
                "find_groups",
                "Find groups by part of their name or description, with their type (OKTA_GROUP: managed "
                "here; APP_GROUP: imported from an app; BUILT_IN), member count and admin roles.",
                obj(
                    {"query": string("Part of a group name, e.g. VPN.", 200, minLength=1), "limit": _LIMIT},
                    required=["query"],
                ),
                obj({"groups": {"type": "array", "items": GROUP_VIEW}}, required=["groups"]),
                _R,
                find_groups,
            ),
            _user_arg_tool(
                "list_user_groups",
                "List the groups a person is a member of.",
                obj(
                    {"user": _STR, "groups": {"type": "array", "items": GROUP_VIEW}},
                    required=["user", "groups"],
                ),
                _R,
                list_user_groups,
            ),
            Tool(
                "list_group_members",
                "List the members of a group.",
                obj(
                    {
                        "group": _GROUP,
                        "limit": {**_LIMIT, "description": "Maximum results (default 50)."},
                        "offset": _OFFSET,
                    },
                    required=["group"],
                ),  # fmt: skip
                obj(
                    {
                        "group": _STR,
                        "type": _STR,
                        "total": {"type": "integer"},
                        "next_offset": {"type": ["integer", "null"]},
                        "members": {"type": "array", "items": USER_SUMMARY},
                    },
                    required=["group", "total", "members"],
                ),
                _R,
                list_group_members,
            ),
            Tool(
                "add_user_to_group",
                "Add a person to a group (OKTA_GROUPs only); they get the apps assigned to the group. "
                "Adding a member again changes nothing.",
                obj({"user": _USER, "group": _GROUP}, required=["user", "group"]),
                membership_out,
                _W,
                add_user_to_group,
            ),
            Tool(
                "remove_user_from_group",
                "Remove a person from a group (OKTA_GROUPs only); apps they held only through it are "
                "removed.",
                obj({"user": _USER, "group": _GROUP}, required=["user", "group"]),
                membership_out,
                _W,
                remove_user_from_group,
            ),
            _user_arg_tool(
                "list_user_apps",
                "List the apps a person holds, and whether directly or through a group.",
                obj({"user": _STR, "apps": {"type": "array", "items": APP_VIEW}}, required=["user", "apps"]),
                _R,
                list_user_apps,
            ),
            wait_tool(),
        ],
    )
