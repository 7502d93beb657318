"""The MCP HTTP app: the MCP endpoint beside the shared control plane, with bearer-token auth.

One Starlette app serves:

- ``/mcp`` (streamable HTTP, stateless, JSON responses): the MCP endpoint of one system and
  surface, in world or episode mode. Calls route by ``?env=<id>`` or ``X-Env-Id``.
- ``/control/...``: the control plane (create, list and delete envs or episodes, reset a world,
  set its faults, end an episode and get its verdict). Plain HTTP + JSON, never an MCP tool.

Both need ``Authorization: Bearer <token>`` (``/control/health`` excepted); a token maps to a
principal, and a principal reaches only the envs created for it. The control plane, tokens,
body limit and server thread are :mod:`enterprise_envs.serving`'s, shared with the vendors'
REST APIs (``enterprise_envs/rest/``); they are re-exported here.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enterprise_envs.mcp.hub import Hub
from enterprise_envs.mcp.servers import HUB_STATE, episode_server_for, server_for, suite_server_for
from enterprise_envs.serving import (
    CONTROL,
    ENV_PARAM,
    MAX_BODY_BYTES,
    TOKENS_ENV,
    BodyLimit,
    ControlPlane,
    HttpServer,
    bind_socket,
    parse_tokens,
    run_http,
    scope_owner,
    tokens_from_env,
)

__all__ = [
    "CONTROL",
    "MAX_BODY_BYTES",
    "MCP_PATH",
    "TOKENS_ENV",
    "BodyLimit",
    "ControlPlane",
    "HttpServer",
    "bind_socket",
    "create_app",
    "parse_tokens",
    "run_http",
    "tokens_from_env",
]

MCP_PATH = "/mcp"


def create_app(
    hub: Hub,
    *,
    system: str | None = None,
    surface: str = "typed",
    episodes: bool = False,
    tokens: Mapping[str, str],
    path: str = MCP_PATH,
    suite: str | None = None,
) -> Any:
    """The Starlette app serving ``hub`` over streamable HTTP, with the control plane.

    Args:
        hub: The envs to serve.
        system: The system whose tools ``path`` serves (episodes: a world key, ``itsm+kv``).
        surface: Its surface.
        episodes: Serve episodes (the episode tools) instead of worlds.
        tokens: {secret: principal}; at least one.
        path: The MCP endpoint's path.
        suite: Instead of ``system``: serve episodes of any scenario of this suite (a Gym id),
            each request seeing its episode's world's tools.
    """
    from fastmcp.server.auth.providers.jwt import StaticTokenVerifier
    from fastmcp.server.http import create_streamable_http_app

    if not tokens:
        raise ValueError(f"HTTP serving needs at least one token (--token or {TOKENS_ENV})")
    if (system is None) == (suite is None):
        raise ValueError("serve a system (or world key) or a suite: give exactly one")
    if suite is not None:
        server = suite_server_for(suite, surface)
        episodes = True
    else:
        assert system is not None
        server = episode_server_for(system, surface) if episodes else server_for(system, surface)
    verifier = StaticTokenVerifier(
        tokens={secret: {"client_id": principal, "scopes": []} for secret, principal in tokens.items()}
    )
    control = ControlPlane(
        hub,
        system=system,
        surface=surface,
        episodes=episodes,
        # FastMCP's auth middleware has checked the bearer token and put its principal in the scope.
        owner_of=scope_owner,
        links=lambda base, entry: {"mcp_url": f"{base}{path}?{ENV_PARAM}={entry.id}"},
        about={"mcp_path": path},
        suite=suite,
    )
    app = create_streamable_http_app(
        server,
        path,
        auth=verifier,
        stateless_http=True,
        json_response=True,
        routes=control.routes(),
    )
    setattr(app.state, HUB_STATE, hub)
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    return app
