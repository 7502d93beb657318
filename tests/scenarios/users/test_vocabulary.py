"""A system's words and record-number shape reach the simulated user as data, and only as data.

The user package names no system (issue 15): what the guard flags and what the fidelity metrics
count of a system's own words and record numbers follows the vocabulary on the persona, which the
scenario instance fills from the system's declared conventions. A made-up system (a key-value
store: entries, ``KV`` and five digits, ``kvql``) changes the verdicts; ITSM's keep theirs.
"""

from __future__ import annotations

import json
from pathlib import Path

import gymnasium
import pytest

import enterprise_envs  # noqa: F401  (registers the gym ids)
from enterprise_envs.scenarios.users import acts
from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.fidelity import Ratio, Transcript
from enterprise_envs.scenarios.users.guard import (
    GuardContext,
    check_coaching,
    check_leak,
    check_role_swap,
    guard,
)
from enterprise_envs.scenarios.users.persona import Fact, Persona, Vocabulary
from enterprise_envs.scenarios.users.turns import Message
from enterprise_envs.scenarios.users.vocabulary import number_shape, record_words
from enterprise_envs.simulator_tools import transcripts_from_runs
from tests.scenarios.users.systems import ITSM_VOCABULARY, KV_VOCABULARY, speaking

PERSONA = Persona(
    name="Sam Lee",
    goal="Get my stale cache entry refreshed.",
    opening="Hi, one of my cache entries is stale.",
    facts=[Fact(key="entry_key", value="KV00042", asked_by=[r"\bkey\b"], kind="identifier")],
    done_when="refreshed",
)
GENERIC, ITSM, KVS = PERSONA, speaking(PERSONA, ITSM_VOCABULARY), speaking(PERSONA, KV_VOCABULARY)
OPENING = Message("user", PERSONA.opening)
ASKED = Message("agent", "Thanks, I found entry KV00042 for you. Anything else you can tell me?")


def context(persona: Persona, *transcript: Message) -> GuardContext:
    return GuardContext(persona, (OPENING, *transcript), frozenset(), view={"refreshed": False})


def convo(persona: Persona, *texts: str) -> Transcript:
    messages = [Message("user" if i % 2 == 0 else "agent", text) for i, text in enumerate(texts)]
    return Transcript(persona, tuple(messages))


# --- the data path ---------------------------------------------------------------------------------


def test_an_instance_hands_its_persona_the_systems_vocabulary() -> None:
    """``draw_instance`` fills the vocabulary from ITSM's conventions and catalog; a persona variant
    keeps it; the fidelity report of a run file re-draws the instance and so has it too."""
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    env.reset(seed=3)
    persona = env.unwrapped.instance.persona
    env.close()
    assert persona.vocabulary == ITSM_VOCABULARY
    assert persona.vocabulary.record == "ticket" and persona.vocabulary.numbers["INC"] == 7
    assert {"sys_id", "work_notes"} <= set(persona.vocabulary.terms)
    assert persona.vocabulary.nouns["incident"] == "ticket"


def test_fidelity_over_run_files_reads_the_vocabulary(tmp_path: Path) -> None:
    record = {
        "scenario": "itsm.report_incident",
        "seed": 3,
        "messages": [
            {"role": "user", "content": "Hi, my VPN drops."},
            {"role": "assistant", "content": "Let me look into that."},
            {"role": "user", "content": "The sys_id is in the email you sent."},
        ],
    }
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    (transcript,) = transcripts_from_runs(path)
    assert transcript.persona.vocabulary == ITSM_VOCABULARY
    assert fm.coaching_rate(transcript) == Ratio(1, 2)  # ITSM's key field, named by the user


def test_the_default_is_no_system_in_particular() -> None:
    assert GENERIC.vocabulary == Vocabulary()
    assert record_words(GENERIC.vocabulary) == ("ticket", "request", "case", "record")
    assert not number_shape(GENERIC.vocabulary).declared
    lexicons = " | ".join([*fm.COACHING_STRONG_TERMS, *fm.AGENT_PHRASES, *fm.AGENT_CLAIM_MARKERS])
    for word in ("sys_id", "sysparm", "work note", "short_description", "incident", "assignment group"):
        assert word not in lexicons
    assert fm.coaching_reasons("The sys_id is in the email.", GENERIC) == []


