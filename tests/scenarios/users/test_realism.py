"""Realism rules of the rule user, each tried with a hostile agent script (issue 14)."""

from __future__ import annotations

import gymnasium
import pytest

from enterprise_envs.scenarios.users import acts
from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.acts import (
    CLOSED_SETS,
    history,
    parse_agent_message,
    says_not_working,
    says_working,
    shaped_values,
)
from enterprise_envs.scenarios.users.fidelity import Transcript
from enterprise_envs.scenarios.users.persona import Disclosure, Persona, UserView
from enterprise_envs.scenarios.users.pilot import question_for
from enterprise_envs.scenarios.users.population import population
from enterprise_envs.scenarios.users.rules import disclosable
from enterprise_envs.scenarios.users.templates import AFTER_WORKS, AFTER_WORKS_BY_MOOD, STILL_WORKS, label
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserIntent
from tests.scenarios.users.test_rules import DONE, NOT_DONE, converse, vpn_persona
from tests.scenarios.users.test_style import every_template

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
        seen = inner.instance.observe(inner.backend)
        view = inner.instance.view(seen, [Message("agent", message.format(number=number))])
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
    for scenario in registry.select(registry.suite("ITSM-v0"), None):
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


CHECKING = [
    "Can I close your ticket now?",
    "Is it okay if I close your incident now?",
    "Is it working now?",
    "Shall I go ahead and resolve your ticket now?",
]


def test_every_shipped_user_says_no_to_closing_and_hears_no_question_in_it(personas) -> None:
    """'Can I close your ticket now?' once read as asking for the ticket number ('no' in 'now')
    in four personas, who answered with a number instead of saying no."""
    from enterprise_envs.scenarios.users.acts import parse_agent_message

    for scenario, persona in personas.items():
        for message in CHECKING:
            asked = [a.label for a in parse_agent_message(persona, message) if a.label.startswith("ask_")]
            assert not asked, (scenario, message, asked)
            _transcript, turns = converse(persona, [message])
            assert turns[-1].intent is UserIntent.DENY and not turns[-1].confirms, (scenario, message)


# --- the user's memory: corrections, its own word, "which one?" (issue 14, items 2 and 3) ----------


def memory_persona() -> Persona:
    """The VPN user, who also told at the opening that it started on Monday (``since``), has a
    symptom that says the problem is still there (``still_dropping``) and a second step that never
    helps (``reinstall``, read from ``reinstall_helps``)."""
    base = vpn_persona()
    return Persona(
        **{
            **base.model_dump(),
            "facts": [
                *base.model_dump()["facts"],
                {
                    "key": "since",
                    "value": "Monday",
                    "kind": "history",
                    "disclosure": "opening",
                    "asked_by": [r"since when", r"when did (it|this|the problem) start"],
                },
                {
                    "key": "still_dropping",
                    "value": "it still drops every few minutes",
                    "kind": "symptom",
                    "asked_by": [r"still (happening|dropping|the case)"],
                },
            ],
            "steps": [
                *base.model_dump()["steps"],
                {
                    "key": "reinstall",
                    "asked_by": [r"reinstall"],
                    "view": "reinstall_helps",
                    "when_true": "I reinstalled it and now it connects.",
                    "when_false": "I reinstalled it but it still won't connect.",
                },
            ],
        }
    )


MEMORY_VARIANTS = population(memory_persona())
#: The restart helped, the reinstall would not have, and the goal is not met (nothing is closed).
WORKS_NOT_DONE: UserView = {"vpn_fixed": False, "restart_helps": True, "reinstall_helps": False}


def _said(transcript: list[Message], persona: Persona, **kwargs: object) -> Transcript:
    return Transcript(persona, tuple(transcript), **kwargs)  # type: ignore[arg-type]


def _has(text: str, markers: tuple[str, ...]) -> bool:
    """Whether a text holds one of a fidelity lexicon's phrases (as the metrics read them)."""
    return any(fm.phrase_pattern(marker).search(text) for marker in markers)


