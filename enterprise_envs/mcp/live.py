"""Serving from Python: a hub behind an HTTP server thread, and live Gym envs served over MCP."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.mcp.app import create_app
from enterprise_envs.mcp.hub import Entry, Episode, Hub, World, check_scenario, new_id
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.world import world_key
from enterprise_envs.serving import ENV_HEADER, ENV_PARAM, HubHttpServer


class HubServer(HubHttpServer):
    """A hub served over HTTP on a background thread (MCP endpoint and control plane).

    Args:
        system: The system whose tools the endpoint serves (episodes: a world key); None with
            ``suite``.
        surface: Its surface.
        episodes: Serve episodes instead of worlds.
        tokens: {secret: principal}; default: one fresh token for principal ``harness``.
        hub: The hub (default: a new one, closed with the server).
        host: Interface (loopback by default).
        port: Port (0: a free one).
        path: The MCP endpoint's path.
        suite: Serve episodes of any scenario of this suite (a Gym id) instead of one world's.
    """

    def __init__(
        self,
        system: str | None = None,
        surface: str = "typed",
        *,
        episodes: bool = False,
        tokens: dict[str, str] | None = None,
        hub: Hub | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        path: str = "/mcp",
        suite: str | None = None,
    ) -> None:
        self.system = system
        self.suite = suite
        self.surface = surface
        self.episodes = episodes or suite is not None
        self.path = path

        def make_app(hub: Hub, tokens: dict[str, str]) -> Any:
            return create_app(
                hub,
                system=system,
                surface=surface,
                episodes=self.episodes,
                tokens=tokens,
                path=path,
                suite=suite,
            )

        super().__init__(make_app, tokens=tokens, hub=hub, host=host, port=port)

    @property
    def mcp_base(self) -> str:
        """The MCP endpoint's URL, without an env id."""
        return f"{self.base_url}{self.path}"

    def mcp_url(self, env_id: str) -> str:
        """The MCP endpoint's URL routed to ``env_id``."""
        return f"{self.mcp_base}?{ENV_PARAM}={env_id}"


@dataclass
class ServedEnv:
    """A live env registered in a hub and reachable over MCP.

    Attributes:
        env_id: Its id in the hub (``?env=`` / ``X-Env-Id``).
        entry: The hub entry (a :class:`World` or an :class:`Episode`).
        server: The HTTP server it is reachable through.
        url: The MCP URL, routed to this env.
        token: The bearer token to send.
    """

    env_id: str
    entry: Entry
    server: HubServer
    url: str
    token: str
    owns_server: bool = False
    closed: bool = field(default=False, repr=False)

    @property
    def headers(self) -> dict[str, str]:
        """Headers for clients that route by header instead of the URL."""
        return {"Authorization": f"Bearer {self.token}", ENV_HEADER: self.env_id}

    def verdict(self) -> dict[str, Any]:
        """Episode mode: end the episode if running and return its verdict record.

        The record is the Gym env's final ``info`` (outcome, verdict, diff, messages, ...) plus
        reward, terminated and truncated.
        """
        if not isinstance(self.entry, Episode):
            raise TypeError("a world has no verdict: step the Gym env with {'end': true}")
        return self.entry.end()

    def close(self) -> None:
        """Unregister the env (the env itself stays open) and stop the server if owned."""
        if self.closed:
            return
        self.closed = True
        if self.server.hub.find(self.entry.owner, self.env_id) is self.entry:
            self.server.hub.remove(self.entry.owner, self.env_id)
        if self.owns_server:
            self.server.stop()

    def __enter__(self) -> ServedEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_env(
    env: Any,
    *,
    episode: bool = False,
    server: HubServer | None = None,
    env_id: str | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
) -> ServedEnv:
    """Serve a live Gym env's world (or a Backend) over MCP, so a harness can act through MCP.

    Args:
        env: A reset :class:`~enterprise_envs.env.EnterpriseEnv` (wrappers are fine) or a
            :class:`~enterprise_envs.mocks._core.backend.Backend`.
        episode: Serve the env as an episode: tool calls, ``send_message_to_user`` and
            ``end_conversation`` become env steps (budget, transcript, verdict as in Gym);
            :meth:`ServedEnv.verdict` returns the verdict. Otherwise (world mode) tool calls
            go straight to the env's backend and the Gym side verifies with ``{"end": true}``.
        server: Register on this running :class:`HubServer` (one server, many envs; a suite's
            server takes episodes of any scenario of the suite); default: start one for this env
            on ``host:port``, stopped by :meth:`ServedEnv.close`.
        env_id: The id to register under (default: a fresh one).
        host: Interface of the server started here (loopback by default).
        port: Its port (0: a free one).

    Do not step the env from Python while an MCP client is acting on it.
    """
    target = env.unwrapped if hasattr(env, "unwrapped") else env
    if isinstance(target, Backend):
        if episode:
            raise TypeError("a Backend has no user or scenario; serve an EnterpriseEnv as an episode")
        system, surface = target.system.name, target.surface_name
    else:
        if getattr(target, "instance", None) is None:
            raise ValueError("reset the env before serving it")
        system, surface = world_key(target.instance.scenario.systems), target.surface
    owns_server = server is None
    if server is None:
        server = HubServer(system, surface, episodes=episode, host=host, port=port)
    elif server.suite is not None:
        if not episode or server.surface != surface:
            raise ValueError(f"this server serves {server.suite}/{server.surface} episodes")
        check_scenario(target.instance.scenario.id, server.suite)
    elif (server.system, server.surface, server.episodes) != (system, surface, episode):
        raise ValueError(
            f"this server serves {server.system}/{server.surface} "
            f"{'episodes' if server.episodes else 'worlds'}; the env is {system}/{surface}"
        )
    env_id = env_id or new_id("ep" if episode else "w")
    entry: Entry
    if episode:
        entry = Episode(env_id, server.owner, target, owned=False)
    elif isinstance(target, Backend):
        entry = World(env_id, server.owner, target, owned=False)
    else:
        entry = World(env_id, server.owner, lambda: target.backend, owned=False)
    server.hub.add(entry)
    if owns_server:
        try:
            server.start()
        except Exception:
            server.hub.remove(entry.owner, env_id)
            raise
    return ServedEnv(env_id, entry, server, server.mcp_url(env_id), server.token, owns_server)
