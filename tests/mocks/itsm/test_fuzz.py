"""Fuzzed tool calls never raise out of the tool layer and never write partially.

Arguments are drawn valid-by-schema (with hostile strings: SQL, Unicode, huge) and invalid
(random JSON). A call either succeeds or answers an error and leaves the database unchanged.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from tests.strategies import ANY_JSON, examples, from_schema

SURFACES = {name: ITSM.surface(name) for name in ("typed", "rest")}
ALL_TOOLS = [(surface, tool.name) for surface, tools in SURFACES.items() for tool in tools]


def _check(backend: Backend, surface: str, tool: str, arguments) -> None:
    before = backend.serialize()
    result = backend.call(tool, arguments, surface=surface)
    assert isinstance(result.status, int)
    assert backend.internal_errors == [], backend.internal_errors[-1]["traceback"]
    if not result.ok:
        assert result.body["status"] == "failure" and result.body["error"]["message"]
        assert backend.serialize() == before, f"{tool} failed with {result.status} but wrote"


@pytest.mark.parametrize(("surface", "tool"), ALL_TOOLS)
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    max_examples=examples(25),
)
@given(data=st.data())
def test_schema_valid_arguments_never_break_the_tool_layer(
    itsm: Backend, surface: str, tool: str, data
) -> None:
    arguments = data.draw(from_schema(dict(SURFACES[surface][tool].input_schema)))
    _check(itsm, surface, tool, arguments)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=examples(80))
@given(tool=st.sampled_from(ALL_TOOLS), arguments=ANY_JSON)
def test_arbitrary_json_arguments_are_refused_cleanly(itsm: Backend, tool, arguments) -> None:
    _check(itsm, tool[0], tool[1], arguments)


def test_unknown_tools_and_non_string_names_are_errors(itsm: Backend) -> None:
    for name in ("drop_database", "", None, 42, ["table_list"]):
        result = itsm.call(name, {})  # type: ignore[arg-type]
        assert result.status == 400 and result.body["error"]["message"] == "Unknown tool"