def test_a_vocabulary_declares_numbers_a_reader_can_read() -> None:
    with pytest.raises(ValueError, match="2-6 letters and 3-12 digits"):
        Vocabulary(numbers={"K": 5})
    with pytest.raises(ValueError, match="2-6 letters and 3-12 digits"):
        Vocabulary(numbers={"KV": 20})


# --- the guard -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "check", "kv", "itsm"),
    [
        # The system's own API words coach; another system's are just words.
        ("You could look it up with kvql.", check_coaching, True, False),
        ("The shard map should show it.", check_coaching, True, False),
        ("The sys_id is in the email.", check_coaching, False, True),
        ("Maybe add a work note about it.", check_coaching, False, True),
        # A term written as code is tool syntax; a record word or number makes an agent phrase.
        ("Set the bucket_key for me.", check_role_swap, True, False),
        ("Try sysparm_query=active=true.", check_role_swap, False, True),
        ("I will close the entry now.", check_role_swap, True, False),
        ("I will escalate your KV 00042 now.", check_role_swap, True, False),
        ("I will escalate the incident now.", check_role_swap, False, True),
        # The agent's own number, written another way, is an echo only where it is a number.
        ("So it's kv-00042, thanks.", check_leak, False, True),
    ],
)
def test_the_guard_flags_what_the_systems_vocabulary_says(reply, check, kv: bool, itsm: bool) -> None:
    assert (check(reply, context(KVS, ASKED)) is not None) is kv
    assert (check(reply, context(ITSM, ASKED)) is not None) is itsm


def test_a_declared_number_is_a_value_in_any_written_form() -> None:
    """A three-digit shape: "kv 042" is no value-like span of any system, but is the KV store's."""
    three = speaking(PERSONA, KV_VOCABULARY.model_copy(update={"numbers": {"KV": 3}}))
    asked = Message("agent", "Which entry is it?")
    hit = check_leak("It's kv 042.", context(three, asked))
    assert hit is not None and hit.detail == "'kv 042'"
    assert check_leak("It's kv 042.", context(ITSM, asked)) is None


# --- fidelity --------------------------------------------------------------------------------------

TURNS = (
    "Hi, one of my cache entries is stale.",
    "Sorry to hear that. Let me look.",
    "You could check the shard map.",  # KV's term, in a suggestion
    "OK.",
    "The sys_id is in the email.",  # ITSM's key field
    "Right.",
    "Your entry number is KV00042.",  # an agent phrase where records are entries
    "Hm?",
    "Your incident number is INC0010042.",  # an agent phrase where records are incidents
)


def test_fidelity_counts_what_the_systems_vocabulary_says() -> None:
    kv, itsm, generic = convo(KVS, *TURNS), convo(ITSM, *TURNS), convo(GENERIC, *TURNS)
    assert [(f.turn, f.detail) for f in fm.coaching_findings(kv)] == [(1, "shard map")]
    assert [(f.turn, f.detail) for f in fm.coaching_findings(itsm)] == [(2, "sys_id")]
    assert fm.coaching_rate(generic) == Ratio(0, 5)
    assert [(f.turn, f.detail) for f in fm.role_swap_findings(kv)] == [(3, "phrase 'your entry number is'")]
    assert [(f.turn, f.detail) for f in fm.role_swap_findings(itsm)] == [
        (4, "phrase 'your incident number is'")
    ]
    assert fm.role_swap_rate(generic) == Ratio(0, 5)


def test_a_wrong_record_number_said_back_is_read_by_the_systems_shape() -> None:
    """The agent says the user's key back wrong, written apart ("KV 00043"): the KV store's user
    reads it as its key said wrong (and the metric counts the missing correction); a user of a
    system without KV numbers reads no key in it."""
    said_back = "So your key is KV 00043, right?"
    assert [(r.key, r.right) for r in acts.restatements(KVS, said_back)] == [("entry_key", False)]
    assert acts.restatements(ITSM, said_back) == []
    texts = ("Hi, one of my cache entries is stale.", "What's the key?", "KV00042.", said_back, "OK, thanks.")
    assert fm.missing_corrections(convo(KVS, *texts)) == Ratio(1, 1)
    assert fm.missing_corrections(convo(ITSM, *texts)) == Ratio(0, 0)


# --- ITSM unchanged ----------------------------------------------------------------------------------

