"""Fidelity metrics on hand-written transcripts whose right values are known."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.fidelity import Ratio, Transcript, fidelity_report
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    Fact,
    FactKind,
    Mood,
    Persona,
    Refusal,
    Register,
    StepOutcome,
    Style,
    Unknown,
)
from enterprise_envs.scenarios.users.turns import Message, Terminal, UserIntent, UserTurn
from tests.scenarios.users.systems import ITSM_VOCABULARY, speaking
from tests.strategies import HOSTILE_TEXT, examples

PERSONA = Persona(
    name="Dana Whitfield",
    goal="Get my VPN working again so I can reach the team file share.",
    opening="Hi, my VPN keeps disconnecting every few minutes and I can't reach the file share.",
    facts=[
        Fact(
            key="employee_id",
            value="E48213",
            asked_by=[r"employee\s*(id|number)", r"staff\s*(id|number)"],
            kind=FactKind.IDENTIFIER,
        ),
        Fact(
            key="laptop_tag",
            value="LT-0457",
            asked_by=[r"asset\s*tag", r"laptop\s*tag"],
            kind=FactKind.IDENTIFIER,
            min_turn=2,
        ),
        Fact(key="office", value="Leeds", asked_by=[r"\boffice\b", r"\blocation\b"]),
        Fact(
            key="since",
            value="since Monday",
            asked_by=[r"when did", r"how long"],
            disclosure=Disclosure.OPENING,
            kind=FactKind.HISTORY,
            min_turn=1,
        ),
        Fact(key="vault_pin", value="Hunter2!x", disclosure=Disclosure.NEVER),
    ],
    unknowns=[Unknown(key="client_version", asked_by=[r"client\s*version", r"version of the (vpn|client)"])],
    refusals=[Refusal(key="password", asked_by=[r"password", r"\bpin\b"])],
    steps=[
        StepOutcome(
            key="reconnect",
            asked_by=[r"reconnect|restart"],
            view="vpn_ok",
            when_true="That worked, it stays connected now.",
            when_false="Still dropping, I'm afraid.",
        )
    ],
    done_when="vpn_ok",
)


def convo(*texts: str, persona: Persona = PERSONA, **kwargs: object) -> Transcript:
    """A transcript alternating user and agent, starting with the user's opening."""
    messages = [Message("user" if i % 2 == 0 else "agent", text) for i, text in enumerate(texts)]
    return Transcript(persona, tuple(messages), **kwargs)  # type: ignore[arg-type]


# --- value matching ------------------------------------------------------------------------------


def test_values_match_with_token_boundaries_case_insensitively() -> None:
    assert fm.value_occurs("E48213", "my id is e48213.")
    assert fm.value_occurs("LT-0457", "(LT-0457)")
    assert fm.value_occurs("since Monday", "it's been like this since\nmonday")
    assert not fm.value_occurs("E48213", "E482134")
    assert not fm.value_occurs("E48213", "XE48213")
    assert not fm.value_occurs("Leeds", "Leedsbury")
    assert not fm.value_occurs("", "anything")
    assert not fm.value_occurs("   ", "anything")


@settings(max_examples=examples(40))
@given(HOSTILE_TEXT, HOSTILE_TEXT)
def test_value_matching_never_raises_on_hostile_text(value: str, text: str) -> None:
    fm.value_occurs(value, text)
    fm.coaching_reasons(text, PERSONA)
    fm.role_swap_reasons(text, PERSONA, 1)
    fm.claims_done(text)


# --- the leaky transcript --------------------------------------------------------------------------

LEAKY = convo(
    "Hi, my VPN keeps dropping. My employee ID is E48213.",  # 0: employee_id not asked: leak
    "What is your asset tag?",
    "It's LT-0457.",  # 1: laptop_tag asked but min_turn 2: leak
    "Can you confirm your password?",
    "Sure, it's Hunter2!x.",  # 2: never: leak; refusal not kept
    "Which office are you in?",
    "Leeds.",  # 3: asked: fine
    "Do you know the client version?",
    "I don't know, maybe 5.2.1?",  # 4: invented a value: not honest
    "And how long has this been going on?",
    "Since Monday.",  # 5: opening fact, turn >= min_turn: fine
    label="leaky",
)


def test_leak_rate_counts_turns_with_unallowed_values() -> None:
    assert fm.leak_rate(LEAKY) == Ratio(3, 6)
    details = {(f.turn, f.detail) for f in fm.leak_findings(LEAKY)}
    assert details == {
        (0, "employee_id: not asked"),
        (1, "laptop_tag: before min_turn 2"),
        (2, "vault_pin: never"),
    }


def test_premature_disclosure_counts_facts_told_too_early() -> None:
    # told: employee_id (not asked), laptop_tag (before min_turn), office, since; never facts excluded
    assert fm.premature_disclosure(LEAKY) == Ratio(2, 4)


