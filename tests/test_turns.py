"""Assistant turns as one action (text and several tool calls), what the record keeps of every action,
and truncation by ``max_episode_steps`` still ending in a verdict."""

from __future__ import annotations

import json

import gymnasium
import pytest

from enterprise_envs.actions import MAX_TURN_CALLS

SCENARIO = "itsm.status_check"


def _call(call_id: str | None, name: str, arguments: object) -> dict:
    call = {"type": "function", "function": {"name": name, "arguments": arguments}}
    return {**call, "id": call_id} if call_id else call


def _tool_names(env: gymnasium.Env) -> list[str]:
    return [tool["function"]["name"] for tool in env.unwrapped._tools_for_agent]


@pytest.fixture
def env():
    env = gymnasium.make("ITSM-v0", scenario=SCENARIO)
    env.reset(seed=4)
    yield env
    env.close()


def test_a_turn_runs_its_calls_in_order_and_answers_each_by_id(env) -> None:
    reads = [("search_users", {"query": "a"}), ("search_users", {"query": "b"})]
    turn = {
        "role": "assistant",
        "content": "Let me look that up.",
        "tool_calls": [
            _call(f"call_model_{i}", name, json.dumps(args)) for i, (name, args) in enumerate(reads)
        ],
    }
    observation, *_ = env.step(turn)
    answers = json.loads(observation["content"])
    assert observation["role"] == "tool" and [a["tool_call_id"] for a in answers] == [
        "call_model_0",
        "call_model_1",
    ]
    inner = env.unwrapped
    assert inner.tool_calls == 2 and inner.steps == 2  # each call is a step of the budget
    assistant = inner.chat[-3]
    assert assistant["content"] == "Let me look that up." and assistant["target"] is True
    assert [call["id"] for call in assistant["tool_calls"]] == ["call_model_0", "call_model_1"]
    assert [m["tool_call_id"] for m in inner.chat[-2:]] == ["call_model_0", "call_model_1"]
    assert [m["content"] for m in inner.chat[-2:]] == [a["content"] for a in answers]
    # The text that came with the calls is recorded, not said to the user.
    assert all(message.text != "Let me look that up." for message in inner.transcript)

    # The same calls one step each give the same answers.
    again = gymnasium.make("ITSM-v0", scenario=SCENARIO)
    again.reset(seed=4)
    singles = [again.step({"tool": name, "arguments": args})[0]["content"] for name, args in reads]
    assert singles == [a["content"] for a in answers]
    again.close()


def test_a_bad_call_spoils_only_itself_and_makes_the_turn_context(env) -> None:
    name = _tool_names(env)[0]
    turn = {
        "role": "assistant",
        "content": None,
        "tool_calls": [_call("c1", name, "{not json"), _call("c2", name, "{}")],
    }
    observation, *_ = env.step(turn)
    first, second = json.loads(observation["content"])
    assert "refused" in first["content"] or "arguments" in first["content"]
    assert second["content"] == env.unwrapped.chat[-1]["content"] and env.unwrapped.tool_calls == 1
    assistant = env.unwrapped.chat[-3]
    assert assistant["target"] is False and assistant["tool_calls"][0]["function"]["arguments"] == "{not json"
    assert env.unwrapped.malformed == 1


def test_a_refused_action_is_kept_as_sent_with_its_error(env) -> None:
    observation, *_ = env.step("this is not an action")
    assert observation["role"] == "error"
    sent, answer = env.unwrapped.chat[-2:]
    assert sent == {"role": "assistant", "content": "this is not an action", "target": False}
    assert (
        answer["role"] == "user"
        and answer["name"] == "environment"
        and answer["content"] == observation["content"]
    )
    env.step({"tool_calls": [{"function": "x"}] * (MAX_TURN_CALLS + 1), "role": "assistant", "content": None})
    assert env.unwrapped.chat[-2]["target"] is False and len(env.unwrapped.chat[-2]["content"]) <= 8000
    env.step({"message": "Hello, how can I help?"})
    assert env.unwrapped.chat[-2] == {
        "role": "assistant",
        "content": "Hello, how can I help?",
        "target": True,
    }


def test_a_single_call_keeps_the_agents_id(env) -> None:
    env.step(_call("call_abc", _tool_names(env)[0], "{}"))
    assert env.unwrapped.chat[-2]["tool_calls"][0]["id"] == "call_abc"
    assert env.unwrapped.chat[-1]["tool_call_id"] == "call_abc"


def test_calls_past_the_budget_are_not_run() -> None:
    env = gymnasium.make("ITSM-v0", scenario=SCENARIO)
    _, info = env.reset(seed=4)
    limit = info["budget"]["max_tool_calls"]
    name = _tool_names(env)[0]
    *_, terminated, truncated, final = env.step(
        {"role": "assistant", "content": None, "tool_calls": [_call(None, name, "{}")] * (limit + 2)}
    )
    assert truncated and not terminated and final["tool_calls"] == limit
    answers = [m for m in final["messages"] if m["role"] == "tool"]
    assert len(answers) == limit + 2 and answers[-1]["content"].startswith("Not run")
    assert final["outcome"]["kind"] == "failure" and final["verdict"] is not None
    env.close()


def test_max_episode_steps_truncation_still_ends_in_a_verdict() -> None:
    env = gymnasium.make("ITSM-v0", scenario=SCENARIO, max_episode_steps=3)
    env.reset(seed=1)
    for _ in range(3):
        *_, terminated, truncated, final = env.step({"message": "Could you tell me more?"})
    assert truncated and not terminated
    assert (
        final["outcome"]["kind"] == "failure" and final["outcome"]["reason"] and final["verdict"] is not None
    )
    env.close()
