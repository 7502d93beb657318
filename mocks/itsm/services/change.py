"""Change request business rules: the per-type state flows, the approval engine, data policies.

Source: spec/itsm_behavior_rules.json (``change_request``). A change starts New; submitting it
moves it to its type's next state: a normal change to Assess (technical approval by the
assignment group's manager), an emergency change to Authorize (Change Advisory Board), a
standard change straight to Scheduled (pre-approved). Only the approval engine moves a change
out of Assess or Authorize: it runs when an approver sets their ``sysapproval_approver`` row to
approved or rejected, whichever surface they use. After Scheduled the change moves one step at a
time through Implement and Review to Closed.
"""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import (
    bad_request,
    business_rule,
    read_only_fields,
)
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.common import refuse_frozen, require
from enterprise_envs.mocks.itsm.services.problem import TASK_DEFAULTS
from enterprise_envs.mocks.itsm.tables import behaviour_rules

_RULES = behaviour_rules()["change_request"]
STATE_LABELS: dict[str, str] = dict(_RULES["states"])
APPROVAL_LABELS: dict[str, str] = dict(_RULES["approval"]["values"])
FLOWS: dict[str, tuple[str, ...]] = {kind: tuple(states) for kind, states in _RULES["flows"].items()}
CANCEL_FROM = frozenset(_RULES["cancel"]["allowed_from"])
CLOSE_FIELDS: tuple[str, ...] = tuple(_RULES["required"]["close"])
NEW, ASSESS, AUTHORIZE, SCHEDULED = "-5", "-4", "-3", "-2"
IMPLEMENT, REVIEW, CLOSED, CANCELED = "-1", "0", "3", "4"
TERMINAL_STATES = frozenset({CLOSED, CANCELED})
INACTIVE_STATES = frozenset({CLOSED, CANCELED})
#: "assignment_group required for states -4..3": every state of the normal flow after New.
GROUP_REQUIRED_STATES = frozenset(FLOWS["normal"][1:])
#: States in which the change waits for its approvers.
APPROVAL_STAGES = frozenset({ASSESS, AUTHORIZE})
#: Per type, the states only an approval can move a change into (the state after an approval stage).
APPROVAL_GATED: dict[str, frozenset[str]] = {
    kind: frozenset(flow[i + 1] for i, state in enumerate(flow[:-1]) if state in APPROVAL_STAGES)
    for kind, flow in FLOWS.items()
}
CAB_GROUP = "Change Advisory Board"
APPROVER_ROLE = "approver"

# sysapproval_approver states
REQUESTED, APPROVED, REJECTED, CANCELLED, NOT_REQUIRED = (
    "requested",
    "approved",
    "rejected",
    "cancelled",
    "not_required",
)
#: Approval fields set by the workflow, never by the approver.
_APPROVAL_FIXED = ("approver", "sysapproval", "source_table", "group")


def next_state(row: Row) -> str:
    """The state a New change moves to when submitted (by its type's flow)."""
    return FLOWS[row["type"]][1]