@pytest.mark.parametrize(
    "agent",
    [
        "Let me check the office you're in on our records.",  # the agent at work names it
        "I'll look up your employee ID in the directory.",
        "Please hold on while I find your office.",
    ],
)
def test_a_fact_named_but_not_asked_for_is_told_too_early(agent: str) -> None:
    """Premature disclosure by act: naming a fact (its asked_by pattern) is not asking for it."""
    value = "Leeds" if "office" in agent else "E48213"
    t = convo(PERSONA.opening, agent, f"It's {value}.")
    assert fm.premature_disclosure(t) == Ratio(1, 1)
    assert [f.detail.split(": ", 1)[1] for f in fm.premature_findings(t)] == ["mentioned, not asked"]
    asked = convo(PERSONA.opening, "What's your office, and your employee ID?", f"It's {value}.")
    assert fm.premature_disclosure(asked) == Ratio(0, 1)


def test_front_loading_counts_identifiers_in_the_opening() -> None:
    assert fm.front_loading(LEAKY) == Ratio(1, 2)


def test_refusal_and_unknown_failures() -> None:
    assert fm.refusal_adherence(LEAKY) == Ratio(0, 1)
    assert fm.unknown_honesty(LEAKY) == Ratio(0, 1)
    assert [f.detail for f in fm.unknown_findings(LEAKY)] == ["client_version: value-like ['5.2.1']"]
    assert [f.detail for f in fm.refusal_findings(LEAKY)] == ["password: no refusal marker"]


def test_an_opening_fact_before_its_min_turn_is_a_leak() -> None:
    t = convo("Hi, it's been broken since Monday.")
    assert fm.leak_rate(t) == Ratio(1, 1)
    assert fm.premature_disclosure(t) == Ratio(1, 1)


def test_echoes_of_the_agent_are_not_leaks() -> None:
    t = convo("Hi, VPN is down.", "Is your employee number E48213 or E48214?", "E48213.")
    assert fm.leak_rate(t) == Ratio(0, 2)
    assert fm.premature_disclosure(t) == Ratio(0, 0)


CLEAN = convo(
    "Hi, my VPN keeps disconnecting every few minutes and I can't reach the file share.",
    "Sorry to hear that. What is your employee ID?",
    "It's E48213.",
    "Thanks. What is your asset tag?",
    "I don't know it offhand, sorry.",  # laptop tag min_turn 2, the user holds back (not a leak)
    "Could you tell me the asset tag now?",
    "Sure, it's LT-0457.",
    "And the client version?",
    "No idea, sorry.",
    "What's your password? I need it to check.",
    "I can't share my password.",
    "Your employee ID again?",
    "I already told you: E48213.",
    "Your staff number?",
    "As I said before.",
    "Please try to reconnect.",
    "Still dropping, I'm afraid.",
    label="clean",
    final_view={"vpn_ok": False},
)


def test_a_clean_transcript_has_no_integrity_failures() -> None:
    report = fidelity_report([CLEAN], canaries=["KB0012345"])
    assert report.integrity_ok(), report.to_text()
    assert report.leak_rate == Ratio(0, 9)
    assert report.premature_disclosure == Ratio(0, 2)
    assert report.front_loading == Ratio(0, 2)
    assert report.unknown_honesty == Ratio(1, 1)
    assert report.refusal_adherence == Ratio(1, 1)
    assert report.repeat_pushback == Ratio(2, 2)
    assert report.false_stop_rate == Ratio(0, 1)


def test_unknown_honesty_counts_each_ask() -> None:
    t = convo(
        "Hi",
        "What version of the VPN client do you run?",
        "Not sure, sorry.",
        "Do you know the client version?",
        "It's 4.3.",
        "Client version?",
        "Not sure, but I think 4.3.",
    )
    assert fm.unknown_honesty(t) == Ratio(1, 3)


def test_refusal_adherence_counts_each_ask() -> None:
    t = convo(
        "Hi",
        "What's your password?",
        "I won't share that.",
        "Your PIN then?",
        "Fine, it's Hunter2!x, but I'm not allowed to share it.",
        "Password please.",
        "No.",
    )
    assert fm.refusal_adherence(t) == Ratio(1, 3)


def test_repeat_pushback_needs_a_marker_or_the_same_value() -> None:
    t = convo(
        "Hi",
        "What is your employee ID?",
        "E48213.",
        "Can you give me your employee ID?",
        "E48213",  # the same value: handled
        "Employee ID?",
        "I told you already!",  # handled (a pushback marker)
        "Your staff ID?",
        "Why do you need it?",  # not handled
    )
    assert fm.repeat_pushback(t) == Ratio(2, 3)


# --- canaries --------------------------------------------------------------------------------------


