"""Transcript checks: did the agent tell the user a value?

Matching is deterministic and token-based: text is Unicode-normalized (NFKC), lowercased and
split into runs of letters and digits; a value matches when its tokens appear contiguously in
one message. So "INC0010041" matches "your ticket is inc0010041.", and "10" does not match "100".
A record number written apart ("INC-0010041", "inc 0010041") is joined back into one token.

:func:`says` is the exclusive form: the value must be said somewhere it is not listed among its
rivals ("New, In Progress or On Hold" says none of them), see its docstring.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from functools import lru_cache

from enterprise_envs.verifiers.text import readable

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
#: A record number (use ``fullmatch``): a short letter prefix and seven digits (INC0010041,
#: RITM0010002). Its rivals in :func:`says` are the other numbers with its prefix.
RECORD_NUMBER = re.compile(r"([a-z]{2,5})(\d{7})", re.IGNORECASE)
#: Words that join the items of a list, so that a value and a rival with only these (and
#: punctuation) between them are listed side by side: "INC1, INC2 or INC3", "New and/or On Hold".
_LIST_JOINERS = frozenset({"or", "and", "either", "nor"})


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
        if following.isdigit() and token.isalpha() and RECORD_NUMBER.fullmatch(token + following):
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


def _number_rivals(have: Sequence[str], value: Sequence[str]) -> list[tuple[int, int]]:
    """Other record numbers of the value's kind (same prefix) in a message, when the value is one."""
    match = RECORD_NUMBER.fullmatch(value[0]) if len(value) == 1 else None
    if match is None:
        return []
    prefix = match.group(1)
    return [
        (index, index + 1)
        for index, token in enumerate(have)
        if token != value[0] and (other := RECORD_NUMBER.fullmatch(token)) and other.group(1) == prefix
    ]


def _listing(have: Sequence[str], rivals: list[tuple[int, int]]):
    """A test of spans: does a rival stand next to it with only list joiners between them?

    O(log n) per span (bisection over the rivals and the non-joiner tokens), so a message that
    repeats a value and its rivals hundreds of times costs no more than reading it.
    """
    non_joiners = [index for index, token in enumerate(have) if token not in _LIST_JOINERS]
    ends = sorted(end for _start, end in rivals)
    starts = sorted(start for start, _end in rivals)

    def listed(span: tuple[int, int]) -> bool:
        start, end = span
        # A rival before: it ends at or before the span, after the last non-joiner before it.
        index = bisect_left(non_joiners, start) - 1
        last = non_joiners[index] if index >= 0 else -1
        before = bisect_right(ends, start)
        if before and ends[before - 1] > last:
            return True
        # A rival after: it starts at or after the span's end, no later than the next non-joiner.
        index = bisect_left(non_joiners, end)
        first = non_joiners[index] if index < len(non_joiners) else len(have)
        after = bisect_left(starts, end)
        return after < len(starts) and starts[after] <= first

    return listed


def says(messages: Iterable[str], value: str, rivals: Iterable[str] = ()) -> bool:
    """True if a message says the value outside any list of its rivals (the exclusive form).

    The value's rivals are the other values of its kind: the given ``rivals`` (the other states,
    say) and, when the value is a record number, every other record number with its prefix. An
    occurrence of the value counts unless a rival stands next to it with only list joiners
    ("or", "and", "either", "nor") and punctuation between: "INC0010041, INC0010042 or
    INC0010043" and "New, In Progress or On Hold" tell the user nothing, while "your old ticket
    INC0010017 was closed, so I opened INC0010041" tells them the new one. A hedge spread over
    separate sentences ("It may be New. It may be On Hold.") is not caught.
    """
    wanted = tokens(value)
    if not wanted:
        return False
    rival_tokens = [found for rival in rivals if (found := tokens(rival)) and found != wanted]
    for message in messages:
        have = tokens(message)
        occurrences = _spans(have, wanted)
        if not occurrences:
            continue
        around = _number_rivals(have, wanted) + [
            span for rival in rival_tokens for span in _spans(have, rival)
        ]
        taken = set(occurrences)
        listed = _listing(have, [span for span in around if span not in taken])
        if any(not listed(span) for span in occurrences):
            return True
    return False
