"""The vendors' own REST APIs over HTTP: systems' HTTP APIs (:class:`HttpApi`) served on a hub's envs.

One Starlette app serves:

- the systems' APIs (``System.http_api()``: Slack's ``/api/<method>``, ServiceNow's
  ``/api/now/table/...``, Okta's ``/api/v1/...``; an episode of several systems gets them side
  by side): every request is matched to a route, its body read, its credentials checked the
  vendor's way, and its tool called on the env of the token's principal, through
  ``Backend.call`` like any other call (an episode's as an env step); the result goes out with
  the vendor's status, headers and body, its URLs pointing where the API is served.
- ``/control/...``: the control plane every transport shares (:class:`ControlPlane`), with
  ``Authorization: Bearer <token>`` whatever the vendor's own scheme.

Routing, as in MCP: a request acts on its principal's ``default`` env (made on first use),
or on the env it names, by the path prefix ``/envs/<id>`` (``/envs/w-3f0c.../api/auth.test``:
for clients that only take a base URL) or an ``X-Env-Id`` header. A token reaches only its own
envs; another token's id is unknown to it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio.to_thread
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route as StarletteRoute

from enterprise_envs.mcp.hub import Entry, Hub, QuotaError, suite_of
from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.http import HttpApi, Problem, Rejection, Reply, parse_body, served_at
from enterprise_envs.mocks._core.inputs import json_text
from enterprise_envs.mocks._core.mcp import RouteError, run_locked
from enterprise_envs.mocks._core.world import tool_name, world_systems
from enterprise_envs.serving import (
    ENV_HEADER,
    MAX_BODY_BYTES,
    TOKENS_ENV,
    BodyLimit,
    ControlPlane,
    HubHttpServer,
    bearer_owner,
)

_SLASHES = re.compile(r"/{2,}")
#: The path prefix naming the env a request acts on (``/envs/<id>/...``).
ENV_PREFIX = "/envs/"
#: The methods the API route takes (a method no route of the API has gets its vendor's answer).
METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
JSON_MEDIA = "application/json; charset=utf-8"


@dataclass(frozen=True)
class ServedApi:
    """One system's HTTP API as a server serves it.

    Attributes:
        system: The system.
        api: Its HTTP API.
        schemas: Its tools' input schemas by tool name (wire text is read as they type it).
    """

    system: str
    api: HttpApi
    schemas: Mapping[str, Mapping[str, Any]]


def system_api(system: str) -> ServedApi:
    """A system's HTTP API and its tools' input schemas.

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
    return ServedApi(system, api, schemas)


def systems_served(system: str | None, suite: str | None) -> tuple[str, ...]:
    """The systems whose APIs a server of ``system`` (a system or world key) or ``suite`` serves.

    Raises:
        ValueError: An unknown suite.
    """
    return suite_of(suite).systems if suite is not None else world_systems(system or "")


def served_apis(systems: Sequence[str]) -> list[ServedApi]:
    """The HTTP APIs of ``systems`` (one server serves them side by side), on one surface.

    Their paths must not overlap: each request is the API whose ``path_prefix`` is the longest
    prefix of its path (Slack's ``/api/``, ServiceNow's ``/api/now/``, Okta's ``/api/v1/``).

    Raises:
        KeyError: A system without an HTTP API.
        ValueError: Two APIs on the same base path, or on different surfaces (an episode is
            played on one).
    """
    apis = [system_api(system) for system in systems]
    prefixes = [served.api.path_prefix for served in apis]
    if len(set(prefixes)) != len(prefixes):
        raise ValueError(f"the APIs of {', '.join(systems)} share a path prefix: {prefixes}")
    surfaces = {served.api.surface for served in apis}
    if len(surfaces) > 1:
        raise ValueError(f"the APIs of {', '.join(systems)} are on different surfaces: {sorted(surfaces)}")
    return apis