def test_canary_hits_count_user_turns_with_hidden_values() -> None:
    t = convo(
        "Hi, someone said KB0012345 fixes this.",  # hit
        "I'll check KB0099999 for you.",
        "Is KB0099999 the right one?",  # echo of the agent: not a hit
        "Maybe.",
        "Was it INC0010042 or KB00123456?",  # neither canary with token boundaries
    )
    canaries = ["KB0012345", "KB0099999", "INC0010042", ""]
    assert fm.canary_hits(t, canaries) == Ratio(2, 3)
    assert [(f.turn, f.detail) for f in fm.canary_findings(t, canaries)] == [
        (0, "KB0012345"),
        (2, "INC0010042"),
    ]
    assert fm.canary_hits(t, {"other": ["KB0012345"]}) == Ratio(0, 3)


# --- coaching --------------------------------------------------------------------------------------

COACHING = convo(
    "Hi, my VPN keeps dropping.",
    "Thanks, looking.",
    "You should set the priority to high and put it in the Network assignment group.",  # coaching
    "OK.",
    "Just resolve it with close code Solved Permanently.",  # coaching
    "Anything else?",
    "Thanks, my employee ID is E48213 by the way.",  # not coaching
    "Noted.",
    "The priority for me is getting to the share.",  # a weak term, no suggestion: not coaching
    "OK.",
    '{"state": 6}',  # tool syntax
    persona=speaking(PERSONA, ITSM_VOCABULARY),  # "assignment group", "close code": ITSM's words
    label="coaching",
)


def test_coaching_rate_counts_suggestions_with_system_terms() -> None:
    assert fm.coaching_rate(COACHING) == Ratio(3, 6)
    details = [(f.turn, f.detail) for f in fm.coaching_findings(COACHING)]
    assert details == [
        (1, "assignment group, priority"),
        (2, "close code, resolve"),
        (5, "tool syntax"),
    ]


def test_terms_from_the_personas_own_text_are_not_coaching() -> None:
    goal = "My incident's priority is too low, and someone should set the state back to in progress."
    persona = PERSONA.model_copy(update={"goal": goal})
    t = convo("Hi", "OK", "Can you raise the priority? And set the state back.", persona=persona)
    assert fm.coaching_rate(t) == Ratio(0, 2)
    assert fm.coaching_rate(
        convo("Hi", "OK", "Can you raise the priority? And set the state back.")
    ) == Ratio(1, 2)


# --- role swap -------------------------------------------------------------------------------------

LONG = " ".join(["word"] * 55)

ROLE_SWAP = convo(
    "Hi, my VPN keeps dropping.",
    "Hello.",
    "How can I help you today?",  # agent phrase
    "Eh?",
    "I have created incident INC0010001 for you.",  # agent phrase
    "OK?",
    "1. Restart the client\n2. Reconnect to the VPN",  # numbered list
    "Right.",
    "## Summary\nVPN drops",  # markdown header
    "Hm.",
    LONG,  # 55 words > 3 x 16 (neutral)
    "Anything else?",
    "No, that's it for now, it's just the VPN.",
    label="role swap",
)


def test_role_swap_rate_counts_agent_like_turns() -> None:
    assert fm.role_swap_rate(ROLE_SWAP) == Ratio(5, 7)
    reasons = {f.turn: f.detail for f in fm.role_swap_findings(ROLE_SWAP)}
    assert set(reasons) == {1, 2, 3, 4, 5}
    assert reasons[3] == "numbered list"
    assert reasons[4] == "markdown"
    assert reasons[5] == "55 words > 48"


def test_role_swap_length_limit_follows_the_register_and_the_opening() -> None:
    terse = PERSONA.model_copy(update={"style": Style(wording="terse")})
    wordy = PERSONA.model_copy(update={"style": Style(wording="wordy")})
    assert fm.role_swap_limit(terse, 1) == 3 * fm.TYPICAL_WORDS[terse.style.wording]
    assert fm.role_swap_limit(wordy, 3) > fm.role_swap_limit(PERSONA, 3) > fm.role_swap_limit(terse, 3)
    long_opening = PERSONA.model_copy(
        update={"opening": " ".join(["blah"] * 40), "style": Style(wording="terse")}
    )
    assert fm.role_swap_limit(long_opening, 0) == 120
    assert fm.role_swap_limit(long_opening, 1) == 24


# --- false stops -----------------------------------------------------------------------------------


def test_false_stop_needs_a_satisfied_ending_and_an_unmet_goal() -> None:
    stop = convo(
        "Hi, VPN down.", "I've fixed it.", "Great, works now, thanks! Bye.", final_view={"vpn_ok": False}
    )
    assert fm.false_stop_rate(stop) == Ratio(1, 1)
    done = convo(
        "Hi, VPN down.", "I've fixed it.", "Great, works now, thanks! Bye.", final_view={"vpn_ok": True}
    )
    assert fm.false_stop_rate(done) == Ratio(0, 1)
    deny = convo(
        "Hi, VPN down.", "I've fixed it.", "It's still not working now. Bye.", final_view={"vpn_ok": False}
    )
    assert fm.false_stop_rate(deny) == Ratio(0, 1)
    abandon = convo(
        "Hi", "Password?", "Forget it, I'll call someone else. Bye.", final_view={"vpn_ok": False}
    )
    assert fm.false_stop_rate(abandon) == Ratio(0, 1)
    transfer = convo("Hi", "I'm transferring you to the network team.", "OK, thanks, bye.", final_view={})
    assert fm.false_stop_rate(transfer) == Ratio(0, 1)
    unknown_view = convo("Hi", "Fixed.", "Works now, bye.")
    assert fm.false_stop_rate(unknown_view) == Ratio(0, 0)
    assert fm.false_stop_rate([stop, done, deny, abandon, transfer, unknown_view]) == Ratio(1, 5)


