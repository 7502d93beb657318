"""The expectation language: what state change a scenario requires, allows and forbids.

An expectation is data (TOML in a scenario file, validated by these pydantic models, whose
JSON Schema is published as ``schema/expectation.schema.json``):

- ``change`` entries each claim rows of the diff: ``op`` (insert, update, delete), ``table``,
  ``where`` (predicates identifying the rows), ``fields`` (predicates on their values) and
  ``count`` (how many rows; exactly one by default). An entry with an ``id`` can be referenced
  by other entries (``references = "$id"``) and by transcript checks (``"$id.number"``).
- ``allow`` entries claim changes that may happen but are not required.
- ``forbid`` entries are labelled minefields: any matching change fails the verdict by name.
- ``communicate`` checks: the agent told the user a value.

Predicates on one field (a bare value is shorthand for ``equals``): ``equals``, ``not_equals``,
``one_of``, ``contains`` (case-insensitive), ``matches`` (regex search), ``nonempty``, ``empty``,
``changed``, ``unchanged``, ``gt``/``gte``/``lt``/``lte`` (numbers numerically, otherwise text, which
orders zero-padded date-times correctly), ``references`` (a claimed row's key or a literal),
and ``before`` (a nested predicate on the value before the change). Several keys combine with AND.

Scenario params appear as ``{{caller.<field>}}`` and are substituted by :func:`bind_params` when
the scenario loads; an unresolvable one is a load-time error, never a verify-time one.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from enterprise_envs.mocks._core.schema import Catalog
from enterprise_envs.verifiers.templates import TEMPLATE, apply_filter

Op = Literal["insert", "update", "delete"]
_ID = r"^[a-z_][a-z0-9_]*$"
_FLAGS = frozenset({"nonempty", "empty", "changed", "unchanged"})
_ENTRY_REF = re.compile(r"^\$([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?$")


#: Scenario files may write 3 or true where the vendor's strings "3" and "true" are meant.
_SCALAR_SCHEMA = {"type": ["string", "number", "boolean"]}
Text = Annotated[str, WithJsonSchema(_SCALAR_SCHEMA)]


class ExpectationError(ValueError):
    """An expectation that cannot be used: bad shape, unknown table or field, unbound param."""


def _text(value: Any) -> Any:
    """Scenario values compare as the vendor's strings: 3 -> "3", true -> "true"."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldPredicate(_Strict):
    """Conditions on one field's value; all given conditions must hold."""

    equals: Text | None = None
    not_equals: Text | None = None
    one_of: list[Text] | None = None
    contains: Text | None = Field(None, description="Case-insensitive substring.")
    matches: str | None = Field(None, description="Python regular expression, searched anywhere.")
    carries: list[Text] | None = Field(
        None,
        description="Facts the text must state, each one (the caller's closed facts, as "
        "{{facts.<key>}}): its content words close together in one sentence, in any wording around them.",
    )
    carries_any: list[Text] | None = Field(
        None, description="Facts of which the text must state one at least."
    )
    nonempty: bool | None = None
    empty: bool | None = None
    changed: bool | None = Field(None, description="The value differs from its value before the change.")
    unchanged: bool | None = None
    gt: Text | None = None
    gte: Text | None = None
    lt: Text | None = None
    lte: Text | None = None
    references: str | None = Field(None, description="'$entry' (a row claimed by that entry) or a row key.")
    same_as: str | None = Field(
        None,
        description="'$entry.field': the value equals that field of a row claimed by that entry (an "
        "earlier step's output carried into a later one, in any system of the world).",
    )
    mentions: str | None = Field(
        None,
        description="'$entry.field': the text states that field's value of a row that entry claims (a "
        "chat message carrying the number of the incident another entry claims), as carries reads it.",
    )
    before: FieldPredicate | None = Field(None, description="A predicate on the value before the change.")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if data is None:
            raise ValueError("a predicate cannot be null")
        if not isinstance(data, dict):
            return {"equals": _text(data)}
        out = {}
        for key, value in data.items():
            if key == "before" or key in _FLAGS:
                out[key] = value
            elif isinstance(value, list):
                out[key] = [_text(item) for item in value]
            else:
                out[key] = _text(value)
        return out

    @field_validator("references")
    @classmethod
    def _whole_row(cls, target: str | None) -> str | None:
        if target is not None and target.startswith("$") and "." in target:
            raise ValueError(f"references takes '$entry' (a row), not a field: {target!r}")
        return target

    @field_validator("same_as", "mentions")
    @classmethod
    def _a_field(cls, target: str | None, info: ValidationInfo) -> str | None:
        if target is not None and not ((match := _ENTRY_REF.match(target)) and match.group(2)):
            raise ValueError(f"{info.field_name} takes '$entry.field', not {target!r}")
        return target

    @field_validator("matches")
    @classmethod
    def _regex(cls, pattern: str | None) -> str | None:
        if pattern is not None:
            try:
                re.compile(pattern)
            except re.error as error:
                raise ValueError(f"invalid regular expression {pattern!r}: {error}") from None
        return pattern

    @model_validator(mode="after")
    def _not_empty(self) -> FieldPredicate:
        # Fields not given are None, so only the given ones are looked at (this runs per predicate,
        # and a scenario's expectation is validated on every reset).
        given = self.model_fields_set
        if all(getattr(self, name) is None for name in given):
            raise ValueError("a predicate needs at least one condition")
        for listed in ("one_of", "carries", "carries_any"):
            if listed in given and getattr(self, listed) == []:
                raise ValueError(f"{listed} = [] checks nothing")
        for flag in sorted(_FLAGS & given):
            if getattr(self, flag) is False:
                raise ValueError(f"{flag} = false checks nothing; use the opposite condition instead")
        return self

    def entry_refs(self) -> set[str]:
        """Ids of entries this predicate references."""
        refs = set()
        for target in (self.references, self.same_as, self.mentions):
            if target and (match := _ENTRY_REF.match(target)):
                refs.add(match.group(1))
        if self.before is not None:
            refs |= self.before.entry_refs()
        return refs

    def value_refs(self) -> set[tuple[str, str]]:
        """(entry id, field) pairs whose claimed values this predicate compares with."""
        refs = set()
        for target in (self.same_as, self.mentions):
            if target and (match := _ENTRY_REF.match(target)):
                refs.add((match.group(1), match.group(2)))
        if self.before is not None:
            refs |= self.before.value_refs()
        return refs


