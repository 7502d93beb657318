"""Worlds: built once per (system, size, seed), kept as serialized SQLite bytes, restored per env.

A backend's first restore is ``sqlite3.Connection.deserialize`` of the cached bytes (a memory
copy, far below a millisecond at the default size); later resets roll the episode's transaction
back (:meth:`~enterprise_envs.mocks._core.store.Store.restore`). Reset never rebuilds anything.
"""

from __future__ import annotations

import random
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from faker import Faker

from enterprise_envs.mocks._core.clock import SimClock
from enterprise_envs.mocks._core.conventions import Numbering
from enterprise_envs.mocks._core.ids import IdFactory, seeded_rng
from enterprise_envs.mocks._core.models import create_schema
from enterprise_envs.mocks._core.people import Directory, Person
from enterprise_envs.mocks._core.store import Store, connect, install_change_log
from enterprise_envs.mocks._core.system import WORLD_SIZES, System

NUMBER_COUNTER = "_number_counter"
#: Page cache of a restored world, in pages (SQLite's default is about 500 pages, 2,000 KiB).
PAGE_CACHE_PAGES = 32


@dataclass(frozen=True)
class WorldSnapshot:
    """A built world: its serialized database and what it was built from."""

    system: str
    size: str
    seed: int
    data: bytes

    @property
    def nbytes(self) -> int:
        """Size of the serialized database."""
        return len(self.data)


class WorldBuild:
    """What a system's world builder gets: an empty schema and seeded sources of everything.

    Attributes:
        size: ``tiny``, ``default`` or ``large``.
        seed: The world seed.
        store: Row access to the new database.
        rng: Seeded random stream for choices.
        faker: Faker seeded from the same seed.
        ids: Record key factory, in the system's id format.
        clock: Set to the system's epoch, writing the system's date-time format; builders place
            history before it.
        people: The world's people when another system is their source (build the same
            employees from them); empty when this system makes its own.
    """

    def __init__(
        self, system: System, size: str, seed: int, store: Store, people: tuple[Person, ...] = ()
    ) -> None:
        self.system = system
        self.people = people
        self.size = size
        self.seed = seed
        self.store = store
        self.rng: random.Random = seeded_rng(system.name, "world", size, seed)
        self.faker = Faker("en_US")
        self.faker.seed_instance(self.rng.getrandbits(64))
        conventions = system.conventions
        self.ids = IdFactory(seeded_rng(system.name, "world-ids", size, seed), conventions.new_id)
        self.clock = SimClock(system.epoch, datetime_format=conventions.formats.datetime)
        self._numbers: dict[str, int] = {}

    def number(self, table: str) -> str:
        """The next record number for a table, as the runtime would assign it (the system's numbering)."""
        prefix = self.store.catalog[table].number_prefix
        if prefix is None:
            raise ValueError(f"{table} has no number prefix")
        numbering = self.system.conventions.numbering
        value = self._numbers.get(table, numbering.first)
        self._numbers[table] = value + 1
        return numbering.format(prefix, value)

    def finish(self) -> None:
        """Persist the number counters so the runtime continues after the world's records."""
        self.store.conn.executemany(
            f"INSERT OR REPLACE INTO {NUMBER_COUNTER} (tbl, next) VALUES (?, ?)",
            sorted(self._numbers.items()),
        )

    def insert_many(self, table: str, rows: list[dict[str, str]]) -> None:
        """Bulk insert rows (missing columns become ``""``)."""
        columns = self.store.catalog[table].columns
        placeholders = ", ".join("?" * len(columns))
        names = ", ".join(f'"{col}"' for col in columns)
        self.store.conn.executemany(
            f'INSERT INTO "{table}" ({names}) VALUES ({placeholders})',
            [tuple(row.get(col, "") for col in columns) for row in rows],
        )

    def insert_planned(self, rows: Mapping[str, list[dict[str, str]]]) -> None:
        """Write a world's planned rows (table -> rows): one bulk insert per table, in catalog order."""
        for table in self.store.catalog:
            planned = rows.get(table)
            if planned:
                self.insert_many(table, planned)


