"""Runbook rules checked on every episode (verifiers/policy.py), on a real ITSM world."""

from __future__ import annotations

import re

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.scenarios.loader import system_policy
from enterprise_envs.verifiers import verify
from enterprise_envs.verifiers.policy import Episode, Policy, Said
from tests.verifiers.helpers import expect, incidents

POLICY = system_policy("itsm")


def caller_of(itsm: Backend, incident: dict[str, str]) -> dict[str, str]:
    row = itsm.store.get("sys_user", incident["caller_id"])
    assert row is not None and row["email"]
    return row


def episode(itsm: Backend, messages: list[Said], caller: dict[str, str]) -> Episode:
    facts = {"email": caller["email"], "employee_number": caller["employee_number"]}
    return Episode(messages, tuple(itsm.writes), facts, {})


def policy_results(
    itsm: Backend, messages: list[Said], caller: dict[str, str], data: dict
) -> dict[str, bool]:
    verdict = verify(itsm.store, expect(data), [], (), (), POLICY, episode(itsm, messages, caller))
    return {r.label.split(":")[0]: r.passed for r in verdict.requirements if r.kind == "policy"}


COMMENT = {
    "change": [
        {
            "label": "a comment",
            "op": "insert",
            "table": "sys_journal_field",
            "may_change": ["value", "element", "element_id", "name"],
        }
    ],
    "allow": [{"label": "its stamps", "op": "update", "table": "incident"}],
}


@pytest.mark.parametrize("identified_first", [True, False])
def test_a_write_waits_until_the_caller_has_identified(itsm: Backend, identified_first: bool) -> None:
    incident = incidents(itsm, 1)[0]
    caller = caller_of(itsm, incident)
    before = [Said("user", f"Hi, it's me, {caller['email']}.", 0)] if identified_first else []
    assert itsm.call("add_comment", {"number": incident["number"], "text": "Caller called again."}).ok
    after = [Said("user", f"My email is {caller['email']}.", itsm.call_index)]
    results = policy_results(itsm, [Said("user", "Hi, my VPN drops.", 0), *before, *after], caller, COMMENT)
    assert results["identify_first"] is identified_first


@pytest.mark.parametrize(
    ("message", "kept"),
    [
        ("Could you tell me your password so I can check?", False),
        ("Please send me the one-time code from your phone.", False),
        ("Never share your password with anyone, including us.", True),
        ("Please reset your password in the self-service portal.", True),
    ],
)
def test_asking_for_a_secret_breaks_the_rule(itsm: Backend, message: str, kept: bool) -> None:
    incident = incidents(itsm, 1)[0]
    caller = caller_of(itsm, incident)
    results = policy_results(itsm, [Said("agent", message, 0)], caller, {})
    assert results["no_secrets"] is kept


RESOLVED = {
    "change": [{"label": "resolved", "op": "update", "table": "incident", "fields": {"state": "6"}}],
    "allow": [{"label": "notes", "op": "insert", "table": "sys_journal_field"}],
}


@pytest.mark.parametrize("confirmed_first", [True, False])
def test_resolving_waits_for_the_callers_confirmation(itsm: Backend, confirmed_first: bool) -> None:
    incident = incidents(itsm, 1)[0]
    caller = caller_of(itsm, incident)
    messages = [Said("user", f"It's {caller['email']}.", 0)]
    if confirmed_first:
        messages.append(Said("user", "Yes, that fixed it, thanks!", 0, confirms=True))
    arguments = {"number": incident["number"], "close_code": "Solution provided", "close_notes": "Fixed."}
    assert itsm.call("resolve_incident", arguments).ok
    if not confirmed_first:
        messages.append(Said("user", "Yes, that fixed it, thanks!", itsm.call_index, confirms=True))
    assert policy_results(itsm, messages, caller, RESOLVED)["confirm_before_resolving"] is confirmed_first


def test_a_duplicate_is_resolved_without_the_caller(itsm: Backend) -> None:
    incident = incidents(itsm, 1)[0]
    caller = caller_of(itsm, incident)
    arguments = {"number": incident["number"], "close_code": "Duplicate", "close_notes": "Duplicate."}
    assert itsm.call("resolve_incident", arguments).ok
    messages = [Said("user", f"It's {caller['email']}.", 0)]
    assert policy_results(itsm, messages, caller, RESOLVED)["confirm_before_resolving"]


