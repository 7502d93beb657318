"""A system's catalog from its vendor's OpenAPI document and an overlay kept as data.

An observed OpenAPI schema says which fields a record carries and, for choice fields, their
values; it does not say where a reference points, which strings are booleans or counters, which
fields the system maintains, or which tables the behaviour needs that the capture never saw. The
overlay says that, per system, as data (``spec/catalog.toml`` beside the spec), so a new vendor's
schema becomes a catalog without new Python for the common parts.

The overlay's entries (all optional but ``schemas``):

- ``key``: the field every table's rows are keyed by, the first column (default ``id``).
- ``schemas``: table -> the OpenAPI component schema describing its records.
- ``kinds``: ``references`` (field -> target table), ``booleans``, ``integers``, ``journals``
  (field names), and how a date-time is recognised: ``datetime_description`` (text in the
  property's description), ``datetime_suffixes``, ``datetime_excluding`` (a word in the name
  that rules it out).
- ``fields``: ``audit`` (bookkeeping kept on every write), ``derived`` (also not a change by
  itself, besides the audit fields), ``system`` (set by the system, never a client; the audit
  fields are too), ``settable_on_insert``, ``computed`` (``[table, field]`` pairs set by business
  rules), ``max_length`` and ``labels`` (field -> value).
- ``tables``: ``display`` (table -> display field; else ``number`` for numbered tables and
  ``name`` otherwise), ``numbers`` (table -> record-number prefix) and ``indexes`` (table ->
  lists of columns).
- ``extra_fields``: table -> columns the capture lacks (``name``, ``kind``, ``label``,
  ``reference``, ``choices``, ``max_length``).
- ``extra_tables``: table -> ``label``, ``display``, ``fields`` (after the key) for tables
  outside the capture; their fields take a kind from ``extra_kinds`` (field -> ``[kind,
  target]``), a reference target by name, ``booleans``, or ``extra_choices`` (``"table.field"``
  -> choices), else string; ``common_system`` fields follow, read-only.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec

__all__ = ["DEFAULT_KEY", "catalog_from_openapi"]

#: The key field of an overlay that names none.
DEFAULT_KEY = "id"


def catalog_from_openapi(
    system: str,
    document: Mapping[str, Any],
    overlay: Mapping[str, Any],
    number_prefixes: Mapping[str, str] | None = None,
) -> Catalog:
    """Build a system's catalog: the described tables first, then the overlay's extra tables.

    Args:
        system: The system's name.
        document: The OpenAPI document (``components.schemas`` is read).
        overlay: What the schema cannot say (see the module docstring).
        number_prefixes: Table -> record-number prefix, for numbered tables.
    """
    rules = _Overlay(overlay, number_prefixes or {})
    schemas = document["components"]["schemas"]
    tables = [rules.spec_table(name, schemas[schema]) for name, schema in overlay["schemas"].items()]
    tables += [rules.extra_table(name, info) for name, info in overlay.get("extra_tables", {}).items()]
    return Catalog(system, tables)


class _Overlay:
    """The overlay read once into lookups."""

    def __init__(self, overlay: Mapping[str, Any], number_prefixes: Mapping[str, str]) -> None:
        kinds, fields, tables = (overlay.get(key, {}) for key in ("kinds", "fields", "tables"))
        self.key: str = overlay.get("key", DEFAULT_KEY)
        self.references: dict[str, str] = dict(kinds.get("references", {}))
        self.booleans = frozenset(kinds.get("booleans", ()))
        self.integers = frozenset(kinds.get("integers", ()))
        self.journals = frozenset(kinds.get("journals", ()))
        self.datetime_description: str | None = kinds.get("datetime_description")
        self.datetime_suffixes = tuple(kinds.get("datetime_suffixes", ()))
        self.datetime_excluding: str | None = kinds.get("datetime_excluding")
        audit = frozenset(fields.get("audit", ()))
        self.derived = audit | frozenset(fields.get("derived", ()))
        self.system = frozenset(fields.get("system", ())) | audit
        self.settable_on_insert = frozenset(fields.get("settable_on_insert", ()))
        self.computed = frozenset(tuple(pair) for pair in fields.get("computed", ()))
        self.max_length: dict[str, int] = dict(fields.get("max_length", {}))
        self.labels: dict[str, str] = dict(fields.get("labels", {}))
        self.display: dict[str, str] = dict(tables.get("display", {}))
        self.indexes = {
            table: tuple(tuple(columns) for columns in lists)
            for table, lists in tables.get("indexes", {}).items()
        }
        self.extra_fields = {
            table: tuple(_field_from_data(entry) for entry in entries)
            for table, entries in overlay.get("extra_fields", {}).items()
        }
        # ``[kind]`` or ``[kind, target]``.
        self.extra_kinds = {
            name: (kind[0], kind[1] if len(kind) > 1 else None)
            for name, kind in overlay.get("extra_kinds", {}).items()
        }
        self.extra_choices: dict[str, dict[str, str]] = dict(overlay.get("extra_choices", {}))
        self.common_system = tuple(overlay.get("common_system", ()))
        # Record-number prefixes: the overlay's (``tables.numbers``), then the caller's.
        self.number_prefixes = {**tables.get("numbers", {}), **number_prefixes}

    def field_kind(self, name: str, prop: Mapping[str, Any]) -> tuple[str, str | None]:
        """A described field's kind (and reference target)."""
        # A derived spec types a reference as a plain string where every captured value was
        # empty; the vendor renders those fields as references, so the field name decides.
        if "allOf" in prop or name in self.references:
            return "reference", self.references[name]
        if name in self.journals:
            return "journal", None
        if "x-choices" in prop:
            return "choice", None
        if name in self.booleans:
            return "boolean", None
        if name in self.integers:
            return "integer", None
        described = self.datetime_description is not None and self.datetime_description in prop.get(
            "description", ""
        )
        excluded = self.datetime_excluding is not None and self.datetime_excluding in name
        if (described or name.endswith(self.datetime_suffixes)) and not excluded:
            return "datetime", None
        return "string", None

    def spec_table(self, name: str, schema: Mapping[str, Any]) -> TableSpec:
        """A table the document describes: every property a column, the key first."""
        props: Mapping[str, Any] = schema["properties"]
        key = self.key
        if key not in props:
            raise ValueError(f"table {name}: the document describes no key field {key!r}")
        fields = []
        for field_name in [key, *sorted(field for field in props if field != key)]:
            prop = props[field_name]
            kind, target = self.field_kind(field_name, prop)
            fields.append(
                FieldSpec(
                    field_name,
                    kind,
                    label=self.labels.get(field_name, ""),
                    reference=target,
                    choices=prop.get("x-choices"),
                    max_length=self.max_length.get(field_name),
                    read_only=field_name in self.system,
                    settable_on_insert=field_name in self.settable_on_insert,
                    computed=(name, field_name) in self.computed,
                    derived=field_name in self.derived,
                )
            )
        fields.extend(self.extra_fields.get(name, ()))
        numbered = name in self.number_prefixes
        return TableSpec(
            name=name,
            fields=tuple(fields),
            label=name.replace("_", " ").title(),
            display_field=self.display.get(name, "number" if numbered else "name"),
            number_prefix=self.number_prefixes.get(name),
            indexes=self.indexes.get(name, ()),
        )

    def extra_table(self, name: str, info: Mapping[str, Any]) -> TableSpec:
        """A table outside the document, as the overlay lists it."""
        fields = [FieldSpec(self.key, read_only=True)]
        for field_name in info["fields"]:
            kind, target = self.extra_kinds.get(field_name, ("string", None))
            if field_name in self.references and kind == "string":
                kind, target = "reference", self.references[field_name]
            if field_name in self.booleans:
                kind = "boolean"
            choices = self.extra_choices.get(f"{name}.{field_name}")
            if choices:
                kind = "choice"
            fields.append(
                FieldSpec(
                    field_name,
                    kind,
                    reference=target,
                    choices=choices,
                    max_length=self.max_length.get(field_name),
                )
            )
        for field_name in self.common_system:
            kind, _ = self.field_kind(field_name, {})
            fields.append(FieldSpec(field_name, kind, read_only=True, derived=field_name in self.derived))
        return TableSpec(
            name=name,
            fields=tuple(fields),
            label=info["label"],
            display_field=info["display"],
            indexes=self.indexes.get(name, ()),
        )


def _field_from_data(entry: Mapping[str, Any]) -> FieldSpec:
    return FieldSpec(
        entry["name"],
        entry.get("kind", "string"),
        label=entry.get("label", ""),
        reference=entry.get("reference"),
        choices=entry.get("choices"),
        max_length=entry.get("max_length"),
    )