@pytest.mark.parametrize("persona", MEMORY_VARIANTS, ids=lambda persona: persona.variant)
@pytest.mark.parametrize(
    ("script", "key", "wrong"),
    [
        (["So it started on Tuesday, right?"], "since", "Tuesday"),
        (["Just to confirm, you said this began on Friday?"], "since", "Friday"),
        (
            ["What's your employee ID?", "Thanks. Your employee ID is E10432, correct?"],
            "employee_id",
            "E10432",
        ),
        (["So your laptop model is a Dell Latitude 7450, right?"], "laptop_model", "7450"),
    ],
)
def test_the_user_corrects_a_wrong_restatement_in_its_own_words(
    persona: Persona, script: list[str], key: str, wrong: str
) -> None:
    transcript, turns = converse(persona, script)
    reply = turns[-1]
    fact = persona.fact(key)
    assert fact is not None
    assert f"misstate_fact:{key}" in reply.acts
    assert reply.intent is UserIntent.CORRECT, reply
    assert fact.value in reply.text and key in reply.disclosed
    assert wrong not in reply.text
    assert fm.missing_corrections(_said(transcript, persona)) == fm.Ratio(0, 1)
    assert fm.false_corrections(_said(transcript, persona)).hits == 0


def test_getting_wrong_what_the_user_said_costs_patience() -> None:
    """A guess at a fact the user never told costs a turn; getting a told one wrong costs more."""
    persona = memory_persona()
    _transcript, guessed = converse(persona, ["Which laptop model do you have, a Dell Latitude 7450?"])
    _transcript, told = converse(
        persona, ["Which laptop model do you have?", "So your laptop model is a Dell Latitude 7450, right?"]
    )
    assert guessed[-1].intent is told[-1].intent is UserIntent.CORRECT
    assert guessed[-1].patience_left == persona.patience.budget - persona.patience.per_turn
    assert told[-2].patience_left - told[-1].patience_left == (
        persona.patience.per_turn + persona.patience.repeated_question
    )


@pytest.mark.parametrize("persona", MEMORY_VARIANTS, ids=lambda persona: persona.variant)
@pytest.mark.parametrize(
    "script",
    [
        ["So it started Monday, right?"],
        ["Just to confirm, this started on Monday?"],
        ["What's your employee ID?", "So your employee ID is E10423, correct?"],
    ],
)
def test_a_right_restatement_is_never_corrected(persona: Persona, script: list[str]) -> None:
    transcript, turns = converse(persona, script)
    reply = turns[-1]
    assert any(act.startswith("restate_fact:") for act in reply.acts)
    assert reply.intent is not UserIntent.CORRECT
    assert reply.intent in (UserIntent.CONFIRM, UserIntent.PUSH_BACK, UserIntent.ABANDON), reply
    assert fm.false_corrections(_said(transcript, persona)) == fm.Ratio(0, 1)


def test_a_confirmed_value_is_confirmed_again_and_defended_the_same_way() -> None:
    """The user remembers what it confirmed: the same value again is confirmed, a wrong one corrected
    with the same value, never another."""
    persona = memory_persona()
    transcript, turns = converse(
        persona,
        ["So it started Monday, right?", "So it started Monday?", "Sorry, so it began on Thursday?"],
    )
    assert [turn.intent for turn in turns[1:]] == [UserIntent.CONFIRM, UserIntent.CONFIRM, UserIntent.CORRECT]
    assert history(persona, transcript[:-1]).confirmed == {"since": 1}
    assert "Monday" in turns[-1].text and "Thursday" not in turns[-1].text
    assert fm.self_contradiction(_said(transcript, persona)).hits == 0


@pytest.mark.parametrize("persona", MEMORY_VARIANTS, ids=lambda persona: persona.variant)
@pytest.mark.parametrize(
    ("message", "held"),
    [
        ("So the error code is error 810, right?", "error 809"),  # not before user turn 2
        ("So your home address is 14 Elm Street, right?", "12 Elm Street"),  # never told
    ],
)
def test_a_value_the_user_may_not_tell_yet_is_not_corrected(
    persona: Persona, message: str, held: str
) -> None:
    transcript, turns = converse(persona, [message])
    assert turns[-1].intent is not UserIntent.CORRECT
    assert held not in turns[-1].text
    assert fm.missing_corrections(_said(transcript, persona)) == fm.Ratio(0, 0)


