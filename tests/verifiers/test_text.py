"""Bounded reading and the fact matcher: what counts as stating a closed fact."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.verifiers.text import (
    MAX_PIECE_CHARS,
    MAX_VALUE_CHARS,
    fact_tokens,
    pieces,
    states,
    value_tokens,
)
from tests.strategies import examples


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Client deliverable due Friday noon.", "Friday at noon"),
        ("Four people on the caller's team are blocked.", "four of us on the team"),
        ("Error 0x80004005 at every login.", "0x80004005"),
        ("Out of the office Thursday and Friday.", "Thursday and Friday"),
        ("It has happened since this morning.", "since this morning"),
        ("NOON on FRIDAY is the deadline", "Friday at noon"),
        (
            "Take a backup first, apply the patches, reboot and check the services.",
            "take a backup, apply the patches, reboot, and check the services start again",
        ),
    ],
)
def test_a_fact_is_stated_in_other_words_around_it(text: str, fact: str) -> None:
    assert states(text, fact)


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        (".", "Friday at noon"),
        ("Updated as discussed.", "Friday at noon"),
        ("The deadline and the people affected were not discussed.", "Friday at noon"),
        ("Friday. " + "Lots of unrelated words here to push them apart. " * 3 + "Noon.", "Friday at noon"),
        ("Error 0x80004006 at login.", "0x80004005"),
        ("Two of us on the team.", "four of us on the team"),
        ("Reboot it.", "take a backup, apply the patches, reboot, and check the services start again"),
    ],
)
def test_text_without_the_fact_does_not_state_it(text: str, fact: str) -> None:
    assert not states(text, fact)


def test_fact_tokens_drop_function_words_and_spell_numbers_as_digits() -> None:
    assert fact_tokens("four of us on the team") == ("4", "team")
    assert fact_tokens("only me") == ("only",)
    assert fact_tokens("at the") == ("at", "the")  # nothing but function words: keep them all


@settings(max_examples=examples(100))
@given(text=st.text(max_size=3000))
def test_pieces_and_values_are_bounded(text: str) -> None:
    assert all(0 < len(piece) <= MAX_PIECE_CHARS for piece in pieces(text))
    assert all(len(token) <= MAX_VALUE_CHARS for token in value_tokens(text))


@settings(max_examples=examples(100))
@given(before=st.text(max_size=50), after=st.text(max_size=50))
def test_a_verbatim_fact_in_its_own_sentence_is_always_stated(before: str, after: str) -> None:
    assert states(f"{before}\nThe deadline is Friday at noon.\n{after}", "Friday at noon")


@pytest.mark.parametrize("form", ["INC0010041", "inc0010041", "INC-0010041", "INC 0010041", "Inc 0010041."])
def test_a_record_number_counts_in_any_form_the_agent_types(form: str) -> None:
    from enterprise_envs.verifiers.dialogue import answers
    from enterprise_envs.verifiers.transcript import mentions

    message = f"Your new ticket is {form} and the team has it."
    assert mentions([message], "INC0010041") and answers([message], "INC0010041")
    # Written apart or not, a number listed among its rivals still tells nothing.
    assert not answers([f"It is {form} or INC-0010042."], "INC0010041")
    assert not mentions([message], "INC0010042")