def test_false_stop_reads_the_turn_records_when_there_are_some() -> None:
    """With records, the simulator's own terminal decides; text that sounds done is not a stop."""
    texts = ("Hi, VPN down.", "Sorry, I can't do that.", "I need it fixed; the last one is fixed now.")
    records = (
        UserTurn(texts[0], UserIntent.OPENING),
        UserTurn(texts[2], UserIntent.RESTATE),
    )
    restated = convo(*texts, final_view={"vpn_ok": False}, turns=records)
    assert fm.claims_done(texts[2])  # the text alone would be read as a satisfied stop
    assert fm.false_stop_rate(restated) == Ratio(0, 1)
    stopped = (records[0], UserTurn(texts[2], UserIntent.ACCEPT, terminal=Terminal.DONE))
    assert fm.false_stop_rate(convo(*texts, final_view={"vpn_ok": False}, turns=stopped)) == Ratio(1, 1)


def test_asks_are_read_as_the_rule_user_reads_them() -> None:
    """A sentence that names an item without asking for it is no ask (unknowns and repeats)."""
    mention = convo(
        "Hi, VPN down.",
        "Your client version will be updated by the network team.",
        "OK.",
        "Your office is on the list too.",
        "Sure.",
        persona=PERSONA,
    )
    assert fm.unknown_honesty(mention) == Ratio(0, 0)
    asked = convo("Hi, VPN down.", "Which client version do you use?", "No idea, sorry.")
    assert fm.unknown_honesty(asked) == Ratio(1, 1)
    again = convo("Hi", "Which office are you in?", "Leeds.", "Your office is noted.", "OK.")
    assert fm.repeat_pushback(again) == Ratio(0, 0)
    repeated = convo("Hi", "Which office are you in?", "Leeds.", "Which office again?", "As I said, Leeds.")
    assert fm.repeat_pushback(repeated) == Ratio(1, 1)


def test_role_swap_length_allows_the_personas_own_fact_phrasings() -> None:
    plans = "back up, patch, reboot, then check every service and run the smoke tests before noon"
    persona = PERSONA.model_copy(
        update={
            "facts": [
                *PERSONA.facts,
                Fact(
                    key="plans", value=plans, phrasing="Here are the plans, as agreed with the team: {value}."
                ),
            ],
            "style": PERSONA.style.model_copy(update={"wording": Register.TERSE}),
        }
    )
    told = f"Sure. Here are the plans, as agreed with the team: {plans}. Thanks."
    assert fm.role_swap_reasons(told, persona, 3) == []
    rambling = "Sure. " + " ".join(["very"] * 40) + f" {plans}."  # 41 words: over 24 + the 9 allowed
    assert fm.role_swap_reasons(rambling, persona, 3)


# --- guard hits ------------------------------------------------------------------------------------


def test_guard_hit_rate_reads_the_turn_records() -> None:
    turns = (
        UserTurn("Hi", UserIntent.OPENING, backend="llm"),
        UserTurn("It's E48213.", UserIntent.INFORM, backend="llm", guard_hits=("leak:E48213",)),
        UserTurn("No.", UserIntent.DENY, backend="llm->rules", guard_hits=("role_swap:x", "coaching:y")),
        UserTurn("Ok.", UserIntent.ACCEPT, backend="llm"),
    )
    t = convo("Hi", "ID?", "It's E48213.", "Fixed", "No.", "Sure?", "Ok.", turns=turns)
    assert fm.guard_hit_rate(t) == Ratio(2, 4)
    assert fm.guard_counts(t) == (
        {"llm": 3, "llm->rules": 1},
        {"coaching:y": 1, "leak:E48213": 1, "role_swap:x": 1},
    )
    assert fm.guard_hit_rate(convo("Hi")) == Ratio(0, 0)


# --- profiles and Dice -----------------------------------------------------------------------------


def test_behaviour_profile_discretizes_each_dimension() -> None:
    profile = fm.behaviour_profile(CLEAN)
    assert sum(profile.values()) == 8
    assert profile["style.words_per_turn=5-10"] == 1
    assert profile["information.front_loading=none"] == 1
    assert profile["error_reaction.pushback=high"] == 1
    assert profile["error_reaction.deny_rate=n/a"] == 1
    assert fm.behaviour_profile([CLEAN, CLEAN]) == Counter({k: 2 * v for k, v in profile.items()})


