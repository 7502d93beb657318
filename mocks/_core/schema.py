"""Table catalog: what a system's tables are, field by field, in one declarative place.

The catalog drives everything that depends on a table's shape: the SQLModel classes, the SQL
the store runs, the change-log triggers, query field resolution, value validation and the
rendering of records. A system builds its catalog from its observed API schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

#: Field kinds. All values are stored as text; the kind says how to compare and validate them.
FIELD_KINDS = frozenset({"string", "integer", "boolean", "datetime", "reference", "choice", "journal"})


@dataclass(frozen=True, eq=False)  # identity semantics: specs are built once and used as cache keys
class FieldSpec:
    """One column.

    Attributes:
        name: Column name, as the vendor API spells it.
        kind: One of :data:`FIELD_KINDS`.
        label: Human label (used in data-policy messages, "Resolution code").
        reference: Target table of a reference field.
        choices: value -> label, for choice fields.
        max_length: Longest accepted value, if bounded.
        read_only: Clients may not set it (derived or system-maintained).
        computed: Set by business rules from other fields (a derived priority): it changes as a
            consequence, so an expectation's ``others = "unchanged"`` does not count it.
        settable_on_insert: A read-only field a client may still give when creating the record
            (``opened_by`` for an order placed on someone's behalf).
        derived: Bookkeeping the system maintains (sys_updated_on, sys_mod_count, a parent's child
            count): a change to it alone is not a change for the verifier.
        clock: Stamped with the simulated time of the call that wrote it (a creation time, a chat
            message's ``ts``) whatever its kind: one more call earlier in an episode moves it, so a
            comparison of two episodes leaves it out (read-only date-times always are).
    """

    name: str
    kind: str = "string"
    label: str = ""
    reference: str | None = None
    choices: Mapping[str, str] | None = None
    max_length: int | None = None
    read_only: bool = False
    settable_on_insert: bool = False
    computed: bool = False
    derived: bool = False
    clock: bool = False

    def __post_init__(self) -> None:
        if self.kind not in FIELD_KINDS:
            raise ValueError(f"field {self.name}: unknown kind {self.kind!r}")
        if (self.kind == "reference") != (self.reference is not None):
            raise ValueError(f"field {self.name}: reference fields (and only they) name a table")
        if self.choices is not None:
            object.__setattr__(self, "choices", MappingProxyType(dict(self.choices)))
        if not self.label:
            object.__setattr__(self, "label", self.name.replace("_", " ").capitalize())


@dataclass(frozen=True, eq=False)
class TableSpec:
    """One table.

    Attributes:
        name: Table name (``incident``).
        fields: Columns in storage order; the first is the primary key, named as the system
            names its keys (see :attr:`key_field`).
        label: Human name ("Incident").
        display_field: The field shown as a reference's display value (empty: the key field).
        number_prefix: Prefix of the auto-numbered ``number`` field, if any.
        indexes: Column tuples to index (lookups the service layer runs often).
    """

    name: str
    fields: tuple[FieldSpec, ...]
    label: str
    display_field: str = ""
    number_prefix: str | None = None
    indexes: tuple[tuple[str, ...], ...] = ()
    _by_name: Mapping[str, FieldSpec] = field(init=False, repr=False, compare=False)
    #: Column names in storage order.
    columns: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.fields:
            raise ValueError(f"table {self.name}: no fields (the first is the primary key)")
        if not self.display_field:
            object.__setattr__(self, "display_field", self.fields[0].name)
        by_name = {spec.name: spec for spec in self.fields}
        if len(by_name) != len(self.fields):
            raise ValueError(f"table {self.name}: duplicate field names")
        if self.display_field not in by_name:
            raise ValueError(f"table {self.name}: display field {self.display_field} missing")
        object.__setattr__(self, "_by_name", MappingProxyType(by_name))
        object.__setattr__(self, "columns", tuple(spec.name for spec in self.fields))

    def field(self, name: str) -> FieldSpec | None:
        """The field called ``name``, or None."""
        return self._by_name.get(name)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    @property
    def key_field(self) -> str:
        """The primary key's field: the first one (each system names its own)."""
        return self.fields[0].name

    @property
    def derived_fields(self) -> frozenset[str]:
        """Fields whose change alone does not count as a change."""
        return frozenset(spec.name for spec in self.fields if spec.derived)


class Catalog(Mapping[str, TableSpec]):
    """The tables of one system, by name. Compared by identity: one catalog per system."""

    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __init__(self, system: str, tables: Iterable[TableSpec]) -> None:
        self.system = system
        self._tables: dict[str, TableSpec] = {}
        for table in tables:
            if table.name in self._tables:
                raise ValueError(f"{system}: duplicate table {table.name}")
            self._tables[table.name] = table

    def is_local(self, table: str) -> bool:
        """True if ``table`` is modelled here (references to other tables are kept but not checked)."""
        return table in self._tables

    def __getitem__(self, name: str) -> TableSpec:
        return self._tables[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)
