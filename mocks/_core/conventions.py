"""A system's conventions: what generic code must ask a system instead of assuming.

Every layer above a mock (the world, the verifier, the simulated user, the audit) reads these
from the :class:`~enterprise_envs.mocks._core.system.System`; none of them names a vendor's key
field, number format, date format or word for a ticket. A system declares what differs from the
defaults here; the defaults are plain, vendor-neutral shapes.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from enterprise_envs.mocks._core.ids import hex_id

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.store import Store


@dataclass(frozen=True)
class Numbering:
    """How a system numbers its records for people (a prefix per table, then digits).

    Attributes:
        digits: Zero-padded width of the numeric part.
        first: The first number a fresh instance hands out per table.
        number_field: The field holding a numbered table's record number (tables with a
            ``number_prefix``).
    """

    digits: int = 7
    first: int = 1
    number_field: str = "number"

    def format(self, prefix: str, value: int) -> str:
        """A record number: the table's prefix and the zero-padded value."""
        return f"{prefix}{value:0{self.digits}d}"

    @property
    def digit_pattern(self) -> str:
        """A regular expression source for the numeric part (exactly ``digits`` digits)."""
        return rf"\d{{{self.digits}}}"


@dataclass(frozen=True)
class Formats:
    """How a system writes times in its records and responses (``strftime`` patterns, UTC)."""

    datetime: str = "%Y-%m-%dT%H:%M:%SZ"
    date: str = "%Y-%m-%d"