#: field -> predicate; a bare value is shorthand for equals (the published schema says so too).
Predicates = dict[str, FieldPredicate]


class Count(_Strict):
    """How many rows an entry must claim."""

    exact: int | None = Field(None, ge=0)
    min: int | None = Field(None, ge=0)
    max: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> Count:
        if self.exact is not None and (self.min is not None or self.max is not None):
            raise ValueError("give exact, or min and/or max")
        if self.exact is None and self.min is None and self.max is None:
            raise ValueError("give exact, min or max")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError("min is greater than max")
        return self

    def bounds(self) -> tuple[int, int | None]:
        """(minimum, maximum or None for unbounded)."""
        if self.exact is not None:
            return self.exact, self.exact
        return self.min or 0, self.max


class _RowMatcher(_Strict):
    table: str
    where: Predicates = Field(default_factory=dict)
    fields: Predicates = Field(default_factory=dict)
    others: Literal["any", "unchanged"] = Field(
        "any",
        description="unchanged: on an update, no field a client chooses may change except those named in "
        "where, fields and may_change (system-maintained and computed fields are exempt).",
    )
    may_change: list[str] = Field(
        default_factory=list,
        description="Fields that may also change (on an insert: may differ from a new record's defaults).",
    )

    def extra_changes(self, change: Any) -> list[str]:
        """Chosen fields an ``others = "unchanged"`` entry does not permit on this row."""
        if self.others != "unchanged" or change.op != "update":
            return []
        named = {*self.where, *self.fields, *self.may_change}
        return [name for name in change.chosen if name not in named]

    def predicates(self) -> list[tuple[str, FieldPredicate]]:
        """All (field, predicate) pairs: where first, then fields."""
        return [*self.where.items(), *self.fields.items()]

    def entry_refs(self) -> set[str]:
        """Ids of entries referenced anywhere in this matcher."""
        refs: set[str] = set()
        for _, predicate in self.predicates():
            refs |= predicate.entry_refs()
        return refs

    def value_refs(self) -> set[tuple[str, str]]:
        """(entry id, field) pairs whose claimed values this matcher compares with."""
        refs: set[tuple[str, str]] = set()
        for _, predicate in self.predicates():
            refs |= predicate.value_refs()
        return refs


