"""The rule user: every branch of the priority, patience arithmetic, disclosure rules, determinism."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users.acts import history
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    Fact,
    FactKind,
    Mood,
    Patience,
    Persona,
    Refusal,
    StepOutcome,
    Style,
    Unknown,
    UserView,
)
from enterprise_envs.scenarios.users.rules import (
    RuleUser,
    decide,
    disclosable,
    reply_for_intent,
    respond,
)
from enterprise_envs.scenarios.users.turns import Message, Terminal, UserIntent, UserTurn
from tests.strategies import examples

ROOT = Path(__file__).resolve().parents[3]

EMPLOYEE_ID = "E10423"
LAPTOP = "Dell Latitude 7440"
ADDRESS = "12 Elm Street"
ERROR = "error 809"
RESTART_TRUE = "I restarted and now it connects."
RESTART_FALSE = "I restarted but it still won't connect."


def vpn_persona(
    *,
    style: Style | None = None,
    patience: Patience | None = None,
    employee_id: str = EMPLOYEE_ID,
    employee_disclosure: Disclosure = Disclosure.ON_ASK,
    opening: str = "Hi, my VPN won't connect since this morning and I can't reach the file server.",
) -> Persona:
    """A VPN user: an employee ID (identifier, on ask, from turn 1), a laptop model, an error code
    told from turn 2, a home address never told, an unknown asset tag, a refused password (cost 2)
    and a restart step read from ``restart_helps``; done when ``vpn_fixed``."""
    return Persona(
        name="Sam Lee",
        goal="Get my VPN working again so I can reach the file server.",
        opening=opening,
        done_when="vpn_fixed",
        facts=[
            Fact(
                key="employee_id",
                value=employee_id,
                kind=FactKind.IDENTIFIER,
                disclosure=employee_disclosure,
                min_turn=1 if employee_disclosure is Disclosure.ON_ASK else 0,
                asked_by=[r"employee (id|number)", r"staff id"],
            ),
            Fact(
                key="laptop_model",
                value=LAPTOP,
                kind=FactKind.ATTRIBUTE,
                asked_by=[r"(laptop|computer) model", r"which laptop", r"what laptop"],
            ),
            Fact(
                key="error_code",
                value=ERROR,
                kind=FactKind.SYMPTOM,
                min_turn=2,
                asked_by=[r"error (code|message)"],
            ),
            Fact(
                key="home_address",
                value=ADDRESS,
                kind=FactKind.ATTRIBUTE,
                disclosure=Disclosure.NEVER,
                asked_by=[r"home address"],
            ),
        ],
        unknowns=[Unknown(key="asset_tag", asked_by=[r"asset tag"])],
        refusals=[Refusal(key="password", asked_by=[r"password|mfa|one-time code"], patience_cost=2)],
        steps=[
            StepOutcome(
                key="restart",
                asked_by=[r"restart|reboot"],
                view="restart_helps",
                when_true=RESTART_TRUE,
                when_false=RESTART_FALSE,
            )
        ],
        patience=patience or Patience(),
        style=style or Style(politeness=0.0),
    )


NOT_DONE: UserView = {"vpn_fixed": False, "restart_helps": False}
DONE: UserView = {"vpn_fixed": True, "restart_helps": True}


def converse(
    persona: Persona,
    agent: Sequence[str],
    view: UserView | Callable[[int], UserView] = NOT_DONE,
    seed: int = 0,
) -> tuple[list[Message], list[UserTurn]]:
    """Play a scripted agent against the rule user (opening first)."""
    user = RuleUser()
    transcript: list[Message] = []
    turns = [user.respond(persona, seed, transcript, {})]
    transcript.append(Message("user", turns[0].text))
    for index, text in enumerate(agent):
        transcript.append(Message("agent", text))
        now = view(index) if callable(view) else view
        turns.append(user.respond(persona, seed, transcript, now))
        transcript.append(Message("user", turns[-1].text))
    return transcript, turns


def reply(persona: Persona, agent: Sequence[str], view: UserView = NOT_DONE, seed: int = 0) -> UserTurn:
    return converse(persona, agent, view, seed)[1][-1]


# --- the opening --------------------------------------------------------------------------------


def test_empty_transcript_gives_the_opening_with_full_patience() -> None:
    persona = vpn_persona()
    turn = RuleUser().respond(persona, 0, [], {})
    assert turn.intent is UserIntent.OPENING
    assert turn.text == persona.opening
    assert turn.terminal is None
    assert turn.patience_left == persona.patience.budget
    assert turn.mood is Mood.CALM
    assert turn.backend == "rules"
    assert turn.disclosed == ()
    assert EMPLOYEE_ID not in turn.text


@pytest.mark.parametrize("allowed", [False, True])
def test_opening_identifier_only_with_identifiers_in_opening(allowed: bool) -> None:
    persona = vpn_persona(
        style=Style(politeness=0.0, identifiers_in_opening=allowed),
        employee_disclosure=Disclosure.OPENING,
        opening="Hi, my VPN won't connect. My employee ID is {{employee_id}}.",
    )
    turn = respond(persona, 3, [], {})
    assert (EMPLOYEE_ID in turn.text) is allowed
    assert ("employee_id" in turn.disclosed) is allowed
    assert "VPN won't connect" in turn.text
    assert "{{" not in turn.text


def test_opening_falls_back_to_the_goal_when_only_identifiers_were_in_it() -> None:
    persona = vpn_persona(
        employee_disclosure=Disclosure.OPENING, opening="My employee ID is {{employee_id}}."
    )
    turn = respond(persona, 0, [], {})
    assert turn.intent is UserIntent.OPENING
    assert EMPLOYEE_ID not in turn.text
    assert "VPN" in turn.text
    assert turn.disclosed == ()


def test_agent_speaking_first_still_gets_the_opening() -> None:
    persona = vpn_persona()
    turn = respond(persona, 0, [Message("agent", "Hi, what's your employee ID?")], NOT_DONE)
    assert turn.intent is UserIntent.OPENING
    assert EMPLOYEE_ID not in turn.text
    assert turn.acts == ("ask_fact:employee_id",)


def test_a_transcript_ending_with_the_user_is_refused() -> None:
    with pytest.raises(ValueError, match="agent message"):
        respond(vpn_persona(), 0, [Message("user", "hi")], NOT_DONE)


# --- one test per branch of the priority ---------------------------------------------------------


def test_refuse_a_secret() -> None:
    turn = reply(vpn_persona(), ["Could you tell me your password, please?"])
    assert turn.intent is UserIntent.REFUSE
    assert turn.acts == ("ask_secret:password",)
    assert turn.terminal is None
    assert turn.disclosed == ()
    assert turn.patience_left == 14 - 1 - 2  # per turn + the refusal's patience_cost


def test_refuse_a_never_fact() -> None:
    turn = reply(vpn_persona(), ["What's your home address?"])
    assert turn.intent is UserIntent.REFUSE
    assert ADDRESS not in turn.text
    assert turn.disclosed == ()
    assert turn.patience_left == 14 - 1 - 1  # a never fact costs what a default refusal costs


def test_dont_know_an_unknown() -> None:
    turn = reply(vpn_persona(), ["Could you read me the asset tag on the back?"])
    assert turn.intent is UserIntent.DONT_KNOW
    assert turn.acts == ("ask_unknown:asset_tag",)
    assert turn.patience_left == 13
    assert turn.disclosed == ()


def test_push_back_on_a_repeated_question_restates_the_value() -> None:
    _, turns = converse(vpn_persona(), ["What's your employee ID?", "And your employee ID?"])
    first, again = turns[1], turns[2]
    assert first.intent is UserIntent.INFORM
    assert again.intent is UserIntent.PUSH_BACK
    assert EMPLOYEE_ID in again.text
    assert again.disclosed == ("employee_id",)
    assert again.patience_left == 14 - 1 - (1 + 2)  # per turn twice + repeated_question


def test_inform_a_fact_asked_for() -> None:
    turn = reply(vpn_persona(), ["Could you give me your employee ID?"])
    assert turn.intent is UserIntent.INFORM
    assert turn.acts == ("ask_fact:employee_id",)
    assert turn.disclosed == ("employee_id",)
    assert EMPLOYEE_ID in turn.text
    assert turn.patience_left == 13


@pytest.mark.parametrize(("helps", "said"), [(False, RESTART_FALSE), (True, RESTART_TRUE)])
def test_report_step_reads_the_view(helps: bool, said: str) -> None:
    view = {"vpn_fixed": False, "restart_helps": helps}
    turn = reply(vpn_persona(), ["Please restart your computer and try again."], view)
    assert turn.intent is UserIntent.REPORT_STEP
    assert said in turn.text
    assert turn.patience_left == 13
    assert turn.terminal is None


def test_redoing_a_step_spends_redo_step() -> None:
    _, turns = converse(vpn_persona(), ["Please restart your laptop.", "Can you reboot it once more?"])
    assert [turn.intent for turn in turns[1:]] == [UserIntent.REPORT_STEP, UserIntent.REPORT_STEP]
    assert turns[1].patience_left == 13
    assert turns[2].patience_left == 13 - 1 - 1  # per turn + redo_step
    assert RESTART_FALSE in turns[2].text


def test_accept_when_the_view_says_done() -> None:
    turn = reply(vpn_persona(), ["I've reset your VPN profile, it should work now."], DONE)
    assert turn.intent is UserIntent.ACCEPT
    assert turn.terminal is Terminal.DONE
    assert turn.patience_left == 13


def test_deny_a_claim_when_the_view_says_not_done() -> None:
    turn = reply(vpn_persona(), ["It's fixed now, you're all set."])
    assert turn.intent is UserIntent.DENY
    assert turn.terminal is None
    assert turn.patience_left == 14 - 1 - 3  # per turn + false_fixed


def test_deny_a_sign_off_when_not_done() -> None:
    turn = reply(vpn_persona(), ["Is there anything else I can help you with?"])
    assert turn.intent is UserIntent.DENY
    assert turn.patience_left == 14 - 1 - 3


def test_a_question_whether_it_works_is_answered_without_the_false_claim_cost() -> None:
    persona = vpn_persona()
    assert reply(persona, ["Is it working now?"]).intent is UserIntent.DENY
    assert reply(persona, ["Is it working now?"]).patience_left == 13
    assert reply(persona, ["Is it working now?"], DONE).terminal is Terminal.DONE


def test_ack_transfer() -> None:
    turn = reply(vpn_persona(), ["I'm transferring you to the network team."])
    assert turn.intent is UserIntent.ACK_TRANSFER
    assert turn.terminal is Terminal.TRANSFERRED
    assert turn.patience_left == 13


def test_restate_the_goal_for_a_question_that_matches_nothing() -> None:
    turn = reply(vpn_persona(), ["Which office are you working from today?"])
    assert turn.intent is UserIntent.RESTATE
    assert turn.acts == ("other",)
    assert turn.unanswered == ("Which office are you working from today?",)
    assert "VPN" in turn.text
    assert EMPLOYEE_ID not in turn.text
    assert turn.patience_left == 13


def test_restate_for_a_message_with_no_act() -> None:
    turn = reply(vpn_persona(), ["Let me look into this for you."])
    assert turn.intent is UserIntent.RESTATE
    assert turn.acts == ()
    assert turn.unanswered == ()
    assert turn.patience_left == 14 - 1 - 1  # a stall costs per_turn + unhelpful


def test_a_stall_costs_more_than_a_question_the_user_cannot_answer() -> None:
    stall = reply(vpn_persona(), ["Let me look into this for you."])
    question = reply(vpn_persona(), ["Which office are you working from today?"])
    assert stall.intent is question.intent is UserIntent.RESTATE
    assert stall.patience_left < question.patience_left
    patient = vpn_persona(patience=Patience(unhelpful=0))
    assert reply(patient, ["Let me look into this for you."]).patience_left == question.patience_left


def test_abandon_when_patience_runs_out() -> None:
    persona = vpn_persona(patience=Patience(budget=5))
    _, turns = converse(persona, ["One moment."] * 3)
    assert [turn.intent for turn in turns[1:]] == [UserIntent.RESTATE, UserIntent.RESTATE, UserIntent.ABANDON]
    assert [turn.patience_left for turn in turns[1:]] == [3, 1, 0]  # a stall costs per_turn + unhelpful
    assert turns[-1].terminal is Terminal.ABANDONED
    assert turns[-1].mood is Mood.ANGRY
    assert turns[-1].disclosed == ()


def test_accept_wins_over_running_out_of_patience() -> None:
    persona = vpn_persona(patience=Patience(budget=3))
    _, turns = converse(
        persona, ["One moment.", "It's fixed now."], lambda index: DONE if index else NOT_DONE
    )
    assert turns[-1].intent is UserIntent.ACCEPT
    assert turns[-1].terminal is Terminal.DONE
    assert turns[-1].patience_left == 0


# --- several acts in one message -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "intent"),
    [
        ("Can you give me your password and your employee ID?", UserIntent.REFUSE),
        ("What's your employee ID, and the asset tag?", UserIntent.DONT_KNOW),
        ("Please restart your laptop and tell me your laptop model.", UserIntent.INFORM),
        ("I've fixed it, but please restart your laptop.", UserIntent.REPORT_STEP),
        ("I'm transferring you to the network team. Have a nice day!", UserIntent.ACK_TRANSFER),
        ("I'll escalate this to the network team. But it should work now.", UserIntent.DENY),
    ],
)
def test_several_acts_are_handled_by_priority(message: str, intent: UserIntent) -> None:
    turn = reply(vpn_persona(), [message])
    assert turn.intent is intent
    assert len(turn.acts) >= 2
    if intent is UserIntent.REFUSE:
        assert turn.disclosed == ()
        assert EMPLOYEE_ID not in turn.text


def test_push_back_beats_inform() -> None:
    _, turns = converse(vpn_persona(), ["Your employee ID?", "Your employee ID and laptop model?"])
    assert turns[-1].intent is UserIntent.PUSH_BACK
    assert turns[-1].disclosed == ("employee_id",)
    assert LAPTOP not in turns[-1].text


# --- disclosure rules ----------------------------------------------------------------------------


def test_min_turn_is_respected_with_a_stall_that_reveals_nothing() -> None:
    persona = vpn_persona()
    _, turns = converse(persona, ["What's the error message?", "What's the error message?"])
    early, late = turns[1], turns[2]
    assert early.intent is UserIntent.INFORM
    assert early.disclosed == ()
    assert ERROR not in early.text.lower()
    assert late.intent is UserIntent.INFORM  # never told, so not a repeat
    assert late.disclosed == ("error_code",)
    assert ERROR in late.text


def test_min_turn_tells_the_allowed_fact_and_stalls_the_other() -> None:
    turn = reply(vpn_persona(), ["What's your laptop model and the error message?"])
    assert turn.intent is UserIntent.INFORM
    assert turn.disclosed == ("laptop_model",)
    assert LAPTOP in turn.text
    assert ERROR not in turn.text.lower()


@pytest.mark.parametrize(("per_turn", "told"), [(1, 1), (2, 2)])
def test_answers_per_turn(per_turn: int, told: int) -> None:
    persona = vpn_persona(style=Style(politeness=0.0, answers_per_turn=per_turn))
    turn = reply(persona, ["What's your employee ID and your laptop model?"])
    assert turn.intent is UserIntent.INFORM
    assert len(turn.disclosed) == told
    assert (EMPLOYEE_ID in turn.text) + (LAPTOP in turn.text) == told


AGENT_POOL = [
    "What's your employee ID?",
    "Which laptop do you use?",
    "What's your home address?",
    "Could you give me your home address and employee ID?",
    "What's the error message?",
    "Can you read me the asset tag?",
    "I need your password to proceed.",
    "Please restart your laptop.",
    "It's fixed now.",
    "Is it working now?",
    "Anything else I can help with?",
    "Which office are you in?",
    "Let me check.",
    "I'll escalate this to the network team.",
]


@settings(max_examples=examples(40), deadline=None)
@given(
    messages=st.lists(st.sampled_from(AGENT_POOL), min_size=1, max_size=8),
    seed=st.integers(0, 2**31),
    typo_rate=st.floats(0, 0.2),
    lowercase=st.booleans(),
    answers=st.integers(1, 5),
    helps=st.booleans(),
)
def test_disclosure_invariants(
    messages: list[str], seed: int, typo_rate: float, lowercase: bool, answers: int, helps: bool
) -> None:
    style = Style(typo_rate=typo_rate, lowercase=lowercase, answers_per_turn=answers, politeness=0.5)
    persona = vpn_persona(style=style)
    view = {"vpn_fixed": False, "restart_helps": helps}
    transcript, turns = converse(persona, messages, view, seed)
    assert EMPLOYEE_ID not in turns[0].text
    for index, turn in enumerate(turns):
        assert ADDRESS.lower() not in turn.text.lower()  # never facts are never told
        assert "home_address" not in turn.disclosed
        assert turn.intent is not UserIntent.ACCEPT  # the view never says done
        before = transcript[: 2 * index] if index else []
        if index:
            allowed = disclosable(persona, history(persona, before), index)
            assert set(turn.disclosed) <= allowed
            if turn.intent is UserIntent.INFORM:
                assert len(turn.disclosed) <= answers
        for fact in persona.facts:
            if fact.key in turn.disclosed:
                assert fact.value in turn.text
        if ERROR in turn.text:
            assert index >= 2
        if turn.terminal is not None:
            break


# --- claims of success are never enough ---------------------------------------------------------------


@settings(max_examples=examples(30), deadline=None)
@given(
    claims=st.lists(
        st.sampled_from(
            [
                "It's fixed now.",
                "Your VPN has been restored, you're all set.",
                "I've closed your ticket. Have a nice day!",
                "That should do it. Anything else I can help with?",
                "Everything is working again on our side.",
                "The issue has been resolved.",
            ]
        ),
        min_size=6,
        max_size=8,
    ),
    seed=st.integers(0, 10**6),
)
def test_false_claims_never_get_accept_and_the_user_abandons(claims: list[str], seed: int) -> None:
    persona = vpn_persona()
    _, turns = converse(persona, claims, NOT_DONE, seed)
    intents = [turn.intent for turn in turns[1:]]
    assert UserIntent.ACCEPT not in intents
    assert all(turn.terminal is not Terminal.DONE for turn in turns)
    # 14 patience, 4 per false claim: denied three times, the fourth makes the user give up.
    assert intents[:4] == [UserIntent.DENY] * 3 + [UserIntent.ABANDON]
    assert [turn.patience_left for turn in turns[1:4]] == [10, 6, 2]
    assert turns[4].terminal is Terminal.ABANDONED


def test_mood_follows_patience() -> None:
    _, turns = converse(vpn_persona(), ["It's fixed now."] * 3)
    assert [turn.mood for turn in turns[1:]] == [Mood.CALM, Mood.IRRITATED, Mood.ANGRY]


# --- determinism ---------------------------------------------------------------------------------------

SCRIPT = [
    "Hi, thanks for reaching out. What's your employee ID?",
    "Thanks. Which laptop do you use, and what's the error message?",
    "Please restart your laptop.",
    "What's your employee ID again?",
    "Which office are you in?",
    "It's fixed now.",
]


def test_same_inputs_same_turn() -> None:
    persona = vpn_persona(style=Style(typo_rate=0.1, politeness=0.7, wording="wordy"))
    first = converse(persona, SCRIPT, NOT_DONE, seed=7)
    second = converse(persona, SCRIPT, NOT_DONE, seed=7)
    assert first == second
    transcript = first[0][:-1]
    assert respond(persona, 7, transcript, NOT_DONE) == respond(persona, 7, transcript, NOT_DONE)


_CHILD = """
import sys
from tests.scenarios.users.test_rules import SCRIPT, NOT_DONE, converse, vpn_persona
from enterprise_envs.scenarios.users.persona import Style
for wording in ("terse", "neutral", "wordy"):
    persona = vpn_persona(style=Style(typo_rate=0.15, politeness=0.6, lowercase=wording == "terse",
                                      wording=wording))
    for seed in range(3):
        for turn in converse(persona, SCRIPT, NOT_DONE, seed)[1]:
            print(repr(turn))