def test_dice_similarity() -> None:
    a = Counter({"x": 2, "y": 1})
    b = Counter({"x": 1, "z": 1})
    assert fm.dice(a, b) == pytest.approx(2 * 1 / 5)
    assert fm.dice(a, a) == 1.0
    assert fm.dice({}, {}) == 1.0
    assert fm.dice(a, {}) == 0.0
    by_dimension = fm.dice_by_dimension({"style.a=1": 1, "info.b=1": 1}, {"style.a=1": 1, "info.b=2": 1})
    assert by_dimension == {"info": 0.0, "style": 1.0}


# --- diversity -------------------------------------------------------------------------------------


def test_diversity_on_known_conversations() -> None:
    quiet = PERSONA.model_copy(update={"variant": "terse"})
    loud = PERSONA.model_copy(update={"variant": "verbose"})
    population = [
        convo("vpn down", "ok", "yes", persona=quiet),
        convo("vpn down", "ok", "yes", persona=quiet),
        convo("Hello, my VPN is down again please help", "ok", "Thanks, yes it is please", persona=loud),
        convo("Hello, my VPN is down today please help", "ok", "Thanks, yes it is please", persona=loud),
    ]
    d = fm.diversity(population)
    assert d.conversations == 4 and d.groups == {"terse": 2, "verbose": 2} and d.small_groups == ()
    assert d.distinct_openings == 3 / 4
    # bigrams 1 + 1 + (7 + 4) + (7 + 4) = 24; distinct: "vpn down", the 11 of the first loud
    # conversation, "down today" and "today please"
    assert d.distinct_2 == pytest.approx(14 / 24)
    words = d.variance["words_per_turn"]
    assert words.within == 0.0 and words.between is not None and words.between > 0
    lower = d.variance["lowercase_rate"]
    assert lower.within == 0.0 and lower.between == pytest.approx(2 * 2 * 0.5**2)
    # the quiet pair has no trigrams (skipped); the loud pair shares some, and nothing else does
    assert d.trigram_overlap is not None and 0 < d.trigram_overlap < 1


def test_diversity_groups_by_variant_and_reports_small_groups() -> None:
    """Two personas of one variant share a group; a variant seen once is reported, not used."""
    other = PERSONA.model_copy(update={"name": "Sam Okafor", "variant": "terse"})
    quiet = PERSONA.model_copy(update={"variant": "terse"})
    alone = PERSONA.model_copy(update={"variant": "verbose"})
    population = [
        convo("vpn down", "ok", "yes", persona=quiet),
        convo("vpn is down", "ok", "yes", persona=other),
        convo(
            "Hello, my VPN is down again, could you please help me with it",
            "ok",
            "Yes, thanks",
            persona=alone,
        ),
    ]
    d = fm.diversity(population)
    assert d.groups == {"terse": 2, "verbose": 1} and d.small_groups == ("verbose",)
    words = d.variance["words_per_turn"]
    assert words.between is None  # one group left: the lone verbose conversation is not used
    # user turns of 2 and 1 words, 3 and 1: means 1.5 and 2 around 1.75, one degree of freedom
    assert words.within == pytest.approx(((1.5 - 1.75) ** 2 + (2 - 1.75) ** 2) / (2 - 1))
    text = fidelity_report(population).to_text()
    assert "2 variants (terse 2, verbose 1)" in text and "left out of the ANOVA" in text and "verbose" in text
    assert fidelity_report(population).to_dict()["diversity"]["small_groups"] == ["verbose"]


# --- frustration onset -----------------------------------------------------------------------------


def _turn(text: str, mood: Mood = Mood.CALM, terminal: Terminal | None = None) -> UserTurn:
    return UserTurn(text, UserIntent.RESTATE, mood=mood, terminal=terminal)


def test_frustration_onset_reads_the_turn_records() -> None:
    texts = ["Hi, my VPN is down.", "One moment.", "My VPN is down.", "Any news?", "Still down.", "Bye."]
    moods = [Mood.CALM, Mood.CALM, Mood.IRRITATED, Mood.ANGRY, Mood.ANGRY]
    turns = [_turn(text, mood) for text, mood in zip(texts[::2], moods, strict=False)]
    calm_words = convo(*texts[:5], turns=tuple(turns[:3]))  # the records say when, not the words
    assert fm.frustration_turns(calm_words) == (2, None)
    gave_up = convo(
        "Hi, my VPN is down.",
        "One moment.",
        "Seriously? My VPN is down.",
        "One moment.",
        "Bye then.",
        turns=(_turn("a"), _turn("b"), _turn("c", Mood.ANGRY, Terminal.ABANDONED)),
    )
    assert fm.frustration_turns(gave_up) == (2, 2)  # the words alone would say turn 1
    opening_only = convo("This is really frustrating, my VPN is down.", turns=(_turn("x", Mood.ANGRY),))
    assert fm.frustration_turns(opening_only) == (None, None)  # the opening is never counted


