"""Performance bench: reset, tool calls, Gym steps, verify, episodes, memory, MCP and REST throughput.

Every figure is measured in this process (memory in a fresh subprocess) with
:func:`time.perf_counter_ns`, after a warm-up, over repeated samples, and reported as its
median (p50), p90, min, max and interquartile range, next to its design budget (PASS/MISS,
informational) and, where one applies, as a ratio to a floor measured in the same run:

- ``baseline.sqlite_lookup``: a raw ``sqlite3`` point lookup on the same database (floor of a read);
- ``baseline.deserialize.<size>``: ``sqlite3`` deserialize of the same snapshot (what a reset would
  cost if it copied the world back; resets roll the episode's transaction back instead);
- ``baseline.cartpole_step``: a step of gymnasium's ``CartPole-v1`` (floor of the framework).

The served transports are measured under the same load, side by side: ``rest.calls_per_s`` and
``rest.call_latency`` are reported as ratios to ``mcp.calls_per_s`` and ``mcp.call_latency``.

The bench measures one suite (:data:`SUITE` by default) and names nothing of a system: the
calls it times, its sample rows, the step's message and scenarios come from the suite's first
system's declared workload (``system.conventions.workload``,
:class:`~enterprise_envs.mocks._core.conventions.Workload`).

Run it with ``enterprise-envs bench`` (``--quick`` for the smoke version, ``--json`` for JSON,
``--only NAME`` for some groups); see ``docs/performance.md``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import gc
import json
import math
import os
import platform
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.conventions import Workload
    from enterprise_envs.mocks._core.system import System

#: Groups of figures, in run order (``--only`` takes these names).
GROUPS = ("reset", "tool", "step", "worst", "verify", "episodes", "memory", "mcp", "rest", "baselines")
#: Groups run only when named in ``--only`` (they need an optional extra: ``ray``).
OPTIONAL_GROUPS = ("ray",)

#: The suite (Gym id) the bench measures unless told otherwise; its first system's workload
#: drives the figures.
SUITE = "ITSM-v0"


@dataclass(frozen=True)
class Settings:
    """How much to measure.

    Attributes:
        mode: ``quick`` or ``full``.
        sizes: World sizes of the reset and verify figures.
        warmup: Untimed calls before each latency figure.
        repeats: Samples of the slower latency figures (reset, step, verify).
        tool_repeats: Samples of the fast ones (tool calls, baselines).
        episode_rounds: Timed rounds of oracle episodes (one episode per scenario each).
        memory_envs: Live backends of the memory figure.
        memory_rounds: Rounds of oracle episodes (one per scenario) of the memory-over-episodes
            figure.
        mcp_clients: Concurrent MCP clients.
        mcp_calls: Tool calls per client per round (at most).
        mcp_rounds: Timed rounds of the MCP load (after one warm-up round).
        mcp_seconds: Time bound of one MCP round.
        suite: The Gym id measured (its first system's workload drives the figures).
    """

    mode: str
    sizes: tuple[str, ...]
    warmup: int
    repeats: int
    tool_repeats: int
    episode_rounds: int
    memory_envs: int
    memory_rounds: int
    mcp_clients: int
    mcp_calls: int
    mcp_rounds: int
    mcp_seconds: float
    suite: str = SUITE


QUICK = Settings(
    mode="quick",
    sizes=("tiny", "default"),
    warmup=2,
    repeats=10,
    tool_repeats=40,
    episode_rounds=1,
    memory_envs=20,
    memory_rounds=4,
    mcp_clients=2,
    mcp_calls=10,
    mcp_rounds=1,
    mcp_seconds=5.0,
)
FULL = Settings(
    mode="full",
    sizes=("tiny", "default", "large"),
    warmup=20,
    repeats=200,
    tool_repeats=2000,
    episode_rounds=10,
    memory_envs=1000,
    memory_rounds=180,
    mcp_clients=8,
    mcp_calls=250,
    mcp_rounds=5,
    mcp_seconds=20.0,
)


# -- figures -------------------------------------------------------------------------------------


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of sorted values, interpolated linearly."""
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass
class Figure:
    """One measured figure: its samples, their summary, the budget and the baseline ratio.

    Attributes:
        name: Dotted name, e.g. ``reset.default``.
        group: The ``--only`` group it belongs to.
        description: What one sample is.
        unit: ``us`` (latency), ``1/s`` (rate), ``MiB`` or ``x`` (a ratio).
        samples: The measured values, in ``unit``.
        budget: The design budget, compared with ``budget_on`` (None: no budget).
        budget_on: ``p50`` (the typical sample) or ``max`` (a worst-case figure: every sample).
        higher_is_better: True for rates: the budget is a floor, not a ceiling.
        baseline: Name of the floor figure the ratio is taken against.
        ratio: p50 / baseline's p50 (filled in once the baselines are measured).
        extra: Context (counts, sizes, verdicts).
    """

    name: str
    group: str
    description: str
    unit: str
    samples: list[float]
    budget: float | None = None
    budget_on: str = "p50"
    higher_is_better: bool = False
    baseline: str | None = None
    ratio: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def _q(self, q: float) -> float:
        return percentile(sorted(self.samples), q)

    @property
    def p50(self) -> float:
        """The median."""
        return self._q(0.5)

    @property
    def p90(self) -> float:
        """The 90th percentile."""
        return self._q(0.9)

    @property
    def iqr(self) -> float:
        """The interquartile range (p75 - p25)."""
        return self._q(0.75) - self._q(0.25)

    @property
    def judged(self) -> float:
        """The statistic the budget is compared with (``budget_on``)."""
        return max(self.samples) if self.budget_on == "max" and self.samples else self.p50

    @property
    def status(self) -> str:
        """``PASS`` or ``MISS`` against the budget, ``""`` without one."""
        if self.budget is None:
            return ""
        value = self.judged
        ok = value >= self.budget if self.higher_is_better else value <= self.budget
        return "PASS" if ok else "MISS"

    def to_dict(self) -> dict[str, Any]:
        """The figure as JSON-ready data (summary first, then the raw samples)."""
        return {
            "name": self.name,
            "group": self.group,
            "description": self.description,
            "unit": self.unit,
            "n": len(self.samples),
            "p50": self.p50,
            "p90": self.p90,
            "min": min(self.samples) if self.samples else math.nan,
            "max": max(self.samples) if self.samples else math.nan,
            "iqr": self.iqr,
            "budget": self.budget,
            "budget_on": self.budget_on,
            "budget_op": ">=" if self.higher_is_better else "<=",
            "status": self.status,
            "baseline": self.baseline,
            "ratio": self.ratio,
            "extra": self.extra,
            "samples": self.samples,
        }


def time_calls(fn: Callable[[], Any], repeats: int, warmup: int) -> list[float]:
    """Per-call wall time of ``fn`` in microseconds, after ``warmup`` untimed calls."""
    for _ in range(warmup):
        fn()
    clock = time.perf_counter_ns
    samples = []
    for _ in range(repeats):
        start = clock()
        fn()
        samples.append((clock() - start) / 1000)
    return samples


def time_steps(
    prepare: Callable[[], Any], fn: Callable[[Any], Any], repeats: int, warmup: int
) -> list[float]:
    """Like :func:`time_calls`, with an untimed ``prepare()`` before each call (its result is fn's arg)."""
    clock = time.perf_counter_ns
    samples = []
    for index in range(warmup + repeats):
        state = prepare()
        start = clock()
        fn(state)
        elapsed = (clock() - start) / 1000
        if index >= warmup:
            samples.append(elapsed)
    return samples


# -- the benches -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """What a bench run measures: a suite's Gym id, its first system and that system's workload."""

    env_id: str
    system: System
    workload: Workload


def target(suite: str = SUITE) -> Target:
    """The Gym id, system and workload the bench measures for ``suite``.

    Raises:
        KeyError: An unknown suite.
        ValueError: Its first system declares no workload (``Conventions.workload``).
    """
    from enterprise_envs import registry

    found = registry.suite(suite)
    system = registry.systems()[found.systems[0]]
    workload = system.conventions.workload
    if workload is None:
        raise ValueError(f"system {system.name!r} declares no bench workload (Conventions.workload)")
    return Target(found.env_id, system, workload)


def _env(measured: Target, **kwargs: Any):
    import gymnasium

    import enterprise_envs  # noqa: F401  (registers the suites' Gym ids)

    return gymnasium.make(measured.env_id, **kwargs)


def _sample(backend: Any, workload: Workload, count: int = 1) -> list[dict[str, Any]]:
    """The first ``count`` sample rows of the workload in a backend's world."""
    rows = backend.store.select(workload.table, workload.where, limit=count)  # the primary's, bare
    if not rows:
        raise RuntimeError(f"no sample row: {workload.table} where {workload.where}")
    return rows


def _checked(backend: Any, call: tuple[str, dict[str, Any]]) -> None:
    """Make one call; raise if it failed (the bench times only work that succeeds)."""
    tool, arguments = call
    result = backend.call(tool, arguments)
    if not result.ok:
        raise RuntimeError(f"{tool} failed: {result.body}")


def scenarios_fitting(size: str, measured: Target | None = None) -> list[str]:
    """The suite's scenarios whose instances can be drawn on a world of ``size``.

    A tiny world lacks rows some scenarios need (e.g. a server CI for a change).
    """
    from enterprise_envs.scenarios.format import ScenarioError

    env = _env(measured or target(), world_size=size)
    fitting = []
    for scenario in env.unwrapped.scenarios:
        try:
            env.reset(seed=0, options={"scenario": scenario.id})
        except ScenarioError:
            continue
        fitting.append(scenario.id)
    env.close()
    return fitting


def bench_reset(settings: Settings) -> list[Figure]:
    """``env.reset(seed=...)``: restore, scenario setup, the user's opening message."""
    measured = target(settings.suite)
    figures = []
    for size in settings.sizes:
        fitting = scenarios_fitting(size, measured)
        env = _env(measured, world_size=size, scenario=fitting)
        # Builds (or fetches) the worlds, not part of a reset: one per scenario, since a suite of
        # several systems plays each scenario in a World of its own systems.
        for scenario in fitting:
            env.reset(seed=0, options={"scenario": scenario})
        seeds = iter(range(1, 1 << 30))
        samples = time_calls(
            lambda env=env, seeds=seeds: env.reset(seed=next(seeds)), settings.repeats, settings.warmup
        )
        env.close()
        figures.append(_restore_figure(measured, size, settings))
        figures.append(
            Figure(
                f"reset.{size}",
                "reset",
                f"env.reset(seed) on {measured.env_id}, {size} world (scenarios drawn by the seed)",
                "us",
                samples,
                budget=2000.0 if size == "default" else None,
                baseline=f"baseline.deserialize.{size}",
                extra={"scenarios": len(fitting)},
            )
        )
    return figures


def _restore_figure(measured: Target, size: str, settings: Settings) -> Figure:
    """``Backend.reset()`` after an episode's worth of writes: the restore alone, no scenario."""
    from enterprise_envs.mocks._core.backend import Backend

    workload = measured.workload
    backend = Backend(measured.system, size=size, surface=workload.surface)
    writes = workload.episode_writes(backend.store, _sample(backend, workload)[0])

    def episode_writes() -> None:
        for call in writes:
            _checked(backend, call)

    samples = time_steps(episode_writes, lambda _: backend.reset(), settings.repeats, settings.warmup)
    how = backend.store.last_restore
    backend.close()
    return Figure(
        f"restore.{size}",
        "reset",
        f"Backend.reset() of the {size} world after {len(writes)} writes "
        f"(by {how}: the episode's transaction)",
        "us",
        samples,
        baseline=f"baseline.deserialize.{size}",
        extra={"restored_by": how},
    )


def _tool_figures(measured: Target, surface: str, settings: Settings) -> list[Figure]:
    from enterprise_envs.mocks._core.backend import Backend

    workload = measured.workload
    calls = workload.surfaces[surface]
    task_level = surface == workload.surface
    backend = Backend(measured.system, size="default", surface=surface)
    backend.mark_start()
    row = _sample(backend, workload)[0]
    read_tool, read_args = calls.read(row)
    write_tool = calls.write(row, "")[0]

    def call_read() -> None:
        result = backend.call(read_tool, read_args)
        if not result.ok:
            raise RuntimeError(f"{read_tool} failed: {result.body}")

    counter = iter(range(1 << 30))

    def prepare_write() -> int:
        index = next(counter)
        if index % 200 == 0:  # keep the change log and journal from growing without bound
            backend.reset()
            backend.mark_start()
        return index

    def call_write(index: int) -> None:
        tool, arguments = calls.write(row, f"bench write {index}")
        result = backend.call(tool, arguments)
        if not result.ok:
            raise RuntimeError(f"{tool} failed: {result.body}")

    figures = [
        Figure(
            f"tool.{surface}.read",
            "tool",
            f"Backend.call({read_tool}) on the {surface} surface, default world",
            "us",
            time_calls(call_read, settings.tool_repeats, settings.warmup),
            budget=200.0 if task_level else None,
            baseline="baseline.sqlite_lookup",
        ),
        Figure(
            f"tool.{surface}.write",
            "tool",
            f"Backend.call({write_tool}) on the {surface} surface, default world",
            "us",
            time_steps(prepare_write, call_write, settings.tool_repeats, settings.warmup),
            budget=500.0 if task_level else None,
            baseline="baseline.sqlite_lookup",
        ),
    ]
    backend.close()
    return figures


def bench_tool(settings: Settings) -> list[Figure]:
    """A read and a write per surface of the workload, in process on a default-size Backend."""
    measured = target(settings.suite)
    return [
        figure
        for surface in measured.workload.surfaces
        for figure in _tool_figures(measured, surface, settings)
    ]


def _step_scenario(measured: Target) -> str:
    """The scenario of the step figures: the workload's, or the suite's first if it is not served.

    A suite of several systems may not serve it (``Workplace-v0``'s worlds hold ITSM, identity and
    chat; the workload's scenario is ITSM's alone).
    """
    env = _env(measured)
    # Its world's first system is the measured one, so the workload's sample rows are found.
    served = sorted(s.id for s in env.unwrapped.scenarios if s.systems[0] == measured.system.name)
    env.close()
    return measured.workload.scenario if measured.workload.scenario in served else served[0]


def bench_step(settings: Settings) -> list[Figure]:
    """One Gym step from the JSON action to the observation: a tool call, a message to the rule user."""
    measured = target(settings.suite)
    workload = measured.workload
    env = _env(measured, scenario=_step_scenario(measured), world_size="default", user="rules")
    env.reset(seed=0)  # the state the first timed step starts from: where the sample row is read
    world = env.unwrapped.backend
    read_tool, read_args = workload.surfaces[world.surface_name].read(_sample(world, workload)[0])
    # In a world of several systems the agent calls the measured system's tool by its world name.
    read_tool = world.tool_name(measured.system.name, read_tool)
    tool_action = {"tool": read_tool, "arguments": read_args}
    message_action = {"message": workload.message}
    seeds = iter(range(1 << 30))

    def prepare() -> None:
        env.reset(seed=next(seeds))

    def tool_step(_: Any) -> None:
        env.step(json.dumps(tool_action))

    def message_step(_: Any) -> None:
        env.step(json.dumps(message_action))

    figures = [
        Figure(
            "step.tool",
            "step",
            f"env.step(JSON tool call: {read_tool}), parse to observation",
            "us",
            time_steps(prepare, tool_step, settings.repeats, settings.warmup),
            baseline="baseline.cartpole_step",
        ),
        Figure(
            "step.message",
            "step",
            "env.step(JSON message), the rule user's reply included",
            "us",
            time_steps(prepare, message_step, settings.repeats, settings.warmup),
            baseline="baseline.cartpole_step",
        ),
    ]
    env.close()
    return figures


def _step_seconds(env: Any, action: dict[str, Any], **reset: Any) -> float:
    """Seconds of one ``env.step(action)`` right after ``env.reset(**reset)``."""
    env.reset(**reset)
    started = time.perf_counter()
    env.step(action)
    return time.perf_counter() - started


def bench_worst(settings: Settings) -> list[Figure]:
    """The worst-case step: maximal messages (every scenario) and maximal tool arguments (every tool).

    Inputs come from :mod:`enterprise_envs.hostile`: as long as the boundary allows, shaped to
    make text readers backtrack. One sample per (scenario, message shape) or (tool, argument
    shape): the best of a few differently prefixed tries. The budget (50 ms) holds for every
    sample, so it is judged on the max.
    """
    from enterprise_envs.actions import MAX_MESSAGE_CHARS
    from enterprise_envs.hostile import maximal, maximal_arguments, maximal_messages

    measured = target(settings.suite)
    tries = 2 if settings.mode == "quick" else 3
    env = _env(measured, world_size="default").unwrapped
    scenarios = [scenario.id for scenario in env.scenarios]
    if settings.mode == "quick":
        scenarios = scenarios[:3]
    message_samples: list[float] = []
    slowest_message = (0.0, "")
    for scenario in scenarios:
        env.reset(seed=0, options={"scenario": scenario})
        env.step({"message": "Hello, could you tell me your email address? Is it working now?"})
        persona = env.instance.persona
        extra = {**env.backend.system.hostile_text}
        extra.update({f"fact-{fact.key}": fact.value for fact in persona.facts})
        extra.update({f"ask-{fact.key}": fact.asked_by[0] for fact in persona.facts if fact.asked_by})
        for label, message in maximal_messages(extra_units=extra):
            # The best of differently prefixed tries (no cache helps): the cost the input
            # forces, without a garbage-collection pause that merely coincided.
            seconds = min(
                _step_seconds(
                    env,
                    {"message": maximal(message, MAX_MESSAGE_CHARS, prefix=f"{attempt} ")},
                    seed=0,
                    options={"scenario": scenario},
                )
                for attempt in range(tries)
            )
            message_samples.append(seconds * 1e6)
            slowest_message = max(slowest_message, (seconds, f"{scenario}: {label}"))
    env.close()

    argument_samples: list[float] = []
    slowest_call = (0.0, "")
    for surface in measured.workload.surfaces:
        surface_env = _env(
            measured, world_size="default", surface=surface, scenario=measured.workload.call_scenario
        ).unwrapped
        surface_env.reset(seed=0)
        tools = list(surface_env.backend.surface)
        system_units = surface_env.backend.system.hostile_text
        if settings.mode == "quick":
            tools = tools[:4]
        for tool in tools:
            for label, arguments in maximal_arguments(dict(tool.input_schema), system_units):
                action = {"tool": tool.name, "arguments": arguments}
                seconds = min(_step_seconds(surface_env, action, seed=attempt) for attempt in range(tries))
                argument_samples.append(seconds * 1e6)
                slowest_call = max(slowest_call, (seconds, f"{surface}.{tool.name}: {label}"))
        surface_env.close()
    return [
        Figure(
            "worst.message",
            "worst",
            f"env.step(a {MAX_MESSAGE_CHARS}-character hostile message), each shape on each scenario",
            "us",
            message_samples,
            budget=50_000.0,
            budget_on="max",
            extra={"slowest": slowest_message[1], "shapes": len(message_samples)},
        ),
        Figure(
            "worst.argument",
            "worst",
            "env.step(a tool call with every argument at its schema's maximum), each tool, every surface",
            "us",
            argument_samples,
            budget=50_000.0,
            budget_on="max",
            extra={"slowest": slowest_call[1], "calls": len(argument_samples)},
        ),
    ]


def bench_verify(settings: Settings) -> list[Figure]:
    """``verify(...)`` (diff + expectation check) after one oracle write, at each world size."""
    from enterprise_envs.agents import OracleAgent
    from enterprise_envs.mocks._core.tools import ToolKind
    from enterprise_envs.verifiers import verify

    measured = target(settings.suite)
    scenario = measured.workload.scenario
    figures = []
    for size in settings.sizes:
        env = _env(measured, scenario=scenario, world_size=size)
        observation, info = env.reset(seed=0)
        base = env.unwrapped
        agent = OracleAgent()
        agent.reset(env, info)
        for _ in range(100):
            action = agent.act(observation)
            observation, _, terminated, truncated, _ = env.step(action)
            if terminated or truncated:
                raise RuntimeError(f"{scenario} ended before its first write")
            tool = base.backend.surface.tools.get(action.get("tool", ""))
            if tool is not None and tool.kind is ToolKind.WRITE and base.last_result.ok:
                break
        else:
            raise RuntimeError(f"the oracle of {scenario} made no write")
        said = [message.text for message in base.transcript if message.role == "agent"]
        store, expectation, denials = base.backend.store, base.instance.expectation, base.backend.denials

        def check(store: Any = store, expectation: Any = expectation, said: list = said, d: Any = denials):
            return verify(store, expectation, said, d)

        verdict = check()
        figures.append(
            Figure(
                f"verify.{size}",
                "verify",
                f"verify(store, expectation, transcript, denials) after one oracle write, {size} world",
                "us",
                time_calls(check, settings.repeats, settings.warmup),
                budget=5000.0,
                extra={"changes": len(verdict.diff.changes), "score": verdict.score},
            )
        )
        env.close()
    first, last = figures[0], figures[-1]
    figures.append(
        Figure(
            "verify.growth",
            "verify",
            f"verify p50 at {settings.sizes[-1]} / at {settings.sizes[0]} (flat: about 1)",
            "x",
            [last.p50 / first.p50],
            budget=1.5,
        )
    )
    return figures


def bench_episodes(settings: Settings) -> list[Figure]:
    """Whole oracle episodes on the suite, every scenario, one process: episodes per second."""
    from enterprise_envs.agents import OracleAgent, play_episode

    env = _env(target(settings.suite))
    scenario_ids = [scenario.id for scenario in env.unwrapped.scenarios]
    agent = OracleAgent()
    seed = 0
    outcomes: dict[str, int] = {}

    def one_round(record: bool) -> tuple[float, float]:
        nonlocal seed
        start, start_cpu = time.perf_counter_ns(), time.process_time_ns()
        for scenario_id in scenario_ids:
            result = play_episode(env, agent, seed, {"scenario": scenario_id})
            seed += 1
            if record:
                kind = result["outcome"]["kind"] if result.get("outcome") else "none"
                outcomes[kind] = outcomes.get(kind, 0) + 1
        wall, cpu = time.perf_counter_ns() - start, time.process_time_ns() - start_cpu
        return len(scenario_ids) / (wall / 1e9), len(scenario_ids) / (max(cpu, 1) / 1e9)

    one_round(record=False)  # warm-up: builds every world size the scenarios use
    rounds = [one_round(record=True) for _ in range(settings.episode_rounds)]
    env.close()
    one = f"one sample: a round of all {len(scenario_ids)} scenarios"
    extra = {"scenarios": len(scenario_ids), "outcomes": outcomes}
    return [
        Figure(
            "episodes.oracle",
            "episodes",
            f"oracle episodes per second of wall time, single process ({one})",
            "1/s",
            [wall for wall, _ in rounds],
            higher_is_better=True,
            extra=extra,
        ),
        Figure(
            "episodes.oracle_per_cpu_s",
            "episodes",
            f"oracle episodes per CPU-second of the process, i.e. per core ({one})",
            "1/s",
            [cpu for _, cpu in rounds],
            budget=200.0,
            higher_is_better=True,
            extra=extra,
        ),
    ]


def _vm_rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS in /proc/self/status")


def memory_probe(count: int, suite: str = SUITE, chunks: int = 4) -> dict[str, Any]:
    """In a fresh process: RSS growth per live default-size Backend of the suite's system, in MiB.

    One backend is built first (imports, the snapshot); then ``count`` more in ``chunks``
    steps, each step's RSS growth divided by its backends giving one sample.
    """
    from enterprise_envs.mocks._core.backend import Backend
    from enterprise_envs.mocks._core.snapshot import get_snapshot

    system = target(suite).system
    live = [Backend(system, size="default")]
    gc.collect()
    before = start = _vm_rss_kib()
    per_chunk = max(1, count // chunks)
    samples = []
    built = 0
    while built < count:
        step = min(per_chunk, count - built)
        live.extend(Backend(system, size="default") for _ in range(step))
        built += step
        gc.collect()
        now = _vm_rss_kib()
        samples.append((now - before) / 1024 / step)
        before = now
    return {
        "samples": samples,
        "envs": built,
        "total_mib": (before - start) / 1024,
        "snapshot_mib": get_snapshot(system, "default", 0).nbytes / 2**20,
    }


def episode_memory_probe(rounds: int, suite: str = SUITE) -> dict[str, Any]:
    """In a fresh process: RSS over ``rounds`` rounds of oracle episodes on one env of the suite.

    A round plays every scenario once; RSS is read after each round, after a full collection.
    The samples are the second half's growth per round, scaled to MiB per 1,000 episodes: by
    then the bounded caches (parsed sentences, value matchers, param candidates) have filled,
    so what is left is what grows with the number of episodes.
    """
    from enterprise_envs.agents import OracleAgent, play_episode

    env = _env(target(suite))
    scenario_ids = [scenario.id for scenario in env.unwrapped.scenarios]
    agent, seed, readings = OracleAgent(), 0, []
    for _ in range(rounds):
        for scenario_id in scenario_ids:
            play_episode(env, agent, seed, {"scenario": scenario_id})
            seed += 1
        gc.collect()
        readings.append(_vm_rss_kib())
    env.close()
    half = readings[len(readings) // 2 - 1 :]
    per_round = len(scenario_ids)
    samples = [
        (after - before) / 1024 * 1000 / per_round for before, after in zip(half, half[1:], strict=False)
    ]
    return {
        "samples": samples,
        "episodes": seed,
        "first_mib": readings[0] / 1024,
        "last_mib": readings[-1] / 1024,
    }


def _probe(function: str, argument: int, suite: str) -> dict[str, Any]:
    """Run one of this module's probes in a fresh Python process; its JSON result."""
    code = (
        "import json, sys\n"
        f"from enterprise_envs.bench import {function}\n"
        f"print(json.dumps({function}(int(sys.argv[1]), sys.argv[2])))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code, str(argument), suite],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{function} failed:\n{completed.stderr}")
    return json.loads(completed.stdout.strip().splitlines()[-1])


def bench_memory(settings: Settings) -> list[Figure]:
    """RSS per live default-size Backend, and RSS over many episodes, each in a subprocess."""
    system = target(settings.suite).system
    result = _probe("memory_probe", settings.memory_envs, settings.suite)
    episodes = _probe("episode_memory_probe", settings.memory_rounds, settings.suite)
    return [
        Figure(
            "memory.per_env",
            "memory",
            f"VmRSS growth per live Backend({system.name}, size='default'), {result['envs']} envs "
            "in a subprocess (one sample per quarter)",
            "MiB",
            result["samples"],
            budget=2.0,
            extra={k: v for k, v in result.items() if k != "samples"},
        ),
        Figure(
            "memory.per_1000_episodes",
            "memory",
            f"VmRSS growth per 1,000 oracle episodes on one env, over the second half of "
            f"{episodes['episodes']} episodes in a subprocess (one sample per round of every scenario)",
            "MiB",
            episodes["samples"],
            extra={k: v for k, v in episodes.items() if k != "samples"},
        ),
    ]


#: ``(tool, arguments) -> error text or None``: one call of a load client's session.
SessionCall = Callable[[str, dict[str, Any]], Awaitable[str | None]]


async def _served_load(
    session: Callable[[], AbstractAsyncContextManager[SessionCall]],
    call_for: Callable[[int, int], tuple[str, dict[str, Any]]],
    settings: Settings,
    on_round: Callable[[str, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Concurrent clients of a served transport; one warm-up round plus timed rounds.

    ``session()`` opens one client's session (MCP's SDK, a vendor API's ``RestClient``), giving
    its call. ``call_for(client, i)`` is client's ``i``-th call of a round (tool name and
    arguments). ``on_round`` is called with ``("start", i)`` and ``("end", i)`` around each round.
    """
    clients, rounds = settings.mcp_clients, settings.mcp_rounds + 1
    barrier = asyncio.Barrier(clients + 1)
    calls = [[0] * clients for _ in range(rounds)]
    latencies: list[list[float]] = [[] for _ in range(rounds)]
    errors: list[str] = []
    deadline = [0.0]

    async def client(index: int) -> None:
        async with session() as call:
            for round_index in range(rounds):
                await barrier.wait()
                limit = settings.mcp_calls if round_index else max(2, settings.mcp_calls // 5)
                for number in range(limit):
                    if time.monotonic() > deadline[0]:
                        break
                    name, arguments = call_for(index, number)
                    start = time.perf_counter_ns()
                    error = await call(name, arguments)
                    latencies[round_index].append((time.perf_counter_ns() - start) / 1000)
                    if error is not None:
                        errors.append(f"{name}: {error}")
                    calls[round_index][index] += 1
                await barrier.wait()

    async def conductor() -> list[dict[str, Any]]:
        out = []
        for round_index in range(rounds):
            deadline[0] = time.monotonic() + settings.mcp_seconds
            await barrier.wait()
            if on_round is not None:
                on_round("start", round_index)
            start = time.perf_counter_ns()
            await barrier.wait()
            seconds = (time.perf_counter_ns() - start) / 1e9
            if on_round is not None:
                on_round("end", round_index)
            out.append(
                {"calls": sum(calls[round_index]), "seconds": seconds, "latencies": latencies[round_index]}
            )
        return out

    tasks = [asyncio.ensure_future(client(index)) for index in range(clients)]
    try:
        return await asyncio.wait_for(conductor(), (settings.mcp_seconds + 30) * rounds)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if errors:
            raise RuntimeError(f"{len(errors)} served tool calls failed, e.g. {errors[0]}")


def _mcp_session(url: str, token: str) -> Callable[[], AbstractAsyncContextManager[SessionCall]]:
    """An MCP SDK client over streamable HTTP, per load client."""

    @asynccontextmanager
    async def session() -> AsyncIterator[SessionCall]:
        import httpx2
        from mcp.client.session import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        headers = {"Authorization": f"Bearer {token}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30.0)) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()

            async def call(name: str, arguments: dict[str, Any]) -> str | None:
                result = await client.call_tool(name, arguments)
                return result.content[0].text if result.is_error else None

            yield call

    return session


def _rest_session(data: Mapping[str, Any]) -> Callable[[], AbstractAsyncContextManager[SessionCall]]:
    """A ``RestClient`` (a keep-alive connection) per load client, its calls in a worker thread."""
    from enterprise_envs import registry
    from enterprise_envs.rest.client import RestClient

    system = registry.systems()[data["system"]]
    apis = {system.name: system.http_api()}

    @asynccontextmanager
    async def session() -> AsyncIterator[SessionCall]:
        with RestClient(data["url"], apis, data["token"], env_id=data["env_id"]) as client:

            async def call(name: str, arguments: dict[str, Any]) -> str | None:
                result = await asyncio.to_thread(client.call, name, arguments)
                return None if result.ok else f"{result.status} {result.body}"

            yield call

    return session


def client_probe(config: str) -> None:
    """In the client subprocess: run the load, one JSON line per round boundary, then the result.

    ``config["transport"]`` says the clients' kind (``mcp``: MCP SDK sessions; ``rest``: the
    vendor's requests through ``RestClient``). Each client reads and writes its own sample row
    (``config["rows"]``), alternately: the workload's read and write on the served surface.
    """
    from concurrent.futures import ThreadPoolExecutor

    from enterprise_envs import registry

    data = json.loads(config)
    settings = Settings(**{**data["settings"], "sizes": tuple(data["settings"]["sizes"])})
    workload = registry.systems()[data["system"]].conventions.workload
    assert workload is not None
    calls, rows = workload.surfaces[data["surface"]], data["rows"]
    label = data["transport"]

    def call_for(index: int, call: int) -> tuple[str, dict[str, Any]]:
        row = rows[index % len(rows)]
        return calls.write(row, f"{label} bench {index} {call}") if call % 2 else calls.read(row)

    def on_round(event: str, index: int) -> None:
        print(json.dumps({"event": event, "round": index}), flush=True)

    session = _mcp_session(data["url"], data["token"]) if label == "mcp" else _rest_session(data)

    async def main() -> list[dict[str, Any]]:
        # One worker thread per client, so blocking REST calls never wait for a free thread.
        asyncio.get_running_loop().set_default_executor(ThreadPoolExecutor(settings.mcp_clients))
        return await _served_load(session, call_for, settings, on_round)

    rounds = asyncio.run(main())
    print(json.dumps({"event": "result", "rounds": rounds}), flush=True)


def _client_process(
    config: dict[str, Any], settings: Settings
) -> tuple[dict[str, Any], dict[tuple[str, int], int]]:
    """Run :func:`client_probe` in a subprocess while this process serves.

    Returns its result and the serving process's CPU time at each round's bounds.

    Raises:
        RuntimeError: The clients failed.
    """
    import threading

    code = "import sys\nfrom enterprise_envs.bench import client_probe\nclient_probe(sys.argv[1])\n"
    process = subprocess.Popen(
        [sys.executable, "-c", code, json.dumps(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    marks: dict[tuple[str, int], int] = {}
    result: dict[str, Any] = {}
    watchdog = threading.Timer((settings.mcp_seconds + 30) * (settings.mcp_rounds + 1) + 60, process.kill)
    watchdog.start()
    try:
        assert process.stdout is not None
        for line in process.stdout:  # the server thread serves meanwhile; this thread just waits
            now = time.process_time_ns()
            try:
                message = json.loads(line)
            except json.JSONDecodeError:
                continue
            if message.get("event") in ("start", "end"):
                marks[(message["event"], message["round"])] = now
            elif message.get("event") == "result":
                result = message
        stderr = process.stderr.read() if process.stderr is not None else ""
        process.wait(timeout=30)
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
    if process.returncode != 0 or not result:
        raise RuntimeError(
            f"{config['transport']} clients failed (exit {process.returncode}):\n{stderr[-4000:]}"
        )
    return result, marks


def _load_figures(
    group: str,
    what: str,
    result: dict[str, Any],
    marks: dict[tuple[str, int], int],
    settings: Settings,
    internal_errors: int,
    latency_baseline: str,
    rate_baseline: str | None = None,
) -> list[Figure]:
    """The figures of a served load: calls/s (wall clock), calls per serving CPU-second, latency."""
    timed = list(enumerate(result["rounds"]))[1:]
    rates = [item["calls"] / item["seconds"] for _, item in timed]
    per_cpu = [item["calls"] / ((marks[("end", i)] - marks[("start", i)]) / 1e9) for i, item in timed]
    latencies = [value for _, item in timed for value in item["latencies"]]
    extra = {
        "clients": settings.mcp_clients,
        "calls": sum(item["calls"] for _, item in timed),
        "seconds": sum(item["seconds"] for _, item in timed),
        "server_cpu_seconds": sum((marks[("end", i)] - marks[("start", i)]) / 1e9 for i, _ in timed),
        "internal_errors": internal_errors,
        "cpus": os.cpu_count(),
    }
    label = group.upper()
    return [
        Figure(
            f"{group}.calls_per_s",
            group,
            f"{label} tool calls/s over HTTP on 127.0.0.1 (wall clock), {what}; one sample per round",
            "1/s",
            rates,
            extra=extra,
            baseline=rate_baseline,
            higher_is_better=True,
        ),
        Figure(
            f"{group}.calls_per_cpu_s",
            group,
            f"{label} tool calls per CPU-second of the serving process (calls/s/core); one sample per round",
            "1/s",
            per_cpu,
            budget=500.0,
            higher_is_better=True,
        ),
        Figure(
            f"{group}.call_latency",
            group,
            f"one {label} tool call as a client sees it, under that load",
            "us",
            latencies,
            baseline=latency_baseline,
        ),
    ]


def bench_mcp(settings: Settings) -> list[Figure]:
    """MCP tool calls over HTTP on 127.0.0.1: a served world here, concurrent clients in a subprocess.

    The clients run in their own process so they neither share this process's GIL with the
    server thread nor count in its CPU time: ``mcp.calls_per_cpu_s`` is calls per CPU-second of
    the serving process (per core), ``mcp.calls_per_s`` the wall-clock rate.
    """
    import secrets

    from enterprise_envs.mcp import Hub, HubServer, WorldDefaults

    measured = target(settings.suite)
    system, surface = measured.system.name, measured.workload.surface
    token = secrets.token_urlsafe(24)
    hub = Hub(world_defaults=WorldDefaults(size="default"))
    with HubServer(system, surface, tokens={token: "bench"}, hub=hub) as server:
        world = server.hub.create_world("bench", system, env_id="bench")
        config = {
            "url": server.mcp_url(world.id),
            "token": token,
            "system": system,
            "surface": surface,
            "rows": _sample(world.backend, measured.workload, settings.mcp_clients),
            "settings": asdict(settings),
        }
        result, marks = _client_process({**config, "transport": "mcp"}, settings)
        internal = len(world.backend.internal_errors)
    where = f"{settings.mcp_clients} concurrent MCP SDK clients in a subprocess, half reads, half writes"
    return _load_figures("mcp", where, result, marks, settings, internal, "tool.typed.read")


def bench_rest(settings: Settings) -> list[Figure]:
    """The system as its vendor's REST API on 127.0.0.1, the same load as :func:`bench_mcp`.

    Clients are threads with a keep-alive connection each, in a subprocess, sending the
    workload's ``rest``-surface calls as the vendor's requests. Beside the MCP figures of the
    same run: ``rest.calls_per_s`` has ``mcp.calls_per_s`` as its baseline (ratio > 1: REST
    serves more calls per second), ``rest.call_latency`` ``mcp.call_latency``.
    """
    import secrets

    from enterprise_envs.mcp import Hub, WorldDefaults
    from enterprise_envs.rest import RestServer

    measured = target(settings.suite)
    system = measured.system.name
    if measured.system.http is None:
        return []
    token = secrets.token_urlsafe(24)
    hub = Hub(world_defaults=WorldDefaults(size="default"))
    with RestServer(system, tokens={token: "bench"}, hub=hub) as server:
        world = server.hub.create_world("bench", system, env_id="bench")
        config = {
            "url": server.base_url,
            "env_id": world.id,
            "token": token,
            "system": system,
            "surface": server.api.surface,
            "rows": _sample(world.backend, measured.workload, settings.mcp_clients),
            "settings": asdict(settings),
        }
        result, marks = _client_process({**config, "transport": "rest"}, settings)
        internal = len(world.backend.internal_errors)
    hub.close()
    where = f"{settings.mcp_clients} concurrent {server.api.name} clients in a subprocess"
    where += ", half reads, half writes"
    return _load_figures(
        "rest", where, result, marks, settings, internal, "mcp.call_latency", rate_baseline="mcp.calls_per_s"
    )


def _lookup_figure(measured: Target, settings: Settings) -> Figure:
    """The floor of a read: a raw sqlite3 point lookup of a sample row by its key field."""
    from enterprise_envs.mocks._core.backend import Backend

    workload = measured.workload
    key = measured.system.catalog[workload.table].key_field
    backend = Backend(measured.system, size="default")
    value = _sample(backend, workload)[0][key]
    conn = backend.conn
    sql = f"select * from {_quoted(workload.table)} where {_quoted(key)}=?"

    def lookup() -> None:
        conn.execute(sql, (value,)).fetchone()

    figure = Figure(
        "baseline.sqlite_lookup",
        "baselines",
        f"raw sqlite3 point lookup of one {workload.table} row by {key}, same default database",
        "us",
        time_calls(lookup, settings.tool_repeats, settings.warmup),
    )
    backend.close()
    return figure


def bench_baselines(settings: Settings, sizes: Iterable[str]) -> list[Figure]:
    """The floors: raw sqlite3 lookup, sqlite3 deserialize of a snapshot, CartPole-v1 step."""
    import sqlite3

    import gymnasium

    from enterprise_envs.mocks._core.snapshot import get_snapshot

    measured = target(settings.suite)
    figures = [_lookup_figure(measured, settings)]
    for size in sizes:
        snapshot = get_snapshot(measured.system, size, 0)
        into = sqlite3.connect(":memory:", check_same_thread=False)
        figures.append(
            Figure(
                f"baseline.deserialize.{size}",
                "baselines",
                f"sqlite3 Connection.deserialize of the {size} snapshot ({snapshot.nbytes / 2**20:.1f} MiB)",
                "us",
                time_calls(
                    lambda t=into, s=snapshot: t.deserialize(s.data), settings.repeats, settings.warmup
                ),
                extra={"snapshot_bytes": snapshot.nbytes},
            )
        )
        into.close()
    cartpole = gymnasium.make("CartPole-v1")
    cartpole.reset(seed=0)
    state = {"done": False}

    def prepare() -> None:
        if state["done"]:
            cartpole.reset()

    def step(_: Any) -> None:
        _, _, terminated, truncated, _ = cartpole.step(0)
        state["done"] = terminated or truncated

    figures.append(
        Figure(
            "baseline.cartpole_step",
            "baselines",
            "gymnasium CartPole-v1 step via gymnasium.make (framework floor)",
            "us",
            time_steps(prepare, step, settings.tool_repeats, settings.warmup),
        )
    )
    cartpole.close()
    return figures


def _quoted(name: str) -> str:
    """An SQL identifier, quoted (a catalog's names may be SQL keywords)."""
    return '"' + name.replace('"', '""') + '"'


# -- running and reporting -----------------------------------------------------------------------


@dataclass
class Report:
    """A bench run: its settings, the machine and the figures."""

    settings: Settings
    figures: list[Figure]
    started: str
    seconds: float
    machine: dict[str, Any]

    def figure(self, name: str) -> Figure:
        """The figure called ``name``."""
        return next(figure for figure in self.figures if figure.name == name)

    def misses(self) -> list[Figure]:
        """Figures that miss their budget."""
        return [figure for figure in self.figures if figure.status == "MISS"]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "started": self.started,
            "seconds": self.seconds,
            "settings": asdict(self.settings),
            "machine": self.machine,
            "figures": [figure.to_dict() for figure in self.figures],
        }

    def to_json(self) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=2)

    def to_text(self) -> str:
        """A readable table (Markdown)."""
        header = ["figure", "p50", "p90", "min", "max", "IQR", "n", "budget", "status", "vs floor"]
        rows = [header, ["---"] * len(header)]
        for figure in self.figures:
            unit = figure.unit
            budget = ""
            if figure.budget is not None:
                op = ">=" if figure.higher_is_better else "<="
                on = " (max)" if figure.budget_on == "max" else ""
                budget = f"{op} {format_value(figure.budget, unit)}{on}"
            ratio = ""
            if figure.ratio is not None and figure.baseline is not None:
                ratio = f"{format_ratio(figure.ratio)} {figure.baseline.removeprefix('baseline.')}"
            rows.append(
                [
                    figure.name,
                    format_value(figure.p50, unit),
                    format_value(figure.p90, unit),
                    format_value(min(figure.samples), unit),
                    format_value(max(figure.samples), unit),
                    format_value(figure.iqr, unit),
                    str(len(figure.samples)),
                    budget,
                    figure.status,
                    ratio,
                ]
            )
        widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
        lines = [
            "| " + " | ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)) + " |" for row in rows
        ]
        lines[1] = "|" + "|".join("-" * (width + 2) for width in widths) + "|"
        misses = ", ".join(figure.name for figure in self.misses()) or "none"
        footer = (
            f"\n{self.settings.mode} run, {self.started}, {self.seconds:.1f} s; "
            f"{self.machine['python']} on {self.machine['cpu']} ({self.machine['cpus']} CPUs). "
            f"Budget misses: {misses}."
        )
        return "\n".join(lines) + footer


def format_ratio(ratio: float) -> str:
    """A ratio to its floor: one decimal, or two significant digits below 1 (``0.038x``)."""
    return f"{ratio:.1f}x" if ratio >= 1 else f"{ratio:.2g}x"


def format_value(value: float, unit: str) -> str:
    """A value with a readable unit (microseconds switch to ms above 1,000)."""
    if value is None or not math.isfinite(value):
        return "n/a"
    if unit == "us":
        return f"{value / 1000:.2f} ms" if abs(value) >= 1000 else f"{value:.1f} us"
    if unit == "1/s":
        return f"{value:,.0f}/s"
    if unit == "MiB":
        return f"{value:.2f} MiB"
    if unit == "x":
        return f"{value:.2f}x"
    return f"{value:g} {unit}"


def _machine() -> dict[str, Any]:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "python": f"Python {platform.python_version()}",
        "platform": platform.platform(),
        "cpu": cpu,
        "cpus": os.cpu_count(),
    }


def _bench_ray(settings: Settings) -> list[Figure]:
    """Oracle episodes per second over 1 and 2 Ray workers (``enterprise_envs.integrations.ray``)."""
    from enterprise_envs.integrations.ray import bench_ray

    return bench_ray(settings)


def run_bench(
    quick: bool = False,
    only: Sequence[str] | None = None,
    progress: TextIO | None = None,
    suite: str = SUITE,
) -> Report:
    """Run the bench (all groups, or ``only`` these) on ``suite`` and return the report.

    Baselines always run (the ratios need them); they take about a second.
    """
    settings = dataclasses.replace(QUICK if quick else FULL, suite=suite)
    target(suite)  # an unknown suite or a system without a workload fails before any figure
    groups = list(only) if only else list(GROUPS)
    known = (*GROUPS, *OPTIONAL_GROUPS)
    unknown = set(groups) - set(known)
    if unknown:
        raise ValueError(f"unknown bench groups {sorted(unknown)}; choose from {', '.join(known)}")
    benches: dict[str, Callable[[Settings], list[Figure]]] = {
        "reset": bench_reset,
        "tool": bench_tool,
        "step": bench_step,
        "verify": bench_verify,
        "worst": bench_worst,
        "episodes": bench_episodes,
        "memory": bench_memory,
        "mcp": bench_mcp,
        "rest": bench_rest,
        "ray": _bench_ray,
    }
    started = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    clock = time.perf_counter_ns()
    figures: list[Figure] = []
    for group in (*GROUPS, *OPTIONAL_GROUPS):
        if group == "baselines" or group not in groups:
            continue
        if progress is not None:
            print(f"bench: {group} ...", file=progress, flush=True)
        gc.collect()
        figures.extend(benches[group](settings))
    if progress is not None:
        print("bench: baselines ...", file=progress, flush=True)
    needed = {figure.baseline for figure in figures if figure.baseline}
    sizes = [size for size in settings.sizes if f"baseline.deserialize.{size}" in needed]
    if "baselines" in groups:
        sizes = list(settings.sizes)
    baselines = bench_baselines(settings, sizes)
    figures.extend(baselines)
    by_name = {figure.name: figure for figure in figures}
    for figure in figures:
        floor = by_name.get(figure.baseline) if figure.baseline else None
        if floor is not None and floor.p50 > 0:
            figure.ratio = figure.p50 / floor.p50
        elif figure.baseline is not None:
            figure.baseline = None
    seconds = (time.perf_counter_ns() - clock) / 1e9
    return Report(settings, figures, started, seconds, _machine())


__all__ = [
    "FULL",
    "GROUPS",
    "OPTIONAL_GROUPS",
    "QUICK",
    "SUITE",
    "Figure",
    "Report",
    "Settings",
    "Target",
    "format_value",
    "client_probe",
    "episode_memory_probe",
    "memory_probe",
    "percentile",
    "run_bench",
    "target",
]
