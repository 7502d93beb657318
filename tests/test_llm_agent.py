"""The reference LLM agent against a scripted OpenAI-compatible server on 127.0.0.1.

The fake model (tests/fake_openai.py) plays the oracle's reference solution through real HTTP;
the agent plays real ITSM-v0 episodes through ``gymnasium.make``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import gymnasium
import openai
import pytest

import enterprise_envs.agents as agents_module
from enterprise_envs.agents import play_episode
from enterprise_envs.llm_agent import (
    HARNESS_PREFACE,
    MAX_BACKOFF_SECONDS,
    MAX_RETRY_AFTER_SECONDS,
    AgentInfrastructureError,
    LLMAgent,
)
from enterprise_envs.scenarios.users.clients import NO_KEY, api_key_from_env
from tests.fake_openai import FakeOpenAIServer, OraclePolicy, assistant_turns, scripted

SCENARIOS = ["itsm.report_incident", "itsm.escalate", "itsm.reopen_resolved", "itsm.status_check"]
SEEDS = [0, 1, 3]  # report_incident, escalate, reopen_resolved (the users end these themselves)
MAKE = {"scenario": SCENARIOS}
MODEL = "fake-model"


@pytest.fixture(autouse=True)
def _no_key_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(scope="module")
def env() -> Iterator[gymnasium.Env]:
    env = gymnasium.make("ITSM-v0", **MAKE)
    yield env
    env.close()


@pytest.fixture(scope="module")
def oracle_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(OraclePolicy("ITSM-v0", SEEDS, **MAKE)) as server:
        yield server


def agent_for(server: FakeOpenAIServer, **options: Any) -> LLMAgent:
    return LLMAgent(MODEL, base_url=server.base_url, backoff_seconds=0.0, timeout=10.0, **options)


def by_turn(replies: list[Mapping[str, Any]]) -> Any:
    """A policy answering request ``i`` of any conversation with ``replies[i]`` (the last one after)."""
    return lambda request: replies[min(assistant_turns(request), len(replies) - 1)]


def closed_port() -> int:
    """A port of 127.0.0.1 nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def assistant_calls(messages: list[Mapping[str, Any]]) -> list[list[str]]:
    """The tool-call ids of each assistant message that made calls."""
    return [
        [call["id"] for call in message["tool_calls"]]
        for message in messages
        if message["role"] == "assistant" and message.get("tool_calls")
    ]


# -- whole episodes ------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", SEEDS)
def test_the_agent_plays_the_reference_solution_to_success(
    env: gymnasium.Env, oracle_server: FakeOpenAIServer, seed: int
) -> None:
    agent = agent_for(oracle_server)
    before = len(oracle_server.completions)
    final = play_episode(env, agent, seed)
    assert final["outcome"]["kind"] == "success", final["outcome"]
    assert oracle_server.policy_errors == []
    usage = agent.usage()
    assert usage["model_calls"] == len(oracle_server.completions) - before > 1
    assert usage["endpoint_retries"] == 0 and usage["endpoint_errors"] == []
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    assert usage["token_budget_exhausted"] is False
    # Ids as the model sent them reach the env's record, each answered by its tool message.
    recorded = final["messages"]
    assert assistant_calls(recorded) == assistant_calls(agent.messages) != []
    answered = [message["tool_call_id"] for message in recorded if message["role"] == "tool"]
    assert answered == [call_id for ids in assistant_calls(recorded) for call_id in ids]


