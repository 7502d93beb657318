"""The style pass (courtesy, lowercase, typos around protected values) and the wording banks."""

from __future__ import annotations

import random
import re
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users.persona import Disclosure, FactKind, Mood, Register, Style
from enterprise_envs.scenarios.users.rules import respond
from enterprise_envs.scenarios.users.style import apply_style, protected_runs, typo
from enterprise_envs.scenarios.users.templates import (
    AFTER_WORKS,
    AFTER_WORKS_BY_MOOD,
    BANKS,
    COURTESY,
    EDGES,
    FACT_PHRASINGS,
    MOOD_BANKS,
    PLACEHOLDERS,
    STALL,
    STEP_REDO,
    STILL_WORKS,
    fill,
    goal_sentence,
    label,
    placeholders_in,
    register_for,
)
from enterprise_envs.scenarios.users.turns import Message, UserIntent
from tests.scenarios.users.test_rules import LAPTOP, vpn_persona
from tests.strategies import examples

TEXT = "Sure, my employee ID is E10423 and the laptop is a Dell Latitude 7440. Does that help you?"
VALUES = ["E10423", "Dell Latitude 7440"]

# --- the style pass ------------------------------------------------------------------------------------


def test_no_style_leaves_the_text_alone() -> None:
    assert apply_style(TEXT, VALUES, Style(politeness=0.0), random.Random(1)) == TEXT


def test_lowercase_spares_protected_values() -> None:
    styled = apply_style(TEXT, VALUES, Style(politeness=0.0, lowercase=True), random.Random(1))
    assert (
        styled == "sure, my employee id is E10423 and the laptop is a Dell Latitude 7440. does that help you?"
    )


def test_courtesy_follows_politeness_and_mood() -> None:
    always = Style(politeness=1.0)
    styled = apply_style("It still drops.", [], always, random.Random(0))
    assert styled.startswith("It still drops. ") and styled.split(". ", 1)[1] in COURTESY
    assert apply_style("It still drops.", [], Style(politeness=0.0), random.Random(0)) == "It still drops."
    assert apply_style("It still drops.", [], always, random.Random(0), mood=Mood.ANGRY) == "It still drops."
    assert apply_style("Great, thanks!", [], always, random.Random(0)) == "Great, thanks!"  # no double thanks


def test_typos_happen_at_the_maximum_rate() -> None:
    words = "please could you check whether the connection works because nothing happens here " * 5
    styled = apply_style(words, [], Style(politeness=0.0, typo_rate=0.2), random.Random(3))
    assert styled != words
    changed = sum(a != b for a, b in zip(words.split(), styled.split(), strict=False))
    assert 0 < changed < len(words.split())


@pytest.mark.parametrize("seed", range(20))
def test_a_typo_keeps_the_first_letter_and_changes_little(seed: int) -> None:
    rng = random.Random(seed)
    out = typo("connection", rng)
    assert out[0] == "c"
    assert abs(len(out) - len("connection")) <= 1


def test_protected_runs_cover_every_occurrence() -> None:
    runs = protected_runs("E1 and E1 again, E1", ["E1", ""])
    assert "".join(chunk for chunk, _ in runs) == "E1 and E1 again, E1"
    assert [chunk for chunk, protected in runs if protected] == ["E1", "E1", "E1"]
    assert protected_runs("", ["x"]) == []


VALUE = st.one_of(
    st.from_regex(r"\A[A-Z]{1,3}-?[0-9]{3,7}\Z"),
    st.from_regex(r"\A[a-z]{2,8}\.[a-z]{2,8}@example\.com\Z"),
    st.text(alphabet=string.ascii_letters + string.digits + " .-'", min_size=1, max_size=24).filter(
        lambda value: value.strip() and "{" not in value
    ),
)