@pytest.mark.parametrize(
    "message",
    [
        "I'll call you back on Tuesday.",
        "The engineer can come round on Tuesday, right?",
        "Your new ticket is INC0010399.",
        "Was it Monday or Tuesday?",  # the answer is among the options: a question, not a guess
        "It's not Tuesday, right?",
        "Is your laptop a Dell Latitude 7440?",
    ],
)
def test_what_is_not_put_back_wrongly_is_not_corrected(message: str) -> None:
    persona = memory_persona()
    assert not [act for act in parse_agent_message(persona, message) if act.act is AgentAct.MISSTATE_FACT]
    _transcript, turns = converse(persona, [message])
    assert turns[-1].intent is not UserIntent.CORRECT


def _another_value(persona: Persona, value: str) -> str | None:
    """``value`` with its first value-like token replaced by another of the same shape that the
    persona never owns (a weekday for a weekday, a digit changed in a number), or None."""
    owned = acts._persona_values(persona)
    for token in shaped_values(value):
        kind = token.shape.split(":", 1)[0]
        if token.shape in CLOSED_SETS:
            other = next(
                (w for w in sorted(CLOSED_SETS[token.shape]) if w not in owned.get(token.shape, ())), None
            )
            new = other.capitalize() if other and token.text[:1].isupper() else other
        elif kind == "count":
            new = str(int(token.norm) + 5)
        elif kind == "time":
            new = f"{(int(token.norm[:2]) + 3) % 24:02d}:{token.norm[3:]}"
        elif kind == "email":
            new = "x" + token.text
        else:  # digits, codes, record numbers, dates: the last digit changed
            last = max(index for index, char in enumerate(token.text) if char.isdigit())
            new = token.text[:last] + str((int(token.text[last]) + 3) % 10) + token.text[last + 1 :]
        if new is not None:
            return value[: token.start] + new + value[token.end :]
    return None


def test_every_shipped_user_corrects_a_wrong_restatement_it_may_tell(personas) -> None:
    """Every fact of every shipped persona whose value has a shape, asked for and then said back
    wrong: corrected with its value when the user may tell it, left alone otherwise."""
    corrected = 0
    for scenario, persona in personas.items():
        for fact in persona.facts:
            wrong = _another_value(persona, fact.value)
            if wrong is None or fact.disclosure is Disclosure.NEVER:
                continue
            restated = f"Just to confirm, your {label(fact.key)} is {wrong}, right?"
            transcript, turns = converse(persona, [question_for(fact), restated])
            reply = turns[-1]
            where = (scenario, fact.key, restated, reply.text)
            assert f"misstate_fact:{fact.key}" in reply.acts, where
            if fact.key in disclosable(persona, history(persona, transcript[:-1])):
                assert reply.intent is UserIntent.CORRECT and acts.occurs(fact.value, reply.text), where
                corrected += 1
            else:
                assert reply.intent is not UserIntent.CORRECT, where
                assert not acts.occurs(fact.value, reply.text), where
            # The right value said back is never corrected.
            transcript, turns = converse(persona, [question_for(fact), restated.replace(wrong, fact.value)])
            assert turns[-1].intent is not UserIntent.CORRECT, (scenario, fact.key, turns[-1].text)
    assert corrected >= len(personas)  # every persona has a shaped fact: at least its email


@pytest.mark.parametrize("persona", MEMORY_VARIANTS, ids=lambda persona: persona.variant)
def test_the_user_never_takes_back_that_it_works(persona: Persona) -> None:
    """Once the restart worked, no later reply says the problem is still there: asked to close,
    told it is resolved, told to reinstall (which would not have helped), asked about the
    symptom, stalled; the goal stays unmet and every no is still a no."""
    script = [
        "Please restart your laptop.",
        "Can I close your ticket now?",
        "I've resolved your ticket, you're all set.",
        "Please reinstall the VPN client.",
        "Is it still dropping?",
        "Let me check something.",
    ]
    transcript, turns = converse(persona, script, WORKS_NOT_DONE)
    assert turns[1].intent is UserIntent.REPORT_STEP and turns[1].confirms
    later = turns[2:]
    assert later[0].intent in (UserIntent.DENY, UserIntent.ABANDON)
    for turn in later:
        assert not says_not_working(persona, turn.text), turn
        assert persona.fact("still_dropping").value not in turn.text  # type: ignore[union-attr]
    said = _said(transcript, persona, final_view=WORKS_NOT_DONE)
    assert fm.self_contradiction(said) == fm.Ratio(0, len(script))
    assert fm.say_no_rate(said) in (fm.Ratio(1, 1), fm.Ratio(0, 0))  # 0/0: gave up instead
    assert history(persona, transcript).works_said == 1


