"""The input boundary: plain JSON or a clear refusal, bounded work, text that can be encoded."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.inputs import (
    MAX_INT,
    InputError,
    InputLimits,
    echo,
    json_text,
    loads,
    plain_json,
    text_problem,
)
from enterprise_envs.mocks.itsm import ITSM
from tests.strategies import HOSTILE_VALUES, NOT_JSON, RAW_JSON, RAW_TEXT, examples


def _is_plain(value) -> bool:
    """Plain JSON as json.dumps would write it back exactly (strict: no NaN)."""
    if value is None or isinstance(value, bool | str):
        return True
    if isinstance(value, int):
        return abs(value) <= MAX_INT
    if isinstance(value, float):
        return value == value and abs(value) != float("inf")
    if type(value) is list:
        return all(_is_plain(item) for item in value)
    if type(value) is dict:
        return all(type(key) is str and _is_plain(item) for key, item in value.items())
    return False


_TEXT = st.text(alphabet=st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=20)
PLAIN = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-MAX_INT, MAX_INT)
    | st.floats(allow_nan=False, allow_infinity=False)
    | _TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(_TEXT, children, max_size=3),
    max_leaves=10,
)


@settings(max_examples=examples(200))
@given(value=PLAIN)
def test_plain_json_comes_back_equal_and_as_a_fresh_copy(value) -> None:
    copy = plain_json(value)
    assert copy == value and json.dumps(copy) == json.dumps(value)
    if isinstance(value, dict | list) and value:
        assert copy is not value


@settings(max_examples=examples(300))
@given(value=HOSTILE_VALUES)
def test_anything_is_either_plain_json_or_refused_with_a_place(value) -> None:
    try:
        copy = plain_json(value, check_text=False)
    except InputError as error:
        assert error.reason and len(str(error)) < 400
        return
    assert _is_plain(copy)


@settings(max_examples=examples(100))
@given(value=NOT_JSON)
def test_values_that_are_not_json_are_refused(value) -> None:
    with pytest.raises(InputError):
        plain_json({"arguments": {"query": value}})


def test_refusals_name_the_place() -> None:
    with pytest.raises(InputError) as caught:
        plain_json({"arguments": {"query": {1, 2}}})
    assert caught.value.path == "arguments.query" and "set" in caught.value.reason
    with pytest.raises(InputError, match="keys must be strings"):
        plain_json({1: "x"})
    with pytest.raises(InputError, match="nested too deeply"):
        plain_json(json.loads("[" * 40 + "]" * 40))
    with pytest.raises(InputError, match="lone surrogate"):
        plain_json(["ok", {"q": "\ud800"}])
    with pytest.raises(InputError, match="NUL"):
        plain_json({"q": "a\x00b"})
    assert plain_json({"q": "\ud800"}, check_text=False) == {"q": "\ud800"}


def test_cycles_and_huge_containers_cost_bounded_work() -> None:
    cyclic: dict = {}
    cyclic["self"] = cyclic
    with pytest.raises(InputError, match="nested too deeply"):
        plain_json(cyclic)
    wide = list(range(50_000))
    with pytest.raises(InputError, match="too large"):
        plain_json(wide, limits=InputLimits(max_items=10_000))
    with pytest.raises(InputError, match="too long"):
        plain_json(["x" * 600_000, "y" * 600_000])


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"n": ' + "7" * 5000 + "}", "digits"),
        ('{"n": NaN}', "NaN"),
        ('{"n": -Infinity}', "Infinity"),
        ('{"n": 1e999}', "out of range"),
        ("[" * 100_000, "not valid JSON"),
        ("{", "not valid JSON"),
        (b"\xff\xfe", "not UTF-8"),
        ("x" * 3_000_000, "too long"),
    ],
)
def test_loads_refuses_what_json_does_not_allow_without_raising_anything_else(text, problem) -> None:
    with pytest.raises(InputError, match=problem):
        loads(text)


@settings(max_examples=examples(200))
@given(value=RAW_JSON)
def test_json_text_is_always_utf8_and_reads_back(value) -> None:
    text = json_text(value)
    text.encode("utf-8")  # never raises: lone surrogates are escaped
    assert json.loads(text) == value


@settings(max_examples=examples(200))
@given(text=RAW_TEXT, limit=st.integers(1, 100))
def test_echo_is_bounded_and_encodable(text, limit) -> None:
    echoed = echo(text, limit)
    echoed.encode("utf-8")
    assert len(echoed) <= 6 * (limit + 3)  # escapes widen a character to at most \U0010ffff
    assert text_problem(echoed) is None


@pytest.mark.parametrize("surface", ["typed", "rest"])
def test_invalid_text_in_any_argument_is_a_vendor_400_that_changes_nothing(itsm: Backend, surface) -> None:
    tools = ITSM.surface(surface)
    checked = 0
    for tool in tools:
        for name, schema in tool.input_schema.get("properties", {}).items():
            if schema.get("type") != "string" or "enum" in schema:
                continue
            for bad in ("\ud800", "x\x00y"):
                before = itsm.serialize()
                result = itsm.call(tool.name, {name: bad}, surface=surface)
                assert result.status == 400, (tool.name, name, result.body)
                assert result.body["status"] == "failure"
                assert name in result.body["error"]["message"]
                body = json.dumps(result.body, ensure_ascii=False)
                body.encode("utf-8")
                assert bad not in body
                assert itsm.serialize() == before
                checked += 1
    assert itsm.internal_errors == []
    assert checked > 10


def test_unknown_tool_names_are_echoed_bounded(itsm: Backend) -> None:
    result = itsm.call("x" * 100_000, {})
    assert result.status == 400 and len(json.dumps(result.body)) < 400
    result = itsm.call("bad\ud800name", {})
    json.dumps(result.body, ensure_ascii=False).encode("utf-8")