class ChangeRequestRules(records.TableRules):
    """The change_request table's business rules."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """A new change: New, normal, not yet requested for approval, moderate risk, low priority."""
        return {
            "state": NEW,
            "type": "normal",
            "approval": "not requested",
            "risk": "3",
            "impact": "3",
            "urgency": "3",
            "priority": "4",
            "active": "true",
            "opened_at": ctx.clock.now_text(),
            "opened_by": ctx.identity.user_sys_id,
            "requested_by": ctx.identity.user_sys_id,
            **TASK_DEFAULTS,
        }

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """A new change needs a short description and starts New (submit it to move it on)."""
        require(ctx, "change_request", new, ("short_description",))
        if new["state"] != NEW and ctx.settings["enforce_state_transitions"]:
            raise business_rule(
                f"A new change starts in state New, not {STATE_LABELS[new['state']]}: "
                "create it, then submit it"
            )
        self._apply(ctx, None, new)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Closed and canceled changes are frozen; state moves follow the type's flow."""
        refuse_frozen("Change", old, TERMINAL_STATES, STATE_LABELS)
        if new["type"] != old["type"] and old["state"] != NEW:
            raise business_rule(f"The type of {old['number']} can only be changed while it is New")
        before, after = old["state"], new["state"]
        if after != before and ctx.settings["enforce_state_transitions"]:
            _check_transition(old, new)
        if before == NEW and after == next_state(new):
            # Submitted: a standard change is pre-approved; the others now wait for approvers.
            new["approval"] = APPROVED if new["type"] == "standard" else "requested"
        self._apply(ctx, old, new)

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Submitting a normal or emergency change requests its approvals; canceling withdraws them."""
        if old is None or new is None or old["state"] == new["state"]:
            return
        if old["state"] == NEW and new["state"] == next_state(new):
            if new["state"] == ASSESS:
                request_technical_approval(ctx, new)
            elif new["state"] == AUTHORIZE:
                request_cab_approval(ctx, new)
        if new["state"] == CANCELED:
            close_pending_approvals(ctx, new["sys_id"], CANCELLED)

    # -- rules ---------------------------------------------------------------------------------

    def _apply(self, ctx: CallContext, old: Row | None, new: Row) -> None:
        after = new["state"]
        required: list[str] = []
        if after in GROUP_REQUIRED_STATES:
            required.append("assignment_group")
        if after == CLOSED:
            required.extend(CLOSE_FIELDS)
        require(ctx, "change_request", new, required)
        start, end = new["start_date"], new["end_date"]
        if start and end and start > end:
            raise bad_request(
                "Invalid value for end_date",
                f"The planned end date ({end}) is before the planned start date ({start})",
            )
        new["active"] = "false" if after in INACTIVE_STATES else "true"
        before = old["state"] if old else NEW
        if after == CLOSED and before != CLOSED:
            new["closed_at"], new["closed_by"] = ctx.clock.now_text(), ctx.identity.user_sys_id


def _check_transition(old: Row, new: Row) -> None:
    """Raise unless a client may move the change from its state to the new one."""
    before, after, kind = old["state"], new["state"], new["type"]
    number = old["number"]
    if after == CANCELED:
        if before in CANCEL_FROM:
            return
        raise business_rule(f"Change {number} is {STATE_LABELS[before]} and can no longer be canceled")
    if before in APPROVAL_STAGES:
        raise business_rule(
            f"Approval is required: change {number} is waiting for approval in {STATE_LABELS[before]}"
        )
    if after in APPROVAL_GATED[kind]:
        raise business_rule(
            f"Approval is required: {kind} change {number} moves to {STATE_LABELS[after]} only when its "
            "approvers approve it"
        )
    flow = FLOWS[kind]
    if before in flow and after in flow and flow.index(after) == flow.index(before) + 1:
        return
    raise business_rule(
        f"Invalid state transition for {number}: "
        f"{STATE_LABELS[before]} to {STATE_LABELS[after]} is not allowed"
    )


# -- the approval engine ------------------------------------------------------------------------


def request_technical_approval(ctx: CallContext, change: Row) -> None:
    """Assess: one approval for the manager of the change's assignment group."""
    group = ctx.store.get("sys_user_group", change["assignment_group"])
    manager = group["manager"] if group else ""
    if not manager or ctx.store.get("sys_user", manager) is None:
        name = group["name"] if group else change["assignment_group"]
        raise business_rule(
            f"Cannot request approval for {change['number']}: "
            f"assignment group {name!r} has no manager to approve it"
        )
    _request(ctx, change, manager, change["assignment_group"])


def request_cab_approval(ctx: CallContext, change: Row) -> None:
    """Authorize: one approval for each Change Advisory Board member who has the approver role."""
    group = ctx.store.find_one("sys_user_group", "name", CAB_GROUP)
    members = (
        ctx.store.column_values("sys_user_grmember", "user", '"group" = ?', (group["sys_id"],))
        if group
        else []
    )
    approvers = []
    for user_id in members:
        user = ctx.store.get("sys_user", user_id)
        if user is not None and user["active"] != "false" and _has_role(user, APPROVER_ROLE):
            approvers.append(user_id)
    if not approvers:
        raise business_rule(
            f"Cannot request approval for {change['number']}: the {CAB_GROUP} has no approvers"
        )
    for user_id in dict.fromkeys(approvers):
        _request(ctx, change, user_id, group["sys_id"])  # type: ignore[index]


