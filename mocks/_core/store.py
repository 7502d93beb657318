"""Row access over a system's SQLite database, and the change log the verifier reads.

The service layer runs millions of calls, so rows go through the raw ``sqlite3`` connection
with SQL generated once per table from the catalog (an ORM round trip costs more than the
whole read budget). The schema itself comes from the SQLModel classes.

Every write is recorded by SQLite triggers in ``_change_log`` (table, sys_id) and
``_before_<table>`` (the row as it was before its first change), inside the same
transaction, so a rolled-back call leaves no trace and the verifier's diff costs
O(changed rows), whatever the world's size.
"""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from enterprise_envs.mocks._core.schema import Catalog

Row = dict[str, str]

CHANGE_LOG = "_change_log"


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
    the bound value: when it does, the first such statement after each snapshot restore costs
    ~0.8 ms instead of ~0.05 ms (SQLite 3.40; measured by ``enterprise-envs bench``, see
    docs/performance.md). The optimization could never help here anyway: our indexes are
    BINARY-collated and LIKE is case-insensitive.
    """
    return f"{expression} LIKE CAST(? AS TEXT) ESCAPE '\\'"


def _before_table(table: str) -> str:
    return f"_before_{table}"


def install_change_log(conn: sqlite3.Connection, catalog: Catalog) -> None:
    """Create the change log, the before-image tables and their triggers on every catalog table.

    Called once when a world is built, after the bulk load, so the snapshot carries the
    triggers and an empty log. Each table gets a shadow table holding the first before-image
    of every row changed; the triggers copy the row with ``SELECT *`` rather than listing its
    columns, which keeps the parsed schema (paid per connection, per env) small.
    """
    conn.execute(
        f"CREATE TABLE {CHANGE_LOG} (tbl TEXT NOT NULL, sys_id TEXT NOT NULL, inserted INTEGER NOT NULL, "
        "seq INTEGER NOT NULL, PRIMARY KEY (tbl, sys_id)) WITHOUT ROWID"
    )
    seq = f"(SELECT COUNT(*) FROM {CHANGE_LOG})"
    for table in catalog.values():
        name, before = table.name, _before_table(table.name)
        columns = ", ".join(f'"{col}" TEXT' for col in table.columns)
        copy = f'INSERT OR IGNORE INTO "{before}" SELECT * FROM "{name}" WHERE sys_id = OLD.sys_id;'
        log = f"INSERT OR IGNORE INTO {CHANGE_LOG} VALUES ('{name}', OLD.sys_id, 0, {seq});"
        conn.executescript(
            f"""
            CREATE TABLE "{before}" ({columns}, PRIMARY KEY (sys_id)) WITHOUT ROWID;
            CREATE TRIGGER "_log_ins_{name}" AFTER INSERT ON "{name}" BEGIN
              INSERT OR IGNORE INTO {CHANGE_LOG} VALUES ('{name}', NEW.sys_id, 1, {seq});
            END;
            CREATE TRIGGER "_log_upd_{name}" BEFORE UPDATE ON "{name}" BEGIN {copy} {log} END;
            CREATE TRIGGER "_log_del_{name}" BEFORE DELETE ON "{name}" BEGIN {copy} {log} END;
            """
        )


@functools.cache
def _sql_for(catalog: Catalog) -> tuple[dict[str, str], dict[str, str], dict[str, str], dict[tuple, str]]:
    """SQL text per table, shared by every store over the same catalog (memory per env matters)."""
    select_cols = {name: ", ".join(f'"{col}"' for col in spec.columns) for name, spec in catalog.items()}
    insert_sql = {
        name: f'INSERT INTO "{name}" ({select_cols[name]}) VALUES ({_marks(len(spec.columns))})'
        for name, spec in catalog.items()
    }
    get_sql = {name: f'SELECT {select_cols[name]} FROM "{name}" WHERE sys_id = ?' for name in catalog}
    return select_cols, insert_sql, get_sql, {}


class Store:
    """Typed-free, fast row access for the service layer.

    Args:
        conn: The connection (see :func:`connect`).
        catalog: The system's tables; only catalog tables and columns are ever named in SQL.
    """

    def __init__(self, conn: sqlite3.Connection, catalog: Catalog) -> None:
        self.conn = conn
        self.catalog = catalog
        sql = _sql_for(catalog)
        self._select_cols, self._insert_sql, self._get_sql, self._update_sql = sql

    # -- reads -------------------------------------------------------------------------------

    def get(self, table: str, sys_id: str) -> Row | None:
        """The row with this sys_id, or None."""
        found = self.conn.execute(self._get_sql[table], (sys_id,)).fetchone()
        return None if found is None else dict(zip(self.catalog[table].columns, found, strict=True))

    def find_one(self, table: str, column: str, value: str) -> Row | None:
        """The first row (by sys_id) whose ``column`` equals ``value``, or None."""
        rows = self.select(table, f'"{self._column(table, column)}" = ?', (value,), limit=1)
        return rows[0] if rows else None

    def select(
        self,
        table: str,
        where: str = "1",
        params: Sequence[Any] = (),
        *,
        order_by: str = "sys_id",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[Row]:
        """Rows matching a SQL condition built by trusted code (never raw agent text)."""
        sql = f'SELECT {self._select_cols[table]} FROM "{table}" WHERE {where} ORDER BY {order_by}'
        if limit is not None:
            sql += f" LIMIT {int(limit)} OFFSET {int(offset)}"
        elif offset:
            sql += f" LIMIT -1 OFFSET {int(offset)}"
        columns = self.catalog[table].columns
        return [dict(zip(columns, found, strict=True)) for found in self.conn.execute(sql, tuple(params))]

    def count(self, table: str, where: str = "1", params: Sequence[Any] = ()) -> int:
        """Number of rows matching a SQL condition."""
        return self.conn.execute(f'SELECT COUNT(*) FROM "{table}" WHERE {where}', tuple(params)).fetchone()[0]

    def column_values(
        self, table: str, column: str, where: str = "1", params: Sequence[Any] = (), order_by: str = "sys_id"
    ) -> list[str]:
        """One column of the matching rows (sys_id order by default)."""
        col = self._column(table, column)
        sql = f'SELECT "{col}" FROM "{table}" WHERE {where} ORDER BY {order_by}'
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

    def update(self, table: str, sys_id: str, changes: Mapping[str, str]) -> None:
        """Set the given columns of one row."""
        if not changes:
            return
        key = (table, tuple(changes))
        sql = self._update_sql.get(key)
        if sql is None:
            assignments = ", ".join(f'"{self._column(table, col)}" = ?' for col in changes)
            sql = self._update_sql[key] = f'UPDATE "{table}" SET {assignments} WHERE sys_id = ?'
        self.conn.execute(sql, (*changes.values(), sys_id))

    def delete(self, table: str, sys_id: str) -> None:
        """Delete one row."""
        self.conn.execute(f'DELETE FROM "{table}" WHERE sys_id = ?', (sys_id,))

    # -- transactions ------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """All-or-nothing: any exception rolls back every write made inside."""
        self.conn.execute("BEGIN")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    @contextmanager
    def read_only(self) -> Iterator[None]:
        """Run reads in a transaction that is always rolled back; a write inside is an error.

        Cheaper than ``PRAGMA query_only``, whose toggling forces every cached statement to
        be prepared again (it tripled the cost of a read call).

        Raises:
            ReadOnlyViolation: Something wrote inside (its writes are discarded).
        """
        changes = self.conn.total_changes
        self.conn.execute("BEGIN")
        try:
            yield
            if self.conn.total_changes != changes:
                raise ReadOnlyViolation("a read-only operation wrote to the database")
        finally:
            self.conn.execute("ROLLBACK")

    # -- change log --------------------------------------------------------------------------

    def changed_rows(self) -> list[tuple[str, str, Row | None]]:
        """(table, sys_id, row before its first change or None if inserted), in write order."""
        out: list[tuple[str, str, Row | None]] = []
        logged = f"SELECT tbl, sys_id, inserted FROM {CHANGE_LOG} ORDER BY seq, tbl, sys_id"
        for tbl, sys_id, inserted in self.conn.execute(logged).fetchall():
            if inserted:
                out.append((tbl, sys_id, None))
                continue
            columns = self.catalog[tbl].columns
            found = self.conn.execute(
                f'SELECT {self._select_cols[tbl]} FROM "{_before_table(tbl)}" WHERE sys_id = ?', (sys_id,)
            ).fetchone()
            out.append((tbl, sys_id, dict(zip(columns, found, strict=True))))
        return out

    def clear_change_log(self) -> None:
        """Forget recorded changes: the current state becomes the diff's starting point."""
        # Skip the writes when the log is empty, so a restored world stays byte-identical to its snapshot.
        tables = [row[0] for row in self.conn.execute(f"SELECT DISTINCT tbl FROM {CHANGE_LOG}")]
        if tables:
            self.conn.execute(f"DELETE FROM {CHANGE_LOG}")
            for tbl in tables:
                self.conn.execute(f'DELETE FROM "{_before_table(tbl)}"')

    def _column(self, table: str, column: str) -> str:
        if column not in self.catalog[table]:
            raise KeyError(f"{table}: unknown column {column!r}")
        return column