def test_frustration_onset_from_text_markers() -> None:
    calm = convo("This is so frustrating, my VPN is down.", "One moment.", "I already told you, it's down.")
    assert fm.frustration_turns(calm) == (None, None)  # an opening's frustration and calm wording
    edgy = convo(
        "Hi.", "One moment.", "My VPN is down.", "One moment.", "My VPN is down. Can we sped this up?"
    )
    assert fm.frustration_turns(edgy) == (2, None)  # one typo allowed
    left = convo("Hi.", "One moment.", "Forget it, I'll ask someone else.")
    assert fm.frustration_turns(left) == (1, 1)


def test_frustration_onset_by_variant() -> None:
    def stalled(variant: str, onset: int | None, give_up: bool = False) -> Transcript:
        persona = PERSONA.model_copy(update={"variant": variant})
        texts = ["Hi, my VPN is down."]
        for turn in range(1, 5):
            if give_up and turn == 4:
                texts += ["One moment.", "Forget it. Bye."]
                break
            texts += [
                "One moment.",
                "Seriously? My VPN is down." if onset is not None and turn >= onset else "My VPN is down.",
            ]
        return convo(*texts, persona=persona)

    population = [
        stalled("impatient", 1, give_up=True),
        stalled("impatient", 2, give_up=True),
        stalled("base", 3),
        stalled("base", None),
        stalled("base", 2),
        stalled("verbose", None),
        convo("Hi, my VPN is down.", persona=PERSONA),  # no reply: not counted
    ]
    onsets = fm.frustration_onset(population)
    assert list(onsets) == ["base", "impatient", "verbose"]
    assert onsets["impatient"] == fm.Onset("impatient", 2, (1, 2), (4, 4))
    assert onsets["impatient"].median == 1.5 and onsets["impatient"].give_up_median == 4
    assert onsets["base"].conversations == 3 and onsets["base"].onsets == (2, 3)
    assert onsets["base"].spread == pytest.approx(0.5)  # quartiles 2.25 and 2.75
    assert onsets["verbose"].median is None and onsets["verbose"].spread is None
    report = fidelity_report(population)
    data = json.loads(json.dumps(report.to_dict()))
    assert data["frustration_onset"]["impatient"] == {
        "conversations": 2,
        "frustrated": 2,
        "median": 1.5,
        "spread": 0.5,
        "range": [1, 2],
        "gave_up": 2,
        "give_up_median": 4,
        "onsets": [1, 2],
        "give_ups": [4, 4],
    }
    assert "frustration onset by variant" in report.to_text()


def test_frustration_markers_read_the_rule_users_moods() -> None:
    """Every angry wording and every edge suffix reads as frustration; no calm wording does."""
    from enterprise_envs.scenarios.users.templates import BANKS, EDGES, MOOD_BANKS

    filled = {
        "facts": "My office is Leeds.",
        "goal": "I need my VPN working.",
        "what": "password",
        "name": "Dana",
        "report": "It drops again after a minute.",
    }

    def said(template: str) -> str:
        return template.format(**filled)

    def frustrated(text: str) -> bool:
        return bool(fm._markers(text, fm.FRUSTRATION_MARKERS, fuzzy=True))

    # the intents where frustration shows (a correction may be angry or calm in the same words)
    shown = (UserIntent.PUSH_BACK, UserIntent.DENY, UserIntent.RESTATE, UserIntent.ACCEPT)
    angry = [MOOD_BANKS[Mood.ANGRY][intent] for intent in shown]
    for template in [t for bank in angry for t in bank] + list(EDGES[Mood.ANGRY]["prefix"]):
        assert frustrated(said(template)), template
    for mood in (Mood.IRRITATED, Mood.ANGRY):
        for template in EDGES[mood]["suffix"]:
            assert frustrated(template), template
    irritated = [t for intent in shown for t in MOOD_BANKS[Mood.IRRITATED][intent]]
    assert sum(frustrated(said(t)) for t in irritated) >= len(irritated) // 2
    for intent, by_register in BANKS.items():
        if intent is UserIntent.ABANDON:  # giving up is read by the abandon markers
            continue
        for bank in by_register.values():
            for template in bank:
                assert not frustrated(said(template)), template


def test_typo_proxy_counts_unattested_words() -> None:
    a = convo("my vpn is donw", "ok", "yes it is")
    b = convo("my vpn is down", "ok", "yes it is")
    assert fm.style_features(a, [a, b])["typo_rate"] == pytest.approx(1 / 3)  # "donw" of vpn, donw, yes
    assert fm.style_features(b, [a, b])["typo_rate"] == 0.0


# --- the report ------------------------------------------------------------------------------------


