"""Incident business rules: state model, data policies, derived priority, reopen, assignment.

Source: spec/itsm_behavior_rules.json (``incident``). Where the rules file marks a behaviour as
convention, an instance setting switches it (see ``ITSM_SETTINGS``).
"""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.schema import FieldSpec
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import bad_request, business_rule
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.common import (
    check_assignee_in_group,
    derive_priority,
    refuse_frozen,
    require,
    track_reassignment,
)
from enterprise_envs.mocks.itsm.services.problem import recount_related_incidents
from enterprise_envs.mocks.itsm.tables import behaviour_rules

_RULES = behaviour_rules()["incident"]
STATE_LABELS: dict[str, str] = dict(_RULES["states"])
ACTIVE_STATES = frozenset(_RULES["active"]["true_states"])
TERMINAL_STATES = frozenset(
    state for state, nexts in _RULES["transitions"].items() if not isinstance(nexts, str) and not nexts
)
#: Allowed moves; "2 (reopen)" in the rules file is the reopen path from Resolved.
TRANSITIONS: dict[str, frozenset[str]] = {
    state: frozenset(step.split()[0] for step in nexts)
    for state, nexts in _RULES["transitions"].items()
    if state != "basis"
}
REQUIRED_ON_STATE: dict[str, tuple[str, ...]] = {
    state: tuple(fields) for state, fields in _RULES["required_on_state"].items() if state != "basis"
}
RESOLVED, CLOSED, CANCELED, ON_HOLD, IN_PROGRESS, NEW = "6", "7", "8", "3", "2", "1"
AWAITING_CALLER = "1"


class IncidentRules(records.TableRules):
    """The incident table's business rules."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """A new incident: New, moderate impact and urgency, opened now by the caller."""
        return {
            "state": NEW,
            "impact": "3",
            "urgency": "3",
            "active": "true",
            "opened_at": ctx.clock.now_text(),
            "opened_by": ctx.identity.user_sys_id,
            "notify": "1",
            "severity": "3",
            "escalation": "0",
            "approval": "not requested",
            "made_sla": "true",
            "knowledge": "false",
            "reassignment_count": "0",
            "child_incidents": "0",
        }

    def choices(self, ctx: CallContext, spec: FieldSpec) -> Mapping[str, str] | None:
        """Resolution codes are instance-configurable (current or legacy lists)."""
        if spec.name == "close_code":
            return {code: code for code in ctx.settings["incident_close_codes"]}
        return spec.choices

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """New incidents need a caller and a short description, then the same rules as updates."""
        require(ctx, "incident", new, ("caller_id", "short_description"))
        self._apply(ctx, None, new, supplied)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Terminal records are frozen; everything else goes through the state model."""
        refuse_frozen("Incident", old, TERMINAL_STATES, STATE_LABELS)
        self._caller_reply(ctx, old, new, supplied)
        self._apply(ctx, old, new, supplied)

    def before_delete(self, ctx: CallContext, old: Row) -> None:
        """Deleting is allowed to the roles the access policy lets through."""

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Keep counts on parents true: a parent incident's children, a problem's incidents."""
        for field, recount in (
            ("parent_incident", _recount_children),
            ("problem_id", recount_related_incidents),
        ):
            before = old[field] if old else ""
            after = new[field] if new else ""
            if before != after or new is None:
                for parent in sorted({before, after} - {""}):
                    recount(ctx, parent)

    # -- rules ---------------------------------------------------------------------------------

    def _apply(self, ctx: CallContext, old: Row | None, new: Row, supplied: Mapping[str, str]) -> None:
        derive_priority(old, new, supplied)
        self._state(ctx, old, new)
        new["incident_state"] = new["state"]
        new["active"] = "true" if new["state"] in ACTIVE_STATES else "false"
        if new["parent_incident"] and new["parent_incident"] == new["sys_id"]:
            raise bad_request("Invalid reference for parent_incident", "An incident cannot be its own parent")
        track_reassignment(old, new, supplied)
        if ctx.settings["assigned_to_must_be_group_member"]:
            check_assignee_in_group(ctx, new)

    def _state(self, ctx: CallContext, old: Row | None, new: Row) -> None:
        before = old["state"] if old else NEW
        after = new["state"]
        moving = old is not None and after != before
        if moving and ctx.settings["enforce_state_transitions"] and after not in TRANSITIONS.get(before, ()):
            raise business_rule(
                f"Invalid state transition for {new['number']}: "
                f"{STATE_LABELS[before]} to {STATE_LABELS[after]} is not allowed"
            )
        if after != ON_HOLD:
            new["hold_reason"] = ""
        if old is not None and before == RESOLVED and after == IN_PROGRESS:
            _reopen(ctx, new)
        require(ctx, "incident", new, REQUIRED_ON_STATE.get(after, ()))
        now, me = ctx.clock.now_text(), ctx.identity.user_sys_id
        if after in (RESOLVED, CLOSED) and before not in (RESOLVED, CLOSED):
            new["resolved_at"] = new["resolved_at"] or now
            new["resolved_by"] = new["resolved_by"] or me
        if after == CLOSED and before != CLOSED:
            new["closed_at"], new["closed_by"] = now, me

    def _caller_reply(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """The caller answering an 'Awaiting Caller' hold puts the incident back in progress."""
        if (
            "comments" in supplied
            and old["state"] == ON_HOLD
            and old["hold_reason"] == AWAITING_CALLER
            and ctx.identity.user_sys_id == old["caller_id"]
            and "state" not in supplied
        ):
            new["state"] = IN_PROGRESS


def _reopen(ctx: CallContext, new: Row) -> None:
    new["reopen_count"] = str(int(new["reopen_count"] or 0) + 1)
    new["reopened_by"] = ctx.identity.user_sys_id
    new["reopened_time"] = ctx.clock.now_text()
    # A reopened incident must be resolved again with a fresh resolution.
    for name in ("resolved_at", "resolved_by", "close_code", "close_notes"):
        new[name] = ""


def _recount_children(ctx: CallContext, parent_sys_id: str) -> None:
    parent = ctx.store.get("incident", parent_sys_id)
    if parent is None:
        return
    count = ctx.store.count("incident", "parent_incident = ?", (parent_sys_id,))
    records.system_update(ctx, "incident", parent, {"child_incidents": str(count)})
