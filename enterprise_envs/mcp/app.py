"""The HTTP app: the MCP endpoint, the control plane, bearer-token auth, and a server thread.

One Starlette app serves:

- ``/mcp`` (streamable HTTP, stateless, JSON responses): the MCP endpoint of one system and
  surface, in world or episode mode. Calls route by ``?env=<id>`` or ``X-Env-Id``.
- ``/control/...``: the control plane (create, list and delete envs or episodes, reset a world,
  end an episode and get its verdict). Plain HTTP + JSON, never an MCP tool.

Both need ``Authorization: Bearer <token>`` (``/control/health`` excepted); a token maps to a
principal, and a principal reaches only the envs created for it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import anyio.to_thread
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from enterprise_envs.mcp.hub import (
    DEFAULT_ID,
    Entry,
    Episode,
    EpisodeDefaults,
    Hub,
    QuotaError,
    World,
    check_scenario,
)
from enterprise_envs.mcp.servers import ENV_PARAM, HUB_STATE, episode_server_for, server_for, suite_server_for
from enterprise_envs.mocks._core.mcp import RouteError
from enterprise_envs.mocks._core.system import WORLD_SIZES
from enterprise_envs.mocks._core.world import world_key

#: Environment variable holding tokens: comma-separated ``name=secret`` or ``secret``.
TOKENS_ENV = "ENTERPRISE_ENVS_TOKENS"
MCP_PATH = "/mcp"
CONTROL = "/control"
#: The largest request body read (a JSON-RPC call with an 8,000-character message is ~10 KB).
MAX_BODY_BYTES = 1 << 20


def parse_tokens(values: Iterable[str]) -> dict[str, str]:
    """Token specs -> {secret: principal}.

    Each value is ``name=secret`` or a bare ``secret`` (principal ``token-<hash prefix>``,
    stable across restarts); values may be comma-separated. Two secrets may share a name (both
    reach the same envs).

    Raises:
        ValueError: An empty secret or name.
    """
    tokens: dict[str, str] = {}
    for value in values:
        for part in value.split(","):
            part = part.strip()
            if not part:
                continue
            name, _, secret = part.rpartition("=") if "=" in part else ("", "", part)
            name, secret = name.strip(), secret.strip()
            if not secret or ("=" in part and not name):
                raise ValueError(f"bad token spec {part!r}: use NAME=SECRET or SECRET")
            tokens[secret] = name or "token-" + hashlib.sha256(secret.encode()).hexdigest()[:8]
    return tokens


def tokens_from_env() -> dict[str, str]:
    """Tokens from ``ENTERPRISE_ENVS_TOKENS`` (empty if unset)."""
    return parse_tokens([os.environ.get(TOKENS_ENV, "")])


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
    control = ControlPlane(hub, system=system, surface=surface, episodes=episodes, mcp_path=path, suite=suite)
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


class BodyLimit:
    """ASGI middleware: a request body over ``max_bytes`` gets 413 before the app reads any of it.

    The body is read here (bounded) and replayed to the app, so a client streaming an endless
    body costs at most ``max_bytes`` of memory and never reaches a handler.
    """

    def __init__(self, app: Any, max_bytes: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Serve one request (HTTP only; lifespan and other scopes pass through)."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_bytes):
            await self._too_large(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await self._too_large(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], receive), send)

    async def _too_large(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        response = _error(413, f"the request body is larger than {self.max_bytes} bytes")
        await response(scope, receive, send)


def _replay(messages: list[dict[str, Any]], then: Any) -> Any:
    """An ASGI receive that gives ``messages``, then whatever ``then`` (the real one) gives."""
    pending = list(messages)

    async def receive() -> dict[str, Any]:
        if pending:
            return pending.pop(0)
        return await then()

    return receive


class ControlPlane:
    """The ``/control`` routes (JSON over HTTP, same bearer tokens as the MCP endpoint)."""

    def __init__(
        self,
        hub: Hub,
        *,
        system: str | None,
        surface: str,
        episodes: bool,
        mcp_path: str,
        suite: str | None = None,
    ) -> None:
        self.hub = hub
        self.system = system
        self.surface = surface
        self.episodes = episodes or suite is not None
        self.mcp_path = mcp_path
        self.suite = suite

    def routes(self) -> list[Route]:
        """The routes, for ``create_streamable_http_app(routes=...)``."""
        return [
            Route(f"{CONTROL}/health", self.health, methods=["GET"]),
            Route(f"{CONTROL}/envs", self.list_envs, methods=["GET"]),
            Route(f"{CONTROL}/envs", self.create_env, methods=["POST"]),
            Route(f"{CONTROL}/envs/{{env_id}}", self.get_env, methods=["GET"]),
            Route(f"{CONTROL}/envs/{{env_id}}", self.delete_env, methods=["DELETE"]),
            Route(f"{CONTROL}/envs/{{env_id}}/reset", self.reset_env, methods=["POST"]),
            Route(f"{CONTROL}/episodes", self.list_episodes, methods=["GET"]),
            Route(f"{CONTROL}/episodes", self.create_episode, methods=["POST"]),
            Route(f"{CONTROL}/episodes/{{env_id}}", self.get_episode, methods=["GET"]),
            Route(f"{CONTROL}/episodes/{{env_id}}", self.delete_env, methods=["DELETE"]),
            Route(f"{CONTROL}/episodes/{{env_id}}/verdict", self.get_verdict, methods=["GET"]),
            Route(f"{CONTROL}/episodes/{{env_id}}/verify", self.verify, methods=["POST"]),
        ]

    # -- helpers -------------------------------------------------------------------------------

    @staticmethod
    def _owner(request: Request) -> str | None:
        token = getattr(request.scope.get("user"), "access_token", None)
        return getattr(token, "client_id", None)

    def _mcp_url(self, request: Request, env_id: str) -> str:
        base = str(request.base_url).rstrip("/")
        return f"{base}{self.mcp_path}?{ENV_PARAM}={env_id}"

    async def _entry(self, request: Request, owner: str, kind: str | None = None) -> Entry:
        env_id = request.path_params["env_id"]
        if env_id == DEFAULT_ID and self.hub.find(owner, DEFAULT_ID) is None:
            # The default env exists once used; make it now (in a worker thread: an episode's
            # opening may come from an LLM user) so the control plane can show it.
            entry = await anyio.to_thread.run_sync(
                lambda: self.hub.resolve(owner, None, system=self.system, kind=self._kind, suite=self.suite)
            )
        else:
            entry = self.hub.get(owner, env_id)
        if kind is not None and entry.kind != kind:
            raise RouteError(f"env {env_id!r} is not {'an' if kind == 'episode' else 'a'} {kind}")
        return entry

    @property
    def _kind(self) -> str:
        return "episode" if self.episodes else "world"

    async def _guarded(self, request: Request, handler: Any) -> Response:
        """Authenticate, run ``handler(owner)``, map errors to JSON responses."""
        owner = self._owner(request)
        if owner is None:
            return _error(401, "not authenticated: send Authorization: Bearer <token>", bearer=True)
        try:
            return await handler(owner)
        except QuotaError as error:
            return _error(error.status, str(error))
        except RouteError as error:
            return _error(404, str(error))
        except (ValueError, KeyError, TypeError) as error:
            return _error(400, str(error).strip("'\""))

    @staticmethod
    async def _body(request: Request) -> dict[str, Any]:
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise ValueError("the request body is not valid JSON") from None
        if not isinstance(data, dict):
            raise ValueError("the request body must be a JSON object")
        return data

    # -- routes --------------------------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        """``GET /control/health``: liveness and what this server serves (no auth)."""
        served = {"suite": self.suite} if self.suite is not None else {"system": self.system}
        return JSONResponse(
            {"status": "ok", **served, "surface": self.surface, "mode": self._kind, "mcp_path": self.mcp_path}
        )

    async def list_envs(self, request: Request) -> Response:
        """``GET /control/envs``: the caller's envs (worlds and episodes)."""

        async def run(owner: str) -> Response:
            return JSONResponse({"envs": [entry.describe() for entry in self.hub.entries(owner)]})

        return await self._guarded(request, run)

    async def create_env(self, request: Request) -> Response:
        """``POST /control/envs`` ``{"seed": int, "size": "tiny|default|large"}``: a new world."""

        async def run(owner: str) -> Response:
            if self.episodes:
                raise ValueError("this server serves episodes: POST /control/episodes")
            body = await self._body(request)
            _only(body, {"seed", "size"})
            seed = _int(body, "seed")
            size = body.get("size")
            if size is not None and size not in WORLD_SIZES:
                raise ValueError(f"size must be one of {list(WORLD_SIZES)}")
            world = await anyio.to_thread.run_sync(
                lambda: self.hub.create_world(owner, self.system, size=size, seed=seed)
            )
            return JSONResponse(
                {**world.describe(), "mcp_url": self._mcp_url(request, world.id)}, status_code=201
            )

        return await self._guarded(request, run)

    async def get_env(self, request: Request) -> Response:
        """``GET /control/envs/{id}``."""

        async def run(owner: str) -> Response:
            entry = await self._entry(request, owner)
            return JSONResponse({**entry.describe(), "mcp_url": self._mcp_url(request, entry.id)})

        return await self._guarded(request, run)

    async def delete_env(self, request: Request) -> Response:
        """``DELETE /control/envs/{id}`` (or ``/control/episodes/{id}``): release it."""

        async def run(owner: str) -> Response:
            entry = self.hub.get(owner, request.path_params["env_id"])
            await anyio.to_thread.run_sync(self.hub.remove, owner, entry.id)
            return JSONResponse({"deleted": entry.id})

        return await self._guarded(request, run)

    async def reset_env(self, request: Request) -> Response:
        """``POST /control/envs/{id}/reset`` ``{"seed": int}``: restore the world."""

        async def run(owner: str) -> Response:
            entry = await self._entry(request, owner, "world")
            assert isinstance(entry, World)
            body = await self._body(request)
            _only(body, {"seed"})
            seed = _int(body, "seed")
            await anyio.to_thread.run_sync(lambda: entry.reset(seed))
            return JSONResponse(entry.describe())

        return await self._guarded(request, run)

    async def list_episodes(self, request: Request) -> Response:
        """``GET /control/episodes``: the caller's episodes, with status and outcome."""

        async def run(owner: str) -> Response:
            episodes = [entry.describe() for entry in self.hub.entries(owner, kind="episode")]
            return JSONResponse({"episodes": episodes})

        return await self._guarded(request, run)

    async def create_episode(self, request: Request) -> Response:
        """``POST /control/episodes`` ``{"scenario": id, "seed": int}``: a new episode.

        Returns the id, the MCP URL and what the agent is given at the start: the user's
        opening message, the instructions (runbook), the tools and the budget.
        """

        async def run(owner: str) -> Response:
            if not self.episodes:
                raise ValueError("this server serves worlds: POST /control/envs (or serve --scenario)")
            body = await self._body(request)
            _only(body, {"scenario", "seed"})
            scenario = body.get("scenario")
            if scenario is not None and not isinstance(scenario, str):
                raise ValueError("scenario must be a scenario id")
            seed = _int(body, "seed")
            base = self.hub.episode_defaults or EpisodeDefaults()
            if self.suite is not None:
                # Without a scenario the seed draws one from the suite, as the suite's Gym env
                # does (the scenario of the default episode, if any, is not this episode's).
                defaults = dataclasses.replace(base, surface=self.surface, suite=self.suite, scenario=None)
            else:
                defaults = dataclasses.replace(base, surface=self.surface)
                scenario = scenario or defaults.scenario
                if scenario is None:
                    raise ValueError('which scenario? send {"scenario": "<id>"}')
            if scenario is not None:
                self._check_scenario(scenario)
            episode = await anyio.to_thread.run_sync(
                lambda: self.hub.create_episode(owner, scenario, seed=seed, defaults=defaults)
            )
            return JSONResponse(self._episode_start(request, episode), status_code=201)

        return await self._guarded(request, run)

    def _check_scenario(self, scenario: str) -> None:
        """Refuse a scenario this endpoint does not serve (before anything is built)."""
        found = check_scenario(scenario, self.suite)
        world = world_key(found.systems)
        if self.suite is None and world != self.system:
            raise ValueError(f"scenario {scenario!r} is a {world} scenario; this server serves {self.system}")

    def _episode_start(self, request: Request, episode: Episode) -> dict[str, Any]:
        info = episode.reset_info
        return {
            **episode.describe(),
            "mcp_url": self._mcp_url(request, episode.id),
            "opening_message": episode.opening,
            "instructions": info.get("instructions"),
            "title": info.get("title"),
            "budget": info.get("budget"),
            "tools": info.get("tools"),
        }

    async def get_episode(self, request: Request) -> Response:
        """``GET /control/episodes/{id}``: status, and what the agent was given at the start."""

        async def run(owner: str) -> Response:
            episode = await self._entry(request, owner, "episode")
            assert isinstance(episode, Episode)
            return JSONResponse(self._episode_start(request, episode))

        return await self._guarded(request, run)

    async def get_verdict(self, request: Request) -> Response:
        """``GET /control/episodes/{id}/verdict``: the verdict of an ended episode (409 if running)."""

        async def run(owner: str) -> Response:
            episode = await self._entry(request, owner, "episode")
            assert isinstance(episode, Episode)
            verdict = episode.verdict()
            if verdict is None:
                return _error(
                    409,
                    f"episode {episode.id!r} is still running: POST {CONTROL}/episodes/{episode.id}/verify "
                    "ends it and returns the verdict",
                )
            return JSONResponse(verdict)

        return await self._guarded(request, run)

    async def verify(self, request: Request) -> Response:
        """``POST /control/episodes/{id}/verify``: end the episode if running; its verdict."""

        async def run(owner: str) -> Response:
            episode = await self._entry(request, owner, "episode")
            assert isinstance(episode, Episode)
            verdict = await anyio.to_thread.run_sync(episode.end)
            return JSONResponse(verdict)

        return await self._guarded(request, run)


