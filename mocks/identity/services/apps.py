"""App assignments: who holds an app, directly or through a group, and what follows from it.

Okta's rules, from its description and the captured assignments:

- A user holds an app directly (``scope`` ``USER``, ``POST /apps/{appId}/users``) or through a
  group the app is assigned to (``scope`` ``GROUP``: "assigns the app to each user that belongs
  to the group"). A direct assignment wins: assigning directly an app held through a group makes
  its scope ``USER``.
- Group reconciliation: joining a group grants its apps (an app user of scope ``GROUP``), leaving
  it revokes those no other group of the user grants; activation reconciles the same way ("the
  system performs group reconciliation during activation and assigns the user to all apps via
  direct or indirect relationships").
- Deactivation deprovisions the user from every assigned app ("the user is deprovisioned from all
  assigned apps"): their app users of active apps are removed. A deactivated user cannot be
  assigned an app (403 E0000038).
- Only active apps are assigned; an app user held through a group is removed by leaving the group,
  not directly (403 E0000006).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import not_allowed_in_status, okta_error, validation_failed
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.common import not_found, system_delete
from enterprise_envs.mocks.identity.services.events import log_event

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "app_user_of",
    "assign_user",
    "deprovision_user",
    "granted_app_ids",
    "reconcile_user",
    "unassign_user",
]

DEPROVISIONED = "DEPROVISIONED"


def app_user_of(ctx: CallContext, app_id: str, user_id: str) -> Row | None:
    """The app user of ``user_id`` on ``app_id``, if they hold the app."""
    found = ctx.store.select("app_user", '"appId" = ? AND "userId" = ?', (app_id, user_id), limit=1)
    return found[0] if found else None


def granted_app_ids(ctx: CallContext, user_id: str) -> list[str]:
    """The active apps the user's groups are assigned to, by id."""
    rows = ctx.store.conn.execute(
        """
        SELECT DISTINCT ag."appId" FROM app_group ag
        JOIN group_member gm ON gm."groupId" = ag."groupId"
        JOIN app a ON a.id = ag."appId"
        WHERE gm."userId" = ? AND a.status = 'ACTIVE'
        ORDER BY ag."appId"
        """,
        (user_id,),
    ).fetchall()
    return [row[0] for row in rows]


def _grant(ctx: CallContext, app: Row, user: Row, scope: str) -> Row:
    now = ctx.clock.now_text()
    return ENGINE.system_insert(
        ctx,
        "app_user",
        {
            "appId": app["id"],
            "userId": user["id"],
            "scope": scope,
            "status": "ACTIVE",
            "syncState": "DISABLED",
            "userName": user["login"],
            "statusChanged": now,
        },
    )


def reconcile_user(ctx: CallContext, user: Row) -> None:
    """Group reconciliation: grant the apps the user's groups hold, revoke group grants no group holds.

    A deactivated user holds nothing; direct (``USER``) assignments are never touched here.
    """
    if user["status"] == DEPROVISIONED:
        return
    granted = granted_app_ids(ctx, user["id"])
    held = {row["appId"]: row for row in ctx.store.select("app_user", '"userId" = ?', (user["id"],))}
    for app_id in granted:
        if app_id not in held:
            app = ctx.store.get("app", app_id)
            if app is not None:
                _grant(ctx, app, user, "GROUP")
                log_event(ctx, "application.user_membership.add", [("user", user), ("app", app)])
    wanted = set(granted)
    for app_id, row in held.items():
        if row["scope"] == "GROUP" and app_id not in wanted:
            system_delete(ctx, "app_user", row)
            app = ctx.store.get("app", app_id)
            if app is not None:
                log_event(ctx, "application.user_membership.remove", [("user", user), ("app", app)])


def deprovision_user(ctx: CallContext, user: Row) -> None:
    """Deactivation: remove the user's assignments to active apps (inactive apps keep theirs)."""
    for row in ctx.store.select("app_user", '"userId" = ?', (user["id"],)):
        app = ctx.store.get("app", row["appId"])
        if app is not None and app["status"] == "ACTIVE":
            system_delete(ctx, "app_user", row)
            log_event(ctx, "application.user_membership.remove", [("user", user), ("app", app)])


def assign_user(ctx: CallContext, app: Row, user: Row, values: Mapping[str, Any]) -> tuple[Row, bool]:
    """Assign ``user`` to ``app`` directly (``POST /apps/{appId}/users``).

    Args:
        ctx: Call context.
        app: The app.
        user: The user.
        values: What the client sent besides the user's id (``credentials.userName`` as
            ``userName``, ``scope``).

    Returns:
        The app user, and whether anything changed.

    Raises:
        OktaError: 403 E0000006 if the caller may not assign apps; 403 E0000038 for a deactivated
            user; 400 E0000001 for an inactive app or a scope other than ``USER``.
    """
    wanted = {"appId": app["id"], "userId": user["id"], "scope": "USER"}
    existing = app_user_of(ctx, app["id"], user["id"])
    ctx.intend(Operation.CREATE if existing is None else Operation.WRITE, "app_user", existing, wanted)
    ctx.authorize(Operation.CREATE, "app_user", None, wanted)
    if values.get("scope", "USER") != "USER":
        raise validation_failed("scope", "scope: a direct assignment has the scope USER")
    if user["status"] == DEPROVISIONED:
        raise not_allowed_in_status()
    if app["status"] != "ACTIVE":
        raise validation_failed("appId", f"appId: the app {app['label']} is not active")
    user_name = values.get("userName") or user["login"]
    if existing is not None:
        changes = {name: value for name, value in (("scope", "USER"), ("userName", user_name))
                   if existing[name] != value}  # fmt: skip
        if not changes:
            return existing, False
        row = ENGINE.update(ctx, "app_user", existing, changes)
        log_event(ctx, "application.user_membership.add", [("user", user), ("app", app)])
        return row, True
    now = ctx.clock.now_text()
    row = ENGINE.create(
        ctx,
        "app_user",
        {**wanted, "userName": user_name},
        trusted={"status": "ACTIVE", "syncState": "DISABLED", "statusChanged": now},
    )
    log_event(ctx, "application.user_membership.add", [("user", user), ("app", app)])
    return row, True


def unassign_user(ctx: CallContext, app: Row, user_id: str) -> None:
    """Remove a direct assignment (``DELETE /apps/{appId}/users/{userId}``).

    Raises:
        OktaError: 404 (``... (AppUser)``) if the user does not hold the app; 403 E0000006 if the
            caller may not, or the app is held through a group (leave the group instead).
    """
    row = app_user_of(ctx, app["id"], user_id)
    if row is None:
        raise not_found("app_user", user_id)
    ctx.intend(Operation.DELETE, "app_user", row)
    ctx.authorize(Operation.DELETE, "app_user", row)
    if row["scope"] == "GROUP":
        raise okta_error(
            ErrorKind.PERMISSION_DENIED,
            "E0000006",
            "You do not have permission to perform the requested action",
            ("The user holds this app through a group membership; remove them from the group instead.",),
        )
    ENGINE.delete(ctx, "app_user", row)
    user = ctx.store.get("user", user_id)
    if user is not None:
        log_event(ctx, "application.user_membership.remove", [("user", user), ("app", app)])
        # A direct assignment removed: the user may still hold the app through a group.
        reconcile_user(ctx, user)
