"""Hostile tool calls never raise out of the identity tool layer and never write partially.

Arguments are drawn valid-by-schema for every tool of both surfaces (with hostile strings: SQL,
query syntax, Unicode, huge) and as arbitrary JSON. A call either succeeds or answers Okta's
error envelope and leaves the database unchanged; nothing is an internal error.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity import IDENTITY
from tests.mocks.identity.helpers import fresh
from tests.strategies import ANY_JSON, examples, from_schema

SURFACES = {name: IDENTITY.surface(name) for name in ("typed", "rest")}
ALL_TOOLS = [(surface, tool.name) for surface, tools in SURFACES.items() for tool in tools]
_ENVELOPE = {"errorCode", "errorSummary", "errorLink", "errorId", "errorCauses"}


def _check(backend: Backend, surface: str, tool: str, arguments) -> None:  # noqa: ANN001
    before = backend.serialize()
    result = backend.call(tool, arguments, surface=surface)
    assert isinstance(result.status, int)
    assert backend.internal_errors == [], backend.internal_errors[-1]["traceback"]
    if not result.ok:
        assert set(result.body) == _ENVELOPE and result.body["errorSummary"], result.body
        assert backend.serialize() == before, f"{tool} failed with {result.status} but wrote"


@pytest.mark.parametrize(("surface", "tool"), ALL_TOOLS)
@settings(
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    max_examples=examples(20),
)
@given(data=st.data())
def test_schema_valid_arguments_never_break_the_tool_layer(
    identity_session_backend: Backend, surface: str, tool: str, data
) -> None:
    backend = fresh(identity_session_backend)
    arguments = data.draw(from_schema(dict(SURFACES[surface][tool].input_schema)))
    _check(backend, surface, tool, arguments)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=examples(80))
@given(tool=st.sampled_from(ALL_TOOLS), arguments=ANY_JSON)
def test_arbitrary_json_arguments_are_refused_cleanly(
    identity_session_backend: Backend, tool, arguments
) -> None:  # noqa: ANN001
    _check(fresh(identity_session_backend), tool[0], tool[1], arguments)


_EXPRESSIONS = st.sampled_from(
    [
        'status eq "ACTIVE"',
        "(",
        ")",
        '"',
        "\\",
        " and ",
        " or ",
        "not ",
        "pr",
        'profile.login sw "a"',
        "eq",
        "%_",
    ]
)


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=examples(120))
@given(
    parts=st.lists(_EXPRESSIONS | st.text(max_size=8), max_size=30),
    which=st.sampled_from(["filter", "search"]),
)
def test_query_expressions_built_from_hostile_pieces_are_answered(
    identity_session_backend: Backend, parts: list[str], which: str
) -> None:
    backend = fresh(identity_session_backend)
    expression = "".join(parts)
    for tool in ("listUsers", "listGroups"):
        result = backend.call(tool, {which: expression}, surface="rest")
        assert backend.internal_errors == [], backend.internal_errors[-1]["traceback"]
        assert result.ok or result.body["errorCode"] in ("E0000031", "E0000001"), result.body
    result = backend.call("listLogEvents", {"filter": expression}, surface="rest")
    assert result.ok or result.body["errorCode"] in ("E0000031", "E0000001"), result.body
    assert backend.internal_errors == []


def test_unknown_tools_are_errors_in_oktas_envelope(okta: Backend) -> None:
    for name in ("drop_database", "", None, 42, ["listUsers"]):
        result = okta.call(name, {})  # type: ignore[arg-type]
        assert result.status == 400 and result.body["errorCode"] == "E0000001"
