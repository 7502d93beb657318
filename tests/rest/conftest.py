"""REST fixtures: the chat mock served as Slack's Web API on 127.0.0.1, in a background thread."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from slack_sdk import WebClient

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKENS


@pytest.fixture
def slack_server() -> Iterator[RestServer]:
    """Tiny chat worlds served as Slack's Web API (tokens alice and bob); stopped at the end."""
    with RestServer("chat", tokens=TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))) as server:
        yield server
    server.hub.close()


@pytest.fixture
def slack(slack_server: RestServer) -> WebClient:
    """Slack's own SDK client, as alice, on her default world."""
    return WebClient(token=TOKEN_A, base_url=slack_server.api_url, timeout=int(TIMEOUT))
