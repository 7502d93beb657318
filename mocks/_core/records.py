"""The generic record engine: every read and write of a system's rows goes through one of these.

A :class:`RecordEngine` holds what record services share across vendors: typed validation by
field kind (from the catalog), create / update / delete with the access checks, audit fields,
journal entries split out of the field values, record numbers, and a registry of per-table
business rules (:class:`TableRules`). What differs between vendors comes in as hooks when a
system builds its engine, once:

- ``conventions``: the shape of a record key (``id_pattern``), the date-time format
  (``formats.datetime``) and the record-number field, from the system's
  :class:`~enterprise_envs.mocks._core.conventions.Conventions`;
- ``errors``: the vendor's error shapes (:class:`RecordErrors`);
- ``audit``: which audit fields a row has and how they are stamped (:class:`AuditFields`, or any
  :class:`AuditStamp`);
- ``journal``: where journal entries go (:class:`Journal`); which fields are journal fields is
  the catalog's (``FieldSpec.kind == "journal"``);
- ``always_set``: choice fields that can never be empty;
- ``on_create``: the system's own fields on a record a caller creates.

Each engine has its own rules registry, so two systems with a table of the same name never
share rules. A row's key is its table's :attr:`~enterprise_envs.mocks._core.schema.TableSpec.key_field`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.conventions import Conventions
from enterprise_envs.mocks._core.errors import ToolError
from enterprise_envs.mocks._core.schema import FieldSpec, TableSpec
from enterprise_envs.mocks._core.store import Row

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

_INTEGER = re.compile(r"^-?\d{1,9}$")
_BOOLEANS = {"true": "true", "false": "false", "1": "true", "0": "false"}

#: ``strftime`` directive -> (regular expression, how a person reads it), for the date-time check.
_DIRECTIVES = {
    "Y": (r"\d{4}", "YYYY"),
    "y": (r"\d\d", "YY"),
    "m": (r"\d\d", "MM"),
    "d": (r"\d\d", "DD"),
    "H": (r"\d\d", "HH"),
    "M": (r"\d\d", "MM"),
    "S": (r"\d\d", "SS"),
    "f": (r"\d{6}", "ffffff"),
    "z": (r"[+-]\d{4}", "+HHMM"),
    "%": ("%", "%"),
}


def datetime_shape(datetime_format: str) -> tuple[re.Pattern[str], str]:
    """The check and the human form of a date-time written with ``datetime_format``.

    Args:
        datetime_format: A ``strftime`` pattern of fixed-width numeric directives
            (``%Y-%m-%d %H:%M:%S``).

    Returns:
        A pattern to ``match`` a value against, and the format as a person reads it
        (``YYYY-MM-DD HH:MM:SS``) for the error message.

    Raises:
        ValueError: The format uses a directive without a fixed numeric shape (``%b``, ``%A``).
    """
    pattern, human = ["^"], []
    parts = iter(datetime_format)
    for char in parts:
        if char != "%":
            pattern.append(re.escape(char))
            human.append(char)
            continue
        directive = next(parts, "")
        if directive not in _DIRECTIVES:
            raise ValueError(f"date-time format {datetime_format!r}: unsupported directive %{directive}")
        regex, label = _DIRECTIVES[directive]
        pattern.append(regex)
        human.append(label)
    # ``$`` rather than ``\Z``: the check has always let a trailing newline through, and ITSM's
    # answers must not change with the move to a generic engine.
    pattern.append("$")
    return re.compile("".join(pattern)), "".join(human)


class RecordErrors(Protocol):
    """The vendor's error shapes the engine raises (a system's error module satisfies it)."""

    def bad_request(self, message: str, detail: str | None = None) -> ToolError:
        """400: a malformed value, an unknown field, an ambiguous name."""
        ...

    def read_only_fields(self, labels: Iterable[str]) -> ToolError:
        """The refusal of an attempt to change system-maintained fields (their labels)."""
        ...

    def record_not_found(self, what: str = "") -> ToolError:
        """404: no such record, or one the caller may not read (``what`` names it, if known)."""
        ...


class AuditStamp(Protocol):
    """Sets a row's audit fields when it is created or changed."""

    def stamp(self, ctx: CallContext, spec: TableSpec, row: Row, created: bool) -> None:
        """Stamp ``row`` (mutated) as written now by the caller; ``created`` for a new row."""
        ...


