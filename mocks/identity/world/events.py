"""The System Log: the events that explain each user's current state, within Okta's retention.

Okta keeps System Log events for 90 days (``bank.json``: ``log_retention_days``), so only what
happened since then is there: an account created or activated, locked out (by the user's own
failed sign-ins), its password expired or reset, suspended or deactivated by an administrator,
and each user's latest sign-in. The lifecycle services write the same events as they act.
Event wording (``eventType``, ``displayMessage``) follows Okta's event types catalogue; it is
not in the shipped sources.
"""

from __future__ import annotations

import json

from enterprise_envs.mocks.identity.world.common import DAY, Plan, UserPlan, bank

#: The event recording each status an administrator or the user's sign-ins set.
_STATUS_EVENTS = {
    "LOCKED_OUT": "user.account.lock",
    "PASSWORD_EXPIRED": "user.account.expire_password",
    "SUSPENDED": "user.lifecycle.suspend",
    "RECOVERY": "user.account.reset_password",
    "DEPROVISIONED": "user.lifecycle.deactivate",
}
#: Events the user's own actions cause (the others are an administrator's).
_SELF_EVENTS = frozenset({"user.account.lock", "user.session.start"})


def _target(user: UserPlan) -> str:
    """A ``target`` list naming one user, as JSON text."""
    entry = {"id": user.id, "type": "User", "alternateId": user.login, "displayName": user.display_name}
    return json.dumps([entry], separators=(",", ":"))


def event_row(plan: Plan, event_type: str, published: int, actor: UserPlan, target: UserPlan | None) -> dict:
    """One ``log_event`` row (``target`` None: an event about the actor alone)."""
    wording = bank()["events"][event_type]
    return {
        "uuid": plan.event_key(),
        "published": plan.fmt(published),
        "eventType": event_type,
        "displayMessage": wording["message"],
        "severity": wording["severity"],
        "version": "0",
        "actorId": actor.id,
        "actorType": "User",
        "actorAlternateId": actor.login,
        "actorDisplayName": actor.display_name,
        "target": _target(target) if target else "[]",
        "outcomeResult": "SUCCESS",
    }


def build_events(plan: Plan) -> None:
    """Queue the ``log_event`` rows, oldest first."""
    since = plan.now - bank()["log_retention_days"] * DAY
    admins = sorted(
        (
            user
            for user in plan.users
            if user.status == "ACTIVE" and ("SUPER_ADMIN" in user.roles or user.admin_groups)
        ),
        key=lambda user: user.short,
    )
    planned: list[tuple[int, str, UserPlan, UserPlan | None]] = []
    for user in plan.users:
        moments = [("user.lifecycle.create", user.created), ("user.lifecycle.activate", user.activated)]
        if user.status in _STATUS_EVENTS:
            moments.append((_STATUS_EVENTS[user.status], user.status_changed))
        moments.append(("user.session.start", user.last_login))
        for event_type, moment in moments:
            if not moment or moment < since:
                continue
            if event_type in _SELF_EVENTS:
                planned.append(
                    (moment, event_type, user, None if event_type == "user.session.start" else user)
                )
            else:
                planned.append((moment, event_type, plan.rng.choice(admins), user))
    # Stable: events at the same second keep their planning order.
    planned.sort(key=lambda event: event[0])
    plan.add(
        "log_event", [event_row(plan, kind, moment, actor, target) for moment, kind, actor, target in planned]
    )
