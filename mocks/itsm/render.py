"""Records as the Table API returns them: strings, reference links, display values.

``sysparm_display_value``: ``false`` (stored values, the default), ``true`` (display values),
``all`` (``{"display_value", "value"[, "link"]}`` per field). ``sysparm_exclude_reference_link``
drops the links. Journal fields read as ``""`` unless display values are asked for, then as
the formatted entries, newest first (the vendor's activity text).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.http import public_url
from enterprise_envs.mocks._core.schema import FieldSpec, TableSpec
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.access import sees_work_notes
from enterprise_envs.mocks.itsm.services.records import is_sys_id

_JOURNAL_LABEL = {"comments": "Additional comments", "work_notes": "Work notes"}


@lru_cache(maxsize=1024)
def _plan(spec: TableSpec, fields: tuple[str, ...] | None) -> tuple[FieldSpec, ...]:
    """The fields to render, in order (``sysparm_fields`` names that do not exist are skipped)."""
    if fields is None:
        return spec.fields
    return tuple(spec.field(name) for name in fields if name in spec)  # type: ignore[misc]


class RecordRenderer:
    """Renders rows of one call; display lookups are cached for the call's lifetime.

    Args:
        ctx: Call context (store, settings).
        display: ``"false"``, ``"true"`` or ``"all"``.
        exclude_reference_link: Drop ``link`` from reference values.
    """

    def __init__(
        self, ctx: CallContext, display: str = "false", exclude_reference_link: bool = False
    ) -> None:
        self.ctx = ctx
        self.display = display
        self.exclude_links = exclude_reference_link
        self.base_url = public_url(ctx.settings["instance_url"])
        self._names: dict[tuple[str, str], str] = {}

    def record(self, table: str, row: Row, fields: Sequence[str] | None = None) -> dict[str, Any]:
        """One row as a Table API result object (only ``fields`` if given, in that order)."""
        spec = self.ctx.store.catalog[table]
        plan = _plan(spec, tuple(fields) if fields else None)
        if self.display != "false":
            return {field.name: self.value(spec, field, row) for field in plan}
        # The default representation is the hot path: stored strings except references.
        out: dict[str, Any] = {}
        for field in plan:
            kind = field.kind
            if kind == "reference":
                out[field.name] = self._reference(field, row[field.name])
            elif kind == "journal":
                out[field.name] = ""
            else:
                out[field.name] = row[field.name]
        return out

    def value(self, table: TableSpec, field: FieldSpec, row: Row) -> Any:
        """One field's value in the requested representation."""
        raw = row[field.name]
        kind = field.kind
        if field.name == "sys_id":
            return raw  # a plain string in every representation (TableRecord in the spec)
        if kind == "reference":
            return self._reference(field, raw)
        if kind == "journal":
            if self.display == "false":
                return ""
            text = self._journal(table.name, row["sys_id"], field.name)
            return text if self.display == "true" else {"display_value": text, "value": ""}
        if self.display == "false":
            return raw
        label = field.choices.get(raw, raw) if kind == "choice" and field.choices else raw
        if self.display == "true":
            return label
        return {"display_value": label, "value": raw}

    def link(self, table: str, sys_id: str) -> str:
        """The REST URL of a record."""
        return f"{self.base_url}/api/now/table/{table}/{sys_id}"

    def display_name(self, table: str, sys_id: str) -> str:
        """A referenced record's display value ("" when it does not exist here)."""
        key = (table, sys_id)
        name = self._names.get(key)
        if name is None:
            catalog = self.ctx.store.catalog
            row = self.ctx.store.get(table, sys_id) if catalog.is_local(table) else None
            # A value that is not a sys_id ("global" for sys_domain) displays as itself.
            name = row[catalog[table].display_field] if row else ("" if is_sys_id(sys_id) else sys_id)
            self._names[key] = name
        return name

    def _reference(self, field: FieldSpec, raw: str) -> Any:
        if not raw:
            return "" if self.display != "all" else {"display_value": "", "value": ""}
        target = field.reference or ""
        if self.display == "false":
            return raw if self.exclude_links else {"link": self.link(target, raw), "value": raw}
        name = self.display_name(target, raw)
        if self.display == "true":
            return name if self.exclude_links else {"display_value": name, "link": self.link(target, raw)}
        pair: dict[str, str] = {"display_value": name, "value": raw}
        if not self.exclude_links:
            pair["link"] = self.link(target, raw)
        return pair

    def _journal(self, table: str, sys_id: str, element: str) -> str:
        elements = ("comments", "work_notes") if element == "comments_and_work_notes" else (element,)
        if not sees_work_notes(self.ctx.identity):
            elements = tuple(name for name in elements if name != "work_notes")
            if not elements:
                return ""
        marks = ", ".join("?" * len(elements))
        entries = self.ctx.store.select(
            "sys_journal_field",
            f"element_id = ? AND name = ? AND element IN ({marks})",
            (sys_id, table, *elements),
            order_by="sys_created_on DESC, sys_id DESC",
        )
        return "".join(
            f"{entry['sys_created_on']} - {entry['sys_created_by']} ({_JOURNAL_LABEL[entry['element']]})\n"
            f"{entry['value']}\n\n"
            for entry in entries
        )