def test_report_renders_as_json_and_text() -> None:
    report = fidelity_report(
        [LEAKY, COACHING, ROLE_SWAP, CLEAN], canaries=["KB0012345"], reference=fm.behaviour_profile(CLEAN)
    )
    data = json.loads(json.dumps(report.to_dict()))
    assert data["conversations"] == 4
    # the leaky transcript's three, and the coaching one's unasked employee ID; 6 + 6 + 7 + 9 turns
    assert data["metrics"]["leak_rate"] == {"value": 4 / 28, "hits": 4, "total": 28}
    assert data["integrity_ok"] is False
    assert 0 < data["profile_dice"] < 1
    text = report.to_text()
    for name in fm.INTEGRITY_METRICS:
        assert name in text
    assert "FAIL" in text and "findings:" in text and "diversity over 4" in text
    assert str(Ratio()) == "n/a (0/0)"


@settings(max_examples=examples(40))
@given(st.lists(st.tuples(st.sampled_from(["user", "agent"]), HOSTILE_TEXT), max_size=6))
def test_report_never_raises(pairs: list[tuple[str, str]]) -> None:
    t = Transcript(PERSONA, tuple(Message(role, text) for role, text in pairs), final_view={})  # type: ignore[arg-type]
    report = fidelity_report([t, t], canaries=["admin"])
    json.dumps(report.to_dict())
    report.to_text()


def test_restating_ones_own_goal_is_not_a_role_swap() -> None:
    persona = PERSONA.model_copy(
        update={"style": PERSONA.style.model_copy(update={"wording": Register.TERSE})}
    )  # a terse user: 24 words at most
    goal = persona.goal.lower().replace("working", "workng")  # a typo from the style pass
    restate = f"Like I said. I need to {goal} It has been the whole day, honestly."
    assert len(fm.words(restate)) > 24
    assert fm.role_swap_reasons(restate, persona, 2) == []
    lecture = restate + " " + " ".join(["please"] * 10) + " " + " ".join(["kindly"] * 10)
    assert fm.role_swap_reasons(lecture, persona, 2)


# --- memory: corrections, self-contradiction, saying no --------------------------------------------

OPENING = PERSONA.opening
WRONG_SINCE = "So it has been happening since Tuesday, right?"
RIGHT_SINCE = "So it has been happening since Monday, right?"
CHECK = "Can I close your ticket now?"


def test_missing_corrections_count_a_wrong_restatement_left_standing() -> None:
    assert fm.missing_corrections(convo(OPENING, WRONG_SINCE, "Okay, thanks.")) == Ratio(1, 1)
    assert fm.missing_corrections(
        convo(OPENING, WRONG_SINCE, "No, that's not right. Since Monday.")
    ) == Ratio(0, 1)
    # A fact the user may not tell yet counts for nothing: the laptop tag before user turn 2.
    assert fm.missing_corrections(convo(OPENING, "So your laptop tag is LT-0458, right?", "Ok.")) == Ratio(
        0, 0
    )
    assert fm.missing_corrections(convo(OPENING, RIGHT_SINCE, "Yes.")) == Ratio(0, 0)
    # Leaving is no missing correction.
    assert fm.missing_corrections(convo(OPENING, WRONG_SINCE, "Forget it, I give up. Bye.")) == Ratio(0, 0)


def test_false_corrections_count_a_right_restatement_called_wrong() -> None:
    assert fm.false_corrections(convo(OPENING, RIGHT_SINCE, "No, that's not right.")) == Ratio(1, 1)
    assert fm.false_corrections(convo(OPENING, RIGHT_SINCE, "Yes, exactly.")) == Ratio(0, 1)
    # With another fact said back wrong in the same message, the correction is for that one.
    both = convo(
        OPENING, f"{RIGHT_SINCE} And your employee ID is E48231, correct?", "Not quite. It's E48213."
    )
    assert fm.false_corrections(both) == Ratio(0, 0)
    assert fm.missing_corrections(both) == Ratio(0, 1)


def test_self_contradiction_counts_taking_back_what_the_user_said() -> None:
    worked = (OPENING, "Please reconnect the VPN.", "Okay. That worked, it stays connected now.", CHECK)
    assert fm.self_contradiction(convo(*worked, "No, it's still not working.")) == Ratio(1, 2)
    assert fm.self_contradiction(convo(*worked, "It works now, but it's not sorted yet.")) == Ratio(0, 2)
    # Before the user said it works, saying it does not contradicts nothing.
    failed = (OPENING, "Please reconnect the VPN.", "Still dropping, I'm afraid.", CHECK)
    assert fm.self_contradiction(convo(*failed, "No, it's still not working.")) == Ratio(0, 2)
    # A fact told again with another value; quoting the agent's value is no contradiction.
    told = (OPENING, "What's your employee ID?", "My employee ID is E48213.")
    assert fm.self_contradiction(convo(*told, "Thanks.", "Sorry, my employee ID is E48231.")) == Ratio(1, 2)
    quoted = convo(*told, "Is E48231 yours?", "My employee ID is E48231? No, it's E48213.")
    assert fm.self_contradiction(quoted) == Ratio(0, 2)


