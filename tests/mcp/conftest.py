"""MCP fixtures: real HTTP servers on 127.0.0.1 in a background thread, always stopped."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from enterprise_envs.mcp import Hub, HubServer, WorldDefaults
from tests.mcp.helpers import TOKENS


@pytest.fixture
def world_server() -> Iterator[HubServer]:
    """An in-process HTTP server (background thread) serving tiny ITSM worlds, typed surface."""
    with HubServer(
        "itsm", "typed", tokens=TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))
    ) as server:
        yield server
    server.hub.close()


@pytest.fixture
def rest_server() -> Iterator[HubServer]:
    """The same on the rest (Table API) surface."""
    with HubServer(
        "itsm", "rest", tokens=TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))
    ) as server:
        yield server
    server.hub.close()


@pytest.fixture
def episode_server() -> Iterator[HubServer]:
    """An in-process HTTP server for ITSM episodes (typed surface)."""
    with HubServer("itsm", "typed", episodes=True, tokens=TOKENS) as server:
        yield server
