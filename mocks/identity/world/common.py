"""What the identity world's builders share: sizes, the bank, time, and the planning state.

Times are integer UNIX seconds while planning, written once in Okta's format when a row is
made. Every recorded time lies at or before the world's epoch.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.ids import seeded_rng
from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.identity.conventions import factor_id, log_uuid, table_id

MINUTE = 60
HOUR = 60 * MINUTE
DAY = 24 * HOUR
YEAR = 365 * DAY

#: Per world size: how many people the org has when it makes its own (with a people source, the
#: source's), and how far back its history reaches.
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"people": 40, "history_days": 120, "namesakes": 2},
    "default": {"people": 200, "history_days": 180, "namesakes": 4},
    "large": {"people": 5000, "history_days": 730, "namesakes": 40},
}

#: The help-desk agent's account (its login's short name): a Help Desk Administrator.
AGENT_SHORT_NAME = "it-helpdesk"
#: The account scenario setup acts as: a Super Administrator.
ADMIN_SHORT_NAME = "okta-admin"


@cache
def bank() -> dict[str, Any]:
    """The world's text bank and shares (``bank.json``), parsed once."""
    return json.loads(resources.files(__package__).joinpath("bank.json").read_text(encoding="utf-8"))


@dataclass(eq=False)
class UserPlan:
    """One user while the world is planned.

    Attributes:
        id: The user's Okta id.
        short: The login's short name (the World's login for people from a directory).
        domain: The login's domain.
        first_name: Given name.
        last_name: Family name.
        email: Primary e-mail address.
        department: Department name.
        title: Job title.
        kind: ``person`` (an employee), ``leaver`` (a former one) or ``service`` (an account
            that is not a person).
        manager: The manager's plan, if any.
        status: The Okta status.
        roles: Admin role types assigned to the user directly.
        admin_groups: The admin groups (groups holding a role) the user is a member of.
        employee_number: The employee number, when the org makes its own people.
        mobile_phone: The mobile phone number.
        created: When the account was made, and the lifecycle times after it (0: never).
    """

    id: str
    short: str
    domain: str
    first_name: str
    last_name: str
    email: str
    department: str = ""
    title: str = ""
    kind: str = "person"
    manager: UserPlan | None = None
    status: str = "ACTIVE"
    roles: list[str] = field(default_factory=list)
    admin_groups: list[str] = field(default_factory=list)
    employee_number: str = ""
    mobile_phone: str = ""
    created: int = 0
    activated: int = 0
    status_changed: int = 0
    last_login: int = 0
    password_changed: int = 0

    @property
    def login(self) -> str:
        """The Okta login (an e-mail-shaped user name)."""
        return f"{self.short}@{self.domain}"

    @property
    def display_name(self) -> str:
        """The name shown for the user."""
        return f"{self.first_name} {self.last_name}".strip()

    @property
    def last_updated(self) -> int:
        """The latest of the user's own times."""
        return max(self.created, self.activated, self.status_changed, self.password_changed)


@dataclass(eq=False)
class GroupPlan:
    """One group while the world is planned (its row, and its members' plans in order)."""

    row: dict[str, str]
    members: list[UserPlan] = field(default_factory=list)
    created: int = 0

    @property
    def id(self) -> str:
        """The group's Okta id."""
        return self.row["id"]

    @property
    def name(self) -> str:
        """The group's name."""
        return self.row["name"]


class Plan:
    """The planning state of one identity world.

    Args:
        build: The empty database and the seeded sources.
    """

    def __init__(self, build: WorldBuild) -> None:
        self.build = build
        self.rng = build.rng
        self.faker = build.faker
        # Keys come from their own stream, in Okta's per-table shapes (WorldBuild.ids makes only
        # the generic engine's user-shaped keys).
        self.ids = seeded_rng(build.system.name, "okta-ids", build.size, build.seed)
        self.now = int(build.clock.now().timestamp())
        self.sizes = SIZES[build.size]
        self.history = self.sizes["history_days"] * DAY
        self.org_created = self.now - self.history - 3 * YEAR
        self.datetime_format = build.system.conventions.formats.datetime
        #: The org's mail domain (its people's most common one).
        self.domain = ""
        self.users: list[UserPlan] = []
        self.groups: dict[str, GroupPlan] = {}
        self.apps: list[dict[str, str]] = []
        self.rows: dict[str, list[dict[str, str]]] = {}

    def key(self, table: str) -> str:
        """A new key for a row of ``table``."""
        return table_id(self.ids, table)

    def factor_key(self, factor_type: str, provider: str) -> str:
        """A new factor id."""
        return factor_id(self.ids, factor_type, provider)

    def event_key(self) -> str:
        """A new System Log event uuid."""
        return log_uuid(self.ids)

    def fmt(self, moment: int) -> str:
        """A planned time in Okta's format ("" for never)."""
        if not moment:
            return ""
        return datetime.fromtimestamp(min(moment, self.now), UTC).strftime(self.datetime_format)

    def between(self, start: int, end: int) -> int:
        """A random time in [start, end] (end if the range is empty), never after now."""
        end = min(end, self.now)
        return end if end <= start else self.rng.randint(start, end)

    def add(self, table: str, rows: list[dict[str, str]]) -> None:
        """Queue rows for the bulk insert at the end."""
        self.rows.setdefault(table, []).extend(rows)

    @property
    def people(self) -> list[UserPlan]:
        """The employees (no leavers, no service accounts)."""
        return [user for user in self.users if user.kind == "person"]

    @property
    def live_users(self) -> list[UserPlan]:
        """Every user that is not deprovisioned."""
        return [user for user in self.users if user.status != "DEPROVISIONED"]


def share(rng: random.Random, shares: dict[str, float], department: str) -> bool:
    """Draw whether someone of ``department`` is in, by the department's share (``*``: the rest)."""
    return rng.random() < shares.get(department, shares.get("*", 0.0))