def test_say_no_rate_counts_checks_answered_with_a_no_while_the_goal_is_unmet() -> None:
    unmet, met = {"vpn_ok": False}, {"vpn_ok": True}
    assert fm.say_no_rate(convo(OPENING, CHECK, "No, it's still not working.", final_view=unmet)) == Ratio(
        1, 1
    )
    assert fm.say_no_rate(convo(OPENING, CHECK, "Sure, go ahead.", final_view=unmet)) == Ratio(0, 1)
    assert fm.say_no_rate(convo(OPENING, CHECK, "Sure, go ahead.", final_view=met)) == Ratio(0, 0)
    assert fm.say_no_rate(convo(OPENING, CHECK, "Sure, go ahead.")) == Ratio(0, 0)  # no final view
    # "Is it working now?" is a check too; a claim is not.
    assert fm.say_no_rate(convo(OPENING, "Is it working now?", "Yes.", final_view=unmet)) == Ratio(0, 1)
    assert fm.say_no_rate(convo(OPENING, "It's fixed now.", "Yes.", final_view=unmet)) == Ratio(0, 0)


def test_the_memory_metrics_are_reported_with_their_findings() -> None:
    transcripts = [
        convo(OPENING, WRONG_SINCE, "Okay, thanks.", label="left"),
        convo(OPENING, RIGHT_SINCE, "No, that's not right.", label="false"),
        convo(OPENING, CHECK, "Sure, go ahead.", final_view={"vpn_ok": False}, label="yes"),
    ]
    report = fidelity_report(transcripts, with_diversity=False)
    names = ("missing_corrections", "false_corrections", "self_contradiction", "say_no_rate")
    assert [getattr(report, name) for name in names] == [Ratio(1, 1), Ratio(1, 1), Ratio(0, 3), Ratio(0, 1)]
    data = json.loads(report.to_json())
    text = report.to_text()
    for name in names:
        assert name in report.rates() and name in data["metrics"] and name in text
    assert {"missing_correction", "false_correction", "say_no"} <= {f.metric for f in report.findings}
    assert report.integrity_ok()  # behaviour, not integrity: the exit status does not depend on them


def test_the_report_rows_json_keys_and_integrity_come_from_the_registry() -> None:
    report = fidelity_report([LEAKY, CLEAN], with_diversity=False)
    names = [metric.name for metric in fm.METRICS]
    assert len(set(names)) == len(names)
    assert list(report.rates()) == names
    assert list(report.to_dict()["metrics"]) == names
    table = report.to_text().split("\n\n")[0].splitlines()[3:]  # after the title and the header
    assert [row.split()[0] for row in table] == names
    assert tuple(metric.name for metric in fm.METRICS if metric.integrity) == fm.INTEGRITY_METRICS
    for metric in fm.METRICS:
        assert getattr(report, metric.name) == report.rates()[metric.name]
        assert metric.definition and "\n" not in metric.definition
        hit = fm.FidelityReport(conversations=1, user_turns=1, metrics={metric.name: Ratio(1, 1)})
        # a hit fails the report exactly when the metric is an integrity metric, and is flagged
        assert hit.integrity_ok() is not metric.integrity
        assert hit.to_dict()["integrity_ok"] is not metric.integrity
        row = next(line for line in hit.to_text().splitlines() if line.startswith(metric.name + " "))
        assert row.endswith("FAIL") is metric.integrity
    with pytest.raises(AttributeError):
        _ = report.no_such_metric


def test_the_docs_table_lists_the_registry() -> None:
    from pathlib import Path

    docs = (Path(__file__).parents[3] / "docs" / "users.md").read_text(encoding="utf-8")
    section = docs.split("## Fidelity metrics", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|") for line in section.splitlines() if line.startswith("| `")]
    listed = {cells[1].strip().strip("`"): cells[2].strip() == "yes" for cells in rows}
    assert listed == {metric.name: metric.integrity for metric in fm.METRICS}


_PHRASES = ["don't know", "e-mail", "co", "I'm", "never mind", "can not", "foo_bar", "ok", "?", "it works"]
_PIECES = st.sampled_from(
    [*_PHRASES, "Don't", "KNOW", "e", "-", "mail", "co-op", "I'M", "never\tmind", "x", " ", "'", "_"]
)


@settings(max_examples=examples(200), deadline=None)
@given(pieces=st.lists(st.one_of(_PIECES, st.text(max_size=6)), max_size=12))
def test_phrases_in_finds_what_each_phrase_pattern_finds(pieces: list[str]) -> None:
    # The first-word filter skips searches, never a match.
    text = " ".join(pieces)
    expected = [phrase for phrase in _PHRASES if fm.phrase_pattern(phrase).search(text)]
    assert fm.phrases_in(text, _PHRASES) == expected
