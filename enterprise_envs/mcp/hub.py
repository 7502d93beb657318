"""The env hub: the live worlds and episodes one process serves, keyed by owner and env id.

An *owner* is the principal a bearer token maps to (``local`` for stdio and in-process use).
Env ids are looked up per owner, so a token can only reach the envs created for it: another
token's id is simply unknown to it. An entry's lock is its world's (the Backend's re-entrant
lock), so everything that touches one database is serialized; the hub's own lock only guards
its table.

Two kinds of entry:

- :class:`World`: a live Backend (one seeded world). Tool calls go straight to
  ``Backend.call`` (validation, access control, faults, one transaction each).
- :class:`Episode`: an :class:`~enterprise_envs.env.EnterpriseEnv` reset on one scenario
  instance. Tool calls, messages to the user and the end go through ``env.step``, so the
  budget, the transcript and the verdict are exactly the Gym env's.

An endpoint reaches the entries of what it serves (:meth:`Hub.resolve`): a system's worlds, the
episodes of one world (a world key, ``itsm+identity``), or the episodes of a suite, whatever
their worlds (``serve --suite``).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.faults import FaultConfig
from enterprise_envs.mocks._core.mcp import FULL_RESPONSE_KEYS, RouteError
from enterprise_envs.mocks._core.world import world_key, world_systems

if TYPE_CHECKING:
    from enterprise_envs.registry import Suite
    from enterprise_envs.scenarios.format import Scenario

#: The owner of stdio and in-process calls (no token).
LOCAL = "local"
#: The id a request without ``?env=`` / ``X-Env-Id`` is routed to.
DEFAULT_ID = "default"
#: Default quotas (see :class:`Quotas`; ``serve --max-envs`` and ``--max-memory-mb`` say it too).
MAX_ENVS_PER_OWNER = 32
MAX_BYTES_PER_OWNER = 512 * 2**20
#: HTTP-like status -> error kind (the first kind of each status).
_KIND_BY_STATUS = {kind.status: kind.value for kind in reversed(list(ErrorKind))}


class QuotaError(RouteError):
    """A request the caller's quota does not allow (HTTP 429, or 403 for a size never allowed).

    Attributes:
        status: 429 when the caller holds too much now (delete something and retry), 403 when
            the request can never be allowed here (a world size the server does not serve).
    """

    def __init__(self, message: str, status: int = 429) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class Quotas:
    """What one principal (bearer token) may hold on a server at once.

    Attributes:
        max_envs: Live worlds and episodes together.
        max_bytes: Their in-memory databases together (a default world is ~1.5 MB, a large
            one ~55 MB).
        sizes: The world sizes the server makes; None allows every size.
    """

    max_envs: int = MAX_ENVS_PER_OWNER
    max_bytes: int = MAX_BYTES_PER_OWNER
    sizes: frozenset[str] | None = None

    def check_size(self, size: str | None) -> None:
        """Raise a 403 :class:`QuotaError` for a world size this server does not make."""
        if size is not None and self.sizes is not None and size not in self.sizes:
            raise QuotaError(
                f"this server does not make {size!r} worlds (allowed: {', '.join(sorted(self.sizes))})", 403
            )


class Entry:
    """One live env of the hub: an id, an owner, a lock and a way to call tools."""

    kind = "entry"

    def __init__(self, env_id: str, owner: str, system: str) -> None:
        self.id = env_id
        self.owner = owner
        self.system = system
        self.created = time.time()

    #: The re-entrant lock every call on this entry takes.
    lock: Any

    def call(self, tool: str, arguments: Any, *, surface: str | None = None) -> CallResult:
        """Run one tool call (see :class:`enterprise_envs.mocks._core.mcp.CallTarget`)."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """JSON-ready summary for the control plane."""
        return {"env_id": self.id, "kind": self.kind, "system": self.system, "created": self.created}

    def backends(self) -> list[Backend]:
        """The live databases this entry holds (what its quota counts)."""
        return []

    def database_bytes(self) -> int:
        """Bytes of the entry's in-memory databases (what :attr:`Quotas.max_bytes` counts)."""
        return sum(backend.database_bytes() for backend in self.backends())

    def close(self) -> None:
        """Release what the entry owns."""


