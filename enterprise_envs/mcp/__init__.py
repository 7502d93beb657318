"""MCP serving: mocked systems and scenario episodes as MCP servers.

- :func:`server_for` / :func:`episode_server_for`: the process's FastMCP server of a system's
  surface (world mode) or of its episodes (plus ``send_message_to_user`` and
  ``end_conversation``); :func:`suite_server_for`: episodes of any world of a suite, each
  request seeing its episode's world's tools. Built once per process; every call is routed by
  ``?env=<id>`` or ``X-Env-Id`` to an env of the caller's principal.
- :class:`Hub`: the live worlds and episodes of a process (env id -> Backend or Gym env).
- :func:`create_app`: the HTTP app (MCP endpoint, ``/control`` plane, bearer tokens);
  :class:`HubServer` runs one on a background thread.
- :func:`serve_env`: serve a live Gym env (or a Backend) so a harness acts through MCP and the
  Gym side verifies.
- :func:`add_serve_commands`: the ``serve`` and ``verify`` CLI commands
  (``python -m enterprise_envs.mcp`` runs them standalone).

Names are imported on first use: importing this package (the CLI does, for
``add_serve_commands``) does not import FastMCP. See docs/mcp.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "add_serve_commands": "commands",
    "HttpServer": "app",
    "create_app": "app",
    "parse_tokens": "app",
    "DEFAULT_ID": "hub",
    "LOCAL": "hub",
    "Episode": "hub",
    "EpisodeDefaults": "hub",
    "Hub": "hub",
    "World": "hub",
    "WorldDefaults": "hub",
    "default_hub": "hub",
    "set_default_hub": "hub",
    "HubServer": "live",
    "ServedEnv": "live",
    "serve_env": "live",
    "END_TOOL": "servers",
    "MESSAGE_TOOL": "servers",
    "episode_server_for": "servers",
    "server_for": "servers",
    "suite_server_for": "servers",
}

if TYPE_CHECKING:
    from enterprise_envs.mcp.app import HttpServer, create_app, parse_tokens
    from enterprise_envs.mcp.commands import add_serve_commands
    from enterprise_envs.mcp.hub import (
        DEFAULT_ID,
        LOCAL,
        Episode,
        EpisodeDefaults,
        Hub,
        World,
        WorldDefaults,
        default_hub,
        set_default_hub,
    )
    from enterprise_envs.mcp.live import HubServer, ServedEnv, serve_env
    from enterprise_envs.mcp.servers import (
        END_TOOL,
        MESSAGE_TOOL,
        episode_server_for,
        server_for,
        suite_server_for,
    )
    from enterprise_envs.mocks._core.mcp import RouteError


def __getattr__(name: str) -> Any:
    if name == "RouteError":
        from enterprise_envs.mocks._core.mcp import RouteError

        return RouteError
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS, "RouteError"])


__all__ = [
    "DEFAULT_ID",
    "END_TOOL",
    "LOCAL",
    "MESSAGE_TOOL",
    "Episode",
    "EpisodeDefaults",
    "HttpServer",
    "Hub",
    "HubServer",
    "RouteError",
    "ServedEnv",
    "World",
    "WorldDefaults",
    "add_serve_commands",
    "create_app",
    "default_hub",
    "episode_server_for",
    "parse_tokens",
    "serve_env",
    "server_for",
    "set_default_hub",
    "suite_server_for",
]
