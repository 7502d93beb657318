"""Running episodes: agents on envs, concurrently, as JSONL trajectory records with a live progress display.

``run`` plays ``episodes`` seeds (each ``trials`` times) with ``jobs`` episodes at a time, one env
per worker thread (a model-backed agent spends its time waiting on the endpoint, so threads keep
the calls in flight). Records are written in episode order whatever order they finish in, so a
run with ``jobs=4`` writes what a serial run writes but for the volatile fields
(:data:`enterprise_envs.records.VOLATILE_FIELDS`). Ctrl-C stops the run: the episodes in flight are
abandoned at their next step and every finished one is kept.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

import gymnasium

import enterprise_envs
from enterprise_envs import registry
from enterprise_envs.agents import Agent, AgentInfrastructureError, OracleAgent, RandomAgent
from enterprise_envs.records import RECORD_VERSION


def _llm_agent(seed: int, **options: Any) -> Agent:
    from enterprise_envs.llm_agent import LLMAgent

    return LLMAgent(**options)


#: Agent name -> factory(seed, **options). ``llm`` takes the LLMAgent's options (model, base_url, ...).
AGENTS: dict[str, Callable[..., Agent]] = {
    "oracle": lambda seed, **options: OracleAgent(),
    "random": lambda seed, **options: RandomAgent(seed),
    "llm": _llm_agent,
}

#: ``run``'s exit statuses (also the CLI's): documented in docs/evaluation.md.
EXIT_OK = 0
EXIT_INVALID = 3
EXIT_INTERRUPTED = 130


class Interrupted(Exception):
    """The run was stopped (Ctrl-C); episodes in flight end here and are not recorded."""


@dataclass
class RunSummary:
    """Outcome counts per scenario, and whether the run was cut short."""

    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    seconds: float = 0.0
    planned: int = 0
    interrupted: bool = False

    def add(self, scenario: str, outcome: str) -> None:
        """Count one episode."""
        self.counts[scenario][outcome] += 1

    @property
    def totals(self) -> Counter:
        """Outcome counts over every scenario."""
        total: Counter = Counter()
        for row in self.counts.values():
            total.update(row)
        return total

    @property
    def exit_status(self) -> int:
        """0: every planned episode ran and none was invalid; 3: some were invalid; 130: interrupted."""
        if self.interrupted:
            return EXIT_INTERRUPTED
        return EXIT_INVALID if self.totals["invalid"] else EXIT_OK

    def to_text(self) -> str:
        """A table: scenario, episodes, success, failure, invalid."""
        width = max([len("scenario"), *(len(name) for name in self.counts)])
        lines = [f"{'scenario':<{width}}  episodes  success  failure  invalid"]
        for name in sorted(self.counts):
            lines.append(_row(name, self.counts[name], width))
        lines.append(_row("total", self.totals, width))
        return "\n".join(lines)


def _row(name: str, counts: Counter, width: int) -> str:
    cells = (sum(counts.values()), counts["success"], counts["failure"], counts["invalid"])
    return f"{name:<{width}}  {cells[0]:>8}  {cells[1]:>7}  {cells[2]:>7}  {cells[3]:>7}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _action_kind(action: Any) -> str:
    """What kind of action the agent sent (for the record's turns; the env judges its validity)."""
    if isinstance(action, str):
        try:
            action = json.loads(action)
        except ValueError:
            return "malformed"
    if not isinstance(action, Mapping):
        return "malformed"
    calls = action.get("tool_calls")
    if isinstance(calls, list) and calls:
        return "tool" if len(calls) == 1 and not action.get("content") else "turn"
    if "tool" in action or "function" in action:
        return "tool"
    if "message" in action or action.get("role") == "assistant":
        return "message"
    return "end" if action.get("end") is True else "malformed"


@dataclass(frozen=True)
class RunSettings:
    """What every record of a run shares (its ``run`` field)."""

    env_id: str
    agent_name: str
    agent_options: Mapping[str, Any]
    env_kwargs: Mapping[str, Any]
    max_episode_steps: int | None
    jobs: int
    trials: int
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    started: str = field(default_factory=_now)

    def make(self) -> gymnasium.Env:
        """A new env of the run."""
        extra = {"max_episode_steps": self.max_episode_steps} if self.max_episode_steps else {}
        return gymnasium.make(self.env_id, **self.env_kwargs, **extra)

    def info(self, env: gymnasium.Env, agent_settings: Mapping[str, Any]) -> dict[str, Any]:
        """The ``run`` field: the agent's settings, the user's, the make options."""
        inner = env.unwrapped
        scenario = self.env_kwargs.get("scenario")
        faults = inner.faults_option
        return {
            "id": self.run_id,
            "started": self.started,
            "package_version": enterprise_envs.__version__,
            "command": "run",
            "agent": {**agent_settings, "name": self.agent_name},
            "user": inner.user_settings(),
            "make": {
                "env_id": self.env_id,
                "scenario": [scenario]
                if isinstance(scenario, str)
                else (list(scenario) if scenario else None),
                "surface": inner.surface,
                "world_size": inner.world_size,
                "world_seed": inner.world_seed,
                "faults": dict(faults) if isinstance(faults, Mapping) else faults,
                "max_episode_steps": self.max_episode_steps,
            },
            "jobs": self.jobs,
            "trials": self.trials,
        }


def play_recorded(
    env: gymnasium.Env,
    agent: Agent,
    seed: int,
    settings: RunSettings,
    episode: int = 0,
    trial: int = 0,
    stop: threading.Event | None = None,
) -> dict[str, Any]:
    """Play one episode and build its trajectory record (see :mod:`enterprise_envs.records`).

    An agent whose own infrastructure fails for good (``AgentInfrastructureError``: its model
    endpoint) ends the episode as ``invalid``: not the policy's doing, so not a failure.

    Raises:
        Interrupted: ``stop`` was set before the episode ended.
    """
    started, began = _now(), time.perf_counter()
    observation, info = env.reset(seed=seed)
    agent.reset(env, info)
    turns: list[dict[str, Any]] = []
    final: dict[str, Any] = {}
    reward, terminated, truncated, broken = 0.0, False, False, None
    while not (terminated or truncated):
        if stop is not None and stop.is_set():
            raise Interrupted
        chose = time.perf_counter()
        try:
            action = agent.act(observation)
        except AgentInfrastructureError as error:
            broken = str(error)
            break
        stepped = time.perf_counter()
        observation, step_reward, terminated, truncated, final = env.step(action)
        reward += float(step_reward)
        turns.append(
            {
                "step": len(turns) + 1,
                "action": _action_kind(action),
                "agent_seconds": round(stepped - chose, 6),
                "env_seconds": round(time.perf_counter() - stepped, 6),
            }
        )
    inner = env.unwrapped
    if broken is not None:  # the episode never ended in the env: record what happened so far
        final = {
            "outcome": {"kind": "invalid", "reason": "agent_infrastructure", "detail": broken},
            "verdict": None,
            "steps": inner.steps,
            "tool_calls": inner.tool_calls,
            "messages": list(inner.chat),
            "faults": [event.to_dict() for event in inner.world.faults.log],
            "systems_used": list(inner.systems_used),
            "user_turns": [turn.to_dict() for turn in inner.user_turns],
            "final_view": None,
        }
        reward = 0.0
    usage = getattr(agent, "usage", None)
    used = usage() if usage else {}
    describe = getattr(agent, "settings", None)
    agent_settings = describe() if describe else {}
    scenario = registry.scenarios()[info["scenario"]]
    systems = list(scenario.systems)
    found = registry.systems()
    spec_versions = {name: str(found[name].settings.get("spec_version", "")) for name in systems}
    budget = scenario.budget
    return {
        "record_version": RECORD_VERSION,
        "run": settings.info(env, agent_settings),
        "episode": episode,
        "trial": trial,
        "seed": seed,
        "scenario": info["scenario"],
        "scenario_version": info["version"],
        "title": info["title"],
        "tags": list(info["tags"]),
        "systems": systems,
        "systems_used": final.get("systems_used", []),
        "surface": info["surface"],
        "persona_variant": info["persona_variant"],
        "user_backend": inner.user_backend,
        "package_version": enterprise_envs.__version__,
        # The primary system's API description release, and every system's.
        "spec_version": spec_versions[systems[0]],
        "spec_versions": spec_versions,
        "tools": info["tools"],
        "messages": [{"role": "system", "content": info["instructions"]}, *final.get("messages", [])],
        "terminated": bool(terminated),
        "truncated": bool(truncated),
        "outcome": final["outcome"],
        "reward": reward,
        "verdict": final.get("verdict"),
        "budget": {
            "steps": {"used": final.get("steps", 0), "limit": budget.max_steps},
            "tool_calls": {"used": final.get("tool_calls", 0), "limit": budget.max_tool_calls},
            "tokens": {
                "used": int(used.get("total_tokens", 0)),
                "limit": agent_settings.get("token_budget"),
                "prompt": int(used.get("prompt_tokens", 0)),
                "completion": int(used.get("completion_tokens", 0)),
            },
        },
        "infra": {
            "endpoint_retries": int(used.get("endpoint_retries", 0)),
            "endpoint_errors": [str(error) for error in used.get("endpoint_errors", [])],
            "injected_faults": len(final.get("faults", [])),
        },
        "turns": turns,
        "started": started,
        "finished": _now(),
        "seconds": round(time.perf_counter() - began, 6),
        "steps": final.get("steps", 0),
        "tool_calls": final.get("tool_calls", 0),
        "faults": final.get("faults", []),
        "user_turns": final.get("user_turns", []),
        "final_view": final.get("final_view"),
    }


class EpisodeBackend(Protocol):
    """Somewhere else to play a run's episodes (Ray actors: :mod:`enterprise_envs.integrations.ray`).

    ``run`` keeps everything but the playing: the plan, the episode order, the records' sink, the
    summary, the progress display and the stop. It calls ``play`` from ``jobs`` threads at a time.
    """

    def open(self, settings: RunSettings, seed: int, stop: threading.Event) -> None:
        """Get ready to play the run's episodes; once ``stop`` is set, ``play`` raises Interrupted."""

    def play(self, index: int, trial: int) -> dict[str, Any]:
        """Play seed ``seed + index`` (its ``trial``-th time) and return its record (``play_recorded``'s)."""

    def close(self) -> None:
        """Release what ``open`` took (called once, after every ``play`` has returned)."""


class _Progress:
    """A live display on a terminal (rich): episodes done, rate, ETA and the running success rate."""

    def __init__(self, stream: IO[str] | None, total: int) -> None:
        self.display = None
        if stream is None:
            return
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.display = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[outcomes]}"),
            console=Console(file=stream),
            transient=False,
        )
        self.task = self.display.add_task("episodes", total=total, rate="", outcomes="")
        self.began = time.perf_counter()
        self.display.start()

    def update(self, done: int, totals: Counter) -> None:
        if self.display is None:
            return
        elapsed = max(time.perf_counter() - self.began, 1e-9)
        scored = totals["success"] + totals["failure"]
        rate = f"{totals['success'] / scored:.0%}" if scored else "-"
        self.display.update(
            self.task,
            completed=done,
            rate=f"{done / elapsed:.2f} ep/s",
            outcomes=f"success {totals['success']} ({rate})  failure {totals['failure']}  "
            f"invalid {totals['invalid']}",
        )

    def close(self) -> None:
        if self.display is not None:
            self.display.stop()