@settings(max_examples=examples(60), deadline=None)
@given(
    text=st.text(alphabet=string.ascii_letters + " ,.?!'", max_size=120),
    value=VALUE,
    rate=st.floats(0, 0.2),
    politeness=st.floats(0, 1),
    lowercase=st.booleans(),
    seed=st.integers(0, 2**32),
)
def test_apply_style_never_touches_protected_values(
    text: str, value: str, rate: float, politeness: float, lowercase: bool, seed: int
) -> None:
    original = f"{text} {value} {text} {value}."
    style = Style(typo_rate=rate, politeness=politeness, lowercase=lowercase)
    styled = apply_style(original, [value], style, random.Random(seed))
    assert styled.count(value) >= original.count(value)


@settings(max_examples=examples(60), deadline=None)
@given(
    value=VALUE,
    rate=st.floats(0, 0.2),
    politeness=st.floats(0, 1),
    lowercase=st.booleans(),
    wording=st.sampled_from(list(Register)),
    seed=st.integers(0, 2**31),
    ask=st.sampled_from(
        [
            "Could you give me your employee ID?",
            "What's your employee ID and laptop model?",
            "Staff ID please.",
        ]
    ),
)
def test_disclosed_values_appear_verbatim_in_the_reply(
    value: str, rate: float, politeness: float, lowercase: bool, wording: Register, seed: int, ask: str
) -> None:
    style = Style(typo_rate=rate, politeness=politeness, lowercase=lowercase, wording=wording)
    persona = vpn_persona(style=style, employee_id=value)
    opening = respond(persona, seed, [], {})
    transcript = [Message("user", opening.text), Message("agent", ask)]
    turn = respond(persona, seed, transcript, {"vpn_fixed": False})
    # PUSH_BACK when the opening happened to contain the value (say "I"): then, by the reply
    # priority, the user restates only that fact and leaves the laptop for the next question.
    assert turn.intent in (UserIntent.INFORM, UserIntent.PUSH_BACK)
    assert "employee_id" in turn.disclosed
    assert value in turn.text
    if "laptop" in ask and turn.intent is UserIntent.INFORM:
        assert LAPTOP in turn.text


@settings(max_examples=examples(30), deadline=None)
@given(rate=st.floats(0, 0.2), lowercase=st.booleans(), seed=st.integers(0, 2**31))
def test_values_the_agent_said_are_protected(rate: float, lowercase: bool, seed: int) -> None:
    persona = vpn_persona(
        style=Style(typo_rate=rate, lowercase=lowercase), employee_disclosure=Disclosure.ON_ASK
    )
    transcript = [
        Message("user", persona.opening),
        Message("agent", "I see Dell Latitude 7440 on record. Which laptop model do you have?"),
    ]
    turn = respond(persona, seed, transcript, {})
    assert LAPTOP in turn.text


# --- the wording banks ---------------------------------------------------------------------------------

#: Placeholders each intent's templates must contain (the text they exist to carry).
REQUIRED = {
    UserIntent.INFORM: {"facts"},
    UserIntent.PUSH_BACK: {"facts"},
    UserIntent.CORRECT: {"facts"},
    UserIntent.REPORT_STEP: {"report"},
    UserIntent.RESTATE: {"goal"},
}
#: Words of the agent's world that a user never says.
AGENT_SPEAK = re.compile(
    r"\b(tool|field|state|policy|policies|sys_id|assignment|category|priority|urgency|impact|API|"
    r"database|record|workflow|SLA|escalat\w*|ticket)\b",
    re.IGNORECASE,
)


