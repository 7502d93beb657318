"""The System Log the services write: one ``log_event`` per action, as Okta records it.

Every user created, lifecycle move, membership change, assignment and factor reset appends an
event naming the caller (``actor``) and what it acted on (``target``: users, groups, apps). Event
types and their display messages follow Okta's event types catalogue (the world's text bank uses
the same wording for the events it seeds: ``world/bank.json``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.records import ENGINE

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = ["EVENTS", "log_event", "target_of"]

#: Event type -> (display message, severity).
EVENTS: dict[str, tuple[str, str]] = {
    "user.lifecycle.create": ("Create Okta user", "INFO"),
    "user.lifecycle.activate": ("Activate Okta user", "INFO"),
    "user.lifecycle.reactivate": ("Reactivate Okta user", "INFO"),
    "user.lifecycle.deactivate": ("Deactivate Okta user", "INFO"),
    "user.lifecycle.suspend": ("Suspend Okta user", "INFO"),
    "user.lifecycle.unsuspend": ("Unsuspend Okta user", "INFO"),
    "user.lifecycle.delete.initiated": ("Delete Okta user", "INFO"),
    "user.account.unlock": ("Unlock user account", "INFO"),
    "user.account.expire_password": ("Expire user password", "INFO"),
    "user.account.reset_password": ("Reset user password", "INFO"),
    "user.account.update_profile": ("Update user profile for Okta", "INFO"),
    "user.mfa.factor.reset_all": ("Reset all factors for user", "INFO"),
    "user.mfa.factor.deactivate": ("Reset factor for user", "INFO"),
    "group.user_membership.add": ("Add user to group membership", "INFO"),
    "group.user_membership.remove": ("Remove user from group membership", "INFO"),
    "application.user_membership.add": ("Add user to application membership", "INFO"),
    "application.user_membership.remove": ("Remove user from application membership", "INFO"),
    "application.user_membership.change_username": ("Change users application username", "INFO"),
    "user.account.privilege.grant": ("Grant user privilege", "INFO"),
    "user.account.privilege.revoke": ("Revoke user privilege", "INFO"),
}

#: Okta's target ``type`` for each table's rows.
_TARGET_TYPES = {"user": "User", "group": "UserGroup", "app": "AppInstance", "factor": "Factor"}


def target_of(table: str, row: Row) -> dict[str, str]:
    """One ``target`` entry: ``{id, type, alternateId, displayName}`` as Okta writes them."""
    if table == "user":
        # A user's name in the log is their full name (a profile's displayName is optional).
        name = row["displayName"] or f"{row['firstName']} {row['lastName']}".strip()
        return {"id": row["id"], "type": "User", "alternateId": row["login"], "displayName": name}
    if table == "group":
        return {"id": row["id"], "type": "UserGroup", "alternateId": "unknown", "displayName": row["name"]}
    if table == "app":
        return {
            "id": row["id"],
            "type": "AppInstance",
            "alternateId": row["label"],
            "displayName": row["label"],
        }
    return {"id": row["id"], "type": _TARGET_TYPES.get(table, table), "alternateId": "", "displayName": ""}


def log_event(ctx: CallContext, event_type: str, targets: Iterable[tuple[str, Row]]) -> Row:
    """Append one System Log event by the caller about ``targets`` ((table, row) pairs)."""
    message, severity = EVENTS[event_type]
    actor = ctx.store.get("user", ctx.identity.user_sys_id) or {}
    return ENGINE.system_insert(
        ctx,
        "log_event",
        {
            "published": ctx.clock.now_text(),
            "eventType": event_type,
            "displayMessage": message,
            "severity": severity,
            "version": "0",
            "actorId": ctx.identity.user_sys_id,
            "actorType": "User",
            "actorAlternateId": actor.get("login", ctx.identity.user_name),
            "actorDisplayName": actor.get("displayName", ""),
            "target": json.dumps([target_of(table, row) for table, row in targets], separators=(",", ":")),
            "outcomeResult": "SUCCESS",
        },
    )