#: What the guard and the metrics said of these replies before ITSM's words moved into its
#: conventions (the user package at the commit before, the same persona and context): the checks
#: that fired, the coaching metric's reasons, the role-swap metric's reasons.
ITSM_BEFORE = [
    ("I have created incident INC0010001 for you.", ["leak", "role_swap"], [], ["phrase 'i have created'"]),
    ("Your incident number is INC0010099.", ["leak", "role_swap"], [], ["phrase 'your incident number is'"]),
    ("I have closed the incident for you.", ["role_swap"], [], ["phrase 'i have closed'"]),
    ("I'll escalate the incident to the network team.", ["role_swap"], [], []),
    ("I will update the incident INC0010041 now.", ["role_swap"], [], []),
    ("Resolve it with close code 'Solved (Permanently)'.", ["coaching"], ["close code", "resolve"], []),
    ("You should put it in the Network assignment group.", ["coaching"], ["assignment group"], []),
    ("Please add a work note saying it drops every hour.", ["coaching"], ["work note"], []),
    ("The sys_id is in the email you sent.", ["coaching", "role_swap"], ["sys_id"], []),
    ("Can you check the sysparm thing?", ["coaching"], ["sysparm"], []),
    (
        "I will call create_incident(short_description='vpn')",
        ["coaching", "role_swap"],
        ["tool syntax", "short_description"],
        ["tool syntax"],
    ),
    ("You should update the short description.", ["coaching"], [], []),
    ("Please set the category field to Network.", ["coaching"], ["category field"], []),
    ("Please set the contact type to phone.", ["coaching"], [], []),
    ("Set the assigned to field to me.", ["coaching"], ["assigned to field"], []),
    ("Please mark it as a major incident.", ["coaching"], [], []),
    ("Is this a major incident?", [], [], []),
    ("Just some additional comments: it happens on Wi-Fi too.", [], [], []),
    ("Fill in the close notes please.", ["coaching"], ["close notes"], []),
    ("It's INC0010041, the one you found.", [], [], []),
    ("My old one was INC0010077.", ["leak"], [], []),
    ("Please look at CHG0030001.", ["canary", "leak"], [], []),
    ("Thanks, bye!", ["stop"], [], []),
]

#: Where ITSM's verdicts moved, on purpose: a field name written as code is tool syntax to the
#: guard too (it was rejected before, as coaching), the metric counts ITSM's snake_case field names
#: and query parameters it missed, and the agent's own number written another way is no leak.
ITSM_CHANGED = [
    ("Add it to work_notes please.", ["coaching", "role_swap"], ["work_notes"]),  # was: coaching
    ("Try sysparm_limit=5.", ["coaching", "role_swap"], ["sysparm_"]),  # was: role_swap; metric: none
    ("Set contact_type to self-service.", ["coaching", "role_swap"], ["contact_type"]),  # metric: none
    ("It's INC-0010041, the one you found.", [], []),  # was: leak
    ("Please update the additional comments.", [], []),  # was: coaching (a plain-English label)
]


def _itsm_context() -> tuple[Persona, GuardContext]:
    persona = speaking(
        PERSONA.model_copy(update={"goal": "Get my VPN working again.", "facts": []}), ITSM_VOCABULARY
    )
    agent = Message("agent", "I found INC0010041 for you. Can I have your name please?")
    ctx = GuardContext(persona, (OPENING, agent), frozenset(), ("CHG0030001",), {"refreshed": False})
    return persona, ctx


@pytest.mark.parametrize(("reply", "checks", "coaching", "role_swap"), ITSM_BEFORE)
def test_itsm_keeps_its_verdicts(
    reply: str, checks: list[str], coaching: list[str], role_swap: list[str]
) -> None:
    persona, ctx = _itsm_context()
    assert sorted(hit.check for hit in guard(reply, ctx)) == checks
    assert fm.coaching_reasons(reply, persona) == coaching
    assert fm.role_swap_reasons(reply, persona, 2) == role_swap


@pytest.mark.parametrize(("reply", "checks", "coaching"), ITSM_CHANGED)
def test_itsm_verdicts_that_moved_on_purpose(reply: str, checks: list[str], coaching: list[str]) -> None:
    persona, ctx = _itsm_context()
    assert sorted(hit.check for hit in guard(reply, ctx)) == checks
    assert fm.coaching_reasons(reply, persona) == coaching
