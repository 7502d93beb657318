"""What every family of the ITSM world builder shares.

World sizes, the fixed accounts, time and sampling helpers, and the planning state: the
:class:`World` being built, the :class:`Person` and :class:`Task` records it plans, and the
helpers that number and word task records.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from random import Random

from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.itsm.tables import behaviour_rules

#: The service-desk agent the Gym agent acts as (roles ``itil``, member of Service Desk).
AGENT_USER_NAME = "sd.agent"
#: The instance administrator (roles ``admin``).
ADMIN_USER_NAME = "admin"

#: Record counts per world size (``users`` includes IT staff, the agent and the admin).
SIZES: dict[str, dict[str, int]] = {
    "tiny": {
        "users": 40, "it_staff": 16, "cis": 20, "incidents": 40, "problems": 8, "changes": 10,
        "requests": 10, "history_days": 120,
    },
    # Sized to keep the serialized database near 1.4 MB (the knowledge base alone is ~270 kB).
    "default": {
        "users": 200, "it_staff": 36, "cis": 100, "incidents": 360, "problems": 32, "changes": 45,
        "requests": 55, "history_days": 180,
    },
    "large": {
        "users": 5000, "it_staff": 300, "cis": 2000, "incidents": 30000, "problems": 1500,
        "changes": 2000, "requests": 3000, "history_days": 730,
    },
}  # fmt: skip

#: Date-time columns holding planned times, which may lie after the epoch; all others are history.
PLANNED_FIELDS = frozenset({"sla_due", "start_date", "end_date"})
SERVICE_DESK = "Service Desk"
CAB_GROUP = "Change Advisory Board"

MINUTE, HOUR, DAY = 60, 3600, 86400
YEAR = 365 * DAY
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_DATE_FORMAT = "%Y-%m-%d"

RULES = behaviour_rules()
INCIDENT_CLOSE_CODES: tuple[str, ...] = tuple(RULES["incident"]["close_code_current"])

Row = dict[str, str]


def fmt(ts: int) -> str:
    """A UNIX time as the stored date-time text (UTC)."""
    return time.strftime(_TIME_FORMAT, time.gmtime(ts))


def fmt_date(ts: int) -> str:
    """A UNIX time as a date (``YYYY-MM-DD``)."""
    return time.strftime(_DATE_FORMAT, time.gmtime(ts))


def quota(rng: Random, shares: Mapping[str, float], n: int) -> list[str]:
    """``n`` labels in exact proportion to ``shares`` (largest remainder), in random order.

    Exact quotas keep small worlds representative: a 40-incident world still has every state.
    """
    raw = {key: share * n for key, share in shares.items()}
    counts = {key: int(value) for key, value in raw.items()}
    left = n - sum(counts.values())
    # sorted() is stable, so ties keep the shares' declared order.
    for key in sorted(raw, key=lambda k: counts[k] - raw[k])[:left]:
        counts[key] += 1
    labels = [key for key, count in counts.items() for _ in range(count)]
    rng.shuffle(labels)
    return labels


class Picker:
    """Weighted choice with precomputed cumulative weights (fast in the large world's loops)."""

    __slots__ = ("_cum", "_items", "_rng")

    def __init__(self, rng: Random, weights: Mapping[str, float]) -> None:
        self._rng = rng
        self._items = [key for key, weight in weights.items() if weight > 0]
        self._cum = list(accumulate(weights[key] for key in self._items))

    def __call__(self) -> str:
        """One key, drawn with the weights."""
        return self._rng.choices(self._items, cum_weights=self._cum)[0]


def between(rng: Random, low: int, high: int) -> int:
    """A random integer in [low, high] (``low`` if the range is empty)."""
    return low if high <= low else rng.randint(low, high)


def fill(text: str, values: Mapping[str, str]) -> str:
    """Fill the bank's ``{placeholders}``; text without any is returned as is."""
    return text.format_map(values) if "{" in text else text


def stamps(
    created: int, created_by: str, updated: int | None = None, updated_by: str = "", mods: int = 0
) -> Row:
    """The ``sys_*`` bookkeeping fields of a row."""
    return {
        "sys_created_on": fmt(created),
        "sys_created_by": created_by,
        "sys_updated_on": fmt(created if updated is None else updated),
        "sys_updated_by": updated_by or created_by,
        "sys_mod_count": str(mods),
    }


#: Fields every task record (incident, problem, change, request, item) carries.
TASK_DEFAULTS: Row = {
    "sys_domain": "global",
    "sys_domain_path": "/",
    "escalation": "0",
    "knowledge": "false",
    "made_sla": "true",
    "reassignment_count": "0",
    "approval": "not requested",
}


@dataclass(slots=True, eq=False)
class Person:
    """A sys_user while the world is planned (the row is written once everything is known)."""

    sys_id: str
    first_name: str
    last_name: str
    department: str
    location: int
    title: str = ""
    user_name: str = ""
    roles: str = ""
    employee_number: str = ""
    manager: Person | None = None
    active: bool = True
    vip: bool = False
    hired: int = 0
    groups: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        """Full name as displayed."""
        return f"{self.first_name} {self.last_name}"


@dataclass(slots=True, eq=False)
class Task:
    """A task record being planned: its row plus the times and people the text depends on."""

    row: Row
    opened: int
    state: str
    group: str = ""
    assignee: Person | None = None
    caller: Person | None = None
    template: Mapping[str, object] = field(default_factory=dict)
    end: int = 0
    resolved: int = 0
    closed: int = 0
    start: int = 0
    updated: int = 0
    topic: int = -1
    opener: Person | None = None
    approvals: list[Row] = field(default_factory=list)
    closer: Person | None = None


@dataclass(eq=False)
class World:
    """Everything planned so far, and the rows waiting to be written."""

    build: WorldBuild
    counts: dict[str, int]
    now: int
    rows: dict[str, list[Row]] = field(default_factory=dict)
    locations: list[Row] = field(default_factory=list)
    departments: dict[str, Row] = field(default_factory=dict)
    staff: list[Person] = field(default_factory=list)
    employees: list[Person] = field(default_factory=list)
    agent: Person | None = None
    admin: Person | None = None
    groups: dict[str, Row] = field(default_factory=dict)
    members: dict[str, list[Person]] = field(default_factory=dict)
    cis_by_kind: dict[str, list[Row]] = field(default_factory=dict)
    cis_by_family: dict[str, list[Row]] = field(default_factory=dict)
    computer_of: dict[str, Row] = field(default_factory=dict)
    ci_kind: dict[str, str] = field(default_factory=dict)
    family_of_kind: dict[str, str] = field(default_factory=dict)
    lookalikes: list[Person] = field(default_factory=list)
    problems: list[Task] = field(default_factory=list)
    changes: list[Task] = field(default_factory=list)

    @property
    def rng(self) -> Random:
        """The build's seeded stream."""
        return self.build.rng

    def sys_id(self) -> str:
        """A new sys_id from the build's id stream."""
        return self.build.ids.new()

    def add(self, table: str, rows: Sequence[Row]) -> None:
        """Queue rows for the final bulk insert."""
        self.rows.setdefault(table, []).extend(rows)

    def history(self) -> int:
        """How far back the task history reaches, in seconds."""
        return self.counts["history_days"] * DAY

    def people(self) -> list[Person]:
        """Every user, in creation order."""
        assert self.admin is not None and self.agent is not None
        return [self.admin, self.agent, *self.staff, *self.employees]


def number_in_order(world: World, table: str, tasks: list[Task]) -> None:
    """Sort tasks by when they were opened and number them in that order."""
    tasks.sort(key=lambda task: task.opened)
    for task in tasks:
        task.row["number"] = world.build.number(table)


def text_values(world: World, ci: Row | None, caller: Person | None) -> dict[str, str]:
    """Values for the bank's incident/change placeholders."""
    rng = world.rng
    apps = world.cis_by_family.get("application") or [{"name": "the business application"}]
    servers = world.cis_by_family.get("server") or apps
    is_app = ci is not None and world.family_of_kind[world.ci_kind[ci["sys_id"]]] == "application"
    app = ci if ci is not None and is_app else rng.choice(apps)
    office = world.locations[caller.location] if caller is not None else rng.choice(world.locations)
    return {
        "ci_name": ci["name"] if ci is not None else rng.choice(servers)["name"],
        "app_name": app["name"],
        "location": office["name"],
    }