def every_template() -> list[tuple[str, str]]:
    out = [
        (f"{intent.value}/{register.value}", template)
        for intent, bank in BANKS.items()
        for register, templates in bank.items()
        for template in templates
    ]
    out += [
        (f"{intent.value}/{mood.value}", template)
        for mood, banks in MOOD_BANKS.items()
        for intent, templates in banks.items()
        for template in templates
    ]
    out += [(f"stall/{r.value}", t) for r, templates in STALL.items() for t in templates]
    out += [(f"redo/{r.value}", t) for r, templates in STEP_REDO.items() for t in templates]
    out += [(f"after_works/{r.value}", t) for r, templates in AFTER_WORKS.items() for t in templates]
    out += [(f"after_works/{m.value}", t) for m, templates in AFTER_WORKS_BY_MOOD.items() for t in templates]
    out += [(f"still_works/{r.value}", t) for r, templates in STILL_WORKS.items() for t in templates]
    out += [(f"edge/{m.value}", t) for m, sides in EDGES.items() for side in sides.values() for t in side]
    out += [(f"fact/{k.value}", t) for k, pair in FACT_PHRASINGS.items() for side in pair for t in side]
    out += [("courtesy", t) for t in COURTESY]
    return out


@pytest.mark.parametrize("intent", list(UserIntent))
@pytest.mark.parametrize("register", list(Register))
def test_each_intent_and_register_has_five_distinct_variants(intent: UserIntent, register: Register) -> None:
    templates = BANKS[intent][register]
    assert len(set(templates)) >= 5
    assert len(set(templates)) == len(templates)
    for template in templates:
        assert REQUIRED.get(intent, set()) <= set(placeholders_in(template)), template


@pytest.mark.parametrize("mood", [Mood.IRRITATED, Mood.ANGRY])
def test_mood_banks_and_edges(mood: Mood) -> None:
    assert MOOD_BANKS[mood]
    for intent, templates in MOOD_BANKS[mood].items():
        assert len(set(templates)) >= 5
        for template in templates:
            assert REQUIRED.get(intent, set()) <= set(placeholders_in(template)), template
    assert len(set(EDGES[mood]["prefix"])) >= 5 and len(set(EDGES[mood]["suffix"])) >= 5
    for bank in (STALL, STEP_REDO):
        assert all(len(set(bank[register])) >= 5 for register in Register)


def test_placeholders_only_from_the_documented_set() -> None:
    for where, template in every_template():
        assert set(placeholders_in(template)) <= PLACEHOLDERS, where
        stripped = re.sub(r"\{[a-z]+\}", "", template)
        assert "{" not in stripped and "}" not in stripped, (where, template)  # no stray or double braces
    for kind in FactKind:
        assert all("{value}" in template for side in FACT_PHRASINGS[kind] for template in side)


def test_templates_speak_like_a_user() -> None:
    for where, template in every_template():
        assert not AGENT_SPEAK.search(template), (where, template)


def test_frustration_makes_wording_terser() -> None:
    assert register_for(Register.WORDY, Mood.CALM) is Register.WORDY
    assert register_for(Register.WORDY, Mood.IRRITATED) is Register.NEUTRAL
    assert register_for(Register.NEUTRAL, Mood.IRRITATED) is Register.TERSE
    assert all(register_for(register, Mood.ANGRY) is Register.TERSE for register in Register)


def test_fill() -> None:
    assert fill("It's {value}.", {"value": "E1"}) == "It's E1."
    assert fill("It's {value}.", {"value": "Dr. No."}) == "It's Dr. No."  # no double full stop
    assert fill("{facts} Ok.", {"facts": "{goal}"}) == "{goal} Ok."  # filled text is not scanned again
    assert fill("{value}", {"value": r"\1 $0"}) == r"\1 $0"
    with pytest.raises(ValueError):
        fill("Hi {colour}.", {"colour": "red"})
    with pytest.raises(ValueError):
        fill("Hi {name}.", {})
    assert fill("Hi {colour} {value}", {"value": "x"}, strict=False) == "Hi {colour} x"


def test_label_and_goal_sentence() -> None:
    assert label("employee_id") == "employee ID"
    assert label("vpn_client_version") == "VPN client version"
    assert goal_sentence("Get my VPN working again") == "I need to get my VPN working again."
    assert goal_sentence("my laptop won't boot") == "My laptop won't boot."
    assert goal_sentence("I need a new badge!") == "I need a new badge!"
