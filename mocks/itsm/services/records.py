"""The record service: every read and write of an ITSM row goes through these functions.

Both tool surfaces call them, so a rule (field validation, access, data policy, business
rule, audit fields, journal) is enforced once, whichever surface the agent uses. Table-specific
behaviour lives in :class:`TableRules` subclasses registered per table.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.schema import FieldSpec, TableSpec
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import bad_request, read_only_fields, record_not_found

_SYS_ID = re.compile(r"^[0-9a-f]{32}$")
_INTEGER = re.compile(r"^-?\d{1,9}$")
_DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
_BOOLEANS = {"true": "true", "false": "false", "1": "true", "0": "false"}

#: Choice fields that can never be empty.
_ALWAYS_SET = frozenset({"state", "impact", "urgency", "type"})
JOURNAL_ELEMENTS = ("comments", "work_notes")


def is_sys_id(text: str) -> bool:
    """True for a 32-hex-digit sys_id."""
    return bool(_SYS_ID.match(text))


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


RULES: dict[str, TableRules] = {}
_NO_RULES = TableRules()


def register(table: str, rules: TableRules) -> None:
    """Attach business rules to a table (one registration per table)."""
    if table in RULES:
        raise ValueError(f"rules for {table} registered twice")
    RULES[table] = rules


def rules_for(table: str) -> TableRules:
    """The table's rules (the empty base when it has none)."""
    return RULES.get(table, _NO_RULES)


# -- validation -------------------------------------------------------------------------------


def clean_values(ctx: CallContext, table: str, values: Mapping[str, Any], row: Row | None) -> dict[str, str]:
    """Validate client-supplied field values and normalize them to stored strings.

    Args:
        ctx: Call context.
        table: Target table.
        values: Field name -> value, as the client sent them.
        row: The current row for an update, None for an insert.

    Raises:
        ToolError: 400 for unknown fields, wrong types, invalid choices or broken references;
            403 (data policy) for attempts to change system-maintained fields.
    """
    spec = ctx.store.catalog[table]
    rules = rules_for(table)
    cleaned: dict[str, str] = {}
    read_only: list[str] = []
    for name, raw in values.items():
        field = spec.field(name)
        if field is None:
            raise bad_request("Invalid field", f"Field '{name}' does not exist on table {table}")
        if not isinstance(raw, str):
            raise bad_request(f"Invalid value for {name}", "Field values are strings")
        value = _clean_value(ctx, spec, field, raw, rules)
        if field.read_only and not (row is None and field.settable_on_insert):
            current = row.get(name, "") if row is not None else ""
            if value != current:
                read_only.append(field.label)
            continue
        cleaned[name] = value
    if read_only:
        raise read_only_fields(read_only)
    return cleaned


def _clean_value(ctx: CallContext, table: TableSpec, field: FieldSpec, value: str, rules: TableRules) -> str:
    name = field.name
    if field.max_length is not None and len(value) > field.max_length:
        raise bad_request(f"Value too long for {name}", f"Maximum length is {field.max_length} characters")
    kind = field.kind
    if kind == "string" or kind == "journal":
        return value
    if value == "":
        if kind == "choice" and name in _ALWAYS_SET:
            raise bad_request(f"Invalid value for {name}", f"{name} cannot be empty")
        return ""
    if kind == "boolean":
        normalized = _BOOLEANS.get(value.lower())
        if normalized is None:
            raise bad_request(f"Invalid value for {name}", f"'{value}' is not true or false")
        return normalized
    if kind == "integer":
        if not _INTEGER.match(value):
            raise bad_request(f"Invalid value for {name}", f"'{value}' is not an integer")
        return str(int(value))
    if kind == "datetime":
        if not _DATETIME.match(value):
            raise bad_request(
                f"Invalid value for {name}", f"'{value}' is not a date-time YYYY-MM-DD HH:MM:SS"
            )
        return value
    if kind == "choice":
        choices = rules.choices(ctx, field) or {}
        if value not in choices:
            allowed = ", ".join(f"{key} ({label})" for key, label in choices.items() if key)
            raise bad_request(
                f"Invalid value for {name}", f"'{value}' is not a valid choice. Choices: {allowed}"
            )
        return value
    # reference
    target = field.reference or ""
    if ctx.store.catalog.is_local(target) and (not is_sys_id(value) or ctx.store.get(target, value) is None):
        raise bad_request(
            f"Invalid reference for {name}", f"'{value}' is not the sys_id of a {target} record"
        )
    return value