def run(
    env_id: str,
    agent_name: str,
    episodes: int,
    seed: int = 0,
    out: Path | IO[str] | None = None,
    env_kwargs: dict[str, Any] | None = None,
    progress: IO[str] | None = None,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
    *,
    jobs: int = 1,
    trials: int = 1,
    agent_options: Mapping[str, Any] | None = None,
    max_episode_steps: int | None = None,
    stop: threading.Event | None = None,
    backend: EpisodeBackend | None = None,
) -> RunSummary:
    """Run ``episodes`` seeds ``seed, seed+1, ...``, each ``trials`` times, and summarize them.

    Args:
        env_id: A registered id (``ITSM-v0``).
        agent_name: A key of :data:`AGENTS` (``oracle``, ``random``, ``llm``).
        episodes: How many seeds.
        seed: First seed.
        out: JSONL file (a path, or an open text stream such as stdout), one record a line, in
            episode order.
        env_kwargs: Extra ``gymnasium.make`` kwargs (scenario, surface, user, ...).
        progress: Where to draw the live progress display (None: no display).
        on_episode: Called with each record, in episode order.
        jobs: Episodes played at a time (one env per worker thread).
        trials: Plays of each seed (for pass^k; a deterministic agent repeats itself).
        agent_options: The agent factory's options (the LLM agent's model, endpoint, ...).
        max_episode_steps: ``gymnasium.make``'s step limit (a truncation still gets a verdict).
        stop: Set it to stop the run (Ctrl-C does the same); finished episodes are kept.
        backend: Where to play the episodes (None: on this process's threads, one env each).
    """
    settings = RunSettings(
        env_id, agent_name, dict(agent_options or {}), dict(env_kwargs or {}), max_episode_steps, jobs, trials
    )
    plan = [(index, trial) for index in range(episodes) for trial in range(trials)]
    summary = RunSummary(planned=len(plan))
    stop = stop or threading.Event()
    local = threading.local()
    envs: list[gymnasium.Env] = []
    envs_lock = threading.Lock()

    def play(index: int, trial: int) -> dict[str, Any]:
        if backend is not None:
            return backend.play(index, trial)
        env = getattr(local, "env", None)
        if env is None:
            env = local.env = settings.make()
            with envs_lock:
                envs.append(env)
        agent = AGENTS[agent_name](seed + index, **settings.agent_options)
        return play_recorded(env, agent, seed + index, settings, index, trial, stop)

    if backend is not None:
        backend.open(settings, seed, stop)
    sink, owned = (out.open("w", encoding="utf-8"), True) if isinstance(out, Path) else (out, False)
    display = _Progress(progress, len(plan))
    started = time.perf_counter()
    finished: dict[int, dict[str, Any]] = {}
    written = 0

    def emit(record: dict[str, Any]) -> None:
        summary.add(record["scenario"], record["outcome"]["kind"])
        if sink is not None:
            sink.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            sink.flush()
        if on_episode:
            on_episode(record)

    executor = ThreadPoolExecutor(max_workers=max(1, jobs), thread_name_prefix="episode")
    try:
        pending: dict[Future, int] = {}
        queue = iter(enumerate(plan))
        for position, (index, trial) in queue:
            pending[executor.submit(play, index, trial)] = position
            if len(pending) >= max(1, jobs):
                break
        while pending:
            done, _ = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in done:
                position = pending.pop(future)
                try:
                    finished[position] = future.result()
                except Interrupted:
                    continue
                nxt = next(queue, None)
                if nxt is not None and not stop.is_set():
                    pending[executor.submit(play, *nxt[1])] = nxt[0]
            while written in finished:  # in episode order, as soon as the earlier ones are in
                emit(finished.pop(written))
                written += 1
            display.update(written, summary.totals)
    except KeyboardInterrupt:
        stop.set()
        summary.interrupted = True
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        for position in sorted(finished):  # finished after a gap (interrupted): kept, in order
            emit(finished.pop(position))
        display.update(written, summary.totals)
        display.close()
        if owned and sink is not None:
            sink.close()
        for env in envs:
            env.close()
        if backend is not None:
            backend.close()
    summary.interrupted = summary.interrupted or sum(summary.totals.values()) < len(plan)
    summary.seconds = time.perf_counter() - started
    return summary


def default_progress() -> IO[str] | None:
    """Stderr when it is a terminal, else no live display (CI logs stay clean)."""
    return sys.stderr if sys.stderr.isatty() else None


__all__ = [
    "AGENTS",
    "EXIT_INTERRUPTED",
    "EXIT_INVALID",
    "EXIT_OK",
    "EpisodeBackend",
    "RunSummary",
    "play_recorded",
    "run",
]
