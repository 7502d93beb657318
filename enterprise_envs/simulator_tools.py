"""Scenario-level tooling for simulated users: the pilot and the fidelity report of runs.

``scenarios.users`` works on personas alone; here a persona is drawn from a real scenario
instance (world values bound, the UserView computed from the real state), which is what an
author needs when writing or changing a scenario.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium

from enterprise_envs import registry
from enterprise_envs.records import heard
from enterprise_envs.scenarios.users.fidelity import FidelityReport, Transcript, fidelity_report
from enterprise_envs.scenarios.users.pilot import PilotReport, run_pilot
from enterprise_envs.scenarios.users.turns import Message, UserTurn
from enterprise_envs.verifiers.audit.trace import Run


def _scenario_env(scenario_id: str, **kwargs: Any) -> gymnasium.Env:
    """An env of the scenario's own suite (the first serving it), serving that scenario alone."""
    return gymnasium.make(registry.suite_serving(scenario_id).env_id, scenario=scenario_id, **kwargs)


def _instance_env(scenario_id: str, seed: int, user: str = "rules") -> gymnasium.Env:
    env = _scenario_env(scenario_id, user=user, persona_variants=False)
    env.reset(seed=seed)
    return env


def pilot_scenario(scenario_id: str, seeds: Sequence[int] = (0, 1), user: str = "rules") -> PilotReport:
    """Probe a scenario's simulated user with the scripted agents (rollouts = probes x seeds).

    The persona is the one drawn for the first seed; the UserView is computed from the real
    instance, so a probe that only talks never satisfies the user.
    """
    env = _instance_env(scenario_id, seeds[0], user)
    inner = env.unwrapped
    instance = inner.instance

    def view(transcript: Sequence[Message]) -> dict[str, bool]:
        return instance.view(instance.observe(inner.backend), transcript)

    report = run_pilot(instance.persona, inner.user, seeds, view_fn=view, canaries=instance.canaries())
    env.close()
    return report


def transcripts_from_runs(path: Path, canaries: dict[str, tuple[str, ...]] | None = None) -> list[Transcript]:
    """Rebuild every episode of a ``enterprise-envs run`` JSONL file as a fidelity transcript.

    The persona is re-drawn from the scenario and seed (episodes are deterministic); the user
    turn records and the final UserView are read from the file (files written before they were
    recorded have neither).

    Args:
        path: The JSONL file.
        canaries: If given, filled with each transcript's canaries (the re-drawn instance's
            hidden values), by transcript label.
    """
    transcripts: list[Transcript] = []
    envs: dict[str, gymnasium.Env] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        scenario_id = record["scenario"]
        env = envs.get(scenario_id)
        if env is None:
            env = envs[scenario_id] = _scenario_env(scenario_id)
        env.reset(seed=record["seed"])
        instance = env.unwrapped.instance
        messages = [Message(speaker, text) for speaker, text in heard(record["messages"])]
        label = f"{scenario_id}/seed={record['seed']}"
        turns = tuple(UserTurn.from_dict(turn) for turn in record.get("user_turns", ()))
        transcripts.append(
            Transcript(instance.persona, tuple(messages), turns, record.get("final_view"), label)
        )
        if canaries is not None:
            canaries[label] = instance.canaries()
    for env in envs.values():
        env.close()
    return transcripts


def fidelity_of_runs(paths: Iterable[Path]) -> FidelityReport:
    """The fidelity report of every episode in the given JSONL files (canaries re-drawn too)."""
    canaries: dict[str, tuple[str, ...]] = {}
    transcripts = [
        transcript for path in paths for transcript in transcripts_from_runs(path, canaries=canaries)
    ]
    return fidelity_report(transcripts, canaries=canaries)


@dataclass(frozen=True)
class OracleSignal:
    """How much the simulated user's words follow hidden state (issue 14's "oracle signal").

    The oracle is replayed twice on the same instance with the same agent messages: once as it
    is, once without its writes. A user that knows only what a person could know answers both
    alike wherever what it has seen (the notifications its person got) and the conversation so
    far agree. A reply that changes there is *unexplained*: the user read hidden state, and a
    policy could use it as a reward oracle. A reply that changes after the person saw something
    different (an e-mail the oracle's write sent) is *observable*: a person would have noticed
    too. Once the conversations part, later replies are not compared.

    Attributes:
        scenario: The scenario.
        seeds: Seeds replayed.
        turns: User replies compared (the opening left out).
        changed: Replies that differed.
        unexplained: Of those, replies after the same conversation and the same notifications.
        observable: Of those, replies after different notifications.
        seeds_signalled: Seeds with an unexplained difference.
        examples: (seed, with the writes, without them) of the first differences.
    """

    scenario: str
    seeds: tuple[int, ...]
    turns: int
    changed: int
    unexplained: int
    observable: int
    seeds_signalled: int
    examples: tuple[tuple[int, str, str], ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "scenario": self.scenario,
            "seeds": list(self.seeds),
            "turns": self.turns,
            "changed": self.changed,
            "unexplained": self.unexplained,
            "observable": self.observable,
            "seeds_signalled": self.seeds_signalled,
            "examples": [list(example) for example in self.examples],
        }


def compare_heard(first: Run, second: Run) -> tuple[int, int, int, list[tuple[str, str]]]:
    """Compare what the user said in two runs of the same agent messages, turn by turn.

    Returns:
        (turns compared, unexplained differences, observable differences, the differing pairs).
        A turn is compared while every earlier reply agreed; it is unexplained when it differs
        although what the user had seen agreed too.
    """
    turns = unexplained = observable = 0
    differing: list[tuple[str, str]] = []
    for index in range(1, min(len(first.heard), len(second.heard))):
        turns += 1
        if first.heard[index] == second.heard[index]:
            continue
        differing.append((first.heard[index], second.heard[index]))
        same_seen = first.seen[index : index + 1] == second.seen[index : index + 1]
        unexplained += same_seen
        observable += not same_seen
        break  # the conversations part here: later replies answer different transcripts
    return turns, unexplained, observable, differing


def oracle_signal(scenario_id: str, seeds: Sequence[int] = (0, 1), surface: str = "typed") -> OracleSignal:
    """Measure the oracle signal of a scenario's simulated user (see :class:`OracleSignal`)."""
    from enterprise_envs.audit import EnvEpisodes

    episodes = EnvEpisodes(scenario_id)
    solution = next(s.name for s in episodes.scenario.solutions if s.surface == surface)
    turns = changed = unexplained = observable = signalled = 0
    examples: list[tuple[int, str, str]] = []
    try:
        for seed in seeds:
            done = episodes.record(seed, surface, solution)
            blind = episodes.replay(
                seed,
                surface,
                [step.action for step in done.steps if not (step.action.kind == "tool" and step.write)],
            )
            compared, hidden, seen, differing = compare_heard(done, blind)
            turns += compared
            changed += len(differing)
            unexplained += hidden
            observable += seen
            signalled += bool(hidden)
            examples += [(seed, a, b) for a, b in differing[:1]]
    finally:
        episodes.close()
    return OracleSignal(
        scenario_id, tuple(seeds), turns, changed, unexplained, observable, signalled, tuple(examples[:3])
    )
