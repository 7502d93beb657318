"""The oracle as a demonstrator: its traces never use a fact the user has not told yet.

The checker (``verifiers/audit/disclosure.py``) is tested on crafted traces first; then the oracle
is played on every shipped scenario, on both surfaces, with persona variants on (some users answer
one question per turn), and its traces must hold no premature use. The default run plays a few
seeds; ``-m slow`` plays 50 per scenario and surface.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium
import pytest

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs import registry
from enterprise_envs.agents import MAX_REASKS, OracleAgent, play_episode
from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.scenarios.users.persona import Fact, Persona
from enterprise_envs.scenarios.users.rules import RuleUser
from enterprise_envs.scenarios.users.turns import Message, UserIntent, UserTurn
from enterprise_envs.verifiers.audit.disclosure import premature_uses, private_facts
from enterprise_envs.verifiers.expectations import ExpectationError

SURFACES = ("typed", "rest")
#: (suite, scenario) for every shipped scenario, under every suite serving it.
SUITE_SCENARIOS = [
    (suite_id, scenario.id)
    for suite_id, suite in registry.suites().items()
    for scenario in registry.select(suite)
]

EMAIL = Fact(key="email", value="amy.carney@example.com", kind="identifier", asked_by=["e-?mail"])
NUMBER = Fact(key="employee_number", value="100146", kind="identifier", asked_by=["employee number"])
DETAILS = Fact(
    key="details", value="nothing is broken, my new starter just needs to be ready", kind="attribute"
)
SCOPE = Fact(key="scope", value="only me", kind="attribute")
SYMPTOM = Fact(key="error_code", value="0x80004005", kind="symptom")
FACTS = (EMAIL, NUMBER, DETAILS, SCOPE, SYMPTOM)


def _call(name: str, arguments: Mapping[str, Any], call_id: str = "call_1") -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": json.dumps(arguments)},
            }
        ],
    }


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


def _tool(content: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(content)}


# -- the checker on crafted traces ------------------------------------------------------------------


def test_a_lookup_by_an_email_nobody_gave_is_premature() -> None:
    messages = [
        _user("Hi, I need a laptop for my new starter."),
        {"role": "assistant", "content": "Could you give me your e-mail address?"},
        _user("Sorry, what do you need?"),
        _call("search_users", {"query": "amy.carney@example.com"}),
    ]
    uses = premature_uses(messages, FACTS)
    assert [(use.message, use.call_id, use.tool, use.fact) for use in uses] == [
        (3, "call_1", "search_users", "email")
    ]
    assert "amy.carney@example.com" in str(uses[0])


def test_a_use_after_the_user_said_it_is_fair_whatever_the_case() -> None:
    messages = [
        _user("Hi."),
        {"role": "assistant", "content": "Could you give me your e-mail address?"},
        _user("Sure, it's Amy.Carney@Example.com."),
        _call("search_users", {"query": "amy.carney@example.com"}),
    ]
    assert premature_uses(messages, FACTS) == []
    # The same call before the answer is premature, and the use is found whatever its case.
    early = [messages[0], _call("search_users", {"query": "AMY.CARNEY@EXAMPLE.COM"}), *messages[1:3]]
    assert [use.fact for use in premature_uses(early, FACTS)] == ["email"]


def test_a_value_a_tool_result_showed_is_fair_to_use() -> None:
    messages = [
        _user("Hi, it's Amy Carney, I'm locked out."),
        _call("search_users", {"query": "Amy Carney"}),
        _tool(
            {"users": [{"name": "Amy Carney", "email": "amy.carney@example.com", "employee_number": 100146}]}
        ),
        _call("unlock_user", {"user": "amy.carney@example.com", "note": "employee 100146"}, "call_2"),
    ]
    assert premature_uses(messages, FACTS) == []
    # Without the result, both values were pulled out of thin air.
    assert {use.fact for use in premature_uses([messages[0], messages[3]], FACTS)} == {
        "email",
        "employee_number",
    }


def test_the_instructions_and_whole_tokens_decide_what_is_known() -> None:
    call = _call("get_user", {"user": "amy.carney@example.com"})
    assert premature_uses([call], FACTS, known=["Escalations go to amy.carney@example.com."]) == []
    # 100146 is not inside 1001460: values match as whole tokens.
    assert [
        use.fact
        for use in premature_uses([_user("My number is 1001460."), _call("x", {"n": "100146"})], FACTS)
    ] == ["employee_number"]


def test_free_text_short_and_symptom_values_do_not_count() -> None:
    assert [fact.key for fact in private_facts(FACTS)] == ["email", "employee_number"]
    messages = [_call("create_incident", {"description": "only me; 0x80004005; " + DETAILS.value})]
    assert premature_uses(messages, FACTS) == []


def test_malformed_arguments_are_read_as_text() -> None:
    call = {
        "role": "assistant",
        "tool_calls": [
            {"id": "c", "function": {"name": "search", "arguments": "{not json amy.carney@example.com"}}
        ],
    }
    assert [use.fact for use in premature_uses([call], FACTS)] == ["email"]


# -- the oracle -------------------------------------------------------------------------------------


def _oracle_uses(env: gymnasium.Env, seed: int, scenario: str) -> tuple[dict[str, Any], list[Any]]:
    episode = play_episode(env, OracleAgent(), seed, {"scenario": scenario})
    instance = env.unwrapped.instance
    uses = premature_uses(
        episode["messages"], instance.persona.facts, [episode["reset_info"]["instructions"]]
    )
    return episode, uses


def _play_all(seeds: Callable[[int], Sequence[int]]) -> int:
    """Play the oracle on every scenario of every suite on both surfaces; the episodes played.

    Args:
        seeds: The seeds for the scenario at this index of :data:`SUITE_SCENARIOS`.
    """
    problems, played = [], 0
    for suite_id in registry.suites():
        for surface in SURFACES:
            env = gymnasium.make(suite_id, surface=surface)
            try:
                for index, (suite, scenario) in enumerate(SUITE_SCENARIOS):
                    if suite != suite_id:
                        continue
                    for seed in seeds(index):
                        episode, uses = _oracle_uses(env, seed, scenario)
                        played += 1
                        if uses or episode["outcome"]["kind"] != "success" or episode["reward"] != 1.0:
                            problems.append((suite_id, scenario, surface, seed, episode["outcome"], uses))
            finally:
                env.close()
    assert not problems, "\n".join(map(str, problems[:20]))
    return played


def test_oracle_traces_hold_no_premature_use_on_every_scenario_and_surface() -> None:
    # One seed per scenario and surface, a different one for each scenario (so the persona variants
    # vary): a few seconds. The slow test below plays 50 seeds each.
    assert _play_all(lambda index: [index]) == 2 * len(SUITE_SCENARIOS)


@pytest.mark.slow
def test_oracle_traces_hold_no_premature_use_on_50_seeds() -> None:
    assert _play_all(lambda index: range(50)) == 100 * len(SUITE_SCENARIOS)


def test_the_oracle_asks_again_for_the_fact_a_one_answer_user_left_out() -> None:
    # Seed 0 draws a manager who answers one question per turn: asked for the starter's and the
    # colleague's e-mail addresses in one message, they give the starter's only.
    env = gymnasium.make("Workplace-v0", scenario="itsm.workplace.onboarding")
    episode, uses = _oracle_uses(env, 0, "itsm.workplace.onboarding")
    instance = env.unwrapped.instance
    assert instance.persona.style.answers_per_turn == 1
    assert uses == [] and episode["outcome"]["kind"] == "success"
    colleague = instance.persona.fact("colleague_email").value
    said = [m for m in episode["messages"] if m["role"] == "assistant" and m.get("content")]
    solution = _solution_messages(instance)
    # (The closing message binds the order's number: it is no re-ask.)
    reasks = [m["content"] for m in said[:-1] if m["content"] not in solution]
    assert reasks == [f"Could you also give me {instance.params['colleague']['firstName']}'s e-mail address?"]
    # The call with the colleague's address comes after the user's message holding it.
    order = [m for m in episode["messages"] if m["role"] in ("user", "assistant")]
    told = next(i for i, m in enumerate(order) if m["role"] == "user" and colleague in (m["content"] or ""))
    used = next(i for i, m in enumerate(order) if colleague in json.dumps(m.get("tool_calls") or []))
    assert told < used
    env.close()


def _solution_messages(instance: Any) -> set[str]:
    """The solution's messages that bind without saved results (the closing one needs them)."""
    out = set()
    for step in instance.solution("typed").steps:
        if step.message is not None:
            with contextlib.suppress(ExpectationError):
                out.add(str(instance.bind_step(step, {}).message))
    return out