class ChangeEntry(_RowMatcher):
    """A required change.

    On an ``insert``, the created row must be a new record as the service makes it except where
    the entry says otherwise: every client-settable field not named in ``where``, ``fields`` or
    ``may_change`` holds the service layer's default for a new record (a record created dead,
    on hold or with links nobody asked for does not satisfy the entry).
    """

    label: str
    op: Op
    id: Annotated[str, Field(pattern=_ID)] | None = None
    count: Annotated[int, Field(ge=0)] | Count = 1

    def extra_changes(self, change: Any) -> list[str]:
        """Fields this entry does not permit on the row (see the class docstring and ``others``)."""
        if change.op == "insert" and self.op == "insert":
            named = {*self.where, *self.fields, *self.may_change}
            return [name for name in change.chosen if name not in named]
        return super().extra_changes(change)

    def bounds(self) -> tuple[int, int | None]:
        """(minimum, maximum or None) rows this entry must claim."""
        return (self.count, self.count) if isinstance(self.count, int) else self.count.bounds()


class AllowEntry(_RowMatcher):
    """A change that may happen without being required.

    With ``attempted = true`` it covers writes the access check refused instead (an attempt the
    scenario tolerates); without it, it covers changes only.
    """

    label: str
    op: Op | list[Op] | None = Field(None, description="Default: any op.")
    attempted: bool = Field(False, description="Match writes the access check refused instead of changes.")
    most: Annotated[int, Field(ge=1)] | None = Field(
        None,
        description="At most this many rows: a consequence that happens once per requested change "
        "(the log entry of one reset); a repeat beyond it is not explained.",
    )

    def ops(self) -> tuple[str, ...]:
        """The ops this entry allows."""
        if self.op is None:
            return ("insert", "update", "delete")
        return (self.op,) if isinstance(self.op, str) else tuple(self.op)


class ForbidEntry(AllowEntry):
    """A labelled minefield: any matching change fails the verdict by name.

    With ``attempted = true`` a write the access check refused also counts, under this label.
    (Every refused write fails the verdict anyway unless an allow entry with ``attempted = true``
    covers it; a forbid entry names the failure.) Predicates then read the row the agent tried to
    change, as it is; a refused insert has no row, so it matches only an entry without ``where``
    and ``fields``.
    """

    @model_validator(mode="after")
    def _no_most(self) -> ForbidEntry:
        if self.most is not None:
            raise ValueError("most bounds an allow entry; a forbid entry forbids any matching row")
        return self