def create_rest_app(
    hub: Hub,
    *,
    system: str | None = None,
    tokens: Mapping[str, str],
    episodes: bool = False,
    suite: str | None = None,
) -> Starlette:
    """The Starlette app serving vendors' HTTP APIs on ``hub``'s envs, with the control plane.

    Args:
        hub: The envs to serve (shared with any other transport over it).
        system: The system whose API is served, or (episodes) a world key whose systems' APIs
            are all served (``itsm+identity+chat``: ServiceNow's, Okta's and Slack's side by side).
        tokens: {secret: principal}; at least one. A request presents the secret the vendor's
            way (``HttpApi.auth``); the control plane takes it as a bearer token.
        episodes: Serve episodes (each principal's calls act on its episodes, made on the control
            plane or from the hub's episode defaults) instead of worlds.
        suite: Instead of ``system``: serve episodes of any scenario of this suite, with the APIs
            of every system it holds.

    Raises:
        ValueError: No token, or not exactly one of ``system`` and ``suite``.
        KeyError: Unknown system, or one without an HTTP API.
    """
    if not tokens:
        raise ValueError(f"HTTP serving needs at least one token (--token or {TOKENS_ENV})")
    if (system is None) == (suite is None):
        raise ValueError("serve a system (or world key) or a suite: give exactly one")
    episodes = episodes or suite is not None
    systems = systems_served(system, suite)
    if not episodes and len(systems) > 1:
        raise ValueError(f"worlds are of one system; {system} serves episodes (episodes=True)")
    apis = served_apis(systems)
    surface = apis[0].api.surface

    def links(base: str, entry: Entry) -> dict[str, Any]:
        # The APIs of the systems this env holds (a suite's episode may hold fewer than it serves).
        held = world_systems(entry.system)
        urls = {
            served.system: f"{base}{ENV_PREFIX}{entry.id}{served.api.base_path}"
            for served in apis
            if served.system in held
        }
        single = {"api_url": next(iter(urls.values()))} if len(urls) == 1 else {}
        return {**single, "api_urls": urls}

    control = ControlPlane(
        hub,
        system=system,
        surface=surface,
        episodes=episodes,
        owner_of=bearer_owner(tokens),
        links=links,
        about={
            "transport": "rest",
            "apis": {
                served.system: {"api": served.api.name, "base_path": served.api.base_path} for served in apis
            },
        },
        suite=suite,
    )
    gateway = Gateway(hub, apis, tokens, episodes=episodes, system=system, suite=suite)
    api_route = StarletteRoute("/{path:path}", gateway.handle, methods=METHODS)
    app = Starlette(routes=[*control.routes(), api_route])
    app.add_middleware(BodyLimit, max_bytes=MAX_BODY_BYTES)
    return app


class Gateway:
    """Serves HTTP APIs' requests on a hub's envs (one instance per app).

    Args:
        hub: The envs.
        apis: The APIs served (:func:`served_apis`).
        tokens: {secret: principal}.
        episodes: Requests act on episodes (the tool call is an env step) instead of worlds.
        system: The system or world key the envs must be (None with ``suite``).
        suite: The suite whose episodes are served.
    """

    def __init__(
        self,
        hub: Hub,
        apis: Sequence[ServedApi],
        tokens: Mapping[str, str],
        *,
        episodes: bool = False,
        system: str | None = None,
        suite: str | None = None,
    ) -> None:
        self.hub = hub
        # Longest prefix first: the first whose prefix starts the request's path is its API.
        self.apis = sorted(apis, key=lambda served: len(served.api.path_prefix), reverse=True)
        self.tokens = dict(tokens)
        self.kind = "episode" if episodes else "world"
        self.system = system
        self.suite = suite

    def api_for(self, path: str) -> ServedApi:
        """The API a path belongs to (the first served answers paths none claims)."""
        for served in self.apis:
            if path.startswith(served.api.path_prefix):
                return served
        return self.apis[-1]

    async def handle(self, request: Request) -> Response:
        """One request of an API: route, read, authenticate, call, answer as the vendor does."""
        method = request.method
        # Repeated slashes are one (as most servers read them, Okta's too): a client given a
        # base URL ending in "/" sends "//api/v1/...".
        path = _SLASHES.sub("/", request.scope["path"])
        env_id = request.headers.get(ENV_HEADER) or None
        prefix = ""
        if path.startswith(ENV_PREFIX):
            env_id, slash, rest = path[len(ENV_PREFIX) :].partition("/")
            prefix, path = f"{ENV_PREFIX}{env_id}", slash + rest
        served = self.api_for(path)
        api = served.api
        if prefix and not env_id:
            return _reply(api.reject(Rejection(Problem.NO_ROUTE, method, path, "no env id after /envs/")))
        authorization = request.headers.get("authorization")
        if api.authenticate_first:
            owner = self._owner(api, api.auth.credential(authorization), method, path)
            if isinstance(owner, Reply):
                return _reply(owner)
        found = api.match(method, path)
        if isinstance(found, Rejection):
            return _reply(api.reject(found))
        route, params = found
        raw = await request.body()
        body = parse_body(method, path, request.headers.get("content-type"), raw, api.bodies)
        if isinstance(body, Rejection):
            return _reply(api.reject(body))
        if not api.authenticate_first:
            form = body.values if body.form else None
            owner = self._owner(api, api.auth.credential(authorization, form), method, path)
            if isinstance(owner, Reply):
                return _reply(owner)
        try:
            entry = await self._entry(owner, env_id)
            systems = world_systems(entry.system)
            if served.system not in systems:
                raise RouteError(f"env {entry.id!r} holds no {served.system} system ({entry.system})")
            arguments = api.arguments(
                route, params, request.query_params.multi_items(), body, served.schemas[route.tool]
            )
            tool = tool_name(served.system, route.tool, systems)
            origin = f"{str(request.base_url).rstrip('/')}{prefix}"
            result = await run_locked(entry.lock, _call_at, origin, entry, tool, arguments, api.surface)
        except QuotaError as error:
            return _error(error.status, str(error))
        except RouteError as error:
            # The serving layer's refusal (an env this token does not hold, an episode that is
            # over, a server shutting down), not the vendor's: it has no word for envs.
            return _error(404, str(error))
        return _reply(api.reply(result))

    def _owner(self, api: HttpApi, secret: str | None, method: str, path: str) -> str | Reply:
        """The principal of the credentials a request presents, or the vendor's refusal."""
        if secret is None:
            return api.reject(Rejection(Problem.NO_CREDENTIALS, method, path, "no credentials"))
        owner = self.tokens.get(secret)
        if owner is None:
            return api.reject(Rejection(Problem.BAD_CREDENTIALS, method, path, "unknown credentials"))
        return owner

    async def _entry(self, owner: str, env_id: str | None) -> Entry:
        """The env a request acts on; an owner's default one is made off the event loop."""
        entry = self.hub.lookup(owner, env_id, system=self.system, kind=self.kind, suite=self.suite)
        if entry is None:
            entry = await anyio.to_thread.run_sync(
                lambda: self.hub.resolve(owner, env_id, system=self.system, kind=self.kind, suite=self.suite)
            )
        return entry


