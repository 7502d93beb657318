"""Fuzzed tool calls never raise out of the tool layer and never write partially.

Arguments are drawn valid-by-schema (with hostile strings: SQL, Unicode, huge) and invalid
(random JSON). A call either succeeds or answers an error and leaves the database unchanged.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, event, given, settings
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


_REAL_WRITES = st.lists(
    st.tuples(
        st.sampled_from(["create", "comment", "update", "delete", "fuzz"]),
        st.text(min_size=1, max_size=40),
        st.data(),
    ),
    min_size=1,
    max_size=6,
)


@settings(suppress_health_check=[HealthCheck.too_slow], max_examples=examples(25), deadline=None)
@given(operations=_REAL_WRITES)
def test_reset_after_any_writes_rolls_back_to_the_snapshot_byte_for_byte(operations) -> None:
    """Whatever an episode wrote, reset rolls it back to the snapshot exactly.

    Writes through both surfaces, failed and fuzzed calls among them.
    """
    from enterprise_envs.mocks._core.snapshot import get_snapshot

    backend = Backend(ITSM, size="tiny")
    incidents = backend.store.column_values("incident", "number", "active = 'true'")
    caller = backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0]["user_name"]
    for kind, text, data in operations:
        number = data.draw(st.sampled_from(incidents))
        if kind == "create":
            backend.call("create_incident", {"caller": caller, "short_description": text})
        elif kind == "comment":
            backend.call("add_comment", {"number": number, "text": text})
        elif kind == "update":
            backend.call("update_incident", {"number": number, "short_description": text})
        elif kind == "delete":
            sys_id = backend.store.find_one("incident", "number", number)["sys_id"]
            backend.call("table_delete", {"table": "incident", "sys_id": sys_id}, surface="rest")
        else:
            surface, tool = data.draw(st.sampled_from(ALL_TOOLS))
            backend.call(
                tool, data.draw(from_schema(dict(SURFACES[surface][tool].input_schema))), surface=surface
            )
    event(f"rows changed: {min(len(backend.store.changed_rows()), 3)}")  # writes really happened
    backend.reset(episode_seed=1)
    assert backend.store.last_restore == "rollback"
    assert backend.serialize() == get_snapshot(ITSM, "tiny", 0).data
    backend.close()
