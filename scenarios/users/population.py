"""Persona populations: one scenario persona played by users who talk differently.

A variant keeps everything the persona *knows* (facts, values, unknowns, refusals, step
outcomes, ``done_when``) and changes only *how* it talks and how long it waits: the style
(wording register, politeness, typo rate, lowercase, facts per reply), the patience budget and
thresholds, and the phrasing of the opening. The opening rewrite is deterministic, keeps every
``{{placeholder}}`` and fact value of the original exactly, and adds no identifier (no digit, no
fact value).

>>> from enterprise_envs.scenarios.users.persona import Persona
>>> base = Persona(name="Ann", goal="Get my VPN working.", opening="Hi, my VPN keeps dropping.",
...                done_when="vpn_ok")
>>> variant(base, "confused").opening
"I'm not sure what's wrong but my VPN keeps dropping. Sorry, I'm not very good with computers."
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from enterprise_envs.scenarios.users.acts import value_pattern
from enterprise_envs.scenarios.users.persona import Patience, Persona, Register, Style

__all__ = ["VARIANTS", "ALL_VARIANTS", "draw_variant", "population", "rewrite_opening", "variant"]

#: The population variants (besides ``base``, the persona as written).
VARIANTS = ("terse", "verbose", "frustrated", "confused", "non_native", "impatient")
#: ``base`` and every variant, the choices of :func:`draw_variant`.
ALL_VARIANTS = ("base", *VARIANTS)

#: Style of each variant (the fields replaced; ``identifiers_in_opening`` is kept).
_STYLES: dict[str, dict[str, object]] = {
    "terse": {
        "wording": Register.TERSE,
        "politeness": 0.1,
        "typo_rate": 0.0,
        "lowercase": False,
        "answers_per_turn": 1,
    },
    "verbose": {
        "wording": Register.WORDY,
        "politeness": 0.9,
        "typo_rate": 0.0,
        "lowercase": False,
        "answers_per_turn": 3,
    },
    "frustrated": {
        "wording": Register.NEUTRAL,
        "politeness": 0.05,
        "typo_rate": 0.01,
        "lowercase": False,
        "answers_per_turn": 2,
    },
    "confused": {
        "wording": Register.WORDY,
        "politeness": 0.7,
        "typo_rate": 0.02,
        "lowercase": False,
        "answers_per_turn": 1,
    },
    "non_native": {
        "wording": Register.NEUTRAL,
        "politeness": 0.8,
        "typo_rate": 0.05,
        "lowercase": False,
        "answers_per_turn": 1,
    },
    "impatient": {
        "wording": Register.TERSE,
        "politeness": 0.0,
        "typo_rate": 0.03,
        "lowercase": True,
        "answers_per_turn": 3,
    },
}


def _patience(name: str, patience: Patience) -> Patience:
    """The patience of a variant, derived from the persona's."""
    if name == "impatient":
        return patience.model_copy(
            update={
                "budget": max(4, patience.budget // 2),
                "repeated_question": patience.repeated_question + 1,
                "false_fixed": patience.false_fixed + 1,
            }
        )
    if name == "frustrated":
        return patience.model_copy(
            update={
                "budget": max(4, patience.budget * 3 // 4),
                "irritated_below": 0.95,
                "angry_below": 0.5,
                "repeated_question": patience.repeated_question + 1,
                "false_fixed": patience.false_fixed + 1,
            }
        )
    if name == "confused":
        return patience.model_copy(update={"budget": patience.budget + 4})
    if name == "non_native":
        return patience.model_copy(update={"budget": patience.budget + 2})
    return patience


# --------------------------------------------------------------------------------------------
# Opening rewrites
# --------------------------------------------------------------------------------------------

_GREETING = re.compile(
    r"^\s*(?:hi|hello|hey|hiya|dear\s+(?:support|team|it)|good\s+(?:morning|afternoon|evening))"
    r"(?:\s+(?:there|team|all|everyone|support|it))?\s*[,!.:\-]*\s*",
    re.IGNORECASE,
)
_PLEASANTRY = re.compile(
    r"^\s*(?:thanks|thank\s+you|cheers|many\s+thanks|any\s+help|hope\s+you|can\s+you\s+help|"
    r"could\s+you\s+(?:please\s+)?help|please\s+help|i\s+hope)\b",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"\{\{\s*[a-z_][a-z0-9_]*\s*\}\}")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

_CONTRACTIONS = (
    ("can't", "can not"),
    ("cannot", "can not"),
    ("won't", "will not"),
    ("don't", "do not"),
    ("doesn't", "does not"),
    ("didn't", "did not"),
    ("isn't", "is not"),
    ("aren't", "are not"),
    ("wasn't", "was not"),
    ("haven't", "have not"),
    ("hasn't", "has not"),
    ("couldn't", "could not"),
    ("it's been", "it has been"),
    ("I'm", "I am"),
    ("I've", "I have"),
    ("I'd", "I would"),
    ("I'll", "I will"),
    ("it's", "it is"),
    ("that's", "that is"),
    ("there's", "there is"),
    ("what's", "what is"),
)
_SIMPLER = (
    ("unfortunately", ""),
    ("however", "but"),
    ("would like to", "want to"),
    ("would like", "want"),
    ("i was wondering if you could", "please"),
    ("i was wondering if", ""),
    ("for some reason", ""),
    ("at the moment", "now"),
    ("currently", "now"),
    ("apparently", ""),
)


def _protected_spans(text: str, persona: Persona) -> list[tuple[int, int]]:
    """Spans the rewrite must not touch: placeholders and fact values."""
    spans = [match.span() for match in _PLACEHOLDER.finditer(text)]
    for fact in persona.facts:
        pattern = value_pattern(fact.value)
        if pattern is not None:
            spans += [match.span() for match in pattern.finditer(text)]
    spans.sort()
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _outside(text: str, persona: Persona, change: Callable[[str], str]) -> str:
    """Apply ``change`` to the parts of ``text`` outside placeholders and fact values."""
    out: list[str] = []
    position = 0
    for start, end in _protected_spans(text, persona):
        out.append(change(text[position:start]))
        out.append(text[start:end])
        position = end
    out.append(change(text[position:]))
    return "".join(out)


def _strip_greeting(text: str) -> str:
    stripped = _GREETING.sub("", text, count=1)
    return stripped if stripped.strip() else text


def _capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text[:1].isalpha() else text


def _decapitalize(text: str) -> str:
    first = text.split(" ", 1)[0]
    keep = first.startswith(("I ", "I'", "{{")) or first in {"I"} or (len(first) > 1 and first[:2].isupper())
    return text if keep or not text[:1].isalpha() else text[:1].lower() + text[1:]


def _sentences(text: str) -> list[str]:
    return [part for part in _SENTENCE.split(text.strip()) if part.strip()]


def _without_pleasantries(text: str) -> str:
    sentences = _sentences(text)
    kept = [s for s in sentences if not _PLEASANTRY.match(s) or _PLACEHOLDER.search(s)]
    return " ".join(kept or sentences)


def _essential(text: str, values: tuple[str, ...] = ()) -> str:
    """The first substantive sentence, and every one holding a placeholder, a fact value or a request."""
    sentences = _sentences(_strip_greeting(text))
    substantive = [s for s in sentences if not _PLEASANTRY.match(s)] or sentences
    # Keep what carries content: placeholders, fact values, and the request itself (a question).
    keep = [
        s
        for s in sentences
        if _PLACEHOLDER.search(s) or any(v and v in s for v in values) or s.rstrip().endswith("?")
    ]
    chosen = [s for s in sentences if s is substantive[0] or s in keep]
    return " ".join(chosen)


def _end_sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?", "}}")) else text + "."


