"""Incidents (``incident``): states, times, SLAs, duplicates, problem links and link counts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.services.common import priority_for
from enterprise_envs.mocks.itsm.world.cmdb import pick_ci
from enterprise_envs.mocks.itsm.world.common import (
    DAY,
    HOUR,
    INCIDENT_CLOSE_CODES,
    MINUTE,
    SERVICE_DESK,
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
    quota,
    text_values,
)
from enterprise_envs.mocks.itsm.world.journals import finish_incident
from enterprise_envs.mocks.itsm.world.people import active_callers, group_id, member_of

#: Share of incidents per state: New, In Progress, On Hold, Resolved, Closed, Canceled.
_INCIDENT_STATE_SHARES = {"1": 0.15, "2": 0.30, "3": 0.08, "6": 0.15, "7": 0.28, "8": 0.04}
_OPEN_INCIDENT_STATES = ("1", "2", "3")
#: On-hold reasons (Awaiting Caller, Problem, Vendor, Change) and their weights.
_HOLD_REASONS = {"1": 4, "3": 2, "4": 3, "5": 2}
_CONTACT_TYPES = {"self-service": 35, "phone": 35, "email": 20, "walk-in": 10}
#: Resolution target per priority, in hours (drives sla_due and made_sla).
_SLA_HOURS = {"1": 8, "2": 24, "3": 72, "4": 120, "5": 240}
#: Typical time to resolve per priority, in seconds (lower, upper).
_RESOLVE_SECONDS = {
    "1": (1 * HOUR, 12 * HOUR), "2": (2 * HOUR, 36 * HOUR), "3": (4 * HOUR, 4 * DAY),
    "4": (8 * HOUR, 7 * DAY), "5": (1 * DAY, 10 * DAY),
}  # fmt: skip
#: How often each resolution code is used for ordinary incidents (codes not listed weigh 2).
_CLOSE_CODE_WEIGHTS = {
    "Solution provided": 40, "Workaround provided": 12, "Resolved by caller": 10, "User error": 8,
    "No resolution provided": 3, "Resolved by request": 3, "Resolved by change": 3,
    # Reserved for incidents whose duplicate or problem link explains them.
    "Duplicate": 0, "Resolved by problem": 0, "Known error": 0,
}  # fmt: skip


@dataclass(eq=False)
class _IncidentPlan:
    """Shared lookups while incidents are planned."""

    contact: Picker
    hold: Picker
    close_code: Picker
    desk: list[Person]
    problems_by_category: dict[str, list[Task]]
    problems: dict[str, Row]
    open_problems: list[Task]
    open_changes: list[Task]


def _incident_plan(world: World) -> _IncidentPlan:
    rng = world.rng
    by_category: dict[str, list[Task]] = {}
    for task in world.problems:
        by_category.setdefault(str(task.template["category"]), []).append(task)
    desk = [p for p in world.members[SERVICE_DESK] if p is not world.agent]
    codes = {code: _CLOSE_CODE_WEIGHTS.get(code, 2) for code in INCIDENT_CLOSE_CODES}
    return _IncidentPlan(
        contact=Picker(rng, _CONTACT_TYPES),
        hold=Picker(rng, _HOLD_REASONS),
        close_code=Picker(rng, codes),
        desk=desk or world.members[SERVICE_DESK],
        problems_by_category=by_category,
        problems={task.row["sys_id"]: task.row for task in world.problems},
        open_problems=[t for t in world.problems if t.state in ("101", "102", "103", "104")],
        open_changes=[t for t in world.changes if t.state in ("-5", "-4", "-3", "-2", "-1")],
    )


def build_incidents(world: World) -> None:
    """Incident rows, their journal entries, and the counts they feed (problems, CIs)."""
    rng = world.rng
    plan = _incident_plan(world)
    n_total = world.counts["incidents"]
    n_children = max(1, n_total * 3 // 100)
    states = quota(rng, _INCIDENT_STATE_SHARES, n_total - n_children)
    callers = _incident_callers(world, states)
    tasks = [
        _plan_incident(world, plan, rng.randrange(len(bank.SYMPTOMS)), state, caller)
        for state, caller in zip(states, callers, strict=True)
    ]
    tasks += _duplicate_children(world, plan, tasks, n_children)
    number_in_order(world, "incident", tasks)
    journals = [entry for task in tasks for entry in finish_incident(world, task)]
    _count_links(world, tasks)
    world.add("incident", [task.row for task in tasks])
    world.add("sys_journal_field", journals)


def _incident_callers(world: World, states: list[str]) -> list[Person]:
    """Who called about each incident.

    Callers are mostly random employees; a few frequent callers hold two or three open
    incidents each, a few VIPs have one, and the look-alike people are callers too, so
    scenarios must pick the right record.
    """
    rng = world.rng
    pool = active_callers(world)
    chosen = [rng.choice(pool) for _ in states]
    open_slots = [i for i, state in enumerate(states) if state in _OPEN_INCIDENT_STATES]
    regulars = rng.sample(pool, min(len(pool), max(2, len(open_slots) // 12)))
    for person in regulars:
        for _ in range(rng.randint(2, 3)):
            if open_slots:
                chosen[open_slots.pop()] = person
    vips = [p for p in pool if p.vip and p not in regulars]
    lookalikes = [p for p in world.lookalikes if p.active and p not in regulars]
    for person in [*vips[: max(2, len(states) // 25)], *lookalikes]:
        if open_slots:
            chosen[open_slots.pop()] = person
    return chosen


def _incident_times(world: World, state: str, priority: str) -> tuple[int, int, int]:
    """(opened, resolved, closed) for an incident; unreached steps are 0.

    Resolved and closed incidents are placed backwards from their last event, so the order
    opened < resolved < closed < now always holds.
    """
    rng, now, history = world.rng, world.now, world.history()
    low, high = _RESOLVE_SECONDS[priority]
    if state == "1":
        return now - rng.randint(10 * MINUTE, 2 * DAY), 0, 0
    if state == "2":
        return now - rng.randint(2 * HOUR, 14 * DAY), 0, 0
    if state == "3":
        return now - rng.randint(DAY, 21 * DAY), 0, 0
    if state == "6":
        resolved = now - rng.randint(10 * MINUTE, 6 * DAY)
        return resolved - rng.randint(low, high), resolved, 0
    if state == "7":
        closed = now - rng.randint(HOUR, history - 20 * DAY)
        resolved = closed - rng.randint(HOUR, 7 * DAY)
        return resolved - rng.randint(low, high), resolved, closed
    canceled = now - rng.randint(HOUR, history - 5 * DAY)
    return canceled - rng.randint(10 * MINUTE, 2 * DAY), 0, canceled


def _impact_urgency(world: World, template: Mapping[str, object], caller: Person) -> tuple[str, str]:
    """The template's impact and urgency, sometimes a step off; VIPs tend to be more urgent."""
    rng = world.rng
    impact, urgency = int(str(template["impact"])), int(str(template["urgency"]))
    if rng.random() < 0.2:
        impact = min(3, max(1, impact + rng.choice((-1, 1))))
    if rng.random() < 0.2:
        urgency = min(3, max(1, urgency + rng.choice((-1, 1))))
    if caller.vip and rng.random() < 0.5:
        urgency = max(1, urgency - 1)
    return str(impact), str(urgency)


