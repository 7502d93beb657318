"""The mocked systems as their vendors' own REST APIs over HTTP (``serve SYSTEM --transport rest``).

- :func:`create_rest_app`: the Starlette app serving a system's
  :class:`~enterprise_envs.mocks._core.http.HttpApi` (Slack's ``/api/<method>``, ...) on a hub's
  worlds, beside the control plane every transport shares (:mod:`enterprise_envs.serving`).
- :class:`RestServer`: the same on a background thread (tests, notebooks), like
  :class:`~enterprise_envs.mcp.HubServer` for MCP.

The vendor's own client is the client: point Slack's ``WebClient`` at
``RestServer("chat").api_url``. See docs/rest.md.
"""

from __future__ import annotations

from enterprise_envs.rest.app import (
    ENV_PREFIX,
    Gateway,
    RestServer,
    ServedApi,
    create_rest_app,
    served_apis,
    system_api,
    systems_served,
)

__all__ = [
    "ENV_PREFIX",
    "Gateway",
    "RestServer",
    "ServedApi",
    "create_rest_app",
    "served_apis",
    "system_api",
    "systems_served",
]