"""


def test_same_turns_in_processes_with_different_hash_seeds() -> None:
    outputs = []
    for hash_seed in ("0", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-c", _CHILD], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        outputs.append(result.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count("UserTurn(") == 3 * 3 * (len(SCRIPT) + 1)


def test_different_seeds_give_different_wording() -> None:
    persona = vpn_persona(style=Style(politeness=0.5))
    texts = {tuple(turn.text for turn in converse(persona, SCRIPT, NOT_DONE, seed)[1]) for seed in range(4)}
    assert len(texts) > 1
    intents = {
        tuple(turn.intent for turn in converse(persona, SCRIPT, NOT_DONE, seed)[1]) for seed in range(4)
    }
    assert len(intents) == 1  # the seed changes words, never decisions


# --- the API the LLM backend builds on -------------------------------------------------------------------


def test_disclosable() -> None:
    persona = vpn_persona()
    transcript, _ = converse(persona, ["What's your laptop model?"])
    assert disclosable(persona, history(persona, []), 0) == set()
    hist = history(persona, transcript)  # laptop told in turn 1
    assert disclosable(persona, hist) == {"laptop_model"}
    asking = [*transcript, Message("agent", "What's your employee ID and the error message?")]
    hist = history(persona, asking)
    assert disclosable(persona, hist) == {"laptop_model", "employee_id", "error_code"}
    assert disclosable(persona, hist, 1) == {"laptop_model", "employee_id"}
    never = [*transcript, Message("agent", "What's your home address?")]
    assert "home_address" not in disclosable(persona, history(persona, never))


def test_disclosable_at_opening_follows_identifiers_in_opening() -> None:
    for allowed in (False, True):
        persona = vpn_persona(
            style=Style(identifiers_in_opening=allowed), employee_disclosure=Disclosure.OPENING
        )
        assert ("employee_id" in disclosable(persona, history(persona, []), 0)) is allowed


def test_reply_for_intent_words_the_forced_intent_when_it_applies() -> None:
    persona = vpn_persona()
    transcript, _ = converse(persona, [])
    transcript = [*transcript, Message("agent", "What's your password and your employee ID?")]
    rule = respond(persona, 1, transcript, NOT_DONE)
    assert rule.intent is UserIntent.REFUSE
    same = reply_for_intent(persona, 1, transcript, NOT_DONE, UserIntent.REFUSE)
    assert same == rule
    inform = reply_for_intent(persona, 1, transcript, NOT_DONE, UserIntent.INFORM)
    assert inform.intent is UserIntent.INFORM
    assert EMPLOYEE_ID in inform.text
    assert inform.disclosed == ("employee_id",)
    assert inform.patience_left == rule.patience_left  # the rule policy's accounting
    restate = reply_for_intent(persona, 1, transcript, NOT_DONE, UserIntent.RESTATE)
    assert restate.intent is UserIntent.RESTATE
    # Not applicable: no unknown asked, the goal is not met, no hand-over.
    for intent in (UserIntent.DONT_KNOW, UserIntent.ACCEPT, UserIntent.ACK_TRANSFER, UserIntent.ABANDON):
        assert reply_for_intent(persona, 1, transcript, NOT_DONE, intent) == rule


def test_reply_for_intent_never_accepts_when_not_done_and_accepts_when_done() -> None:
    persona = vpn_persona()
    transcript = [Message("user", persona.opening), Message("agent", "Which office are you in?")]
    assert reply_for_intent(persona, 0, transcript, NOT_DONE, UserIntent.ACCEPT).intent is UserIntent.RESTATE
    accepted = reply_for_intent(persona, 0, transcript, NOT_DONE | {"vpn_fixed": True}, UserIntent.ACCEPT)
    assert accepted.terminal is Terminal.DONE


def test_decide_is_the_branch_without_words() -> None:
    persona = vpn_persona()
    transcript = [Message("user", persona.opening), Message("agent", "It's fixed now.")]
    decision = decide(persona, history(persona, transcript), done=False)
    assert decision.intent is UserIntent.DENY
    assert (decision.cost, decision.left, decision.terminal) == (4, 10, None)
    assert decide(persona, history(persona, transcript), done=True).terminal is Terminal.DONE


def test_user_turn_records_survive_a_json_round_trip() -> None:
    import json

    _, turns = converse(vpn_persona(), ["Your employee ID?", "Your password?", "It's fixed now."], DONE)
    assert any(turn.terminal is not None for turn in turns) and any(turn.disclosed for turn in turns)
    for turn in turns:
        assert UserTurn.from_dict(json.loads(json.dumps(turn.to_dict()))) == turn