class World(Entry):
    """A live world: tool calls go to its Backend.

    Args:
        env_id: Id within the owner's envs.
        owner: Principal.
        backend: A Backend, or a callable returning the current one (a live Gym env's world
            changes backend when a scenario needs another world size).
        owned: Close the backend with the entry (False: a served Gym env's or caller's world).
        seed: The world seed (for the record).
    """

    kind = "world"

    def __init__(
        self,
        env_id: str,
        owner: str,
        backend: Backend | Callable[[], Backend],
        *,
        owned: bool = True,
        seed: int | None = None,
    ) -> None:
        self._backend = backend
        current = self.backend
        super().__init__(env_id, owner, current.system.name)
        self.owned = owned
        self.seed = seed
        self.size = current.size

    @property
    def backend(self) -> Backend:
        """The backend calls go to now."""
        backend = self._backend
        return backend if isinstance(backend, Backend) else backend()

    @property
    def lock(self) -> Any:  # type: ignore[override]
        """The backend's own lock (every path into the database takes it)."""
        return self.backend.lock

    def call(self, tool: str, arguments: Any, *, surface: str | None = None) -> CallResult:
        """Call a tool on the world (any surface of its system)."""
        return self.backend.call(tool, arguments, surface=surface)

    def reset(self, seed: int | None = None) -> None:
        """Restore the world (optionally another seed's) and make it the diff's baseline.

        Raises:
            ValueError: The world is not the hub's (a served Gym env's world is reset by its env).
        """
        if not self.owned:
            raise ValueError(f"env {self.id!r} is a served env's world: reset it through its env")
        backend = self.backend
        with backend.lock:
            backend.reset(world_seed=seed)
            backend.mark_start()
            self.seed = backend.world_seed

    def set_faults(self, faults: FaultConfig) -> None:
        """Inject ``faults`` into the world's calls from now on (a fresh injector and log).

        Raises:
            ValueError: The world is not the hub's (a served Gym env's faults are its scenario's).
        """
        if not self.owned:
            raise ValueError(f"env {self.id!r} is a served env's world: its faults are its scenario's")
        backend = self.backend
        with backend.lock:
            backend.set_faults(faults)

    def backends(self) -> list[Backend]:
        """The world's database (none when it is a served env's: its env owns it)."""
        return [self.backend] if self.owned else []

    def describe(self) -> dict[str, Any]:
        """Id, system, size, world seed."""
        return {**super().describe(), "size": self.size, "seed": self.seed}

    def close(self) -> None:
        """Close the backend if this entry made it."""
        if self.owned and isinstance(self._backend, Backend):
            self._backend.close()


