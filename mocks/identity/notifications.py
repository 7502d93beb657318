"""What the identity system tells a person on its own: the only state a simulated user sees.

Modelled on Okta's end-user e-mails and on what a person notices of their own account:

- ``user.account.unlock``: their locked account was unlocked (they can sign in again);
- ``user.lifecycle.unsuspend``: their suspended account works again;
- ``user.lifecycle.activate``: the activation e-mail of a new or returning account;
- ``user.account.reset_password``: the password-reset e-mail (the account is in ``RECOVERY``);
- ``user.mfa.factor.reset``: one of their enrolled factors was reset (one notice per factor;
  Okta's "MFA factor reset" e-mail), whether by ``reset_factors`` or by unenrolling it;
- ``group_member.added`` and ``app_user.added``: a group or an app tile appears in their account.

Each notice shows the fields listed and nothing else: the account's login and status, the
factor's type, the group's name, the app's label. A suspension, a deactivation or an expired
password sends nothing the person can read here (they find out when they next sign in).
"""

from __future__ import annotations

from enterprise_envs.mocks._core.observables import NotificationRule

IDENTITY_NOTIFICATIONS: tuple[NotificationRule, ...] = (
    NotificationRule(
        "user.account.unlock",
        "user",
        "update",
        ("id",),
        ("login", "status"),
        when={"status": ("ACTIVE",)},
        was={"status": ("LOCKED_OUT",)},
    ),
    NotificationRule(
        "user.lifecycle.unsuspend",
        "user",
        "update",
        ("id",),
        ("login", "status"),
        when={"status": ("ACTIVE",)},
        was={"status": ("SUSPENDED",)},
    ),
    NotificationRule(
        "user.lifecycle.activate",
        "user",
        "update",
        ("id",),
        ("login", "status"),
        when={"status": ("ACTIVE", "PROVISIONED")},
        was={"status": ("STAGED", "DEPROVISIONED")},
    ),
    NotificationRule(
        "user.account.reset_password",
        "user",
        "update",
        ("id",),
        ("login",),
        when={"status": ("RECOVERY",)},
        changed=("status",),
    ),
    NotificationRule(
        "user.mfa.factor.reset",
        "factor",
        "update",
        ("userId",),
        ("factorType",),
        when={"status": ("NOT_SETUP",)},
        changed=("status",),
    ),
    NotificationRule("group_member.added", "group_member", "insert", ("userId",), ("groupId",)),
    NotificationRule("app_user.added", "app_user", "insert", ("userId",), ("appId",)),
)