def test_without_its_own_word_the_user_still_says_it_does_not_work() -> None:
    """The memory is what changes the reply: the same script without the restart that worked."""
    persona = memory_persona()
    transcript, turns = converse(persona, ["Please restart your laptop.", "Can I close your ticket now?"])
    assert not turns[1].confirms
    assert turns[2].intent is UserIntent.DENY and says_not_working(persona, turns[2].text)
    assert fm.self_contradiction(_said(transcript, persona)).hits == 0


def test_a_user_who_opens_saying_it_works_never_denies_it(personas) -> None:
    """A shipped persona whose own opening says the problem is fixed (a colleague's ticket to close:
    "that's sorted now") is asked whether it works and told it is done: it keeps to its opening,
    and a message that gives it nothing still gets its goal restated (the goal is the premise)."""
    openers = {
        scenario: persona for scenario, persona in personas.items() if says_working(persona, persona.opening)
    }
    assert openers  # itsm.refuse_foreign_ticket
    for scenario, persona in openers.items():
        transcript, turns = converse(persona, ["Is it working now?", "I've closed it, you're all set."])
        assert [turn.intent for turn in turns[1:]] == [UserIntent.DENY, UserIntent.DENY], scenario
        assert not any(says_not_working(persona, turn.text) for turn in turns[1:]), scenario
        assert fm.self_contradiction(_said(transcript, persona)).hits == 0
        _transcript, turns = converse(persona, ["Let me look into it."])
        assert turns[-1].intent is UserIntent.RESTATE and history(persona, _transcript).works_said == 0
        assert not any(text in turns[-1].text for bank in AFTER_WORKS.values() for text in bank), scenario


@pytest.mark.parametrize("persona", MEMORY_VARIANTS, ids=lambda persona: persona.variant)
@pytest.mark.parametrize(
    "message",
    [
        "Your ticket is New, In Progress or On Hold.",
        "It's INC0010001, INC0010002 or INC0010003.",
        "It's either Monday or Tuesday.",
        "Your ticket INC0010001 is New or On Hold. Anything else I can help with?",
    ],
)
@pytest.mark.parametrize("view", [NOT_DONE, DONE], ids=["not_done", "done"])
def test_several_answers_for_one_get_which_one(persona: Persona, message: str, view: UserView) -> None:
    _transcript, turns = converse(persona, [message], view)
    reply = turns[-1]
    assert "alternatives" in reply.acts
    assert reply.intent is UserIntent.CLARIFY and reply.terminal is None, reply
    assert any(fm.typo_equal("which", word) for word in fm.words(reply.text.casefold())), reply.text


@pytest.mark.parametrize(
    "message",
    [
        "Is it New or On Hold?",
        "Was it Monday or Tuesday?",
        "Your ticket is On Hold.",
        "Your tickets are A1 and B2.",
    ],
)
def test_a_question_with_options_or_one_answer_gets_no_which_one(message: str) -> None:
    _transcript, turns = converse(memory_persona(), [message])
    assert "alternatives" not in turns[-1].acts and turns[-1].intent is not UserIntent.CLARIFY


def test_every_shipped_user_asks_which_one(personas) -> None:
    for scenario, persona in personas.items():
        _transcript, turns = converse(persona, ["Your ticket is New, In Progress or On Hold."])
        assert turns[-1].intent is UserIntent.CLARIFY, (scenario, turns[-1].text)


def test_only_a_denial_says_the_problem_is_still_there() -> None:
    """After the user said it works, any bank but the denial may be used: none of them takes it back;
    the words said instead are a no, and never a claim that all is done."""
    for where, template in every_template():
        if not where.startswith(("deny/", "opening/")):
            assert not says_not_working(memory_persona(), template), (where, template)
    for bank in (*AFTER_WORKS.values(), *AFTER_WORKS_BY_MOOD.values()):
        for template in bank:
            assert _has(template, fm.DENY_MARKERS) and not fm.claims_done(template), template
    for templates in STILL_WORKS.values():
        assert not any(fm.claims_done(template) for template in templates)
    for where, template in every_template():
        corrects = _has(template, fm.CORRECTION_MARKERS)
        assert corrects is where.startswith("correct/"), (where, template)
