"""Running episodes: agents on envs, JSONL trajectories, a progress line and a summary table."""

from __future__ import annotations

import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import gymnasium

import enterprise_envs
from enterprise_envs import registry
from enterprise_envs.agents import Agent, OracleAgent, RandomAgent, play_episode

AGENTS: dict[str, Callable[[int], Agent]] = {
    "oracle": lambda seed: OracleAgent(),
    "random": lambda seed: RandomAgent(seed),
}


@dataclass
class RunSummary:
    """Outcome counts per scenario."""

    counts: dict[str, Counter] = field(default_factory=lambda: defaultdict(Counter))
    seconds: float = 0.0

    def add(self, scenario: str, outcome: str) -> None:
        """Count one episode."""
        self.counts[scenario][outcome] += 1

    def to_text(self) -> str:
        """A table: scenario, episodes, success, failure, invalid."""
        width = max([len("scenario"), *(len(name) for name in self.counts)])
        lines = [f"{'scenario':<{width}}  episodes  success  failure  invalid"]
        total: Counter = Counter()
        for name in sorted(self.counts):
            total.update(self.counts[name])
            lines.append(_row(name, self.counts[name], width))
        lines.append(_row("total", total, width))
        return "\n".join(lines)


def _row(name: str, counts: Counter, width: int) -> str:
    cells = (sum(counts.values()), counts["success"], counts["failure"], counts["invalid"])
    return f"{name:<{width}}  {cells[0]:>8}  {cells[1]:>7}  {cells[2]:>7}  {cells[3]:>7}"


def trajectory_record(
    env: gymnasium.Env, seed: int, episode: dict[str, Any], seconds: float
) -> dict[str, Any]:
    """One JSONL line: everything needed to understand and reproduce the episode."""
    reset_info = episode["reset_info"]
    inner = env.unwrapped
    systems = episode.get("systems") or list(registry.scenarios()[reset_info["scenario"]].systems)
    found = registry.systems()
    spec_versions = {name: str(found[name].settings.get("spec_version", "")) for name in systems}
    return {
        "scenario": reset_info["scenario"],
        "scenario_version": reset_info["version"],
        "seed": seed,
        "package_version": enterprise_envs.__version__,
        # The primary system's API description release, and every system's.
        "spec_version": spec_versions[systems[0]],
        "spec_versions": spec_versions,
        # The systems of the episode's world, and those the agent's tool calls reached.
        "systems": systems,
        "systems_used": episode.get("systems_used", []),
        "surface": reset_info["surface"],
        "user_backend": inner.user_backend,
        "persona_variant": reset_info["persona_variant"],
        "messages": [{"role": "system", "content": reset_info["instructions"]}, *episode.get("messages", [])],
        "faults": episode.get("faults", []),
        "outcome": episode.get("outcome"),
        "reward": episode["reward"],
        "verdict": episode.get("verdict"),
        "steps": episode.get("steps"),
        "tool_calls": episode.get("tool_calls"),
        "user_turns": episode.get("user_turns", []),
        "final_view": episode.get("final_view"),
        "seconds": round(seconds, 6),
    }


def run(
    env_id: str,
    agent_name: str,
    episodes: int,
    seed: int = 0,
    out: Path | None = None,
    env_kwargs: dict[str, Any] | None = None,
    progress: IO[str] | None = None,
    on_episode: Callable[[dict[str, Any]], None] | None = None,
) -> RunSummary:
    """Run ``episodes`` episodes with seeds ``seed, seed+1, ...`` and summarize them.

    Args:
        env_id: A registered id (``ITSM-v0``).
        agent_name: ``oracle`` or ``random``.
        episodes: How many.
        seed: First seed.
        out: JSONL file to write, one episode a line.
        env_kwargs: Extra ``gymnasium.make`` kwargs (scenario, surface, user, ...).
        progress: Where to draw the progress line (stderr by default; None to disable).
        on_episode: Called with each JSONL record.
    """
    env = gymnasium.make(env_id, **(env_kwargs or {}))
    summary = RunSummary()
    started = time.perf_counter()
    sink = out.open("w", encoding="utf-8") if out else None
    try:
        for index in range(episodes):
            episode_seed = seed + index
            agent = AGENTS[agent_name](episode_seed)
            began = time.perf_counter()
            episode = play_episode(env, agent, episode_seed)
            record = trajectory_record(env, episode_seed, episode, time.perf_counter() - began)
            summary.add(record["scenario"], (record["outcome"] or {}).get("kind", "invalid"))
            if sink:
                sink.write(json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n")
            if on_episode:
                on_episode(record)
            if progress:
                _progress(progress, index + 1, episodes, summary)
    finally:
        if sink:
            sink.close()
        env.close()
        if progress:
            progress.write("\n")
    summary.seconds = time.perf_counter() - started
    return summary


def _progress(stream: IO[str], done: int, total: int, summary: RunSummary) -> None:
    counts: Counter = Counter()
    for row in summary.counts.values():
        counts.update(row)
    filled = int(30 * done / total)
    stream.write(
        f"\r[{'#' * filled}{'.' * (30 - filled)}] {done}/{total}  "
        f"success {counts['success']}  failure {counts['failure']}  invalid {counts['invalid']}"
    )
    stream.flush()


def default_progress() -> IO[str] | None:
    """Stderr when it is a terminal, else no progress line (CI logs stay clean)."""
    return sys.stderr if sys.stderr.isatty() else None


__all__ = ["AGENTS", "RunSummary", "run", "trajectory_record"]
