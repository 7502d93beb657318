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
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import OktaError, not_allowed_in_status, unlock_not_allowed
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.apps import deprovision_user, reconcile_user
from enterprise_envs.mocks.identity.services.common import system_delete
from enterprise_envs.mocks.identity.services.events import log_event

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "ACTIVATED",
    "MOVES",
    "STATUSES",
    "Move",
    "Outcome",
    "allowed_moves",
    "apply",
    "delete_user",
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
