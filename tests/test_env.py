"""The Gym face: registration, check_env, action parsing that never raises, determinism
across processes, and vector envs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from tests.strategies import ANY_JSON, examples

ROOT = Path(__file__).resolve().parents[1]
ENV_IDS = [suite.env_id for suite in registry.suites().values()] + [
    f"{registry.NAMESPACE}/{s.env_id}" for s in registry.suites().values()
]


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_check_env_passes_without_warnings(env_id: str) -> None:
    env = gymnasium.make(env_id)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped, skip_render_check=True)
    env.close()


def test_make_with_module_prefix_imports_the_package() -> None:
    code = (
        "import gymnasium; env = gymnasium.make('enterprise_envs:ITSM-v0'); "
        "print(env.reset(seed=1)[1]['scenario'])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() in registry.scenarios()


def _suite_ids_registered() -> set[str]:
    """Registered Gym ids naming a suite, plain or under any namespace (a stray duplicate shows)."""
    names = set(registry.suites())
    return {key for key in gymnasium.registry if key.rsplit("/", 1)[-1] in names}


def test_registration_is_idempotent() -> None:
    before = _suite_ids_registered()
    registry.register_envs()
    registry.register_envs()
    assert _suite_ids_registered() == before == set(ENV_IDS)
    # Every suite, plain and namespaced, made by the one entry point for its own suite.
    for suite in registry.suites().values():
        for env_id in (suite.env_id, f"{registry.NAMESPACE}/{suite.env_id}"):
            spec = gymnasium.registry[env_id]
            assert (spec.entry_point, spec.kwargs) == (registry.ENTRY_POINT, {"suite": suite.env_id})


def test_reset_info_carries_instructions_tools_and_budget() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    observation, info = env.reset(seed=0)
    assert observation["role"] == "user" and observation["content"]
    assert info["scenario"] == "itsm.report_incident" and info["version"] >= 1
    assert "runbook" in info["instructions"].lower()
    names = {tool["function"]["name"] for tool in info["tools"]}
    assert {"create_incident", "search_users", "wait"} <= names
    assert info["budget"]["max_steps"] > 0
    env.close()


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=st.one_of(ANY_JSON, st.text(max_size=200), st.binary(max_size=50), ANY_JSON.map(json.dumps)))
def test_step_never_raises_on_agent_input(action) -> None:
    env = _SHARED_ENV
    env.reset(seed=0)
    observation, reward, terminated, truncated, info = env.step(action)
    assert observation["role"] in ("user", "tool", "error")
    assert isinstance(observation["content"], str)
    assert reward in (0.0, 1.0)


_SHARED_ENV = gymnasium.make("ITSM-v0", scenario="itsm.report_incident").unwrapped


@pytest.mark.parametrize(
    "action",
    [
        {"tool": "search_users", "arguments": {"query": "a"}},
        '{"tool": "search_users", "arguments": "{\\"query\\": \\"a\\"}"}',
        {"type": "function", "function": {"name": "search_users", "arguments": '{"query": "a"}'}},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "search_users", "arguments": '{"query": "a"}'},
                }
            ],
        },
    ],
)
def test_tool_call_forms_are_accepted(action) -> None:
    env = _SHARED_ENV
    env.reset(seed=0)
    observation, *_ = env.step(action)
    assert observation["role"] == "tool" and observation["name"] == "search_users"
    assert json.loads(observation["content"])["users"] is not None


def test_budget_truncates_and_the_final_info_explains() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    env.reset(seed=0)
    max_steps = env.unwrapped.instance.scenario.budget.max_steps
    truncated = False
    for _ in range(max_steps):
        _, reward, terminated, truncated, info = env.step({"tool": "list_groups", "arguments": {}})
        if terminated or truncated:
            break
    assert truncated and not terminated
    assert info["outcome"]["kind"] == "failure" and "budget exhausted" in info["outcome"]["reason"]
    assert reward == 0.0 and info["verdict"]["passed"] is False
    env.close()


_PLAY = """
import json, sys
import gymnasium
from enterprise_envs.agents import OracleAgent, play_episode
env = gymnasium.make("ITSM-v0")
out = [play_episode(env, OracleAgent(), seed) for seed in (0, 1, 2)]
sys.stdout.write(json.dumps(out, sort_keys=True))
"""


def test_episodes_are_identical_across_processes() -> None:
    outputs = set()
    for hash_seed in ("1", "98765"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-c", _PLAY], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        outputs.add(result.stdout)
    assert len(outputs) == 1


def _end_actions(count: int) -> tuple[str, ...]:
    return tuple(json.dumps({"end": True}) for _ in range(count))


def test_sync_vector_env() -> None:
    envs = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make("ITSM-v0") for _ in range(2)])
    observations, infos = envs.reset(seed=[0, 1])
    assert list(observations["role"]) == ["user", "user"]
    _, rewards, terminated, _, _ = envs.step(_end_actions(2))
    assert list(terminated) == [True, True] and len(rewards) == 2
    envs.close()


@pytest.mark.parametrize("shared_memory", [True, False])
def test_async_vector_env_gives_what_the_sync_one_gives(shared_memory: bool) -> None:
    # The default (shared memory) holds text of any length through the spaces' registered slots; a
    # spawned worker imports nothing, and the module prefix makes gymnasium import the package.
    def make() -> gymnasium.Env:
        return gymnasium.make("enterprise_envs:ITSM-v0")

    asynchronous = gymnasium.vector.AsyncVectorEnv([make] * 2, shared_memory=shared_memory, context="spawn")
    synchronous = gymnasium.vector.SyncVectorEnv([make] * 2)
    assert asynchronous.reset(seed=[0, 1])[0] == synchronous.reset(seed=[0, 1])[0]
    ask = [json.dumps({"message": "What is your e-mail address? " + "x" * 70_000})] * 2
    long_question = asynchronous.step(ask)
    assert long_question[0] == synchronous.step(ask)[0]  # user replies to a message longer than any buffer
    observations, _, terminated, _, _ = asynchronous.step(_end_actions(2))
    assert list(terminated) == [True, True] and isinstance(observations["content"], tuple)
    asynchronous.close()
    synchronous.close()


def test_oracle_episode_reports_outcome_verdict_and_messages() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    episode = play_episode(env, OracleAgent(), 0)
    assert episode["outcome"]["kind"] == "success" and episode["reward"] == 1.0
    assert episode["verdict"]["passed"] and episode["diff"]["summary"]["incident"] == {"insert": 1}
    roles = [message["role"] for message in episode["messages"]]
    assert roles[0] == "user" and "tool" in roles and "assistant" in roles
    env.close()


def test_llm_user_in_the_env_is_guarded_with_the_instance_canaries() -> None:
    from enterprise_envs.scenarios.users.clients import ScriptedClient
    from enterprise_envs.scenarios.users.llm import LLMUser

    # A model that always tries to read out a record number it should not know.
    leaky = json.dumps(
        {"candidates": [{"text": "Is it INC0010001? I have an admin password too.", "probability": 1.0}]}
    )
    user = LLMUser(ScriptedClient([leaky] * 200), k=1)
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident", user=user)
    episode = play_episode(env, OracleAgent(), 0)
    inner = env.unwrapped
    assert set(inner.instance.canaries()) <= set(inner.user.canaries)
    assert episode["outcome"]["kind"] == "success"  # the guard fell back to the rule replies
    assert all("INC0010001" not in m["content"] for m in episode["messages"] if m["role"] == "user")
    env.close()


@pytest.mark.parametrize("env_id", ["Workplace-v0", "ITSM-v0"])
def test_the_tools_given_are_the_episode_worlds_whatever_came_before(env_id: str) -> None:
    # One env plays scenarios over different sets of systems; each episode's tool list must be its
    # own world's, not the first world's of the same surface (a run's records depended on history).
    env = gymnasium.make(env_id)
    for seed in range(8):
        _, info = env.reset(seed=seed)
        fresh = gymnasium.make(env_id)
        _, alone = fresh.reset(seed=seed)
        assert [tool["function"]["name"] for tool in info["tools"]] == [
            tool["function"]["name"] for tool in alone["tools"]
        ]
        assert {tool["function"]["name"] for tool in info["tools"]} == {
            tool["function"]["name"] for tool in env.unwrapped.world.surface.openai_tools()
        }
        fresh.close()
    env.close()