@dataclass(frozen=True)
class AuditFields:
    """Which fields record who made and changed a row and when; the usual stamping.

    A field a table lacks is skipped, so one declaration serves every table. An empty name
    means the system keeps no such field. Times are the simulated clock's, in the system's
    date-time format; the caller is the identity's ``user_name``.

    Attributes:
        created_on: When the row was created.
        created_by: Who created it.
        updated_on: When it was last written (creation included).
        updated_by: Who last wrote it.
        mod_count: How many times it was changed since creation ("0" when created).
    """

    created_on: str = ""
    created_by: str = ""
    updated_on: str = ""
    updated_by: str = ""
    mod_count: str = ""

    def stamp(self, ctx: CallContext, spec: TableSpec, row: Row, created: bool) -> None:
        """Stamp ``row`` (mutated) as written now by the caller; ``created`` for a new row."""
        now, who = ctx.clock.now_text(), ctx.identity.user_name
        for name, value in ((self.updated_on, now), (self.updated_by, who)):
            if name in spec:
                row[name] = value
        count = self.mod_count
        if created:
            for name, value in ((self.created_on, now), (self.created_by, who), (count, "0")):
                if name in spec:
                    row[name] = value
        elif count in spec:
            row[count] = str(int(row[count] or 0) + 1)


@dataclass(frozen=True)
class Journal:
    """Where a system's journal entries go (comments, work notes: append-only text on a record).

    Which fields are journal fields is the catalog's (kind ``journal``). Their values are not
    stored on the row: each non-blank value becomes an entry written by ``write``.

    Attributes:
        write: Appends one entry: ``(ctx, table, row key, element, text) -> the entry's row``.
        aliases: Journal field -> the element its entries are written as, for a field that
            writes into another's journal. Aliased fields are applied after the plain ones, so
            when both are sent the aliased field's text is the entry.
    """

    write: Callable[[CallContext, str, str, str, str], Row]
    aliases: Mapping[str, str] = field(default_factory=dict)


class TableRules:
    """Business rules of one table. The base class has none; subclasses override hooks.

    Hooks run inside the call's transaction; raising a ToolError undoes everything.
    """

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """Values a new row starts with (before the client's values)."""
        return {}

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """Validate and derive fields of a new row (mutate ``new``)."""

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Validate a change and derive fields (mutate ``new``); ``supplied`` is what the client sent."""

    def before_delete(self, ctx: CallContext, old: Row) -> None:
        """Refuse a delete by raising."""

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Side effects on other rows (counts on a parent, approvals, ...)."""

    def choices(self, ctx: CallContext, spec: FieldSpec) -> Mapping[str, str] | None:
        """The allowed values of a choice field on this instance (instance-configurable lists)."""
        return spec.choices


