"""Change requests (``change_request``) and their approvals (``sysapproval_approver``)."""

from __future__ import annotations

from collections.abc import Mapping
from random import Random

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.services.change import (
    APPROVED,
    APPROVER_ROLE,
    CANCELLED,
    NOT_REQUIRED,
    REJECTED,
    REQUESTED,
)
from enterprise_envs.mocks.itsm.services.common import priority_for
from enterprise_envs.mocks.itsm.world.cmdb import any_ci, pick_ci
from enterprise_envs.mocks.itsm.world.common import (
    CAB_GROUP,
    DAY,
    HOUR,
    MINUTE,
    RULES,
    TASK_DEFAULTS,
    Person,
    Picker,
    Row,
    Task,
    World,
    between,
    fill,
    fmt,
    number_in_order,
    stamps,
    text_values,
)
from enterprise_envs.mocks.itsm.world.people import group_id, member_of

_CHANGE_FLOWS: dict[str, list[str]] = {
    kind: list(states) for kind, states in RULES["change_request"]["flows"].items()
}
_CHANGE_CANCEL_FROM: tuple[str, ...] = tuple(RULES["change_request"]["cancel"]["allowed_from"])
_CHANGE_CLOSE_CODES: tuple[str, ...] = tuple(RULES["change_request"]["required"]["close_code"])
_CHANGE_STATE_WEIGHTS = {"-5": 10, "-4": 8, "-3": 8, "-2": 12, "-1": 6, "0": 8, "3": 42, "4": 6}
#: Changes every world holds first, so each approval step has a change waiting in it:
#: (type, state, rejected) for a normal change at Assess and at Authorize, an emergency change
#: at Authorize and a normal change rejected back to New.
_REQUIRED_CHANGES: tuple[tuple[str, str, bool | None], ...] = (
    ("normal", "-4", None),
    ("normal", "-3", None),
    ("emergency", "-3", None),
    ("normal", "-5", True),
)
_CHANGE_CLOSE_WEIGHTS = {"successful": 80, "successful_issues": 14, "unsuccessful": 6}
#: Close notes per change close code (changes have no template text for the outcome).
_CHANGE_CLOSE_NOTES = {
    "successful": "Implemented as planned within the change window. Post-implementation checks passed.",
    "successful_issues": (
        "Implemented within the window with minor issues; follow-up actions are recorded in the work notes."
    ),
    "unsuccessful": "Implementation failed verification; the backout plan was executed and service restored.",
}
_REJECTION_COMMENTS = (
    "Rejected: the implementation plan lacks a tested backout procedure.",
    "Rejected: the window conflicts with the month-end change freeze. Please reschedule.",
    "Rejected: the risk assessment does not cover the dependent services.",
)


def build_changes(world: World) -> None:
    """change_request rows and the sysapproval_approver rows the approval engine would have made."""
    rng = world.rng
    tasks = []
    for index in range(world.counts["changes"]):
        required = _REQUIRED_CHANGES[index] if index < len(_REQUIRED_CHANGES) else None
        templates = [t for t in bank.CHANGE_TEMPLATES if required and t["type"] == required[0]]
        rejected: bool | None = None
        if required and templates:
            template = rng.choice(templates)
            kind, state, rejected = required
            flow = _CHANGE_FLOWS.get(kind, _CHANGE_FLOWS["normal"])
        else:
            template = rng.choice(bank.CHANGE_TEMPLATES)
            kind = str(template["type"])
            flow = _CHANGE_FLOWS.get(kind, _CHANGE_FLOWS["normal"])
            state = Picker(rng, {s: w for s, w in _CHANGE_STATE_WEIGHTS.items() if s in flow or s == "4"})()
        tasks.append(_plan_change(world, template, kind, state, flow, rejected))
    number_in_order(world, "change_request", tasks)
    world.changes = tasks
    world.add("change_request", [task.row for task in tasks])
    world.add("sysapproval_approver", [row for task in tasks for row in task.approvals])


def _change_times(world: World, state: str) -> tuple[int, int, int, int]:
    """(opened, planned start, planned end, finished) for a change in ``state``.

    Past work is placed backwards from its end so every order holds; work not yet done is
    planned ahead of the epoch.
    """
    rng, now = world.rng, world.now
    duration = rng.randint(1, 6) * HOUR
    finished = 0
    if state == "3":
        finished = now - rng.randint(HOUR, world.history() - 20 * DAY)
        end = finished - rng.randint(HOUR, 2 * DAY)
        start = end - duration
    elif state == "0":
        end = now - rng.randint(HOUR, 3 * DAY)
        start = end - duration
    elif state == "-1":
        start = now - rng.randint(10 * MINUTE, duration - 10 * MINUTE)
        end = start + duration
    else:
        start = now + rng.randint(DAY, 21 * DAY)
        end = start + duration
    if state in ("3", "0", "-1"):
        opened = start - rng.randint(2 * DAY, 14 * DAY)
    elif state == "4":
        finished = now - rng.randint(HOUR, world.history() - 20 * DAY)
        opened = finished - rng.randint(HOUR, 10 * DAY)
        start = finished + rng.randint(DAY, 10 * DAY)
        end = start + duration
    else:
        opened = now - rng.randint(HOUR, 12 * DAY)
    return opened, start, end, finished


