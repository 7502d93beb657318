"""A live instance of a mocked system: one database, one clock, one call pipeline.

Every tool call, from any surface, goes through :meth:`Backend.call`: schema validation, the
simulated clock, fault injection, then the handler inside one transaction. A call that fails
in any way changes nothing and returns the vendor's error; nothing raises to the caller.
"""

from __future__ import annotations

import json
import threading
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.clock import SimClock
from enterprise_envs.mocks._core.errors import ErrorKind, ToolError, invalid
from enterprise_envs.mocks._core.faults import FaultConfig, FaultInjector
from enterprise_envs.mocks._core.ids import IdFactory, seeded_rng
from enterprise_envs.mocks._core.inputs import InputError, echo, plain_json
from enterprise_envs.mocks._core.people import Directory
from enterprise_envs.mocks._core.snapshot import get_snapshot, next_number, snapshot_key
from enterprise_envs.mocks._core.store import Row, Store, connect
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Response, Surface, ToolKind


class _EpisodeConnection:
    """The backend's connection as SQLAlchemy holds it: commit and rollback leave the episode alone.

    An episode is one SQLite transaction (:meth:`Store.restore`); a session committing it would
    cost the fast restore, and one rolling it back would discard the episode's writes.
    """

    def __init__(self, conn: Any) -> None:
        self._conn = conn

    def commit(self) -> None:
        """Nothing to do: the episode's transaction holds the writes."""

    def rollback(self) -> None:
        """Nothing to do: only a reset ends the episode's transaction."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)


@dataclass(frozen=True)
class CallResult:
    """The outcome of one tool call, success or error.

    Attributes:
        tool: The tool called.
        status: HTTP-like status.
        body: Result body, or the vendor's error envelope.
        headers: Response headers.
        error: The error kind's value on failure, else None.
        injected: True if an injected fault (rate limit, 503, timeout) produced this error.
    """

    tool: str
    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)
    error: str | None = None
    injected: bool = False

    @property
    def ok(self) -> bool:
        """True for a 2xx result."""
        return self.status < 400

    def to_dict(self) -> dict[str, Any]:
        """The full response: status, headers and body."""
        return {"status": self.status, "headers": dict(self.headers), "body": self.body}

    def to_json(self, full: bool = False) -> str:
        """Compact JSON for an agent: the body alone, or the full response when ``full``.

        Errors always come as the full response: the status and headers (Retry-After on a 429)
        are what an agent needs to recover.
        """
        payload = self.to_dict() if full or not self.ok else self.body
        return json.dumps(payload, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Denial:
    """A write the access check refused: what was tried, on which table and row."""

    call_index: int
    tool: str
    operation: str
    table: str
    sys_id: str


@dataclass(frozen=True)
class Refusal(Denial):
    """A write refused for any other reason (validation, a data policy, a business rule).

    Recorded whatever refused it, so a forbidden target tried with a bad value still counts as
    tried (``forbid ... attempted = true``). Unlike a :class:`Denial` it does not fail a verdict
    on its own: a corrected retry is ordinary work.

    Attributes:
        status: The refusal's HTTP-like status.
        values: What the client sent for the row (for a create: the row it wanted).
    """

    status: int = 400
    values: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Write:
    """A write call that succeeded: when, which tool, and each row it touched as it was after.

    Attributes:
        call_index: The call's place in the episode (``Backend.call_index``).
        tool: The tool called.
        rows: (table, row key, row after the call, or None if deleted) for each row it touched.
    """

    call_index: int
    tool: str
    rows: tuple[tuple[str, str, Mapping[str, str] | None], ...]


class CallContext:
    """What a handler may use. One per backend; ``identity`` is set per call."""

    __slots__ = (
        "backend",
        "store",
        "clock",
        "ids",
        "identity",
        "settings",
        "system",
        "faults",
        "intent",
        "touched",
    )

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.store = backend.store
        self.clock = backend.clock
        self.ids = backend.ids
        self.identity = backend.identity
        self.settings = backend.settings
        self.system = backend.system
        self.faults = backend.faults
        self.intent: tuple[str, str, str, Mapping[str, Any]] | None = None
        #: Existing rows this call declared it writes (new rows are found in the change log).
        self.touched: list[tuple[str, str]] = []

    def intend(
        self, operation: Operation, table: str, row: Row | None, values: Mapping[str, Any] | None = None
    ) -> None:
        """Declare the write this call is about to try (before any check can refuse it)."""
        key = row[self.store.catalog[table].key_field] if row else ""
        self.intent = (operation.value, table, key, dict(values or {}))
        if row:
            self.touched.append((table, key))

    def authorize(
        self, operation: Operation, table: str, row: Row | None, changes: Mapping[str, str] | None = None
    ) -> None:
        """The one access check: raises the vendor's 403/404 if the caller may not do this."""
        try:
            self.system.access.check(self.identity, operation, table, row, changes)
        except ToolError as error:
            if operation is not Operation.READ:
                key = row[self.store.catalog[table].key_field] if row else ""
                error.target = (operation.value, table, key)
            raise

    def row_filter(self, table: str) -> tuple[str, tuple[str, ...]] | None:
        """The SQL condition limiting the rows the caller can list, if any."""
        return self.system.access.row_filter(self.identity, table)

    def next_number(self, table: str) -> str:
        """The next record number for a table (rolled back with the call if it fails)."""
        prefix = self.store.catalog[table].number_prefix
        if prefix is None:
            raise ValueError(f"{table} has no number prefix")
        return next_number(self.store.conn, table, prefix, self.system.conventions.numbering)


