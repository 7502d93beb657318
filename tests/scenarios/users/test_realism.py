"""Realism rules of the rule user, each tried with a hostile agent script (issue 14)."""

from __future__ import annotations

import gymnasium
import pytest

from enterprise_envs.scenarios.users.turns import UserIntent
from tests.scenarios.users.test_rules import DONE, NOT_DONE, converse, vpn_persona

PERSONA = vpn_persona()


@pytest.mark.parametrize(
    "question",
    [
        "Can I close your ticket now?",
        "Is it okay if I close this incident?",
        "Shall I go ahead and close the ticket?",
        "Mind if I resolve it?",
    ],
)
def test_the_user_says_no_to_closing_while_the_goal_is_unmet(question: str) -> None:
    _transcript, turns = converse(PERSONA, [question])
    assert turns[-1].intent is UserIntent.DENY and not turns[-1].confirms
    _transcript, turns = converse(PERSONA, [question], view=DONE)
    assert turns[-1].intent is UserIntent.ACCEPT and turns[-1].confirms


@pytest.mark.parametrize(
    ("message", "satisfied"),
    [
        ("Your incident {number} is On Hold.", True),
        ("Your incident {number} is New, In Progress or On Hold.", False),  # a list is no answer
        ("Your incident {number} might be On Hold.", False),
        ("Is your incident {number} On Hold?", False),
    ],
)
def test_a_status_listed_among_others_does_not_satisfy_the_user(message: str, satisfied: bool) -> None:
    """status_check's user wants the status; a non-answer is read as the verifier reads it."""
    env = gymnasium.make("ITSM-v0", scenario="itsm.status_check", persona_variants=False)
    try:
        env.reset(seed=0)
        inner = env.unwrapped
        number = inner.instance.params["incident"]["number"]
        view = inner.instance.view(inner.backend, [message.format(number=number)])
        assert view["status_told"] is satisfied
    finally:
        env.close()


def test_a_no_to_closing_does_not_cost_a_false_claims_patience() -> None:
    """Asking leave to close is a question, not a false claim of success."""
    _transcript, asked = converse(PERSONA, ["Can I close your ticket now?"])
    _transcript, claimed = converse(PERSONA, ["It's fixed now."])
    assert asked[-1].patience_left > claimed[-1].patience_left


def test_the_check_applies_to_nothing_else() -> None:
    _transcript, turns = converse(
        PERSONA, ["I will close the ticket once you confirm it works."], view=NOT_DONE
    )
    assert turns[-1].intent is not UserIntent.ACCEPT


HOLDING = [
    "Please hold on while I check with the team.",
    "Let me check with the team.",
    "I'll check the details of your ticket now.",
    "One moment, I'm looking into your laptop issue.",
    "Bear with me while I look up your account.",
]
ASKING = [
    "Could you tell me your email address?",
    "I'll need your email address to find you.",
    "Let me know your email address, please.",
]


@pytest.fixture(scope="module")
def personas():
    from enterprise_envs import registry

    env = gymnasium.make("ITSM-v0", persona_variants=False)
    found = {}
    for scenario in registry.select(["itsm"], None):
        env.reset(seed=0, options={"scenario": scenario.id})
        found[scenario.id] = env.unwrapped.instance.persona
    env.close()
    return found


def test_the_agent_at_work_asks_for_nothing(personas) -> None:
    """ "Let me check with the team" once made an engineer tell their team: it asks for nothing."""
    from enterprise_envs.scenarios.users.acts import parse_agent_message

    for scenario, persona in personas.items():
        for message in HOLDING:
            asked = [a.label for a in parse_agent_message(persona, message) if a.label.startswith("ask_")]
            assert not asked, (scenario, message, asked)


def test_a_request_for_a_fact_is_still_one(personas) -> None:
    from enterprise_envs.scenarios.users.acts import parse_agent_message

    for scenario, persona in personas.items():
        for message in ASKING:
            labels = [a.label for a in parse_agent_message(persona, message)]
            assert "ask_fact:email" in labels, (scenario, message, labels)


def test_a_greeting_asks_for_nothing(personas) -> None:
    """'How can I help you today?' once told the duplicates lead when the tickets came in."""
    from enterprise_envs.scenarios.users.acts import parse_agent_message

    for scenario, persona in personas.items():
        for message in (
            f"Hi {persona.name}, how can I help you today?",
            "Good morning!",
            "Hello, thanks for reaching out.",
        ):
            asked = [a.label for a in parse_agent_message(persona, message) if a.label.startswith("ask_")]
            assert not asked, (scenario, message, asked)
