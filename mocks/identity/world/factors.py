"""Enrolled MFA factors.

Users who have signed in at least once (every status but ``STAGED``, ``PROVISIONED`` and
``DEPROVISIONED``) enrolled factors by the bank's shares: most an Okta Verify push, many SMS,
some a TOTP app (Okta Verify's or Google Authenticator), a few e-mail, voice call, security
question or a security key; everyone enrolled has at least one. About 5% enrolled nothing yet,
and about 3% left one factor pending activation. The service accounts hold an Okta Verify TOTP.
"""

from __future__ import annotations

from enterprise_envs.mocks.identity.world.common import DAY, Plan, UserPlan, bank

#: Statuses of users who have enrolled factors.
_ENROLLED_STATUSES = frozenset({"ACTIVE", "LOCKED_OUT", "PASSWORD_EXPIRED", "SUSPENDED", "RECOVERY"})


def _kinds_for(plan: Plan, user: UserPlan) -> list[dict]:
    config = bank()["factors"]
    kinds = config["kinds"]
    if user.kind == "service":
        return [
            kind
            for kind in kinds
            if kind["factorType"] == "token:software:totp" and kind["provider"] == "OKTA"
        ]
    if plan.rng.random() < config["none_share"]:
        return []
    chosen = [kind for kind in kinds if plan.rng.random() < kind["share"]]
    return chosen or [kinds[0]]


def build_factors(plan: Plan) -> None:
    """Queue the ``factor`` rows."""
    pending_share = bank()["factors"]["pending_share"]
    rows = []
    for user in plan.users:
        if user.status not in _ENROLLED_STATUSES:
            continue
        kinds = _kinds_for(plan, user)
        pending = len(kinds) > 1 and plan.rng.random() < pending_share
        for index, kind in enumerate(kinds):
            enrolled = plan.between(user.activated, user.activated + 30 * DAY)
            is_pending = pending and index == len(kinds) - 1
            rows.append(
                {
                    "id": plan.factor_key(kind["factorType"], kind["provider"]),
                    "userId": user.id,
                    "factorType": kind["factorType"],
                    "provider": kind["provider"],
                    "vendorName": kind["vendorName"],
                    "status": "PENDING_ACTIVATION" if is_pending else "ACTIVE",
                    "created": plan.fmt(enrolled),
                    "lastUpdated": plan.fmt(plan.between(enrolled, enrolled + DAY)),
                }
            )
    plan.add("factor", rows)
