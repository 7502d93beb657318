"""Group membership: ``PUT`` and ``DELETE /groups/{groupId}/users/{userId}``, idempotent as Okta's.

Rules (Okta's description): only an ``OKTA_GROUP``'s memberships may be changed ("App imports
are responsible for managing group memberships for groups of the ``APP_GROUP`` type"; the
``BUILT_IN`` groups are Okta's); adding a member who is already one, or removing someone who is
not, changes nothing and answers 204 all the same. A change stamps the group's
``lastMembershipUpdated``, reconciles the user's apps (:func:`.apps.reconcile_user`) and writes
``group.user_membership.add`` / ``.remove`` to the System Log.

:class:`GroupMemberRules` holds the rules on the ``group_member`` table, so any write of it
through the engine obeys them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.records import TableRules
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import group_not_modifiable
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.apps import reconcile_user
from enterprise_envs.mocks.identity.services.events import log_event

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = ["GroupMemberRules", "add_member", "membership", "remove_member"]

OKTA_GROUP = "OKTA_GROUP"


def membership(ctx: CallContext, group_id: str, user_id: str) -> Row | None:
    """The membership row of ``user_id`` in ``group_id``, if any."""
    found = ctx.store.select("group_member", '"groupId" = ? AND "userId" = ?', (group_id, user_id), limit=1)
    return found[0] if found else None


def _modifiable(ctx: CallContext, group_id: str) -> None:
    group = ctx.store.get("group", group_id)
    if group is not None and group["type"] != OKTA_GROUP:
        raise group_not_modifiable(group["type"])


class GroupMemberRules(TableRules):
    """Rules on ``group_member`` rows: OKTA_GROUPs only; what a change sets off."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """Refuse a membership of a group that is not an OKTA_GROUP."""
        _modifiable(ctx, new["groupId"])

    def before_delete(self, ctx: CallContext, old: Row) -> None:
        """Refuse removing a member of a group that is not an OKTA_GROUP."""
        _modifiable(ctx, old["groupId"])

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Stamp the group, reconcile the user's apps and log the change."""
        row = new if new is not None else old
        if row is None:
            return
        group = ctx.store.get("group", row["groupId"])
        user = ctx.store.get("user", row["userId"])
        if group is None or user is None:
            return
        # A derived stamp, not a change to the group's profile: lastUpdated stays as it is.
        ctx.store.update("group", group["id"], {"lastMembershipUpdated": ctx.clock.now_text()})
        event = "group.user_membership.add" if new is not None else "group.user_membership.remove"
        log_event(ctx, event, [("user", user), ("group", group)])
        reconcile_user(ctx, user)


def add_member(ctx: CallContext, group: Row, user: Row) -> bool:
    """Make ``user`` a member of ``group`` (``PUT``); False if they already were (nothing changes).

    Raises:
        OktaError: 403 E0000006 if the caller may not manage this group or user, or the group is
            not an OKTA_GROUP.
    """
    values = {"groupId": group["id"], "userId": user["id"]}
    ctx.intend(Operation.CREATE, "group_member", None, values)
    # The access check and the group's type first, so an idempotent PUT is refused alike.
    ctx.authorize(Operation.CREATE, "group_member", None, values)
    _modifiable(ctx, group["id"])
    if membership(ctx, group["id"], user["id"]) is not None:
        return False
    ENGINE.create(ctx, "group_member", values)
    return True


def remove_member(ctx: CallContext, group: Row, user: Row) -> bool:
    """Remove ``user`` from ``group`` (``DELETE``); False if they were not a member (nothing changes).

    Raises:
        OktaError: as :func:`add_member`.
    """
    row = membership(ctx, group["id"], user["id"])
    subject = row or {"id": "", "groupId": group["id"], "userId": user["id"]}
    ctx.intend(Operation.DELETE, "group_member", row, {"groupId": group["id"], "userId": user["id"]})
    ctx.authorize(Operation.DELETE, "group_member", subject)
    _modifiable(ctx, group["id"])
    if row is None:
        return False
    ENGINE.delete(ctx, "group_member", row)
    return True