def test_two_tool_calls_in_one_turn_run_in_order_with_their_ids(env: gymnasium.Env) -> None:
    seed = 1  # escalate: two pairs of consecutive tool calls
    policy = OraclePolicy("ITSM-v0", [seed], merge_parallel=True, **MAKE)
    with FakeOpenAIServer(policy) as server:
        agent = agent_for(server)
        final = play_episode(env, agent, seed)
    assert final["outcome"]["kind"] == "success", final["outcome"]
    (actions,) = policy.actions.values()
    assert agent.usage()["model_calls"] < len(actions)  # merged turns: fewer model calls than actions
    assert final["tool_calls"] == sum(1 for action in actions if "tool" in action)
    recorded = final["messages"]
    pairs = [ids for ids in assistant_calls(recorded) if len(ids) == 2]
    assert pairs, "no assistant message with two tool calls in the record"
    for ids in pairs:
        position = next(
            i
            for i, message in enumerate(recorded)
            if message["role"] == "assistant" and [c["id"] for c in message.get("tool_calls") or []] == ids
        )
        following = recorded[position + 1 : position + 3]
        assert [message["role"] for message in following] == ["tool", "tool"]
        assert [message["tool_call_id"] for message in following] == ids
    # The agent's own history holds each call's own result under its id (from the env's JSON list).
    own = agent.messages
    for ids in assistant_calls(own):
        if len(ids) != 2:
            continue
        position = next(i for i, m in enumerate(own) if [c["id"] for c in m.get("tool_calls") or []] == ids)
        results = own[position + 1 : position + 3]
        assert [message["tool_call_id"] for message in results] == ids
        assert all(json.loads(message["content"]) for message in results)
        assert results[0]["content"] != results[1]["content"]


def test_concurrent_agents_share_one_server_and_their_retries_are_counted() -> None:
    policy = OraclePolicy("ITSM-v0", SEEDS, fault_every=4, **MAKE)
    outcomes: dict[int, str] = {}
    retries: dict[int, int] = {}
    call_ids: dict[int, list[str]] = {}

    def play(server: FakeOpenAIServer, seed: int) -> None:
        env = gymnasium.make("ITSM-v0", **MAKE)
        agent = agent_for(server)
        outcomes[seed] = play_episode(env, agent, seed)["outcome"]["kind"]
        retries[seed] = agent.usage()["endpoint_retries"]
        call_ids[seed] = [call_id for ids in assistant_calls(agent.messages) for call_id in ids]
        env.close()

    with FakeOpenAIServer(policy) as server:
        threads = [threading.Thread(target=play, args=(server, seed)) for seed in SEEDS]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
    assert outcomes == {seed: "success" for seed in SEEDS}
    assert policy.faults_sent > 0 and sum(retries.values()) == policy.faults_sent
    assert server.policy_errors == []
    every_id = [call_id for ids in call_ids.values() for call_id in ids]
    assert every_id and len(set(every_id)) == len(every_id)  # the server's counter is shared safely


# -- the request --------------------------------------------------------------------------------


def test_the_request_carries_the_tools_the_instructions_and_no_key(
    env: gymnasium.Env, oracle_server: FakeOpenAIServer
) -> None:
    agent = agent_for(oracle_server, max_completion_tokens=256)
    observation, info = env.reset(seed=SEEDS[0])
    agent.reset(env, info)
    before = len(oracle_server.completions)
    agent.act(observation)
    (sent,) = oracle_server.completions[before:]
    body = sent.body
    assert body["model"] == MODEL and body["temperature"] == 0.0
    assert body["tools"] == info["tools"] and body["tools"][0]["type"] == "function"
    assert body["tool_choice"] == "auto" and body["parallel_tool_calls"] is True
    assert body["max_completion_tokens"] == 256
    system, opening = body["messages"]
    assert system["role"] == "system" and system["content"].startswith(HARNESS_PREFACE)
    assert system["content"].endswith(info["instructions"].strip())
    assert "no tool to end the conversation" in system["content"]
    assert opening == {"role": "user", "content": observation["content"]}
    # No key configured against a local endpoint: a placeholder, never a secret.
    assert sent.headers["authorization"] == f"Bearer {NO_KEY}"
    settings = agent.settings()
    assert (
        settings["name"] == "llm"
        and settings["model"] == MODEL
        and settings["base_url"] == oracle_server.base_url
    )
    assert settings["api_key_env"] == "OPENAI_API_KEY" and NO_KEY not in settings.values()