def _call_at(origin: str, entry: Entry, tool: str, arguments: dict[str, Any], surface: str) -> CallResult:
    """``entry.call`` with the vendor's URLs in the answer starting at ``origin`` (where it is served)."""
    with served_at(origin):
        return entry.call(tool, arguments, surface=surface)


def _reply(reply: Reply) -> Response:
    if reply.body is None:
        return Response(status_code=reply.status, headers=dict(reply.headers))
    return Response(
        json_text(reply.body), status_code=reply.status, headers=dict(reply.headers), media_type=JSON_MEDIA
    )


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class RestServer(HubHttpServer):
    """Vendors' HTTP APIs served on a background thread (APIs and control plane).

    Args:
        system: The system whose vendor API is served, or (episodes) a world key.
        suite: Instead of ``system``: episodes of this suite, with every API it holds.
        episodes: Serve episodes (the hub's episode defaults or the control plane make them).
        tokens: {secret: principal}; default: one fresh token for principal ``harness``.
        hub: The hub (default: a new one, closed with the server).
        host: Interface (loopback by default).
        port: Port (0: a free one).
        tls: Serve HTTPS with a self-signed certificate made at start (:attr:`certificate`
            is its PEM file, for the client to trust).
    """

    def __init__(
        self,
        system: str | None = None,
        *,
        suite: str | None = None,
        episodes: bool = False,
        tokens: Mapping[str, str] | None = None,
        hub: Hub | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        tls: bool = False,
    ) -> None:
        self.system = system
        self.suite = suite
        self.apis = {served.system: served.api for served in served_apis(systems_served(system, suite))}
        super().__init__(
            lambda hub, tokens: create_rest_app(
                hub, system=system, tokens=tokens, episodes=episodes, suite=suite
            ),
            tokens=tokens,
            hub=hub,
            host=host,
            port=port,
            tls=tls,
        )

    @property
    def api(self) -> HttpApi:
        """The API served (the first, when several are)."""
        return next(iter(self.apis.values()))

    @property
    def api_url(self) -> str:
        """The API's base URL for a client (``http://127.0.0.1:PORT/api/``): each token's default env."""
        return f"{self.base_url}{self.api.base_path}"

    def env_url(self, env_id: str, system: str | None = None) -> str:
        """An API's base URL routed to ``env_id`` (``http://127.0.0.1:PORT/envs/<id>/api/``).

        Args:
            env_id: The env.
            system: Whose API (default: the first served).
        """
        api = self.apis[system] if system is not None else self.api
        return f"{self.base_url}{ENV_PREFIX}{env_id}{api.base_path}"
