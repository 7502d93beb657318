"""Problem business rules: forward-only state model, resolution data policies, derived priority.

Source: spec/itsm_behavior_rules.json (``problem``): the Madrid-and-later state model (New,
Assess, Root Cause Analysis, Fix in Progress, Resolved, Closed), the fields each resolution code
requires, and "assigned_to required beyond New".
"""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import bad_request, business_rule
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.common import derive_priority, refuse_frozen, require
from enterprise_envs.mocks.itsm.tables import behaviour_rules

_RULES = behaviour_rules()["problem"]
STATE_LABELS: dict[str, str] = dict(_RULES["states"])
#: The states in their only allowed order: a problem moves forward (skipping is allowed).
STATE_ORDER: tuple[str, ...] = tuple(STATE_LABELS)
NEW, RESOLVED, CLOSED = "101", "106", "107"
TERMINAL_STATES = frozenset({CLOSED})
#: Entering these needs a resolution code and the fields that code requires.
RESOLUTION_STATES = frozenset({RESOLVED, CLOSED})
RESOLUTION_REQUIREMENTS: dict[str, tuple[str, ...]] = {
    code: tuple(fields) for code, fields in _RULES["resolution_code_requirements"].items()
}
#: Base-instance values every new task record carries.
TASK_DEFAULTS = {
    "escalation": "0",
    "knowledge": "false",
    "made_sla": "true",
    "reassignment_count": "0",
    "approval": "not requested",
}


class ProblemRules(records.TableRules):
    """The problem table's business rules."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """A new problem: New, low impact and urgency, opened now by the caller."""
        return {
            "state": NEW,
            "problem_state": NEW,
            "impact": "3",
            "urgency": "3",
            "active": "true",
            "known_error": "false",
            "opened_at": ctx.clock.now_text(),
            "opened_by": ctx.identity.user_sys_id,
            **TASK_DEFAULTS,
            "related_incidents": "0",
        }

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """A new problem needs a short description, then the same rules as an update."""
        require(ctx, "problem", new, ("short_description",))
        self._apply(ctx, None, new, supplied)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Closed problems are frozen; everything else goes through the state model."""
        refuse_frozen("Problem", old, TERMINAL_STATES, STATE_LABELS)
        self._apply(ctx, old, new, supplied)

    # -- rules ---------------------------------------------------------------------------------

    def _apply(self, ctx: CallContext, old: Row | None, new: Row, supplied: Mapping[str, str]) -> None:
        derive_priority(old, new, supplied)
        before = old["state"] if old else NEW
        after = new["state"]
        if (
            old is not None
            and ctx.settings["enforce_state_transitions"]
            and STATE_ORDER.index(after) < STATE_ORDER.index(before)
        ):
            raise business_rule(
                f"Invalid state transition for {new['number']}: "
                f"{STATE_LABELS[before]} to {STATE_LABELS[after]} is not allowed (problems only move forward)"
            )
        if new["duplicate_of"] and new["duplicate_of"] == new["sys_id"]:
            raise bad_request(
                "Invalid reference for duplicate_of", "A problem cannot be a duplicate of itself"
            )
        require(ctx, "problem", new, _required_fields(new))
        new["problem_state"] = after
        new["active"] = "false" if after == CLOSED else "true"
        if after == CLOSED and before != CLOSED:
            new["closed_at"], new["closed_by"] = ctx.clock.now_text(), ctx.identity.user_sys_id


def recount_related_incidents(ctx: CallContext, problem_sys_id: str) -> None:
    """Keep a problem's ``related_incidents`` equal to the number of incidents linked to it.

    For the incident rules to call when an incident's ``problem_id`` changes (the count is
    bookkeeping, written with the system's rights like a parent incident's child count).
    """
    problem = ctx.store.get("problem", problem_sys_id)
    if problem is None:
        return
    count = ctx.store.count("incident", "problem_id = ?", (problem_sys_id,))
    records.system_update(ctx, "problem", problem, {"related_incidents": str(count)})


def _required_fields(row: Row) -> tuple[str, ...]:
    """The fields the data policies require in the row's state (and resolution code)."""
    state = row["state"]
    fields: list[str] = []
    if state != NEW:
        fields.append("assigned_to")
    if state in RESOLUTION_STATES:
        fields.append("resolution_code")
        fields.extend(RESOLUTION_REQUIREMENTS.get(row["resolution_code"], ()))
    return tuple(fields)
