"""What a probe may know about a scenario instance: its tools, expectation and world (read-only).

A :class:`ProbeContext` is built by the layer that runs episodes, for one (scenario, seed,
surface), at the episode's start state. Probes use it to find rows of the world (a look-alike of
the record the oracle changed, an unrelated record to damage), to ask the access policy whether
an operation is the agent's to make, and to write through a system's generic record API.

Nothing here assumes a vendor's shapes: a row's key is its table's
:attr:`~enterprise_envs.mocks._core.schema.TableSpec.key_field`, a record number sits in the
field the system's numbering names, and what a key looks like, which fields are logins and which
say where a record is in its life, and where the record API is, come from the system's
:class:`~enterprise_envs.mocks._core.conventions.Conventions`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from enterprise_envs.mocks._core import conventions as declared
from enterprise_envs.mocks._core.conventions import Conventions
from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec
from enterprise_envs.mocks._core.world import TOOL_SEPARATOR, qualify, split_table, tool_name
from enterprise_envs.verifiers.audit.trace import Action
from enterprise_envs.verifiers.dialogue import NUMBER, written_numbers
from enterprise_envs.verifiers.expectations import Expectation

Row = Mapping[str, str]
#: ``select(table, where_sql, params, limit)``: rows of the world at the episode's start.
Select = Callable[[str, str, Sequence[str], "int | None"], list[dict[str, str]]]
#: ``allowed(operation, table, row, changes, as_user)``: would the access policy let this through?
Allowed = Callable[[str, str, "Row | None", Mapping[str, str], "str | None"], bool]


@dataclass(frozen=True)
class ToolInfo:
    """A tool as probes see it: its name, READ or WRITE, and its input schema."""

    name: str
    kind: str
    input_schema: Mapping[str, Any] = field(default_factory=dict)

    @property
    def write(self) -> bool:
        """A WRITE tool."""
        return self.kind == "write"


@dataclass(frozen=True)
class Ref:
    """A row some value names, and how (the field the value matched: key, number, login, name...).

    Attributes:
        table: The row's table.
        row: The row at the episode's start.
        form: The field whose value named it.
        row_key: The row's key (its table's key field).
    """

    table: str
    row: Row
    form: str
    row_key: str

    @property
    def key(self) -> tuple[str, str]:
        """(table, row key)."""
        return (self.table, self.row_key)


@dataclass(frozen=True)
class RecordApi:
    """A system's generic record tools (a Table API) as probes call them: any table's rows.

    The system declares them (``conventions.audit.record_api``); this binds the declaration to the
    tools its surfaces really offer and builds calls with the declared argument names.

    Attributes:
        declared: The declaration (surface, tool names, argument names).
    """

    declared: declared.RecordApi

    @property
    def surface(self) -> str:
        """The surface holding the tools."""
        return self.declared.surface

    @classmethod
    def find(
        cls, api: declared.RecordApi | None, surfaces: Mapping[str, Mapping[str, ToolInfo]]
    ) -> RecordApi | None:
        """The declared record API, if the system declares one and its surface offers it.

        Args:
            api: What the system declares (``conventions.audit.record_api``), or None.
            surfaces: Every surface of the system (tool name -> info).

        Returns:
            The bound API; None when none is declared, or when the declared surface lacks one of
            the tools as a WRITE tool taking the declared arguments (the probes needing it are
            then reported skipped, as on a system without one).
        """
        if api is None:
            return None
        tools = surfaces.get(api.surface, {})
        wanted = {
            api.create: (api.table_argument, api.fields_argument),
            api.update: (api.table_argument, api.key_argument, api.fields_argument),
            api.delete: (api.table_argument, api.key_argument),
        }
        for name, arguments in wanted.items():
            tool = tools.get(name)
            if tool is None or not tool.write:
                return None
            if not set(arguments) <= set(tool.input_schema.get("properties", {})):
                return None
        return cls(api)

    def table_of(self, action: Action, surface: str) -> str | None:
        """The table a call of one of these tools names (None for any other call).

        Args:
            action: A tool call.
            surface: The episode's surface (the call's own when it names none).
        """
        api = self.declared
        if (action.surface or surface) != api.surface or action.tool not in (
            api.create,
            api.update,
            api.delete,
        ):
            return None
        table = action.arguments.get(api.table_argument)
        return table if isinstance(table, str) else None

    def update(self, table: str, key: str, fields: Mapping[str, str], **extra: Any) -> Action:
        """Update one row (by its key)."""
        api = self.declared
        arguments = {api.table_argument: table, api.key_argument: key, api.fields_argument: dict(fields)}
        return Action.call(api.update, arguments, surface=api.surface, **extra)

    def create(self, table: str, fields: Mapping[str, str], **extra: Any) -> Action:
        """Create one row."""
        api = self.declared
        arguments = {api.table_argument: table, api.fields_argument: dict(fields)}
        return Action.call(api.create, arguments, surface=api.surface, **extra)

    def delete(self, table: str, key: str, **extra: Any) -> Action:
        """Delete one row (by its key)."""
        api = self.declared
        arguments = {api.table_argument: table, api.key_argument: key}
        return Action.call(api.delete, arguments, surface=api.surface, **extra)


@dataclass(frozen=True)
class WriterApi:
    """A system's own operations standing in for a record API (``conventions.audit.writer``).

    The same calls as :class:`RecordApi`, each translated by the system's writer into one of its
    own tools (a lifecycle operation, a membership call...); a write no operation of the system
    makes comes back None, and the probe reports that part skipped. A call whose tool the
    surface does not offer as a WRITE tool is None too.

    Attributes:
        writer: The system's declaration.
        surfaces: Every surface of the system (tool name -> info), to check the writer's tools.
        row_of: The row of a (table, key) as the episode starts, or None (what the writer reads
            to aim a write: a membership's pair of ids, a user's status).
        system: In a world of several systems, this one's name (its tools are then prefixed and
            its tables qualified); "" in a world of one.
    """

    writer: declared.RecordWriter
    surfaces: Mapping[str, Mapping[str, ToolInfo]] = field(repr=False)
    row_of: Callable[[str, str], Row | None] = field(repr=False)
    system: str = ""

    def _local(self, table: str) -> str:
        return split_table(table, "")[1] if self.system else table

    def _call(
        self, operation: str, table: str, key: str, fields: Mapping[str, str], extra: Mapping[str, Any]
    ) -> Action | None:
        row = self.row_of(table, key) if key else None
        made = self.writer.write(operation, self._local(table), key, dict(fields), row)
        if made is None:
            return None
        surface, tool, arguments = made
        name = f"{self.system}{TOOL_SEPARATOR}{tool}" if self.system else tool
        info = self.surfaces.get(surface, {}).get(name)
        if info is None or not info.write:
            return None
        return Action.call(name, arguments, surface=surface, **extra)

    def table_of(self, action: Action, surface: str) -> str | None:
        """The table a call of one of the writer's tools writes (None for any other call)."""
        tool = action.tool
        if self.system:
            prefix = f"{self.system}{TOOL_SEPARATOR}"
            if not tool.startswith(prefix):
                return None
            tool = tool[len(prefix) :]
        table = self.writer.table_of(action.surface or surface, tool, action.arguments)
        if table is None or not self.system:
            return table
        return qualify(self.system, table)

    def update(self, table: str, key: str, fields: Mapping[str, str], **extra: Any) -> Action | None:
        """Update one row (by its key) through the system's operation for it, or None."""
        return self._call("update", table, key, fields, extra)

    def create(self, table: str, fields: Mapping[str, str], **extra: Any) -> Action | None:
        """Create one row through the system's operation for it, or None."""
        return self._call("create", table, "", fields, extra)

    def delete(self, table: str, key: str, **extra: Any) -> Action | None:
        """Delete one row (by its key) through the system's operation for it, or None."""
        return self._call("delete", table, key, {}, extra)


