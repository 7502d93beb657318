"""Persona variants: same knowledge, different talk; the population is diverse in style."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.persona import Disclosure, Fact, FactKind, Persona, Register
from enterprise_envs.scenarios.users.pilot import PROBES, rollout
from enterprise_envs.scenarios.users.population import (
    ALL_VARIANTS,
    VARIANTS,
    draw_variant,
    population,
    rewrite_opening,
    variant,
)
from tests.scenarios.users.test_fidelity import PERSONA
from tests.strategies import HOSTILE_TEXT, examples

WITH_ID = Persona(
    name="Sam Okafor",
    goal="Unlock my account so I can log in again.",
    opening=(
        "Hi there, I'm {{employee_id}} and I can't log in to the portal since the update this morning. "
        "It's a real problem because I have a deadline. Thanks in advance!"
    ),
    facts=[
        Fact(
            key="employee_id",
            value="E10442",
            asked_by=[r"employee\s*id"],
            disclosure=Disclosure.OPENING,
            kind=FactKind.IDENTIFIER,
        ),
        Fact(key="an_item", value="the portal", asked_by=[r"which (site|system)"]),
    ],
    done_when="account_unlocked",
)

PLACEHOLDER = re.compile(r"\{\{\s*[a-z_][a-z0-9_]*\s*\}\}")


def knowledge(persona: Persona) -> tuple[object, ...]:
    return (
        persona.name,
        persona.goal,
        persona.facts,
        persona.unknowns,
        persona.refusals,
        persona.steps,
        persona.done_when,
    )


def test_the_variants() -> None:
    assert VARIANTS == ("terse", "verbose", "frustrated", "confused", "non_native", "impatient")
    assert ("base", *VARIANTS) == ALL_VARIANTS


@pytest.mark.parametrize("persona", [PERSONA, WITH_ID], ids=["dana", "sam"])
def test_variants_keep_facts_and_change_style(persona: Persona) -> None:
    people = population(persona)
    assert [p.variant for p in people] == list(ALL_VARIANTS)
    assert people[0] == persona
    for person in people:
        assert knowledge(person) == knowledge(persona)
        assert Persona.model_validate(person.model_dump()) == person  # still a valid persona
        assert person.style.identifiers_in_opening == persona.style.identifiers_in_opening
    styles = [p.style for p in people]
    assert len(set(styles)) == len(styles)  # every variant talks differently
    openings = [p.opening for p in people]
    assert len(set(openings)) == len(openings)
    assert persona.variant == "base"  # the original is untouched


def test_variant_styles_and_patience() -> None:
    by = {p.variant: p for p in population(PERSONA)}
    assert by["terse"].style.wording is Register.TERSE
    assert by["verbose"].style.wording is Register.WORDY
    assert by["verbose"].style.politeness > by["base"].style.politeness > by["terse"].style.politeness
    assert by["impatient"].style.lowercase and by["impatient"].style.typo_rate > 0
    assert by["non_native"].style.typo_rate > 0
    assert by["impatient"].patience.budget < PERSONA.patience.budget
    assert by["frustrated"].patience.irritated_below > PERSONA.patience.irritated_below
    assert by["frustrated"].patience.angry_below > PERSONA.patience.angry_below
    assert by["confused"].patience.budget > PERSONA.patience.budget


def test_opening_rewrites() -> None:
    by = {name: rewrite_opening(WITH_ID, name) for name in ALL_VARIANTS}
    assert by["base"] == WITH_ID.opening
    assert (
        by["terse"] == "I'm {{employee_id}} and I can't log in to the portal since the update this morning."
    )
    assert by["confused"].startswith("I'm not sure what's wrong but I'm {{employee_id}}")
    assert by["impatient"].startswith("Quick one: I'm {{employee_id}}")
    assert by["frustrated"].startswith("This is really frustrating.") and "Thanks" not in by["frustrated"]
    assert by["verbose"].startswith("Hello, I hope you're doing well.")
    non_native = by["non_native"]
    assert "I am {{employee_id}}" in non_native and "can not" in non_native and "It is a real" in non_native
    assert "'" not in non_native.replace("{{", "")  # contractions expanded
    assert len(re.findall(r"\b(the|a|an)\b", non_native)) < len(
        re.findall(r"\b(the|a|an)\b", WITH_ID.opening)
    )
    assert "the portal" in non_native  # a fact value is never rewritten


def _digit_runs(text: str) -> set[str]:
    return set(re.findall(r"\d+", text))


def _check_opening(persona: Persona, name: str) -> None:
    original = persona.opening
    rewritten = rewrite_opening(persona, name)
    assert rewrite_opening(persona, name) == rewritten  # deterministic
    assert Counter(PLACEHOLDER.findall(rewritten)) == Counter(PLACEHOLDER.findall(original))
    assert _digit_runs(rewritten) <= _digit_runs(original)
    for fact in persona.facts:  # no fact value the original did not say
        assert not fm.value_occurs(fact.value, rewritten) or fm.value_occurs(fact.value, original)


SENTENCES = st.sampled_from(
    [
        "Hello team,",
        "Hi!",
        "I'm {{employee_id}}.",
        "My laptop won't start after the update.",
        "It's been like this since Monday.",
        "I can't open the portal.",
        "Thanks in advance!",
        "Could you please help me?",
        "I would like to get it fixed, unfortunately it's urgent.",
        "The screen is black and an error flashes.",
    ]
)


@settings(max_examples=examples(60))
@given(st.lists(st.one_of(SENTENCES, HOSTILE_TEXT.filter(lambda t: "{" not in t)), min_size=1, max_size=5))
def test_opening_rewrites_keep_placeholders_and_add_no_identifiers(parts: list[str]) -> None:
    opening = " ".join(parts)
    if not opening.strip():
        return
    persona = WITH_ID.model_copy(update={"opening": opening})
    for name in ALL_VARIANTS:
        _check_opening(persona, name)
        Persona.model_validate(variant(persona, name).model_dump())


def test_draw_variant_is_seeded_and_covers_the_population() -> None:
    draws = [draw_variant(PERSONA, random.Random(seed)).variant for seed in range(200)]
    assert draws == [draw_variant(PERSONA, random.Random(seed)).variant for seed in range(200)]
    assert set(draws) == set(ALL_VARIANTS)
    rng, same = random.Random(7), random.Random(7)
    assert [draw_variant(PERSONA, rng).variant for _ in range(5)] == [
        same.choice(ALL_VARIANTS) for _ in range(5)
    ]


def test_variant_errors() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        variant(PERSONA, "sleepy")
    terse = variant(PERSONA, "terse")
    assert variant(terse, "terse") is terse
    with pytest.raises(ValueError, match="already variant"):
        variant(terse, "verbose")
    assert variant(PERSONA, "base") is PERSONA


# --- the population played by the rule user ---------------------------------------------------------


def test_population_style_varies_more_between_personas_than_within() -> None:
    rules = pytest.importorskip("enterprise_envs.scenarios.users.rules")
    user = rules.RuleUser()
    transcripts = [
        rollout(person, user, PROBES[probe], seed)[0]
        for base in (PERSONA, WITH_ID)
        for person in population(base)
        for probe in ("ask_every_slot", "false_success")
        for seed in range(3)
    ]
    d = fm.diversity(transcripts)
    assert d.conversations == 2 * 7 * 2 * 3 and d.personas == 2 * 7
    for feature in fm.STYLE_FEATURES:
        variance = d.variance[feature]
        assert variance.between is not None and variance.within is not None
        assert variance.between > variance.within, (feature, variance)
    assert d.distinct_openings is not None and d.distinct_openings >= 14 / d.conversations

    def mean(name: str, feature: str) -> float:
        values = [
            fm.style_features(t, transcripts)[feature] for t in transcripts if t.persona.variant == name
        ]
        return sum(values) / len(values)

    assert (
        mean("verbose", "words_per_turn") > mean("base", "words_per_turn") > mean("terse", "words_per_turn")
    )
    assert mean("impatient", "lowercase_rate") > 0.5 and mean("base", "lowercase_rate") == 0
    assert mean("non_native", "typo_rate") > mean("base", "typo_rate") == 0
    assert mean("verbose", "politeness") > mean("frustrated", "politeness")
    report = fm.fidelity_report(transcripts)
    assert report.integrity_ok(), report.to_text()
