"""What a probe may know about a scenario instance: its tools, expectation and world (read-only).

A :class:`ProbeContext` is built by the layer that runs episodes, for one (scenario, seed,
surface), at the episode's start state. Probes use it to find rows of the world (a look-alike of
the record the oracle changed, an unrelated record to damage), to ask the access policy whether
an operation is the agent's to make, and to write through a system's generic record API.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec
from enterprise_envs.verifiers.audit.trace import Action
from enterprise_envs.verifiers.dialogue import NUMBER, written_numbers
from enterprise_envs.verifiers.expectations import Expectation

Row = Mapping[str, str]
#: ``select(table, where_sql, params, limit)``: rows of the world at the episode's start.
Select = Callable[[str, str, Sequence[str], "int | None"], list[dict[str, str]]]
#: ``allowed(operation, table, row, changes, as_user)``: would the access policy let this through?
Allowed = Callable[[str, str, "Row | None", Mapping[str, str], "str | None"], bool]

_SYS_ID = re.compile(r"^[0-9a-f]{32}$")
#: Fields that name a row besides its key, number and display field (logins, addresses).
LOGIN_FIELDS = ("user_name", "email")
#: Fields describing where a record is in its life; rows alike in these accept the same writes.
LIFECYCLE_FIELDS = ("state", "active", "workflow_state")


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
    """A row some value names, and how (``sys_id``, ``number``, ``user_name``, a display field...)."""

    table: str
    row: Row
    form: str

    @property
    def key(self) -> tuple[str, str]:
        """(table, sys_id)."""
        return (self.table, self.row["sys_id"])


@dataclass(frozen=True)
class RecordApi:
    """A surface of generic record tools (a Table API): create, update, delete any table's rows.

    Found by the shape of the tools' input schemas, not their names, so any system offering such a
    surface gets the probes that need one.
    """

    surface: str
    create_tool: str
    update_tool: str
    delete_tool: str

    @classmethod
    def find(cls, surfaces: Mapping[str, Mapping[str, ToolInfo]]) -> RecordApi | None:
        """The first surface with generic create, update and delete tools, if any."""
        for name in sorted(surfaces):
            found: dict[str, str] = {}
            for tool in surfaces[name].values():
                if not tool.write:
                    continue
                required = set(tool.input_schema.get("required", ()))
                properties = set(tool.input_schema.get("properties", {}))
                if required >= {"table", "sys_id", "fields"}:
                    found.setdefault("update", tool.name)
                elif required >= {"table", "fields"} and "sys_id" not in properties:
                    found.setdefault("create", tool.name)
                elif required >= {"table", "sys_id"} and "fields" not in properties:
                    found.setdefault("delete", tool.name)
            if len(found) == 3:
                return cls(name, found["create"], found["update"], found["delete"])
        return None

    def update(self, table: str, sys_id: str, fields: Mapping[str, str], **extra: Any) -> Action:
        """Update one row."""
        arguments = {"table": table, "sys_id": sys_id, "fields": dict(fields)}
        return Action.call(self.update_tool, arguments, surface=self.surface, **extra)

    def create(self, table: str, fields: Mapping[str, str], **extra: Any) -> Action:
        """Create one row."""
        return Action.call(
            self.create_tool, {"table": table, "fields": dict(fields)}, surface=self.surface, **extra
        )

    def delete(self, table: str, sys_id: str, **extra: Any) -> Action:
        """Delete one row."""
        return Action.call(
            self.delete_tool, {"table": table, "sys_id": sys_id}, surface=self.surface, **extra
        )


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
    def record_api(self) -> RecordApi | None:
        """The system's generic record API, if it has one."""
        return RecordApi.find(self.surfaces)

    def record_api_for(self, probe: str, part: str = "") -> RecordApi | None:
        """The record API for a probe; without one, the probe (or the ``part`` of it) is skipped.

        A probe that cannot try its edits on a system says so here, so the audit reports it as
        skipped on that system instead of passing it with fewer variants.
        """
        api = self.record_api
        if api is None:
            what = f" ({part})" if part else ""
            self.skipped.setdefault(probe, f"no generic record API on this system{what}")
        return api

    def tool(self, name: str, surface: str | None = None) -> ToolInfo | None:
        """A tool of the episode's surface (or of another one)."""
        return (self.tools if surface is None else self.surfaces.get(surface, {})).get(name)

    # -- the expectation --------------------------------------------------------------------------

    @cached_property
    def expected_text(self) -> str:
        """Every value written in the expectation, as one string (to ask what it names)."""
        return self.expectation.model_dump_json()

    def in_expectation(self, row: Row) -> bool:
        """The expectation names this row (its sys_id or number appears in it)."""
        text = self.expected_text
        return row["sys_id"] in text or bool(row.get("number") and row["number"] in text)

    # -- rows ---------------------------------------------------------------------------------------

    def row(self, table: str, sys_id: str) -> dict[str, str] | None:
        """One row of the world at the start, or None."""
        if table not in self.catalog or not sys_id:
            return None
        found = self.select(table, "sys_id = ?", [sys_id], 1)
        return found[0] if found else None

    def identifiers(self, table: str, row: Row) -> dict[str, str]:
        """The values that name a row: sys_id, number, display field, logins (non-empty ones)."""
        spec = self.catalog[table]
        names = {"sys_id": row["sys_id"]}
        if spec.number_prefix and row.get("number"):
            names["number"] = row["number"]
        display = _display_field(spec)
        if display and row.get(display):
            names[display] = row[display]
        for login in LOGIN_FIELDS:
            if login in spec and row.get(login):
                names[login] = row[login]
        return names

    def identify(self, value: Any) -> list[Ref]:
        """Rows a value names: a sys_id, a record number, a display name or a login."""
        if not isinstance(value, str) or not value.strip() or len(value) > 120:
            return []
        if value in self._refs:
            return self._refs[value]
        found: list[Ref] = []
        number = NUMBER.fullmatch(value) if written_numbers(value) == [value] else None
        if _SYS_ID.match(value):
            for table in self.catalog:
                found += [Ref(table, row, "sys_id") for row in self.select(table, "sys_id = ?", [value], 1)]
        elif number:
            for table, spec in self.catalog.items():
                if spec.number_prefix and spec.number_prefix.upper() == number.group(1).upper():
                    rows = self.select(table, "number = ? COLLATE NOCASE", [value], 1)
                    found += [Ref(table, row, "number") for row in rows]
        else:
            for table, spec in self.catalog.items():
                for name in (_display_field(spec), *LOGIN_FIELDS):
                    if name and name in spec and name not in ("sys_id", "number"):
                        rows = self.select(table, f'"{name}" = ? COLLATE NOCASE', [value], 3)
                        found += [Ref(table, row, name) for row in rows]
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
        skip = {key[1] for key in exclude if key[0] == table} | {row["sys_id"]}
        picked: list[tuple[str, dict[str, str]]] = []

        def add(reason: str, candidates: list[dict[str, str]]) -> None:
            candidates = [c for c in candidates if c["sys_id"] not in skip]
            if not candidates:
                return
            best = max(candidates, key=lambda c: (_likeness(spec, row, c), _neg(c["sys_id"])))
            skip.add(best["sys_id"])
            picked.append((reason, best))

        display = _display_field(spec)
        if display and row.get(display):
            add(
                f"same {display}",
                self.select(table, f'"{display}" = ? AND sys_id != ?', [row[display], row["sys_id"]], 50),
            )
        shared = []
        for name in _reference_fields(spec):
            value = row.get(name, "")
            if value:
                rows = self.select(table, f'"{name}" = ? AND sys_id != ?', [value, row["sys_id"]], 200)
                if rows:
                    shared.append((len(rows), name, rows))
        for _, name, rows in sorted(shared, key=lambda item: (item[0], item[1])):
            if len(picked) >= limit:
                break
            add(f"same {name}", rows)
        if len(picked) < limit:  # no shared reference (servers, groups): the most alike row at all
            add("most alike", self.select(table, "sys_id != ?", [row["sys_id"]], 400))
        return picked[:limit]

    def unrelated(
        self, table: str, like: Row | None, exclude: Iterable[tuple[str, str]] = (), limit: int = 1
    ) -> list[dict[str, str]]:
        """Rows the scenario has nothing to do with, in the same stage of life as ``like`` (else live).

        Not changed by the oracle (``exclude``), not named by the expectation, not referencing
        a row the expectation names; alike in ``state``/``active`` where the table has them, so
        that the oracle's own writes apply to them too. Deterministic (sys_id order).
        """
        spec = self.catalog[table]
        skip = {key[1] for key in exclude if key[0] == table}
        conditions, params = ["1"], []
        for name in LIFECYCLE_FIELDS:
            if name not in spec:
                continue
            if like is not None and like.get(name, "") != "":
                conditions.append(f'"{name}" = ?')
                params.append(like[name])
            elif like is None and name == "active":
                conditions.append("\"active\" = 'true'")  # a live record, which still takes writes
        out: list[dict[str, str]] = []
        candidates = self.select(table, " AND ".join(conditions), params, 400)
        for candidate in candidates:
            if candidate["sys_id"] in skip or self.in_expectation(candidate):
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
    if found is None or name == "sys_id" or (found.max_length or 0) >= 1000:
        return None
    return name


def _reference_fields(spec: TableSpec) -> list[str]:
    return [f.name for f in spec.fields if f.kind == "reference" and not f.read_only]


def _likeness(spec: TableSpec, row: Row, other: Row) -> int:
    """Shared values: references count 2, choices, flags and short strings 1."""
    score = 0
    for f in spec.fields:
        if f.read_only or f.name == "sys_id" or f.kind == "journal" or (f.max_length or 0) >= 1000:
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