def test_reading_out_another_persons_ticket_breaks_the_rule(itsm: Backend) -> None:
    mine, theirs = incidents(itsm, 2, "state = '2' AND caller_id != ''")[:2]
    caller = caller_of(itsm, mine)
    if theirs["caller_id"] == mine["caller_id"]:
        pytest.skip("the tiny world drew one caller twice")
    opening = Said("user", f"Hi, {caller['email']} here.", 0)
    own = [opening, Said("agent", f"Your ticket {mine['number']} is In Progress.", 0)]
    assert policy_results(itsm, own, caller, {})["others_records"]
    told = [opening, Said("agent", f"Ticket {theirs['number']} is about: {theirs['short_description']}.", 0)]
    assert not policy_results(itsm, told, caller, {})["others_records"]
    # What the caller said first is not disclosed by saying it back.
    asked = [Said("user", f"Can you close {theirs['number']} ({theirs['short_description']})?", 0), *told]
    assert policy_results(itsm, asked, caller, {})["others_records"]


def test_a_scenario_adds_rules_and_cannot_replace_them() -> None:
    extra = {"rules": [{"id": "no_secrets", "says": "weaker", "kind": "never_ask", "secrets": []}]}
    with pytest.raises(ValueError, match="cannot replace"):
        POLICY.extended(extra)
    added = POLICY.extended(
        {"rules": [{"id": "extra", "says": "x", "kind": "never_ask", "secrets": ["PIN"]}]}
    )
    assert [rule.id for rule in added.rules] == [*(rule.id for rule in POLICY.rules), "extra"]


def test_the_system_policy_names_real_tables_and_fields() -> None:
    catalog = ITSM.catalog
    assert isinstance(POLICY, Policy) and POLICY.rules and len(POLICY.person) == 1
    assert POLICY.person[0].table in catalog
    for rule in POLICY.rules:
        for table, fields in {**(rule.owners or {}), **(rule.details or {})}.items():
            assert table in catalog and all(name in catalog[table] for name in fields), (rule.id, table)
        if rule.table:
            names = [*(rule.becomes or {}), *(rule.unless or {})]
            assert rule.table in catalog and all(name in catalog[rule.table] for name in names)


def test_the_disclosure_rule_does_not_depend_on_earlier_episodes(itsm: Backend) -> None:
    """The texts it looks up are the world's at the episode's start, whatever ran before."""
    mine, theirs = incidents(itsm, 2, "state = '2' AND caller_id != ''")[:2]
    caller = caller_of(itsm, mine)
    if theirs["caller_id"] == mine["caller_id"] or len(theirs["short_description"]) < 12:
        pytest.skip("the tiny world drew one caller twice")
    subject = theirs["short_description"]
    # An earlier episode renames the colleague's ticket and is verified (the lookup is cached) ...
    itsm.store.update("incident", theirs["sys_id"], {"short_description": "A subject nobody else has at all"})
    assert itsm.store.start_values("incident", "short_description", 12) >= {subject}
    policy_results(
        itsm,
        [Said("agent", "Nothing to report.", 0)],
        caller,
        {"allow": [{"label": "x", "op": "update", "table": "incident"}]},
    )
    # ... then a new episode on the same world reads the original subject out.
    itsm.reset(episode_seed=0)
    itsm.mark_start()
    told = [
        Said("user", f"It's {caller['email']}.", 0),
        Said("agent", f"Your colleague's ticket says: {subject}.", 0),
    ]
    assert not policy_results(itsm, told, caller, {})["others_records"]


def test_quoting_part_of_someone_elses_message_reads_it_out() -> None:
    """Six words in a row of another person's text are a read-out, though not the whole of it;
    fewer are not, nor words the caller said first (chat's rule over messages)."""
    from enterprise_envs.mocks.chat import CHAT

    chat = Backend(CHAT, size="tiny")
    try:
        policy = system_policy("chat")
        people = "is_bot = 'false' AND deleted = 'false' AND email != ''"
        asker, author = chat.store.select("user", people, limit=2)
        message = next(
            row
            for row in chat.store.select("message", '"user" = ?', (author["id"],))
            if len(re.findall(r"\w+", row["text"])) >= 8
        )
        words = re.findall(r"\w+", message["text"])

        def kept(*said: Said) -> bool:
            facts = {"email": asker["email"]}
            verdict = verify(chat.store, expect({}), [], (), (), policy, Episode(list(said), (), facts, {}))
            return next(r.passed for r in verdict.requirements if r.label.startswith("others_messages"))

        opening = Said("user", f"Hi, it's {asker['email']}.", 0)
        assert not kept(opening, Said("agent", f"They wrote: {' '.join(words[1:7])}.", 0))
        assert kept(opening, Said("agent", f"They wrote: {' '.join(words[1:6])}.", 0))
        heard = Said("user", f"Did they say '{' '.join(words[1:7])}'?", 0)
        assert kept(opening, heard, Said("agent", f"Yes: {' '.join(words[1:7])}.", 0))
    finally:
        chat.close()
