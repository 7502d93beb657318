"""A World: the systems of one episode, with one clock, one fault injector and one people directory.

Every layer above the mocks speaks to a World. It holds one :class:`Backend` per system and
presents them as one back-end: one call pipeline (tools routed by name), one store view and one
catalog (tables by qualified name), one ordered log of writes, denials and refusals.

Names. With one system the World is the degenerate case and names nothing new: tools, tables
and logs keep the system's own names, and a qualified table name (``itsm.incident``) is accepted
wherever a bare one is. With several, every name above the mocks is qualified: tables as
``<system>.<table>``, tools as ``<system>_<tool>`` (FastMCP's namespace form, so MCP and Gym
list the same names). Each system's ``wait`` lets the one clock run.

People. Of the systems that can list their people (``System.directory``), the one whose record
of them is the most complete (``System.people_rank``; the first on a tie) is the people source;
every other system builds its world from that directory (``WorldBuild.people``), so the same
employee exists in each with the same name, e-mail and manager.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from enterprise_envs.mocks._core.backend import Backend, CallResult, Denial, Refusal, Write
from enterprise_envs.mocks._core.errors import invalid
from enterprise_envs.mocks._core.faults import FaultConfig, FaultEvent, FaultInjector
from enterprise_envs.mocks._core.ids import seeded_rng
from enterprise_envs.mocks._core.inputs import echo
from enterprise_envs.mocks._core.people import Directory
from enterprise_envs.mocks._core.schema import Catalog
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface

#: Joins a system and its table in a qualified table name (``itsm.incident``).
TABLE_SEPARATOR = "."
#: Joins a system and its tool in a namespaced tool name (``itsm_create_incident``), as FastMCP's
#: ``mount(namespace=...)`` does.
TOOL_SEPARATOR = "_"


#: Joins the systems of a world in its key (``itsm+kv``): what an MCP endpoint serving episodes
#: of that world, or a hub entry holding one, is named by.
WORLD_KEY_SEPARATOR = "+"


def world_key(systems: Sequence[str]) -> str:
    """The key of a world of ``systems`` (the system's own name for a world of one)."""
    return WORLD_KEY_SEPARATOR.join(systems)


def world_systems(key: str) -> tuple[str, ...]:
    """The systems a world key names, in order."""
    return tuple(key.split(WORLD_KEY_SEPARATOR))


def qualify(system: str, table: str) -> str:
    """A qualified table name."""
    return f"{system}{TABLE_SEPARATOR}{table}"


def split_table(name: str, default: str) -> tuple[str, str]:
    """(system, table) of a table name; a bare name belongs to ``default``."""
    system, dot, table = name.partition(TABLE_SEPARATOR)
    return (system, table) if dot else (default, name)


def tool_name(system: str, tool: str, systems: Sequence[str]) -> str:
    """The name an agent calls a system's tool by in a world of ``systems``."""
    if len(systems) == 1:
        return tool
    return f"{system}{TOOL_SEPARATOR}{tool}"


class WorldCatalog(Catalog):
    """The tables of several systems by qualified name, references qualified too."""

    def __init__(self, catalogs: Mapping[str, Catalog]) -> None:
        tables = []
        for system, catalog in catalogs.items():
            for spec in catalog.values():
                fields = tuple(
                    dataclasses.replace(f, reference=qualify(system, f.reference))
                    if f.reference and catalog.is_local(f.reference)
                    else f
                    for f in spec.fields
                )
                tables.append(dataclasses.replace(spec, name=qualify(system, spec.name), fields=fields))
        super().__init__("+".join(catalogs), tables)
        #: Qualified table name -> the system's own catalog entry.
        self.local = {qualify(s, t): (s, t) for s, catalog in catalogs.items() for t in catalog}


class WorldStore:
    """The stores of several systems read as one, tables by qualified name (the verifier's view).

    Reads only: writes go through tool calls (the call pipeline), never through this view.
    """

    def __init__(self, world: World) -> None:
        self._world = world
        self.catalog = world.catalog

    def _route(self, table: str) -> tuple[Any, str]:
        system, local = split_table(table, self._world.primary)
        backend = self._world.backends.get(system)
        if backend is None:
            raise KeyError(table)
        return backend.store, local

    @property
    def snapshot_key(self) -> tuple[Any, ...]:
        """The snapshot keys of every store (caches keyed on the world's start state)."""
        return tuple(b.store.snapshot_key for b in self._world.backends.values())

    def get(self, table: str, key: str) -> Row | None:
        """The row of ``table`` with this key, or None."""
        store, local = self._route(table)
        return store.get(local, key)

    def find_one(self, table: str, column: str, value: str) -> Row | None:
        """The first row whose ``column`` equals ``value``, or None."""
        store, local = self._route(table)
        return store.find_one(local, column, value)

    def select(self, table: str, *args: Any, **kwargs: Any) -> list[dict[str, str]]:
        """Rows of ``table`` (``Store.select``'s arguments)."""
        store, local = self._route(table)
        return store.select(local, *args, **kwargs)

    def count(self, table: str, where: str = "1", params: Sequence[Any] = ()) -> int:
        """How many rows of ``table`` match."""
        store, local = self._route(table)
        return store.count(local, where, params)

    def column_values(self, table: str, column: str, *args: Any, **kwargs: Any) -> list[str]:
        """One column of the matching rows of ``table``."""
        store, local = self._route(table)
        return store.column_values(local, column, *args, **kwargs)

    def first_image(self, table: str, key: str) -> Row | None:
        """A row as it was before its first change this episode."""
        store, local = self._route(table)
        return store.first_image(local, key)

    def start_values(self, table: str, column: str, min_length: int = 0) -> set[str]:
        """The values a column held at the episode's start."""
        store, local = self._route(table)
        return store.start_values(local, column, min_length)

    def new_defaults(self, table: str, key: str) -> Any:
        """The defaults recorded for a row created this episode."""
        store, local = self._route(table)
        return store.new_defaults(local, key)

    def changed_rows(self) -> list[tuple[str, str, Row | None]]:
        """(qualified table, key, before) of every changed row, system by system in world order."""
        return [
            (qualify(name, table), key, before)
            for name, backend in self._world.backends.items()
            for table, key, before in backend.store.changed_rows()
        ]

    def changed_keys(self) -> list[tuple[str, str, bool]]:
        """(qualified table, key, inserted) of every changed row."""
        return [
            (qualify(name, table), key, inserted)
            for name, backend in self._world.backends.items()
            for table, key, inserted in backend.store.changed_keys()
        ]


class World:
    """The systems of one episode as one back-end.

    Args:
        systems: The systems, the primary one (whose names are implied) first.
        size: World size.
        world_seed: Which worlds to restore.
        surface: Each system's surface for agent calls.
    """

    def __init__(
        self, systems: Sequence[System], *, size: str = "default", world_seed: int = 0, surface: str = "typed"
    ) -> None:
        if not systems:
            raise ValueError("a world needs at least one system")
        names = [system.name for system in systems]
        if len(set(names)) != len(names):
            raise ValueError(f"a system appears twice in a world: {names}")
        self.systems: dict[str, System] = {system.name: system for system in systems}
        self.names = tuple(names)
        self.primary = names[0]
        self.size = size
        self.world_seed = world_seed
        self.surface_name = surface
        self.lock = threading.RLock()
        self.backends: dict[str, Backend] = {}
        #: The world's people (none when no system of the world can list its own).
        self.directory: Directory | None = None
        # The people come from the most complete record of them (System.people_rank; the first on
        # a tie), not from whichever system a scenario names first.
        listing = [system for system in systems if system.directory is not None]
        # max() keeps the first of equals, so a tie goes to the system named first.
        source = max(listing, key=lambda system: system.people_rank) if listing else None
        if source is not None and len(systems) > 1:
            # The source's world is built first; its people seed every other system's world.
            first = self.backends[source.name] = Backend(
                source, size=size, world_seed=world_seed, surface=surface
            )
            assert source.directory is not None
            self.directory = Directory(source.name, source.directory(first.store))
        for system in systems:
            if system.name not in self.backends:
                self.backends[system.name] = Backend(
                    system, size=size, world_seed=world_seed, surface=surface, directory=self.directory
                )
        self.backends = {name: self.backends[name] for name in names}
        self.single = len(systems) == 1
        primary = self.backends[self.primary]
        if self.single:
            # The degenerate case costs nothing: the backend's own objects, its own bound call.
            self.call = primary.call  # type: ignore[method-assign]
            self.store: Any = primary.store
            self.catalog: Catalog = primary.store.catalog
            self.surface: Surface = primary.surface
            self.lock = primary.lock
        else:
            self.catalog = WorldCatalog({name: b.store.catalog for name, b in self.backends.items()})
            self.store = WorldStore(self)
            self._routes: dict[str, tuple[Backend, str]] = {}
            self._surfaces: dict[str, Surface] = {}
            self.surface = self._merged_surface(surface)
        self.faults = primary.faults
        self._call_index = 0
        #: The world's time between calls (each system's clock is set from it for its call).
        self._now = primary.clock.now()

    # -- the backend protocol every layer uses ------------------------------------------------

    @property
    def system(self) -> System:
        """The primary system (the one whose names are implied)."""
        return self.systems[self.primary]

    @property
    def backend(self) -> Backend:
        """The primary system's backend."""
        return self.backends[self.primary]

    def person_keys(self, key: str) -> dict[str, str]:
        """One person in each system: system -> the key of the person the primary's ``key`` names.

        The primary system reads the person's World login off its key (``System.person_login``);
        every other system finds its own row of that login (``System.user_identity``). A system
        that cannot, or has nobody of that login, is left out: it tells the person nothing.
        """
        keys = {self.primary: key}
        if self.single or not key:
            return keys
        primary = self.backends[self.primary]
        login = self.system.person_login(primary.store, key) if self.system.person_login else None
        if not login:
            return keys
        for name, backend in self.backends.items():
            if name != self.primary:
                found = backend.system.user_identity(backend.store, login)
                if found is not None:
                    keys[name] = found.user_sys_id
        return keys

    def reset(self, *, world_seed: int | None = None, episode_seed: int = 0) -> None:
        """Restore every system's world and start one episode over them."""
        with self.lock:
            if world_seed is not None and world_seed != self.world_seed:
                if not self.single:
                    raise ValueError("a world of several systems keeps its world seed (make a new World)")
                self.world_seed = world_seed
            for backend in self.backends.values():
                backend.reset(world_seed=world_seed, episode_seed=episode_seed)
            self._call_index = 0
            if self.single:
                self.faults = self.backend.faults
                return
            # The primary's epoch is the world's "now".
            self._now = self.backend.clock.now()
            self.set_faults(FaultConfig(), episode_seed)

    def set_faults(self, faults: FaultConfig, episode_seed: int = 0) -> None:
        """Start injecting faults now, through one injector and one log for every system."""
        with self.lock:
            if self.single:
                self.backend.set_faults(faults, episode_seed)
                self.faults = self.backend.faults
                return
            self.faults = FaultInjector(
                faults, seeded_rng(*self.names, "faults", self.world_seed, episode_seed)
            )
            for backend in self.backends.values():
                backend.share_faults(self.faults)

    def mark_start(self) -> None:
        """Make the current state every verifier's starting point."""
        for backend in self.backends.values():
            backend.mark_start()

    @property
    def call_index(self) -> int:
        """Calls made this episode, over every system."""
        return self.backend.call_index if self.single else self._call_index

    def call(
        self, tool: str, arguments: Any = None, *, surface: str | None = None, identity: Any = None
    ) -> CallResult:
        """Run one tool call by its world name (routed to its system). Never raises on bad input."""
        with self.lock:
            route = self._route(tool, surface) if isinstance(tool, str) else None
            if route is None:
                self._call_index += 1
                name = echo(tool, 64)
                error = invalid("Unknown tool", f"No tool named '{name}' on this surface")
                return CallResult(name, error.status, self.system.render_error(error), {}, error.kind.value)
            backend, local = route
            # One clock: the called system starts from the world's time and hands it back.
            backend.clock.reset(self._now)
            backend.call_index = self._call_index
            result = backend.call(local, arguments, surface=surface, identity=identity)
            self._call_index = backend.call_index
            self._now = backend.clock.now()
            return dataclasses.replace(result, tool=tool) if result.tool != tool else result

    @property
    def _now(self) -> Any:
        return self.__dict__.get("_now_value") or self.backend.clock.now()

    @_now.setter
    def _now(self, value: Any) -> None:
        self.__dict__["_now_value"] = value

    def tools(self, surface: str | None = None) -> Surface:
        """A surface's tools by their world names (default: the episode's surface)."""
        if surface is None or surface == self.surface_name:
            return self.surface
        if self.single:
            return self.system.surface(surface)
        merged = self._surfaces.get(surface)
        if merged is None:
            merged = self._surfaces[surface] = self._merged_surface(surface)
        return merged

    def user_identity(self, user_name: str, tool: str, surface: str | None = None) -> Any:
        """The identity of a world user acting through ``tool`` (its system's user), or None."""
        system = self.system_of(tool, surface)
        if system is None:
            return None
        return self.systems[system].user_identity(self.backends[system].store, user_name)

    def system_of(self, tool: str, surface: str | None = None) -> str | None:
        """The system whose tool ``tool`` is (by its world name), or None."""
        if self.single:
            tools = self.surface if surface is None else self.system.surface(surface)
            return self.primary if tool in tools else None
        route = self._route(tool, surface)
        return None if route is None else route[0].system.name

    def _route(self, tool: str, surface: str | None) -> tuple[Backend, str] | None:
        key = f"{surface or ''}:{tool}"
        found = self._routes.get(key)
        if found is None:
            for name, backend in self.backends.items():
                tools = backend.surface if surface is None else backend.system.surface(surface)
                for local in tools.tools:
                    if tool_name(name, local, self.names) == tool:
                        found = self._routes[key] = (backend, local)
                        return found
        return found

    def _merged_surface(self, surface: str) -> Surface:
        tools = {}
        full = False
        for name, backend in self.backends.items():
            own = backend.system.surface(surface)
            full = full or own.full_response
            for tool in own:
                world_name = tool_name(name, tool.name, self.names)
                tools.setdefault(world_name, dataclasses.replace(tool, name=world_name))
        return Surface(surface, tools.values(), full_response=full)

    def tool_name(self, system: str, tool: str) -> str:
        """The name an agent calls ``tool`` of ``system`` by in this world."""
        return tool_name(system, tool, self.names)

    def table_name(self, system: str, table: str) -> str:
        """The name ``table`` of ``system`` has above the mocks in this world."""
        return table if self.single else qualify(system, table)

    def canonical_table(self, name: str) -> str:
        """A table name as this world's store and logs spell it (bare if single, else qualified)."""
        system, table = split_table(name, self.primary)
        return self.table_name(system, table)

    # -- the episode's logs, over every system, in call order -------------------------------

    def _merged(self, attribute: str) -> list[Any]:
        if self.single:
            return getattr(self.backend, attribute)
        merged = []
        for name, backend in self.backends.items():
            for entry in getattr(backend, attribute):
                merged.append(_qualified(entry, name, self.names))
        return sorted(merged, key=lambda entry: entry.call_index)

    @property
    def writes(self) -> list[Write]:
        """Write calls that succeeded this episode, rows by qualified table."""
        return self._merged("writes")

    @property
    def denials(self) -> list[Denial]:
        """Writes the access checks refused."""
        return self._merged("denials")

    @property
    def refusals(self) -> list[Refusal]:
        """Writes refused otherwise."""
        return self._merged("refusals")

    @property
    def internal_errors(self) -> list[dict[str, Any]]:
        """Handler bugs this episode (the outcome classifier marks the episode invalid)."""
        if self.single:
            return self.backend.internal_errors
        return [error for backend in self.backends.values() for error in backend.internal_errors]

    @property
    def fault_log(self) -> list[FaultEvent]:
        """Injected faults this episode."""
        return self.faults.log

    def __iter__(self) -> Iterator[Backend]:
        return iter(self.backends.values())

    def database_bytes(self) -> int:
        """Size of every live database."""
        return sum(backend.database_bytes() for backend in self.backends.values())

    def close(self) -> None:
        """Release every database."""
        for backend in self.backends.values():
            backend.close()


def _qualified(entry: Any, system: str, systems: Sequence[str]) -> Any:
    """A log entry of one system with its tool and tables named as the world names them."""
    tool = tool_name(system, entry.tool, systems)
    if isinstance(entry, Write):
        rows = tuple((qualify(system, table), key, row) for table, key, row in entry.rows)
        return dataclasses.replace(entry, tool=tool, rows=rows)
    return dataclasses.replace(entry, tool=tool, table=qualify(system, entry.table))