class Episode(Entry):
    """A scenario instance played through MCP, on a reset :class:`EnterpriseEnv`.

    Args:
        env_id: Id within the owner's envs.
        owner: Principal.
        env: The env, already reset on the instance (``gymnasium.make`` wrappers are fine).
        seed: The reset seed (for the record).
        opening: The user's opening message (what ``reset`` returned), if known.
        reset_info: What ``reset`` returned as info, if known.
        owned: Close the env with the entry.
    """

    kind = "episode"

    def __init__(
        self,
        env_id: str,
        owner: str,
        env: Any,
        *,
        seed: int | None = None,
        opening: str | None = None,
        reset_info: dict[str, Any] | None = None,
        owned: bool = True,
    ) -> None:
        self.env = env.unwrapped
        if self.env.instance is None:
            raise ValueError("reset the env before serving it as an episode")
        scenario = self.env.instance.scenario
        super().__init__(env_id, owner, world_key(scenario.systems))
        # The world's own lock: every step (tool, user turn, verification) reads or writes the
        # episode's database, and one lock means the adapter's "is it free?" test is exact.
        self.lock = self.env.backend.lock
        self.scenario = scenario.id
        self.surface = self.env.surface
        self.seed = seed
        self.opening = opening
        self.reset_info = reset_info or {}
        self.owned = owned
        self.reward = 0.0
        self.final: dict[str, Any] | None = None

    @property
    def over(self) -> bool:
        """True once the episode ended (the user stopped, the agent ended it, the budget ran out)."""
        return self.final is not None

    def call(self, tool: str, arguments: Any, *, surface: str | None = None) -> CallResult:
        """A tool call as an env step (budget, transcript and fault handling as in Gym)."""
        with self.lock:
            if surface is not None and surface != self.surface:
                raise RouteError(
                    f"episode {self.id!r} is played on the {self.surface} surface, not {surface}"
                )
            self._check_running()
            faults_before = len(self.env.backend.faults.log)
            observation = self._step({"tool": tool, "arguments": arguments})
            if observation["role"] != "tool":
                raise RouteError(observation["content"] or "the call was not accepted")
            injected = len(self.env.backend.faults.log) > faults_before
            return result_from_content(tool, observation["content"], injected=injected)

    def message(self, text: Any) -> tuple[str, bool, bool]:
        """Say ``text`` to the user: (reply, conversation over, accepted).

        ``accepted`` is False when the env refused the action (an empty message counts as a
        malformed action, as in Gym); the reply is then the env's error text.
        """
        with self.lock:
            self._check_running()
            observation = self._step({"message": text})
            return observation["content"], self.over, observation["role"] == "user"

    def end(self) -> dict[str, Any]:
        """End the episode if it is running; the verdict record."""
        with self.lock:
            if not self.over:
                self._step({"end": True})
            assert self.final is not None
            return self.final

    def verdict(self) -> dict[str, Any] | None:
        """The verdict record if the episode is over, else None."""
        return self.final

    def _check_running(self) -> None:
        if self.over:
            raise RouteError(f"episode {self.id!r} is over; no more actions are accepted")

    def _step(self, action: dict[str, Any]) -> dict[str, str]:
        observation, reward, terminated, truncated, info = self.env.step(action)
        self.reward += float(reward)
        if terminated or truncated:
            self.final = {
                "episode_id": self.id,
                "scenario": self.scenario,
                "seed": self.seed,
                "reward": self.reward,
                "terminated": bool(terminated),
                "truncated": bool(truncated),
                **info,
            }
        return observation

    def backends(self) -> list[Backend]:
        """The databases of the episode's env (one per world size it has used)."""
        return self.env.worlds() if self.owned else []

    def describe(self) -> dict[str, Any]:
        """Id, scenario, seed, state and (once over) the outcome."""
        summary = {
            **super().describe(),
            "episode_id": self.id,
            "scenario": self.scenario,
            "seed": self.seed,
            "surface": self.surface,
            "status": "over" if self.over else "running",
            "steps": getattr(self.env, "steps", 0),
            "tool_calls": getattr(self.env, "tool_calls", 0),
        }
        if self.final is not None:
            summary["outcome"] = self.final.get("outcome")
            summary["reward"] = self.final.get("reward")
        return summary

    def close(self) -> None:
        """Close the env if this entry made it."""
        if self.owned:
            self.env.close()


def result_from_content(tool: str, content: str, *, injected: bool = False) -> CallResult:
    """Rebuild a CallResult from a tool observation (``CallResult.to_json`` output).

    Errors and full-response results are ``{"status", "headers", "body"}``; anything else is a
    successful body (reported as 200: the observation does not say 201).
    """
    try:
        payload = json.loads(content)
    except json.JSONDecodeError:
        return CallResult(tool, 200, content)
    if (
        isinstance(payload, dict)
        and set(payload) == FULL_RESPONSE_KEYS
        and isinstance(payload["status"], int)
    ):
        status = payload["status"]
        headers = payload["headers"] if isinstance(payload["headers"], dict) else {}
        error = _KIND_BY_STATUS.get(status, "internal") if status >= 400 else None
        return CallResult(tool, status, payload["body"], headers, error, injected and error is not None)
    return CallResult(tool, 200, payload)


@dataclass(frozen=True)
class EpisodeDefaults:
    """How the hub makes episodes: an owner's default one (``serve --scenario``/``--suite``) and others.

    Attributes:
        scenario: The scenario of an episode made without one; None: drawn from ``suite`` by
            the seed.
        seed: The reset seed of an episode made without one.
        surface: The tool surface.
        user: The user simulator (``rules``, ``llm`` or an object).
        user_model: The ``llm`` user's model (None: ``ENTERPRISE_ENVS_LLM_MODEL``).
        user_base_url: The ``llm`` user's endpoint (None: ``ENTERPRISE_ENVS_LLM_BASE_URL``).
        world_size: The world size (None: each scenario's own).
        faults: ``scenario``, ``off`` or a fault config.
        world_seed: The world seed.
        suite: The suite served (``serve --suite``): episodes are played as its Gym env plays
            them, a scenario it does not serve is refused, and without a scenario the seed
            draws one as ``gymnasium.make(suite).reset(seed=seed)`` does.
    """

    scenario: str | None = None
    seed: int = 0
    surface: str = "typed"
    user: Any = "rules"
    user_model: str | None = None
    user_base_url: str | None = None
    world_size: str | None = None
    faults: Any = "scenario"
    world_seed: int = 0
    suite: str | None = None