def _change_approval(world: World, kind: str, state: str, prior: str, rejected: bool | None) -> str:
    """The change's approval field for its state (``prior`` is where a canceled one stopped).

    A New change has not been submitted, or was submitted and rejected (``rejected`` forces
    the choice). Submitting sets ``requested`` (a standard change is pre-approved); the
    engine sets ``approved`` when the CAB authorizes it; canceling leaves the field as it was.
    """
    at = prior if state == "4" else state
    if at == "-5":
        if kind == "standard" or state != "-5":
            return "not requested"
        if rejected is None:
            rejected = world.rng.random() < 0.2
        return "rejected" if rejected else "not requested"
    if at in ("-4", "-3") and kind != "standard":
        return "requested"
    return "approved"


def _plan_change(
    world: World,
    template: Mapping[str, object],
    kind: str,
    state: str,
    flow: list[str],
    rejected: bool | None = None,
) -> Task:
    """One change request, with its approvals."""
    rng = world.rng
    opened, start, end, finished = _change_times(world, state)
    prior = rng.choice([s for s in _CHANGE_CANCEL_FROM if s in flow]) if state == "4" else state
    approval = _change_approval(world, kind, state, prior, rejected)
    group = str(template["group"])
    # Submitted changes needed an assignment group (a rejected one was submitted once).
    assigned = state != "-5" or approval == "rejected" or rng.random() < 0.5
    assignee = member_of(world, group) if state != "-5" else None
    requester = member_of(world, group)
    ci = pick_ci(world, template.get("ci_kind")) or any_ci(world, "server", "application")
    values = text_values(world, ci, None)
    impact = str(template["impact"])
    urgency = rng.choice(("2", "3"))
    row = {
        **TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "type": kind,
        "state": state,
        "approval": approval,
        "active": "false" if state in ("3", "4") else "true",
        "short_description": fill(str(template["short_description"]), values),
        "description": fill(str(template["description"]), values),
        "justification": fill(str(template["justification"]), values),
        "implementation_plan": fill(str(template["implementation_plan"]), values),
        "backout_plan": fill(str(template["backout_plan"]), values),
        "test_plan": fill(str(template["test_plan"]), values),
        "risk": str(template["risk"]),
        "impact": impact,
        "urgency": urgency,
        "priority": min(priority_for(impact, urgency), "4"),
        "category": str(template["category"]),
        "assignment_group": group_id(world, group) if assigned else "",
        "assigned_to": assignee.sys_id if assignee else "",
        "requested_by": requester.sys_id,
        "opened_by": requester.sys_id,
        "opened_at": fmt(opened),
        "start_date": fmt(start),
        "end_date": fmt(end),
        "cmdb_ci": ci["sys_id"] if ci else "",
        "cab_required": "true" if kind != "standard" else "false",
        "on_hold": "false",
        "production_system": "true"
        if ci is not None and world.family_of_kind[world.ci_kind[ci["sys_id"]]] == "server"
        else "false",
        "outside_maintenance_schedule": "false",
        "contact_type": "",
        "sys_class_name": "change_request",
    }
    task = Task(row, opened, state, group, assignee, template=template, end=finished, start=start)
    _close_change(world, task, start, end)
    task.updated = _change_updated(world, task, end)
    actor = assignee or requester
    # The last approval event (submission, a decision) may be what last touched the change.
    task.approvals, last_actor = _approvals(world, task, prior, actor)
    steps = len(flow[: flow.index(prior) + 1]) + (state == "4")
    row.update(stamps(opened, requester.user_name, task.updated, (last_actor or actor).user_name, steps))
    return task


def _change_updated(world: World, task: Task, end: int) -> int:
    """When a change was last touched: its last step for past work, else some time since opening."""
    if task.state in ("3", "4"):
        return task.end
    if task.state == "0":
        return end
    if task.state == "-1":
        return (
            task.start + world.rng.randint(15 * MINUTE, 30 * MINUTE)
            if task.start < world.now - 30 * MINUTE
            else world.now - MINUTE
        )
    return between(world.rng, task.opened + 10 * MINUTE, world.now - 10 * MINUTE)


def _close_change(world: World, task: Task, start: int, end: int) -> None:
    """Work times and closure of changes that have been implemented."""
    row, state, rng = task.row, task.state, world.rng
    if state in ("-1", "0", "3"):
        row["work_start"] = fmt(start + between(rng, 0, min(15 * MINUTE, world.now - start - MINUTE)))
    if state in ("0", "3"):
        row["work_end"] = fmt(end - rng.randint(0, 15 * MINUTE))
    if state == "3":
        code = Picker(rng, _CHANGE_CLOSE_WEIGHTS)() if _CHANGE_CLOSE_CODES else ""
        row["close_code"] = code
        row["close_notes"] = _CHANGE_CLOSE_NOTES.get(code, "Change closed.")
        row["closed_at"] = fmt(task.end)
        row["closed_by"] = task.assignee.sys_id if task.assignee else ""


