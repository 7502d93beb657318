"""Agent input cannot raise, stall the process, escape the spaces, share state or make an episode invalid.

Each test attacks one class of failure through ``step()``, as a hostile policy would:
non-JSON and oversized actions, hostile values in every tool's arguments on both surfaces,
maximal messages built to make regular expressions backtrack, and harnesses that mutate what
``info`` hands them. ``HYPOTHESIS_PROFILE=full`` runs the property tests at full strength
(docs/testing.md).
"""

from __future__ import annotations

import copy
import json
import time
from functools import cache

import gymnasium
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import enterprise_envs  # noqa: F401
from enterprise_envs.actions import MAX_MESSAGE_CHARS
from enterprise_envs.hostile import maximal, maximal_messages
from enterprise_envs.mocks._core.tools import Surface
from enterprise_envs.mocks.itsm import ITSM
from tests.shipped import SCENARIOS, env_id_for
from tests.strategies import HOSTILE_VALUES, RAW_JSON, RAW_TEXT, examples, from_schema

SURFACES = ("typed", "rest")
#: A step that takes this long has stalled (the budget is 50 ms; the bench measures the figure).
#: Before the bounded readers, maximal messages took 1.4-3.3 s and a 32 KB one 8 s.
STALL_SECONDS = 1.0


@cache
def _env(env_id: str, surface: str):
    """One shared env per Gym id and surface (each scenario is reset on its own suite's)."""
    return gymnasium.make(env_id, surface=surface).unwrapped


def _check_observation(env, observation) -> None:
    assert env.observation_space.contains(observation), {k: len(v) for k, v in observation.items()}


def _check_info(info) -> None:
    # What a harness does with info: serialize it (UTF-8 JSON, strict).
    json.dumps(info, ensure_ascii=False, allow_nan=False).encode("utf-8")


# -- actions that are not plain JSON -----------------------------------------------------------


_ACTIONS = st.one_of(
    HOSTILE_VALUES,
    st.builds(lambda v: {"tool": "search_users", "arguments": v}, HOSTILE_VALUES),
    st.builds(lambda v: {"message": v}, HOSTILE_VALUES),
    st.builds(lambda v: {"tool": v, "arguments": {}}, HOSTILE_VALUES),
    st.builds(
        lambda v: {"type": "function", "function": {"name": "search_users", "arguments": v}}, HOSTILE_VALUES
    ),
    st.sampled_from(
        [
            '{"message": ' + "9" * 5000 + "}",
            '{"tool": "wait", "arguments": {"seconds": NaN}}',
            '{"tool": "wait", "arguments": "{\\"seconds\\": 1e999}"}',
            "[" * 50_000,
            '{"message": "\\ud800"}',
            '{"tool": "search_users", "arguments": {"query": "\\ud800"}}',
            b"\xff\xfe{}",
            {"tool": "x" * 300, "arguments": {}},
            {"tool": "y" * 1_000_000, "arguments": {}},
            {"message": "m" * (MAX_MESSAGE_CHARS + 1)},
            {"message": "a\x00b"},
        ]
    ),
)


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(action=_ACTIONS, surface=st.sampled_from(SURFACES))
def test_step_never_raises_and_stays_in_the_spaces_whatever_the_action(action, surface) -> None:
    env = _env("ITSM-v0", surface)
    observation, info = env.reset(seed=0)
    _check_observation(env, observation)
    observation, reward, terminated, truncated, info = env.step(action)
    _check_observation(env, observation)
    _check_info(info)
    assert observation["role"] in ("user", "tool", "error")
    observation, reward, terminated, truncated, info = env.step({"end": True})
    _check_info(info)
    assert info["outcome"]["kind"] != "invalid", info["outcome"]
    # The transcript and the chat log a harness trains on are valid UTF-8 too.
    json.dumps(info["messages"], ensure_ascii=False).encode("utf-8")


def test_refusals_explain_and_echo_nothing_raw() -> None:
    env = _env("ITSM-v0", "typed")
    env.reset(seed=0)
    observation = env.step({"tool": "z" * 1_000_000, "arguments": {}})[0]
    assert observation["role"] == "error" and len(observation["content"]) < 1000
    observation = env.step({"message": "m" * (MAX_MESSAGE_CHARS + 1)})[0]
    assert observation["role"] == "error" and str(MAX_MESSAGE_CHARS) in observation["content"]
    observation = env.step('{"message": ' + "9" * 5000 + "}")[0]
    assert observation["role"] == "error" and "digits" in observation["content"]
    observation = env.step({"tool": "search_users", "arguments": {"query": "\ud800"}})[0]
    assert observation["role"] == "tool" and '"status":400' in observation["content"]
    assert "\ud800" not in observation["content"]


# -- no agent input reaches a 500 or an invalid outcome -----------------------------------------


def _tool_call(surface: Surface):
    tools = list(surface)
    return st.sampled_from(tools).flatmap(
        lambda tool: st.one_of(
            from_schema(dict(tool.input_schema)),
            st.dictionaries(
                st.sampled_from(sorted(tool.input_schema.get("properties", {})) or ["x"]), RAW_JSON
            ),
            RAW_JSON,
        ).map(lambda arguments: {"tool": tool.name, "arguments": arguments})
    )


