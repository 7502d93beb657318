"""What the ITSM system tells a person on its own: the only state a simulated user sees.

Modelled on the vendor's base-system email notifications to end users: a caller hears when an
incident is opened for them, when someone adds an *additional comment* (work notes are internal
and send nothing), when it is resolved and when it is reopened; a requester hears when a request
is opened for them or on their behalf; whoever requested a change hears it was raised. A person
also notices a change to their own access (a role or a group membership appears in their own
account). Each notice shows the record's number and the fields listed here, nothing else:
category, priority, assignment group, notes and the rest stay hidden from the user.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.observables import NotificationRule

RESOLVED = ("6",)
CLOSED_OR_RESOLVED = ("6", "7")
OPEN_STATES = ("1", "2", "3")

ITSM_NOTIFICATIONS: tuple[NotificationRule, ...] = (
    NotificationRule(
        "incident.opened", "incident", "insert", ("caller_id",), ("number", "short_description", "state")
    ),
    NotificationRule(
        "incident.commented",
        "sys_journal_field",
        "insert",
        ("caller_id",),
        ("value",),
        when={"element": ("comments",), "name": ("incident",)},
        about=("name", "element_id"),
    ),
    NotificationRule(
        "incident.resolved",
        "incident",
        "update",
        ("caller_id",),
        ("number", "short_description", "state", "close_notes"),
        when={"state": RESOLVED},
        changed=("state",),
    ),
    NotificationRule(
        "incident.reopened",
        "incident",
        "update",
        ("caller_id",),
        ("number", "short_description", "state"),
        when={"state": OPEN_STATES},
        was={"state": CLOSED_OR_RESOLVED},
    ),
    NotificationRule(
        "sc_request.opened",
        "sc_request",
        "insert",
        ("requested_for", "opened_by"),
        ("number", "requested_for"),
    ),
    NotificationRule(
        "change_request.opened",
        "change_request",
        "insert",
        ("requested_by",),
        ("number", "short_description"),
    ),
    NotificationRule(
        "sys_user.roles_changed", "sys_user", "update", ("sys_id",), ("roles",), changed=("roles",)
    ),
    NotificationRule("sys_user_grmember.added", "sys_user_grmember", "insert", ("user",), ("group",)),
)
