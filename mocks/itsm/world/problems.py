"""Problems (``problem``) in every state, with cause, fix and workaround text."""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.services.common import priority_for
from enterprise_envs.mocks.itsm.world.common import (
    DAY,
    HOUR,
    TASK_DEFAULTS,
    Row,
    Task,
    World,
    between,
    fmt,
    number_in_order,
    quota,
    stamps,
)
from enterprise_envs.mocks.itsm.world.people import group_id, member_of

_PROBLEM_STATE_SHARES = {"101": 0.15, "102": 0.15, "103": 0.20, "104": 0.15, "106": 0.15, "107": 0.20}


def build_problems(world: World) -> None:
    """Problem rows (incident links and counts are added when incidents are planned)."""
    rng = world.rng
    tasks = [
        _plan_problem(world, rng.choice(bank.PROBLEM_TEMPLATES), state)
        for state in quota(rng, _PROBLEM_STATE_SHARES, world.counts["problems"])
    ]
    number_in_order(world, "problem", tasks)
    world.problems = tasks
    for task in tasks:
        task.row["related_incidents"] = "0"
    world.add("problem", [task.row for task in tasks])


def _problem_times(world: World, state: str) -> tuple[int, int]:
    """(opened, last update) of a problem; later states have been open longer."""
    rng, now = world.rng, world.now
    history = world.history()
    youngest, oldest = {
        "101": (DAY, 20 * DAY), "102": (3 * DAY, 40 * DAY), "103": (7 * DAY, 90 * DAY),
        "104": (10 * DAY, 120 * DAY), "106": (20 * DAY, history), "107": (30 * DAY, history),
    }[state]  # fmt: skip
    opened = now - rng.randint(youngest, max(youngest, oldest))
    return opened, between(rng, opened + HOUR, now - HOUR)


def _plan_problem(world: World, template: Mapping[str, object], state: str) -> Task:
    """One problem; resolved and closed ones carry the notes their resolution code requires."""
    rng = world.rng
    opened, updated = _problem_times(world, state)
    group = str(template["group"])
    opener = member_of(world, group)
    assignee = member_of(world, group) if state != "101" else None
    impact, urgency = str(template["impact"]), str(template["urgency"])
    row = {
        **TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "state": state,
        "problem_state": state,
        "active": "false" if state == "107" else "true",
        "short_description": str(template["short_description"]),
        "description": str(template["description"]),
        "assignment_group": group_id(world, group),
        "assigned_to": assignee.sys_id if assignee else "",
        "opened_by": opener.sys_id,
        "opened_at": fmt(opened),
        "impact": impact,
        "urgency": urgency,
        "priority": priority_for(impact, urgency),
        "known_error": "false",
        "sys_class_name": "problem",
    }
    known = state in ("103", "104", "106", "107") and rng.random() < 0.4
    if known:
        row["known_error"], row["work_around"] = "true", str(template["workaround"])
    if state in ("104", "106", "107"):
        row["cause_notes"] = str(template["cause_notes"])
    if state in ("106", "107"):
        _resolve_problem(world, row, template, group)
    if state == "107":
        row["closed_at"] = fmt(updated)
        row["closed_by"] = assignee.sys_id if assignee else ""
    actor = assignee or opener
    row.update(stamps(opened, opener.user_name, updated, actor.user_name, 1 + int(state) - 101))
    return Task(row, opened, state, group, assignee, template=template, end=updated)


def _resolve_problem(world: World, row: Row, template: Mapping[str, object], group: str) -> None:
    """Resolution code and the notes it requires (fix applied, or the risk accepted).

    A fix is linked to an implemented change of the same group, when there is one.
    """
    if world.rng.random() < 0.8:
        row["resolution_code"], row["fix_notes"] = "fix_applied", str(template["fix_notes"])
        fixes = [c for c in world.changes if c.state in ("0", "3") and c.group == group]
        if fixes:
            row["rfc"] = world.rng.choice(fixes).row["sys_id"]
    else:
        row["resolution_code"] = "risk_accepted"
        row["close_notes"] = (
            f"Risk accepted by {group}: a permanent fix costs more than the impact it would remove. "
            f"The workaround stays in place: {template['workaround']}"
        )
