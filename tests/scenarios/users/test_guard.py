"""The LLM user's guard: each check catches its recorded bad reply and lets realistic ones through."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users.guard import (
    GuardContext,
    GuardHit,
    check_canary,
    check_coaching,
    check_contradiction,
    check_leak,
    check_role_swap,
    check_stop,
    fill,
    guard,
    placeholders,
    told,
)
from enterprise_envs.scenarios.users.persona import Fact, Persona, Refusal, StepOutcome, Unknown
from enterprise_envs.scenarios.users.turns import Message
from tests.scenarios.users.systems import ITSM_VOCABULARY, speaking
from tests.strategies import HOSTILE_TEXT, examples

PERSONA = Persona(
    name="Dana Whitfield",
    goal="Get my VPN working again so I can reach the finance share from home.",
    opening="Hi, my VPN keeps disconnecting since this morning. I use {{vpn_client}}.",
    facts=[
        Fact(
            key="employee_id",
            value="E104233",
            asked_by=[r"employee\s*(id|number)"],
            disclosure="on_ask",
            kind="identifier",
        ),
        Fact(
            key="email",
            value="dana.whitfield@example.com",
            asked_by=[r"e-?mail"],
            disclosure="on_ask",
            kind="identifier",
        ),
        Fact(key="laptop", value="LT-4471", asked_by=["laptop|asset|device"], disclosure="on_ask"),
        Fact(key="vpn_client", value="GlobalProtect", disclosure="opening"),
        Fact(key="pin", value="8812", asked_by=["pin"], disclosure="never"),
    ],
    unknowns=[Unknown(key="manager", asked_by=["manager"])],
    refusals=[Refusal(key="password", asked_by=["password"])],
    steps=[
        StepOutcome(
            key="restart_client",
            asked_by=["restart"],
            view="restart_helped",
            when_true="That worked, it connects now.",
            when_false="I restarted it, it still disconnects.",
        )
    ],
    done_when="vpn_ok",
)

OPENING = Message("user", "Hi, my VPN keeps disconnecting since this morning. I use GlobalProtect.")


def context(
    *agent_and_user: Message,
    disclosable: set[str] | None = None,
    canaries: tuple[str, ...] = (),
    view: dict[str, bool] | None = None,
    may_end: bool = False,
    persona: Persona = PERSONA,
) -> GuardContext:
    return GuardContext(
        persona=persona,
        transcript=(OPENING, *agent_and_user),
        disclosable=frozenset(disclosable or {"vpn_client"}),
        canaries=canaries,
        view=view if view is not None else {"vpn_ok": False, "restart_helped": False},
        may_end=may_end,
    )


def checks(hits: list[GuardHit]) -> list[str]:
    return [hit.check for hit in hits]


ASKED_NAME = Message("agent", "Sorry to hear that. Can I have your name please?")
ASKED_ID = Message("agent", "Thanks. What is your employee ID?")


# --- leak ---------------------------------------------------------------------------------------------


def test_leak_of_an_on_ask_fact_before_it_was_asked() -> None:
    ctx = context(ASKED_NAME)
    hit = check_leak("Dana Whitfield, employee E104233.", ctx)
    assert hit == GuardHit("leak", "employee_id")
    assert checks(guard("Dana Whitfield, employee E104233.", ctx)) == ["leak"]


def test_leak_of_a_placeholder_not_disclosable_now() -> None:
    hit = check_leak("Dana Whitfield, my id is {{employee_id}}.", context(ASKED_NAME))
    assert hit is not None and hit.detail == "employee_id"


def test_disclosable_value_and_placeholder_pass() -> None:
    ctx = context(ASKED_ID, disclosable={"vpn_client", "employee_id"})
    assert guard("It's {{employee_id}}.", ctx) == []
    assert guard("It's E104233.", ctx) == []
    assert fill("It's {{employee_id}}.", PERSONA, ctx.disclosable) == "It's E104233."


def test_repeating_a_value_the_agent_said_is_no_leak() -> None:
    agent = Message("agent", "I found incident INC0010001 for you, and your ID is E104233, right?")
    ctx = context(agent)
    assert guard("Yes, E104233 is me, and INC0010001 is the one.", ctx) == []


def test_never_fact_and_invented_values_leak() -> None:
    ctx = context(Message("agent", "What is your PIN?"))
    assert check_leak("It's 8812.", ctx) == GuardHit("leak", "pin")
    invented = check_leak("My phone is 555-0199 and my desk PC is WS-8841 on host fin-gw.corp.local.", ctx)
    assert invented is not None
    assert invented.detail == "'555-0199', 'WS-8841', 'fin-gw.corp.local'"
    assert check_leak("write to me at dana@evil.example.org", ctx) is not None
    assert check_leak("My {{favourite_colour}} is blue", ctx) == GuardHit("leak", "{{favourite_colour}}")


def test_told_facts_may_be_repeated() -> None:
    transcript = (ASKED_ID, Message("user", "E104233"), Message("agent", "And your laptop?"))
    assert told(PERSONA, (OPENING, *transcript)) == {"vpn_client", "employee_id"}
    ctx = context(*transcript)
    assert guard("I already said: E104233. The laptop I'm not sure.", ctx) == []
    assert fill("{{employee_id}}", PERSONA, told(PERSONA, (OPENING, *transcript))) == "E104233"


def test_fill_only_fills_allowed_keys() -> None:
    text = "{{employee_id}} / {pin} / {{ laptop }} / {{nope}}"
    assert placeholders(text) == ["employee_id", "pin", "laptop", "nope"]
    assert fill(text, PERSONA, {"employee_id", "laptop"}) == "E104233 / {pin} / LT-4471 / {{nope}}"
    assert fill(text, PERSONA, set()) == text


@settings(max_examples=examples(60))
@given(
    allowed=st.sets(st.sampled_from([fact.key for fact in PERSONA.facts])),
    keys=st.lists(st.sampled_from([fact.key for fact in PERSONA.facts]), max_size=6),
    filler=st.sampled_from(["", " ", ", ", " and ", " / ", "! "]),
)
def test_fill_puts_in_only_allowed_values(allowed: set[str], keys: list[str], filler: str) -> None:
    text = filler.join("{{" + key + "}}" for key in keys)
    filled = fill(text, PERSONA, allowed)
    for fact in PERSONA.facts:
        assert (fact.value in filled) == (fact.key in allowed and fact.key in keys)
    ctx = GuardContext(PERSONA, (), frozenset(allowed), view={"vpn_ok": False})
    hit = check_leak(text, ctx)
    assert (hit is None) == (set(keys) <= allowed)


# --- canaries -----------------------------------------------------------------------------------------


def test_canary_kb_number() -> None:
    ctx = context(ASKED_NAME, canaries=("KB0010042", "Network"))
    reply = "Dana. A colleague said KB0010042 fixes this."
    assert check_canary(reply, ctx) == GuardHit("canary", "KB0010042")
    assert "canary" in checks(guard(reply, ctx))


def test_canary_said_by_the_agent_first_is_no_hit() -> None:
    agent = Message("agent", "Article KB0010042 describes this; can you try its steps?")
    ctx = context(agent, canaries=("KB0010042",))
    assert check_canary("OK, I'll try the steps in KB0010042.", ctx) is None


# --- role swap ----------------------------------------------------------------------------------------


def test_role_swap_created_incident() -> None:
    reply = "I have created incident INC0010001 for you. Is there anything else?"
    itsm = speaking(PERSONA, ITSM_VOCABULARY)  # "incident" is ITSM's word for a record
    hit = check_role_swap(reply, context(ASKED_NAME, persona=itsm))
    assert hit is not None and "agent phrase" in hit.detail
    assert "role_swap" in checks(guard(reply, context(ASKED_NAME, persona=itsm)))


@pytest.mark.parametrize(
    "reply",
    [
        "How can I help you today?",
        "Let me check that for you.",
        "Thank you for contacting the service desk.",
        "Could you please provide your employee ID?",
        '{"tool": "create_incident", "arguments": {}}',
        "Sure:\n- restart the client\n- reconnect",
        "## Summary\nVPN broken",
        "I will call create_incident(short_description='vpn')",
        " ".join(["word"] * 80),
    ],
)
def test_role_swap_forms(reply: str) -> None:
    assert check_role_swap(reply, context(ASKED_NAME)) is not None


# --- coaching -----------------------------------------------------------------------------------------


def test_coaching_priority_and_group() -> None:
    reply = "You should set the priority to 1 and assign it to the Network group"
    hit = check_coaching(reply, context(ASKED_NAME))
    assert hit is not None and "priority" in hit.detail and "assignment" in hit.detail
    assert "coaching" in checks(guard(reply, context(ASKED_NAME)))


@pytest.mark.parametrize(
    "reply",
    [
        "Resolve it with close code 'Solved (Permanently)'.",
        "Please mark it as resolved once done.",
        "Make sure to put it in the Network category.",
        "Maybe search the knowledge base for VPN?",
    ],
)
def test_coaching_forms(reply: str) -> None:
    assert check_coaching(reply, context(ASKED_NAME)) is not None


def test_coaching_terms_the_persona_uses_are_its_own() -> None:
    persona = PERSONA.model_copy(update={"goal": "Get the priority of my VPN incident raised."})
    ctx = GuardContext(persona, (OPENING,), frozenset({"vpn_client"}), view={"vpn_ok": False})
    assert check_coaching("Could you raise the priority please?", ctx) is None


# --- stop hygiene -------------------------------------------------------------------------------------


def test_premature_goodbye() -> None:
    claim = Message("agent", "I've restarted the VPN gateway, it should work now.")
    reply = "Great, thanks a lot. Bye!"
    assert check_stop(reply, context(claim)) is not None
    assert "stop" in checks(guard(reply, context(claim)))
    assert check_stop(reply, context(claim, view={"vpn_ok": True})) is None
    assert check_stop("OK, I give up. Bye.", context(claim, may_end=True)) is None
    assert check_stop("Oh nice, it works now!", context(claim)) is not None


def test_reporting_a_step_that_helped_is_no_stop() -> None:
    ctx = context(
        Message("agent", "Please restart the client."), view={"vpn_ok": False, "restart_helped": True}
    )
    assert guard("That worked, it connects now.", ctx) == []


def test_a_reply_taking_back_that_it_works_is_a_contradiction() -> None:
    """The user said the restart worked: a later 'it still disconnects' is rejected, a no that
    keeps to its word passes, and before the user said it works a denial is fine."""
    worked = (
        Message("agent", "Please restart the client."),
        Message("user", "That worked, it connects now."),
        Message("agent", "Great, can I close your ticket now?"),
    )
    ctx = context(*worked, view={"vpn_ok": False, "restart_helped": True})
    assert checks(guard("No, it's still not working, it keeps dropping.", ctx)) == ["contradiction"]
    kept = "It works now, yes, but please keep it open until Friday."
    assert "contradiction" not in checks(guard(kept, ctx))
    before = context(Message("agent", "It's fixed now, can I close it?"))
    assert check_contradiction("No, it's still not working, it keeps dropping.", before) is None


# --- good replies pass --------------------------------------------------------------------------------


GOOD = [
    (
        "Hi, my VPN keeps dropping every few minutes since this morning. Can you help?",
        context(),
    ),
    ("I use {{vpn_client}}, if that matters.", context(Message("agent", "Which VPN client?"))),
    ("Dana Whitfield.", context(ASKED_NAME)),
    ("Sure, it's {{employee_id}}.", context(ASKED_ID, disclosable={"vpn_client", "employee_id"})),
    ("Hmm, I don't know who my manager is, sorry.", context(Message("agent", "Who is your manager?"))),
    ("Sorry, I'm not giving out my password.", context(Message("agent", "What's your password?"))),
    (
        "I restarted it but it still keeps disconnecting.",
        context(Message("agent", "Please restart the client.")),
    ),
    ("No, it still drops. It's not fixed.", context(Message("agent", "It should work now."))),
    ("Thanks, I'll wait. What's the ticket number?", context(Message("agent", "I'm looking into it."))),
    (
        "Perfect, thanks so much for your help. Bye!",
        context(Message("agent", "Connected now?"), view={"vpn_ok": True, "restart_helped": True}),
    ),
    ("ok. my email is {{email}}", context(Message("agent", "Your email?"), disclosable={"email"})),
    (
        "Let me check... it's {{laptop}}.",
        context(Message("agent", "What's your laptop's asset tag?"), disclosable={"laptop"}),
    ),
    ("Is there anything else you need from me?", context(Message("agent", "Thanks for the details."))),
]


@pytest.mark.parametrize(("reply", "ctx"), GOOD, ids=[reply[:30] for reply, _ in GOOD])
def test_realistic_replies_pass(reply: str, ctx: GuardContext) -> None:
    assert guard(reply, ctx) == []


@settings(max_examples=examples(100))
@given(text=st.one_of(HOSTILE_TEXT, st.text(max_size=300)))
def test_guard_never_raises(text: str) -> None:
    hits = guard(text, context(ASKED_ID, canaries=("KB0010042",)))
    assert all(re.fullmatch(r"[a-z_]+", hit.check) for hit in hits)
