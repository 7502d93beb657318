"""Tool calls over a served vendor API: each call sent as the request the vendor's client sends.

``RestClient`` is also a ``Transport`` (``mocks/_core/http.py``): :meth:`RestClient.send` sends
a ready :class:`WireRequest` (a recorded one, in a replay).

:class:`RestClient` is for harnesses that hold tool calls (an agent's actions, the oracle's
solution, a benchmark's workload) and want them to travel the wire as a vendor's client would
send them (:meth:`HttpApi.request_for`): same routes, auth scheme and bodies. Vendors' own
clients are the conformance suites (``tests/rest/``); this one is for playing episodes and
measuring the transport. The ``wait`` tool, which no vendor has, goes to the control plane
(``POST /control/envs/<id>/wait``: simulated time does not pass while a client sleeps). One
persistent HTTP/1.1 connection per client; not thread-safe (one client per thread).
"""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from enterprise_envs.mcp.hub import DEFAULT_ID
from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.http import JSON_TYPE, HttpApi, WireRequest
from enterprise_envs.mocks._core.tools import WAIT_TOOL
from enterprise_envs.mocks._core.world import TOOL_SEPARATOR
from enterprise_envs.rest.app import ENV_PREFIX
from enterprise_envs.serving import CONTROL

__all__ = ["RestClient"]


class RestClient:
    """Calls tools of one or more served APIs over HTTP.

    Args:
        base_url: The server root (``http://127.0.0.1:8766``; ``https://`` with TLS).
        apis: {system: its HTTP API} of the APIs served there.
        token: The served token (presented by each API's own scheme).
        env_id: The env to act on (None: the token's default env).
        timeout: Seconds a request may take.
        certificate: With HTTPS, the PEM file of the certificate to trust.
    """

    def __init__(
        self,
        base_url: str,
        apis: Mapping[str, HttpApi],
        token: str,
        *,
        env_id: str | None = None,
        timeout: float = 30.0,
        certificate: str | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        self.apis = dict(apis)
        self.token = token
        self.env_id = env_id or DEFAULT_ID
        self.prefix = f"{ENV_PREFIX}{env_id}" if env_id else ""
        if parts.scheme == "https":
            context = ssl.create_default_context(cafile=certificate)
            self.connection: http.client.HTTPConnection = http.client.HTTPSConnection(
                parts.hostname or "127.0.0.1", parts.port, timeout=timeout, context=context
            )
        else:
            self.connection = http.client.HTTPConnection(
                parts.hostname or "127.0.0.1", parts.port, timeout=timeout
            )

    def is_wait(self, tool: str) -> bool:
        """True for the ``wait`` tool (``<system>_wait`` in a world of several): no vendor has it."""
        return tool == WAIT_TOOL or any(
            tool == f"{system}{TOOL_SEPARATOR}{WAIT_TOOL}" for system in self.apis
        )

    def resolve(self, tool: str) -> tuple[HttpApi, str]:
        """The API serving ``tool`` and its name there.

        A world of several systems names tools ``<system>_<tool>``; a lone system's keep their
        own names.

        Raises:
            KeyError: No served API has a route for it.
        """
        if len(self.apis) == 1:
            return next(iter(self.apis.values())), tool
        for system, api in self.apis.items():
            prefix = f"{system}{TOOL_SEPARATOR}"
            name = tool[len(prefix) :]
            if tool.startswith(prefix) and any(route.tool == name for route in api.routes):
                return api, name
        raise KeyError(f"no served API has a route for {tool!r}")

    def call(self, tool: str, arguments: Mapping[str, Any] | None = None) -> CallResult:
        """Send one tool call as its wire request; the answer as a result (status as on the wire).

        Raises:
            KeyError: No served API serves ``tool``.
            OSError: The server could not be reached (a connection error, a timeout).
        """
        if self.is_wait(tool):
            # Simulated time runs on the control plane: sleeping here would not move it.
            headers = {"Authorization": f"Bearer {self.token}", "Content-Type": JSON_TYPE}
            payload = json.dumps(arguments or {}).encode("utf-8")
            return self._exchange(tool, "POST", f"{CONTROL}/envs/{self.env_id}/wait", payload, headers)
        api, name = self.resolve(tool)
        result = self.send(api.request_for(name, arguments or {}), api)
        return CallResult(tool, result.status, result.body, result.headers)

    def send(self, request: WireRequest, api: HttpApi | None = None) -> CallResult:
        """Send one wire request with ``api``'s credentials (a :class:`Transport`).

        Args:
            request: The request (its path under the API's root; the env prefix is added).
            api: Whose credentials scheme to use (default: the only API served).

        Raises:
            OSError: The server could not be reached (a connection error, a timeout).
        """
        api = api or next(iter(self.apis.values()))
        headers = {"Authorization": api.auth.header(self.token), "Accept": JSON_TYPE}
        payload = request.payload()
        if payload is not None:
            headers["Content-Type"] = JSON_TYPE
        return self._exchange("", request.method, f"{self.prefix}{request.target()}", payload, headers)

    def _exchange(
        self, tool: str, method: str, target: str, payload: bytes | None, headers: dict[str, str]
    ) -> CallResult:
        try:
            self.connection.request(method, target, body=payload, headers=headers)
            response = self.connection.getresponse()
            raw = response.read()
        except (http.client.HTTPException, OSError):
            self.connection.close()  # the next call reconnects
            raise
        body = json.loads(raw) if raw else None
        found: dict[str, str] = {}
        for name, value in response.getheaders():  # a repeated header is one, comma-joined
            key = name.title()
            found[key] = f"{found[key]}, {value}" if key in found else value
        return CallResult(tool, response.status, body, found)

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()

    def __enter__(self) -> RestClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