# -- writes -----------------------------------------------------------------------------------


def _split_journal(spec: TableSpec, values: dict[str, str]) -> dict[str, str]:
    """Take journal entries (comments, work notes) out of the field values of a task table."""
    journal = {}
    for element in (*JOURNAL_ELEMENTS, "comments_and_work_notes"):
        field = spec.field(element)
        if element in values and field is not None and field.kind == "journal":
            text = values.pop(element)
            if text.strip():
                journal["work_notes" if element == "comments_and_work_notes" else element] = text
    return journal


def _stamp(ctx: CallContext, spec: TableSpec, row: Row, created: bool) -> None:
    now, who = ctx.clock.now_text(), ctx.identity.user_name
    for name, value in (("sys_updated_on", now), ("sys_updated_by", who)):
        if name in spec:
            row[name] = value
    if created:
        for name, value in (("sys_created_on", now), ("sys_created_by", who), ("sys_mod_count", "0")):
            if name in spec:
                row[name] = value
    elif "sys_mod_count" in spec:
        row["sys_mod_count"] = str(int(row["sys_mod_count"] or 0) + 1)


def create(
    ctx: CallContext, table: str, values: Mapping[str, Any], *, trusted: Mapping[str, str] | None = None
) -> Row:
    """Insert a record as the caller.

    Args:
        ctx: Call context.
        table: Target table.
        values: Client-supplied field values (validated; journal fields become entries).
        trusted: Values set by the service itself (skip the read-only check).

    Returns:
        The stored row.
    """
    ctx.intend(Operation.CREATE, table, None, values)
    spec = ctx.store.catalog[table]
    cleaned = clean_values(ctx, table, values, None)
    journal = _split_journal(spec, cleaned)
    ctx.authorize(Operation.CREATE, table, None, {**cleaned, **journal})
    rules = rules_for(table)
    new: Row = {name: "" for name in spec.columns}
    new.update(rules.defaults(ctx))
    new.update(trusted or {})
    # What the service gives a new record before the client's values: the verifier's yardstick
    # for a created row (every field the task does not name must still hold it).
    made = dict(new)
    new.update(cleaned)
    new["sys_id"] = ctx.ids.sys_id()
    ctx.store.record_new_defaults(table, new["sys_id"], made, cleaned)
    if spec.number_prefix:
        new["number"] = ctx.next_number(table)
    for name, value in (("sys_class_name", table), ("sys_domain", "global"), ("sys_domain_path", "/")):
        if name in spec:
            new[name] = value
    _stamp(ctx, spec, new, created=True)
    rules.before_insert(ctx, new, {**cleaned, **journal})
    ctx.store.insert(table, new)
    for element, text in journal.items():
        add_journal(ctx, table, new["sys_id"], element, text)
    rules.after_write(ctx, None, new)
    return new


