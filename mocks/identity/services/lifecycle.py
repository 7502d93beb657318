"""The user lifecycle: Okta's statuses and the operations that move a user between them.

:data:`MOVES` is the one table of transitions; every surface, the rendered ``_links`` and the
tests read it. Each entry says from which statuses an operation may start and where it leads,
from the operation's description in Okta's Management API (2026.06.3) and the captures:

========================  ==========================================  =============================
operation                 allowed from                                leads to
========================  ==========================================  =============================
``activate``              STAGED, DEPROVISIONED                       ACTIVE with a password, else
                                                                      PROVISIONED (the user finishes
                                                                      activation from the e-mail)
``reactivate``            PROVISIONED, RECOVERY                       unchanged (activation restarted)
``deactivate``            every status but DEPROVISIONED              DEPROVISIONED
``suspend``               ACTIVE                                      SUSPENDED
``unsuspend``             SUSPENDED                                   ACTIVE
``unlock``                LOCKED_OUT                                  ACTIVE
``reset_factors``         every status but DEPROVISIONED              unchanged (factors unenrolled)
``expire_password``       ACTIVE, PASSWORD_EXPIRED                    PASSWORD_EXPIRED
``reset_password``        ACTIVE, PASSWORD_EXPIRED, LOCKED_OUT,       RECOVERY
                          RECOVERY, PROVISIONED
``delete``                DEPROVISIONED                               deleted; from any other status
                                                                      a first delete deactivates
========================  ==========================================  =============================

Anything else is Okta's 403 E0000038 ``This operation is not allowed in the user's current
status.`` (captured for ``reactivate`` of a STAGED user), except ``unlock``, which answers 403
E0000032 ``Unlock is not allowed for this user.`` with the cause ``The user is not locked out.``
(captured for an ACTIVE user).

Every move is authorized against the caller's admin role first (403 E0000006), then checked
against the status, then written through the record engine (``lastUpdated`` stamped;
``statusChanged`` when the status changes, ``activated`` on activation) and recorded in the System
Log. Side effects: deactivation removes the user's assignments to active apps; activation
reconciles their group apps; resetting factors returns every enrolled factor to the unenrolled
state ``NOT_SETUP`` ("All MFA factor enrollments return to the unenrolled state").

A user's life starts with :func:`create_user` (``POST /users``): STAGED, or activated at once
(ACTIVE with a password or another authentication provider, PROVISIONED without a password,
PASSWORD_EXPIRED with ``nextLogin=changePassword``), a member of ``Everyone`` and of the groups it
names, ``user.lifecycle.create`` (and ``user.lifecycle.activate``) in the System Log.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import (
    OktaError,
    invalid_parameter,
    not_allowed_in_status,
    okta_error,
    unlock_not_allowed,
)
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.apps import deprovision_user, reconcile_user
from enterprise_envs.mocks.identity.services.common import get_row, system_delete
from enterprise_envs.mocks.identity.services.events import log_event

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "ACTIVATED",
    "MOVES",
    "NEW_USER_REQUIRED",
    "STATUSES",
    "Move",
    "NewUser",
    "Outcome",
    "allowed_moves",
    "apply",
    "create_user",
    "delete_user",
    "new_user_status",
    "one_time_token",
    "target_status",
]

#: Okta's user statuses (``UserStatus``).
STATUSES = (
    "STAGED",
    "PROVISIONED",
    "ACTIVE",
    "RECOVERY",
    "PASSWORD_EXPIRED",
    "LOCKED_OUT",
    "SUSPENDED",
    "DEPROVISIONED",
)
#: ``Move.to`` of activation: ACTIVE for a user with a password, PROVISIONED for one without.
ACTIVATED = "ACTIVE|PROVISIONED"
#: Factor statuses of an enrolled factor's unenrolled state.
UNENROLLED = "NOT_SETUP"
_ALL_BUT_DEPROVISIONED = frozenset(STATUSES) - {"DEPROVISIONED"}


@dataclass(frozen=True)
class Move:
    """One lifecycle operation.

    Attributes:
        name: Okta's word for it, as in ``/lifecycle/{name}`` (``delete`` is ``DELETE /users/{id}``).
        starts: The statuses it may start from.
        to: The status it leads to (``""``: unchanged; :data:`ACTIVATED`: by password).
        event: The System Log event it writes.
        link: The ``_links`` relation offering it on a user.
        refusal: The error for any other status.
    """

    name: str
    starts: frozenset[str]
    to: str
    event: str
    link: str
    refusal: Callable[[], OktaError] = not_allowed_in_status


#: Every lifecycle operation (see the module docstring's table).
MOVES: dict[str, Move] = {
    move.name: move
    for move in (
        Move("activate", frozenset({"STAGED", "DEPROVISIONED"}), ACTIVATED, "user.lifecycle.activate",
             "activate"),
        Move("reactivate", frozenset({"PROVISIONED", "RECOVERY"}), "", "user.lifecycle.reactivate",
             "reactivate"),
        Move("deactivate", _ALL_BUT_DEPROVISIONED, "DEPROVISIONED", "user.lifecycle.deactivate",
             "deactivate"),
        Move("suspend", frozenset({"ACTIVE"}), "SUSPENDED", "user.lifecycle.suspend", "suspend"),
        Move("unsuspend", frozenset({"SUSPENDED"}), "ACTIVE", "user.lifecycle.unsuspend", "unsuspend"),
        Move("unlock", frozenset({"LOCKED_OUT"}), "ACTIVE", "user.account.unlock", "unlock",
             unlock_not_allowed),
        Move("reset_factors", _ALL_BUT_DEPROVISIONED, "", "user.mfa.factor.reset_all", "resetFactors"),
        Move(
            "expire_password",
            frozenset({"ACTIVE", "PASSWORD_EXPIRED"}),
            "PASSWORD_EXPIRED",
            "user.account.expire_password",
            "expirePassword",
        ),
        Move(
            "reset_password",
            frozenset({"ACTIVE", "PASSWORD_EXPIRED", "LOCKED_OUT", "RECOVERY", "PROVISIONED"}),
            "RECOVERY",
            "user.account.reset_password",
            "resetPassword",
        ),
        Move("delete", frozenset({"DEPROVISIONED"}), "", "user.lifecycle.delete.initiated", ""),
    )
}  # fmt: skip


@dataclass(frozen=True)
class Outcome:
    """What a lifecycle operation did.

    Attributes:
        user: The user as stored after it (None once deleted).
        move: The operation that ran (a first ``delete`` runs ``deactivate``).
        token: A one-time token the operation issued (activation, password reset), or ``""``.
    """

    user: Row | None
    move: Move
    token: str = ""


def allowed_moves(status: str) -> list[Move]:
    """The operations a user of ``status`` may undergo, in :data:`MOVES` order."""
    return [move for move in MOVES.values() if status in move.starts]


def target_status(move: Move, user: Row) -> str:
    """Where ``move`` takes ``user`` (their current status when it leaves it unchanged)."""
    if move.to == ACTIVATED:
        return "ACTIVE" if user["passwordChanged"] else "PROVISIONED"
    return move.to or user["status"]


def one_time_token(ctx: CallContext, user: Row, purpose: str) -> str:
    """A one-time token (20 URL-safe characters), a digest of the user, the purpose and the time.

    Deterministic, so episodes replay; never stored (Okta keeps only its own hash).
    """
    digest = hashlib.sha256(f"{user['id']}\x1f{purpose}\x1f{ctx.clock.now_text()}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii")[:20]


def apply(ctx: CallContext, name: str, user: Row) -> Outcome:
    """Run lifecycle operation ``name`` on ``user`` as the caller.

    Args:
        ctx: Call context.
        name: A key of :data:`MOVES` other than ``delete`` (see :func:`delete_user`).
        user: The user's row.

    Returns:
        What happened.

    Raises:
        OktaError: 403 E0000006 if the caller's role may not do this to this user; the move's
            refusal (403 E0000038, or E0000032 for unlock) if the status does not allow it.
    """
    move = MOVES[name]
    target = target_status(move, user)
    change = {"status": target} if target != user["status"] else {}
    ctx.intend(Operation.WRITE, "user", user, change)
    ctx.authorize(Operation.WRITE, "user", user, change)
    if user["status"] not in move.starts:
        raise move.refusal()
    now = ctx.clock.now_text()
    trusted = dict(change)
    if change:
        trusted["statusChanged"] = now
    if move.name == "activate":
        trusted["activated"] = now
    updated = ENGINE.update(ctx, "user", user, {}, trusted=trusted)
    token = ""
    if move.name == "deactivate":
        deprovision_user(ctx, updated)
    elif move.name == "activate":
        reconcile_user(ctx, updated)
        token = one_time_token(ctx, updated, "activate")
    elif move.name == "reactivate":
        token = one_time_token(ctx, updated, "activate")
    elif move.name == "reset_password":
        token = one_time_token(ctx, updated, "reset_password")
    elif move.name == "reset_factors":
        for factor in ctx.store.select("factor", '"userId" = ? AND status != ?', (user["id"], UNENROLLED)):
            ENGINE.update(ctx, "factor", factor, {}, trusted={"status": UNENROLLED})
    log_event(ctx, move.event, [("user", updated)])
    return Outcome(updated, move, token)


def delete_user(ctx: CallContext, user: Row) -> Outcome:
    """``DELETE /users/{id}``: deactivate a user who is not deactivated yet; delete one who is.

    Deleting removes what hangs off the user: memberships, factors, app assignments and admin
    roles. The caller needs the right to delete users either way (a first delete is how a
    deletion starts).

    Raises:
        OktaError: 403 E0000006 if the caller may not delete users.
    """
    move = MOVES["delete"]
    ctx.intend(Operation.DELETE, "user", user)
    ctx.authorize(Operation.DELETE, "user", user)
    if user["status"] not in move.starts:
        return apply(ctx, "deactivate", user)
    for table in ("group_member", "factor", "app_user", "role_assignment"):
        for row in ctx.store.select(table, '"userId" = ?', (user["id"],)):
            system_delete(ctx, table, row)
    ENGINE.delete(ctx, "user", user)
    log_event(ctx, move.event, [("user", user)])
    return Outcome(None, move)


# -- creating a user -------------------------------------------------------------------------------

#: The profile properties Okta's base user schema requires of a new user.
NEW_USER_REQUIRED = ("firstName", "lastName", "email", "login")
#: ``nextLogin``'s one value: the password is expired at creation, changed at the first sign-in.
CHANGE_PASSWORD = "changePassword"
#: The authentication provider of a user Okta itself signs in.
OKTA_PROVIDER = "OKTA"
#: Providers that take neither a password nor a recovery question (the description says so).
_EXTERNAL_ONLY = frozenset({"FEDERATION", "SOCIAL"})
#: An e-mail address as Okta's default formats take one (login and e-mail properties).
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
#: Profile properties holding an e-mail address.
_EMAIL_PROPERTIES = ("email", "secondEmail")
#: Okta's default password policy, in its own words.
_PASSWORD_RULES = (
    "password: Password requirements were not met. Password requirements: at least 8 characters, "
    "a lowercase letter, an uppercase letter, a number, no parts of your username."
)
_MIN_PASSWORD = 8


@dataclass(frozen=True)
class NewUser:
    """What ``POST /users`` asks for (the request body and its query parameters).

    Attributes:
        profile: Profile properties (``None`` for an unset one).
        activate: Activate at once (Okta's default) or leave the user STAGED.
        password: The password (``credentials.password.value``), if one is set.
        recovery_question: ``credentials.recovery_question`` (``question``, ``answer``), if given.
        provider: Create the user with the authentication provider of ``provider_type``.
        provider_type: ``credentials.provider.type`` (``""``: none given).
        provider_name: ``credentials.provider.name`` (``""``: the type's).
        next_login: ``changePassword`` to expire the password at once, or ``""``.
        group_ids: The groups to add the user to (``groupIds``).
    """

    profile: Mapping[str, Any]
    activate: bool = True
    password: str | None = None
    recovery_question: Mapping[str, Any] | None = None
    provider: bool = False
    provider_type: str = ""
    provider_name: str = ""
    next_login: str = ""
    group_ids: Sequence[str] = ()


def _api_validation(causes: Sequence[tuple[str, str]]) -> OktaError:
    """400 E0000001 naming the first failed property, every failure a cause (``field: why``)."""
    return okta_error(
        ErrorKind.INVALID_ARGUMENT,
        "E0000001",
        f"Api validation failed: {causes[0][0]}",
        tuple(f"{name}: {why}" for name, why in causes),
    )


def _given(values: Mapping[str, Any], name: str) -> str:
    """A profile property's text (``""`` for none; a value of another type is the engine's to refuse)."""
    value = values.get(name)
    return value if isinstance(value, str) else ""


def _blank(values: Mapping[str, Any], name: str) -> bool:
    value = values.get(name)
    return value is None or (isinstance(value, str) and not value.strip())


def _profile_problems(values: Mapping[str, Any]) -> list[tuple[str, str]]:
    problems = [
        (name, "The field cannot be left blank") for name in NEW_USER_REQUIRED if _blank(values, name)
    ]
    for name in _EMAIL_PROPERTIES:
        text = _given(values, name)
        if text and not _EMAIL.fullmatch(text):
            problems.append((name, "Does not match required pattern"))
    login = _given(values, "login")
    if login.strip() and not _EMAIL.fullmatch(login):
        problems.append(("login", "Username must be in the form of an email address"))
    return problems


def _password_meets_policy(password: str, values: Mapping[str, Any]) -> bool:
    username = _given(values, "login").partition("@")[0].lower()
    return (
        len(password) >= _MIN_PASSWORD
        and any(char.islower() for char in password)
        and any(char.isupper() for char in password)
        and any(char.isdigit() for char in password)
        and not (username and username in password.lower())
    )


def _credential_problems(request: NewUser, values: Mapping[str, Any], provider: str) -> list[tuple[str, str]]:
    problems = []
    external = provider in _EXTERNAL_ONLY
    if request.password is not None:
        if external:
            problems.append(("password", f"A user of the {provider} provider takes no password"))
        elif not _password_meets_policy(request.password, values):
            problems.append(("password", _PASSWORD_RULES.removeprefix("password: ")))
    if request.recovery_question is not None:
        if external:
            problems.append(("recovery_question", f"A user of the {provider} provider takes none"))
        for part in ("question", "answer"):
            if not str(request.recovery_question.get(part) or "").strip():
                problems.append((f"recovery_question.{part}", "The field cannot be left blank"))
    return problems


def _provider_of(request: NewUser) -> str:
    """The user's authentication provider: OKTA unless ``provider`` asks for another one."""
    if request.provider:
        if not request.provider_type:
            raise invalid_parameter("credentials.provider", "provider=true needs credentials.provider.type")
        return request.provider_type
    if request.provider_type and request.provider_type != OKTA_PROVIDER:
        raise invalid_parameter(
            "credentials.provider",
            f"a user of the {request.provider_type} provider is created with provider=true",
        )
    return OKTA_PROVIDER


def new_user_status(request: NewUser, provider: str) -> str:
    """The status ``POST /users`` leaves a new user in (Okta's creation scenarios).

    STAGED unless activated; activated, ACTIVE with a password (PASSWORD_EXPIRED with
    ``nextLogin=changePassword``) or another provider (who signs them in), else PROVISIONED: the
    user sets a password from the activation e-mail.
    """
    if not request.activate:
        return "STAGED"
    if provider != OKTA_PROVIDER:
        return "ACTIVE"
    if request.password is None:
        return "PROVISIONED"
    return "PASSWORD_EXPIRED" if request.next_login == CHANGE_PASSWORD else "ACTIVE"


def _groups(ctx: CallContext, group_ids: Sequence[str]) -> list[Row]:
    """The groups ``groupIds`` names, each once, in order (400 for a malformed id, 404 for none)."""
    found: dict[str, Row] = {}
    for group_id in group_ids:
        if not ENGINE.is_key(group_id):
            raise invalid_parameter("groupIds", f"'{group_id[:40]}' is not a group id")
        found.setdefault(group_id, get_row(ctx, "group", group_id))
    return list(found.values())


def create_user(ctx: CallContext, request: NewUser) -> Row:
    """Create a user (``POST /users``), as Okta's description and creation scenarios have it.

    The access check first (a role that may not create users is refused whatever it sends), then
    Okta's validation, then the row through the record engine (id, ``created`` and
    ``lastUpdated`` from the engine; ``statusChanged``, ``activated`` and ``passwordChanged``
    from the world's clock); the user joins ``Everyone`` (Okta's doing: no event) and each group
    of ``groupIds`` (as :func:`.membership.add_member` would: logged, apps reconciled); the System
    Log gets ``user.lifecycle.create`` and, when activated, ``user.lifecycle.activate``. The
    password and the recovery answer are checked and never stored (``passwordChanged`` says a
    password is set).

    Args:
        ctx: Call context.
        request: The profile, credentials, groups and query parameters.

    Returns:
        The user as stored.

    Raises:
        OktaError: 403 E0000006 if the caller may not create users; 400 E0000001 for a required
            profile property left blank, an e-mail or login that is not an e-mail address, a login
            another user has, a password the policy refuses, ``nextLogin`` without activation, a
            provider without ``provider=true`` or a malformed group id (or a profile property the
            user schema lacks, a value too long); 404 E0000007 for a group that does not exist;
            403 E0000006 for a group whose members Okta manages (``BUILT_IN``, ``APP_GROUP``).
    """
    values = {name: "" if value is None else value for name, value in request.profile.items()}
    ctx.intend(Operation.CREATE, "user", None, values)
    ctx.authorize(Operation.CREATE, "user", None, values)
    provider = _provider_of(request)
    problems = _profile_problems(request.profile) + _credential_problems(request, values, provider)
    if problems:
        raise _api_validation(problems)
    if request.next_login and not request.activate:
        raise invalid_parameter(
            "nextLogin", f"{request.next_login} applies to a user created with activate=true"
        )
    groups = _groups(ctx, request.group_ids)
    status = new_user_status(request, provider)
    now = ctx.clock.now_text()
    activated = status != "STAGED"
    user = ENGINE.create(ctx, "user", values, trusted={
        "status": status,
        "statusChanged": now,
        "activated": now if activated else "",
        "passwordChanged": now if request.password is not None else "",
        "providerType": provider,
        "providerName": request.provider_name or provider,
    })  # fmt: skip
    log_event(ctx, "user.lifecycle.create", [("user", user)])
    everyone = ctx.store.select("group", "type = 'BUILT_IN' AND name = 'Everyone'", limit=1)
    if everyone:
        ENGINE.system_insert(ctx, "group_member", {"groupId": everyone[0]["id"], "userId": user["id"]})
    for group in groups:
        ENGINE.create(ctx, "group_member", {"groupId": group["id"], "userId": user["id"]})
    reconcile_user(ctx, user)
    if activated:
        log_event(ctx, MOVES["activate"].event, [("user", user)])
    return user
