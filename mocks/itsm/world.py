"""Seeded ITSM world: the people, groups, CIs, knowledge and task history a fresh instance holds.

:func:`build_itsm_world` fills every catalog table for a (size, seed) from the text bank in
:mod:`world_data`. Everything is planned in Python first (people, then the records that point
at them) and written with one bulk insert per table at the end, so even the large world builds
in seconds. All randomness comes from the build's seeded streams (``build.rng``,
``build.faker``, ``build.ids``), so a (size, seed) always gives a byte-identical database.

Times are integer UNIX seconds while planning and are formatted once when a row is written.
Every recorded event (opened, resolved, closed, journal entries, ``sys_*`` stamps) lies before
the world's epoch; only the planned times in :data:`PLANNED_FIELDS` (an active incident's SLA
due time, a change's planned window) may lie after it, as they would on a live instance.
"""

from __future__ import annotations

import re
import time
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import cache
from itertools import accumulate
from random import Random

from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.services.catalog import CLOSED_STAGES, money, parse_price
from enterprise_envs.mocks.itsm.services.change import (
    APPROVED,
    APPROVER_ROLE,
    CANCELLED,
    NOT_REQUIRED,
    REJECTED,
    REQUESTED,
)
from enterprise_envs.mocks.itsm.services.common import priority_for
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

MAIL_DOMAIN = "example.com"
FQDN_DOMAIN = "corp.example.com"
SERVICE_DESK = "Service Desk"
CAB_GROUP = "Change Advisory Board"
IT_DEPARTMENT = "IT"

#: Look-alike names scenarios need: first or last names one letter apart.
LOOKALIKE_FIRST_NAMES = (("Jon", "John"), ("Sara", "Sarah"))
LOOKALIKE_LAST_NAMES = (("Reid", "Reed"),)

#: IANA time zone per office city (users get their office's zone).
CITY_TIME_ZONES = {
    "New York": "America/New_York", "San Francisco": "America/Los_Angeles", "Chicago": "America/Chicago",
    "Austin": "America/Chicago", "Toronto": "America/Toronto", "London": "Europe/London",
    "Dublin": "Europe/Dublin", "Berlin": "Europe/Berlin", "Singapore": "Asia/Singapore",
    "Sydney": "Australia/Sydney",
}  # fmt: skip

_MINUTE, _HOUR, _DAY = 60, 3600, 86400
_YEAR = 365 * _DAY
_TIME_FORMAT = "%Y-%m-%d %H:%M:%S"
_DATE_FORMAT = "%Y-%m-%d"

_RULES = behaviour_rules()
_INCIDENT_CLOSE_CODES: tuple[str, ...] = tuple(_RULES["incident"]["close_code_current"])
_CHANGE_FLOWS: dict[str, list[str]] = {
    kind: list(states) for kind, states in _RULES["change_request"]["flows"].items()
}
_CHANGE_CANCEL_FROM: tuple[str, ...] = tuple(_RULES["change_request"]["cancel"]["allowed_from"])
_CHANGE_CLOSE_CODES: tuple[str, ...] = tuple(_RULES["change_request"]["required"]["close_code"])

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
    "1": (1 * _HOUR, 12 * _HOUR), "2": (2 * _HOUR, 36 * _HOUR), "3": (4 * _HOUR, 4 * _DAY),
    "4": (8 * _HOUR, 7 * _DAY), "5": (1 * _DAY, 10 * _DAY),
}  # fmt: skip
#: How often each resolution code is used for ordinary incidents (codes not listed weigh 2).
_CLOSE_CODE_WEIGHTS = {
    "Solution provided": 40, "Workaround provided": 12, "Resolved by caller": 10, "User error": 8,
    "No resolution provided": 3, "Resolved by request": 3, "Resolved by change": 3,
    # Reserved for incidents whose duplicate or problem link explains them.
    "Duplicate": 0, "Resolved by problem": 0, "Known error": 0,
}  # fmt: skip

#: How many journal entries an incident in each state may have (drawn uniformly from the tuple).
#: Open work carries the notes; old closed incidents keep fewer, which keeps the default world small.
_JOURNAL_COUNTS = {
    "1": (0, 0, 0, 1),
    "2": (0, 1, 1, 2),
    "3": (1, 1, 2),
    "6": (1, 1, 2),
    "7": (0, 0, 1, 1),
    "8": (0, 0, 1),
}

#: Journal lines about a situation only fit incidents in it (situation -> what such a line says).
_SITUATIONAL = {
    "duplicate": re.compile(r"\bduplicate\b", re.IGNORECASE),
    "problem": re.compile(r"\b(problem record|known problem)\b", re.IGNORECASE),
    "vendor": re.compile(r"\bvendor\b", re.IGNORECASE),
    "change": re.compile(r"\bchange\b", re.IGNORECASE),
    "no_response": re.compile(r"\bno response\b", re.IGNORECASE),
    "done": re.compile(r"\bhas been (resolved|restored)\b", re.IGNORECASE),
}
#: Content words shared with a symptom that make a journal line about it (see _on_topic).
_TOPIC_OVERLAP = 2
#: Filler words ignored when matching journal lines to symptoms.
_STOP_WORDS = frozenset(
    {
        "able", "about", "after", "again", "all", "also", "and", "any", "applied", "apply", "are", "back",
        "been", "before", "being", "but", "caller", "callers", "can", "cannot", "confirmed", "could", "day",
        "does", "down", "each", "every", "first", "fixed", "for", "from", "get", "got", "group", "had", "has",
        "have", "help", "into", "issue", "issues", "its", "just", "keeps", "know", "let", "like", "more",
        "morning", "name", "need", "needs", "new", "not", "now", "number", "off", "one", "only", "other",
        "our", "out", "over", "per", "please", "same", "see", "should", "since", "some", "still", "than",
        "thank", "thanks", "that", "the", "their", "them", "then", "there", "they", "this", "time", "today",
        "tried", "try", "two", "under", "user", "users", "was", "were", "what", "when", "while", "will",
        "with", "work", "working", "would", "you", "your",
    }
)  # fmt: skip

_PROBLEM_STATE_SHARES = {"101": 0.15, "102": 0.15, "103": 0.20, "104": 0.15, "106": 0.15, "107": 0.20}
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

#: A request's phase and the states its items take in that phase.
#: Catalog items need no approval, so nothing waits in Pending: a request is just ordered (its
#: items Open), in progress, or closed.
_REQUEST_PHASES = {"open": 25, "in_progress": 25, "closed": 50}
#: An item's state and stage as the catalog service creates it (closed stages: CLOSED_STAGES).
OPEN_ITEM, OPEN_ITEM_STAGE = "1", "request_approved"
#: A request's request_state and stage from its items' state; "requested" as newly ordered.
_REQUEST_STATE_NAMES = {
    "1": "requested", "2": "in_process", "3": "closed_complete", "4": "closed_incomplete",
    "7": "closed_cancelled",
}  # fmt: skip

#: Which group writes the knowledge articles of each category (else the Service Desk).
_KB_AUTHOR_GROUPS = {
    "Email": "Email", "Network": "Network", "Hardware": "Hardware", "Printing": "Hardware",
    "Accounts and Access": "Identity and Access", "Security": "Identity and Access",
    "Database": "Database", "Software": "Applications", "Collaboration": "Applications",
}  # fmt: skip
#: Word in an IT job title that fits each group's staff.
_STAFF_TITLE_HINTS = {
    "Service Desk": "Service Desk", "Network": "Network", "Database": "Database",
    "Hardware": "Desktop", "Applications": "Systems", "Email": "Systems",
    "Identity and Access": "Systems",
}  # fmt: skip
#: Words that mark a senior title, most senior first (department heads take the first match).
_SENIOR_WORDS = ("Chief", "VP", "Head", "Director", "General Counsel", "Controller", "Manager", "Lead")
#: Share of each CI family in the CMDB (see :func:`_ci_family`).
_CI_FAMILY_SHARES = {"computer": 0.40, "server": 0.30, "network": 0.12, "application": 0.18}
#: Weight of a bank CI kind within its family (kinds not listed weigh 1): PCs outnumber Macs.
_CI_KIND_WEIGHTS = {"laptop": 6, "macbook": 1, "network_switch": 3}
#: Second octet of each hardware family's 10.x address block.
_IP_BLOCKS = {"network": 1, "server": 10, "computer": 50}
_SERIAL_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789"

Row = dict[str, str]


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def _fmt(ts: int) -> str:
    """A UNIX time as the stored date-time text (UTC)."""
    return time.strftime(_TIME_FORMAT, time.gmtime(ts))


