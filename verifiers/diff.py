"""StateDiff: what an episode changed, row by row and field by field.

Built from the back-end's change log (see ``mocks/_core/store.py``), so its cost grows with
the number of rows changed, never with the world's size. Fields the mock declares derived
(an update stamp, a modification count, a parent's child count) are kept visible but a row whose
only changes are derived is not a change. A row that ends exactly as it started (updated and
put back, or deleted and re-inserted with identical content) is not a change either: the
verifier judges end state. Such rows are listed as ``reverted`` so that nothing is hidden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from enterprise_envs.mocks._core.store import Row, Store

Op = Literal["insert", "update", "delete"]


@dataclass(frozen=True)
class RowChange:
    """One row that differs between the start and the end of an episode.

    Attributes:
        table: Table name.
        row_key: The row's key (the value of its table's key field).
        op: ``insert``, ``update`` or ``delete``.
        before: The row at the start (None for an insert).
        after: The row now (None for a delete).
        fields: Changed fields, name -> (before, after); derived fields included.
        significant: The changed fields that count (not derived).
        display: The row's display value (its table's display field), for labels.
        chosen: The significant changed fields a client chooses (not system-maintained or
            computed by rules), for ``others = "unchanged"``. On an insert: the client-chosen
            fields whose value differs from what the service gives a new record (its defaults),
            so a record created dead or with links nobody asked for shows them here.
        key_field: The name of the table's key field (what :meth:`to_dict` calls the key);
            empty when unknown (a change built by hand).
    """

    table: str
    row_key: str
    op: Op
    before: Row | None
    after: Row | None
    fields: dict[str, tuple[str, str]]
    significant: tuple[str, ...]
    display: str = ""
    chosen: tuple[str, ...] = ()
    key_field: str = ""

    @property
    def key(self) -> tuple[str, str]:
        """(table, row key): the row, across tables."""
        return (self.table, self.row_key)

    @property
    def sys_id(self) -> str:
        """The row's key under its former name (read-only; the audit still reads it)."""
        return self.row_key

    def value(self, name: str, side: Literal["before", "after"] = "after") -> str:
        """A field's value on one side ("" when that side has no row)."""
        row = self.before if side == "before" else self.after
        return "" if row is None else row.get(name, "")

    def label(self) -> str:
        """A short human name for the row: its display value (number, name, text) or its key."""
        shown = " ".join(self.display.split())
        if len(shown) > 40:
            shown = shown[:37] + "..."
        return f"{self.table} {shown or self.row_key}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (changed fields only, not whole rows).

        The row's key is given under its table's key field name, as in the row itself
        (``"key"`` when the change does not know it or the name is one of the entries here).
        """
        out: dict[str, Any] = {
            "table": self.table,
            "op": self.op,
            "label": self.label(),
            "fields": {name: list(values) for name, values in self.fields.items()},
            "significant": list(self.significant),
        }
        named = self.key_field if self.key_field and self.key_field not in out else "key"
        # The key second, where it has always been (readers and logs see a stable order).
        return {"table": self.table, named: self.row_key, **out}


@dataclass(frozen=True)
class StateDiff:
    """Everything an episode changed.

    Attributes:
        changes: Rows that count as changed, in the order they were first written.
        derived_only: Rows whose only changes are bookkeeping (visible, not counted).
        reverted: Rows written but back to their starting content (visible, not counted).
    """

    changes: tuple[RowChange, ...]
    derived_only: tuple[RowChange, ...] = ()
    reverted: tuple[tuple[str, str], ...] = field(default=())

    @property
    def empty(self) -> bool:
        """True when nothing counts as changed."""
        return not self.changes

    def summary(self) -> dict[str, dict[str, int]]:
        """Counts per table and op: ``{"incident": {"update": 1}, ...}``."""
        out: dict[str, dict[str, int]] = {}
        for change in self.changes:
            per_table = out.setdefault(change.table, {})
            per_table[change.op] = per_table.get(change.op, 0) + 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "summary": self.summary(),
            "changes": [change.to_dict() for change in self.changes],
            "derived_only": [change.to_dict() for change in self.derived_only],
            "reverted": [list(key) for key in self.reverted],
        }

    def to_text(self) -> str:
        """Compact rendering for logs: one line per changed row."""
        if not self.changes:
            return "no changes"
        lines = []
        for change in self.changes:
            shown = ", ".join(
                f"{name}: {before!r} -> {after!r}"
                for name, (before, after) in change.fields.items()
                if name in change.significant
            )
            lines.append(f"{change.op} {change.label()}" + (f" ({shown})" if change.op == "update" else ""))
        return "\n".join(lines)


def _chosen_on_insert(store: Store, spec: Any, key: str, row: Mapping[str, str]) -> tuple[str, ...]:
    """Fields of a created row the client chose that differ from the service's new-record defaults.

    The service layer records, for each row it creates, its defaults and the fields the client
    supplied (at creation or in a later update); what the service derived itself is not the
    client's choice. A row it did not create (a raw SQL insert) has nothing on record: every
    non-empty settable field then counts.
    """
    recorded = store.new_defaults(spec.name, key)
    defaults, supplied = recorded if recorded is not None else ({}, None)
    return tuple(
        field.name
        for field in spec.fields
        if not (field.read_only or field.computed or field.derived)
        and field.name != spec.key_field
        and (supplied is None or field.name in supplied)
        and row.get(field.name, "") != defaults.get(field.name, "")
    )


def compute_diff(store: Store) -> StateDiff:
    """The diff between the state at the last ``clear_change_log`` and now.

    Reads two rows per logged row (the before-image and the current row): O(changed rows).
    """
    changes: list[RowChange] = []
    derived_only: list[RowChange] = []
    reverted: list[tuple[str, str]] = []
    for table, key, before in store.changed_rows():
        after = store.get(table, key)
        if before is None and after is None:
            continue  # inserted and deleted within the episode: never existed at either end
        spec = store.catalog[table]
        if before is None:
            op: Op = "insert"
        elif after is None:
            op = "delete"
        else:
            op = "update"
        old, new = before or {}, after or {}
        if op == "update":
            fields = {name: (old[name], new[name]) for name in spec.columns if old[name] != new[name]}
        else:  # the whole row appeared or disappeared: list its non-empty fields
            present = new if op == "insert" else old
            fields = {
                name: (old.get(name, ""), new.get(name, "")) for name in spec.columns if present[name] != ""
            }
        if op == "update" and not fields:
            reverted.append((table, key))
            continue
        derived = spec.derived_fields
        significant = tuple(name for name in fields if name not in derived)
        shown = (after or before or {}).get(spec.display_field, "")
        if op == "insert":
            chosen = _chosen_on_insert(store, spec, key, new)
        else:
            chosen = tuple(
                name
                for name in significant
                if not (spec.field(name).read_only or spec.field(name).computed)  # type: ignore[union-attr]
            )
        change = RowChange(
            table,
            key,
            op,
            before,
            after,
            fields,
            significant,
            shown if shown != key else "",
            chosen,
            spec.key_field,
        )
        if op == "update" and not significant:
            derived_only.append(change)
        else:
            changes.append(change)
    return StateDiff(tuple(changes), tuple(derived_only), tuple(reverted))