def next_number(conn: sqlite3.Connection, table: str, prefix: str, numbering: Numbering) -> str:
    """Take the next record number for a table, inside the caller's transaction.

    Args:
        conn: The world's connection.
        table: The numbered table.
        prefix: Its number prefix.
        numbering: The system's numbering (width, and the first number a fresh table hands out).
    """
    found = conn.execute(f"SELECT next FROM {NUMBER_COUNTER} WHERE tbl = ?", (table,)).fetchone()
    value = found[0] if found else numbering.first
    conn.execute(f"INSERT OR REPLACE INTO {NUMBER_COUNTER} (tbl, next) VALUES (?, ?)", (table, value + 1))
    return numbering.format(prefix, value)


def build_snapshot(system: System, size: str, seed: int, directory: Directory | None = None) -> WorldSnapshot:
    """Build a world from scratch and serialize it."""
    if size not in WORLD_SIZES:
        raise ValueError(f"unknown world size {size!r} (choose from {', '.join(WORLD_SIZES)})")
    conn = connect()
    create_schema(conn, system.metadata, system.catalog)
    conn.execute(f"CREATE TABLE {NUMBER_COUNTER} (tbl TEXT PRIMARY KEY, next INTEGER NOT NULL)")
    store = Store(conn, system.catalog)
    conn.execute("BEGIN")
    build = WorldBuild(system, size, seed, store, directory.people if directory else ())
    system.build_world(build)
    build.finish()
    conn.execute("COMMIT")
    install_change_log(conn, system.catalog)
    conn.execute("ANALYZE")
    # Pages of an in-memory database are copies of the deserialized buffer, so a small page
    # cache costs only a memcpy per miss and keeps each live env near the buffer's size. The
    # (deprecated but supported) default_cache_size lives in the file header, so it survives
    # deserialize(); setting cache_size after every restore would re-read the schema (~0.8 ms).
    conn.execute(f"PRAGMA default_cache_size = {PAGE_CACHE_PAGES}")
    conn.execute("VACUUM")
    data = conn.serialize()
    conn.close()
    return WorldSnapshot(system.name, size, seed, data)


#: Bytes of snapshots kept in the process (the oldest built go first; the one just built always
#: stays). Worlds of new seeds are built on demand, so without a bound a client asking for
#: many seeds would grow the process without end.
SNAPSHOT_CACHE_BYTES = 1 << 30

_cache: OrderedDict[tuple[str, str, int, str], WorldSnapshot] = OrderedDict()
_cache_lock = threading.Lock()


def snapshot_key(
    system: System, size: str, seed: int, directory: Directory | None = None
) -> tuple[str, str, int, str]:
    """What a world is built from: the system, size, seed and its people's source, if another."""
    return (system.name, size, seed, directory.source if directory else "")


def get_snapshot(system: System, size: str, seed: int, directory: Directory | None = None) -> WorldSnapshot:
    """The cached world for (system, size, seed, people source), built on first use in this process.

    ``directory`` is a function of its source's (size, seed), so its source's name keys it.
    """
    key = snapshot_key(system, size, seed, directory)
    found = _cache.get(key)
    if found is None:
        with _cache_lock:
            found = _cache.get(key)
            if found is None:
                found = _cache[key] = build_snapshot(system, size, seed, directory)
                _evict(keep=key)
    return found


def _evict(keep: tuple[str, str, int, str]) -> None:
    """Drop least recently built snapshots until the cache fits SNAPSHOT_CACHE_BYTES."""
    total = sum(len(snapshot.data) for snapshot in _cache.values())
    for key in list(_cache):
        if total <= SNAPSHOT_CACHE_BYTES:
            break
        if key != keep:
            total -= len(_cache.pop(key).data)