@dataclass(frozen=True)
class WorldDefaults:
    """How the hub makes an owner's default world."""

    size: str = "default"
    seed: int = 0


class Hub:
    """The envs a process serves: owner -> env id -> entry.

    Args:
        world_defaults: Size and seed of worlds made on demand (an owner's default world).
        episode_defaults: If set, an owner's default env is an episode of this scenario.
        quotas: What one owner may hold at once (:class:`Quotas`); the local owner (stdio,
            in-process) is exempt.
    """

    def __init__(
        self,
        *,
        world_defaults: WorldDefaults | None = None,
        episode_defaults: EpisodeDefaults | None = None,
        quotas: Quotas | None = None,
    ) -> None:
        self.world_defaults = world_defaults or WorldDefaults()
        self.episode_defaults = episode_defaults
        self.quotas = quotas or Quotas()
        self._entries: dict[tuple[str, str], Entry] = {}
        self._lock = threading.Lock()
        self._create_lock = threading.Lock()
        self._quota_lock = threading.Lock()
        self.closed = False

    # -- lookup -----------------------------------------------------------------------------

    def find(self, owner: str, env_id: str) -> Entry | None:
        """The owner's env ``env_id``, or None."""
        return self._entries.get((owner, env_id))

    def get(self, owner: str, env_id: str) -> Entry:
        """The owner's env ``env_id``.

        Raises:
            RouteError: No such env for this owner (another owner's id is just as unknown).
        """
        entry = self._entries.get((owner, env_id))
        if entry is None:
            raise RouteError(
                f"unknown env id {env_id!r} for this client: pass the id the control plane returned "
                "(?env=<id> in the URL or an X-Env-Id header)"
            )
        return entry

    def resolve(
        self, owner: str, env_id: str | None, *, system: str | None, kind: str, suite: str | None = None
    ) -> Entry:
        """The entry a call goes to: ``env_id``, or the owner's default env (made on first use).

        Args:
            owner: The caller's principal.
            env_id: The env id the request names (None: the owner's default env).
            system: The system (or world key) the endpoint serves; None with ``suite``.
            kind: ``world`` or ``episode``.
            suite: The suite whose episodes the endpoint serves (of any of its worlds).

        Raises:
            RouteError: Unknown id, or an env of another system, suite or kind than the endpoint
                serves.
        """
        entry = self.lookup(owner, env_id, system=system, kind=kind, suite=suite)
        if entry is None:
            entry = self._check(self._make_default(owner, system, kind), system, kind, suite)
        return entry

    def lookup(
        self, owner: str, env_id: str | None, *, system: str | None, kind: str, suite: str | None = None
    ) -> Entry | None:
        """Like :meth:`resolve`, but None (instead of making it) when the default env is not made yet.

        Never blocks on anything slow: the MCP servers call it on the event loop and make a
        default env (an LLM user may take seconds to open an episode) in a worker thread.
        """
        if self.closed:
            raise RouteError("the server is shutting down")
        if env_id is None or env_id == DEFAULT_ID:
            entry = self._entries.get((owner, DEFAULT_ID))
            if entry is None:
                return None
        else:
            entry = self.get(owner, env_id)
        return self._check(entry, system, kind, suite)

    @staticmethod
    def _check(entry: Entry, system: str | None, kind: str, suite: str | None = None) -> Entry:
        if kind == "episode" and entry.kind != "episode":
            raise RouteError(f"env {entry.id!r} is not an episode; this endpoint serves episodes")
        if suite is not None:
            scenario = getattr(entry, "scenario", None)
            if scenario is None or not suite_of(suite).serves(scenario, world_systems(entry.system)):
                raise RouteError(f"env {entry.id!r} is not an episode of {suite}, which this endpoint serves")
        elif entry.system != system:
            raise RouteError(f"env {entry.id!r} is a {entry.system} env; this endpoint serves {system}")
        return entry

    def entries(self, owner: str | None = None, kind: str | None = None) -> list[Entry]:
        """The owner's entries (all owners' if None), oldest first."""
        with self._lock:
            found = [
                entry
                for (entry_owner, _), entry in self._entries.items()
                if (owner is None or entry_owner == owner) and (kind is None or entry.kind == kind)
            ]
        return sorted(found, key=lambda entry: entry.created)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries())

    def __len__(self) -> int:
        return len(self._entries)

    # -- creation ----------------------------------------------------------------------------

    def usage(self, owner: str) -> tuple[int, int]:
        """(live envs, bytes of their databases) an owner holds now."""
        held = self.entries(owner)
        return len(held), sum(entry.database_bytes() for entry in held)

    def check_quota(self, owner: str, adding: Entry | None = None) -> None:
        """Raise :class:`QuotaError` if ``owner`` may not hold one more env (``adding``, if made).

        Checked before an env is made (so a client at its limit costs no world build) and again
        with the made env's real size before it is registered.
        """
        if owner == LOCAL:
            return
        quotas = self.quotas
        count, used = self.usage(owner)
        extra = adding.database_bytes() if adding is not None else 0
        if count >= quotas.max_envs:
            raise QuotaError(
                f"quota: this client holds {count} envs, the most allowed; delete some "
                "(DELETE /control/envs/<id>) and retry"
            )
        if used + extra > quotas.max_bytes or (adding is None and used >= quotas.max_bytes):
            mib = 2**20
            needs = f" and this one needs {extra / mib:.1f} MiB" if extra else ""
            raise QuotaError(
                f"quota: this client's envs hold {used / mib:.1f} MiB of the "
                f"{quotas.max_bytes / mib:.0f} MiB allowed{needs}; delete some and retry"
            )

    def add(self, entry: Entry) -> Entry:
        """Register an entry (its id must be new for its owner, and within the owner's quota)."""
        key = (entry.owner, entry.id)
        with self._quota_lock:  # a quota check and its insert are one step
            self.check_quota(entry.owner, entry)
            with self._lock:
                if self.closed:
                    raise RouteError("the server is shutting down")
                if key in self._entries:
                    raise ValueError(f"env id {entry.id!r} already exists for this client")
                self._entries[key] = entry
        return entry

    def create_world(
        self,
        owner: str,
        system: str,
        *,
        size: str | None = None,
        seed: int | None = None,
        env_id: str | None = None,
    ) -> World:
        """Make a fresh world for ``owner`` (size and seed default to ``world_defaults``)."""
        from enterprise_envs import registry

        found = registry.systems().get(system)
        if found is None:
            raise ValueError(f"unknown system {system!r} (have {sorted(registry.systems())})")
        size = size or self.world_defaults.size
        seed = self.world_defaults.seed if seed is None else seed
        if owner != LOCAL:
            self.quotas.check_size(size)
            self.check_quota(owner)
        backend = Backend(found, size=size, world_seed=seed)
        backend.mark_start()
        world = World(env_id or new_id("w"), owner, backend, seed=seed)
        try:
            self.add(world)
        except Exception:
            backend.close()
            raise
        return world

    def create_episode(
        self,
        owner: str,
        scenario: str | None = None,
        *,
        seed: int | None = None,
        env_id: str | None = None,
        defaults: EpisodeDefaults | None = None,
    ) -> Episode:
        """Make an :class:`EnterpriseEnv`, reset it on ``scenario`` with ``seed``, register it.

        Unset options come from ``defaults`` (or the hub's ``episode_defaults``). With a suite in
        them, the env is that suite's, and without a scenario the seed draws one from the suite
        (the env's own draw: the episode ``gymnasium.make(suite).reset(seed=seed)`` plays).

        Raises:
            ValueError: No scenario (and no suite to draw one from), an unknown one, or one the
                suite does not serve.
        """
        from enterprise_envs import registry
        from enterprise_envs.env import EnterpriseEnv

        options = defaults or self.episode_defaults or EpisodeDefaults()
        scenario = scenario or options.scenario
        if seed is None:
            seed = options.seed
        if scenario is None and options.suite is None:
            raise ValueError("which scenario? pass a scenario id")
        if scenario is not None:
            check_scenario(scenario, options.suite)
        env = EnterpriseEnv(
            suite=options.suite or registry.suite_serving(scenario).env_id,
            scenario=scenario,
            surface=options.surface,
            user=options.user,
            user_model=options.user_model,
            user_base_url=options.user_base_url,
            world_size=options.world_size,
            faults=options.faults,
            world_seed=options.world_seed,
        )
        try:
            # The scenario is known before the world is built, so a client's quota is checked
            # before any build.
            found = env.scenario_for_seed(seed, scenario)
            scenario = found.id
            if owner != LOCAL:
                self.quotas.check_size(options.world_size or found.world_size)
                self.check_quota(owner)
            observation, info = env.reset(seed=seed, options={"scenario": scenario})
            opening = observation["content"] if observation["role"] == "user" else None
            episode = Episode(env_id or new_id("ep"), owner, env, seed=seed, opening=opening, reset_info=info)
            self.add(episode)
        except Exception:
            env.close()
            raise
        return episode

    def _make_default(self, owner: str, system: str | None, kind: str) -> Entry:
        with self._create_lock:
            entry = self._entries.get((owner, DEFAULT_ID))
            if entry is not None:
                return entry
            if kind == "episode":
                if self.episode_defaults is None:
                    raise RouteError(
                        "no episode id given: pass ?env=<episode id> in the URL or an X-Env-Id header "
                        "(create an episode with POST /control/episodes)"
                    )
                return self.create_episode(owner, env_id=DEFAULT_ID)
            if system is None:
                raise RouteError("this endpoint serves episodes; it has no default world")
            return self.create_world(owner, system, env_id=DEFAULT_ID)

    # -- removal -----------------------------------------------------------------------------

    def remove(self, owner: str, env_id: str) -> Entry:
        """Unregister an env and release it.

        Raises:
            RouteError: Unknown id for this owner.
        """
        with self._lock:
            entry = self._entries.pop((owner, env_id), None)
        if entry is None:
            raise RouteError(f"unknown env id {env_id!r} for this client")
        with entry.lock:
            entry.close()
        return entry

    def close(self) -> None:
        """Refuse new calls and release every env (served Gym envs are left to their owners)."""
        with self._lock:
            self.closed = True
            entries = list(self._entries.values())
            self._entries.clear()
        for entry in entries:
            with entry.lock:
                entry.close()