class Withholding:
    """The rule user's opening, then never a fact: "I don't have that to hand." to everything."""

    def respond(
        self, persona: Persona, seed: int, transcript: Sequence[Message], view: Mapping[str, bool]
    ) -> UserTurn:
        if not transcript:
            return RuleUser().respond(persona, seed, transcript, view)
        return UserTurn("I don't have that to hand, sorry.", UserIntent.RESTATE)


def test_the_oracle_asks_at_most_twice_per_fact_then_goes_on() -> None:
    env = gymnasium.make("Workplace-v0", scenario="itsm.workplace.onboarding", user=Withholding())
    episode = play_episode(env, OracleAgent(), 0)
    instance = env.unwrapped.instance
    solution = _solution_messages(instance)
    reasks = [
        m["content"]
        for m in episode["messages"]
        if m["role"] == "assistant" and m.get("content") and m["content"] not in solution
    ]
    assert reasks, "the withheld facts were never asked again"
    facts = {fact.key: fact for fact in instance.persona.facts}
    for fact in private_facts(instance.persona.facts):
        patterns = facts[fact.key].asked_by
        asked = [text for text in reasks if any(re.search(p, text, re.IGNORECASE) for p in patterns)]
        assert len(asked) <= MAX_REASKS, (fact.key, asked)
    # It went on with the solution (it never stalls on a user who will not tell).
    assert episode["tool_calls"] > 0 and episode["terminated"]
    env.close()


def test_an_open_loop_recording_plays_the_solution_as_written() -> None:
    # The audit records the oracle without relaying the user's replies: no question is added.
    episodes = EnvEpisodes("itsm.workplace.onboarding")
    try:
        run = episodes.record(0, "typed", "typed")
    finally:
        episodes.close()
    solution = registry.scenarios()["itsm.workplace.onboarding"].solutions[0]
    assert [step.action.kind for step in run.steps] == [
        "tool" if step.tool else "message" for step in solution.steps
    ] + ["end"]
