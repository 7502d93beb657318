"""Transcript checks: did the agent tell the user a value?

Matching is deterministic and token-based: text is Unicode-normalized (NFKC), lowercased and
split into runs of letters and digits; a value matches when its tokens appear contiguously in
one message. So "INC0010041" matches "your ticket is inc0010041.", and "10" does not match "100".
A record number written apart ("INC-0010041", "inc 0010041") is joined back into one token.

:func:`mentions` is the token form: the value occurs. Whether a message *tells* the value
(asserted, no rival offered) is the dialogue-act reader's question:
:func:`enterprise_envs.verifiers.dialogue.answers`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

from enterprise_envs.verifiers.dialogue import NUMBER
from enterprise_envs.verifiers.text import readable

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Normalized tokens of a text (of its readable part, also after normalization grows it)."""
    return list(_tokens(text))


@lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[str, ...]:
    normalized = readable(unicodedata.normalize("NFKC", readable(text)).casefold())
    return _joined_numbers(_TOKEN.findall(normalized))


def _joined_numbers(found: list[str]) -> tuple[str, ...]:
    """Tokens with a record number written apart joined again.

    "INC-0010041" and "inc 0010041" become "inc0010041", so a number counts in whatever form the
    agent typed it.
    """
    out: list[str] = []
    index = 0
    while index < len(found):
        token = found[index]
        following = found[index + 1] if index + 1 < len(found) else ""
        if following.isdigit() and token.isalpha() and NUMBER.fullmatch(token + following):
            out.append(token + following)
            index += 2
            continue
        out.append(token)
        index += 1
    return tuple(out)


def mentions(messages: Iterable[str], value: str) -> bool:
    """True if any message contains the value's tokens contiguously (and the value has tokens)."""
    wanted = tokens(value)
    if not wanted:
        return False
    return any(_spans(_tokens(message), wanted) for message in messages)


def _spans(have: Sequence[str], wanted: Sequence[str]) -> list[tuple[int, int]]:
    size, first = len(wanted), wanted[0]
    return [
        (start, start + size)
        for start, token in enumerate(have)
        if token == first and list(have[start : start + size]) == list(wanted)
    ]