def check_scenario(scenario: str, suite: str | None = None) -> Scenario:
    """The scenario of id ``scenario``, which ``suite`` (if given) must serve.

    The one check every way of starting an episode goes through (``serve --scenario``, the
    control plane, the hub).

    Raises:
        ValueError: Unknown scenario, unknown suite, or a scenario the suite does not serve.
    """
    from enterprise_envs import registry

    found = registry.scenarios().get(scenario)
    if found is None:
        raise ValueError(f"unknown scenario {scenario!r} (see `enterprise-envs list`)")
    if suite is not None and not suite_of(suite).serves(found.id, found.systems):
        raise ValueError(
            f"suite {suite} does not serve scenario {scenario!r} "
            f"(its scenarios: {', '.join(suite_scenarios(suite))})"
        )
    return found


def suite_of(suite: str) -> Suite:
    """The suite of a Gym id.

    Raises:
        ValueError: Unknown suite (naming the known ones).
    """
    from enterprise_envs import registry

    try:
        return registry.suite(suite)
    except KeyError:
        raise ValueError(f"unknown suite {suite!r} (have {', '.join(registry.suites())})") from None


def suite_scenarios(suite: str) -> list[str]:
    """The ids of the scenarios a suite serves, sorted."""
    from enterprise_envs import registry

    return [scenario.id for scenario in registry.select(suite_of(suite))]


def new_id(prefix: str) -> str:
    """A fresh env id (random: ids name envs, they never seed anything)."""
    return f"{prefix}-{secrets.token_hex(6)}"


_default_hub: Hub | None = None
_default_hub_lock = threading.Lock()


def default_hub() -> Hub:
    """The process's hub: what stdio serving and in-process clients route to."""
    global _default_hub
    with _default_hub_lock:
        if _default_hub is None or _default_hub.closed:
            _default_hub = Hub()
        return _default_hub


def set_default_hub(hub: Hub) -> Hub:
    """Make ``hub`` the process's hub (the ``serve`` command does this); returns it."""
    global _default_hub
    with _default_hub_lock:
        _default_hub = hub
    return hub
