"""Hypothesis strategies derived from our own tool schemas (hypothesis-jsonschema is broken
with current hypothesis, see docs/architecture.md), plus hostile strings."""

from __future__ import annotations

import os
from typing import Any

from hypothesis import strategies as st

#: HYPOTHESIS_PROFILE=full multiplies every property test's example count (docs/testing.md).
_SCALE = 40 if os.environ.get("HYPOTHESIS_PROFILE") == "full" else 1


def examples(count: int) -> int:
    """A test's example count at the active strength (the default keeps the suite fast)."""
    return count * _SCALE


HOSTILE_TEXT = st.sampled_from(
    [
        "",
        " ",
        "'; DROP TABLE incident; --",
        '" OR "1"="1',
        "%_\\",
        "INC0010001",
        "admin",
        "\u0000",
        "\ud7ff\ue000\U0010ffff",
        "Zoë Ångström 李雷",
        "x" * 5000,
        "javascript:gs.getUserID()",
        "active=true^ORDERBYnumber",
        "\ud800",
        "a\udfffb",
        "nul\x00inside",
    ]
)
#: Text as an attacker writes it: any code point, lone surrogates and NUL included.
RAW_TEXT = st.text(alphabet=st.characters(exclude_categories=()), max_size=30)
#: JSON-shaped values whose strings may hold anything (surrogates, NUL).
RAW_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.floats(allow_nan=False) | RAW_TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(RAW_TEXT, children, max_size=3),
    max_leaves=8,
)


def _nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = {"a": [value]}
    return value


def _cyclic() -> Any:
    value: dict[str, Any] = {"tool": "search_users"}
    value["arguments"] = value
    return value


#: Python values that are not plain JSON: what a careless harness or a hostile policy might pass.
NOT_JSON = st.one_of(
    st.sets(st.integers(), min_size=1, max_size=3),
    st.frozensets(st.text(max_size=3), max_size=2),
    st.binary(max_size=20),
    st.binary(max_size=20).map(bytearray),
    st.complex_numbers(allow_nan=False, allow_infinity=False),
    st.sampled_from([float("nan"), float("inf"), -float("inf")]),
    st.integers(min_value=2**53, max_value=2**200) | st.integers(max_value=-(2**53), min_value=-(2**200)),
    st.builds(object),
    st.dictionaries(
        st.integers() | st.none() | st.tuples(st.integers()), st.integers(), min_size=1, max_size=2
    ),
    st.integers(40, 3000).map(_nested),
    st.just(None).map(lambda _: _cyclic()),
)
#: Values mixing plain JSON and non-JSON anywhere inside.
HOSTILE_VALUES = st.recursive(
    NOT_JSON | RAW_JSON,
    lambda children: (
        st.lists(children, max_size=3)
        | st.tuples(children, children)
        | st.dictionaries(RAW_TEXT, children, max_size=3)
    ),
    max_leaves=6,
)
ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=10), children, max_size=3)
    ),
    max_leaves=8,
)


def text_for(schema: dict[str, Any]) -> st.SearchStrategy[str]:
    max_size = min(schema.get("maxLength", 200), 300)
    min_size = schema.get("minLength", 0)
    return st.one_of(
        st.text(min_size=min_size, max_size=max_size),
        HOSTILE_TEXT.filter(lambda s: min_size <= len(s) <= schema.get("maxLength", 10**9)),
    )


def from_schema(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values valid for the subset of JSON Schema our tool inputs use."""
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return st.one_of(*(from_schema({**schema, "type": k}) for k in kind))
    if kind == "string":
        return text_for(schema)
    if kind == "integer":
        return st.integers(schema.get("minimum", -(2**31)), schema.get("maximum", 2**31))
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        return st.lists(from_schema(schema.get("items", {})), max_size=min(schema.get("maxItems", 4), 4))
    if kind == "object":
        props = schema.get("properties", {})
        if not props:
            extra = schema.get("additionalProperties", {})
            value = from_schema(extra) if isinstance(extra, dict) and extra else st.text(max_size=20)
            return st.dictionaries(st.text(max_size=20), value, max_size=4)
        required = set(schema.get("required", []))
        optional = {name: from_schema(sub) for name, sub in props.items() if name not in required}
        return st.fixed_dictionaries(
            {name: from_schema(props[name]) for name in sorted(required)}, optional=optional
        )
    return ANY_JSON