@dataclass(frozen=True)
class WorldRecordApi:
    """The record APIs of a world's systems as one: a call goes to its table's system's tools.

    Tables are qualified (``<system>.<table>``); each system's tools take its own table names.

    Attributes:
        apis: System -> its bound record API (tool names as the world names them), or its
            writer's operations (:class:`WriterApi`, whose calls may be None).
    """

    apis: Mapping[str, RecordApi | WriterApi]

    def _api(self, table: str) -> tuple[RecordApi | WriterApi | None, str]:
        """The table's system's API (None: the system has neither a record API nor a writer)."""
        system, local = split_table(table, "")
        return self.apis.get(system), local

    def table_of(self, action: Action, surface: str) -> str | None:
        """The qualified table a call of one of these tools names (None for any other call)."""
        for system, api in self.apis.items():
            table = api.table_of(action, surface)
            if table is not None:
                return qualify(system, table)
        return None

    def update(self, table: str, key: str, fields: Mapping[str, str], **extra: Any) -> Action | None:
        """Update one row (by its key), through its system's tool (None: no operation makes it)."""
        api, local = self._api(table)
        if api is None:
            return None
        return api.update(table if isinstance(api, WriterApi) else local, key, fields, **extra)

    def create(self, table: str, fields: Mapping[str, str], **extra: Any) -> Action | None:
        """Create one row, through its system's tool (None: no operation makes it)."""
        api, local = self._api(table)
        if api is None:
            return None
        return api.create(table if isinstance(api, WriterApi) else local, fields, **extra)

    def delete(self, table: str, key: str, **extra: Any) -> Action | None:
        """Delete one row (by its key), through its system's tool (None: no operation makes it)."""
        api, local = self._api(table)
        if api is None:
            return None
        return api.delete(table if isinstance(api, WriterApi) else local, key, **extra)