def _no_please(fragment: str) -> str:
    fragment = re.sub(r"\b(?:please|kindly)\s+", "", fragment, flags=re.IGNORECASE)
    return re.sub(r",?\s*\b(?:please|thanks|thank you)\b(?=[.!?]|$)", "", fragment, flags=re.IGNORECASE)


def _same_case(replacement: str) -> Callable[[re.Match[str]], str]:
    def replace(match: re.Match[str]) -> str:
        if match.group(0)[:1].isupper() and replacement:
            return replacement[:1].upper() + replacement[1:]
        return replacement

    return replace


def _non_native(fragment: str) -> str:
    for long, short in _SIMPLER:
        pattern = rf"\b{re.escape(long)}\b\s*"
        fragment = re.sub(pattern, _same_case(short + (" " if short else "")), fragment, flags=re.IGNORECASE)
    for long, short in _CONTRACTIONS:
        fragment = re.sub(rf"\b{re.escape(long)}\b", _same_case(short), fragment, flags=re.IGNORECASE)
    return fragment


def _drop_articles(text: str, persona: Persona) -> str:
    """Drop every other article (the first, third, ...) outside protected spans."""
    count = 0

    def drop(match: re.Match[str]) -> str:
        nonlocal count
        count += 1
        return "" if count % 2 == 1 else match.group(0)

    return _outside(text, persona, lambda fragment: re.sub(r"\b(?:the|a|an)\s+", drop, fragment))


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    text = re.sub(r",\s*([.!?])", r"\1", text)
    return text.strip()