def _error(status: int, message: str, *, bearer: bool = False) -> JSONResponse:
    headers = {"WWW-Authenticate": "Bearer"} if bearer else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _only(body: Mapping[str, Any], allowed: set[str]) -> None:
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise ValueError(f"unknown field(s) {unknown}; allowed: {sorted(allowed)}")


def _int(body: Mapping[str, Any], key: str) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**31:
        raise ValueError(f"{key} must be an integer in [0, 2**31)")
    return value


class HttpServer:
    """Run an ASGI app with uvicorn on a background thread (tests, notebooks, :func:`serve_env`).

    Binds before starting, so ``port=0`` picks a free port (read it from :attr:`port`).
    ``stop()`` asks uvicorn to exit, waits a bounded time for in-flight requests, and joins the
    thread; use it as a context manager to be sure it runs.
    """

    def __init__(
        self, app: Any, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"
    ) -> None:
        self.app = app
        self.host = host
        self.requested_port = port
        self.log_level = log_level
        self.port = 0
        self._server: Any = None
        self._thread: threading.Thread | None = None
        self._socket: socket.socket | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @property
    def running(self) -> bool:
        """True while the server thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self, timeout: float = 15.0) -> HttpServer:
        """Start serving; returns once the app's startup is done.

        Raises:
            RuntimeError: Startup failed or took longer than ``timeout``.
        """
        import uvicorn

        if self._thread is not None:
            raise RuntimeError("already started")
        self._socket = bind_socket(self.host, self.requested_port)
        self.port = self._socket.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_level=self.log_level,
            lifespan="on",
            access_log=False,
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run,
            kwargs={"sockets": [self._socket]},
            name=f"mcp-http-{self.port}",
            daemon=True,
        )
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive():
                self._close_socket()
                raise RuntimeError("the HTTP server failed to start (see the log above)")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the HTTP server did not start within {timeout} s")
            time.sleep(0.01)
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving and join the thread (bounded: forces exit after ``timeout``)."""
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive() and self._server is not None:
                self._server.force_exit = True
                self._thread.join(timeout)
        self._close_socket()

    def _close_socket(self) -> None:
        if self._socket is not None:
            self._socket.close()

    def __enter__(self) -> HttpServer:
        if self._thread is None:
            self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 picks a free one."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must say TCP: asyncio only sets TCP_NODELAY on accepted sockets whose proto is
    # IPPROTO_TCP, and with Nagle on, small JSON responses wait out delayed ACKs (~40 ms).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def run_http(app: Any, *, host: str, port: int, log_level: str = "warning", banner: str = "") -> None:
    """Serve in the foreground until SIGINT/SIGTERM (the ``serve --transport http`` command).

    A signal starts a graceful shutdown (in-flight requests finish, 5 s at most; a second
    SIGINT forces it), then this returns normally so the caller can release its envs.
    """
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            # uvicorn re-raises the signal after shutting down, which kills the process before
            # the caller's cleanup runs; handle the signals here instead.
            if threading.current_thread() is not threading.main_thread():
                yield
                return

            def stop(signum: int, frame: Any) -> None:
                if self.should_exit and signum == signal.SIGINT:
                    self.force_exit = True
                self.should_exit = True

            previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for sig, handler in previous.items():
                    signal.signal(sig, handler)

    sock = bind_socket(host, port)
    if banner:
        print(banner.replace("{port}", str(sock.getsockname()[1])), file=sys.stderr, flush=True)
    config = uvicorn.Config(
        app, log_level=log_level, lifespan="on", access_log=False, timeout_graceful_shutdown=5
    )
    try:
        Server(config).run(sockets=[sock])
    finally:
        sock.close()
