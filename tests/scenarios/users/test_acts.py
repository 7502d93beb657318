"""Reading agent messages (acts) and replaying the transcript (history)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users import acts
from enterprise_envs.scenarios.users.acts import (
    CHECK,
    ParsedAct,
    agent_values,
    history,
    occurs,
    parse_agent_message,
    sentences,
)
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserIntent
from enterprise_envs.verifiers import dialogue
from tests.scenarios.users.test_rules import EMPLOYEE_ID, LAPTOP, NOT_DONE, converse, vpn_persona
from tests.strategies import HOSTILE_TEXT, examples

PERSONA = vpn_persona()


def labels(text: str) -> list[str]:
    return [act.label for act in parse_agent_message(PERSONA, text)]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        # facts, unknowns, secrets, steps from the persona's own patterns
        ("Could you give me your employee ID?", ["ask_fact:employee_id"]),
        ("EMPLOYEE NUMBER please.", ["ask_fact:employee_id"]),
        (
            "Which laptop do you use? And what's the error message?",
            ["ask_fact:laptop_model", "ask_fact:error_code"],
        ),
        ("Can you read me the asset tag?", ["ask_unknown:asset_tag"]),
        ("I'll need the one-time code from your phone.", ["ask_secret:password"]),
        ("Please restart your laptop.", ["instruct_step:restart"]),
        ("Have you tried rebooting?", ["instruct_step:restart"]),
        ("What's your home address?", ["ask_fact:home_address"]),
        # several in one message, in order of appearance
        (
            "Could you give me your employee ID and your password? Then reboot.",
            ["ask_fact:employee_id", "ask_secret:password", "instruct_step:restart"],
        ),
        # built-in: claims of success
        ("It's fixed now.", ["claim_resolved"]),
        ("Your VPN access has been restored.", ["claim_resolved"]),
        ("You should be able to connect now.", ["claim_resolved"]),
        ("You're all set!", ["claim_resolved"]),
        ("That's been taken care of.", ["claim_resolved"]),
        ("I've resolved your ticket.", ["claim_resolved"]),
        ("I have closed the incident.", ["claim_resolved"]),
        # built-in: questions whether it works now
        ("Is it working now?", [f"claim_resolved:{CHECK}"]),
        ("Did that help?", [f"claim_resolved:{CHECK}"]),
        ("Okay, can you connect now?", [f"claim_resolved:{CHECK}"]),
        # built-in: sign-offs and hand-overs
        ("Is there anything else I can help you with?", ["close"]),
        ("Have a nice day!", ["close"]),
        ("Goodbye.", ["close"]),
        ("I'm transferring you to the network team.", ["transfer"]),
        ("I'll escalate this to the network team.", ["transfer"]),
        ("Let me hand you over to a colleague.", ["transfer"]),
        ("I'm transferring you now. Have a good day.", ["transfer", "close"]),
        # nothing recognized
        ("Let me look into this.", []),
        ("Which office are you in?", ["other"]),
    ],
)
def test_parse_agent_message(message: str, expected: list[str]) -> None:
    assert labels(message) == expected


@pytest.mark.parametrize(
    "message",
    [
        "Thanks for your employee ID.",  # an acknowledgement asks for nothing
        "Never share your password with anyone.",  # a warning is no request
        "Please don't send me your password.",
        "My name is Alex and I'll help you today.",
        "It's not fixed yet, I'm still looking.",  # a negated claim
        "Once it's resolved I'll close your ticket.",  # a conditional claim
        "It should work again once the gateway is back.",
        "If restarting doesn't help, let me know.",  # a conditional step
        "I've restarted the gateway on our side.",  # the agent did it
        "I'll escalate it to the network team if that fails.",  # a conditional hand-over
        "I won't transfer you, I can do this myself.",
    ],
)
def test_guards_against_false_acts(message: str) -> None:
    assert labels(message) == []


def test_negation_is_scoped_to_its_clause() -> None:
    assert labels("I don't need your password, just your employee ID.") == ["ask_fact:employee_id"]
    assert labels("Thanks for the employee ID, could you tell me the laptop model?") == [
        "ask_fact:laptop_model"
    ]


def test_questions_that_match_nothing_are_kept() -> None:
    parsed = parse_agent_message(
        PERSONA, "Thanks. Which office are you in? And what's your favourite colour?"
    )
    assert [act.act for act in parsed] == [AgentAct.OTHER, AgentAct.OTHER]
    assert [act.text for act in parsed] == ["Which office are you in?", "And what's your favourite colour?"]
    mixed = parse_agent_message(PERSONA, "What's your employee ID? Also, which floor are you on?")
    assert [act.label for act in mixed] == ["ask_fact:employee_id", "other"]
    assert mixed[1].text == "Also, which floor are you on?"


def test_parsed_act_label() -> None:
    assert ParsedAct(AgentAct.ASK_FACT, "employee_id").label == "ask_fact:employee_id"
    assert ParsedAct(AgentAct.CLOSE).label == "close"


def test_pattern_sets_compile_and_are_documented() -> None:
    """The user's patterns and the shared dialogue reader's each say why, in the module that defines them."""
    for name in (
        "CLAIM_PATTERNS",
        "CHECK_PATTERNS",
        "CLOSE_PATTERNS",
        "TRANSFER_PATTERNS",
        "REFUSAL_PATTERNS",
    ):
        patterns = getattr(dialogue, name)
        assert patterns and all(re.compile(pattern) for pattern in patterns)
    where = {
        acts: ("REQUEST_CUES",),
        dialogue: (
            "CLAIM_PATTERNS",
            "CHECK_PATTERNS",
            "CLOSE_PATTERNS",
            "TRANSFER_PATTERNS",
            "REFUSAL_PATTERNS",
            "NEGATION",
            "CONDITIONAL",
            "CONDITION_AFTER",
            "SELF_REFERENCE",
        ),
    }
    for module, names in where.items():
        lines = Path(module.__file__).read_text(encoding="utf-8").splitlines()
        for name in names:
            line = next(index for index, text in enumerate(lines) if text.startswith(f"{name}"))
            assert lines[line - 1].startswith("#: "), f"{name} has no comment saying why"


@settings(max_examples=examples(50), deadline=None)
@given(text=st.one_of(st.text(max_size=300), HOSTILE_TEXT))
def test_parse_never_fails_and_keys_are_the_personas(text: str) -> None:
    keys = {item.key for item in [*PERSONA.facts, *PERSONA.unknowns, *PERSONA.refusals, *PERSONA.steps]}
    for act in parse_agent_message(PERSONA, text):
        assert act.key is None or act.key in keys or act.key == CHECK
        assert act.act is not AgentAct.OTHER or "?" in act.text


def test_sentences() -> None:
    assert sentences("Hi. What's up?\nBye!  ") == ["Hi.", "What's up?", "Bye!"]
    assert sentences("") == []


def test_agent_values() -> None:
    text = 'I\'ve logged INC0012345 (priority 4). Mail "Network Team" at net@example.com, or press `F5`.'
    assert agent_values(text) == ["INC0012345", "4", "net@example.com", "F5", "Network Team"]
    assert agent_values("It's fine, you're all set.") == []


def test_occurs_uses_token_boundaries_and_ignores_case() -> None:
    assert occurs("E10423", "my id is e10423.")
    assert not occurs("E10423", "my id is E104230")
    assert occurs("Dell Latitude 7440", "a dell  latitude\n7440 laptop")
    assert not occurs("", "anything")


# --- history ---------------------------------------------------------------------------------------------


def test_history_of_the_empty_transcript() -> None:
    hist = history(PERSONA, [])
    assert (hist.turn, hist.spent, hist.false_claims) == (0, 0, 0)
    assert hist.given == {} and hist.asked == {} and hist.pending == () and hist.intents == ()


def test_history_replays_facts_questions_steps_and_patience() -> None:
    script = [
        "What's your employee ID?",
        "Please restart your laptop.",
        "It's fixed now.",
        "What's your employee ID again? And your laptop model?",
        "Is it working now?",
    ]
    transcript, turns = converse(PERSONA, script)
    hist = history(PERSONA, [*transcript, Message("agent", "Could you reboot?")])
    assert hist.turn == 6
    assert hist.given == {"employee_id": 1}
    assert hist.asked["ask_fact:employee_id"] == (1, 4)
    assert hist.asked["instruct_step:restart"] == (2, 6)  # the pending message counts as turn 6
    assert hist.steps_tried == {"restart": 2}
    assert hist.intents == (
        UserIntent.OPENING,
        UserIntent.INFORM,
        UserIntent.REPORT_STEP,
        UserIntent.DENY,
        UserIntent.PUSH_BACK,
        UserIntent.DENY,
    )
    assert hist.false_claims == 1  # "is it working now?" is no false claim
    assert hist.spent == 14 - turns[-1].patience_left == 1 + 1 + 4 + 3 + 1
    assert [act.label for act in hist.pending] == ["instruct_step:restart"]


def test_history_reads_given_facts_from_any_user_text() -> None:
    transcript = [
        Message("user", "Hi, VPN is down."),
        Message("agent", "Which laptop?"),
        Message("user", f"a {LAPTOP.lower()}, and my id is {EMPLOYEE_ID}"),
        Message("agent", "Ok."),
        Message("agent", "What's your employee ID?"),  # consecutive agent messages read as one
    ]
    hist = history(PERSONA, transcript)
    assert hist.given == {"laptop_model": 1, "employee_id": 1}
    assert [act.label for act in hist.pending] == ["ask_fact:employee_id"]


def test_history_is_the_same_whatever_view_was_seen() -> None:
    transcript, _ = converse(PERSONA, ["Please restart your laptop.", "It's fixed now."], NOT_DONE)
    other, _ = converse(PERSONA, ["Please restart your laptop.", "It's fixed now."], {"restart_helps": True})
    assert history(PERSONA, transcript).spent == history(PERSONA, other).spent == 1 + 4


def _clear_parse_caches() -> None:
    acts._PARSED.clear()
    for cached in (
        acts._asks,
        acts._instructs,
        acts._built_in_acts,
        dialogue._screen,
        acts.occurs,
        acts._agent_values,
    ):
        cached.cache_clear()


_AGENT_SENTENCES = st.sampled_from(
    [
        "Could you give me your employee ID?",
        "Please don't share your password.",
        "Is it working now?",
        "I've resolved the ticket.",
        "If that fails I'll escalate it to the network team.",
        "Please restart your laptop.",
        "Thanks for the staff id, have a nice day!",
        "What's the asset tag?",
        "Your laptop model, please.",
    ]
)


@settings(max_examples=examples(40), deadline=None)
@given(texts=st.lists(st.one_of(_AGENT_SENTENCES, st.text(max_size=80)), min_size=1, max_size=6))
def test_parse_caches_never_change_a_result(texts: list[str]) -> None:
    """The parse, sentence and screen caches are invisible: warm results equal results from scratch."""
    text = " ".join(texts)
    warm = [parse_agent_message(PERSONA, text) for _ in range(2)]
    _clear_parse_caches()
    assert warm[0] == warm[1] == parse_agent_message(PERSONA, text)


def test_a_cached_parse_is_never_served_to_another_persona() -> None:
    text = "Could you give me your employee ID? And your laptop model?"
    other = PERSONA.model_copy(
        update={"facts": [fact.model_copy(update={"asked_by": ["no such phrase"]}) for fact in PERSONA.facts]}
    )
    ours = [act.label for act in parse_agent_message(PERSONA, text)]
    theirs = [act.label for act in parse_agent_message(other, text)]
    assert "ask_fact:employee_id" in ours
    assert not any(label.startswith("ask_fact") for label in theirs)


@settings(max_examples=examples(60), deadline=None)
@given(sentence=st.one_of(_AGENT_SENTENCES, st.text(max_size=120)))
def test_the_screen_matches_iff_one_of_its_patterns_does(sentence: str) -> None:
    for patterns in (acts.CLAIM_PATTERNS, acts.CLOSE_PATTERNS, acts.TRANSFER_PATTERNS, acts.CHECK_PATTERNS):
        screen = dialogue._screen(patterns)
        assert screen is not None
        one = any(re.search(pattern, sentence, re.IGNORECASE) for pattern in patterns)
        assert (screen.search(sentence) is not None) == one
    assert dialogue._screen((r"employee (id|number)",)) is None  # groups: no screen, patterns one by one


def test_caches_keyed_by_episode_text_are_bounded() -> None:
    """Fact values and agent messages are new every episode: an unbounded cache would grow forever."""
    from enterprise_envs.scenarios.users import fidelity

    for cached in (
        acts.value_pattern,
        acts.occurs,
        acts._agent_values,
        dialogue._screen,
        acts._asks,
        acts._instructs,
        acts._built_in_acts,
        fidelity.phrase_pattern,
        fidelity._tokens,
    ):
        assert cached.cache_info().maxsize is not None, cached.__name__
    for index in range(acts._PARSED_LIMIT + 10):
        parse_agent_message(PERSONA, f"Message {index}.")
    assert len(acts._PARSED) <= acts._PARSED_LIMIT