def _plan_incident(world: World, plan: _IncidentPlan, topic: int, state: str, caller: Person) -> Task:
    """One incident from the symptom template at index ``topic`` (text citing its number comes later)."""
    rng, template = world.rng, bank.SYMPTOMS[topic]
    impact, urgency = _impact_urgency(world, template, caller)
    priority = priority_for(impact, urgency)
    opened, resolved, closed = _incident_times(world, state, priority)
    group = str(template["group"])
    assignee = None if state == "1" and rng.random() < 0.5 else member_of(world, group)
    contact = plan.contact()
    opener = caller if contact == "self-service" else rng.choice(plan.desk)
    ci = pick_ci(world, template.get("ci_kind"), caller)
    values = text_values(world, ci, caller)
    row = {
        **TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "state": state,
        "incident_state": state,
        "active": "true" if state in ("1", "2", "3", "6") else "false",
        "short_description": fill(str(template["short_description"]), values),
        "description": fill(str(template["description"]), values),
        "category": str(template["category"]),
        "subcategory": str(template["subcategory"]),
        "impact": impact,
        "urgency": urgency,
        "priority": priority,
        "caller_id": caller.sys_id,
        "opened_by": opener.sys_id,
        "opened_at": fmt(opened),
        "contact_type": contact,
        "location": world.locations[caller.location]["sys_id"],
        "assignment_group": group_id(world, group),
        "assigned_to": assignee.sys_id if assignee else "",
        "cmdb_ci": ci["sys_id"] if ci else "",
        "reassignment_count": "0" if state == "1" else rng.choices(("0", "1", "2"), (70, 22, 8))[0],
        "reopen_count": "" if rng.random() < 0.1 else "0",
        "child_incidents": "0",
        "severity": "3",
        "notify": "1",
        "sys_class_name": "incident",
    }
    task = Task(row, opened, state, group, assignee, caller, template, resolved=resolved, closed=closed)
    task.topic, task.opener = topic, opener
    _link_problem(world, plan, task)
    _hold_or_close(world, plan, task)
    _sla(task, world.now)
    return task


def _link_problem(world: World, plan: _IncidentPlan, task: Task) -> None:
    """About one incident in eight is linked to a problem about the same category."""
    candidates = plan.problems_by_category.get(str(task.template["category"]))
    if candidates and world.rng.random() < 0.12:
        task.row["problem_id"] = world.rng.choice(candidates).row["sys_id"]


