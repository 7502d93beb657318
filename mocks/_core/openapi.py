"""A system's catalog from its vendor's OpenAPI document and an overlay kept as data.

An observed OpenAPI schema says which fields a record carries and, for choice fields, their
values; it does not say where a reference points, which strings are booleans or counters, which
fields the system maintains, or which tables the behaviour needs that the capture never saw. The
overlay says that, per system, as data (``spec/catalog.toml`` beside the spec), so a new vendor's
schema becomes a catalog without new Python for the common parts.

What the document itself says is read as OpenAPI means it: ``$ref`` and ``allOf`` are followed
(an ``anyOf`` / ``oneOf`` of objects offers the properties of every alternative), an ``enum`` is
a choice list (each value its own label) unless it narrows a boolean, ``format: date-time`` a
date-time, ``type: boolean`` and ``type: integer`` booleans and integers, ``readOnly`` a field
only the system sets, ``maxLength`` a bound. A column holds one text value, so object and array
properties are not columns unless the overlay flattens them or keeps them as JSON text.

The overlay's entries (all optional but ``schemas``):

- ``key``: the field every table's rows are keyed by, the first column (default ``id``).
- ``schemas``: table -> the OpenAPI component schema describing its records.
- ``kinds``: ``references`` (field -> target table), ``booleans``, ``integers``, ``journals``
  (field names), and how a date-time is recognised: ``datetime_description`` (text in the
  property's description), ``datetime_suffixes``, ``datetime_excluding`` (a word in the name
  that rules it out). ``reference_schemas``: component schemas whose use (a ``$ref`` to one,
  alone or in an ``allOf``) marks a reference field; without it, every ``allOf`` property is a
  reference (derived documents that wrap references in ``allOf``); with it, an ``allOf`` is
  merged like any composition.
- ``fields``: ``audit`` (bookkeeping kept on every write), ``derived`` (also not a change by
  itself, besides the audit fields), ``system`` (set by the system, never a client; the audit
  fields are too), ``settable_on_insert``, ``computed`` (``[table, field]`` pairs set by business
  rules), ``clock`` (stamped with the call's time whatever their kind: UNIX seconds, a message
  ``ts``), ``max_length`` and ``labels`` (field -> value).
- ``tables``: ``display`` (table -> display field; else ``number`` for numbered tables and
  ``name`` otherwise), ``labels`` (table -> its human name; else the name in title case),
  ``numbers`` (table -> record-number prefix), ``indexes`` (table -> lists of columns), and, for
  records that nest:

  - ``keys``: table -> its key field where it is not ``key``;
  - ``internal_keys``: tables whose records carry no key of their own (the vendor names them by
    a pair of fields): their key is a read-only column the document does not describe;
  - ``flatten``: table -> {property path -> column naming rule}: the scalar properties of the
    nested object at that dotted path (``profile``, ``credentials.provider``) become columns,
    named by the rule, a template where ``{name}`` is the property's name and ``{Name}`` the
    same with its first letter capitalised (``"{name}"`` keeps ``login``;
    ``"provider{Name}"`` makes ``providerType``). Two properties may not land on one column;
  - ``omit``: table -> property paths that are not columns (an early-access field, one the
    system does not model); a path some release lacks may be named;
  - ``json``: table -> property paths kept whole as one text column holding their JSON (an
    array of objects that has no row shape of its own).

- ``extra_fields``: table -> columns the capture lacks (``name``, ``kind``, ``label``,
  ``reference``, ``choices``, ``max_length``).
- ``extra_tables``: table -> ``label``, ``display``, ``fields`` (after the key) for tables
  outside the capture; their fields take a kind from ``extra_kinds`` (field -> ``[kind,
  target]``), a reference target by name, ``booleans``, or ``extra_choices`` (``"table.field"``
  -> choices), else string; ``common_system`` fields follow, read-only.

Column order: the key, then every described column by name, then the overlay's extra fields.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Mapping
from typing import Any

from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec

__all__ = ["DEFAULT_KEY", "catalog_from_openapi", "dereference", "follow_ref"]

#: The key field of an overlay that names none.
DEFAULT_KEY = "id"

#: Where a local ``$ref`` points.
_LOCAL_REF = "#/"
#: Keys of a merged ``allOf`` that are lists to join rather than values to replace (an ``enum``
#: is replaced: a later member narrows it).
_JOINED_KEYS = ("required",)
#: A lowercase letter or digit followed by a capital: where a camelCase name splits into words.
_CAMEL_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def catalog_from_openapi(
    system: str,
    document: Mapping[str, Any],
    overlay: Mapping[str, Any],
    number_prefixes: Mapping[str, str] | None = None,
) -> Catalog:
    """Build a system's catalog: the described tables first, then the overlay's extra tables.

    Args:
        system: The system's name.
        document: The OpenAPI document (``components.schemas`` is read, and what its ``$ref``s
            point at).
        overlay: What the schema cannot say (see the module docstring).
        number_prefixes: Table -> record-number prefix, for numbered tables.
    """
    rules = _Overlay(overlay, number_prefixes or {}, _Document(document))
    schemas = document["components"]["schemas"]
    tables = [rules.spec_table(name, schemas[schema]) for name, schema in overlay["schemas"].items()]
    tables += [rules.extra_table(name, info) for name, info in overlay.get("extra_tables", {}).items()]
    clock = frozenset(overlay.get("fields", {}).get("clock", ()))
    if clock:
        tables = [
            dataclasses.replace(
                table,
                fields=tuple(
                    dataclasses.replace(f, clock=True) if f.name in clock else f for f in table.fields
                ),
            )
            for table in tables
        ]
    return Catalog(system, tables)


def follow_ref(document: Mapping[str, Any], ref: str) -> Mapping[str, Any]:
    """The object a local ``$ref`` (``#/components/schemas/User``) points at in ``document``.

    Raises:
        ValueError: The reference is not local (``other.json#/...``).
    """
    if not ref.startswith(_LOCAL_REF):
        raise ValueError(f"only local references are followed, not {ref!r}")
    node: Any = document
    for part in ref[len(_LOCAL_REF) :].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def dereference(document: Mapping[str, Any], schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """The schema a chain of local ``$ref`` pointers ends at (``schema`` itself if it has none).

    Only the ``$ref`` is followed: siblings are dropped and ``allOf`` is not merged (a
    ``$ref``'s refinements are the caller's to read on ``schema``).

    Raises:
        ValueError: A reference is not local, or the chain comes back to where it was.
    """
    seen: set[str] = set()
    while "$ref" in schema:
        ref = schema["$ref"]
        if ref in seen:
            raise ValueError(f"circular reference through {ref}")
        seen.add(ref)
        schema = follow_ref(document, ref)
    return schema


class _Document:
    """Local ``$ref`` and composition resolution over one OpenAPI document."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        self.document = document

    def follow(self, ref: str) -> Mapping[str, Any]:
        """The object a local ``$ref`` (``#/components/schemas/User``) points at."""
        return follow_ref(self.document, ref)

    def resolve(self, schema: Mapping[str, Any], seen: tuple[str, ...] = ()) -> dict[str, Any]:
        """A schema with its ``$ref`` followed and its ``allOf`` merged into one object.

        Siblings of a ``$ref`` (a description, ``readOnly``) win over what it points at, as
        they refine it; later ``allOf`` members win over earlier ones, their ``properties``
        merged one by one.
        """
        merged: dict[str, Any] = {}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            if ref in seen:
                raise ValueError(f"circular reference through {ref}")
            merged = self.resolve(self.follow(ref), (*seen, ref))
        for member in schema.get("allOf", ()):
            _merge_into(merged, self.resolve(member, seen))
        _merge_into(merged, {key: value for key, value in schema.items() if key not in ("$ref", "allOf")})
        return merged

    def properties(self, schema: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
        """An object schema's properties: its own, then each ``anyOf`` / ``oneOf`` alternative's."""
        resolved = self.resolve(schema)
        found = dict(resolved.get("properties", {}))
        for alternative in (*resolved.get("anyOf", ()), *resolved.get("oneOf", ())):
            for name, prop in self.properties(alternative).items():
                found.setdefault(name, prop)
        return found

    def is_object(self, schema: Mapping[str, Any]) -> bool:
        """True if a (resolved) schema describes an object or an array: no one text value."""
        if schema.get("type") in ("object", "array") or "properties" in schema or "items" in schema:
            return True
        alternatives = (*schema.get("anyOf", ()), *schema.get("oneOf", ()))
        return bool(alternatives) and all(self.is_object(self.resolve(alt)) for alt in alternatives)


def _merge_into(target: dict[str, Any], source: Mapping[str, Any]) -> None:
    for key, value in source.items():
        if key == "properties" and isinstance(target.get(key), Mapping):
            target[key] = {**target[key], **value}
        elif key in _JOINED_KEYS and isinstance(target.get(key), list):
            target[key] = [*target[key], *(item for item in value if item not in target[key])]
        else:
            target[key] = value


def _camel_words(name: str) -> str:
    """A camelCase name as a label (``firstName`` -> ``First name``); other names are left alone."""
    if not _CAMEL_BOUNDARY.search(name):
        return ""
    words = _CAMEL_BOUNDARY.sub(" ", name).lower()
    return words[:1].upper() + words[1:]


class _Column:
    """A described property that became a column.

    Attributes:
        prop: Its schema, resolved (for a reference the document marks: as written).
        read_only: The document says only the system sets it (itself or an object holding it).
        as_json: Kept whole as JSON text (``tables.json``).
        marked_reference: The document marks it as a reference (see ``reference_schemas``).
    """

    __slots__ = ("as_json", "marked_reference", "prop", "read_only")

    def __init__(
        self,
        prop: Mapping[str, Any],
        read_only: bool,
        *,
        as_json: bool = False,
        marked_reference: bool = False,
    ) -> None:
        self.prop = prop
        self.read_only = read_only
        self.as_json = as_json
        self.marked_reference = marked_reference


class _Overlay:
    """The overlay read once into lookups."""

    def __init__(
        self, overlay: Mapping[str, Any], number_prefixes: Mapping[str, str], document: _Document
    ) -> None:
        kinds, fields, tables = (overlay.get(key, {}) for key in ("kinds", "fields", "tables"))
        self.document = document
        self.key: str = overlay.get("key", DEFAULT_KEY)
        self.keys: dict[str, str] = dict(tables.get("keys", {}))
        self.references: dict[str, str] = dict(kinds.get("references", {}))
        # None: the legacy rule (every ``allOf`` property is a reference).
        reference_schemas = kinds.get("reference_schemas")
        self.reference_refs = (
            None
            if reference_schemas is None
            else frozenset(f"#/components/schemas/{name}" for name in reference_schemas)
        )
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
        self.table_labels: dict[str, str] = dict(tables.get("labels", {}))
        self.internal_keys = frozenset(tables.get("internal_keys", ()))
        self.indexes = {
            table: tuple(tuple(columns) for columns in lists)
            for table, lists in tables.get("indexes", {}).items()
        }
        self.flatten: dict[str, dict[str, str]] = {
            table: dict(paths) for table, paths in tables.get("flatten", {}).items()
        }
        self.omit = {table: frozenset(paths) for table, paths in tables.get("omit", {}).items()}
        self.as_json = {table: frozenset(paths) for table, paths in tables.get("json", {}).items()}
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

    def key_of(self, table: str) -> str:
        """The key field of a table."""
        return self.keys.get(table, self.key)

    def marks_reference(self, prop: Mapping[str, Any]) -> bool:
        """True if the document itself marks this (unresolved) property as a reference."""
        if self.reference_refs is None:
            return "allOf" in prop
        used = [prop.get("$ref"), *(member.get("$ref") for member in prop.get("allOf", ()))]
        return any(ref in self.reference_refs for ref in used)

    def field_kind(
        self, name: str, prop: Mapping[str, Any], marked_reference: bool = False
    ) -> tuple[str, str | None]:
        """A described field's kind (and reference target), from its resolved property."""
        # A derived spec types a reference as a plain string where every captured value was
        # empty; the vendor renders those fields as references, so the field name decides.
        if marked_reference or name in self.references:
            return "reference", self.references[name]
        if name in self.journals:
            return "journal", None
        # A boolean's enum narrows it (Slack's group DM says ``is_mpim: enum [true]``): still a boolean.
        if ("x-choices" in prop or "enum" in prop) and prop.get("type") != "boolean":
            return "choice", None
        if name in self.booleans or prop.get("type") == "boolean":
            return "boolean", None
        if name in self.integers or prop.get("type") == "integer":
            return "integer", None
        described = self.datetime_description is not None and self.datetime_description in prop.get(
            "description", ""
        )
        excluded = self.datetime_excluding is not None and self.datetime_excluding in name
        if prop.get("format") == "date-time" or (
            (described or name.endswith(self.datetime_suffixes)) and not excluded
        ):
            return "datetime", None
        return "string", None

    def described_columns(self, table: str, schema: Mapping[str, Any]) -> dict[str, _Column]:
        """Column name -> its property: the table's record walked through $refs and flattened objects."""
        columns: dict[str, _Column] = {}
        seen: set[str] = set()
        for name, column in self._walk(table, schema, "", "{name}", False, seen):
            if name in columns:
                raise ValueError(f"table {table}: two properties make the column {name!r}")
            columns[name] = column
        # An omitted path may be one an older release lacks; a flattened or JSON one must exist.
        named = set(self.flatten.get(table, {})) | self.as_json.get(table, frozenset())
        if named - seen:
            raise ValueError(
                f"table {table}: the overlay names paths the document lacks: {sorted(named - seen)}"
            )
        return columns

    def _walk(
        self,
        table: str,
        schema: Mapping[str, Any],
        prefix: str,
        naming: str | None,
        read_only: bool,
        seen: set[str],
    ) -> Iterator[tuple[str, _Column]]:
        """(column name, column) for each column under one object.

        ``naming`` is None for an object walked only because a deeper path is flattened: its
        own scalars are not columns. ``seen`` collects every property path met, so that an
        overlay naming a path the document lacks is caught rather than ignored.
        """
        flatten = self.flatten.get(table, {})
        omit = self.omit.get(table, frozenset())
        as_json = self.as_json.get(table, frozenset())
        for name, raw in self.document.properties(schema).items():
            path = f"{prefix}{name}"
            seen.add(path)
            if path in omit:
                continue
            if self.marks_reference(raw):
                # The legacy form: a reference wrapped in allOf is kept unresolved (its target
                # comes from the field's name).
                if naming is not None:
                    yield _column_name(naming, name), _Column(raw, read_only, marked_reference=True)
                continue
            prop = self.document.resolve(raw)
            fixed = read_only or bool(prop.get("readOnly"))
            if path in flatten or any(deeper.startswith(f"{path}.") for deeper in flatten):
                yield from self._walk(table, prop, f"{path}.", flatten.get(path), fixed, seen)
            elif path in as_json:
                if naming is not None:
                    yield _column_name(naming, name), _Column(prop, fixed, as_json=True)
            elif naming is not None and not self.document.is_object(prop):
                yield _column_name(naming, name), _Column(prop, fixed)

    def spec_table(self, name: str, schema: Mapping[str, Any]) -> TableSpec:
        """A table the document describes: every scalar property a column, the key first."""
        columns = self.described_columns(name, schema)
        key = self.key_of(name)
        internal = name in self.internal_keys
        if (key in columns) == internal:
            described = "describes" if internal else "describes no"
            raise ValueError(f"table {name}: the document {described} key field {key!r}")
        fields = [FieldSpec(key, label=self.labels.get(key, ""), read_only=True)] if internal else []
        for field_name in [*([] if internal else [key]), *sorted(field for field in columns if field != key)]:
            column = columns[field_name]
            prop = column.prop
            kind, target = (
                ("string", None)
                if column.as_json
                else self.field_kind(field_name, prop, column.marked_reference)
            )
            fields.append(
                FieldSpec(
                    field_name,
                    kind,
                    label=self.labels.get(field_name) or _camel_words(field_name),
                    reference=target,
                    choices=_choices(prop, kind),
                    max_length=self.max_length.get(field_name, prop.get("maxLength")),
                    read_only=field_name in self.system or column.read_only,
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
            label=self.table_labels.get(name) or name.replace("_", " ").title(),
            display_field=self.display.get(name, "number" if numbered else "name"),
            number_prefix=self.number_prefixes.get(name),
            indexes=self.indexes.get(name, ()),
        )

    def extra_table(self, name: str, info: Mapping[str, Any]) -> TableSpec:
        """A table outside the document, as the overlay lists it."""
        fields = [FieldSpec(self.key_of(name), read_only=True)]
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
                    label=_camel_words(field_name),
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


def _column_name(naming: str, name: str) -> str:
    return naming.format(name=name, Name=name[:1].upper() + name[1:])


def _choices(prop: Mapping[str, Any], kind: str) -> dict[str, str] | None:
    """A field's choices: ``x-choices`` as given, or a choice field's ``enum``, each value its own label."""
    if "x-choices" in prop:
        return dict(prop["x-choices"])
    if kind != "choice":
        return None
    return {str(value): str(value) for value in prop["enum"] if value is not None}


def _field_from_data(entry: Mapping[str, Any]) -> FieldSpec:
    return FieldSpec(
        entry["name"],
        entry.get("kind", "string"),
        label=entry.get("label") or _camel_words(entry["name"]),
        reference=entry.get("reference"),
        choices=entry.get("choices"),
        max_length=entry.get("max_length"),
    )