def test_a_key_is_read_from_the_named_variable_only(
    oracle_server: FakeOpenAIServer, env: gymnasium.Env, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ENTERPRISE_ENVS_TEST_AGENT_KEY", "sk-agent-test")
    agent = agent_for(oracle_server, api_key_env="ENTERPRISE_ENVS_TEST_AGENT_KEY")
    observation, info = env.reset(seed=SEEDS[0])
    agent.reset(env, info)
    agent.act(observation)
    assert oracle_server.completions[-1].headers["authorization"] == "Bearer sk-agent-test"
    assert "sk-agent-test" not in json.dumps(agent.settings())
    # The default endpoint needs a key: a clear error before any request.
    with pytest.raises(ValueError, match="OPENAI_API_KEY"):
        LLMAgent(MODEL)
    assert api_key_from_env("OPENAI_API_KEY", "http://127.0.0.1:1/v1") == NO_KEY
    assert api_key_from_env(None, None) == NO_KEY


def test_without_tools_the_request_has_no_tool_options() -> None:
    with FakeOpenAIServer(by_turn([{"content": "Hello."}])) as server:
        agent = agent_for(server)
        agent.reset(None, {"instructions": "Be kind.", "tools": []})
        assert agent.act({"role": "user", "name": "", "content": "Hi"}) == {"message": "Hello."}
        body = server.completions[-1].body
    assert "tools" not in body and "parallel_tool_calls" not in body and "tool_choice" not in body
    assert "max_completion_tokens" not in body


# -- what the model said, as actions -----------------------------------------------------------


def test_text_with_tool_calls_is_recorded_but_never_shown_to_the_user(env: gymnasium.Env) -> None:
    aside = "Let me look you up in the directory first."
    policy = by_turn(
        [
            {"content": aside, "tool_calls": [{"name": "search_users", "arguments": '{"query": "smith"}'}]},
            {"content": "Could you confirm your email address?"},
        ]
    )
    with FakeOpenAIServer(policy) as server:
        agent = agent_for(server)
        observation, info = env.reset(seed=SEEDS[0])
        agent.reset(env, info)
        action = agent.act(observation)
        assert action["role"] == "assistant" and action["content"] == aside
        assert action["tool_calls"][0]["function"] == {
            "name": "search_users",
            "arguments": '{"query": "smith"}',
        }
        observation, *_ = env.step(action)
        assert observation["role"] == "tool"
        action = agent.act(observation)
        assert action == {"message": "Could you confirm your email address?"}
        env.step(action)
        second = server.completions[1].body["messages"]
    chat = env.unwrapped.chat
    turn = next(message for message in chat if message["role"] == "assistant" and message.get("tool_calls"))
    assert turn["content"] == aside
    assert all(aside not in message.text for message in env.unwrapped.transcript)
    # The model's next request holds its own turn verbatim, then the result under the call's id.
    assert second[2]["content"] == aside and second[3]["role"] == "tool"
    assert second[3]["tool_call_id"] == second[2]["tool_calls"][0]["id"]


def test_malformed_arguments_reach_the_env_raw_and_the_call_still_gets_a_tool_message(
    env: gymnasium.Env,
) -> None:
    policy = by_turn(
        [
            {"tool_calls": [{"name": "search_users", "arguments": '{"query": "smi'}]},
            {"content": ""},
            {"content": "Which email address do you use?"},
        ]
    )
    with FakeOpenAIServer(policy) as server:
        agent = agent_for(server)
        observation, info = env.reset(seed=SEEDS[0])
        agent.reset(env, info)
        action = agent.act(observation)
        assert action["tool_calls"][0]["function"]["arguments"] == '{"query": "smi'
        observation, *_ = env.step(action)
        action = agent.act(observation)
        assert action == {"message": ""}  # an empty reply: the env answers with an error
        observation, *_ = env.step(action)
        assert observation["role"] == "error"
        agent.act(observation)
        requests = [request.body["messages"] for request in server.completions]
    call_id = requests[1][2]["tool_calls"][0]["id"]
    assert requests[1][3]["role"] == "tool" and requests[1][3]["tool_call_id"] == call_id
    assert requests[1][3]["content"].startswith("[environment] ")  # the env's refusal, under the call's id
    assert requests[2][-1]["role"] == "user" and requests[2][-1]["content"].startswith("[environment] ")


# -- the endpoint's failures -------------------------------------------------------------------


def test_a_429_is_retried_counted_and_the_episode_still_succeeds(env: gymnasium.Env) -> None:
    seed = SEEDS[0]
    policy = OraclePolicy("ITSM-v0", [seed], fault_every=1_000, **MAKE)
    replied = {"faulted": False}

    def once_rate_limited(request: dict[str, Any]) -> Mapping[str, Any]:
        if not replied["faulted"]:
            replied["faulted"] = True
            return {"status": 429, "retry_after": 0}
        return policy(request)

    with FakeOpenAIServer(once_rate_limited) as server:
        agent = agent_for(server)
        final = play_episode(env, agent, seed)
        assert server.completions[0].body == server.completions[1].body  # the same request, again
    assert final["outcome"]["kind"] == "success"
    usage = agent.usage()
    assert usage["endpoint_retries"] == 1 and usage["endpoint_errors"] == ["429 Too Many Requests"]
    assert usage["model_calls"] == len(server.completions) - 1


def test_5xx_beyond_max_retries_is_an_infrastructure_error(env: gymnasium.Env) -> None:
    with FakeOpenAIServer(by_turn([{"status": 500}])) as server:
        agent = agent_for(server, max_retries=2)
        observation, info = env.reset(seed=SEEDS[0])
        agent.reset(env, info)
        with pytest.raises(AgentInfrastructureError, match="failed 3 times.*500 Internal Server Error"):
            agent.act(observation)
        assert len(server.completions) == 3
    usage = agent.usage()
    assert usage["endpoint_retries"] == 2 and usage["endpoint_errors"] == ["500 Internal Server Error"] * 3
    assert usage["model_calls"] == 0
    assert AgentInfrastructureError is agents_module.AgentInfrastructureError  # the runner's own class


def test_a_401_is_not_retried(env: gymnasium.Env) -> None:
    refusal = {"status": 401, "message": "Incorrect API key provided"}
    with FakeOpenAIServer(by_turn([refusal])) as server:
        agent = agent_for(server, max_retries=5)
        observation, info = env.reset(seed=SEEDS[0])
        agent.reset(env, info)
        with pytest.raises(AgentInfrastructureError, match="refused the request.*401.*Incorrect API key"):
            agent.act(observation)
        assert len(server.completions) == 1
    assert agent.usage()["endpoint_retries"] == 0


def test_an_unreachable_endpoint_is_retried_then_an_infrastructure_error(env: gymnasium.Env) -> None:
    agent = LLMAgent(
        MODEL, base_url=f"http://127.0.0.1:{closed_port()}/v1", backoff_seconds=0.0, max_retries=2
    )
    observation, info = env.reset(seed=SEEDS[0])
    agent.reset(env, info)
    with pytest.raises(AgentInfrastructureError, match="connection error"):
        agent.act(observation)
    usage = agent.usage()
    assert usage["endpoint_retries"] == 2 and len(usage["endpoint_errors"]) == 3


def test_a_timeout_is_retried_and_counted() -> None:
    replies = iter([{"content": "Too late.", "delay": 0.6}, {"content": "Hello."}])
    with FakeOpenAIServer(lambda request: next(replies)) as server:
        agent = LLMAgent(MODEL, base_url=server.base_url, backoff_seconds=0.0, max_retries=1, timeout=0.2)
        agent.reset(None, {"instructions": "", "tools": []})
        assert agent.act({"role": "user", "name": "", "content": "Hi"}) == {"message": "Hello."}
    usage = agent.usage()
    assert usage["endpoint_retries"] == 1 and usage["endpoint_errors"] == ["timeout after 0.2 s"]
    assert usage["model_calls"] == 1


def test_retry_after_is_honoured_instead_of_the_backoff() -> None:
    replies = iter([{"status": 429, "retry_after": 0.3}, {"content": "Hello."}])
    with FakeOpenAIServer(lambda request: next(replies)) as server:
        agent = LLMAgent(MODEL, base_url=server.base_url, backoff_seconds=20.0, max_retries=1, timeout=10.0)
        agent.reset(None, {"instructions": "", "tools": []})
        started = time.monotonic()
        assert agent.act({"role": "user", "name": "", "content": "Hi"}) == {"message": "Hello."}
        elapsed = time.monotonic() - started
    assert 0.3 <= elapsed < 5.0
    assert agent.usage()["endpoint_retries"] == 1


def test_the_backoff_doubles_up_to_its_cap_without_jitter(oracle_server: FakeOpenAIServer) -> None:
    agent = LLMAgent(MODEL, base_url=oracle_server.base_url, backoff_seconds=1.0)
    assert [agent.retry_delay(retry) for retry in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    assert MAX_BACKOFF_SECONDS == 30
    assert agent.retry_delay(1, retry_after=7) == 7
    assert agent.retry_delay(3, retry_after=10_000) == MAX_RETRY_AFTER_SECONDS


def test_a_client_built_elsewhere_has_its_own_retries_switched_off(env: gymnasium.Env) -> None:
    with FakeOpenAIServer(by_turn([{"status": 503}])) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-elsewhere", max_retries=4, timeout=10.0)
        agent = LLMAgent.from_client(client, MODEL, max_retries=1, backoff_seconds=0.0)
        observation, info = env.reset(seed=SEEDS[0])
        agent.reset(env, info)
        with pytest.raises(AgentInfrastructureError, match="503 Service Unavailable"):
            agent.act(observation)
        assert len(server.completions) == 2  # one try and our one retry, none of the client's
        assert server.completions[0].headers["authorization"] == "Bearer sk-elsewhere"
        assert agent.settings()["base_url"].startswith(server.base_url)
    assert agent.settings()["api_key_env"] is None


# -- the token budget --------------------------------------------------------------------------


def test_a_budget_smaller_than_one_call_ends_the_episode(
    env: gymnasium.Env, oracle_server: FakeOpenAIServer
) -> None:
    agent = agent_for(oracle_server, token_budget=10)
    observation, info = env.reset(seed=SEEDS[0])
    agent.reset(env, info)
    action = agent.act(observation)
    assert action == {"end": True}
    usage = agent.usage()
    assert (
        usage["token_budget_exhausted"] is True and usage["model_calls"] == 1 and usage["total_tokens"] > 10
    )
    _, _, terminated, _, final = env.step(action)
    assert terminated and final["outcome"]["kind"] == "failure"
    agent.reset(env, info)  # usage is per episode
    assert agent.usage()["total_tokens"] == 0 and agent.usage()["token_budget_exhausted"] is False


def test_a_budget_spent_exactly_ends_before_the_next_call(
    env: gymnasium.Env, oracle_server: FakeOpenAIServer
) -> None:
    probe = agent_for(oracle_server)
    observation, info = env.reset(seed=SEEDS[0])
    probe.reset(env, info)
    first = probe.act(observation)
    one_call = probe.usage()["total_tokens"]

    agent = agent_for(oracle_server, token_budget=one_call)
    observation, info = env.reset(seed=SEEDS[0])
    agent.reset(env, info)
    assert agent.act(observation) == first  # used == budget: the reply is still acted on
    observation, *_ = env.step(first)
    assert agent.act(observation) == {"end": True}
    usage = agent.usage()
    assert usage["model_calls"] == 1 and usage["token_budget_exhausted"] is True
    assert agent.settings()["token_budget"] == one_call


# -- the fake server itself --------------------------------------------------------------------


def test_the_fake_server_lists_models_and_speaks_openai_errors() -> None:
    with FakeOpenAIServer(scripted([{"status": 400, "message": "bad"}]), models=("a", "b")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="x", max_retries=0, timeout=10.0)
        assert [model.id for model in client.models.list()] == ["a", "b"]
        with pytest.raises(openai.BadRequestError, match="bad"):
            client.chat.completions.create(model="a", messages=[{"role": "user", "content": "hi"}])
        with pytest.raises(openai.InternalServerError):  # the script ran out: the test sees why
            client.chat.completions.create(model="a", messages=[{"role": "user", "content": "hi"}])
        assert server.policy_errors and "ran out" in server.policy_errors[0]