@dataclass(frozen=True)
class Vocabulary:
    """What a person calls a system's objects and acts: plain data for the simulated user.

    The user simulator and the fidelity metrics may not import a mock (observational closure),
    so a scenario instance hands them this as data.

    Attributes:
        record: What a person calls one of the system's records, singular ("ticket", "page").
        terms: Words only someone who reads the system's own API or admin screens would use
            (field names, query syntax, internal states); a simulated user saying them is
            coached as out of character.
        nouns: Table -> what a person calls a record of it ("incident" -> "ticket").
    """

    record: str = "record"
    terms: tuple[str, ...] = ()
    nouns: Mapping[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        """Plain JSON data (what crosses into the user simulator)."""
        return {"record": self.record, "terms": list(self.terms), "nouns": dict(self.nouns)}


@dataclass(frozen=True)
class RecordApi:
    """Where a system's generic record tools are, if it has any (a Table API).

    The audit writes through these to damage rows the oracle never touched; a system without one
    gets those probes reported as skipped, not silently weakened.

    Attributes:
        surface: The surface holding the tools.
        create: Tool creating a row of any table.
        update: Tool updating a row of any table by key.
        delete: Tool deleting a row of any table by key.
        table_argument: The argument naming the table.
        key_argument: The argument naming the row's key.
        fields_argument: The argument holding the field values.
    """

    surface: str
    create: str
    update: str
    delete: str
    table_argument: str = "table"
    key_argument: str = "id"
    fields_argument: str = "fields"


class RecordWriter(Protocol):
    """A system's own operations standing in for a generic record API (see ``AuditHints.writer``).

    ``write`` translates a generic write of one row into one tool call of the system, or None
    when no operation of the system makes that write (the probe's part is then reported
    skipped). ``table_of`` is the reverse: the table a call of one of those tools writes.
    """

    def write(
        self, operation: str, table: str, key: str, fields: Mapping[str, str], row: Mapping[str, str] | None
    ) -> tuple[str, str, dict[str, Any]] | None:
        """(surface, tool, arguments) making the write, or None.

        Args:
            operation: ``create``, ``update`` or ``delete``.
            table: The row's table (the system's own name).
            key: The row's key ("" for a create).
            fields: Field values to write (create, update).
            row: The row as the episode starts, when it exists then (None otherwise).
        """
        ...

    def table_of(self, surface: str, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """The table a call of one of the writer's tools writes (None for any other call)."""
        ...


@dataclass(frozen=True)
class AuditHints:
    """What the audit needs to know to aim its probes at this system.

    Attributes:
        record_api: The generic record tools, or None (probes needing them are skipped).
        writer: Without a record API, the system's own operations for a generic write
            (:class:`RecordWriter`); the audit aims its record-API probes through it. None with
            no record API: those probes are skipped.
        login_fields: Fields that name a person's row besides its key (login name, address).
        lifecycle_fields: Fields saying where a record is in its life; rows alike in these accept
            the same writes.
        roles_field: The field listing a person's roles (comma-separated), if people carry one.
        privileged_role: The role that holds every right (what a privilege probe tries to grant).
    """

    record_api: RecordApi | None = None
    writer: RecordWriter | None = None
    login_fields: tuple[str, ...] = ()
    lifecycle_fields: tuple[str, ...] = ()
    roles_field: str = ""
    privileged_role: str = ""


#: A tool call as the bench makes it: the tool's name and its arguments.
Call = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class SurfaceCalls:
    """A read and a write of one sample row on one surface (see :class:`Workload`).

    Attributes:
        read: Sample row -> a call reading that row.
        write: (sample row, text) -> a call writing ``text`` into that row; each call of the
            bench passes a new text, so every write changes the row.
    """

    read: Callable[[Mapping[str, Any]], Call]
    write: Callable[[Mapping[str, Any], str], Call]


@dataclass(frozen=True)
class Workload:
    """What the performance bench drives on a system, as data (``enterprise_envs/bench.py``).

    The bench names no table, field or tool: it picks sample rows with ``table`` and ``where``
    and builds every call it times from them through the callables here. A system without a
    workload cannot be benched.

    Attributes:
        table: The table of the sample rows, the ones read and written. The bench's floor of a
            read (``baseline.sqlite_lookup``) is a raw SQL point lookup of a sample row in this
            table by its key field.
        where: A :meth:`Store.select <enterprise_envs.mocks._core.store.Store.select>` condition
            choosing sample rows: rows every call below accepts, in every world size.
        surfaces: Surface name -> the read and write of a sample row on it, in the bench's order
            (``tool.<surface>.read`` and ``.write`` figures). The first is the task-level surface:
            the step and MCP figures call it and the tool budgets hold for it.
        episode_writes: (store, sample row) -> an episode's worth of writes on the first
            surface (two calls, say: a record created, the sample row changed), made before each
            timed restore (``restore.<size>``).
        message: An agent message the simulated user answers (``step.message``).
        scenario: The scenario of the step and verify figures; its oracle writes once, early.
        call_scenario: The scenario whose episodes the worst-case tool calls are made in
            (``worst.argument``).
    """

    table: str
    where: str
    surfaces: Mapping[str, SurfaceCalls]
    episode_writes: Callable[[Store, Mapping[str, Any]], tuple[Call, ...]]
    message: str
    scenario: str
    call_scenario: str

    @property
    def surface(self) -> str:
        """The task-level surface (the first of :attr:`surfaces`)."""
        return next(iter(self.surfaces))


@dataclass(frozen=True)
class Conventions:
    """Everything generic code asks a system about its shapes.

    Attributes:
        id_pattern: A full-match regular expression for the system's record keys (what a key the
            agent or the user might quote looks like).
        numbering: How records are numbered for people.
        formats: Date and time formats.
        vocabulary: What people call its objects.
        audit: Hints for the audit's probes.
        new_id: Draws a new record key for a table from a seeded stream (world building and
            episodes): ``new_id(rng, table)``, ``table`` being ``""`` when the caller names none;
            its keys must match ``id_pattern``. A system with one key shape ignores the table.
        workload: What the performance bench drives on the system (None: it cannot be benched).
    """

    id_pattern: str = r"[0-9a-f]{32}"
    numbering: Numbering = field(default_factory=Numbering)
    formats: Formats = field(default_factory=Formats)
    vocabulary: Vocabulary = field(default_factory=Vocabulary)
    audit: AuditHints = field(default_factory=AuditHints)
    new_id: Callable[[random.Random, str], str] = hex_id
    workload: Workload | None = None

    def is_id(self, text: str) -> bool:
        """True if ``text`` has the shape of one of this system's record keys."""
        return re.fullmatch(self.id_pattern, text) is not None