def _episode(surface: Surface):
    step = st.one_of(
        _tool_call(surface),
        RAW_TEXT.map(lambda text: {"message": text}),
        st.sampled_from([label for label, _ in maximal_messages()]).map(
            lambda label: {"message": dict(maximal_messages())[label]}
        ),
        HOSTILE_VALUES,
    )
    return st.lists(step, min_size=1, max_size=8)


@pytest.mark.parametrize("surface", SURFACES)
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_no_agent_input_yields_a_500_or_an_invalid_episode(surface, data) -> None:
    scenario = data.draw(st.sampled_from(SCENARIOS), label="scenario")
    env = _env(env_id_for(scenario), surface)
    env.reset(seed=data.draw(st.integers(0, 3), label="seed"), options={"scenario": scenario})
    info: dict = {}
    # The scenario's own tools: the world's surface (every system it holds).
    for action in data.draw(_episode(env.world.tools()), label="actions") + [{"end": True}]:
        observation, _reward, terminated, truncated, info = env.step(action)
        _check_observation(env, observation)
        if observation["role"] == "tool":
            status = env.last_result.status
            assert status != 500 and status < 500 or env.last_result.injected, (action, observation)
        if terminated or truncated:
            break
    assert env.backend.internal_errors == [], env.backend.internal_errors[0]["traceback"]
    _check_info(info)
    assert info["outcome"]["kind"] != "invalid", info["outcome"]


# -- info is the caller's own --------------------------------------------------------------------


def test_info_tools_are_each_envs_own_and_never_reach_validation() -> None:
    first = gymnasium.make("ITSM-v0", scenario="itsm.report_incident").unwrapped
    second = gymnasium.make("ITSM-v0", scenario="itsm.report_incident").unwrapped
    _, info_a = first.reset(seed=0)
    _, info_b = second.reset(seed=0)
    pristine = copy.deepcopy(info_b["tools"])
    assert info_a["tools"] == pristine
    # A harness adapts its copy in place for its LLM API, as some do: it must touch nobody else.
    for tool in info_a["tools"]:
        parameters = tool["function"]["parameters"]
        parameters.pop("additionalProperties", None)
        for schema in parameters.get("properties", {}).values():
            schema["maxLength"] = 0
            schema["type"] = "null"
    assert second.reset(seed=1)[1]["tools"] == pristine
    assert ITSM.surface("typed").openai_tools() == pristine
    # Validation still reads the real schemas: a valid call stays valid, an unknown argument stays refused.
    first.reset(seed=0)
    assert first.step({"tool": "search_users", "arguments": {"query": "a"}})[0]["content"].startswith("{")
    refused = first.step({"tool": "search_users", "arguments": {"query": "a", "nonsense": 1}})[0]
    assert '"status":400' in refused["content"]
    first.close()
    second.close()


# -- maximal messages cannot stall a step --------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_maximal_messages_never_stall_a_step(scenario) -> None:
    env = _env(env_id_for(scenario), "typed")
    env.reset(seed=0, options={"scenario": scenario})
    persona = env.instance.persona
    extra = {**env.backend.system.hostile_text}
    extra.update({f"fact-{fact.key}": fact.value for fact in persona.facts})
    extra.update({f"ask-{fact.key}": fact.asked_by[0] for fact in persona.facts if fact.asked_by})
    slowest = (0.0, "")
    for index, (label, message) in enumerate(maximal_messages(extra_units=extra)):
        message = maximal(message, MAX_MESSAGE_CHARS, prefix=f"{index} ")  # unique: no cache helps
        env.reset(seed=0, options={"scenario": scenario})
        started = time.perf_counter()
        observation = env.step({"message": message})[0]
        slowest = max(slowest, (time.perf_counter() - started, label))
        _check_observation(env, observation)
        assert observation["role"] in ("user", "error")
    assert slowest[0] < STALL_SECONDS, slowest


def test_text_readers_are_bounded_on_texts_past_any_boundary() -> None:
    """The readers also take text from JSONL and LLMs: ten times the message cap costs no more."""
    from enterprise_envs.scenarios.users import acts, fidelity, guard
    from enterprise_envs.scenarios.users.turns import Message
    from enterprise_envs.verifiers import dialogue

    env = _env("ITSM-v0", "typed")
    env.reset(seed=0, options={"scenario": "itsm.report_incident"})
    persona = env.instance.persona
    for index, (label, text) in enumerate(maximal_messages(length=10 * MAX_MESSAGE_CHARS)):
        text = f"{index} {text}"
        messages = [Message("user", persona.opening), Message("agent", text), Message("user", text)]
        context = guard.GuardContext(persona=persona, transcript=messages, canaries=("INC0010042",))
        started = time.perf_counter()
        acts.parse_agent_message(persona, text)
        acts.agent_values(text)
        acts.restatements(persona, text, by_user=True)
        acts.says_not_working(persona, text)
        dialogue.alternatives(text)
        guard.guard(text, context)
        fidelity.fidelity_report([fidelity.Transcript(persona, messages)], with_diversity=False)
        dialogue.answers([text], "INC0010001", ["New", "In Progress"])
        dialogue.refuses(text)
        dialogue.claims_done(text)
        elapsed = time.perf_counter() - started
        assert elapsed < 5 * STALL_SECONDS, (label, elapsed)