def update(
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
    cleaned = clean_values(ctx, table, values, row)
    journal = _split_journal(spec, cleaned)
    supplied = {**cleaned, **journal}
    ctx.authorize(Operation.WRITE, table, row, supplied)
    new = dict(row)
    new.update(trusted or {})
    new.update(cleaned)
    rules = rules_for(table)
    rules.before_update(ctx, row, new, supplied)
    if new == row and not journal:
        return new
    _stamp(ctx, spec, new, created=False)
    changed = {name: value for name, value in new.items() if value != row[name]}
    ctx.store.update(table, row["sys_id"], changed)
    ctx.store.note_supplied(table, row["sys_id"], cleaned)
    for element, text in journal.items():
        add_journal(ctx, table, row["sys_id"], element, text)
    rules.after_write(ctx, row, new)
    return new


def delete(ctx: CallContext, table: str, row: Row) -> None:
    """Delete a record as the caller."""
    ctx.intend(Operation.DELETE, table, row)
    ctx.authorize(Operation.DELETE, table, row)
    rules = rules_for(table)
    rules.before_delete(ctx, row)
    ctx.store.delete(table, row["sys_id"])
    rules.after_write(ctx, row, None)


def add_journal(ctx: CallContext, table: str, sys_id: str, element: str, text: str) -> Row:
    """Append a comment or work note to a record's journal (sys_journal_field)."""
    entry = {
        "sys_id": ctx.ids.sys_id(),
        "element": element,
        "element_id": sys_id,
        "name": table,
        "value": text,
        "sys_created_on": ctx.clock.now_text(),
        "sys_created_by": ctx.identity.user_name,
        "sys_updated_on": ctx.clock.now_text(),
        "sys_updated_by": ctx.identity.user_name,
        "sys_mod_count": "0",
    }
    # The client chose the record, the kind (element) and the text; the rest is the service's.
    ctx.store.record_new_defaults(
        "sys_journal_field", entry["sys_id"], {"name": table}, ("element", "element_id", "value")
    )
    return ctx.store.insert("sys_journal_field", entry)


def system_update(ctx: CallContext, table: str, row: Row, changes: Mapping[str, str]) -> Row:
    """A write the system makes as a consequence of the caller's action (no access check).

    Used for side effects a business rule performs with elevated rights: a parent's child
    count, an approval marked no longer required. Audit fields are stamped as usual.
    """
    new = {**row, **changes}
    if new == row:
        return new
    _stamp(ctx, ctx.store.catalog[table], new, created=False)
    ctx.store.update(table, row["sys_id"], {name: value for name, value in new.items() if value != row[name]})
    return new


def system_insert(ctx: CallContext, table: str, values: Mapping[str, str]) -> Row:
    """Insert a row the system creates itself (approval records), stamped as the caller."""
    spec = ctx.store.catalog[table]
    new: Row = {name: "" for name in spec.columns}
    new.update(values)
    new["sys_id"] = ctx.ids.sys_id()
    if spec.number_prefix:
        new["number"] = ctx.next_number(table)
    _stamp(ctx, spec, new, created=True)
    ctx.store.record_new_defaults(table, new["sys_id"], new)  # wholly the system's doing
    ctx.store.insert(table, new)
    return new


# -- reads ------------------------------------------------------------------------------------


def get(ctx: CallContext, table: str, sys_id: str) -> Row:
    """A record by sys_id the caller may read, or the vendor's 404."""
    row = ctx.store.get(table, sys_id) if is_sys_id(sys_id) else None
    if row is None:
        raise record_not_found()
    ctx.authorize(Operation.READ, table, row)
    return row


def query(
    ctx: CallContext,
    table: str,
    where: str = "1",
    params: tuple[Any, ...] = (),
    *,
    order_by: str = "sys_id",
    limit: int | None = None,
    offset: int = 0,
) -> tuple[list[Row], int]:
    """Rows the caller may see matching a trusted SQL condition, and their total count."""
    visible = ctx.row_filter(table)
    if visible is not None:
        where = f"({where}) AND {visible[0]}"
        params = (*params, *visible[1])
    store = ctx.store
    rows = store.select(table, where, params, order_by=order_by, limit=limit, offset=offset)
    short_page = limit is None or len(rows) < limit
    if short_page and (rows or not offset):
        return rows, offset + len(rows)  # the page ended before the limit: no COUNT needed
    return rows, store.count(table, where, params)


def find(ctx: CallContext, table: str, key: str, *, by: tuple[str, ...] = ()) -> Row:
    """Resolve what an agent typed (sys_id, number, or a name field) to one visible record.

    Args:
        ctx: Call context.
        table: Table to search.
        key: sys_id, record number, or a value of one of the ``by`` fields (case-insensitive).
        by: Extra exact-match fields to try, in order (``user_name``, ``email``, ``name``).

    Raises:
        ToolError: 404 when nothing matches; 400 when a name matches several records.
    """
    key = key.strip()
    spec = ctx.store.catalog[table]
    if is_sys_id(key):
        return get(ctx, table, key)
    candidates: list[str] = []
    if spec.number_prefix and key.upper().startswith(spec.number_prefix):
        key = key.upper()
        candidates.append("number")
    candidates.extend(by)
    for column in candidates:
        # Exact first (indexed); then case-insensitive, which scans, for what people type.
        rows, _ = query(ctx, table, f'"{column}" = ?', (key,), limit=3)
        if not rows:
            rows, _ = query(ctx, table, f'"{column}" = ? COLLATE NOCASE', (key,), limit=3)
        if len(rows) == 1:
            return rows[0]
        if len(rows) > 1:
            names = "; ".join(_describe(spec, row) for row in rows)
            raise bad_request(
                f"Ambiguous {spec.label.lower()}: {key!r}",
                f"Several records match ({names}). Use the sys_id or a unique identifier.",
            )
    raise record_not_found(f"{spec.label} {key!r}")


def _describe(spec: TableSpec, row: Row) -> str:
    extra = row.get("email") or row.get("number") or ""
    return f"{row.get(spec.display_field, '')} <{extra}> sys_id={row['sys_id']}"
