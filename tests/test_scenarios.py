"""Every scenario in the registry, tested without scenario-specific code.

A new TOML file in scenarios/<system>/ is picked up here: it must validate against the
published schema, its oracle must succeed on 20 seeds on every surface it has a solution for,
and an agent that does nothing must fail it whenever it requires a change.
"""

from __future__ import annotations

import json
import tomllib

import gymnasium
import pytest
from jsonschema import Draft202012Validator

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.scenarios.format import scenario_json_schema
from enterprise_envs.scenarios.loader import scenario_files
from enterprise_envs.scenarios.users.turns import Message
from tests.shipped import SCENARIOS, env_id_for, make_env

SEEDS = range(20)


class DoNothing:
    """Ends the conversation at once."""

    def reset(self, env, info) -> None:
        pass

    def act(self, observation):
        return {"end": True}


def _surfaces(scenario_id: str) -> list[str]:
    return sorted({solution.surface for solution in registry.scenarios()[scenario_id].solutions})


@pytest.mark.parametrize(
    "entry", [e for system in registry.systems() for e in scenario_files(system)], ids=lambda e: e.name
)
def test_scenario_file_validates_against_the_published_schema(entry) -> None:
    data = tomllib.loads(entry.read_text(encoding="utf-8"))
    errors = [error.message for error in Draft202012Validator(scenario_json_schema()).iter_errors(data)]
    assert not errors


@pytest.mark.parametrize(
    ("scenario_id", "surface"), [(sid, surface) for sid in SCENARIOS for surface in _surfaces(sid)]
)
def test_oracle_succeeds_on_20_seeds(scenario_id: str, surface: str) -> None:
    env = make_env(scenario_id, surface=surface)
    failures = []
    scenario = registry.scenarios()[scenario_id]
    solution = next(s for s in scenario.solutions if s.surface == surface)
    agent_ends = solution.steps[-1].end
    for seed in SEEDS:
        episode = play_episode(env, OracleAgent(), seed)
        if episode["outcome"]["kind"] != "success" or episode["reward"] != 1.0:
            failures.append((seed, episode["outcome"], episode.get("user_terminal")))
        elif len(scenario.systems) > 1 and set(episode["systems_used"]) != set(scenario.systems):
            # A scenario of several systems is work across them: its oracle reaches each one.
            failures.append((seed, "systems used", episode["systems_used"], scenario.systems))
        elif not agent_ends and episode.get("user_terminal") != "done":
            # The user stops only when their view says the goal is met: the oracle must get there.
            failures.append((seed, "the user did not say goodbye", episode.get("user_terminal")))
    env.close()
    assert not failures, failures[:3]


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_doing_nothing_fails(scenario_id: str) -> None:
    # Every task needs something: a change, or (read-only and refusal tasks) telling the user.
    env = make_env(scenario_id)
    for seed in range(5):
        episode = play_episode(env, DoNothing(), seed)
        assert episode["outcome"]["kind"] == "failure" and episode["reward"] == 0.0
    env.close()


def test_every_scenario_has_an_oracle_on_every_surface_its_systems_have() -> None:
    # An oracle that falls back to another surface's solution calls tools the surface lacks: its
    # episodes there (and over the vendors' APIs, which serve the rest surface) prove nothing.
    missing = {
        sid: sorted(
            set(registry.systems()[registry.scenarios()[sid].systems[0]].surfaces) - set(_surfaces(sid))
        )
        for sid in SCENARIOS
    }
    assert {sid: gap for sid, gap in missing.items() if gap} == {}


def test_scenario_ids_are_unique_and_tagged() -> None:
    assert len(SCENARIOS) == len(set(SCENARIOS))
    assert all(registry.scenarios()[sid].tags for sid in SCENARIOS)


def test_episodes_are_identical_for_the_same_seed_and_actions() -> None:
    def play(seed: int) -> str:
        env = gymnasium.make("ITSM-v0")
        episode = play_episode(env, OracleAgent(), seed)
        env.close()
        return json.dumps(episode, sort_keys=True, default=str)

    assert play(3) == play(3)
    assert play(3) != play(4)


def test_the_user_is_not_told_a_number_listed_among_others() -> None:
    """report_incident's user counts as told (and says goodbye) only on a number said plainly."""
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    env.reset(seed=5)
    instance = env.unwrapped.instance
    # Play the oracle's tool calls, so the incident exists; its number is the last tool result's.
    solution = instance.solution("typed")
    results: dict = {}
    for step in solution.steps:
        if step.tool:
            bound = instance.bind_step(step, results)
            result = env.unwrapped.backend.call(bound.tool, bound.arguments)
            if bound.save_as:
                results[bound.save_as] = result.body
    number = results["ticket"]["number"]
    before = f"INC{int(number[3:]) - 1:07d}"
    after = f"INC{int(number[3:]) + 1:07d}"
    (key,) = [key for key, check in instance.scenario.view.items() if check.kind == "told_record"]
    seen = instance.observe(env.unwrapped.backend)
    assert [note.record for note in seen if note.event == "incident.opened"] == [number]

    def told(text: str) -> bool:
        return instance.view(seen, [Message("agent", text)])[key]

    assert told(f"It is {before}, {number} or {after}.") is False
    assert told(f"Your incident is {number}.") is True
    # A well-formed number that no e-mail the user got mentions tells them nothing.
    assert told(f"Your incident is {after}.") is False
    assert instance.view((), [Message("agent", f"Your incident is {number}.")])[key] is False
    env.close()


@pytest.mark.parametrize("agent", ["oracle", "random"])
def test_the_rule_user_passes_every_integrity_metric_on_every_scenario(agent: str, tmp_path) -> None:
    """Fidelity over real episodes, read back from the JSONL `run` writes, persona variants on.

    No leak, canary, coaching, role swap or false stop (it found openings that leaked on_ask facts).
    """
    from enterprise_envs.runner import run
    from enterprise_envs.simulator_tools import fidelity_of_runs

    out = tmp_path / f"{agent}.jsonl"
    for index, scenario_id in enumerate(SCENARIOS):
        part = tmp_path / f"{index}.jsonl"
        run(
            env_id_for(scenario_id),
            agent,
            2,
            seed=100 + 7 * index,
            out=part,
            env_kwargs={"scenario": scenario_id},
            progress=None,
        )
        with out.open("a", encoding="utf-8") as sink:
            sink.write(part.read_text(encoding="utf-8"))
    report = fidelity_of_runs([out])
    assert report.conversations == 2 * len(SCENARIOS)
    assert report.integrity_ok(), [finding.to_dict() for finding in report.findings][:5]