def _hold_or_close(world: World, plan: _IncidentPlan, task: Task) -> None:
    """On-hold reason, or resolution and closure fields, as the state requires."""
    row, rng = task.row, world.rng
    if task.state == "3":
        reason = plan.hold()
        if reason == "3" and plan.open_problems:
            row["problem_id"] = rng.choice(plan.open_problems).row["sys_id"]
        elif reason == "5" and plan.open_changes:
            row["rfc"] = rng.choice(plan.open_changes).row["sys_id"]
        elif reason in ("3", "5"):
            reason = "4"
        row["hold_reason"] = reason
    if task.state in ("2", "7") and rng.random() < 0.05:
        # Reopened once: the caller said the fix did not hold.
        assert task.caller is not None
        end = task.resolved or world.now
        task.updated = between(rng, task.opened + MINUTE, end - MINUTE)
        row["reopen_count"], row["reopened_by"] = "1", task.caller.sys_id
        row["reopened_time"] = fmt(task.updated)
    if task.state in ("6", "7"):
        assert task.assignee is not None
        row["close_code"] = _close_code(world, plan, task)
        row["resolved_at"], row["resolved_by"] = fmt(task.resolved), task.assignee.sys_id
    if task.state == "7":
        assert task.assignee is not None
        row["closed_at"], row["closed_by"] = fmt(task.closed), task.assignee.sys_id


def _close_code(world: World, plan: _IncidentPlan, task: Task) -> str:
    """A resolution code that fits the incident: problem-linked ones often cite their problem.

    "Resolved by problem" needs a problem that is resolved or closed, "Known error" one that
    is marked a known error.
    """
    problem = plan.problems.get(task.row.get("problem_id", ""))
    if problem is not None and world.rng.random() < 0.6:
        if problem["state"] in ("106", "107") and "Resolved by problem" in INCIDENT_CLOSE_CODES:
            return "Resolved by problem"
        if problem["known_error"] == "true" and "Known error" in INCIDENT_CLOSE_CODES:
            return "Known error"
    return plan.close_code()


def _sla(task: Task, now: int) -> None:
    """sla_due for active incidents, and made_sla from when (or whether) the target was met."""
    row = task.row
    due = task.opened + _SLA_HOURS[row["priority"]] * HOUR
    row["sla_due"] = fmt(due) if row["active"] == "true" else ""
    finished = task.resolved or (task.closed if task.state == "8" else 0) or now
    row["made_sla"] = "true" if finished <= due else "false"


#: Fields a duplicate child incident copies from its parent.
_SHARED_WITH_PARENT = (
    "short_description", "description", "category", "subcategory", "cmdb_ci", "assignment_group",
    "assigned_to", "resolved_at", "resolved_by", "closed_at", "closed_by",
)  # fmt: skip


def _duplicate_children(world: World, plan: _IncidentPlan, tasks: list[Task], n: int) -> list[Task]:
    """Incidents other callers raised about the same issue, attached to a parent incident.

    A child follows its parent: still open while the parent is, resolved or closed as a
    duplicate with it.
    """
    rng = world.rng
    # Outages many people notice, not one person's laptop.
    parents = [
        t for t in tasks
        if t.state in ("1", "2", "3", "6", "7") and t.assignee is not None
        and world.family_of_kind.get(str(t.template.get("ci_kind")), "") != "computer"
    ]  # fmt: skip
    callers = active_callers(world)
    children = []
    for _ in range(n if parents else 0):
        parent = rng.choice(parents)
        caller = rng.choice(callers)
        while caller is parent.caller:
            caller = rng.choice(callers)
        state = parent.state if parent.state in ("6", "7") else "2"
        child = _plan_incident(world, plan, parent.topic, state, caller)
        until = min(world.now, parent.resolved or world.now) - 2 * MINUTE
        child.opened = between(rng, parent.opened + 5 * MINUTE, until)
        child.resolved, child.closed, child.updated = parent.resolved, parent.closed, 0
        child.assignee, child.group = parent.assignee, parent.group
        row = child.row
        for name in _SHARED_WITH_PARENT:
            row[name] = parent.row.get(name, "")
        row["opened_at"], row["parent_incident"] = fmt(child.opened), parent.row["sys_id"]
        row.update({"problem_id": "", "hold_reason": "", "rfc": "", "reopen_count": "0"})
        row.update({"reopened_by": "", "reopened_time": ""})
        if state in ("6", "7"):
            row["close_code"] = (
                "Duplicate" if "Duplicate" in INCIDENT_CLOSE_CODES else parent.row["close_code"]
            )
        _sla(child, world.now)
        parent.row["child_incidents"] = str(int(parent.row["child_incidents"]) + 1)
        children.append(child)
    return children


def _count_links(world: World, tasks: list[Task]) -> None:
    """Problems' related_incidents and CIs' fault_count from the incidents that cite them."""
    problems = {task.row["sys_id"]: task.row for task in world.problems}
    cis = {row["sys_id"]: row for rows in world.cis_by_family.values() for row in rows}
    for task in tasks:
        problem = problems.get(task.row.get("problem_id", ""))
        if problem is not None:
            problem["related_incidents"] = str(int(problem["related_incidents"]) + 1)
        ci = cis.get(task.row["cmdb_ci"])
        if ci is not None:
            ci["fault_count"] = str(int(ci["fault_count"]) + 1)