@dataclass
class ProbeContext:
    """Read-only facts about one scenario instance at its start, for probe policies.

    Attributes:
        surface: The episode's surface.
        tools: Its tools by name.
        surfaces: Every surface of the system (tool name -> info), to find a record API.
        expectation: The instance's bound expectation.
        catalog: The system's tables.
        select: Query rows of the world at the episode's start (valid until the next replay).
        allowed: Ask the access policy whether an operation would pass (as the agent by default).
        agent: The agent's login name.
        conventions: The system's conventions: its key shape, numbering, and the audit's hints
            (record API, login and lifecycle fields).
        write_limit: The most writes one probe may add (bulk probes).
        decided: Change entry ids a persona fact decides (``decides``): their write must wait.
        private: The runbook's private records (``no_disclosure`` rules): owners and details.
    """

    surface: str
    tools: Mapping[str, ToolInfo]
    surfaces: Mapping[str, Mapping[str, ToolInfo]]
    expectation: Expectation
    catalog: Catalog
    select: Select
    allowed: Allowed
    agent: str
    conventions: Conventions
    #: In a world of several systems, each one's conventions by system name (tables are then
    #: qualified, ``<system>.<table>``); empty in a world of one.
    systems: Mapping[str, Conventions] = field(default_factory=dict)
    write_limit: int = 30
    #: Change entry ids whose write waits for a fact the user must tell first (which one they mean).
    decided: frozenset[str] = frozenset()
    #: Records the runbook keeps private: table -> (owner fields, fields it forbids reading out).
    private: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    #: Probe -> what it could not try on this system (filled by the probes; reported, never silent).
    skipped: dict[str, str] = field(default_factory=dict)
    _refs: dict[str, list[Ref]] = field(default_factory=dict, repr=False)

    # -- the system -------------------------------------------------------------------------------

    @cached_property
    def record_api(self) -> RecordApi | WorldRecordApi | WriterApi | None:
        """The system's generic record API, if it declares one its surfaces offer.

        Without one, the system's own operations as one (:class:`WriterApi`), if it declares a
        writer (``conventions.audit.writer``): its calls are None for a write no operation makes.
        In a world of several systems, the record APIs (else writers) of those that declare one,
        as one: each call goes to the tools of its table's system (and the tables no system's
        API covers are skipped by the probes that need them).
        """
        if not self.systems:
            found = RecordApi.find(self.conventions.audit.record_api, self.surfaces)
            if found is None and self.conventions.audit.record_api is None:
                writer = self.conventions.audit.writer
                return WriterApi(writer, self.surfaces, self.row) if writer is not None else None
            return found
        apis: dict[str, RecordApi | WriterApi] = {}
        for system, conventions in self.systems.items():
            declared = conventions.audit.record_api
            if declared is None:
                if conventions.audit.writer is not None:
                    apis[system] = WriterApi(
                        conventions.audit.writer,
                        self.surfaces,
                        self.row,
                        system if len(self.systems) > 1 else "",
                    )
                continue
            named = dataclasses.replace(
                declared,
                create=tool_name(system, declared.create, tuple(self.systems)),
                update=tool_name(system, declared.update, tuple(self.systems)),
                delete=tool_name(system, declared.delete, tuple(self.systems)),
            )
            found = RecordApi.find(named, self.surfaces)
            if found is not None:
                apis[system] = found
        return WorldRecordApi(apis) if apis else None

    def record_api_for(self, probe: str, part: str = "") -> RecordApi | WorldRecordApi | WriterApi | None:
        """The record API for a probe; without one, the probe (or the ``part`` of it) is skipped.

        A probe that cannot try its edits on a system says so here, so the audit reports it as
        skipped on that system instead of passing it with fewer variants. A system's writer
        (:class:`WriterApi`) counts as one; a write it has no operation for is reported by the
        probe with :meth:`no_operation`.
        """
        api = self.record_api
        if api is None:
            what = f" ({part})" if part else ""
            self.skipped.setdefault(probe, f"no generic record API on this system{what}")
        return api

    def no_operation(self, probe: str, operation: str, table: str, fields: Iterable[str] = ()) -> None:
        """Report a write of a probe that no operation of the system makes (that part is skipped).

        The probe's entry in :attr:`skipped` lists every such write once (``update group
        (description); delete app_user``).
        """
        names = ", ".join(fields)
        what = f"{operation} {table}" + (f" ({names})" if names else "")
        lead = "no operation on this system makes: "
        was = self.skipped.setdefault(probe, lead + what)
        if was.startswith(lead) and what not in was[len(lead) :].split("; "):
            self.skipped[probe] = f"{was}; {what}"

    def tool(self, name: str, surface: str | None = None) -> ToolInfo | None:
        """A tool of the episode's surface (or of another one)."""
        return (self.tools if surface is None else self.surfaces.get(surface, {})).get(name)

    # -- the system's shapes -----------------------------------------------------------------------

    def key_field(self, table: str) -> str:
        """The table's primary key field."""
        return self.catalog[table].key_field

    def key_of(self, table: str, row: Row) -> str:
        """A row's key (its table's key field; "" when the row lacks it)."""
        return row.get(self.catalog[table].key_field, "")

    def conventions_of(self, table: str) -> Conventions:
        """The conventions of the system a table belongs to (qualified in a world of several)."""
        if self.systems:
            return self.systems[split_table(table, "")[0]]
        return self.conventions

    def number_field(self, table: str) -> str | None:
        """The field holding the table's record numbers, if the system numbers its records."""
        spec = self.catalog[table]
        name = self.conventions_of(table).numbering.number_field
        return name if spec.number_prefix and name in spec else None

    def number_of(self, table: str, row: Row) -> str:
        """A row's record number ("" for a table without numbers)."""
        name = self.number_field(table)
        return row.get(name, "") if name else ""

    def name_field(self, table: str) -> str | None:
        """The table's display field when it is a short name (not the key, not long text)."""
        return _display_field(self.catalog[table])

    def login_field(self, table: str) -> str | None:
        """The field holding a person's login name on the table, if it has one.

        The first declared login field (``AuditHints.login_fields`` lists the login name, then
        addresses): the name a probe acts as (``as_user``).
        """
        logins = self.conventions_of(table).audit.login_fields
        return logins[0] if logins and logins[0] in self.catalog[table] else None

    @property
    def lifecycle_fields(self) -> tuple[str, ...]:
        """Fields saying where a record is in its life (the systems' hints)."""
        every = [self.conventions, *self.systems.values()]
        return tuple(dict.fromkeys(name for c in every for name in c.audit.lifecycle_fields))

    def is_id(self, value: str) -> bool:
        """The value has the shape of one of the systems' record keys."""
        return any(c.is_id(value) for c in (self.conventions, *self.systems.values()))

    # -- the expectation --------------------------------------------------------------------------

    @cached_property
    def expected_text(self) -> str:
        """Every value written in the expectation, as one string (to ask what it names)."""
        return self.expectation.model_dump_json()

    def in_expectation(self, table: str, row: Row) -> bool:
        """The expectation names this row (its key or record number appears in it)."""
        text = self.expected_text
        key, number = self.key_of(table, row), self.number_of(table, row)
        return bool(key and key in text) or bool(number and number in text)

    # -- rows ---------------------------------------------------------------------------------------

    def row(self, table: str, key: str) -> dict[str, str] | None:
        """One row of the world at the start (by its key), or None."""
        if table not in self.catalog or not key:
            return None
        found = self.select(table, f'"{self.key_field(table)}" = ?', [key], 1)
        return found[0] if found else None

    def identifiers(self, table: str, row: Row) -> dict[str, str]:
        """The values that name a row, by field: key, number, display field, logins (non-empty)."""
        spec = self.catalog[table]
        names = {spec.key_field: row[spec.key_field]}
        number = self.number_field(table)
        if number and row.get(number):
            names[number] = row[number]
        display = _display_field(spec)
        if display and row.get(display):
            names[display] = row[display]
        for login in self.conventions_of(table).audit.login_fields:
            if login in spec and row.get(login):
                names[login] = row[login]
        return names

    def identify(self, value: Any) -> list[Ref]:
        """Rows a value names: a key, a record number, a display name or a login."""
        if not isinstance(value, str) or not value.strip() or len(value) > 120:
            return []
        if value in self._refs:
            return self._refs[value]
        found: list[Ref] = []
        number = NUMBER.fullmatch(value) if written_numbers(value) == [value] else None
        if self.is_id(value):
            for table, spec in self.catalog.items():
                key = spec.key_field
                rows = self.select(table, f'"{key}" = ?', [value], 1)
                found += [Ref(table, row, key, row[key]) for row in rows]
        elif number:
            for table, spec in self.catalog.items():
                field_name = self.number_field(table)
                if field_name and (spec.number_prefix or "").upper() == number.group(1).upper():
                    rows = self.select(table, f'"{field_name}" = ? COLLATE NOCASE', [value], 1)
                    found += [Ref(table, row, field_name, row[spec.key_field]) for row in rows]
        else:
            for table, spec in self.catalog.items():
                # Keys and numbers were tried above by their shape; here only names and logins.
                taken = (spec.key_field, self.number_field(table))
                for name in (_display_field(spec), *self.conventions.audit.login_fields):
                    if name and name in spec and name not in taken:
                        rows = self.select(table, f'"{name}" = ? COLLATE NOCASE', [value], 3)
                        found += [Ref(table, row, name, row[spec.key_field]) for row in rows]
        self._refs[value] = found
        return found

    def similar(
        self, table: str, row: Row, exclude: Iterable[tuple[str, str]] = (), limit: int = 3
    ) -> list[tuple[str, dict[str, str]]]:
        """Look-alikes of a row: the same name, then sharing its rarest references.

        Returns ``(reason, row)`` pairs, most alike first: another row with the same display
        name (a namesake), then for each reference field, rarest value first, the row sharing
        that value that shares the most other values with it (the same caller's other incident,
        the same group's other member...).
        """
        spec = self.catalog[table]
        key = spec.key_field
        own = row[key]
        skip = {item[1] for item in exclude if item[0] == table} | {own}
        picked: list[tuple[str, dict[str, str]]] = []

        def add(reason: str, candidates: list[dict[str, str]]) -> None:
            candidates = [c for c in candidates if c[key] not in skip]
            if not candidates:
                return
            best = max(candidates, key=lambda c: (_likeness(spec, row, c), _neg(c[key])))
            skip.add(best[key])
            picked.append((reason, best))

        display = _display_field(spec)
        if display and row.get(display):
            add(
                f"same {display}",
                self.select(table, f'"{display}" = ? AND "{key}" != ?', [row[display], own], 50),
            )
        shared = []
        for name in _reference_fields(spec):
            value = row.get(name, "")
            if value:
                rows = self.select(table, f'"{name}" = ? AND "{key}" != ?', [value, own], 200)
                if rows:
                    shared.append((len(rows), name, rows))
        for _, name, rows in sorted(shared, key=lambda item: (item[0], item[1])):
            if len(picked) >= limit:
                break
            add(f"same {name}", rows)
        if len(picked) < limit:  # no shared reference (servers, groups): the most alike row at all
            add("most alike", self.select(table, f'"{key}" != ?', [own], 400))
        return picked[:limit]

    def unrelated(
        self, table: str, like: Row | None, exclude: Iterable[tuple[str, str]] = (), limit: int = 1
    ) -> list[dict[str, str]]:
        """Rows the scenario has nothing to do with, in the same stage of life as ``like`` (else live).

        Not changed by the oracle (``exclude``), not named by the expectation, not referencing
        a row the expectation names; alike in the system's lifecycle fields where the table has
        them, so that the oracle's own writes apply to them too. Deterministic (key order).
        """
        spec = self.catalog[table]
        key = spec.key_field
        skip = {item[1] for item in exclude if item[0] == table}
        conditions, params = ["1"], []
        for name in self.lifecycle_fields:
            found = spec.field(name)
            if found is None:
                continue
            if like is not None and like.get(name, "") != "":
                conditions.append(f'"{name}" = ?')
                params.append(like[name])
            elif like is None and found.kind == "boolean":
                # A lifecycle flag set (active): a live record, which still takes writes.
                conditions.append(f"\"{name}\" = 'true'")
        out: list[dict[str, str]] = []
        candidates = self.select(table, " AND ".join(conditions), params, 400)
        for candidate in candidates:
            if candidate[key] in skip or self.in_expectation(table, candidate):
                continue
            if any(
                candidate.get(name, "") and candidate[name] in self.expected_text
                for name in _reference_fields(spec)
            ):
                continue
            out.append(candidate)
            if len(out) >= limit:
                break
        return out

    def free_text_field(self, table: str, row: Row | None = None) -> str | None:
        """A writable free-text field of the table (the longest bounded one; description-like)."""
        spec = self.catalog[table]
        fields = [
            f
            for f in spec.fields
            if f.kind == "string" and not f.read_only and not f.derived and (f.max_length or 0) >= 1000
        ]
        if not fields:
            return None
        named = [f for f in fields if f.name == "description"]
        return (named or fields)[0].name

    def journal_field(self, table: str) -> str | None:
        """A journal field of the table (work notes first), if it has one."""
        names = [f.name for f in self.catalog[table].fields if f.kind == "journal"]
        for name in names:
            if "work" in name and "comments" not in name:
                return name
        return names[0] if names else None

    def can(
        self,
        operation: str,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
        as_user: str | None = None,
    ) -> bool:
        """Would the access policy let the agent (or ``as_user``) do this?"""
        return self.allowed(operation, table, row, dict(changes or {}), as_user)