def _fmt_date(ts: int) -> str:
    """A UNIX time as a date (``YYYY-MM-DD``)."""
    return time.strftime(_DATE_FORMAT, time.gmtime(ts))


def _ascii_lower(text: str) -> str:
    """Lowercase ASCII letters only (for user names built from personal names)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z]", "", plain.lower())


def _quota(rng: Random, shares: Mapping[str, float], n: int) -> list[str]:
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


class _Picker:
    """Weighted choice with precomputed cumulative weights (fast in the large world's loops)."""

    __slots__ = ("_cum", "_items", "_rng")

    def __init__(self, rng: Random, weights: Mapping[str, float]) -> None:
        self._rng = rng
        self._items = [key for key, weight in weights.items() if weight > 0]
        self._cum = list(accumulate(weights[key] for key in self._items))

    def __call__(self) -> str:
        return self._rng.choices(self._items, cum_weights=self._cum)[0]


def _between(rng: Random, low: int, high: int) -> int:
    """A random integer in [low, high] (``low`` if the range is empty)."""
    return low if high <= low else rng.randint(low, high)


def _fill(text: str, values: Mapping[str, str]) -> str:
    """Fill the bank's ``{placeholders}``; text without any is returned as is."""
    return text.format_map(values) if "{" in text else text


def _stamps(
    created: int, created_by: str, updated: int | None = None, updated_by: str = "", mods: int = 0
) -> Row:
    """The ``sys_*`` bookkeeping fields of a row."""
    return {
        "sys_created_on": _fmt(created),
        "sys_created_by": created_by,
        "sys_updated_on": _fmt(created if updated is None else updated),
        "sys_updated_by": updated_by or created_by,
        "sys_mod_count": str(mods),
    }


#: Fields every task record (incident, problem, change, request, item) carries.
_TASK_DEFAULTS: Row = {
    "sys_domain": "global",
    "sys_domain_path": "/",
    "escalation": "0",
    "knowledge": "false",
    "made_sla": "true",
    "reassignment_count": "0",
    "approval": "not requested",
}


# --------------------------------------------------------------------------------------------
# The world being planned
# --------------------------------------------------------------------------------------------


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
class _Task:
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
class _World:
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
    problems: list[_Task] = field(default_factory=list)
    changes: list[_Task] = field(default_factory=list)

    @property
    def rng(self) -> Random:
        """The build's seeded stream."""
        return self.build.rng

    def sys_id(self) -> str:
        """A new sys_id from the build's id stream."""
        return self.build.ids.sys_id()

    def add(self, table: str, rows: Sequence[Row]) -> None:
        """Queue rows for the final bulk insert."""
        self.rows.setdefault(table, []).extend(rows)

    def history(self) -> int:
        """How far back the task history reaches, in seconds."""
        return self.counts["history_days"] * _DAY

    def people(self) -> list[Person]:
        """Every user, in creation order."""
        assert self.admin is not None and self.agent is not None
        return [self.admin, self.agent, *self.staff, *self.employees]


def build_itsm_world(build: WorldBuild) -> None:
    """Fill every ITSM table for ``build.size`` and ``build.seed``.

    Args:
        build: The empty database and the seeded sources (rng, faker, ids, clock).
    """
    world = _World(build, SIZES[build.size], int(build.clock.now().timestamp()))
    _build_locations(world)
    _build_departments(world)
    _build_people(world)
    _build_groups(world)
    _build_user_rows(world)
    _build_cis(world)
    _build_knowledge(world)
    _build_catalog_items(world)
    _build_changes(world)
    _build_problems(world)
    _build_incidents(world)
    _build_requests(world)
    _insert_all(world)


def _insert_all(world: _World) -> None:
    """Write the planned rows, one bulk insert per table, in catalog order."""
    for table in world.build.store.catalog:
        rows = world.rows.get(table)
        if rows:
            world.build.insert_many(table, rows)


# --------------------------------------------------------------------------------------------
# Organisation: locations, departments, people, groups
# --------------------------------------------------------------------------------------------


def _org_created(world: _World) -> int:
    """When the instance's reference data was loaded: well before any task history."""
    return world.now - world.history() - 3 * _YEAR


def _build_locations(world: _World) -> None:
    """cmn_location: one row per office in the bank."""
    created = _org_created(world)
    for spec in bank.LOCATIONS:
        row = {key: spec[key] for key in ("name", "street", "city", "zip", "country")}  # type: ignore[literal-required]
        world.locations.append({"sys_id": world.sys_id(), **row, **_stamps(created, ADMIN_USER_NAME)})
    world.add("cmn_location", world.locations)


def _department_code(name: str, taken: set[str]) -> str:
    """A short department id (``HR``, ``FIN``), unique within the world."""
    words = name.split()
    code = "".join(word[0] for word in words).upper() if len(words) > 1 else name[:3].upper()
    base, n = code, 2
    while code in taken:
        code, n = f"{base}{n}", n + 1
    taken.add(code)
    return code


def _build_departments(world: _World) -> None:
    """cmn_department rows (heads are filled in once people exist)."""
    created = _org_created(world)
    taken: set[str] = set()
    for name in bank.DEPARTMENTS:
        world.departments[name] = {
            "sys_id": world.sys_id(),
            "name": name,
            "id": _department_code(name, taken),
            "head": "",
            "description": f"{name} department",
            **_stamps(created, ADMIN_USER_NAME),
        }
    world.add("cmn_department", list(world.departments.values()))


def _pick_location(world: _World) -> int:
    """An office index; the first offices (headquarters) hold more people."""
    n = len(world.locations)
    weights = [4 if i == 0 else 2 if i == 1 else 1 for i in range(n)]
    return world.rng.choices(range(n), weights=weights)[0]


def _new_person(world: _World, department: str) -> Person:
    """A person with a Faker name, an office and a hire date (before any task they appear in)."""
    faker, rng = world.build.faker, world.rng
    person = Person(world.sys_id(), faker.first_name(), faker.last_name(), department, _pick_location(world))
    person.hired = world.now - world.history() - rng.randint(30 * _DAY, 8 * _YEAR)
    return person


def _build_people(world: _World) -> None:
    """Plan every user: the admin, the agent, IT staff and the business's employees."""
    counts = world.counts
    hired = _org_created(world)
    world.admin = Person(world.sys_id(), "System", "Administrator", "", 0, user_name=ADMIN_USER_NAME)
    world.admin.roles, world.admin.hired = "admin", hired
    world.agent = Person(world.sys_id(), "Service Desk", "Agent", IT_DEPARTMENT, 0, user_name=AGENT_USER_NAME)
    world.agent.roles, world.agent.hired = "itil", world.now - world.history() - 30 * _DAY
    world.staff = [_new_person(world, IT_DEPARTMENT) for _ in range(counts["it_staff"])]
    business = [name for name in bank.DEPARTMENTS if name != IT_DEPARTMENT]
    n_employees = counts["users"] - counts["it_staff"] - 2
    # Every department gets someone before the rest are spread at random.
    spread = [business[i] if i < len(business) else world.rng.choice(business) for i in range(n_employees)]
    world.employees = [_new_person(world, name) for name in spread]
    for index, person in enumerate([world.agent, *world.staff, *world.employees]):
        person.employee_number = f"{100101 + index}"
    for name in business:
        _place_in_hierarchy(
            world, [p for p in world.employees if p.department == name], bank.JOB_TITLES[name]
        )
    _mark_vips(world)
    _make_lookalikes(world)
    _mark_departed(world)


def _is_senior(title: str) -> bool:
    return any(word in title for word in _SENIOR_WORDS)


def _senior_title(titles: Sequence[str]) -> str:
    """The most senior title of a department (its head's)."""
    for word in _SENIOR_WORDS:
        for title in titles:
            if word in title:
                return title
    return titles[-1]


def _place_in_hierarchy(world: _World, members: list[Person], titles: Sequence[str]) -> None:
    """Titles and managers within a department: a head, leads reporting to them, the rest below."""
    if not members:
        return
    head, rest = members[0], members[1:]
    head.title = _senior_title(titles)
    world.departments[head.department]["head"] = head.sys_id
    others = [title for title in titles if title != head.title] or list(titles)
    for person in rest:
        person.title = world.rng.choice(others)
    leads = [person for person in rest if _is_senior(person.title)]
    for person in rest:
        person.manager = head if _is_senior(person.title) else world.rng.choice([head, *leads])


def _mark_vips(world: _World) -> None:
    """About 3% of employees are VIPs, executives first."""
    n = max(2, round(0.03 * len(world.employees)))
    heads = [p for p in world.employees if p.manager is None]
    seniors = [p for p in world.employees if p.manager is not None and _is_senior(p.title)]
    world.rng.shuffle(heads)
    world.rng.shuffle(seniors)
    for person in [*heads, *seniors, *world.employees][:n]:
        person.vip = True


def _make_lookalikes(world: _World) -> None:
    """Rename a few employees so scenarios have confusable people.

    Two people share a full name (in different departments), and pairs have first or last
    names one letter apart (Jon/John Baker, Ana Reid/Reed).
    """
    pool = [p for p in world.employees if p.manager is not None and not p.vip]
    world.rng.shuffle(pool)
    first = pool.pop()
    twin = next((p for p in pool if p.department != first.department), pool[0])
    pool.remove(twin)
    twin.first_name, twin.last_name = first.first_name, first.last_name
    world.lookalikes += [first, twin]
    for pair in LOOKALIKE_FIRST_NAMES:
        a, b = pool.pop(), pool.pop()
        a.first_name, b.first_name = pair
        a.last_name = b.last_name = world.build.faker.last_name()
        world.lookalikes += [a, b]
    for pair in LOOKALIKE_LAST_NAMES:
        a, b = pool.pop(), pool.pop()
        a.last_name, b.last_name = pair
        a.first_name = b.first_name = world.build.faker.first_name()
        world.lookalikes += [a, b]


def _mark_departed(world: _World) -> None:
    """A few staff have left: inactive accounts that nobody reports to."""
    # Managers, VIPs and look-alikes stay active: others depend on them being there.
    keep = {id(p.manager) for p in world.employees} | {id(p) for p in world.lookalikes}
    candidates = [p for p in world.employees if id(p) not in keep and not p.vip and p.manager is not None]
    for person in world.rng.sample(candidates, min(len(candidates), max(1, len(world.employees) // 50))):
        person.active = False


def _group_names() -> list[str]:
    return [spec["name"] for spec in bank.GROUPS]


def _build_groups(world: _World) -> None:
    """Assignment groups, memberships, roles and the IT hierarchy.

    Every IT staff member has a primary resolver group (the Service Desk gets a double share);
    a few senior staff also sit on the CAB (roles ``itil,approver``), some work in a second
    group, and small groups are topped up to three members.
    """
    rng, agent = world.rng, world.agent
    assert agent is not None
    names = _group_names()
    resolvers = [name for name in names if name != CAB_GROUP]
    rotation = [SERVICE_DESK, *resolvers] if SERVICE_DESK in resolvers else resolvers
    members: dict[str, list[Person]] = {name: [] for name in names}
    for index, person in enumerate(world.staff):
        members[rotation[index % len(rotation)]].append(person)
        person.groups.append(rotation[index % len(rotation)])
    managers = {name: group[0] for name, group in members.items() if group}
    singles = [p for p in world.staff if p not in managers.values()]
    rng.shuffle(singles)
    cab = [singles.pop() for _ in range(min(8, max(3, len(world.staff) // 10)))]
    members[CAB_GROUP] = cab
    managers[CAB_GROUP] = cab[0]
    for person in cab:
        person.groups.append(CAB_GROUP)
    members[SERVICE_DESK].append(agent)
    agent.groups.append(SERVICE_DESK)
    _top_up_groups(members, [*singles, *managers.values()])
    for person in singles:
        if len(person.groups) == 1 and rng.random() < 0.25:
            second = rng.choice([name for name in resolvers if name != person.groups[0]])
            members[second].append(person)
            person.groups.append(second)
    _staff_roles_and_titles(world, members, managers)
    world.members = members
    _group_rows(world, managers)


def _top_up_groups(members: dict[str, list[Person]], candidates: list[Person]) -> None:
    """Give every group at least three members, from staff who are in only one group."""
    for name, group in members.items():
        for person in candidates:
            if len(group) >= 3:
                break
            if len(person.groups) == 1 and person not in group:
                group.append(person)
                person.groups.append(name)


def _staff_roles_and_titles(
    world: _World, members: dict[str, list[Person]], managers: dict[str, Person]
) -> None:
    """Roles, titles and managers of IT staff; the Service Desk's manager heads IT."""
    titles = bank.JOB_TITLES.get(IT_DEPARTMENT, ("IT Manager",))
    boss_title = _senior_title(titles)
    plain_titles = [title for title in titles if title != boss_title] or [boss_title]
    head = managers.get(SERVICE_DESK) or next(iter(managers.values()))
    if IT_DEPARTMENT in world.departments:
        world.departments[IT_DEPARTMENT]["head"] = head.sys_id
    cab = set(map(id, members.get(CAB_GROUP, [])))
    leaders = {id(person) for name, person in managers.items() if name != CAB_GROUP}
    for person in world.staff:
        primary = person.groups[0]
        roles = ["itil"]
        if id(person) in leaders:
            roles.append("itil_admin")
        if id(person) in cab:
            roles.append("approver")
        person.roles = ",".join(roles)
        hint = _STAFF_TITLE_HINTS.get(primary, "")
        fitting = [title for title in plain_titles if hint and hint in title]
        person.title = (
            boss_title if id(person) in leaders else (fitting or [world.rng.choice(plain_titles)])[0]
        )
        person.manager = None if person is head else head if id(person) in leaders else managers[primary]
    agent = world.agent
    assert agent is not None
    agent.manager = managers.get(SERVICE_DESK, head)
    agent.title = next((t for t in plain_titles if "Service Desk" in t), plain_titles[0])


def _group_rows(world: _World, managers: dict[str, Person]) -> None:
    """sys_user_group and sys_user_grmember rows."""
    created = _org_created(world)
    for spec in bank.GROUPS:
        name = spec["name"]
        world.groups[name] = {
            "sys_id": world.sys_id(),
            "name": name,
            "description": spec["description"],
            "email": f"{spec['email']}@{MAIL_DOMAIN}",
            "manager": managers[name].sys_id,
            "active": "true",
            "type": "",
            "exclude_manager": "false",
            "include_members": "false",
            **_stamps(created, ADMIN_USER_NAME),
        }
    world.add("sys_user_group", list(world.groups.values()))
    rows = []
    for name, group in world.members.items():
        for person in group:
            joined = max(person.hired, created)
            row = {"sys_id": world.sys_id(), "user": person.sys_id, "group": world.groups[name]["sys_id"]}
            rows.append({**row, **_stamps(joined, ADMIN_USER_NAME)})
    world.add("sys_user_grmember", rows)


def _assign_user_names(people: list[Person]) -> None:
    """``first.last`` in lowercase ASCII; a clash gets a digit (jane.doe2)."""
    taken = {p.user_name for p in people if p.user_name}
    for person in people:
        if person.user_name:
            continue
        base = f"{_ascii_lower(person.first_name) or 'user'}.{_ascii_lower(person.last_name) or 'user'}"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}{n}", n + 1
        taken.add(name)
        person.user_name = name


def _build_user_rows(world: _World) -> None:
    """sys_user rows for everyone planned."""
    people = world.people()
    _assign_user_names(people)
    faker, rng = world.build.faker, world.rng
    rows = []
    for person in people:
        office = world.locations[person.location] if person.department else None
        department = world.departments.get(person.department)
        rows.append(
            {
                "sys_id": person.sys_id,
                "name": person.name,
                "first_name": person.first_name,
                "last_name": person.last_name,
                "user_name": person.user_name,
                "email": f"{person.user_name}@{MAIL_DOMAIN}",
                "employee_number": person.employee_number,
                "title": person.title,
                "department": department["sys_id"] if department else "",
                "location": office["sys_id"] if office else "",
                "city": office["city"] if office else "",
                "country": office["country"] if office else "",
                "manager": person.manager.sys_id if person.manager else "",
                "phone": faker.phone_number() if office else "",
                "mobile_phone": faker.phone_number() if office else "",
                "vip": "true" if person.vip else "false",
                "active": "true" if person.active else "false",
                "locked_out": "false",
                "roles": person.roles,
                "time_zone": CITY_TIME_ZONES.get(office["city"], "GMT") if office else "GMT",
                "preferred_language": "en",
                "notification": "2",
                "failed_attempts": "0",
                "password_needs_reset": "false",
                "web_service_access_only": "false",
                "internal_integration_user": "false",
                "last_login_time": _fmt(world.now - rng.randint(_HOUR, 20 * _DAY)) if person.active else "",
                "sys_class_name": "sys_user",
                "sys_domain": "global",
                "sys_domain_path": "/",
                "source": "",
                "user_password": "",
                **_stamps(person.hired, ADMIN_USER_NAME),
            }
        )
    world.add("sys_user", rows)


def _callers(world: _World) -> list[Person]:
    """Employees who can raise tickets (active, outside IT)."""
    return [p for p in world.employees if p.active]


def _group_id(world: _World, name: str) -> str:
    return world.groups[name]["sys_id"] if name in world.groups else ""


def _member_of(world: _World, group: str) -> Person:
    """A random member of a group (the Service Desk if the group is unknown)."""
    return world.rng.choice(world.members.get(group) or world.members[SERVICE_DESK])


# --------------------------------------------------------------------------------------------
# CMDB, knowledge, catalog
# --------------------------------------------------------------------------------------------


def _ci_family(spec: Mapping[str, object]) -> str:
    """``application``, ``server``, ``network`` or ``computer``, from a bank CI kind."""
    if spec["names"] or spec["subcategory"] == "Application":
        return "application"
    if "server" in str(spec["sys_class_name"]):
        return "server"
    return "network" if spec["subcategory"] == "Network" else "computer"


def _ci_targets(world: _World) -> list[int]:
    """CIs per bank kind: one of each, the rest by family share and kind weight.

    Fixed-name kinds (applications) are capped at their names; what they cannot hold goes to
    end-user computers.
    """
    specs = bank.CI_CATALOG
    families = [_ci_family(spec) for spec in specs]
    targets = [1] * len(specs)
    left = max(0, world.counts["cis"] - len(specs))
    for family, share in _CI_FAMILY_SHARES.items():
        members = [i for i, name in enumerate(families) if name == family]
        weights = [_CI_KIND_WEIGHTS.get(str(specs[i]["kind"]), 1) for i in members]
        for i, weight in zip(members, weights, strict=True):
            targets[i] += round(share * left * weight / sum(weights))
    for i, spec in enumerate(specs):
        if spec["names"]:
            targets[i] = min(targets[i], len(spec["names"]))
    # Rounding and capped kinds leave a few over: they go to end-user computers.
    overflow = next((i for i, name in enumerate(families) if name == "computer"), None)
    if overflow is not None:
        targets[overflow] += max(0, world.counts["cis"] - sum(targets))
    return targets


def _build_cis(world: _World) -> None:
    """cmdb_ci: end-user computers (one per person, as far as they go), servers, network gear, apps."""
    # Callers get computers first, so their incidents can name their own machine.
    owners = iter([p for p in [*world.employees, *world.staff, world.agent] if p is not None and p.active])
    used: set[str] = set()
    rows: list[Row] = []
    for spec, count in zip(bank.CI_CATALOG, _ci_targets(world), strict=True):
        family, kind = _ci_family(spec), spec["kind"]
        world.family_of_kind[kind] = family
        for index in range(count):
            owner = next(owners, None) if family == "computer" else None
            name = (
                spec["names"][index]
                if spec["names"]
                else _ci_name(world.rng, spec["name_patterns"], used, owner)
            )
            used.add(name)
            row = _ci_row(world, spec, family, name, len(rows))
            if owner is not None:
                world.computer_of[owner.sys_id] = row
            world.cis_by_kind.setdefault(kind, []).append(row)
            world.cis_by_family.setdefault(family, []).append(row)
            world.ci_kind[row["sys_id"]] = kind
            rows.append(row)
    world.add("cmdb_ci", rows)


def _ci_name(rng: Random, patterns: Sequence[str], used: set[str], owner: Person | None) -> str:
    """An unused name from a kind's patterns; a personal computer carries its owner's number."""
    pattern = rng.choice(patterns)
    n = int(owner.employee_number) % 100000 if owner is not None else 1
    while pattern.format(n=n) in used:
        n += 1
    return pattern.format(n=n)


def _ip(index: int, block: int) -> str:
    """A unique private address in a 10.x block per CI family."""
    return f"10.{block + index // 64516}.{(index // 254) % 254}.{index % 254 + 1}"


def _ci_row(world: _World, spec: Mapping[str, object], family: str, name: str, index: int) -> Row:
    """One configuration item."""
    rng = world.rng
    installed = world.now - rng.randint(30 * _DAY, 5 * _YEAR)
    hardware = family in _IP_BLOCKS
    status = str(spec["operational_status"])
    if hardware and rng.random() < 0.05:
        status = rng.choice(("2", "3"))  # Non-Operational, Repair in Progress
    models: Sequence[str] = spec["model_numbers"]  # type: ignore[assignment]
    return {
        "sys_id": world.sys_id(),
        "name": name,
        "category": str(spec["category"]),
        "subcategory": str(spec["subcategory"]),
        "serial_number": "".join(rng.choices(_SERIAL_ALPHABET, k=10)) if hardware else "",
        "asset_tag": f"P{100001 + index:06d}" if hardware else "",
        "ip_address": _ip(index, _IP_BLOCKS[family]) if hardware else "",
        "mac_address": ":".join(f"{rng.getrandbits(8):02x}" for _ in range(6)) if hardware else "",
        "fqdn": f"{name.lower()}.{FQDN_DOMAIN}" if hardware else "",
        "model_number": rng.choice(models) if models else "",
        "operational_status": status,
        "install_date": _fmt(installed),
        "warranty_expiration": _fmt_date(installed + 3 * _YEAR) if hardware else "",
        "fault_count": "0",
        "created_on": _fmt(installed),
        "created_by": ADMIN_USER_NAME,
        "updated_on": _fmt(installed),
        "updated_by": ADMIN_USER_NAME,
    }


def _build_knowledge(world: _World) -> None:
    """kb_knowledge: every bank topic (about 8% retired) plus a few draft revisions."""
    rng = world.rng
    topics = list(bank.KB_TOPICS.values())
    retired = set(rng.sample(range(len(topics)), round(0.08 * len(topics))))
    drafts = rng.sample([i for i in range(len(topics)) if i not in retired], min(3, len(topics)))
    planned = [
        (_kb_article(world, topic, "retired" if i in retired else "published"))
        for i, topic in enumerate(topics)
    ]
    planned += [_kb_article(world, topics[i], "draft") for i in drafts]
    planned.sort(key=lambda item: item[0])
    for _, row in planned:
        row["number"] = world.build.number("kb_knowledge")
    world.add("kb_knowledge", [row for _, row in planned])


def _kb_article(world: _World, topic: Mapping[str, object], workflow: str) -> tuple[int, Row]:
    """One article in the given workflow state, with its creation time for numbering."""
    rng, now = world.rng, world.now
    category = str(topic["category"])
    author = _member_of(world, _KB_AUTHOR_GROUPS.get(category, SERVICE_DESK))
    if workflow == "draft":
        created = now - rng.randint(2 * _DAY, 30 * _DAY)
        published, updated = 0, created + rng.randint(0, _DAY)
    else:
        # Written while the author worked here (accounts date from the hire).
        created = now - _between(rng, 90 * _DAY, min(4 * _YEAR, now - author.hired - _DAY))
        published = created + rng.randint(_HOUR, 10 * _DAY)
        updated = _between(rng, published, now - _DAY)
    retired = _between(rng, published + 60 * _DAY, now - _DAY) if workflow == "retired" else 0
    views = int(rng.paretovariate(1.2) * 40) if workflow != "draft" else 0
    row = {
        "sys_id": world.sys_id(),
        "short_description": str(topic["short_description"]),
        "text": str(topic["text"]),
        "author": author.sys_id,
        "workflow_state": workflow,
        "active": "false" if workflow == "retired" else "true",
        "published": _fmt_date(published) if published else "",
        "retired": _fmt_date(retired) if retired else "",
        "valid_to": "2100-01-01",
        "kb_category": "",
        "article_type": "text",
        "topic": category,
        "category": category,
        "meta": ", ".join(topic["keywords"]),  # type: ignore[arg-type]
        "sys_view_count": str(views),
        "use_count": str(views // rng.randint(3, 12)),
        "roles": "",
        "direct": "false",
        "flagged": "false",
        "disable_commenting": "false",
        "disable_suggesting": "false",
        "display_attachments": "false",
        "sys_class_name": "kb_knowledge",
        "sys_domain": "global",
        "sys_domain_path": "/",
        **_stamps(created, author.user_name, max(updated, retired), author.user_name, 1 + (retired > 0)),
    }
    return created, row


def _build_catalog_items(world: _World) -> None:
    """sc_cat_item rows from the bank's catalog."""
    created = _org_created(world)
    rows = [
        {
            "sys_id": world.sys_id(),
            "name": spec["name"],
            "short_description": spec["short_description"],
            "category": spec["category"],
            "price": spec["price"],
            "active": "true",
            "group": _group_id(world, spec["group"]),
            **_stamps(created, ADMIN_USER_NAME),
        }
        for spec in bank.CATALOG_ITEMS
    ]
    world.add("sc_cat_item", rows)


def _number_in_order(world: _World, table: str, tasks: list[_Task]) -> None:
    """Sort tasks by when they were opened and number them in that order."""
    tasks.sort(key=lambda task: task.opened)
    for task in tasks:
        task.row["number"] = world.build.number(table)


def _text_values(world: _World, ci: Row | None, caller: Person | None) -> dict[str, str]:
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


def _pick_ci(world: _World, kind: object, owner: Person | None = None) -> Row | None:
    """A CI of the given bank kind: the owner's own computer if it is one, else any of the kind."""
    if not kind:
        return None
    own = world.computer_of.get(owner.sys_id) if owner is not None else None
    if own is not None and world.ci_kind[own["sys_id"]] == kind:
        return own
    found = world.cis_by_kind.get(str(kind)) or world.cis_by_family.get(
        world.family_of_kind.get(str(kind), "")
    )
    return world.rng.choice(found) if found else None


def _any_ci(world: _World, *families: str) -> Row | None:
    """A random CI from the given families."""
    found = [row for family in families for row in world.cis_by_family.get(family, [])]
    return world.rng.choice(found) if found else None


# --------------------------------------------------------------------------------------------
# Change requests and their approvals
# --------------------------------------------------------------------------------------------


def _build_changes(world: _World) -> None:
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
            state = _Picker(rng, {s: w for s, w in _CHANGE_STATE_WEIGHTS.items() if s in flow or s == "4"})()
        tasks.append(_plan_change(world, template, kind, state, flow, rejected))
    _number_in_order(world, "change_request", tasks)
    world.changes = tasks
    world.add("change_request", [task.row for task in tasks])
    world.add("sysapproval_approver", [row for task in tasks for row in task.approvals])


def _change_times(world: _World, state: str) -> tuple[int, int, int, int]:
    """(opened, planned start, planned end, finished) for a change in ``state``.

    Past work is placed backwards from its end so every order holds; work not yet done is
    planned ahead of the epoch.
    """
    rng, now = world.rng, world.now
    duration = rng.randint(1, 6) * _HOUR
    finished = 0
    if state == "3":
        finished = now - rng.randint(_HOUR, world.history() - 20 * _DAY)
        end = finished - rng.randint(_HOUR, 2 * _DAY)
        start = end - duration
    elif state == "0":
        end = now - rng.randint(_HOUR, 3 * _DAY)
        start = end - duration
    elif state == "-1":
        start = now - rng.randint(10 * _MINUTE, duration - 10 * _MINUTE)
        end = start + duration
    else:
        start = now + rng.randint(_DAY, 21 * _DAY)
        end = start + duration
    if state in ("3", "0", "-1"):
        opened = start - rng.randint(2 * _DAY, 14 * _DAY)
    elif state == "4":
        finished = now - rng.randint(_HOUR, world.history() - 20 * _DAY)
        opened = finished - rng.randint(_HOUR, 10 * _DAY)
        start = finished + rng.randint(_DAY, 10 * _DAY)
        end = start + duration
    else:
        opened = now - rng.randint(_HOUR, 12 * _DAY)
    return opened, start, end, finished


def _change_approval(world: _World, kind: str, state: str, prior: str, rejected: bool | None) -> str:
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
    world: _World,
    template: Mapping[str, object],
    kind: str,
    state: str,
    flow: list[str],
    rejected: bool | None = None,
) -> _Task:
    """One change request, with its approvals."""
    rng = world.rng
    opened, start, end, finished = _change_times(world, state)
    prior = rng.choice([s for s in _CHANGE_CANCEL_FROM if s in flow]) if state == "4" else state
    approval = _change_approval(world, kind, state, prior, rejected)
    group = str(template["group"])
    # Submitted changes needed an assignment group (a rejected one was submitted once).
    assigned = state != "-5" or approval == "rejected" or rng.random() < 0.5
    assignee = _member_of(world, group) if state != "-5" else None
    requester = _member_of(world, group)
    ci = _pick_ci(world, template.get("ci_kind")) or _any_ci(world, "server", "application")
    values = _text_values(world, ci, None)
    impact = str(template["impact"])
    urgency = rng.choice(("2", "3"))
    row = {
        **_TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "type": kind,
        "state": state,
        "approval": approval,
        "active": "false" if state in ("3", "4") else "true",
        "short_description": _fill(str(template["short_description"]), values),
        "description": _fill(str(template["description"]), values),
        "justification": _fill(str(template["justification"]), values),
        "implementation_plan": _fill(str(template["implementation_plan"]), values),
        "backout_plan": _fill(str(template["backout_plan"]), values),
        "test_plan": _fill(str(template["test_plan"]), values),
        "risk": str(template["risk"]),
        "impact": impact,
        "urgency": urgency,
        "priority": min(priority_for(impact, urgency), "4"),
        "category": str(template["category"]),
        "assignment_group": _group_id(world, group) if assigned else "",
        "assigned_to": assignee.sys_id if assignee else "",
        "requested_by": requester.sys_id,
        "opened_by": requester.sys_id,
        "opened_at": _fmt(opened),
        "start_date": _fmt(start),
        "end_date": _fmt(end),
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
    task = _Task(row, opened, state, group, assignee, template=template, end=finished, start=start)
    _close_change(world, task, start, end)
    task.updated = _change_updated(world, task, end)
    actor = assignee or requester
    # The last approval event (submission, a decision) may be what last touched the change.
    task.approvals, last_actor = _approvals(world, task, prior, actor)
    steps = len(flow[: flow.index(prior) + 1]) + (state == "4")
    row.update(_stamps(opened, requester.user_name, task.updated, (last_actor or actor).user_name, steps))
    return task


def _change_updated(world: _World, task: _Task, end: int) -> int:
    """When a change was last touched: its last step for past work, else some time since opening."""
    if task.state in ("3", "4"):
        return task.end
    if task.state == "0":
        return end
    if task.state == "-1":
        return (
            task.start + world.rng.randint(15 * _MINUTE, 30 * _MINUTE)
            if task.start < world.now - 30 * _MINUTE
            else world.now - _MINUTE
        )
    return _between(world.rng, task.opened + 10 * _MINUTE, world.now - 10 * _MINUTE)


def _close_change(world: _World, task: _Task, start: int, end: int) -> None:
    """Work times and closure of changes that have been implemented."""
    row, state, rng = task.row, task.state, world.rng
    if state in ("-1", "0", "3"):
        row["work_start"] = _fmt(start + _between(rng, 0, min(15 * _MINUTE, world.now - start - _MINUTE)))
    if state in ("0", "3"):
        row["work_end"] = _fmt(end - rng.randint(0, 15 * _MINUTE))
    if state == "3":
        code = _Picker(rng, _CHANGE_CLOSE_WEIGHTS)() if _CHANGE_CLOSE_CODES else ""
        row["close_code"] = code
        row["close_notes"] = _CHANGE_CLOSE_NOTES.get(code, "Change closed.")
        row["closed_at"] = _fmt(task.end)
        row["closed_by"] = task.assignee.sys_id if task.assignee else ""


def _group_manager(world: _World, name: str) -> Person | None:
    """The manager of a group, as a planned person."""
    manager = world.groups[name]["manager"] if name in world.groups else ""
    return next((p for p in world.members.get(name, []) if p.sys_id == manager), None)


def _cab_approvers(world: _World) -> list[Person]:
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
    top = last - (drawn + int(pinned)) * _MINUTE
    times = sorted(_between(rng, first, top) for _ in range(drawn))
    times = [when + index * _MINUTE for index, when in enumerate(times)]
    return [*times, last] if pinned else times


def _approvals(world: _World, task: _Task, prior: str, actor: Person) -> tuple[list[Row], Person | None]:
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
        last, pinned = min(task.updated, task.start) - _MINUTE, False
    else:
        last, pinned = task.updated, True
    times = _event_times(rng, task.opened + _MINUTE, last, n_events, pinned)
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
                **_stamps(
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
    cab_group = _group_id(world, CAB_GROUP)
    # One CAB decision settles it (the others no longer required); canceling cancels them all.
    if outcome in (APPROVED, REJECTED):
        decider = rng.choice(cab)
    elif outcome == CANCELLED:
        decider = actor
    for person in cab:
        state = outcome if outcome in (REQUESTED, CANCELLED) or person is decider else NOT_REQUIRED
        add(person, cab_group, cab_asked, asker, state, decider, decided)
    return out, (decider or asker) if pinned else None


# --------------------------------------------------------------------------------------------
# Problems
# --------------------------------------------------------------------------------------------


def _build_problems(world: _World) -> None:
    """Problem rows (incident links and counts are added when incidents are planned)."""
    rng = world.rng
    tasks = [
        _plan_problem(world, rng.choice(bank.PROBLEM_TEMPLATES), state)
        for state in _quota(rng, _PROBLEM_STATE_SHARES, world.counts["problems"])
    ]
    _number_in_order(world, "problem", tasks)
    world.problems = tasks
    for task in tasks:
        task.row["related_incidents"] = "0"
    world.add("problem", [task.row for task in tasks])


def _problem_times(world: _World, state: str) -> tuple[int, int]:
    """(opened, last update) of a problem; later states have been open longer."""
    rng, now = world.rng, world.now
    history = world.history()
    youngest, oldest = {
        "101": (_DAY, 20 * _DAY), "102": (3 * _DAY, 40 * _DAY), "103": (7 * _DAY, 90 * _DAY),
        "104": (10 * _DAY, 120 * _DAY), "106": (20 * _DAY, history), "107": (30 * _DAY, history),
    }[state]  # fmt: skip
    opened = now - rng.randint(youngest, max(youngest, oldest))
    return opened, _between(rng, opened + _HOUR, now - _HOUR)


def _plan_problem(world: _World, template: Mapping[str, object], state: str) -> _Task:
    """One problem; resolved and closed ones carry the notes their resolution code requires."""
    rng = world.rng
    opened, updated = _problem_times(world, state)
    group = str(template["group"])
    opener = _member_of(world, group)
    assignee = _member_of(world, group) if state != "101" else None
    impact, urgency = str(template["impact"]), str(template["urgency"])
    row = {
        **_TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "state": state,
        "problem_state": state,
        "active": "false" if state == "107" else "true",
        "short_description": str(template["short_description"]),
        "description": str(template["description"]),
        "assignment_group": _group_id(world, group),
        "assigned_to": assignee.sys_id if assignee else "",
        "opened_by": opener.sys_id,
        "opened_at": _fmt(opened),
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
        row["closed_at"] = _fmt(updated)
        row["closed_by"] = assignee.sys_id if assignee else ""
    actor = assignee or opener
    row.update(_stamps(opened, opener.user_name, updated, actor.user_name, 1 + int(state) - 101))
    return _Task(row, opened, state, group, assignee, template=template, end=updated)


def _resolve_problem(world: _World, row: Row, template: Mapping[str, object], group: str) -> None:
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


# --------------------------------------------------------------------------------------------
# Incidents and their journals
# --------------------------------------------------------------------------------------------


@dataclass(eq=False)
class _IncidentPlan:
    """Shared lookups while incidents are planned."""

    contact: _Picker
    hold: _Picker
    close_code: _Picker
    desk: list[Person]
    problems_by_category: dict[str, list[_Task]]
    problems: dict[str, Row]
    open_problems: list[_Task]
    open_changes: list[_Task]


def _incident_plan(world: _World) -> _IncidentPlan:
    rng = world.rng
    by_category: dict[str, list[_Task]] = {}
    for task in world.problems:
        by_category.setdefault(str(task.template["category"]), []).append(task)
    desk = [p for p in world.members[SERVICE_DESK] if p is not world.agent]
    codes = {code: _CLOSE_CODE_WEIGHTS.get(code, 2) for code in _INCIDENT_CLOSE_CODES}
    return _IncidentPlan(
        contact=_Picker(rng, _CONTACT_TYPES),
        hold=_Picker(rng, _HOLD_REASONS),
        close_code=_Picker(rng, codes),
        desk=desk or world.members[SERVICE_DESK],
        problems_by_category=by_category,
        problems={task.row["sys_id"]: task.row for task in world.problems},
        open_problems=[t for t in world.problems if t.state in ("101", "102", "103", "104")],
        open_changes=[t for t in world.changes if t.state in ("-5", "-4", "-3", "-2", "-1")],
    )


def _build_incidents(world: _World) -> None:
    """Incident rows, their journal entries, and the counts they feed (problems, CIs)."""
    rng = world.rng
    plan = _incident_plan(world)
    n_total = world.counts["incidents"]
    n_children = max(1, n_total * 3 // 100)
    states = _quota(rng, _INCIDENT_STATE_SHARES, n_total - n_children)
    callers = _incident_callers(world, states)
    tasks = [
        _plan_incident(world, plan, rng.randrange(len(bank.SYMPTOMS)), state, caller)
        for state, caller in zip(states, callers, strict=True)
    ]
    tasks += _duplicate_children(world, plan, tasks, n_children)
    _number_in_order(world, "incident", tasks)
    journals = [entry for task in tasks for entry in _finish_incident(world, task)]
    _count_links(world, tasks)
    world.add("incident", [task.row for task in tasks])
    world.add("sys_journal_field", journals)


def _incident_callers(world: _World, states: list[str]) -> list[Person]:
    """Who called about each incident.

    Callers are mostly random employees; a few frequent callers hold two or three open
    incidents each, a few VIPs have one, and the look-alike people are callers too, so
    scenarios must pick the right record.
    """
    rng = world.rng
    pool = _callers(world)
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


def _incident_times(world: _World, state: str, priority: str) -> tuple[int, int, int]:
    """(opened, resolved, closed) for an incident; unreached steps are 0.

    Resolved and closed incidents are placed backwards from their last event, so the order
    opened < resolved < closed < now always holds.
    """
    rng, now, history = world.rng, world.now, world.history()
    low, high = _RESOLVE_SECONDS[priority]
    if state == "1":
        return now - rng.randint(10 * _MINUTE, 2 * _DAY), 0, 0
    if state == "2":
        return now - rng.randint(2 * _HOUR, 14 * _DAY), 0, 0
    if state == "3":
        return now - rng.randint(_DAY, 21 * _DAY), 0, 0
    if state == "6":
        resolved = now - rng.randint(10 * _MINUTE, 6 * _DAY)
        return resolved - rng.randint(low, high), resolved, 0
    if state == "7":
        closed = now - rng.randint(_HOUR, history - 20 * _DAY)
        resolved = closed - rng.randint(_HOUR, 7 * _DAY)
        return resolved - rng.randint(low, high), resolved, closed
    canceled = now - rng.randint(_HOUR, history - 5 * _DAY)
    return canceled - rng.randint(10 * _MINUTE, 2 * _DAY), 0, canceled


def _impact_urgency(world: _World, template: Mapping[str, object], caller: Person) -> tuple[str, str]:
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


def _plan_incident(world: _World, plan: _IncidentPlan, topic: int, state: str, caller: Person) -> _Task:
    """One incident from the symptom template at index ``topic`` (text citing its number comes later)."""
    rng, template = world.rng, bank.SYMPTOMS[topic]
    impact, urgency = _impact_urgency(world, template, caller)
    priority = priority_for(impact, urgency)
    opened, resolved, closed = _incident_times(world, state, priority)
    group = str(template["group"])
    assignee = None if state == "1" and rng.random() < 0.5 else _member_of(world, group)
    contact = plan.contact()
    opener = caller if contact == "self-service" else rng.choice(plan.desk)
    ci = _pick_ci(world, template.get("ci_kind"), caller)
    values = _text_values(world, ci, caller)
    row = {
        **_TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "state": state,
        "incident_state": state,
        "active": "true" if state in ("1", "2", "3", "6") else "false",
        "short_description": _fill(str(template["short_description"]), values),
        "description": _fill(str(template["description"]), values),
        "category": str(template["category"]),
        "subcategory": str(template["subcategory"]),
        "impact": impact,
        "urgency": urgency,
        "priority": priority,
        "caller_id": caller.sys_id,
        "opened_by": opener.sys_id,
        "opened_at": _fmt(opened),
        "contact_type": contact,
        "location": world.locations[caller.location]["sys_id"],
        "assignment_group": _group_id(world, group),
        "assigned_to": assignee.sys_id if assignee else "",
        "cmdb_ci": ci["sys_id"] if ci else "",
        "reassignment_count": "0" if state == "1" else rng.choices(("0", "1", "2"), (70, 22, 8))[0],
        "reopen_count": "" if rng.random() < 0.1 else "0",
        "child_incidents": "0",
        "severity": "3",
        "notify": "1",
        "sys_class_name": "incident",
    }
    task = _Task(row, opened, state, group, assignee, caller, template, resolved=resolved, closed=closed)
    task.topic, task.opener = topic, opener
    _link_problem(world, plan, task)
    _hold_or_close(world, plan, task)
    _sla(task, world.now)
    return task


def _link_problem(world: _World, plan: _IncidentPlan, task: _Task) -> None:
    """About one incident in eight is linked to a problem about the same category."""
    candidates = plan.problems_by_category.get(str(task.template["category"]))
    if candidates and world.rng.random() < 0.12:
        task.row["problem_id"] = world.rng.choice(candidates).row["sys_id"]


def _hold_or_close(world: _World, plan: _IncidentPlan, task: _Task) -> None:
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
        task.updated = _between(rng, task.opened + _MINUTE, end - _MINUTE)
        row["reopen_count"], row["reopened_by"] = "1", task.caller.sys_id
        row["reopened_time"] = _fmt(task.updated)
    if task.state in ("6", "7"):
        assert task.assignee is not None
        row["close_code"] = _close_code(world, plan, task)
        row["resolved_at"], row["resolved_by"] = _fmt(task.resolved), task.assignee.sys_id
    if task.state == "7":
        assert task.assignee is not None
        row["closed_at"], row["closed_by"] = _fmt(task.closed), task.assignee.sys_id


def _close_code(world: _World, plan: _IncidentPlan, task: _Task) -> str:
    """A resolution code that fits the incident: problem-linked ones often cite their problem.

    "Resolved by problem" needs a problem that is resolved or closed, "Known error" one that
    is marked a known error.
    """
    problem = plan.problems.get(task.row.get("problem_id", ""))
    if problem is not None and world.rng.random() < 0.6:
        if problem["state"] in ("106", "107") and "Resolved by problem" in _INCIDENT_CLOSE_CODES:
            return "Resolved by problem"
        if problem["known_error"] == "true" and "Known error" in _INCIDENT_CLOSE_CODES:
            return "Known error"
    return plan.close_code()


def _sla(task: _Task, now: int) -> None:
    """sla_due for active incidents, and made_sla from when (or whether) the target was met."""
    row = task.row
    due = task.opened + _SLA_HOURS[row["priority"]] * _HOUR
    row["sla_due"] = _fmt(due) if row["active"] == "true" else ""
    finished = task.resolved or (task.closed if task.state == "8" else 0) or now
    row["made_sla"] = "true" if finished <= due else "false"


#: Fields a duplicate child incident copies from its parent.
_SHARED_WITH_PARENT = (
    "short_description", "description", "category", "subcategory", "cmdb_ci", "assignment_group",
    "assigned_to", "resolved_at", "resolved_by", "closed_at", "closed_by",
)  # fmt: skip


def _duplicate_children(world: _World, plan: _IncidentPlan, tasks: list[_Task], n: int) -> list[_Task]:
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
    callers = _callers(world)
    children = []
    for _ in range(n if parents else 0):
        parent = rng.choice(parents)
        caller = rng.choice(callers)
        while caller is parent.caller:
            caller = rng.choice(callers)
        state = parent.state if parent.state in ("6", "7") else "2"
        child = _plan_incident(world, plan, parent.topic, state, caller)
        until = min(world.now, parent.resolved or world.now) - 2 * _MINUTE
        child.opened = _between(rng, parent.opened + 5 * _MINUTE, until)
        child.resolved, child.closed, child.updated = parent.resolved, parent.closed, 0
        child.assignee, child.group = parent.assignee, parent.group
        row = child.row
        for name in _SHARED_WITH_PARENT:
            row[name] = parent.row.get(name, "")
        row["opened_at"], row["parent_incident"] = _fmt(child.opened), parent.row["sys_id"]
        row.update({"problem_id": "", "hold_reason": "", "rfc": "", "reopen_count": "0"})
        row.update({"reopened_by": "", "reopened_time": ""})
        if state in ("6", "7"):
            row["close_code"] = (
                "Duplicate" if "Duplicate" in _INCIDENT_CLOSE_CODES else parent.row["close_code"]
            )
        _sla(child, world.now)
        parent.row["child_incidents"] = str(int(parent.row["child_incidents"]) + 1)
        children.append(child)
    return children


def _situation(task: _Task) -> tuple[str, ...]:
    """The situations an incident is in that some journal lines speak of (see _SITUATIONAL)."""
    row = task.row
    flags = {
        "duplicate": bool(row.get("parent_incident")),
        "problem": bool(row.get("problem_id")),
        "vendor": row.get("hold_reason") == "4",
        "change": bool(row.get("rfc")) or row.get("close_code") == "Resolved by change",
        "no_response": row.get("close_code") == "No resolution provided",
        "done": task.state in ("6", "7"),
    }
    return tuple(name for name, on in flags.items() if on)


def _journal_values(task: _Task) -> dict[str, str]:
    """Values for the journal placeholders of one incident."""
    assert task.caller is not None
    return {"caller_first_name": task.caller.first_name, "group": task.group, "number": task.row["number"]}


def _finish_incident(world: _World, task: _Task) -> list[Row]:
    """Close notes (they may cite the number), journal entries and the update stamps."""
    rng, row = world.rng, task.row
    values = _journal_values(task)
    situation = _situation(task)
    if task.state in ("6", "7"):
        row["close_notes"] = _fill(
            rng.choice(_close_notes_for(row["close_code"], task.topic, situation)), values
        )
    entries = _journal_entries(world, task, values, situation)
    assert task.caller is not None
    opener = task.opener or task.caller
    last, actor = task.opened, opener
    for when, person, _ in entries:
        last, actor = when, person
    if task.updated > last:  # reopened by the caller after the last note
        last, actor = task.updated, task.caller
    for when in (task.resolved, task.closed):
        if when and when >= last:
            last, actor = when, task.assignee or actor
    steps = {"1": 0, "2": 1, "3": 2, "6": 2, "7": 3, "8": 1}[task.state] + int(row["reassignment_count"])
    row.update(_stamps(task.opened, opener.user_name, last, actor.user_name, 1 + steps + len(entries)))
    return [
        {
            "sys_id": world.sys_id(),
            "element": element,
            "element_id": row["sys_id"],
            "name": "incident",
            "value": text,
            **_stamps(when, person.user_name),
        }
        for when, person, (element, text) in entries
    ]


_Entry = tuple[int, Person, tuple[str, str]]


def _journal_entries(
    world: _World, task: _Task, values: Mapping[str, str], situation: tuple[str, ...]
) -> list[_Entry]:
    """Work notes and comments on an incident, in time order, between opening and its end.

    The worker (IT staff) writes work notes and the service desk's comments; some comments are
    the caller's own replies, from the caller-reply bank. An incident awaiting the caller ends
    with a comment to them.
    """
    rng = world.rng
    n = rng.choice(_JOURNAL_COUNTS[task.state])
    if n == 0:
        return []
    end = min(task.resolved or task.closed or world.now, world.now) - _MINUTE
    times = sorted(_between(rng, task.opened + _MINUTE, end) for _ in range(n))
    worker = task.assignee or _member_of(world, task.group)
    assert task.caller is not None
    agent_says = _journal_lines("comments", task.topic, situation)
    caller_says = _journal_lines("replies", task.topic, situation)
    work_notes = _journal_lines("work_notes", task.topic, situation)
    entries: list[_Entry] = []
    for index, when in enumerate(times):
        to_caller = task.state == "3" and index == n - 1 and task.row.get("hold_reason") == "1"
        if to_caller or rng.random() < 0.4:
            if not to_caller and caller_says and rng.random() < 0.3:
                entries.append((when, task.caller, ("comments", _fill(rng.choice(caller_says), values))))
            else:
                entries.append((when, worker, ("comments", _fill(rng.choice(agent_says), values))))
        else:
            entries.append((when, worker, ("work_notes", _fill(rng.choice(work_notes), values))))
    return entries


def _allowed(text: str, situation: tuple[str, ...]) -> bool:
    """False for a line about a situation the incident is not in (a duplicate, a vendor case)."""
    return all(name in situation for name in _situations_named(text))


@cache
def _situations_named(text: str) -> tuple[str, ...]:
    """The situations a journal line speaks of (see _SITUATIONAL)."""
    return tuple(name for name, pattern in _SITUATIONAL.items() if pattern.search(text))


@cache
def _content_words(text: str) -> frozenset[str]:
    """The words of a text that say what it is about (placeholders and filler words dropped)."""
    plain = re.sub(r"\{[a-z_]+\}", " ", text.lower())
    return frozenset(w for w in re.findall(r"[a-z][a-z0-9]+", plain) if len(w) >= 3 and w not in _STOP_WORDS)


@cache
def _symptom_words() -> tuple[frozenset[str], ...]:
    """Content words of each symptom template (its text, subcategory and keywords)."""
    return tuple(
        _content_words(f"{spec['short_description']} {spec['description']} {spec['subcategory']}")
        | {word.lower() for word in spec["keywords"]}
        for spec in bank.SYMPTOMS
    )


def _on_topic(texts: Sequence[str], topic: int) -> list[str]:
    """Lines that fit a symptom: ones sharing two or more content words with it, and generic ones.

    The bank's journal lines mix generic ones ("Remote session established") with ones about a
    particular fault ("Mailbox at 49.7 GB"); a line that shares that little with every symptom
    is generic. Word overlap is a rough test, but it keeps most notes on topic.
    """
    mine = _symptom_words()[topic]
    return [text for text in texts if len(_content_words(text) & mine) >= _TOPIC_OVERLAP or _is_generic(text)]


@cache
def _is_generic(text: str) -> bool:
    """True for a journal line that is about no symptom in particular."""
    words = _content_words(text)
    return all(len(words & topic) < _TOPIC_OVERLAP for topic in _symptom_words())


#: The bank's journal lines by kind: internal work notes, the service desk's comments to the
#: caller, and the caller's own replies.
_JOURNAL_BANKS: dict[str, tuple[str, ...]] = {
    "work_notes": bank.WORK_NOTE_TEMPLATES,
    "comments": bank.COMMENT_TEMPLATES,
    "replies": bank.CALLER_REPLY_TEMPLATES,
}


@cache
def _journal_lines(kind: str, topic: int, situation: tuple[str, ...]) -> tuple[str, ...]:
    """Bank lines of one kind (work_notes, comments, replies) that fit an incident (cached)."""
    texts = _JOURNAL_BANKS[kind]
    fitting = tuple(_on_topic([t for t in texts if _allowed(t, situation)], topic))
    return fitting or texts


@cache
def _close_notes_for(code: str, topic: int, situation: tuple[str, ...]) -> tuple[str, ...]:
    """Close notes that fit a resolution code, a symptom and the incident's situation.

    Notes that name a resolution code ("User error: ...") go only with that code. When the
    bank has little that fits, a note citing the symptom's knowledge article is added.
    """
    notes = [note for note in bank.CLOSE_NOTES_TEMPLATES if _allowed(note, situation)]
    named = [note for note in notes if code.lower() in note.lower()]
    if named and code in ("Duplicate", "Resolved by change"):
        return tuple(named)
    others = [other.lower() for other in _INCIDENT_CLOSE_CODES if other != code]
    fitting = _on_topic([note for note in notes if not any(other in note.lower() for other in others)], topic)
    kb_topic = bank.SYMPTOMS[topic].get("kb_topic")
    if kb_topic in bank.KB_TOPICS and len(fitting) < 3:
        article = bank.KB_TOPICS[kb_topic]["short_description"]
        fitting.append(
            f'Followed the knowledge article "{article}" with {{caller_first_name}}; confirmed working.'
        )
    return tuple(fitting or bank.CLOSE_NOTES_TEMPLATES)


def _count_links(world: _World, tasks: list[_Task]) -> None:
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


# --------------------------------------------------------------------------------------------
# Service catalog requests
# --------------------------------------------------------------------------------------------


def _build_requests(world: _World) -> None:
    """sc_request rows and their sc_req_item rows, as the catalog's order service makes them."""
    rng = world.rng
    phase = _Picker(rng, _REQUEST_PHASES)
    pool = _callers(world)
    items = list(bank.CATALOG_ITEMS)
    item_rows = world.rows["sc_cat_item"]
    requests = [_plan_request(world, phase(), rng.choice(pool)) for _ in range(world.counts["requests"])]
    _number_in_order(world, "sc_request", requests)
    ritms: list[_Task] = []
    for request in requests:
        chosen = rng.sample(range(len(items)), min(len(items), rng.choices((1, 2, 3), (75, 20, 5))[0]))
        lines = [_plan_item(world, request, items[i], item_rows[i]) for i in chosen]
        _roll_up(request, lines)
        ritms += lines
    # Items are numbered in request order, as the catalog checkout creates them.
    for task in ritms:
        task.row["number"] = world.build.number("sc_req_item")
    world.add("sc_request", [task.row for task in requests])
    world.add("sc_req_item", [task.row for task in ritms])


def _plan_request(world: _World, phase: str, requester: Person) -> _Task:
    """One request header in a phase (just ordered, in progress or closed)."""
    rng, now = world.rng, world.now
    if phase == "closed":
        closed = now - rng.randint(_HOUR, world.history() - 20 * _DAY)
        opened = closed - rng.randint(_DAY, 10 * _DAY)
    else:
        opened, closed = now - rng.randint(_HOUR, 20 * _DAY), 0
    by_manager = requester.manager is not None and requester.manager.active and rng.random() < 0.3
    opener = requester.manager if by_manager and requester.manager else requester
    row = {
        **_TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "requested_for": requester.sys_id,
        "opened_by": opener.sys_id,
        "opened_at": _fmt(opened),
        "requested_date": _fmt_date(opened),
        "sys_class_name": "sc_request",
    }
    return _Task(row, opened, phase, caller=opener, closed=closed)


def _item_state(world: _World, phase: str) -> str:
    """A requested item's state in its request's phase."""
    rng = world.rng
    if phase == "open":
        return OPEN_ITEM
    if phase == "in_progress":
        return rng.choices((OPEN_ITEM, "2", "3"), (2, 6, 2))[0]
    return rng.choices(("3", "4", "7"), (85, 9, 6))[0]


def _plan_item(world: _World, request: _Task, spec: Mapping[str, str], item: Row) -> _Task:
    """One requested item (RITM) of a request, with the values the catalog service derives.

    Like ``services/catalog.py`` on insert: the item's name as short description, its unit
    price, its fulfilment group, the request's requester and opener, Open at stage
    ``request_approved`` and approved (catalog items need no approval). A closed item is
    inactive, with when and by whom it was closed and its closed state's stage.
    """
    rng = world.rng
    state = _item_state(world, request.state)
    group = spec["group"]
    closed_state = state in CLOSED_STAGES
    # Fulfilment starts once work does; a skipped item is closed by its group without work.
    worker = _member_of(world, group) if state in ("2", "3", "4") else None
    closer = (worker or _member_of(world, group)) if closed_state else None
    quantity = 2 if rng.random() < 0.08 else 1
    row = {
        **_TASK_DEFAULTS,
        "sys_id": world.sys_id(),
        "request": request.row["sys_id"],
        "requested_for": request.row["requested_for"],
        "cat_item": item["sys_id"],
        "short_description": item["name"],
        "quantity": str(quantity),
        "price": money(parse_price(item["price"])),
        "state": state,
        "stage": CLOSED_STAGES[state] if closed_state else OPEN_ITEM_STAGE,
        "approval": "approved",
        "active": "false" if closed_state else "true",
        "opened_by": request.row["opened_by"],
        "opened_at": request.row["opened_at"],
        "assignment_group": item["group"],
        "assigned_to": worker.sys_id if worker else "",
        "sys_class_name": "sc_req_item",
    }
    closed = 0
    if closer is not None:
        closed = request.closed or _between(rng, request.opened + _HOUR, world.now - _MINUTE)
        row["closed_at"] = _fmt(closed)
        row["closed_by"] = closer.sys_id
    return _Task(row, request.opened, state, group, worker, closed=closed, closer=closer)


def _roll_up(request: _Task, lines: list[_Task]) -> None:
    """The request's state, total price, text and stamps from its items."""
    row, states = request.row, [line.state for line in lines]
    if all(state in CLOSED_STAGES for state in states):
        state = "3" if "3" in states else "4" if "4" in states else "7"
    elif "2" in states or "3" in states:
        state = "2"
    else:
        state = OPEN_ITEM  # as ordered: the service's new request
    closed = [line.closed for line in lines if line.closed]
    # The catalog's request_total: the sum of price x quantity over the items.
    total = sum((parse_price(line.row["price"]) * int(line.row["quantity"]) for line in lines), Decimal(0))
    names = [line.row["short_description"] for line in lines]
    ordered = "; ".join(f"{line.row['quantity']} x {name}" for line, name in zip(lines, names, strict=True))
    row.update(
        {
            "state": state,
            "request_state": _REQUEST_STATE_NAMES[state],
            "stage": _REQUEST_STATE_NAMES[state],
            "approval": "approved",
            "active": "false" if state in CLOSED_STAGES else "true",
            "price": money(total),
            "short_description": names[0] if len(lines) == 1 else f"Request for {len(lines)} items",
            "description": f"Order: {ordered}",
        }
    )
    if row["active"] == "false":
        last = max(lines, key=lambda line: line.closed)
        row["closed_at"], row["closed_by"] = last.row["closed_at"], last.row["closed_by"]
    assert request.caller is not None
    opener = request.caller.user_name
    row.update(_stamps(request.opened, opener, max([request.opened, *closed]), opener, 1 + len(closed)))
    for line in lines:
        worker = line.closer or line.assignee
        actor = worker.user_name if worker else opener
        mods = int(line.state != OPEN_ITEM) + bool(line.closed)
        line.row.update(_stamps(request.opened, opener, line.closed or request.opened, actor, mods))
