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
