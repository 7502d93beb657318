"""Enrolled MFA factors: listing them and unenrolling one.

A factor the user unenrolled (one by one, or all at once by ``reset_factors``) returns to Okta's
unenrolled state, ``NOT_SETUP``: it is no longer listed nor found (``listFactors`` "lists all
enrolled factors"), and a factor of a deactivated user cannot be unenrolled ("You can't unenroll
a factor from a deactivated user": 403 E0000038).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import not_allowed_in_status
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.common import not_found
from enterprise_envs.mocks.identity.services.events import log_event
from enterprise_envs.mocks.identity.services.lifecycle import UNENROLLED

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = ["enrolled_factors", "find_factor", "unenroll_factor"]


def enrolled_factors(ctx: CallContext, user: Row) -> list[Row]:
    """The user's enrolled factors (any status but the unenrolled one), oldest first."""
    rows, _ = ENGINE.query(
        ctx, "factor", '"userId" = ? AND status != ?', (user["id"], UNENROLLED), order_by="created, id"
    )
    return rows


def find_factor(ctx: CallContext, user: Row, factor_id: str) -> Row:
    """One of the user's enrolled factors by id, or Okta's 404 (``... (UserFactor)``)."""
    row = ctx.store.get("factor", factor_id) if ENGINE.is_key(factor_id) else None
    if row is None or row["userId"] != user["id"] or row["status"] == UNENROLLED:
        raise not_found("factor", factor_id)
    ctx.authorize(Operation.READ, "factor", row)
    return row


def unenroll_factor(ctx: CallContext, user: Row, factor: Row) -> Row:
    """Unenroll one factor (``DELETE /users/{userId}/factors/{factorId}``).

    Raises:
        OktaError: 403 E0000006 if the caller may not; 403 E0000038 for a deactivated user.
    """
    ctx.intend(Operation.WRITE, "factor", factor, {"status": UNENROLLED})
    ctx.authorize(Operation.WRITE, "factor", factor, {"status": UNENROLLED})
    if user["status"] == "DEPROVISIONED":
        raise not_allowed_in_status()
    row = ENGINE.update(ctx, "factor", factor, {}, trusted={"status": UNENROLLED})
    log_event(ctx, "user.mfa.factor.deactivate", [("user", user), ("factor", factor)])
    return row