def rewrite_opening(persona: Persona, name: str) -> str:
    """The opening of ``persona`` as the variant ``name`` would say it.

    Deterministic; placeholders (``{{key}}``) and fact values of the original are kept exactly
    and no digit or identifier is added:

    - ``terse``: greeting and pleasantries dropped, the first substantive sentence (plus any
      sentence with a placeholder), no "please";
    - ``verbose``: a courteous preamble and a sentence about having tried for a while;
    - ``frustrated``: "This is really frustrating." and a demand to get it sorted today;
    - ``confused``: "I'm not sure what's wrong but ..." and an apology for not being technical;
    - ``non_native``: simpler words, contractions expanded, every other article dropped;
    - ``impatient``: the terse opening framed as a quick one that must be fixed fast;
    - ``base``: the opening as written.

    Args:
        persona: The persona (its opening and facts).
        name: ``base`` or one of :data:`VARIANTS`.

    Returns:
        The rewritten opening.
    """
    opening = persona.opening
    body = _strip_greeting(opening).strip()
    if name == "base":
        return opening
    if name == "terse":
        return _tidy(
            _outside(
                _end_sentence(_essential(opening, tuple(fact.value for fact in persona.facts))),
                persona,
                _no_please,
            )
        )
    if name == "verbose":
        body = _without_pleasantries(body)
        return _tidy(
            f"Hello, I hope you're doing well. {_capitalize(_end_sentence(body))} I've been trying to sort "
            "this out on my own for a while without any luck, so I'd really appreciate your help with it. "
            "Thank you so much in advance."
        )
    if name == "frustrated":
        body = _outside(_without_pleasantries(body), persona, _no_please)
        return _tidy(
            f"This is really frustrating. {_capitalize(_end_sentence(body))} I need this sorted today."
        )
    if name == "confused":
        return _tidy(
            f"I'm not sure what's wrong but {_decapitalize(_end_sentence(_without_pleasantries(body)))} "
            "Sorry, I'm not very good with computers."
        )
    if name == "non_native":
        simple = _drop_articles(_outside(body, persona, _non_native), persona)
        return _tidy(f"Hello. {_capitalize(_end_sentence(simple.strip()))} Please help me.")
    if name == "impatient":
        short = _outside(
            _end_sentence(_essential(opening, tuple(fact.value for fact in persona.facts))),
            persona,
            _no_please,
        )
        return _tidy(f"Quick one: {_decapitalize(short)} Need this fixed fast.")
    raise ValueError(f"unknown variant {name!r}; expected base or one of {', '.join(VARIANTS)}")


# --------------------------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------------------------


def variant(persona: Persona, name: str) -> Persona:
    """The persona played as variant ``name`` (``base`` or one of :data:`VARIANTS`).

    Facts, values, unknowns, refusals, steps, ``done_when``, name and goal are unchanged; the
    style, patience and opening change (see :func:`rewrite_opening` and the module's tables) and
    ``variant`` is set to ``name``.

    Args:
        persona: A base persona (``variant == "base"``).
        name: The variant.

    Returns:
        A new persona (models are frozen; the original is untouched).

    Raises:
        ValueError: For an unknown variant, or a persona that is already another variant.
    """
    if name not in ALL_VARIANTS:
        raise ValueError(f"unknown variant {name!r}; expected base or one of {', '.join(VARIANTS)}")
    if persona.variant == name:
        return persona
    if persona.variant != "base":
        raise ValueError(f"persona is already variant {persona.variant!r}; derive {name!r} from the base")
    if name == "base":
        return persona
    style: Style = persona.style.model_copy(update=_STYLES[name])
    return persona.model_copy(
        update={
            "style": style,
            "patience": _patience(name, persona.patience),
            "opening": rewrite_opening(persona, name),
            "variant": name,
        }
    )


def draw_variant(persona: Persona, rng: random.Random) -> Persona:
    """A variant of ``persona`` drawn uniformly from ``base`` and the six :data:`VARIANTS` with ``rng``."""
    return variant(persona, rng.choice(ALL_VARIANTS))


def population(persona: Persona) -> list[Persona]:
    """``base`` and every variant of ``persona``, in :data:`ALL_VARIANTS` order."""
    return [variant(persona, name) for name in ALL_VARIANTS]