class RecordEngine:
    """One system's record service: validation, CRUD, audit, journal and its table rules.

    Args:
        conventions: The system's conventions: record keys (``id_pattern``), date-times
            (``formats.datetime``) and the record-number field (``numbering.number_field``).
        errors: The vendor's error shapes.
        audit: Stamps audit fields on every write (None: the system keeps none).
        journal: Where journal entries go (None: the system has no journal; a table with a
            journal field is then a configuration error).
        always_set: Choice fields that can never be empty, on any table.
        on_create: Sets the system's own fields on a record a caller creates (after the client's
            values and the record number, before the audit stamp), given the table and the row.
        describe_fields: Fields that tell apart records sharing a name, in the ambiguity error
            of :meth:`find` (the first non-empty one is shown; default: the record number).

    Raises:
        ValueError: The date-time format cannot be checked (see :func:`datetime_shape`).
    """

    def __init__(
        self,
        *,
        conventions: Conventions,
        errors: RecordErrors,
        audit: AuditStamp | None = None,
        journal: Journal | None = None,
        always_set: Iterable[str] = (),
        on_create: Callable[[TableSpec, Row], None] | None = None,
        describe_fields: tuple[str, ...] | None = None,
    ) -> None:
        self.conventions = conventions
        self.errors = errors
        self.audit = audit
        self.journal = journal
        self.always_set = frozenset(always_set)
        self.on_create = on_create
        self.number_field = conventions.numbering.number_field
        self.describe_fields = describe_fields if describe_fields is not None else (self.number_field,)
        #: Table -> its business rules (this engine's own registry).
        self.rules: dict[str, TableRules] = {}
        self._no_rules = TableRules()
        # Compiled once: the per-value checks are attribute lookups, never a pattern rebuilt.
        self._is_key = re.compile(conventions.id_pattern).fullmatch
        self._datetime, self._datetime_text = datetime_shape(conventions.formats.datetime)
        self._stamp = audit.stamp if audit is not None else _no_stamp
        #: TableSpec -> (journal field, element) in the order entries are taken (see _journal_plan).
        self._journal_plans: dict[TableSpec, tuple[tuple[str, str], ...]] = {}

    # -- the rules registry ------------------------------------------------------------------

    def register(self, table: str, rules: TableRules) -> None:
        """Attach business rules to a table (one registration per table)."""
        if table in self.rules:
            raise ValueError(f"rules for {table} registered twice")
        self.rules[table] = rules

    def rules_for(self, table: str) -> TableRules:
        """The table's rules (the empty base when it has none)."""
        return self.rules.get(table, self._no_rules)

    def is_key(self, text: str) -> bool:
        """True if ``text`` has the shape of one of the system's record keys."""
        return self._is_key(text) is not None

    # -- validation --------------------------------------------------------------------------

    def clean_values(
        self, ctx: CallContext, table: str, values: Mapping[str, Any], row: Row | None
    ) -> dict[str, str]:
        """Validate client-supplied field values and normalize them to stored strings.

        Args:
            ctx: Call context.
            table: Target table.
            values: Field name -> value, as the client sent them.
            row: The current row for an update, None for an insert.

        Raises:
            ToolError: The vendor's bad request for unknown fields, wrong types, invalid choices
                or broken references; its read-only refusal for attempts to change
                system-maintained fields (all of them named at once, after every value passed).
        """
        spec = ctx.store.catalog[table]
        rules = self.rules_for(table)
        cleaned: dict[str, str] = {}
        read_only: list[str] = []
        for name, raw in values.items():
            spec_field = spec.field(name)
            if spec_field is None:
                raise self.errors.bad_request(
                    "Invalid field", f"Field '{name}' does not exist on table {table}"
                )
            if not isinstance(raw, str):
                raise self.errors.bad_request(f"Invalid value for {name}", "Field values are strings")
            value = self._clean_value(ctx, spec_field, raw, rules)
            if spec_field.read_only and not (row is None and spec_field.settable_on_insert):
                current = row.get(name, "") if row is not None else ""
                if value != current:
                    read_only.append(spec_field.label)
                continue
            cleaned[name] = value
        if read_only:
            raise self.errors.read_only_fields(read_only)
        return cleaned

    def _clean_value(self, ctx: CallContext, spec_field: FieldSpec, value: str, rules: TableRules) -> str:
        name = spec_field.name
        if spec_field.max_length is not None and len(value) > spec_field.max_length:
            raise self.errors.bad_request(
                f"Value too long for {name}", f"Maximum length is {spec_field.max_length} characters"
            )
        kind = spec_field.kind
        if kind == "string" or kind == "journal":
            return value
        if value == "":
            if kind == "choice" and name in self.always_set:
                raise self.errors.bad_request(f"Invalid value for {name}", f"{name} cannot be empty")
            return ""
        if kind == "boolean":
            normalized = _BOOLEANS.get(value.lower())
            if normalized is None:
                raise self.errors.bad_request(f"Invalid value for {name}", f"'{value}' is not true or false")
            return normalized
        if kind == "integer":
            if not _INTEGER.match(value):
                raise self.errors.bad_request(f"Invalid value for {name}", f"'{value}' is not an integer")
            return str(int(value))
        if kind == "datetime":
            if not self._datetime.match(value):
                raise self.errors.bad_request(
                    f"Invalid value for {name}", f"'{value}' is not a date-time {self._datetime_text}"
                )
            return value
        if kind == "choice":
            choices = rules.choices(ctx, spec_field) or {}
            if value not in choices:
                allowed = ", ".join(f"{key} ({label})" for key, label in choices.items() if key)
                raise self.errors.bad_request(
                    f"Invalid value for {name}", f"'{value}' is not a valid choice. Choices: {allowed}"
                )
            return value
        # reference: checked when the target is modelled here (others are kept as given)
        target = spec_field.reference or ""
        catalog = ctx.store.catalog
        if catalog.is_local(target) and (self._is_key(value) is None or ctx.store.get(target, value) is None):
            raise self.errors.bad_request(
                f"Invalid reference for {name}",
                f"'{value}' is not the {catalog[target].key_field} of a {target} record",
            )
        return value

    # -- writes ------------------------------------------------------------------------------

    def _journal_plan(self, spec: TableSpec) -> tuple[tuple[str, str], ...]:
        """The table's journal fields and the element each writes, plain ones first (cached)."""
        plan = self._journal_plans.get(spec)
        if plan is None:
            names = [spec_field.name for spec_field in spec.fields if spec_field.kind == "journal"]
            if names and self.journal is None:
                raise ValueError(f"table {spec.name} has journal fields {names} but the system no journal")
            aliases = self.journal.aliases if self.journal is not None else {}
            plan = tuple((name, name) for name in names if name not in aliases) + tuple(
                (name, aliases[name]) for name in names if name in aliases
            )
            self._journal_plans[spec] = plan
        return plan

    def _split_journal(self, spec: TableSpec, values: dict[str, str]) -> dict[str, str]:
        """Take journal entries out of the field values (element -> text; blank text is none)."""
        journal = {}
        for name, element in self._journal_plan(spec):
            if name in values:
                text = values.pop(name)
                if text.strip():
                    journal[element] = text
        return journal

    def _write_journal(self, ctx: CallContext, table: str, key: str, journal: Mapping[str, str]) -> None:
        write = self.journal.write  # type: ignore[union-attr]  # entries exist only with a journal
        for element, text in journal.items():
            write(ctx, table, key, element, text)

    def create(
        self,
        ctx: CallContext,
        table: str,
        values: Mapping[str, Any],
        *,
        trusted: Mapping[str, str] | None = None,
        key_kind: str = "",
    ) -> Row:
        """Insert a record as the caller.

        Args:
            ctx: Call context.
            table: Target table.
            values: Client-supplied field values (validated; journal fields become entries).
            trusted: Values set by the service itself (skip the read-only check).
            key_kind: What the system's key maker is asked for instead of the table, when one
                table's rows have keys of several shapes (a direct conversation's ``D...`` among
                channels' ``C...``).

        Returns:
            The stored row.
        """
        ctx.intend(Operation.CREATE, table, None, values)
        spec = ctx.store.catalog[table]
        cleaned = self.clean_values(ctx, table, values, None)
        journal = self._split_journal(spec, cleaned)
        ctx.authorize(Operation.CREATE, table, None, {**cleaned, **journal})
        rules = self.rules_for(table)
        new: Row = {name: "" for name in spec.columns}
        new.update(rules.defaults(ctx))
        new.update(trusted or {})
        # What the service gives a new record before the client's values: the verifier's yardstick
        # for a created row (every field the task does not name must still hold it).
        made = dict(new)
        new.update(cleaned)
        key_field = spec.key_field
        key = new[key_field] = ctx.ids.new(key_kind or table)
        ctx.store.record_new_defaults(table, key, made, cleaned)
        if spec.number_prefix:
            new[self.number_field] = ctx.next_number(table)
        if self.on_create is not None:
            self.on_create(spec, new)
        self._stamp(ctx, spec, new, True)
        rules.before_insert(ctx, new, {**cleaned, **journal})
        ctx.store.insert(table, new)
        if journal:
            self._write_journal(ctx, table, key, journal)
        rules.after_write(ctx, None, new)
        return new

    def update(
        self,
        ctx: CallContext,
        table: str,
        row: Row,
        values: Mapping[str, Any],
        *,
        trusted: Mapping[str, str] | None = None,
    ) -> Row:
        """Change a record as the caller (PATCH semantics: only the given fields).

        Args:
            ctx: Call context.
            table: Target table.
            row: The current row.
            values: Client-supplied field values.
            trusted: Values set by the service itself (skip the read-only check).

        Returns:
            The row as stored after the update.
        """
        ctx.intend(Operation.WRITE, table, row, values)
        spec = ctx.store.catalog[table]
        cleaned = self.clean_values(ctx, table, values, row)
        journal = self._split_journal(spec, cleaned)
        supplied = {**cleaned, **journal}
        ctx.authorize(Operation.WRITE, table, row, supplied)
        new = dict(row)
        new.update(trusted or {})
        new.update(cleaned)
        rules = self.rules_for(table)
        rules.before_update(ctx, row, new, supplied)
        if new == row and not journal:
            return new
        self._stamp(ctx, spec, new, False)
        changed = {name: value for name, value in new.items() if value != row[name]}
        key = row[spec.key_field]
        ctx.store.update(table, key, changed)
        ctx.store.note_supplied(table, key, cleaned)
        if journal:
            self._write_journal(ctx, table, key, journal)
        rules.after_write(ctx, row, new)
        return new

    def delete(self, ctx: CallContext, table: str, row: Row) -> None:
        """Delete a record as the caller."""
        ctx.intend(Operation.DELETE, table, row)
        ctx.authorize(Operation.DELETE, table, row)
        rules = self.rules_for(table)
        rules.before_delete(ctx, row)
        ctx.store.delete(table, row[ctx.store.catalog[table].key_field])
        rules.after_write(ctx, row, None)

    def system_update(self, ctx: CallContext, table: str, row: Row, changes: Mapping[str, str]) -> Row:
        """A write the system makes as a consequence of the caller's action (no access check).

        Used for side effects a business rule performs with elevated rights: a parent's child
        count, an approval marked no longer required. Audit fields are stamped as usual.
        """
        new = {**row, **changes}
        if new == row:
            return new
        spec = ctx.store.catalog[table]
        self._stamp(ctx, spec, new, False)
        changed = {name: value for name, value in new.items() if value != row[name]}
        ctx.store.update(table, row[spec.key_field], changed)
        return new

    def system_insert(self, ctx: CallContext, table: str, values: Mapping[str, str]) -> Row:
        """Insert a row the system creates itself (approval records), stamped as the caller."""
        spec = ctx.store.catalog[table]
        new: Row = {name: "" for name in spec.columns}
        new.update(values)
        key = new[spec.key_field] = ctx.ids.new(table)
        if spec.number_prefix:
            new[self.number_field] = ctx.next_number(table)
        self._stamp(ctx, spec, new, True)
        ctx.store.record_new_defaults(table, key, new)  # wholly the system's doing
        ctx.store.insert(table, new)
        return new

    # -- reads -------------------------------------------------------------------------------

    def get(self, ctx: CallContext, table: str, key: str) -> Row:
        """A record by key the caller may read, or the vendor's not-found."""
        row = ctx.store.get(table, key) if self._is_key(key) is not None else None
        if row is None:
            raise self.errors.record_not_found()
        ctx.authorize(Operation.READ, table, row)
        return row

    def query(
        self,
        ctx: CallContext,
        table: str,
        where: str = "1",
        params: tuple[Any, ...] = (),
        *,
        order_by: str | None = None,
        limit: int | None = None,
        offset: int = 0,
    ) -> tuple[list[Row], int]:
        """Rows the caller may see matching a trusted SQL condition, and their total count.

        ``order_by`` is an ``ORDER BY`` body; the default is the table's key.
        """
        visible = ctx.row_filter(table)
        if visible is not None:
            # Both sides parenthesized: a policy's filter with a bare OR must not escape the AND.
            where = f"({where}) AND ({visible[0]})"
            params = (*params, *visible[1])
        store = ctx.store
        rows = store.select(table, where, params, order_by=order_by, limit=limit, offset=offset)
        short_page = limit is None or len(rows) < limit
        if short_page and (rows or not offset):
            return rows, offset + len(rows)  # the page ended before the limit: no COUNT needed
        return rows, store.count(table, where, params)

    def find(self, ctx: CallContext, table: str, key: str, *, by: tuple[str, ...] = ()) -> Row:
        """Resolve what an agent typed (a key, a record number, or a name field) to one visible record.

        Args:
            ctx: Call context.
            table: Table to search.
            key: A record key, a record number, or a value of one of the ``by`` fields
                (case-insensitive).
            by: Extra exact-match fields to try, in order (a login name, an address, a name).

        Raises:
            ToolError: The vendor's not-found when nothing matches; its bad request when a name
                matches several records.
        """
        key = key.strip()
        spec = ctx.store.catalog[table]
        if self._is_key(key) is not None:
            return self.get(ctx, table, key)
        candidates: list[str] = []
        if spec.number_prefix and key.upper().startswith(spec.number_prefix):
            key = key.upper()
            candidates.append(self.number_field)
        candidates.extend(by)
        for column in candidates:
            # Exact first (indexed); then case-insensitive, which scans, for what people type.
            rows, _ = self.query(ctx, table, f'"{column}" = ?', (key,), limit=3)
            if not rows:
                rows, _ = self.query(ctx, table, f'"{column}" = ? COLLATE NOCASE', (key,), limit=3)
            if len(rows) == 1:
                return rows[0]
            if len(rows) > 1:
                names = "; ".join(self._describe(spec, row) for row in rows)
                raise self.errors.bad_request(
                    f"Ambiguous {spec.label.lower()}: {key!r}",
                    f"Several records match ({names}). Use the {spec.key_field} or a unique identifier.",
                )
        raise self.errors.record_not_found(f"{spec.label} {key!r}")

    def _describe(self, spec: TableSpec, row: Row) -> str:
        extra = next((row[name] for name in self.describe_fields if row.get(name)), "")
        key_field = spec.key_field
        return f"{row.get(spec.display_field, '')} <{extra}> {key_field}={row[key_field]}"


def _no_stamp(ctx: CallContext, spec: TableSpec, row: Row, created: bool) -> None:
    """The stamp of a system that keeps no audit fields."""
