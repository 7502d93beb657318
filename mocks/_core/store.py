"""Row access over a system's SQLite database, and the change log the verifier reads.

The service layer runs millions of calls, so rows go through the raw ``sqlite3`` connection
with SQL generated once per table from the catalog (an ORM round trip costs more than the
whole read budget). The schema itself comes from the SQLModel classes.

Every write is recorded by SQLite triggers in ``_change_log`` (table, row key) and
``_before_<table>`` (the row as it was before its first change), inside the same
transaction, so a rolled-back call leaves no trace and the verifier's diff costs
O(changed rows), whatever the world's size.

A row is found by its table's key field (:attr:`TableSpec.key_field
<enterprise_envs.mocks._core.schema.TableSpec.key_field>`), whatever the system calls it.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy.dialects.sqlite.base import SQLiteDialect

from enterprise_envs.mocks._core.schema import Catalog

Row = dict[str, str]

CHANGE_LOG = "_change_log"
#: Rows created this episode by the service layer: what it gave the row before the client's values
#: (its defaults, JSON of the non-empty fields) and which fields the client supplied, then or in
#: a later update. The verifier's measure of "a new record as made" (see verifiers/diff.py).
NEW_DEFAULTS = "_new_defaults"
#: The change log's column for a row's key when a catalog's tables name their keys differently.
ROW_KEY = "row_key"
#: The change log's other columns, which a key column must not shadow.
_LOG_COLUMNS = frozenset({"tbl", "inserted", "seq", "defaults", "supplied"})


class ReadOnlyViolation(RuntimeError):
    """A READ tool (or other read-only block) tried to write."""


def _marks(count: int) -> str:
    return ", ".join("?" * count)


def connect() -> sqlite3.Connection:
    """A new in-memory database connection set up the way the store expects.

    Autocommit mode (the store issues BEGIN/COMMIT itself) and usable from the worker threads
    MCP servers run tools in; callers serialize access with their own lock.
    """
    conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False, cached_statements=256)
    return conn


_LIKE_ESCAPES = str.maketrans({"\\": "\\\\", "%": "\\%", "_": "\\_"})


def like_literal(text: str) -> str:
    """``text`` with LIKE's wildcards and the escape character escaped (for :func:`like_clause`)."""
    return text.translate(_LIKE_ESCAPES)


def like_clause(expression: str) -> str:
    """``expression LIKE ?`` (case-insensitive, backslash escapes), the pattern bound as a parameter.

    The pattern goes through ``CAST(? AS TEXT)`` so that SQLite's LIKE optimization never inspects
    the bound value: when it does, the first such statement after each deserialize costs
    ~0.8 ms instead of ~0.05 ms (SQLite 3.40; measured by ``enterprise-envs bench``, see
    docs/performance.md). The optimization could never help here anyway: our indexes are
    BINARY-collated and LIKE is case-insensitive.
    """
    return f"{expression} LIKE CAST(? AS TEXT) ESCAPE '\\'"


#: Byte ranges of the database header that a commit writes whatever the content: the file change
#: counter, version-valid-for and the number of the SQLite version that committed.
_COMMIT_FIELDS = ((24, 28), (92, 100))


def _before_table(table: str) -> str:
    return f"_before_{table}"


_SQLITE_NAMES = SQLiteDialect().identifier_preparer


def _schema_name(identifier: str) -> str:
    """An identifier for SQL kept in the database's schema: bare unless SQLite needs quotes.

    The same rule SQLAlchemy writes the tables' own DDL by (quotes for keywords, capitals and
    other characters), so the schema text, and with it the serialized world, does not change
    with how this module spells a name.
    """
    return _SQLITE_NAMES.quote(identifier)


def change_log_key(catalog: Catalog) -> str:
    """The column of the change log (and the new-row record) holding a changed row's key.

    Named like the catalog's key field when every table shares one (the log then reads like the
    tables, and worlds built before the key became the system's choice keep their bytes), else
    :data:`ROW_KEY`.
    """
    keys = {spec.key_field for spec in catalog.values()}
    if len(keys) == 1:
        (key,) = keys
        if key not in _LOG_COLUMNS:
            return key
    return ROW_KEY


