"""User groups (``@handles``) and members: ``usergroups.*`` and ``users.*`` reads.

Rules (Slack's Web API reference), held once on their tables:

- **User groups** (:class:`UsergroupRules`): a name (``invalid_arguments`` without one) and a
  handle unique among the workspace's groups and free of members' handles
  (``name_already_exists``, ``handle_already_exists``: Slack's codes, which its 2021 description
  omits); a handle of lower-case letters, digits, ``.``, ``-`` and ``_``. Disabling sets
  ``date_delete`` and ``deleted_by``, enabling clears them; a disabled group's members are kept.
  ``user_count`` follows the members.
- **Members** (``usergroups.users.update``): the whole list is replaced; it may not be empty
  (``invalid_users``: Slack keeps at least one) and names active members only
  (``invalid_users``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.records import TableRules
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.errors import conflict, slack_error
from enterprise_envs.mocks.chat.records import ENGINE
from enterprise_envs.mocks.chat.services.common import Page, bot_user, decode_cursor, find_user, page_limit

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "UsergroupRules",
    "create_usergroup",
    "list_usergroups",
    "list_users",
    "member_ids",
    "set_enabled",
    "set_members",
    "update_usergroup",
]

#: A handle: lower-case letters, digits, '.', '-' and '_', as long as a channel name may be.
_HANDLE = re.compile(r"[a-z0-9._-]{1,80}").fullmatch


class UsergroupRules(TableRules):
    """Rules on ``usergroup`` rows: names and handles."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """A name and a valid, free handle."""
        self._check(ctx, new, None)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Renamed or re-handled groups keep both valid and free."""
        self._check(ctx, new, old)

    @staticmethod
    def _check(ctx: CallContext, new: Row, old: Row | None) -> None:
        if not new["name"].strip():
            raise slack_error(ErrorKind.INVALID_ARGUMENT, "invalid_arguments", "a user group needs a name")
        if old is None or new["name"] != old["name"]:
            taken = ctx.store.find_one("usergroup", "name", new["name"])
            if taken is not None and taken["id"] != new["id"]:
                raise conflict("name_already_exists")
        if old is None or new["handle"] != old["handle"]:
            if not _HANDLE(new["handle"]):
                raise slack_error(
                    ErrorKind.INVALID_ARGUMENT, "invalid_arguments",
                    "a handle holds up to 80 lower-case letters, digits, '.', '-' and '_'",
                )  # fmt: skip
            taken = ctx.store.find_one("usergroup", "handle", new["handle"])
            if (taken is not None and taken["id"] != new["id"]) or ctx.store.find_one(
                "user", "name", new["handle"]
            ):
                raise conflict("handle_already_exists")


ENGINE.register("usergroup", UsergroupRules())


def member_ids(ctx: CallContext, group: Row) -> list[str]:
    """The user ids in a group (in the order of their membership rows' keys, not of joining)."""
    return ctx.store.column_values("usergroup_member", "user", "usergroup = ?", (group["id"],))


def create_usergroup(ctx: CallContext, name: str, handle: str, description: str = "") -> Row:
    """``usergroups.create``."""
    me = ctx.identity.user_sys_id
    team = bot_user(ctx)["team_id"]
    trusted = {
        "team_id": team, "is_usergroup": "true", "is_external": "false", "date_delete": "0",
        "created_by": me, "updated_by": me, "user_count": "0",
    }  # fmt: skip
    values = {"name": name, "handle": handle.lstrip("@"), "description": description}
    return ENGINE.create(ctx, "usergroup", values, trusted=trusted)


def update_usergroup(ctx: CallContext, group: Row, values: Mapping[str, str]) -> Row:
    """``usergroups.update``: name, handle or description."""
    cleaned = {name: (value.lstrip("@") if name == "handle" else value) for name, value in values.items()}
    return ENGINE.update(ctx, "usergroup", group, cleaned, trusted={"updated_by": ctx.identity.user_sys_id})


def set_enabled(ctx: CallContext, group: Row, enabled: bool) -> Row:
    """``usergroups.enable`` / ``usergroups.disable``."""
    trusted = (
        {"date_delete": "0", "deleted_by": "", "updated_by": ctx.identity.user_sys_id}
        if enabled
        else {"date_delete": str(ctx.clock.timestamp()), "deleted_by": ctx.identity.user_sys_id,
              "updated_by": ctx.identity.user_sys_id}
    )  # fmt: skip
    return ENGINE.update(ctx, "usergroup", group, {}, trusted=trusted)


def set_members(ctx: CallContext, group: Row, users: Iterable[str]) -> Row:
    """``usergroups.users.update``: the group's members become exactly ``users`` (ids, handles or e-mails)."""
    current = {
        row["user"]: row for row in ctx.store.select("usergroup_member", "usergroup = ?", (group["id"],))
    }
    wanted: list[str] = []
    for ref in users:
        user = find_user(ctx, ref, code="invalid_users")
        # A deactivated member may stay (Slack keeps them); nobody deactivated is added.
        if user["deleted"] == "true" and user["id"] not in current:
            raise slack_error(ErrorKind.INVALID_ARGUMENT, "invalid_users", f"{user['name']} is deactivated")
        if user["id"] not in wanted:
            wanted.append(user["id"])
    if not wanted:
        raise slack_error(
            ErrorKind.INVALID_ARGUMENT, "invalid_users", "a user group keeps at least one member"
        )
    for user_id, row in current.items():
        if user_id not in wanted:
            ENGINE.delete(ctx, "usergroup_member", row)
    for user_id in wanted:
        if user_id not in current:
            ENGINE.create(ctx, "usergroup_member", {"usergroup": group["id"], "user": user_id})
    changed = set(current) != set(wanted)
    trusted = {"user_count": str(len(wanted))}
    if changed:
        trusted["updated_by"] = ctx.identity.user_sys_id
    return ENGINE.update(
        ctx, "usergroup", ctx.store.get("usergroup", group["id"]) or group, {}, trusted=trusted
    )


def list_usergroups(ctx: CallContext, *, include_disabled: bool = False) -> list[Row]:
    """``usergroups.list``: the workspace's groups, by name."""
    where = "1" if include_disabled else "(date_delete = '' OR date_delete = '0')"
    rows, _ = ENGINE.query(ctx, "usergroup", where, order_by="name, id")
    return rows


def list_users(
    ctx: CallContext, *, query: str = "", include_deleted: bool = True, cursor: str | None = None,
    limit: int | None = None,
) -> Page:  # fmt: skip
    """``users.list`` (every member, deactivated ones too, as Slack lists them), a page at a time.

    ``query`` (task-level tools only) keeps members whose handle, names, e-mail or title holds
    every word.
    """
    conditions: list[str] = []
    params: list[str] = []
    for word in query.lower().split()[:8]:
        fields = ("name", "real_name", "display_name", "email", "title")
        conditions.append("(" + " OR ".join(f"instr(lower({field}), ?) > 0" for field in fields) + ")")
        params += [word] * len(fields)
    if not include_deleted:
        conditions.append("deleted != 'true'")
    offset, size = decode_cursor(cursor), page_limit(limit)
    rows, total = ENGINE.query(
        ctx,
        "user",
        " AND ".join(conditions) or "1",
        tuple(params),
        order_by="name, id",
        limit=size,
        offset=offset,
    )
    return Page(rows, offset, total)
