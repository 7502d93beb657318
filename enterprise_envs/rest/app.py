"""The vendors' own REST APIs over HTTP: a system's :class:`HttpApi` served on a hub's envs.

One Starlette app serves:

- the system's API (``System.http_api()``: Slack's ``/api/<method>``, ...): every request is
  matched to a route, its body read, its credentials checked the vendor's way, and its tool
  called on the env of the token's principal, through ``Backend.call`` like any other call;
  the result goes out with the vendor's status, headers and body.
- ``/control/...``: the control plane every transport shares (:class:`ControlPlane`), with
  ``Authorization: Bearer <token>`` whatever the vendor's own scheme.

Routing, as in MCP: a request acts on its principal's ``default`` world (made on first use),
or on the env it names, by the path prefix ``/envs/<id>`` (``/envs/w-3f0c.../api/auth.test``:
for clients that only take a base URL) or an ``X-Env-Id`` header. A token reaches only its own
envs; another token's id is unknown to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route as StarletteRoute

from enterprise_envs.mcp.hub import Hub, QuotaError
from enterprise_envs.mocks._core.http import HttpApi, Problem, Rejection, Reply, parse_body
from enterprise_envs.mocks._core.inputs import json_text
from enterprise_envs.mocks._core.mcp import RouteError, run_locked
from enterprise_envs.serving import (
    ENV_HEADER,
    MAX_BODY_BYTES,
    TOKENS_ENV,
    BodyLimit,
    ControlPlane,
    HubHttpServer,
    bearer_owner,
)

#: The path prefix naming the env a request acts on (``/envs/<id>/...``).
ENV_PREFIX = "/envs/"
#: The methods the API route takes (a method no route of the API has gets its vendor's answer).
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
JSON_MEDIA = "application/json; charset=utf-8"


def system_api(system: str) -> tuple[HttpApi, dict[str, Mapping[str, Any]]]:
    """A system's HTTP API and its tools' input schemas (by tool name).

    Raises:
        KeyError: Unknown system, or one that cannot be served as its vendor's API.
    """
    from enterprise_envs import registry

    found = registry.systems().get(system)
    if found is None:
        raise KeyError(f"unknown system {system!r} (have {', '.join(sorted(registry.systems()))})")
    api = found.http_api()
    schemas = {tool.name: tool.input_schema for tool in found.surface(api.surface)}
    missing = sorted({route.tool for route in api.routes} - set(schemas))
    if missing:
        raise KeyError(f"{system}: routes name tools its {api.surface} surface lacks: {missing}")
    return api, schemas


def create_rest_app(hub: Hub, *, system: str, tokens: Mapping[str, str]) -> Starlette:
    """The Starlette app serving ``system``'s HTTP API on ``hub``'s worlds, with the control plane.

    Args:
        hub: The envs to serve (shared with any other transport over it).
        system: The system whose API is served (world mode: each principal's calls act on its
            own worlds).
        tokens: {secret: principal}; at least one. A request presents the secret the vendor's
            way (``HttpApi.auth``); the control plane takes it as a bearer token.

    Raises:
        ValueError: No token.
        KeyError: Unknown system, or one without an HTTP API.
    """
    if not tokens:
        raise ValueError(f"HTTP serving needs at least one token (--token or {TOKENS_ENV})")
    api, schemas = system_api(system)
    control = ControlPlane(
        hub,
        system=system,
        surface=api.surface,
        episodes=False,
        owner_of=bearer_owner(tokens),
        links=lambda base, env_id: {"api_url": f"{base}{ENV_PREFIX}{env_id}{api.base_path}"},
        about={"transport": "rest", "api": api.name, "base_path": api.base_path},
    )
    gateway = Gateway(hub, system, api, schemas, tokens)
    api_route = StarletteRoute("/{path:path}", gateway.handle, methods=METHODS)
    app = Starlette(routes=[*control.routes(), api_route])
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    return app


class Gateway:
    """Serves an :class:`HttpApi`'s requests on a hub's envs (one instance per app).

    Args:
        hub: The envs.
        system: The system served (what a routed env must be).
        api: Its HTTP API.
        schemas: Its tools' input schemas (wire text is read as they type it).
        tokens: {secret: principal}.
        kind: The kind of env requests act on (``world``; episodes are for a later transport mode).
    """

    def __init__(
        self,
        hub: Hub,
        system: str,
        api: HttpApi,
        schemas: Mapping[str, Mapping[str, Any]],
        tokens: Mapping[str, str],
        kind: str = "world",
    ) -> None:
        self.hub = hub
        self.system = system
        self.api = api
        self.schemas = dict(schemas)
        self.tokens = dict(tokens)
        self.kind = kind

    async def handle(self, request: Request) -> Response:
        """One request of the API: route, read, authenticate, call, answer as the vendor does."""
        api = self.api
        method = request.method
        path = request.scope["path"]
        env_id = request.headers.get(ENV_HEADER) or None
        if path.startswith(ENV_PREFIX):
            env_id, slash, rest = path[len(ENV_PREFIX) :].partition("/")
            path = slash + rest
            if not env_id:
                return _reply(api.reject(Rejection(Problem.NO_ROUTE, method, path, "no env id after /envs/")))
        found = api.match(method, path)
        if isinstance(found, Rejection):
            return _reply(api.reject(found))
        route, params = found
        body = parse_body(method, path, request.headers.get("content-type"), await request.body())
        if isinstance(body, Rejection):
            return _reply(api.reject(body))
        secret = api.auth.credential(request.headers.get("authorization"), body.values if body.form else None)
        if secret is None:
            return _reply(api.reject(Rejection(Problem.NO_CREDENTIALS, method, path, "no credentials")))
        owner = self.tokens.get(secret)
        if owner is None:
            return _reply(api.reject(Rejection(Problem.BAD_CREDENTIALS, method, path, "unknown credentials")))
        try:
            entry = self.hub.lookup(owner, env_id, system=self.system, kind=self.kind)
            if entry is None:  # the principal's default world, made on first use, off the loop
                entry = await anyio.to_thread.run_sync(
                    lambda: self.hub.resolve(owner, env_id, system=self.system, kind=self.kind)
                )
            arguments = api.arguments(
                route, params, request.query_params.multi_items(), body, self.schemas[route.tool]
            )
            result = await run_locked(entry.lock, entry.call, route.tool, arguments, surface=api.surface)
        except QuotaError as error:
            return _error(error.status, str(error))
        except RouteError as error:
            # The serving layer's refusal (an env this token does not hold, a server shutting
            # down), not the vendor's: it has no word for envs.
            return _error(404, str(error))
        return _reply(api.reply(result))


def _reply(reply: Reply) -> Response:
    if reply.body is None:
        return Response(status_code=reply.status, headers=dict(reply.headers))
    return Response(
        json_text(reply.body), status_code=reply.status, headers=dict(reply.headers), media_type=JSON_MEDIA
    )


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class RestServer(HubHttpServer):
    """A system's HTTP API served on a background thread (API and control plane).

    Args:
        system: The system whose vendor API is served.
        tokens: {secret: principal}; default: one fresh token for principal ``harness``.
        hub: The hub (default: a new one, closed with the server).
        host: Interface (loopback by default).
        port: Port (0: a free one).
    """

    def __init__(
        self,
        system: str,
        *,
        tokens: Mapping[str, str] | None = None,
        hub: Hub | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.system = system
        self.api, _ = system_api(system)
        super().__init__(
            lambda hub, tokens: create_rest_app(hub, system=system, tokens=tokens),
            tokens=tokens,
            hub=hub,
            host=host,
            port=port,
        )

    @property
    def api_url(self) -> str:
        """The API's base URL for a client (``http://127.0.0.1:PORT/api/``): each token's default world."""
        return f"{self.base_url}{self.api.base_path}"

    def env_url(self, env_id: str) -> str:
        """The API's base URL routed to ``env_id`` (``http://127.0.0.1:PORT/envs/<id>/api/``)."""
        return f"{self.base_url}{ENV_PREFIX}{env_id}{self.api.base_path}"