def _group_manager(world: World, name: str) -> Person | None:
    """The manager of a group, as a planned person."""
    manager = world.groups[name]["manager"] if name in world.groups else ""
    return next((p for p in world.members.get(name, []) if p.sys_id == manager), None)


def _cab_approvers(world: World) -> list[Person]:
    """Who the engine asks at Authorize: active CAB members with the approver role, by sys_id."""
    approvers = {
        p.sys_id: p
        for p in world.members.get(CAB_GROUP, [])
        if p.active and APPROVER_ROLE in p.roles.split(",")
    }
    return [approvers[key] for key in sorted(approvers)]


def _event_times(rng: Random, first: int, last: int, n: int, pinned: bool) -> list[int]:
    """``n`` times a minute or more apart in [first, last]; the last one is ``last`` if ``pinned``."""
    drawn = n - 1 if pinned else n
    top = last - (drawn + int(pinned)) * MINUTE
    times = sorted(between(rng, first, top) for _ in range(drawn))
    times = [when + index * MINUTE for index, when in enumerate(times)]
    return [*times, last] if pinned else times


def _approvals(world: World, task: Task, prior: str, actor: Person) -> tuple[list[Row], Person | None]:
    """The sysapproval_approver rows the approval engine leaves on a change, and who last touched it.

    As in ``services/change.py``: submitting a normal change asks its assignment group's
    manager (technical approval, Assess); that approval asks every CAB member with the
    approver role (Authorize); the first CAB approval schedules the change and makes the
    other CAB approvals no longer required. An emergency change goes straight to the CAB, a
    standard one has no approvals. A rejection sends the change back to New (the other
    pending approvals are no longer required); canceling cancels the pending ones.

    Returns the rows and, when the last approval event is the change's last update (it is
    waiting for approval, was just scheduled or rejected), the person who made it.
    """
    row, rng = task.row, world.rng
    kind, approval = row["type"], row["approval"]
    manager = _group_manager(world, task.group)
    cab = _cab_approvers(world)
    normal = kind == "normal"
    if kind == "standard" or approval == "not requested" or not cab or (normal and manager is None):
        return [], None
    # How far the approvals got: "assess" (technical pending), "authorize" (CAB pending), "done".
    at = prior if task.state == "4" else task.state
    if approval == "approved":
        reached = "done"
    elif approval == "rejected":
        reached = "assess" if normal and rng.random() < 0.5 else "authorize"
    else:
        reached = "assess" if at == "-4" else "authorize"
    # The state the last approval step left its approvals in.
    pending = {"approved": APPROVED, "rejected": REJECTED, "requested": REQUESTED}[approval]
    outcome = CANCELLED if task.state == "4" and pending == REQUESTED else pending
    # Events: submission, the technical decision (normal), the CAB decision, a cancellation.
    n_events = 1 + int(normal and reached != "assess") + int(outcome in (APPROVED, REJECTED, CANCELLED))
    if reached == "done" and task.state != "-2":
        # Decided before the work started (or the change was canceled).
        last, pinned = min(task.updated, task.start) - MINUTE, False
    else:
        last, pinned = task.updated, True
    times = _event_times(rng, task.opened + MINUTE, last, n_events, pinned)
    submitted, decided = times[0], times[-1]
    cab_asked = times[1] if normal and reached != "assess" else submitted
    out: list[Row] = []

    def add(
        approver: Person, group: str, asked: int, asker: Person, state: str, by: Person | None, when: int
    ) -> None:
        """One approval row, asked by ``asker`` at ``asked``; ``by`` decided (or closed) it at ``when``."""
        out.append(
            {
                "sys_id": world.sys_id(),
                "approver": approver.sys_id,
                "sysapproval": row["sys_id"],
                "source_table": "change_request",
                "state": state,
                "comments": rng.choice(_REJECTION_COMMENTS) if state == REJECTED else "",
                "group": group,
                **stamps(
                    asked, asker.user_name, when if by else asked, (by or asker).user_name, int(bool(by))
                ),
            }
        )

    decider: Person | None = None
    if normal:
        assert manager is not None
        group = row["assignment_group"]
        if reached == "assess":
            # Still waiting for the manager, or they rejected it, or the change was canceled.
            decider = {REQUESTED: None, REJECTED: manager, CANCELLED: actor}[outcome]
            add(manager, group, submitted, actor, outcome, decider, decided)
            return out, (decider or actor) if pinned else None
        add(manager, group, submitted, actor, APPROVED, manager, cab_asked)
    # The CAB is asked by whoever moved the change to Authorize.
    asker = manager if normal and manager is not None else actor
    cab_group = group_id(world, CAB_GROUP)
    # One CAB decision settles it (the others no longer required); canceling cancels them all.
    if outcome in (APPROVED, REJECTED):
        decider = rng.choice(cab)
    elif outcome == CANCELLED:
        decider = actor
    for person in cab:
        state = outcome if outcome in (REQUESTED, CANCELLED) or person is decider else NOT_REQUIRED
        add(person, cab_group, cab_asked, asker, state, decider, decided)
    return out, (decider or asker) if pinned else None