def install_change_log(conn: sqlite3.Connection, catalog: Catalog) -> None:
    """Create the change log, the before-image tables and their triggers on every catalog table.

    Called once when a world is built, after the bulk load, so the snapshot carries the
    triggers and an empty log. Each table gets a shadow table holding the first before-image
    of every row changed; the triggers copy the row with ``SELECT *`` rather than listing its
    columns, which keeps the parsed schema (paid per connection, per env) small. Rows are
    matched on each table's key field.
    """
    logged = _schema_name(change_log_key(catalog))
    conn.execute(
        f"CREATE TABLE {CHANGE_LOG} (tbl TEXT NOT NULL, {logged} TEXT NOT NULL, inserted INTEGER NOT NULL, "
        f"seq INTEGER NOT NULL, PRIMARY KEY (tbl, {logged})) WITHOUT ROWID"
    )
    conn.execute(
        f"CREATE TABLE {NEW_DEFAULTS} (tbl TEXT NOT NULL, {logged} TEXT NOT NULL, defaults TEXT NOT NULL, "
        f"supplied TEXT NOT NULL, PRIMARY KEY (tbl, {logged})) WITHOUT ROWID"
    )
    seq = f"(SELECT COUNT(*) FROM {CHANGE_LOG})"
    for table in catalog.values():
        name, before, key = table.name, _before_table(table.name), _schema_name(table.key_field)
        columns = ", ".join(f'"{col}" TEXT' for col in table.columns)
        copy = f'INSERT OR IGNORE INTO "{before}" SELECT * FROM "{name}" WHERE {key} = OLD.{key};'
        log = f"INSERT OR IGNORE INTO {CHANGE_LOG} VALUES ('{name}', OLD.{key}, 0, {seq});"
        conn.executescript(
            f"""
            CREATE TABLE "{before}" ({columns}, PRIMARY KEY ({key})) WITHOUT ROWID;
            CREATE TRIGGER "_log_ins_{name}" AFTER INSERT ON "{name}" BEGIN
              INSERT OR IGNORE INTO {CHANGE_LOG} VALUES ('{name}', NEW.{key}, 1, {seq});
            END;
            CREATE TRIGGER "_log_upd_{name}" BEFORE UPDATE ON "{name}" BEGIN {copy} {log} END;
            CREATE TRIGGER "_log_del_{name}" BEFORE DELETE ON "{name}" BEGIN {copy} {log} END;
            """
        )


@dataclass(frozen=True)
class _Sql:
    """SQL text for one catalog, generated once (see :func:`_sql_for`).

    Attributes:
        keys: Table -> its key column, quoted.
        select_cols: Table -> every column, quoted, in storage order.
        insert: Table -> INSERT of a whole row.
        get: Table -> SELECT of a whole row by key.
        delete: Table -> DELETE of a row by key.
        first_image: Table -> SELECT of a row's first before-image by key.
        log_key: The change log's key column, quoted.
        update: (table, changed columns) -> UPDATE by key, filled as writes need them.
    """

    keys: dict[str, str]
    select_cols: dict[str, str]
    insert: dict[str, str]
    get: dict[str, str]
    delete: dict[str, str]
    first_image: dict[str, str]
    log_key: str
    update: dict[tuple, str]


@functools.cache
def _sql_for(catalog: Catalog) -> _Sql:
    """SQL text per table, shared by every store over the same catalog (memory per env matters)."""
    keys = {name: f'"{spec.key_field}"' for name, spec in catalog.items()}
    select_cols = {name: ", ".join(f'"{col}"' for col in spec.columns) for name, spec in catalog.items()}
    return _Sql(
        keys=keys,
        select_cols=select_cols,
        insert={
            name: f'INSERT INTO "{name}" ({select_cols[name]}) VALUES ({_marks(len(spec.columns))})'
            for name, spec in catalog.items()
        },
        get={name: f'SELECT {select_cols[name]} FROM "{name}" WHERE {keys[name]} = ?' for name in catalog},
        delete={name: f'DELETE FROM "{name}" WHERE {keys[name]} = ?' for name in catalog},
        first_image={
            name: f'SELECT {select_cols[name]} FROM "{_before_table(name)}" WHERE {keys[name]} = ?'
            for name in catalog
        },
        log_key=f'"{change_log_key(catalog)}"',
        update={},
    )


