"""Bounded reading of free text: every reader of agent or user text reads through these.

Text reaches the readers (the simulated user's parser, the guard, the fidelity metrics, the
verifier's transcript checks) from agents, from LLMs and from JSONL files written elsewhere, so
its size and shape are the writer's choice. Python's regular expressions backtrack; a pattern
that is linear on prose can be quadratic on one 8,000-character token. The rules here keep every
reader's work linear in its input and bounded per message:

- :func:`readable`: a reader looks at the first :data:`MAX_READ_CHARS` characters of a message
  (the Gym boundary already refuses longer agent messages; this bounds every other source).
- :func:`pieces`: sentences, and a sentence longer than :data:`MAX_PIECE_CHARS` is read in
  pieces cut at white space (or hard, inside one unbroken token). A pattern applied to pieces
  costs at most its worst case on :data:`MAX_PIECE_CHARS` characters per piece.
- :func:`value_tokens`: value-like tokens (numbers, ids, e-mails) found by one linear split, not
  by a pattern that scans for a digit from every position; tokens longer than
  :data:`MAX_VALUE_CHARS` are no values.

Patterns run over whole texts must be linear by construction: a quantified run may only start
where the run starts (a lookbehind on its own class) and open-ended gaps (``.*``) are bounded.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

__all__ = [
    "MAX_PIECE_CHARS",
    "MAX_READ_CHARS",
    "MAX_VALUE_CHARS",
    "SENTENCE_BREAKS",
    "fact_tokens",
    "pieces",
    "readable",
    "states",
    "value_pattern",
    "value_tokens",
]

#: Characters of one message any reader looks at.
MAX_READ_CHARS = 16_000
#: Longest piece of a sentence a sentence-level pattern is applied to.
MAX_PIECE_CHARS = 300
#: Longest token read as a value (e-mail addresses stop at 254; record numbers are short).
MAX_VALUE_CHARS = 128

#: Where sentences end: after ``.``, ``!`` or ``?`` and white space, and at line breaks.
SENTENCE_BREAKS = re.compile(r"(?<=[.!?])\s+|\n+")
_RUN = re.compile(r"[^\s\"'`]+")
_TRAILING = ".,;:!?)]}>"
_LEADING = "([{<"


def readable(text: str) -> str:
    """The part of ``text`` a reader looks at (its first :data:`MAX_READ_CHARS` characters)."""
    return text if len(text) <= MAX_READ_CHARS else text[:MAX_READ_CHARS]


def _cut(sentence: str) -> list[str]:
    """A long sentence as pieces of at most MAX_PIECE_CHARS, cut at the last space that fits."""
    out: list[str] = []
    while len(sentence) > MAX_PIECE_CHARS:
        cut = sentence.rfind(" ", MAX_PIECE_CHARS // 2, MAX_PIECE_CHARS + 1)
        if cut <= 0:
            cut = MAX_PIECE_CHARS
        head, sentence = sentence[:cut].strip(), sentence[cut:].strip()
        if head:
            out.append(head)
    if sentence:
        out.append(sentence)
    return out


@lru_cache(maxsize=4096)
def pieces(text: str, breaks: re.Pattern[str] = SENTENCE_BREAKS) -> tuple[str, ...]:
    """The sentences of a text (split at ``breaks``, :data:`SENTENCE_BREAKS` by default), long ones cut.

    Reads only :func:`readable` text; every piece is at most :data:`MAX_PIECE_CHARS` long.
    """
    found: list[str] = []
    for part in breaks.split(readable(text)):
        part = part.strip()
        if not part:
            continue
        if len(part) <= MAX_PIECE_CHARS:
            found.append(part)
        else:
            found.extend(_cut(part))
    return tuple(found)


@lru_cache(maxsize=4096)
def value_tokens(text: str) -> tuple[str, ...]:
    """Value-like tokens of a text, in order, without repeats: runs holding a digit or an ``@``.

    A token is a run of characters other than white space and quotes, with leading brackets and
    trailing punctuation stripped; runs longer than :data:`MAX_VALUE_CHARS` are skipped.
    """
    found: dict[str, None] = {}
    for match in _RUN.finditer(readable(text)):
        run = match.group(0)
        if len(run) > MAX_VALUE_CHARS + 8:
            continue
        token = run.lstrip(_LEADING).rstrip(_TRAILING)
        if token and len(token) <= MAX_VALUE_CHARS and ("@" in token or any(c.isdigit() for c in token)):
            found.setdefault(token, None)
    return tuple(found)


# -- facts in text ---------------------------------------------------------------------------------


@lru_cache(maxsize=8192)
def value_pattern(value: str) -> re.Pattern[str] | None:
    """The one matcher for a value said verbatim: case-insensitive, whole tokens, any white space.

    The simulated user, its guard and the fidelity metrics use it for fact values and canaries.
    """
    parts = value.split()
    if not parts:
        return None
    body = r"\s+".join(re.escape(part) for part in parts)
    return re.compile(rf"(?<![^\W_]){body}(?![^\W_])", re.IGNORECASE)


#: Words that carry no fact: a fact is told when its other words are there ("Friday at noon" is
#: told by "due Friday noon"; "four of us on the team" by "four people on the caller's team").
_FUNCTION_WORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "at",
        "of",
        "on",
        "in",
        "to",
        "for",
        "from",
        "by",
        "with",
        "and",
        "or",
        "but",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "there",
        "here",
        "us",
        "we",
        "our",
        "ours",
        "me",
        "my",
        "mine",
        "i",
        "you",
        "your",
        "yours",
        "he",
        "she",
        "him",
        "her",
        "his",
        "they",
        "them",
        "their",
        "theirs",
        "can",
        "could",
        "will",
        "would",
        "should",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "all",
        "any",
        "some",
        "every",
        "each",
        "so",
        "just",
        "also",
        "very",
        "really",
        "then",
        "than",
        "about",
        "into",
        "over",
        "up",
        "out",
    ]
)
_NUMBER_WORDS = {
    word: str(number)
    for number, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
            "twenty",
        ]
    )
}
_WORD = re.compile(r"[^\W_]+")


def _normal_tokens(text: str) -> list[str]:
    words = _WORD.findall(unicodedata.normalize("NFKC", readable(text)).casefold())
    return [_NUMBER_WORDS.get(word, word) for word in words]


@lru_cache(maxsize=8192)
def fact_tokens(value: str) -> tuple[str, ...]:
    """The words that carry a fact's content (function words dropped; number words as digits).

    A value of function words only ("only me") keeps all its words.
    """
    words = _normal_tokens(value)
    content = tuple(dict.fromkeys(word for word in words if word not in _FUNCTION_WORDS))
    return content or tuple(dict.fromkeys(words))


@lru_cache(maxsize=8192)
def states(text: str, value: str) -> bool:
    """Whether a text states a fact: its content words all occur close together in one sentence.

    Deterministic and linear: each sentence piece is scanned once for a window of at most
    ``3 x words + 4`` tokens holding every content word of the value (in any order), so
    paraphrase around the fact ("client deliverable due Friday noon") counts and a text without
    it (".", "urgent", a keyword in another sense) does not. A fact of more than three content
    words (a plan) is stated by two thirds of them in one sentence piece. The verifier's ``carries`` predicate
    and the fidelity metrics read facts with it.
    """
    wanted = fact_tokens(value)
    if not wanted:
        return False
    need = set(wanted)
    if len(need) > 3:
        # A long fact (a plan, a list of steps) is told in other words: two thirds of its
        # content words in one sentence piece.
        enough = -(-2 * len(need) // 3)
        return any(len(need.intersection(_normal_tokens(piece))) >= enough for piece in pieces(text))
    width = 3 * len(wanted) + 4
    for piece in pieces(text):
        words = _normal_tokens(piece)
        last: dict[str, int] = {}
        for index, word in enumerate(words):
            if word in need:
                last[word] = index
                if len(last) == len(need) and index - min(last.values()) < width:
                    return True
    return False
