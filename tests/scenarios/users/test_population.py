"""Persona variants: same knowledge, different talk; the population is diverse in style."""

from __future__ import annotations

import json
import os
import random
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.persona import Disclosure, Fact, FactKind, Persona, Register
from enterprise_envs.scenarios.users.pilot import PROBES, rollout
from enterprise_envs.scenarios.users.population import (
    ALL_VARIANTS,
    SPREADS,
    VARIANTS,
    draw,
    draw_variant,
    population,
    rewrite_opening,
    variant,
)
from enterprise_envs.scenarios.users.rules import RuleUser
from tests.scenarios.users.test_fidelity import PERSONA
from tests.shipped import SCENARIOS, make_env
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


def _check_rewrite(persona: Persona, rewritten: str) -> None:
    original = persona.opening
    assert Counter(PLACEHOLDER.findall(rewritten)) == Counter(PLACEHOLDER.findall(original))
    assert _digit_runs(rewritten) <= _digit_runs(original)
    for fact in persona.facts:  # no fact value the original did not say, every one it did
        assert fm.value_occurs(fact.value, rewritten) == fm.value_occurs(fact.value, original)


def _check_opening(persona: Persona, name: str) -> None:
    rewritten = rewrite_opening(persona, name)
    assert rewrite_opening(persona, name) == rewritten  # deterministic
    _check_rewrite(persona, rewritten)
    for seed in range(3):
        drawn = rewrite_opening(persona, name, random.Random(seed))
        assert rewrite_opening(persona, name, random.Random(seed)) == drawn
        _check_rewrite(persona, drawn)


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
    draws = [draw_variant(PERSONA, random.Random(seed)) for seed in range(200)]
    assert draws == [draw_variant(PERSONA, random.Random(seed)) for seed in range(200)]
    assert {person.variant for person in draws} == set(ALL_VARIANTS)
    # The variant is the stream's first draw, so a seed names the same variant as before the
    # variants became distributions.
    assert [person.variant for person in draws] == [
        random.Random(seed).choice(ALL_VARIANTS) for seed in range(200)
    ]


def _drawn(persona: Persona, seeds: range = range(40)) -> dict[str, list[Persona]]:
    return {
        name: [draw(persona, name, random.Random(f"{name}:{seed}")) for seed in seeds]
        for name in ALL_VARIANTS
    }


@pytest.mark.parametrize("persona", [PERSONA, WITH_ID], ids=["dana", "sam"])
def test_draws_keep_what_the_persona_knows(persona: Persona) -> None:
    for name, people in _drawn(persona).items():
        for person in people:
            assert person.variant == name
            assert Persona.model_validate(person.model_dump()) == person  # still a valid persona
            facts = [fact.model_copy(update={"phrasing": None}) for fact in person.facts]
            assert facts == [fact.model_copy(update={"phrasing": None}) for fact in persona.facts]
            assert knowledge(person)[:2] == knowledge(persona)[:2]
            assert knowledge(person)[3:] == knowledge(persona)[3:]
            for fact, drawn in zip(persona.facts, person.facts, strict=True):
                assert drawn.phrasing == fact.phrasing or (
                    fact.phrasing is None and "{value}" in drawn.phrasing
                )
            _check_rewrite(persona, person.opening)


@pytest.mark.parametrize("name", ALL_VARIANTS)
def test_draws_spread_around_the_variant_centre(name: str) -> None:
    centre, spread = variant(WITH_ID, name), SPREADS[name]
    people = _drawn(WITH_ID, range(60))[name]
    for person in people:
        style, patience = person.style, person.patience
        assert abs(style.politeness - centre.style.politeness) <= spread.politeness + 1e-9
        assert abs(style.typo_rate - centre.style.typo_rate) <= spread.typo_rate + 1e-9
        assert abs(style.answers_per_turn - centre.style.answers_per_turn) <= spread.answers
        assert abs(patience.budget - centre.patience.budget) <= spread.budget
        assert abs(patience.irritated_below - centre.patience.irritated_below) <= spread.thresholds + 1e-9
        assert patience.angry_below <= patience.irritated_below
    # users of one variant differ from each other, in style, patience and opening
    assert len({person.style for person in people}) > 10
    assert len({person.patience for person in people}) > 10
    assert len({person.opening for person in people}) > len(people) // 2
    # the centre is still the most common register
    registers = Counter(person.style.wording for person in people)
    assert registers.most_common(1)[0][0] is centre.style.wording


_CHILD = """
import json, random, sys
from enterprise_envs.scenarios.users.persona import Persona
from enterprise_envs.scenarios.users.population import draw_variant
persona = Persona.model_validate_json(sys.stdin.read())
people = [draw_variant(persona, random.Random(f"x:{seed}")) for seed in range(30)]
print(json.dumps([person.model_dump(mode="json") for person in people]))
"""