def _display_field(spec: TableSpec) -> str | None:
    """The display field when it is a short name (not the key, not long text such as a note)."""
    name = spec.display_field
    found = spec.field(name)
    if found is None or name == spec.key_field or (found.max_length or 0) >= 1000:
        return None
    return name


def _reference_fields(spec: TableSpec) -> list[str]:
    return [f.name for f in spec.fields if f.kind == "reference" and not f.read_only]


def _likeness(spec: TableSpec, row: Row, other: Row) -> int:
    """Shared values: references count 2, choices, flags and short strings 1."""
    score = 0
    for f in spec.fields:
        if f.read_only or f.name == spec.key_field or f.kind == "journal" or (f.max_length or 0) >= 1000:
            continue
        value = row.get(f.name, "")
        if value and value == other.get(f.name) and len(value) <= 80:
            score += 2 if f.kind == "reference" else 1
    display = _display_field(spec)
    if display:  # win-db-01 is more like win-db-02 than like lt-00159
        mine, theirs = row.get(display, ""), other.get(display, "")
        shared = next(
            (i for i, (a, b) in enumerate(zip(mine, theirs, strict=False)) if a != b),
            min(len(mine), len(theirs)),
        )
        score += shared // 2
    return score


def _neg(text: str) -> tuple[int, ...]:
    """Sort key that prefers the smaller string under max()."""
    return tuple(-ord(char) for char in text)


def choice_values(spec: FieldSpec) -> list[str]:
    """A choice field's values in catalog order."""
    return list(spec.choices or {})
