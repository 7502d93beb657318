"""What a mocked system provides to the shared machinery: one object per system."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import MetaData

from enterprise_envs.mocks._core.access import AccessPolicy, Identity
from enterprise_envs.mocks._core.conventions import Conventions
from enterprise_envs.mocks._core.errors import ToolError
from enterprise_envs.mocks._core.observables import NotificationRule
from enterprise_envs.mocks._core.people import Person
from enterprise_envs.mocks._core.schema import Catalog
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks._core.tools import Surface

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.http import HttpApi
    from enterprise_envs.mocks._core.snapshot import WorldBuild

#: World sizes every system offers: tiny for tests, default for training, large for benchmarks.
WORLD_SIZES = ("tiny", "default", "large")


@dataclass(frozen=True)
class System:
    """A mocked back-end, as the shared machinery sees it.

    Attributes:
        name: System id (``itsm``).
        catalog: Its tables.
        metadata: SQLAlchemy metadata of its SQLModel classes (creates the schema).
        build_world: Fills an empty database for a (size, seed); see :class:`WorldBuild`.
        epoch: The world's "now" at reset.
        surfaces: Surface name -> factory (surfaces are built lazily, once per process).
        render_error: ToolError -> the vendor's error body.
        access: The access policy every call goes through.
        agent_identity: Who the agent is in a freshly reset world.
        user_identity: The identity of a world user by login name (None if there is none), for
            scenario setup and tests acting as someone else.
        settings: Instance switches and their defaults (vendor behaviour that varies by instance).
        hostile_text: Label -> a unit of text that stresses this system's own parsers (its query
            syntax, its record numbers), repeated to the longest input allowed by the hostile
            inputs of the bench and the tests (``enterprise_envs/hostile.py``).
        notifications: What the system tells a person on its own (a record opened for them, a
            comment on their ticket): the only state a simulated user ever sees
            (:mod:`~enterprise_envs.mocks._core.observables`).
        conventions: Its key, id and number formats, date formats, vocabulary and audit hints
            (:mod:`~enterprise_envs.mocks._core.conventions`): what generic code asks instead
            of assuming.
        directory: The people of a built world (``Store -> Person``s), if this system can be
            the people source of a :class:`~enterprise_envs.mocks._core.world.World`: the
            other systems in the world build the same employees from it.
        people_rank: How complete this system's record of people is, among the systems that can
            list them: a World takes its people from the highest-ranked one (the first on a
            tie), whatever the order of its systems. ITSM's records (departments, managers,
            employee numbers, teams) outrank an identity provider's, which outrank a chat
            workspace's (names and e-mail).
        person_login: The World login of the person a key of this system names (None if it
            names nobody): the inverse of ``user_identity``, so a World finds one person in
            each of its systems (``World.person_keys``).
        setup_user: The login scenario setup acts as unless a call names another.
        http: Builds the vendor's own HTTP API over one of the surfaces (routes, credentials,
            the vendor's answers; :mod:`~enterprise_envs.mocks._core.http`), for systems that
            can be served as that API (``serve SYSTEM --transport rest``); None if it cannot.
    """

    name: str
    catalog: Catalog
    metadata: MetaData
    build_world: Callable[[WorldBuild], None]
    epoch: datetime
    surfaces: Mapping[str, Callable[[], Surface]]
    render_error: Callable[[ToolError], Any]
    access: AccessPolicy
    agent_identity: Callable[[Store], Identity]
    user_identity: Callable[[Store, str], Identity | None]
    settings: Mapping[str, Any] = field(default_factory=dict)
    hostile_text: Mapping[str, str] = field(default_factory=dict)
    notifications: tuple[NotificationRule, ...] = ()
    conventions: Conventions = field(default_factory=Conventions)
    directory: Callable[[Store], tuple[Person, ...]] | None = None
    people_rank: int = 0
    person_login: Callable[[Store, str], str | None] | None = None
    setup_user: str = ""
    http: Callable[[], HttpApi] | None = None
    _built: dict[str, Surface] = field(default_factory=dict, init=False, repr=False, compare=False)
    _api: list[HttpApi] = field(default_factory=list, init=False, repr=False, compare=False)

    def surface(self, name: str) -> Surface:
        """The named tool surface (built on first use, then shared)."""
        built = self._built.get(name)
        if built is None:
            if name not in self.surfaces:
                raise KeyError(f"{self.name}: no surface {name!r} (have {sorted(self.surfaces)})")
            built = self._built[name] = self.surfaces[name]()
        return built

    def http_api(self) -> HttpApi:
        """The vendor's HTTP API (built on first use, then shared).

        Raises:
            KeyError: The system cannot be served as its vendor's API.
        """
        if not self._api:
            if self.http is None:
                raise KeyError(f"{self.name}: no HTTP API (it is served over MCP only)")
            self._api.append(self.http())
        return self._api[0]
