"""Conformance with recorded answers: what a replay found, and how two JSON bodies differ in shape.

A system's conformance module replays what was recorded of the real service (an SDK's cassettes,
its tests' response samples) against the mock; which call answers which recording is the
system's own business. What a replay finds is said here, in the same terms for every system:

- :class:`Difference`: one way the mock's answer differs from the recorded one, with its
  :attr:`~Difference.signature` (operation, kind, where), what a table of known differences
  lists; :func:`unknown_differences` keeps those such a table does not list;
- :class:`SampleReport`: what the replay did with one recorded answer (its outcome,
  :data:`MATCHED`, :data:`DIFFERING` or :data:`SKIPPED`, and its differences);
- :class:`Tally`: the figures of many outcomes (how many had each, the differences found, the
  distinct ones);
- :func:`shape_differences`: two bodies compared as JSON shapes, their key sets and value types
  (a list's items merged into one shape), the description's :class:`Schemas` of the answer
  telling which keys a list's items may have that the recording's lack.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from enterprise_envs.mocks._core.openapi import dereference

__all__ = [
    "DIFFERING",
    "MATCHED",
    "SKIPPED",
    "Difference",
    "SampleReport",
    "Schemas",
    "Tally",
    "json_type",
    "shape_differences",
    "unknown_differences",
    "verdict",
]

#: The outcomes of a recorded answer: replayed and compared (the same, or not), or not replayed.
MATCHED, DIFFERING, SKIPPED = "matched", "differing", "skipped"


@dataclass(frozen=True)
class Difference:
    """One way the mock's answer differs from a recorded one.

    Attributes:
        operation: The operation replayed (its ``operationId``).
        kind: What differs: ``status``, ``missing key``, ``extra key`` or ``type`` (the last
            three from :func:`shape_differences`), or a kind the system's replay adds
            (``header``, ``enum``, ``value``, ...).
        where: The place: a body path (``body.user.name``, ``[]`` for a list's items), a
            header, a parameter, or the two statuses (``204 -> 200``).
        detail: What was recorded and what the mock answered.
        sample: The recorded answer it was found against, where the replay names it.
    """

    operation: str
    kind: str
    where: str
    detail: str = ""
    sample: str = ""

    @property
    def signature(self) -> tuple[str, str, str]:
        """(operation, kind, where): what a table of known differences lists."""
        return (self.operation, self.kind, self.where)


def unknown_differences(
    differences: Iterable[Difference], known: Container[tuple[str, str, str]]
) -> list[Difference]:
    """The differences whose signature ``known`` does not hold, in order.

    Args:
        differences: What a replay found.
        known: The signatures kept on purpose (a mapping of them to why works).
    """
    return [difference for difference in differences if difference.signature not in known]


def verdict(differences: Sequence[Difference]) -> str:
    """The outcome of a replayed answer: :data:`DIFFERING` if anything differs, else :data:`MATCHED`."""
    return DIFFERING if differences else MATCHED


@dataclass(frozen=True)
class SampleReport:
    """What a replay did with one recorded answer.

    Attributes:
        name: The recorded answer's name.
        operation: The operation replayed (``""`` when skipped).
        outcome: :data:`MATCHED`, :data:`DIFFERING` or :data:`SKIPPED` (or an outcome of the
            system's own).
        reason: Why it was skipped.
        differences: How the mock's answer differed.
    """

    name: str
    operation: str
    outcome: str
    reason: str = ""
    differences: tuple[Difference, ...] = ()


class Outcome(Protocol):
    """What :class:`Tally` reads of an outcome (a :class:`SampleReport`, a replayed request)."""

    @property
    def outcome(self) -> str:
        """:data:`MATCHED`, :data:`DIFFERING`, :data:`SKIPPED` or the system's own."""
        ...

    @property
    def differences(self) -> tuple[Difference, ...]:
        """How the mock's answer differed."""
        ...


class Tally:
    """The figures of a replay's outcomes; a report says which it holds (:meth:`outcomes`)."""

    def outcomes(self) -> Iterable[Outcome]:
        """Every outcome, in order."""
        raise NotImplementedError

    def count(self, *outcomes: str) -> int:
        """How many had one of these outcomes."""
        return sum(1 for item in self.outcomes() if item.outcome in outcomes)

    @property
    def replayed(self) -> int:
        """How many were replayed through a tool and compared."""
        return self.count(MATCHED, DIFFERING)

    @property
    def differences(self) -> list[Difference]:
        """Every difference found, in order."""
        return [difference for item in self.outcomes() for difference in item.differences]

    def signatures(self) -> set[tuple[str, str, str]]:
        """The distinct differences, as (operation, kind, where)."""
        return {difference.signature for difference in self.differences}


# -- comparing shapes ------------------------------------------------------------------------------


def json_type(value: Any) -> str:
    """A parsed JSON value's type, as JSON Schema names it (``number`` for any number)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


class Schemas:
    """The candidate schemas of one place in an answer, from its OpenAPI description.

    ``$ref`` pointers are followed and ``allOf`` parts, ``oneOf``/``anyOf`` alternatives and a
    discriminator's subtypes all kept: a property is declared if any candidate declares it.

    Args:
        document: The description its ``$ref`` pointers point into.
        schemas: The schemas of the place (none: nothing is declared there).
    """

    def __init__(self, document: Mapping[str, Any], schemas: Sequence[Mapping[str, Any]]) -> None:
        self.document = document
        self.schemas: list[Mapping[str, Any]] = []
        seen: set[int] = set()
        for schema in schemas:
            self._flatten(schema, seen)

    def _flatten(self, schema: Mapping[str, Any], seen: set[int]) -> None:
        """Add the schema and its ``allOf``/``oneOf``/``anyOf`` parts and subtypes, each once."""
        schema = dereference(self.document, schema)
        if id(schema) in seen:
            return
        seen.add(id(schema))
        self.schemas.append(schema)
        parts = [*schema.get("allOf", ()), *schema.get("oneOf", ()), *schema.get("anyOf", ())]
        mapping = (schema.get("discriminator") or {}).get("mapping") or {}
        parts += [{"$ref": target} for target in mapping.values()]
        for part in parts:
            self._flatten(part, seen)

    def declares(self, name: str) -> bool:
        """True if a candidate declares the property ``name``."""
        return any(name in (schema.get("properties") or {}) for schema in self.schemas)

    def at(self, name: str) -> Schemas:
        """The candidates of property ``name`` (or of the additional properties)."""
        found = []
        for schema in self.schemas:
            properties = schema.get("properties") or {}
            if name in properties:
                found.append(properties[name])
            elif isinstance(schema.get("additionalProperties"), Mapping):
                found.append(schema["additionalProperties"])
        return Schemas(self.document, found)

    def items(self) -> Schemas:
        """The candidates of an array's items."""
        return Schemas(
            self.document,
            [schema["items"] for schema in self.schemas if isinstance(schema.get("items"), Mapping)],
        )

    @property
    def nullable(self) -> bool:
        """True if a candidate allows ``null`` (OpenAPI 3.0's ``nullable``)."""
        return any(schema.get("nullable") for schema in self.schemas)

    @property
    def enum(self) -> set[str] | None:
        """The values allowed, if every candidate that constrains the place is an enum."""
        enums = [schema["enum"] for schema in self.schemas if "enum" in schema]
        if not enums:
            return None
        return {value for values in enums for value in values if isinstance(value, str)}


class _Shape:
    """The merged shape of the values found at one place: their JSON types, keys and items."""

    def __init__(self) -> None:
        self.types: set[str] = set()
        self.keys: dict[str, _Shape] = {}
        self.items: _Shape | None = None

    def add(self, value: Any) -> _Shape:
        self.types.add(json_type(value))
        if isinstance(value, dict):
            for key, item in value.items():
                self.keys.setdefault(key, _Shape()).add(item)
        elif isinstance(value, list):
            if self.items is None:
                self.items = _Shape()
            for item in value:
                self.items.add(item)
        return self


def shape_differences(
    operation: str,
    recorded: Any,
    mock: Any,
    schemas: Schemas,
    *,
    where: str = "body",
    recorded_as: str = "recorded",
    sample: str = "",
) -> list[Difference]:
    """How the mock's body differs in shape from the recorded one: keys and JSON types.

    Reported, place by place: a ``type`` where the two hold values of other types (then nothing
    below it), a ``missing key`` the recording has and the mock lacks, an ``extra key`` the mock
    adds. A list's items are compared as one shape, every item's keys and types merged. Inside a
    list the mock's items are partly its world's rows, not the recording's objects, so there a
    key the description declares may be absent from the recording, and ``null`` stands for any
    type where the description marks the place nullable (or the recording shows both).

    Args:
        operation: The operation replayed (its ``operationId``).
        recorded: The recorded body.
        mock: The mock's body.
        schemas: The description's schemas of the body (what a list's items may hold).
        where: The body's place, the prefix of every difference's ``where``.
        recorded_as: How the details say the recording has something (``recorded``, ``in the
            sample``).
        sample: The recorded answer's name, kept on each difference.
    """
    shapes = _Shape().add(recorded), _Shape().add(mock)
    return list(_shape_differences(operation, *shapes, schemas, where, False, recorded_as, sample))


def _shape_differences(
    operation: str,
    recorded: _Shape,
    mock: _Shape,
    schemas: Schemas,
    where: str,
    in_list: bool,
    recorded_as: str,
    sample: str,
) -> Iterator[Difference]:
    recorded_types, mock_types = set(recorded.types), set(mock.types)
    if in_list and (schemas.nullable or (len(recorded_types) > 1 and "null" in recorded_types)):
        recorded_types.discard("null")
        mock_types.discard("null")
    if recorded_types and mock_types and recorded_types != mock_types:
        detail = (
            f"{'/'.join(sorted(recorded.types))} {recorded_as}, {'/'.join(sorted(mock.types))} from the mock"
        )
        yield Difference(operation, "type", where, detail, sample)
        return
    for key in sorted(set(recorded.keys) - set(mock.keys)):
        yield Difference(
            operation, "missing key", f"{where}.{key}", f"{recorded_as}, absent from the mock", sample
        )
    for key in sorted(set(mock.keys) - set(recorded.keys)):
        if not (in_list and schemas.declares(key)):
            yield Difference(
                operation, "extra key", f"{where}.{key}", f"from the mock, not {recorded_as}", sample
            )
    for key in sorted(set(recorded.keys) & set(mock.keys)):
        yield from _shape_differences(
            operation,
            recorded.keys[key],
            mock.keys[key],
            schemas.at(key),
            f"{where}.{key}",
            in_list,
            recorded_as,
            sample,
        )
    if recorded.items is not None and mock.items is not None and recorded.items.types and mock.items.types:
        yield from _shape_differences(
            operation, recorded.items, mock.items, schemas.items(), f"{where}[]", True, recorded_as, sample
        )
