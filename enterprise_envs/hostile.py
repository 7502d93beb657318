"""Hostile inputs: the most expensive messages and arguments an agent is allowed to send.

The bench measures the worst-case step with them (``enterprise-envs bench``, group ``worst``) and
the slow-input tests run them through every text reader and every tool. Each input is as long as
the boundary allows (:data:`~enterprise_envs.actions.MAX_MESSAGE_CHARS` for a message, each
string argument at its schema's ``maxLength``), built to defeat regular expressions that
backtrack: one unbroken token, runs of the characters that value patterns look for, trigger
words repeated so that a pattern's prefix matches everywhere, clause and sentence breaks by the
thousand, and characters that grow under Unicode normalization.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from enterprise_envs.actions import MAX_MESSAGE_CHARS

#: Repeated units that make a message expensive to read: (label, unit).
MESSAGE_UNITS: tuple[tuple[str, str], ...] = (
    ("one-letter-token", "a"),
    ("one-digit-token", "7"),
    ("at-signs", "a@"),
    ("dots", "a."),
    ("dashes", "a-"),
    ("plus-digits", "+1 "),
    ("quotes", '"a'),
    ("apostrophes", "'a"),
    ("backticks", "`"),
    ("braces", '{"'),
    ("commas", "your email, "),
    ("claim-prefixes", "is working "),
    ("check-prefixes", "work work now? "),
    ("conditions", "if once when "),
    ("hand-overs", "escalate to "),
    ("requests", "please could you tell me your "),
    ("sentences", "Hi. "),
    ("newlines", "\n"),
    ("spaces", " "),
    ("nfkc-growth", "\ufdfa"),
    ("casefold-growth", "\u00df"),
    ("accented", "e\u0301"),
    ("mixed-scripts", "李a1-"),
)


def maximal(unit: str, length: int = MAX_MESSAGE_CHARS, prefix: str = "") -> str:
    """``prefix`` followed by ``unit`` repeated, cut to exactly ``length`` characters."""
    body = (unit * (length // max(len(unit), 1) + 1))[: max(length - len(prefix), 0)]
    return (prefix + body)[:length]


def maximal_messages(
    length: int = MAX_MESSAGE_CHARS, extra_units: Mapping[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """(label, message) for every hostile unit, each message ``length`` characters long.

    Args:
        length: Characters per message (the boundary's maximum by default).
        extra_units: More units, e.g. a scenario's own fact values and question phrasings.
    """
    for label, unit in MESSAGE_UNITS:
        yield label, maximal(unit, length)
    for label, unit in (extra_units or {}).items():
        if unit:
            yield label, maximal(unit + " ", length)


#: Fillers for string arguments: (label, unit).
ARGUMENT_UNITS: tuple[tuple[str, str], ...] = (
    ("letters", "a"),
    ("like-wildcards", "%_"),
    ("words", "network printer "),
    ("at-signs", "a@"),
    ("html", "<b>"),
)


def _maximal_value(schema: Mapping[str, Any], unit: str) -> Any:
    """A value for ``schema`` as large as it allows, strings filled with ``unit``."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0])
    if kind == "string":
        return maximal(unit, int(schema.get("maxLength", 1000)))
    if kind == "integer":
        return int(schema.get("maximum", 100))
    if kind == "number":
        return float(schema.get("maximum", 100))
    if kind == "boolean":
        return True
    if kind == "array":
        items = schema.get("items", {})
        return [_maximal_value(items, unit) for _ in range(int(schema.get("maxItems", 10)))]
    if kind == "object":
        properties = schema.get("properties", {})
        return {name: _maximal_value(sub, unit) for name, sub in properties.items()}
    return None


def maximal_arguments(
    input_schema: Mapping[str, Any], extra_units: Mapping[str, str] | None = None
) -> Iterator[tuple[str, dict[str, Any]]]:
    """(label, arguments) with every argument of a tool at its largest, once per filler unit.

    Args:
        input_schema: The tool's input schema.
        extra_units: More fillers, e.g. the system's own ``hostile_text`` (its query syntax).
    """
    for label, unit in (*ARGUMENT_UNITS, *(extra_units or {}).items()):
        value = _maximal_value(input_schema, unit)
        if isinstance(value, dict):
            yield label, value