def _has_role(user: Row, role: str) -> bool:
    return role in {name.strip() for name in user["roles"].split(",")}


def _request(ctx: CallContext, change: Row, approver: str, group: str) -> Row:
    return records.system_insert(
        ctx,
        "sysapproval_approver",
        {
            "approver": approver,
            "sysapproval": change["sys_id"],
            "source_table": "change_request",
            "state": REQUESTED,
            "group": group,
        },
    )


def close_pending_approvals(ctx: CallContext, change_sys_id: str, state: str) -> None:
    """Mark the change's still-requested approvals (no longer required, cancelled)."""
    for row in ctx.store.select(
        "sysapproval_approver", "sysapproval = ? AND state = ?", (change_sys_id, REQUESTED)
    ):
        records.system_update(ctx, "sysapproval_approver", row, {"state": state})


def pending_approvals(ctx: CallContext, change_sys_id: str) -> list[Row]:
    """The change's approvals still waiting for a decision, oldest first."""
    return ctx.store.select(
        "sysapproval_approver",
        "sysapproval = ? AND state = ?",
        (change_sys_id, REQUESTED),
        order_by="sys_created_on, sys_id",
    )


class ApprovalRules(records.TableRules):
    """sysapproval_approver: an approver decides once; the decision drives the change."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """An approval row starts requested, for a change."""
        return {"state": REQUESTED, "source_table": "change_request"}

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Only the decision and its comments change; a rejection must say why."""
        fixed = [name for name in _APPROVAL_FIXED if new[name] != old[name]]
        if fixed:
            spec = ctx.store.catalog["sysapproval_approver"]
            raise read_only_fields([spec.field(name).label for name in fixed])  # type: ignore[union-attr]
        if new["state"] == old["state"]:
            return
        if old["state"] != REQUESTED:
            raise business_rule(
                f"This approval is already {_approval_label(ctx, old['state'])} and can no longer be changed"
            )
        if new["state"] not in (APPROVED, REJECTED):
            raise business_rule("An approver can only approve or reject a requested approval")
        if new["state"] == REJECTED:
            require(ctx, "sysapproval_approver", new, ("comments",))

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Apply a decision to the change it is for."""
        if (
            old is None
            or new is None
            or old["state"] != REQUESTED
            or new["state"] not in (APPROVED, REJECTED)
        ):
            return
        if new["source_table"] not in ("", "change_request"):
            return
        change = ctx.store.get("change_request", new["sysapproval"])
        if change is None or change["state"] not in APPROVAL_STAGES:
            return
        if new["state"] == REJECTED:
            # A rejection sends the change back to New; the other approvers need not decide.
            close_pending_approvals(ctx, change["sys_id"], NOT_REQUIRED)
            records.system_update(ctx, "change_request", change, {"state": NEW, "approval": REJECTED})
        elif change["state"] == ASSESS:
            # Technical approval given: the change goes to the CAB.
            close_pending_approvals(ctx, change["sys_id"], NOT_REQUIRED)
            change = records.system_update(ctx, "change_request", change, {"state": AUTHORIZE})
            request_cab_approval(ctx, change)
        else:
            # Authorized (one CAB approval suffices): scheduled, the other approvals are not needed.
            close_pending_approvals(ctx, change["sys_id"], NOT_REQUIRED)
            records.system_update(ctx, "change_request", change, {"state": SCHEDULED, "approval": APPROVED})


def _approval_label(ctx: CallContext, state: str) -> str:
    spec = ctx.store.catalog["sysapproval_approver"].field("state")
    choices = spec.choices if spec and spec.choices else {}
    return choices.get(state, state).lower()
