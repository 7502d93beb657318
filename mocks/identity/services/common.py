"""What the identity services share: finding rows the way Okta names them, and Okta's 404s.

Okta names a user by id, login or login short name ("as long as the shortname is unambiguous",
its description says of every ``/users/{id}`` path); a group, app or factor by id. The task-level
tools also take an e-mail address and a group's name. Every lookup reads through the access
policy (:meth:`CallContext.authorize <enterprise_envs.mocks._core.backend.CallContext.authorize>`):
a row the caller may not see is Okta's 404, as if it did not exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.store import Row, like_literal
from enterprise_envs.mocks.identity.errors import OktaError, resource_not_found, validation_failed
from enterprise_envs.mocks.identity.records import ENGINE

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "OKTA_KINDS",
    "find_app",
    "find_group",
    "find_user",
    "get_row",
    "resolve_group",
    "resolve_user",
    "system_delete",
]

#: Okta's name for each table's object, in a 404's summary (``Resource not found: <id> (User)``).
OKTA_KINDS = {
    "user": "User",
    "group": "UserGroup",
    "app": "AppInstance",
    "app_user": "AppUser",
    "app_group": "ApplicationGroupAssignment",
    "factor": "UserFactor",
    "role_assignment": "RoleAssignment",
    "group_member": "GroupMembership",
    "log_event": "LogEvent",
}


def not_found(table: str, key: str) -> OktaError:
    """Okta's 404 for a ``table`` row named ``key``."""
    return resource_not_found(key, OKTA_KINDS.get(table, table))


def _visible(ctx: CallContext, table: str, row: Row | None, key: str) -> Row:
    if row is None:
        raise not_found(table, key)
    ctx.authorize(Operation.READ, table, row)
    return row


def get_row(ctx: CallContext, table: str, key: str) -> Row:
    """A row by its key, as the caller may see it, or Okta's 404."""
    row = ctx.store.get(table, key) if ENGINE.is_key(key) else None
    return _visible(ctx, table, row, key)


def find_user(ctx: CallContext, key: str) -> Row:
    """A user as ``/users/{id}`` names one: id, login, or an unambiguous login short name.

    Raises:
        OktaError: 404 E0000007 (``... (User)``) when nothing, or more than one user, matches.
    """
    row = ctx.store.get("user", key) if ENGINE.is_key(key) else None
    if row is None and key:
        row = ctx.store.find_one("user", "login", key)
        if row is None and "@" not in key:
            found = ctx.store.select(
                "user", "login LIKE CAST(? AS TEXT) ESCAPE '\\'", (like_literal(key) + "@%",), limit=2
            )
            # LIKE ignores case; a short name is matched as the login is, exactly.
            found = [match for match in found if match["login"].partition("@")[0] == key]
            row = found[0] if len(found) == 1 else None
    return _visible(ctx, "user", row, key)


def resolve_user(ctx: CallContext, text: str) -> Row:
    """A user as a person names one: id, login, short name or e-mail address, any case.

    Raises:
        OktaError: 404 when nobody matches; 400 E0000001 when several people do (say which).
    """
    key = text.strip()
    if ENGINE.is_key(key):
        row = ctx.store.get("user", key)
        if row is not None:
            return _visible(ctx, "user", row, key)
    for column in ("login", "email"):
        found = ctx.store.select("user", f'"{column}" = ? COLLATE NOCASE', (key,), limit=3)
        if len(found) == 1:
            return _visible(ctx, "user", found[0], key)
        if len(found) > 1:
            raise _ambiguous("user", key, [f"{row['displayName']} <{row['login']}>" for row in found])
    if "@" not in key and key:
        found = ctx.store.select(
            "user", "login LIKE CAST(? AS TEXT) ESCAPE '\\'", (like_literal(key) + "@%",), limit=3
        )
        found = [row for row in found if row["login"].partition("@")[0].lower() == key.lower()]
        if len(found) == 1:
            return _visible(ctx, "user", found[0], key)
        if len(found) > 1:
            raise _ambiguous("user", key, [f"{row['displayName']} <{row['login']}>" for row in found])
    raise not_found("user", key)


def find_group(ctx: CallContext, key: str) -> Row:
    """A group by id (``/groups/{groupId}``), or Okta's 404 (``... (UserGroup)``)."""
    return get_row(ctx, "group", key)


def resolve_group(ctx: CallContext, text: str) -> Row:
    """A group as a person names one: its id or its name, any case.

    Raises:
        OktaError: 404 when no group matches; 400 E0000001 when several share the name.
    """
    key = text.strip()
    if ENGINE.is_key(key) and ctx.store.get("group", key) is not None:
        return get_row(ctx, "group", key)
    found = ctx.store.select("group", '"name" = ? COLLATE NOCASE', (key,), limit=3)
    if len(found) > 1:
        raise _ambiguous("group", key, [f"{row['name']} ({row['id']})" for row in found])
    return _visible(ctx, "group", found[0] if found else None, key)


def find_app(ctx: CallContext, key: str) -> Row:
    """An app by id (``/apps/{appId}``), or Okta's 404 (``... (AppInstance)``)."""
    return get_row(ctx, "app", key)


def _ambiguous(table: str, key: str, names: list[str]) -> OktaError:
    return validation_failed(
        table,
        f"Several {OKTA_KINDS[table]} records match '{key}': {'; '.join(names)}. Use the id.",
    )


def system_delete(ctx: CallContext, table: str, row: Row) -> None:
    """Delete a row as a consequence of the caller's action (no access check), like ``system_update``.

    Used for what a rule removes on its own: the app assignments of a deactivated user, the rows of
    a deleted one.
    """
    ctx.store.delete(table, row[ctx.store.catalog[table].key_field])
