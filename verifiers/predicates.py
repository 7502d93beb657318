"""Evaluating field predicates against a changed row."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Literal

from enterprise_envs.mocks._core.inputs import echo
from enterprise_envs.verifiers.diff import RowChange
from enterprise_envs.verifiers.expectations import FieldPredicate
from enterprise_envs.verifiers.text import states

Side = Literal["before", "after"]
#: Entry id -> keys of the rows it claims; None while candidates are being computed.
Claims = Mapping[str, frozenset[str]] | None


@lru_cache(maxsize=512)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def _compare(value: str, bound: str) -> int:
    """-1, 0, 1: numerically when both are numbers, else as text (ISO date-times order as text)."""
    left, right = _number(value), _number(bound)
    if left is not None and right is not None:
        return (left > right) - (left < right)
    return (value > bound) - (value < bound)


def failure(
    predicate: FieldPredicate, change: RowChange, name: str, side: Side = "after", claims: Claims = None
) -> str | None:
    """Why the predicate does not hold for ``change.name`` (None if it holds).

    Args:
        predicate: The conditions.
        change: The changed row.
        name: Field name.
        side: Which image the value comes from (``where`` on a delete reads the before image).
        claims: Rows claimed per entry id, for ``references: "$id"``, and their values per
            ``"id.field"``, for ``same_as`` and ``mentions: "$id.field"``; None defers those checks.
    """
    value = change.value(name, side)
    shown = f"{name}={value!r}"
    if predicate.equals is not None and value != predicate.equals:
        return f"{shown}, expected {predicate.equals!r}"
    if predicate.not_equals is not None and value == predicate.not_equals:
        return f"{shown}, expected anything else"
    if predicate.one_of is not None and value not in predicate.one_of:
        return f"{shown}, expected one of {predicate.one_of!r}"
    if predicate.contains is not None and predicate.contains.casefold() not in value.casefold():
        return f"{shown}, expected it to contain {predicate.contains!r}"
    if predicate.carries is not None:
        missing = [fact for fact in predicate.carries if not states(value, fact)]
        if missing:
            return f"{echo(shown, 120)}, expected it to state {missing[0]!r}"
    if predicate.carries_any is not None and not any(states(value, fact) for fact in predicate.carries_any):
        return f"{echo(shown, 120)}, expected it to state one of {predicate.carries_any!r}"
    if predicate.matches is not None and not _regex(predicate.matches).search(value):
        return f"{shown}, expected it to match /{predicate.matches}/"
    if predicate.nonempty and not value.strip():
        return f"{shown}, expected a value"
    if predicate.empty and value.strip():
        return f"{shown}, expected it empty"
    old, new = change.value(name, "before"), change.value(name, "after")
    if predicate.changed and old == new:
        return f"{name} unchanged ({old!r}), expected a change"
    if predicate.unchanged and old != new:
        return f"{name} changed {old!r} -> {new!r}, expected no change"
    for bound, accepted, word in (
        (predicate.gt, (1,), ">"),
        (predicate.gte, (0, 1), ">="),
        (predicate.lt, (-1,), "<"),
        (predicate.lte, (-1, 0), "<="),
    ):
        if bound is not None and (not value or _compare(value, bound) not in accepted):
            return f"{shown}, expected {word} {bound!r}"
    if predicate.references is not None:
        reason = _reference_failure(predicate.references, value, claims)
        if reason:
            return f"{shown}, {reason}"
    # Claims are keyed "entry.field" by the verdict: the field's values on the rows that entry claimed.
    if (
        predicate.same_as is not None
        and claims is not None
        and value not in claims.get(predicate.same_as[1:], frozenset())
    ):
        return f"{shown}, expected the {predicate.same_as} of a row that entry claims"
    if predicate.mentions is not None and claims is not None:
        wanted = [text for text in claims.get(predicate.mentions[1:], frozenset()) if text]
        if not any(states(value, text) for text in wanted):
            wanted_text = f"the {predicate.mentions} of a row that entry claims"
            return f"{echo(shown, 120)}, expected it to state {wanted_text}"
    if predicate.before is not None:
        inner = failure(predicate.before, change, name, "before", claims)
        if inner:
            return f"before: {inner}"
    return None


def _reference_failure(target: str, value: str, claims: Claims) -> str | None:
    if target.startswith("$"):
        if claims is None:
            return None  # decided once the referenced entry's rows are chosen
        claimed = claims.get(target[1:], frozenset())
        return None if value in claimed else f"expected a row claimed by {target}"
    return None if value == target else f"expected a reference to {target!r}"


def row_failure(
    pairs: list[tuple[str, FieldPredicate]], change: RowChange, claims: Claims = None
) -> str | None:
    """The first failing predicate of a matcher on a row (``where`` of a delete reads the before image)."""
    side: Side = "before" if change.op == "delete" else "after"
    for name, predicate in pairs:
        reason = failure(predicate, change, name, side, claims)
        if reason:
            return reason
    return None