class CommunicateCheck(_Strict):
    """The agent told the user something: a value, or a refusal (read by the dialogue-act reader).

    A value is told by a message that asserts it and offers no rival of it (see
    :func:`~enterprise_envs.verifiers.dialogue.answers`): "INC1, INC2 or INC3", "possibly On
    Hold" and "Is it On Hold?" tell the user nothing. A refusal is told by a message that
    declines the request and claims nothing done (:func:`~enterprise_envs.verifiers.dialogue.refuses`).
    """

    label: str
    value: Text | None = Field(None, description="A literal, or '$entry.field' for a value of a claimed row.")
    any_of: list[Text] | None = Field(
        None, description="Literals, any one of which will do (ways of saying the same thing)."
    )
    act: Literal["refusal"] | None = Field(
        None, description="'refusal': the agent declined the request in a message that claims nothing done."
    )
    rivals: list[Text] | None = Field(
        None,
        description="The other values of the value's kind (the other states, say). A record number's rivals "
        "are also the other numbers with its prefix.",
    )

    @field_validator("value", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return _text(value)

    @field_validator("any_of", "rivals", mode="before")
    @classmethod
    def _all_text(cls, values: Any) -> Any:
        return [_text(value) for value in values] if isinstance(values, list) else values

    @model_validator(mode="after")
    def _one_form(self) -> CommunicateCheck:
        if sum(form is not None for form in (self.value, self.any_of, self.act)) != 1:
            raise ValueError("give one of value, any_of or act")
        if self.any_of is not None and not [text for text in self.any_of if text.strip()]:
            raise ValueError("any_of needs at least one non-empty value")
        if self.rivals is not None and self.act is not None:
            raise ValueError("rivals are the rivals of a value; an act has none")
        return self

    def entry_ref(self) -> tuple[str, str] | None:
        """(entry id, field) when the value comes from a claimed row."""
        if self.value is None:
            return None
        match = _ENTRY_REF.match(self.value)
        if match and match.group(2):
            return match.group(1), match.group(2)
        return None


class Expectation(_Strict):
    """What the end state must show: required, allowed and forbidden changes, and what was said."""

    change: list[ChangeEntry] = Field(default_factory=list)
    allow: list[AllowEntry] = Field(default_factory=list)
    forbid: list[ForbidEntry] = Field(default_factory=list)
    communicate: list[CommunicateCheck] = Field(default_factory=list)

    @model_validator(mode="after")
    def _references_resolve(self) -> Expectation:
        ids = [entry.id for entry in self.change if entry.id]
        if len(ids) != len(set(ids)):
            raise ValueError(f"duplicate change entry ids: {sorted(ids)}")
        known = set(ids)
        for entry in [*self.change, *self.allow, *self.forbid]:
            unknown = entry.entry_refs() - known
            if unknown:
                raise ValueError(f"{entry.label!r} references unknown entries: {sorted(unknown)}")
        for check in self.communicate:
            ref = check.entry_ref()
            if ref and ref[0] not in known:
                raise ValueError(f"{check.label!r} references unknown entry ${ref[0]}")
            if not ref and check.value is not None and not check.value.strip():
                raise ValueError(f"{check.label!r} has an empty value")
        return self

    def check_catalog(self, catalog: Catalog) -> None:
        """Raise ExpectationError if a table or field is not in the system's catalog."""
        for entry in [*self.change, *self.allow, *self.forbid]:
            if entry.table not in catalog:
                raise ExpectationError(f"{entry.label!r}: unknown table {entry.table!r}")
            spec = catalog[entry.table]
            for name in [*(name for name, _ in entry.predicates()), *entry.may_change]:
                if name not in spec:
                    raise ExpectationError(f"{entry.label!r}: table {entry.table} has no field {name!r}")
        by_id = {entry.id: entry for entry in self.change if entry.id}
        for check in self.communicate:
            ref = check.entry_ref()
            if ref and ref[1] not in catalog[by_id[ref[0]].table]:
                raise ExpectationError(f"{check.label!r}: {by_id[ref[0]].table} has no field {ref[1]!r}")


def bind_params(data: Any, params: Mapping[str, Any], leave: Collection[str] = ()) -> Any:
    """Substitute ``{{path}}`` references with values from ``params``, recursively.

    Args:
        data: Strings, lists and dicts to bind.
        params: Values by name (nested mappings and lists for dotted paths).
        leave: Names left as ``{{name}}`` for a later stage (a persona's own fact placeholders).

    Raises:
        ExpectationError: A referenced param does not exist.
    """
    if isinstance(data, str):
        if "{{" not in data:
            return data
        whole = TEMPLATE.fullmatch(data.strip())
        if whole and whole.group(1).split(".")[0] not in leave:
            value = _text(_lookup(params, whole.group(1)))
            return apply_filter(value, whole.group(2)) if whole.group(2) else value
        return TEMPLATE.sub(lambda match: _substitute(match, params, leave), data)
    if isinstance(data, list):
        return [bind_params(item, params, leave) for item in data]
    if isinstance(data, dict):
        return {key: bind_params(value, params, leave) for key, value in data.items()}
    return data


def _substitute(match: re.Match[str], params: Mapping[str, Any], leave: Collection[str]) -> str:
    path = match.group(1)
    if path.split(".")[0] in leave:
        return match.group(0)
    return apply_filter(str(_text(_lookup(params, path))), match.group(2))


def _lookup(params: Mapping[str, Any], path: str) -> Any:
    value: Any = params
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list | tuple) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise ExpectationError(f"unresolved param {{{{{path}}}}}: no {part!r}")
    if isinstance(value, Mapping | list | tuple):
        raise ExpectationError(f"param {{{{{path}}}}} is not a single value")
    if value is None:
        raise ExpectationError(f"param {{{{{path}}}}} has no value")
    return value


def load_expectation(data: Mapping[str, Any], params: Mapping[str, Any], catalog: Catalog) -> Expectation:
    """Bind params, validate the shape and check tables and fields: the scenario loader's entry point.

    Raises:
        ExpectationError: With a message naming what is wrong.
    """
    bound = bind_params(dict(data), params)
    try:
        expectation = Expectation.model_validate(bound)
    except ValidationError as error:
        raise ExpectationError(str(error)) from None
    expectation.check_catalog(catalog)
    return expectation


def expectation_json_schema() -> dict[str, Any]:
    """The published JSON Schema of the expectation language."""
    schema = Expectation.model_json_schema()
    shorthand = {"anyOf": [_SCALAR_SCHEMA, {"$ref": "#/$defs/FieldPredicate"}]}
    for definition in schema["$defs"].values():
        for name in ("where", "fields"):
            prop = definition.get("properties", {}).get(name)
            if prop is not None and "additionalProperties" in prop:
                prop["additionalProperties"] = shorthand
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "enterprise-envs expectation"
    return schema