def test_draws_are_the_same_in_processes_with_different_hash_seeds() -> None:
    here = [draw_variant(WITH_ID, random.Random(f"x:{seed}")).model_dump(mode="json") for seed in range(30)]
    for hash_seed in ("0", "4242"):
        result = subprocess.run(
            [sys.executable, "-c", _CHILD],
            input=WITH_ID.model_dump_json(),
            cwd=Path(__file__).resolve().parents[3],
            env={**os.environ, "PYTHONHASHSEED": hash_seed},
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(result.stdout) == here


def test_variant_errors() -> None:
    with pytest.raises(ValueError, match="unknown variant"):
        variant(PERSONA, "sleepy")
    terse = variant(PERSONA, "terse")
    assert variant(terse, "terse") is terse
    with pytest.raises(ValueError, match="already variant"):
        variant(terse, "verbose")
    assert variant(PERSONA, "base") is PERSONA


# --- the population played by the rule user ---------------------------------------------------------


def test_style_varies_more_between_variants_than_within() -> None:
    """Drawn users of two personas, grouped by variant: the variants stay apart in style."""
    user = RuleUser()
    transcripts = [
        rollout(draw(base, name, random.Random(f"{base.name}:{seed}")), user, PROBES[probe], seed)[0]
        for base in (PERSONA, WITH_ID)
        for name in ALL_VARIANTS
        for probe in ("ask_every_slot", "false_success")
        for seed in range(3)
    ]
    d = fm.diversity(transcripts)
    assert d.conversations == 2 * 7 * 2 * 3
    assert d.groups == dict.fromkeys(sorted(ALL_VARIANTS), 2 * 2 * 3) and d.small_groups == ()
    for feature in fm.STYLE_FEATURES:
        variance = d.variance[feature]
        assert variance.between is not None and variance.within is not None
        assert variance.between > variance.within, (feature, variance)
    # each drawn user meets both probes, so at best half the openings are new
    assert d.distinct_openings is not None and d.distinct_openings >= 0.45

    def mean(name: str, feature: str) -> float:
        values = [
            fm.style_features(t, transcripts)[feature] for t in transcripts if t.persona.variant == name
        ]
        return sum(values) / len(values)

    assert (
        mean("verbose", "words_per_turn") > mean("base", "words_per_turn") > mean("terse", "words_per_turn")
    )
    assert mean("impatient", "lowercase_rate") > 0.5 > mean("base", "lowercase_rate")
    assert mean("non_native", "typo_rate") > mean("base", "typo_rate")
    assert mean("verbose", "politeness") > mean("frustrated", "politeness")
    report = fm.fidelity_report(transcripts)
    assert report.integrity_ok(), report.to_text()


# --- the shipped scenarios ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shipped_personas() -> dict[str, Persona]:
    """Each shipped scenario's persona as its first instance binds it (variants off)."""
    personas = {}
    for scenario_id in SCENARIOS:
        env = make_env(scenario_id, persona_variants=False)
        try:
            env.reset(seed=0)
            personas[scenario_id] = env.unwrapped.instance.persona
        finally:
            env.close()
    return personas


def test_openings_differ_over_50_seeds_for_every_shipped_scenario(
    shipped_personas: dict[str, Persona],
) -> None:
    """One instance's persona drawn for 50 seeds: at least 60% distinct openings, all within the rules.

    The opening is the drawn persona's own text (before the style pass's typos and before world
    values of other instances), so only the population's variety counts.
    """
    rates = {}
    for scenario_id, persona in shipped_personas.items():
        people = [draw_variant(persona, random.Random(f"{scenario_id}:{seed}")) for seed in range(50)]
        for person in people:
            _check_rewrite(persona, person.opening)
            said = RuleUser().respond(person, 0, [], {}).text  # the rule user still opens with it
            assert all(
                fact.value in said for fact in persona.facts if f"{{{{{fact.key}}}}}" in person.opening
            )
        rates[scenario_id] = len({person.opening for person in people}) / len(people)
    assert min(rates.values()) >= 0.6, rates


STALL = "Let me look into that for you."


@pytest.fixture(scope="module")
def stalled() -> list[fm.Transcript]:
    """Ten seeds of every shipped scenario, persona variants on, an agent that stalls six times."""
    transcripts = []
    for scenario_id in SCENARIOS:
        env = make_env(scenario_id)
        try:
            for seed in range(10):
                env.reset(seed=seed)
                for _ in range(6):
                    _obs, _reward, terminated, truncated, _info = env.step({"message": STALL})
                    if terminated or truncated:
                        break
                inner = env.unwrapped
                transcripts.append(
                    fm.Transcript(inner.instance.persona, tuple(inner.transcript), tuple(inner.user_turns))
                )
        finally:
            env.close()
    return transcripts


def _typical_onset(onset: fm.Onset, never: int = 7) -> float:
    """The median onset over all of a variant's conversations, a user still calm counted at ``never``."""
    return statistics.median([*onset.onsets, *[never] * (onset.conversations - len(onset.onsets))])


def test_six_stalling_turns_frustrate_most_users(stalled: list[fm.Transcript]) -> None:
    """Before issue 14: 47 of 170 (only the frustrated and impatient variants); now most users."""
    onsets = fm.frustration_onset(stalled)
    frustrated = sum(len(onset.onsets) for onset in onsets.values())
    assert len(stalled) == 10 * len(SCENARIOS)
    assert frustrated >= 0.75 * len(stalled), {name: len(o.onsets) for name, o in onsets.items()}
    assert all(onset.onsets for onset in onsets.values())  # every variant can lose its calm


def test_frustration_onset_follows_the_variant_with_a_spread(stalled: list[fm.Transcript]) -> None:
    onsets = fm.frustration_onset(stalled)
    assert set(onsets) == set(ALL_VARIANTS)
    typical = {name: _typical_onset(onset) for name, onset in onsets.items()}
    middle = [typical[name] for name in ("base", "terse", "non_native")]
    patient = [typical[name] for name in ("confused", "verbose")]
    assert typical["impatient"] < typical["frustrated"] < min(middle), typical
    assert max(middle) < min(patient), typical
    assert onsets["base"].spread is not None and len(set(onsets["base"].onsets)) > 1  # seeded spread
    # giving up follows too: impatient users give up most, the patient ones not within six stalls
    gave_up = {name: len(onset.give_ups) / onset.conversations for name, onset in onsets.items()}
    assert gave_up["impatient"] > gave_up["frustrated"] > gave_up["base"] > 0, gave_up
    assert gave_up["confused"] == gave_up["verbose"] == 0, gave_up
