"""The seeded style pass over a reply: courtesy, lowercase, typos; protected spans never change.

A *protected span* is every occurrence (exact, case-sensitive) in the reply of one of the
``protected`` strings: the fact values the reply discloses, any other persona fact value and any
value the agent said (a ticket number, an e-mail address). Style works on the text between
protected spans only, so a protected value comes out byte for byte as it went in.

All randomness comes from the ``random.Random`` passed in, drawn in a fixed order (one draw for
courtesy, then one per word for typos, plus the draws of each typo made), so a seeded generator
gives the same styled text in every process.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from enterprise_envs.scenarios.users.persona import Mood, Style
from enterprise_envs.scenarios.users.templates import COURTESY

__all__ = ["COURTESY_BY_MOOD", "TYPO_OPS", "apply_style", "protected_runs", "typo"]

#: Share of ``style.politeness`` kept in each mood: frustrated users stop saying thanks.
COURTESY_BY_MOOD = {Mood.CALM: 1.0, Mood.IRRITATED: 0.5, Mood.ANGRY: 0.0}

#: The typos a hurried typist makes: two neighbouring letters swapped, a letter dropped, a letter
#: pressed twice.
TYPO_OPS = ("swap", "drop", "double")

#: Words that may get a typo: three letters or more (short words are rarely mistyped, and "I",
#: "a", "to" with a typo read as different words).
_WORD = re.compile(r"[^\W\d_]{3,}")


def protected_runs(text: str, protected: Iterable[str]) -> list[tuple[str, bool]]:
    """The text cut into ``(chunk, is_protected)`` runs, in order (joined, they give the text back)."""
    mask = [False] * len(text)
    for value in protected:
        if not value:
            continue
        start = text.find(value)
        while start != -1:
            for index in range(start, start + len(value)):
                mask[index] = True
            start = text.find(value, start + 1)
    runs: list[tuple[str, bool]] = []
    begin = 0
    for index in range(1, len(text) + 1):
        if index == len(text) or mask[index] != mask[begin]:
            runs.append((text[begin:index], mask[begin]))
            begin = index
    return runs


def typo(word: str, rng: random.Random) -> str:
    """One typo in a word of three letters or more (the first letter is kept)."""
    op = TYPO_OPS[rng.randrange(len(TYPO_OPS))]
    if op == "swap":
        index = rng.randrange(1, len(word) - 1)
        return word[:index] + word[index + 1] + word[index] + word[index + 2 :]
    if op == "drop":
        index = rng.randrange(1, len(word))
        return word[:index] + word[index + 1 :]
    index = rng.randrange(len(word))
    return word[: index + 1] + word[index:]


def _typos(chunk: str, rate: float, rng: random.Random) -> str:
    def replace(match: re.Match[str]) -> str:
        word = match.group(0)
        return typo(word, rng) if rng.random() < rate else word

    return _WORD.sub(replace, chunk)


def apply_style(
    text: str,
    protected: Iterable[str],
    style: Style,
    rng: random.Random,
    *,
    mood: Mood = Mood.CALM,
) -> str:
    """The reply as this user types it.

    Args:
        text: The worded reply.
        protected: Strings never altered wherever they occur (fact values, values the agent said).
        style: The persona's style (politeness, lowercase, typo rate).
        rng: The seeded generator for this reply's style.
        mood: Irritated users add a courtesy half as often, angry users never.

    Returns:
        The styled text: maybe a courtesy sentence appended (never when the reply already thanks),
        then everything outside the protected spans lowercased (``style.lowercase``) and given
        typos (``style.typo_rate`` per word).
    """
    protected = [value for value in protected if value]
    chance = style.politeness * COURTESY_BY_MOOD[mood]
    if rng.random() < chance and "thank" not in text.casefold():
        text = f"{text} {COURTESY[rng.randrange(len(COURTESY))]}"
    if not style.lowercase and style.typo_rate <= 0:
        return text
    out: list[str] = []
    for chunk, is_protected in protected_runs(text, protected):
        if is_protected:
            out.append(chunk)
            continue
        if style.lowercase:
            chunk = chunk.lower()
        if style.typo_rate > 0:
            chunk = _typos(chunk, style.typo_rate, rng)
        out.append(chunk)
    return "".join(out)
