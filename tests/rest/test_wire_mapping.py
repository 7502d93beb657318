"""A tool call and its wire request are one thing: ``HttpApi.request_for`` then ``HttpApi.arguments``
gives back the call's arguments, for every route of every system served as its vendor's API.

The server reads what a client sends by the tool's schema (text in a query string or a path is
typed back); if the mapping lost or changed an argument, a call over HTTP would not be the call
made in process, and the state-equality checks would be comparing different calls.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from enterprise_envs import registry
from enterprise_envs.mocks._core.http import Body, HttpApi, WireRequest
from enterprise_envs.rest import system_api
from tests.strategies import examples, from_schema

SERVED = sorted(name for name, system in registry.systems().items() if system.http is not None)


def _routes(system: str) -> list[tuple[str, str]]:
    api = system_api(system).api
    return sorted({(system, route.tool) for route in api.routes})


ROUTES = [pair for system in SERVED for pair in _routes(system)]


def _as_received(api: HttpApi, wire: WireRequest, schema: dict[str, Any]) -> dict[str, Any]:
    """What the server makes of ``wire``: the route it matches and the arguments it reads."""
    target = urlsplit(wire.target())
    found = api.match(wire.method, unquote(target.path))  # servers see the path decoded
    assert not hasattr(found, "problem"), found
    route, params = found  # type: ignore[misc]
    query = parse_qsl(target.query, keep_blank_values=True)
    body = Body(None) if wire.body is None else Body(wire.body)
    return api.arguments(route, params, query, body, schema)


def _sendable(value: Any) -> bool:
    """Text HTTP can carry: valid Unicode (no lone surrogates)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return False
        return True
    if isinstance(value, dict):
        return all(_sendable(k) and _sendable(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_sendable(item) for item in value)
    return True


def test_every_system_with_an_api_has_routes() -> None:
    assert {"chat", "identity", "itsm"} <= set(SERVED)
    assert all(_routes(system) for system in SERVED)


@pytest.mark.parametrize(("system", "tool"), ROUTES, ids=[f"{s}.{t}" for s, t in ROUTES])
@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_a_call_survives_the_wire(system: str, tool: str, data: st.DataObject) -> None:
    served = system_api(system)
    schema = dict(served.schemas[tool])
    arguments = data.draw(from_schema(schema))
    assume(_sendable(arguments))
    route = next(route for route in served.api.routes if route.tool == tool)
    for name in route.pattern.groupindex:  # a path parameter is one non-empty segment
        value = arguments.get(route.path_args.get(name, name))
        assume(value is not None and str(value) not in ("", ".", "..") and "/" not in str(value))
    if route.body is not None and route.method not in ("GET", "HEAD", "DELETE"):
        assume(route.body in arguments)  # a whole-body argument absent is an empty body
    wire = served.api.request_for(tool, arguments)
    assert _as_received(served.api, wire, schema) == arguments
