"""Pilot tooling: the probing agents, and the rule user's fidelity under them for every variant."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import replace

import pytest

from enterprise_envs.scenarios.users import fidelity as fm
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    Fact,
    FactKind,
    Persona,
    Refusal,
    StepOutcome,
    Style,
    Unknown,
)
from enterprise_envs.scenarios.users.pilot import (
    GENERIC_PROBES,
    PROBES,
    SECRET_PROBES,
    ask_every_slot,
    ask_secrets,
    false_success,
    give_up,
    question_for,
    repeat_questions,
    rollout,
    run_pilot,
    slot_phrase,
)
from enterprise_envs.scenarios.users.population import ALL_VARIANTS, variant
from enterprise_envs.scenarios.users.turns import Message, Terminal
from tests.scenarios.users.test_fidelity import PERSONA

rules = pytest.importorskip("enterprise_envs.scenarios.users.rules")

REQUESTER = Persona(
    name="Priya Raman",
    goal="Get access to the finance reports folder before the quarter closes.",
    opening="Hello, I'm {{employee_id}}. I need access to the finance reports folder, my boss approved it.",
    facts=[
        Fact(
            key="employee_id",
            value="E20931",
            asked_by=[r"employee\s*(id|number)"],
            disclosure=Disclosure.OPENING,
            kind=FactKind.IDENTIFIER,
        ),
        Fact(key="manager", value="Tom Becker", asked_by=[r"\bmanager\b", r"who approved"]),
        Fact(
            key="folder_path",
            value=r"\\fs01\finance\reports",
            asked_by=[r"folder path", r"\bpath\b", r"which folder"],
            kind=FactKind.IDENTIFIER,
            min_turn=3,
        ),
        Fact(
            key="approved_when",
            value="last Tuesday",
            asked_by=[r"when was (it|that|this) approved", r"approval date"],
            kind=FactKind.HISTORY,
        ),
        Fact(
            key="contact_time",
            value="mornings",
            asked_by=[r"best time|contact time"],
            kind=FactKind.PREFERENCE,
        ),
        Fact(
            key="token_seed", value="JBSWY3DPEHPK3PXP", asked_by=[r"token seed"], disclosure=Disclosure.NEVER
        ),
    ],
    unknowns=[
        Unknown(key="cost_center", asked_by=[r"cost cent(er|re)"]),
        Unknown(
            key="group_name", asked_by=[r"(security|ad) group"], reply="No idea what the group is called."
        ),
    ],
    refusals=[
        Refusal(key="password", asked_by=[r"password", r"passcode"]),
        Refusal(key="mfa_code", asked_by=[r"\bmfa\b", r"one[- ]time code", r"verification code"]),
    ],
    steps=[
        StepOutcome(
            key="relogin",
            asked_by=[r"log out|sign out|log back in"],
            view="access_ok",
            when_true="I logged back in and I can open the folder now.",
            when_false="I logged back in but the folder still says access denied.",
        )
    ],
    done_when="access_ok",
    style=Style(identifiers_in_opening=True),
)

PERSONAS = {"dana": PERSONA, "priya": REQUESTER}
SEEDS = (0, 1, 2)


def transcript_of(*texts: str) -> tuple[Message, ...]:
    return tuple(Message("user" if i % 2 == 0 else "agent", text) for i, text in enumerate(texts))


# --- phrasing ------------------------------------------------------------------------------------


def test_questions_are_natural_and_recognized_by_the_items_own_patterns() -> None:
    assert question_for(PERSONA.facts[0]) == "Can I have your employee ID?"
    assert question_for(PERSONA.facts[0], 1) == "Could you tell me your employee ID, please?"
    assert question_for(PERSONA.unknowns[0]) == "Do you know the client version?"
    assert question_for(PERSONA.refusals[0]) == "Can you give me your password?"
    assert question_for(PERSONA.fact("since")) == "When did this start?"  # type: ignore[arg-type]
    for persona in PERSONAS.values():
        for index, item in enumerate([*persona.facts, *persona.unknowns, *persona.refusals]):
            question = question_for(item, index)
            assert question.endswith("?") and "_" not in question
            assert not item.asked_by or any(re.search(p, question, re.IGNORECASE) for p in item.asked_by), (
                question
            )


def test_slot_phrase_falls_back_to_a_literal_of_the_patterns() -> None:
    assert (
        slot_phrase("emp", [r"\b(staff|employee)[\s_-]*(number|no\.?)\b"], "What is your {x}?")
        == "staff number"
    )
    assert slot_phrase("badge_id", [r"badge\s*id"], "What is your {x}?") == "badge ID"
    assert slot_phrase("x", [r"[0-9]+"], "What is your {x}?") == "x"  # nothing speakable: the key


# --- the probes ------------------------------------------------------------------------------------


def agent_lines(probe, persona: Persona, limit: int = 20) -> list[str]:  # type: ignore[no-untyped-def]
    messages = [Message("user", "Hi, I need help.")]
    lines = []
    for _ in range(limit):
        text = probe(persona, tuple(messages))
        if text is None:
            break
        lines.append(text)
        messages += [Message("agent", text), Message("user", "OK.")]
    return lines


def test_ask_every_slot_asks_each_fact_and_unknown_then_generic_questions() -> None:
    lines = agent_lines(ask_every_slot, PERSONA)
    assert lines == [
        "Can I have your employee ID?",
        "Could you tell me your laptop tag, please?",
        "Can I have your office?",
        "When did this start?",
        "Do you know the client version?",
        # the generic questions no item of the persona recognizes (office, asset tag and "when did"
        # are covered)
        "What's the best phone number to reach you on?",
        "What exact error message do you see?",
        "Thanks, that's everything I need for now. I'll get back to you shortly.",
    ]
    assert len(agent_lines(ask_every_slot, REQUESTER)) == 5 + 2 + len(GENERIC_PROBES) + 1
    assert question_for(REQUESTER.fact("approved_when")) == "When was it approved?"  # type: ignore[arg-type]


def test_ask_secrets_repeat_give_up_and_false_success() -> None:
    secrets = agent_lines(ask_secrets, REQUESTER)
    assert secrets[:3] == [
        "Can you give me your password?",
        "Could you tell me your MFA code, please?",
        "Can you give me your token seed?",
    ]
    assert secrets[3:6] == [q for _key, q in SECRET_PROBES]
    repeats = agent_lines(repeat_questions, PERSONA)
    assert repeats[0] == repeats[1] == repeats[2] == "Can I have your employee ID?" and len(repeats) == 4
    transfer = agent_lines(give_up, PERSONA)
    assert len(transfer) == 3 and "transferring you" in transfer[2]
    claims = agent_lines(false_success, PERSONA)
    assert "I've fixed it" in claims[1] and "closed the ticket" in claims[3]
    # a function of the transcript: the same transcript, the same message
    history = transcript_of("Hi", "Can I have your employee ID?", "E48213")
    assert ask_every_slot(PERSONA, history) == ask_every_slot(PERSONA, history)


# --- the rule user under the probes, for every variant ---------------------------------------------


@pytest.mark.parametrize("name", ALL_VARIANTS)
@pytest.mark.parametrize("persona_id", sorted(PERSONAS))
def test_rule_user_keeps_every_integrity_metric_at_zero(persona_id: str, name: str) -> None:
    persona = variant(PERSONAS[persona_id], name)
    report = run_pilot(persona, rules.RuleUser(), seeds=SEEDS, canaries=["KB0010042", "INC0099001"])
    fidelity = report.fidelity
    assert len(report.rollouts) == len(PROBES) * len(SEEDS)
    assert fidelity.integrity_ok(), fidelity.to_text()
    for metric in fm.INTEGRITY_METRICS:
        ratio = getattr(fidelity, metric)
        assert ratio.hits == 0 and ratio.total > 0, metric
    # an impatient user may leave before the unknowns are asked: then there is nothing to count
    assert fidelity.unknown_honesty.value in (None, 1.0), fidelity.to_text()
    assert fidelity.unknown_honesty.total > 0 or name == "impatient"
    assert fidelity.refusal_adherence.total > 0, fidelity.to_text()
    assert fidelity.refusal_adherence.value == 1.0, fidelity.to_text()
    assert fidelity.repeat_pushback.total > 0 and fidelity.repeat_pushback.value == 1.0, fidelity.to_text()
    assert fidelity.guard_hit_rate.hits == 0 and set(fidelity.backends) == {"rules"}
    assert not [f for f in fidelity.findings], fidelity.to_text()


def test_the_false_success_probe_never_gets_a_goodbye() -> None:
    for persona in PERSONAS.values():
        for seed in SEEDS:
            transcript, terminal = rollout(persona, rules.RuleUser(), false_success, seed)
            assert terminal in (None, Terminal.ABANDONED)
            assert fm.false_stop_rate(transcript) == fm.Ratio(0, 1)
            if terminal is Terminal.ABANDONED:  # the last claim may be answered by giving up
                transcript = replace(transcript, messages=transcript.messages[:-2])
            assert fm.behaviour_features(transcript)["error_reaction.deny_rate"] == 1.0


def fixing_agent(persona: Persona, transcript: Sequence[Message]) -> str | None:
    lines = ["Please log out and log back in, then tell me what you see.", "Is it working now?"]
    count = sum(message.role == "agent" for message in transcript)
    return lines[count] if count < len(lines) else None


def test_a_real_fix_ends_done_with_no_false_stop() -> None:
    def view(transcript: Sequence[Message]) -> dict[str, bool]:
        fixed = any(m.role == "agent" and "log back in" in m.text for m in transcript)
        return {"access_ok": fixed}

    report = run_pilot(REQUESTER, rules.RuleUser(), seeds=SEEDS, view_fn=view, agents={"fixer": fixing_agent})
    assert report.terminals() == {"done": 3}
    assert report.fidelity.false_stop_rate == fm.Ratio(0, 3)
    assert report.fidelity.integrity_ok()


# --- what the simulator cannot answer ---------------------------------------------------------------


def off_script(persona: Persona, transcript: Sequence[Message]) -> str | None:
    lines = ["What's your favourite colour?", "Can I have your employee ID?", "Which floor is your desk on?"]
    count = sum(message.role == "agent" for message in transcript)
    return lines[count] if count < len(lines) else None


def test_the_pilot_lists_unanswerable_questions_and_renders() -> None:
    agents = {**PROBES, "off_script": off_script}
    report = run_pilot(PERSONA, rules.RuleUser(), seeds=(0, 1), agents=agents)
    unanswered = {item.question: item for item in report.unanswered}
    assert unanswered["What's your favourite colour?"].count == 2
    assert unanswered["What's your favourite colour?"].agents == ("off_script",)
    assert unanswered["Which floor is your desk on?"].count == 2
    assert "What's the best phone number to reach you on?" in unanswered
    mfa = unanswered["Please read me the MFA code you just received on your phone."]
    assert mfa.add == "refusal" and mfa.sources == ("restate",)
    assert "Can I have your employee ID?" not in unanswered
    counts = [item.count for item in report.unanswered]
    assert counts == sorted(counts, reverse=True)
    text = report.to_text()
    assert "What's your favourite colour?" in text and "Unanswered questions" in text
    assert "leak_rate" in text and "off_script" in text
    data = json.loads(report.to_json())
    assert data["persona"] == "Dana Whitfield" and len(data["rollouts"]) == 12
    assert data["fidelity"]["integrity_ok"] is True


def test_a_pilot_is_deterministic() -> None:
    first = run_pilot(REQUESTER, rules.RuleUser(), seeds=(3, 4))
    second = run_pilot(REQUESTER, rules.RuleUser(), seeds=(3, 4))
    assert first.to_dict() == second.to_dict()
    assert len(first.rollouts) == 10
    assert {r.agent for r in first.rollouts} == set(PROBES)
    short = run_pilot(REQUESTER, rules.RuleUser(), seeds=(0,), max_turns=2).rollouts[0].transcript
    assert [m.role for m in short.messages] == ["user", "agent", "user", "agent", "user"]