class Store:
    """Typed-free, fast row access for the service layer.

    Args:
        conn: The connection (see :func:`connect`).
        catalog: The system's tables; only catalog tables and columns are ever named in SQL.
    """

    def __init__(self, conn: sqlite3.Connection, catalog: Catalog) -> None:
        self.conn = conn
        self.catalog = catalog
        self._sql = sql = _sql_for(catalog)
        self._select_cols, self._insert_sql, self._get_sql, self._update_sql = (
            sql.select_cols,
            sql.insert,
            sql.get,
            sql.update,
        )
        #: Which snapshot the open episode transaction started from (None: none to roll back to).
        self._episode_of: Hashable | None = None
        #: How the last :meth:`restore` got there: ``"rollback"`` or ``"deserialize"``.
        self.last_restore = ""
        #: The snapshot's header fields that commits rewrite (see :meth:`serialize`).
        self._commit_fields: list[bytes] = []

    # -- episodes ----------------------------------------------------------------------------

    def restore(self, key: Hashable, data: Callable[[], bytes]) -> None:
        """Put the database back to a snapshot and open the episode's transaction.

        An episode runs inside one transaction, begun here. When the connection still holds the
        one begun at the last restore of the same snapshot (``key``), rolling it back restores
        the snapshot exactly, at the cost of the pages the episode touched, and every prepared
        statement stays valid; otherwise (the first restore, another snapshot, or after
        :meth:`serialize`) the snapshot's bytes are deserialized, which discards the statements
        and costs a copy of the whole database (~28 ms at the large size).

        Tool calls nest inside with savepoints (:meth:`transaction`, :meth:`read_only`). Never
        COMMIT or ROLLBACK on :attr:`conn` directly: use :meth:`serialize` to read the bytes.

        Args:
            key: Identifies the snapshot (system, size, seed).
            data: The snapshot's bytes, called only when they are needed.
        """
        conn = self.conn
        rolled_back = conn.in_transaction
        if rolled_back:
            conn.execute("ROLLBACK")
        if rolled_back and self._episode_of == key:
            self.last_restore = "rollback"
        else:
            snapshot = data()
            conn.deserialize(snapshot)
            self._commit_fields = [snapshot[start:end] for start, end in _COMMIT_FIELDS]
            self.last_restore = "deserialize"
        conn.execute("BEGIN")
        self._episode_of = key

    @property
    def snapshot_key(self) -> Hashable:
        """The key of the snapshot this episode started from (None before the first restore)."""
        return self._episode_of

    def serialize(self) -> bytes:
        """The database as bytes, this episode's writes included.

        SQLite serializes an in-memory database from its committed image, so the episode's
        transaction is committed first (and a new one begun): the next :meth:`restore` then
        deserializes instead of rolling back. Commits rewrite header fields whatever the content
        (a call rolled back to its savepoint still made the transaction a writer), so those
        fields are reported as in the restored snapshot: equal content, equal bytes. For tests
        and tools, not for hot paths.
        """
        if self.conn.in_transaction:
            self.conn.execute("COMMIT")
            self._episode_of = None
            self.conn.execute("BEGIN")
        data = bytearray(self.conn.serialize())
        for (start, end), field in zip(_COMMIT_FIELDS, self._commit_fields, strict=False):
            data[start:end] = field
        return bytes(data)

    # -- reads -------------------------------------------------------------------------------

    def get(self, table: str, key: str) -> Row | None:
        """The row whose key field is ``key``, or None."""
        found = self.conn.execute(self._get_sql[table], (key,)).fetchone()
        return None if found is None else dict(zip(self.catalog[table].columns, found, strict=True))

    def find_one(self, table: str, column: str, value: str) -> Row | None:
        """The first row (in key order) whose ``column`` equals ``value``, or None."""
        rows = self.select(table, f'"{self._column(table, column)}" = ?', (value,), limit=1)
        return rows[0] if rows else None

    def select(
        self,
        table: str,
        where: str = "1",
        params: Sequence[Any] = (),
        *,
        order_by: str | None = None,
        limit: int | None = None,
        offset: int = 0,
        columns: Sequence[str] | None = None,
    ) -> list[Row]:
        """Rows matching a SQL condition built by trusted code (never raw agent text).

        ``order_by``: an ``ORDER BY`` body (default: the table's key field). ``columns``: only
        these fields of each row (default: all).
        """
        names = list(columns) if columns is not None else self.catalog[table].columns
        chosen = (
            self._select_cols[table]
            if columns is None
            else ", ".join(f'"{self._column(table, c)}"' for c in names)
        )
        sql = f'SELECT {chosen} FROM "{table}" WHERE {where} ORDER BY {order_by or self._sql.keys[table]}'
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        elif offset:
            sql += f" LIMIT -1 OFFSET {int(offset)}"
        return [dict(zip(names, found, strict=True)) for found in self.conn.execute(sql, tuple(params))]

    def count(self, table: str, where: str = "1", params: Sequence[Any] = ()) -> int:
        """Number of rows matching a SQL condition."""
        return self.conn.execute(f'SELECT COUNT(*) FROM "{table}" WHERE {where}', tuple(params)).fetchone()[0]

    def column_values(
        self,
        table: str,
        column: str,
        where: str = "1",
        params: Sequence[Any] = (),
        order_by: str | None = None,
    ) -> list[str]:
        """One column of the matching rows (in key order unless ``order_by`` says otherwise)."""
        col = self._column(table, column)
        sql = f'SELECT "{col}" FROM "{table}" WHERE {where} ORDER BY {order_by or self._sql.keys[table]}'
        return [found[0] for found in self.conn.execute(sql, tuple(params))]

    # -- writes ------------------------------------------------------------------------------

    def insert(self, table: str, row: Mapping[str, str]) -> Row:
        """Insert a row; missing columns are ``""``. Returns the full stored row."""
        spec = self.catalog[table]
        unknown = set(row) - set(spec.columns)
        if unknown:
            raise KeyError(f"{table}: unknown columns {sorted(unknown)}")
        full = {col: row.get(col, "") for col in spec.columns}
        self.conn.execute(self._insert_sql[table], tuple(full.values()))
        return full

    def update(self, table: str, key: str, changes: Mapping[str, str]) -> None:
        """Set the given columns of the row whose key field is ``key``."""
        if not changes:
            return
        shape = (table, tuple(changes))
        sql = self._update_sql.get(shape)
        if sql is None:
            assignments = ", ".join(f'"{self._column(table, col)}" = ?' for col in changes)
            where = self._sql.keys[table]
            sql = self._update_sql[shape] = f'UPDATE "{table}" SET {assignments} WHERE {where} = ?'
        self.conn.execute(sql, (*changes.values(), key))

    def delete(self, table: str, key: str) -> None:
        """Delete the row whose key field is ``key``."""
        self.conn.execute(self._sql.delete[table], (key,))

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing: any exception rolls back every write made inside.

        A savepoint, so it nests in the episode's transaction (and is one of its own outside).
        """
        self.conn.execute("SAVEPOINT call")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO call")
            self.conn.execute("RELEASE call")
            raise
        self.conn.execute("RELEASE call")

    @contextmanager
    def read_only(self) -> Iterator[None]:
        """Run reads in a savepoint that is always rolled back; a write inside is an error.

        Cheaper than ``PRAGMA query_only``, whose toggling forces every cached statement to
        be prepared again (it tripled the cost of a read call).

        Raises:
            ReadOnlyViolation: Something wrote inside (its writes are discarded).
        """
        changes = self.conn.total_changes
        self.conn.execute("SAVEPOINT read")
        try:
            yield
            if self.conn.total_changes != changes:
                raise ReadOnlyViolation("a read-only operation wrote to the database")
        finally:
            self.conn.execute("ROLLBACK TO read")
            self.conn.execute("RELEASE read")

    # -- change log --------------------------------------------------------------------------

    def changed_rows(self) -> list[tuple[str, str, Row | None]]:
        """(table, row key, row before its first change or None if inserted), in write order."""
        return [
            (tbl, key, None if inserted else self.first_image(tbl, key))
            for tbl, key, inserted in self.changed_keys()
        ]

    def changed_keys(self) -> list[tuple[str, str, bool]]:
        """(table, row key, inserted) of every row changed since the start, in write order (no row reads)."""
        key = self._sql.log_key
        logged = f"SELECT tbl, {key}, inserted FROM {CHANGE_LOG} ORDER BY seq, tbl, {key}"
        return [(tbl, row_key, bool(inserted)) for tbl, row_key, inserted in self.conn.execute(logged)]

    def first_image(self, table: str, key: str) -> Row | None:
        """A changed row as it was before its first change in this episode (None if it was created)."""
        found = self.conn.execute(self._sql.first_image[table], (key,)).fetchone()
        return None if found is None else dict(zip(self.catalog[table].columns, found, strict=True))

    def start_values(self, table: str, column: str, min_length: int = 0) -> set[str]:
        """The distinct values of a column at the episode's start (this episode's writes undone).

        Rows the episode changed are read from their first before-images; created rows are left out.
        """
        col, before = self._column(table, column), _before_table(table)
        key, logged = self._sql.keys[table], self._sql.log_key
        found = self.conn.execute(
            f'SELECT DISTINCT "{col}" FROM "{table}" WHERE length("{col}") >= ? AND {key} NOT IN '
            f"(SELECT {logged} FROM {CHANGE_LOG} WHERE tbl = ?) "
            f'UNION SELECT "{col}" FROM "{before}" WHERE length("{col}") >= ?',
            (min_length, table, min_length),
        )
        return {row[0] for row in found}

    def change_log_size(self) -> int:
        """Rows in the change log so far (a mark for :meth:`changed_since`)."""
        return self.conn.execute(f"SELECT COUNT(*) FROM {CHANGE_LOG}").fetchone()[0]

    def changed_since(self, mark: int) -> list[tuple[str, str]]:
        """(table, row key) of the rows first changed after :meth:`change_log_size` returned ``mark``."""
        key = self._sql.log_key
        found = self.conn.execute(
            f"SELECT tbl, {key} FROM {CHANGE_LOG} WHERE seq >= ? ORDER BY seq, tbl, {key}", (mark,)
        )
        return [(tbl, row_key) for tbl, row_key in found.fetchall()]

    def record_new_defaults(
        self, table: str, key: str, defaults: Mapping[str, str], supplied: Iterable[str] = ()
    ) -> None:
        """Record what the service gives a new row before the client's values, and what the client gave.

        Kept in the database, so it rolls back with a failed call and resets with the episode.
        """
        plain = {name: value for name, value in defaults.items() if value != ""}
        self.conn.execute(
            f"INSERT OR REPLACE INTO {NEW_DEFAULTS} VALUES (?, ?, ?, ?)",
            (table, key, json.dumps(plain, sort_keys=True), json.dumps(sorted(set(supplied)))),
        )

    def note_supplied(self, table: str, key: str, supplied: Iterable[str]) -> None:
        """Add fields a client supplied in an update, if the row was created this episode."""
        logged = self._sql.log_key
        found = self.conn.execute(
            f"SELECT supplied FROM {NEW_DEFAULTS} WHERE tbl = ? AND {logged} = ?", (table, key)
        ).fetchone()
        if found is not None:
            names = sorted(set(json.loads(found[0])) | set(supplied))
            self.conn.execute(
                f"UPDATE {NEW_DEFAULTS} SET supplied = ? WHERE tbl = ? AND {logged} = ?",
                (json.dumps(names), table, key),
            )

    def new_defaults(self, table: str, key: str) -> tuple[dict[str, str], frozenset[str]] | None:
        """(defaults, fields the client supplied) of a row created this episode; None if not the service's."""
        found = self.conn.execute(
            f"SELECT defaults, supplied FROM {NEW_DEFAULTS} WHERE tbl = ? AND {self._sql.log_key} = ?",
            (table, key),
        ).fetchone()
        return None if found is None else (json.loads(found[0]), frozenset(json.loads(found[1])))

    def clear_change_log(self) -> None:
        """Forget recorded changes: the current state becomes the diff's starting point."""
        # Skip the writes when the log is empty, so a restored world stays byte-identical to its snapshot.
        tables = [row[0] for row in self.conn.execute(f"SELECT DISTINCT tbl FROM {CHANGE_LOG}")]
        if tables:
            self.conn.execute(f"DELETE FROM {CHANGE_LOG}")
            self.conn.execute(f"DELETE FROM {NEW_DEFAULTS}")
            for tbl in tables:
                self.conn.execute(f'DELETE FROM "{_before_table(tbl)}"')

    def _column(self, table: str, column: str) -> str:
        if column not in self.catalog[table]:
            raise KeyError(f"{table}: unknown column {column!r}")
        return column