class Backend:
    """One live world of one system.

    Args:
        system: The mocked system.
        size: World size (``tiny``, ``default``, ``large``).
        world_seed: Which world to restore.
        surface: Default tool surface for :meth:`call`.
        settings: Overrides of the system's instance switches.
        directory: The world's people when another system is their source (a
            :class:`~enterprise_envs.mocks._core.world.World` passes it).
    """

    def __init__(
        self,
        system: System,
        *,
        size: str = "default",
        world_seed: int = 0,
        surface: str = "typed",
        settings: Mapping[str, Any] | None = None,
        directory: Directory | None = None,
    ) -> None:
        unknown = set(settings or {}) - set(system.settings)
        if unknown:
            raise ValueError(f"{system.name}: unknown settings {sorted(unknown)}")
        self.system = system
        self.directory = directory
        self.size = size
        self.world_seed = world_seed
        self.surface_name = surface
        self.surface: Surface = system.surface(surface)
        self.settings: dict[str, Any] = {**system.settings, **(settings or {})}
        self.conn = connect()
        self.store = Store(self.conn, system.catalog)
        # Times and keys in the system's own formats (its conventions), never a vendor's by default.
        self.clock = SimClock(system.epoch, datetime_format=system.conventions.formats.datetime)
        self.ids = IdFactory(seeded_rng(system.name, "episode", world_seed, 0), system.conventions.new_id)
        self.faults = FaultInjector(FaultConfig(), seeded_rng(system.name, "faults", world_seed, 0))
        self.identity = Identity("", "guest", frozenset())
        self.lock = threading.RLock()
        self.call_index = 0
        self.internal_errors: list[dict[str, Any]] = []
        #: Write attempts refused by access control this episode (they changed nothing).
        self.denials: list[Denial] = []
        #: Write attempts refused otherwise (validation, data policy), with their targets.
        self.refusals: list[Refusal] = []
        #: Write calls that succeeded this episode, with the rows each touched (policy checks).
        self.writes: list[Write] = []
        self._engine = None
        self.reset()

    def reset(
        self, *, world_seed: int | None = None, episode_seed: int = 0, faults: FaultConfig | None = None
    ) -> None:
        """Restore the world snapshot and start a new episode on it.

        Args:
            world_seed: Switch to another world (default: keep the current one).
            episode_seed: Seeds ids and faults for this episode.
            faults: Faults to inject in this episode (default: none).
        """
        with self.lock:
            if world_seed is not None and world_seed != self.world_seed and self.directory is not None:
                raise ValueError("a world built from another system's people keeps its world seed")
            if world_seed is not None:
                self.world_seed = world_seed
            key = snapshot_key(self.system, self.size, self.world_seed, self.directory)
            self.store.restore(
                key, lambda: get_snapshot(self.system, self.size, self.world_seed, self.directory).data
            )
            self.clock.reset(self.system.epoch)
            self.ids = IdFactory(
                seeded_rng(self.system.name, "episode", self.world_seed, episode_seed),
                self.system.conventions.new_id,
            )
            self.faults = FaultInjector(
                faults or FaultConfig(), seeded_rng(self.system.name, "faults", self.world_seed, episode_seed)
            )
            self.call_index = 0
            self.internal_errors = []
            self.denials = []
            self.refusals = []
            self.writes = []
            self.identity = self.system.agent_identity(self.store)
            self._context = CallContext(self)

    def set_faults(self, faults: FaultConfig, episode_seed: int = 0) -> None:
        """Start injecting faults now (after scenario setup, which must not be faulted)."""
        with self.lock:
            self.faults = FaultInjector(
                faults, seeded_rng(self.system.name, "faults", self.world_seed, episode_seed)
            )
            self._context = CallContext(self)

    def share_faults(self, faults: FaultInjector) -> None:
        """Inject faults through a World's one injector (one log, one rate limit over its systems)."""
        with self.lock:
            self.faults = faults
            self._context = CallContext(self)

    def mark_start(self) -> None:
        """Make the current state the verifier's starting point (after scenario setup)."""
        with self.lock:
            self.store.clear_change_log()
            self.denials = []
            self.refusals = []
            self.writes = []

    def context(self, identity: Identity | None = None) -> CallContext:
        """A handler context acting as ``identity`` (default: the agent); for setup code and tests."""
        self._context.identity = identity or self.identity
        return self._context

    def call(
        self,
        tool: str,
        arguments: Any = None,
        *,
        surface: str | None = None,
        identity: Identity | None = None,
    ) -> CallResult:
        """Run one tool call. Never raises on bad input: errors come back as results.

        Args:
            tool: Tool name.
            arguments: The arguments object (a dict; anything else is a 400).
            surface: Surface to look the tool up in (default: the backend's surface).
            identity: Act as someone else (default: the agent's identity).
        """
        with self.lock:
            tools = self.surface if surface is None else self.system.surface(surface)
            spec = tools.tools.get(tool) if isinstance(tool, str) else None
            self.call_index += 1
            if spec is None:
                name = echo(tool, 64)
                return self._error(name, invalid("Unknown tool", f"No tool named '{name}' on this surface"))
            if arguments is None:
                arguments = {}
            try:
                # The input boundary first: plain, bounded JSON and valid text, or a 400 that
                # names the place and never echoes the value.
                arguments = plain_json(arguments)
            except InputError as error:
                where = f"'{error.path}'" if error.path else "arguments"
                return self._error(tool, invalid(f"Invalid argument {where}", error.reason))
            try:
                spec.validate(arguments)
            except ToolError as error:
                return self._error(tool, error)
            self.clock.tick()
            fault = self.faults.before_call(self.call_index, tool, self.clock)
            if fault is not None:
                return self._error(tool, fault, injected=True)
            ctx = self.context(identity)
            ctx.intent = None
            ctx.touched = []
            store = self.store
            try:
                if spec.kind is ToolKind.READ:
                    with store.read_only():
                        output = spec.handler(ctx, arguments)
                else:
                    logged = store.change_log_size()
                    ctx.ids.watch()
                    try:
                        with store.transaction():
                            output = spec.handler(ctx, arguments)
                    except BaseException:
                        ctx.ids.settle(failed=True)
                        raise
                    ctx.ids.settle(failed=False)
                    self._note_write(tool, logged, ctx.touched)
            except ToolError as error:
                if ctx.intent is not None and error.target is None:
                    operation, table, key, values = ctx.intent
                    self.refusals.append(
                        Refusal(self.call_index, tool, operation, table, key, error.status, values)
                    )
                return self._error(tool, error)
            except Exception as exc:  # a bug in a handler: report it, keep the world intact
                self.internal_errors.append(
                    {
                        "call_index": self.call_index,
                        "tool": tool,
                        "error": repr(exc),
                        "traceback": traceback.format_exc(),
                    }
                )
                return self._error(
                    tool,
                    ToolError(ErrorKind.INTERNAL, "Internal error", "The call failed and changed nothing."),
                )
            if isinstance(output, Response):
                return CallResult(tool, output.status, output.body, output.headers)
            return CallResult(tool, 200, output)

    def _note_write(self, tool: str, logged: int, touched: Sequence[tuple[str, str]]) -> None:
        """Record a successful write call: rows first changed in it (the change log) and rows it declared."""
        keys = dict.fromkeys([*self.store.changed_since(logged), *touched])
        if keys:
            rows = tuple((table, key, self.store.get(table, key)) for table, key in keys)
            self.writes.append(Write(self.call_index, tool, rows))

    def _error(self, tool: str, error: ToolError, injected: bool = False) -> CallResult:
        if error.target is not None:
            operation, table, key = error.target
            self.denials.append(Denial(self.call_index, tool, operation, table, key))
        return CallResult(
            tool, error.status, self.system.render_error(error), error.headers, error.kind.value, injected
        )

    def database_bytes(self) -> int:
        """Size of the live database (its pages), for memory accounting."""
        with self.lock:
            (pages,) = self.conn.execute("PRAGMA page_count").fetchone()
            (size,) = self.conn.execute("PRAGMA page_size").fetchone()
            return int(pages) * int(size)

    def serialize(self) -> bytes:
        """The database as bytes, this episode's writes included (see :meth:`Store.serialize`)."""
        with self.lock:
            return self.store.serialize()

    @property
    def engine(self):
        """A SQLAlchemy engine over this backend's database, for SQLModel sessions (tests, tools).

        Writes through it bypass the service layer's rules but are still seen by the change log.
        A session's commit and rollback do not end the episode's transaction: its writes stay
        until the next :meth:`reset`, like a tool call's.
        """
        if self._engine is None:
            from sqlalchemy import create_engine
            from sqlalchemy.pool import StaticPool

            self._engine = create_engine(
                "sqlite://",
                creator=lambda: _EpisodeConnection(self.conn),
                poolclass=StaticPool,
                pool_reset_on_return=None,
            )
        return self._engine

    def close(self) -> None:
        """Release the database."""
        with self.lock:
            if self._engine is not None:
                self._engine.dispose()
            self.conn.close()
