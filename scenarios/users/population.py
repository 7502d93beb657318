"""Persona populations: one scenario persona played by users who talk differently.

A variant keeps everything the persona *knows* (facts, values, unknowns, refusals, step
outcomes, ``done_when``) and changes only *how* it talks and how long it waits: the style
(wording register, politeness, typo rate, lowercase, facts per reply), the patience budget and
thresholds, how facts are phrased and the phrasing of the opening.

Each variant is a distribution. :func:`variant` gives its centre (deterministic; the tables
below); :func:`draw` draws one user of the variant around that centre from a seeded
``random.Random`` (:data:`SPREADS`: register, politeness, typo rate, lowercase, facts per reply,
patience budget, mood thresholds and the cost of a stall; one phrasing per fact from the bank of
its kind; greeting, preamble, closing, word choice and the place of a free-standing sentence in
the opening). :func:`draw_variant` picks the variant uniformly first. Every rewrite of the
opening keeps every ``{{placeholder}}`` and fact value of the original exactly and adds no
identifier (no digit, no fact value); no fact value is ever altered.

>>> from enterprise_envs.scenarios.users.persona import Persona
>>> base = Persona(name="Ann", goal="Get my VPN working.", opening="Hi, my VPN keeps dropping.",
...                done_when="vpn_ok")
>>> variant(base, "confused").opening
"I'm not sure what's wrong but my VPN keeps dropping. Sorry, I'm not very good with computers."
>>> draw(base, "confused", random.Random("ann:1")) == draw(base, "confused", random.Random("ann:1"))
True
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from enterprise_envs.scenarios.users.acts import value_pattern
from enterprise_envs.scenarios.users.persona import Fact, Patience, Persona, Register, Style
from enterprise_envs.scenarios.users.templates import FACT_PHRASINGS, fill, label
from enterprise_envs.verifiers.templates import FACT_PLACEHOLDER

__all__ = [
    "ALL_VARIANTS",
    "FRAMINGS",
    "SPREADS",
    "VARIANTS",
    "Framing",
    "Spread",
    "draw",
    "draw_variant",
    "population",
    "rewrite_opening",
    "variant",
]

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
    """The patience of a variant's centre, derived from the persona's.

    Frustration comes earliest to ``impatient`` users (half the budget, irritated below 0.8 of
    it), then ``frustrated`` ones (three quarters of the budget, irritated below 0.75), then
    ``base``, ``terse`` and ``non_native`` (two more points) users; ``confused`` and ``verbose``
    users are the patient ones (four more points, thresholds at 0.8 of the persona's).
    """
    update: dict[str, object] = {}
    if name == "impatient":
        update = {
            "budget": max(4, patience.budget // 2),
            "irritated_below": max(patience.irritated_below, 0.8),
            "angry_below": max(patience.angry_below, 0.4),
            "repeated_question": patience.repeated_question + 1,
            "false_fixed": patience.false_fixed + 1,
        }
    elif name == "frustrated":
        update = {
            "budget": max(4, patience.budget * 3 // 4),
            "irritated_below": max(patience.irritated_below, 0.75),
            "angry_below": max(patience.angry_below, 0.4),
            "repeated_question": patience.repeated_question + 1,
            "false_fixed": patience.false_fixed + 1,
        }
    elif name in ("confused", "verbose"):
        update = {
            "budget": patience.budget + 4,
            "irritated_below": round(patience.irritated_below * 0.8, 3),
            "angry_below": round(patience.angry_below * 0.8, 3),
        }
    elif name == "non_native":
        update = {"budget": patience.budget + 2}
    return patience.model_copy(update=update) if update else patience


@dataclass(frozen=True)
class Spread:
    """How far one drawn user strays from its variant's centre (see :func:`draw`).

    Numbers are drawn uniformly in ``centre ± half-width`` (integers included) and clamped to
    the field's range.

    Attributes:
        register: Chance of a neighbouring wording register instead of the centre's.
        politeness: Half-width of the courtesy probability.
        typo_rate: Half-width of the per-word typo probability.
        answers: Half-width of the facts given per reply.
        lowercase: Chance of the other lowercase habit than the centre's.
        budget: Half-width of the patience budget (a draw is never under 4, or under the
            centre's when that is less).
        thresholds: Half-width of ``irritated_below`` and ``angry_below``.
        unhelpful: Half-width of the extra cost of a stall.
    """

    register: float = 0.15
    politeness: float = 0.1
    typo_rate: float = 0.005
    answers: int = 1
    lowercase: float = 0.03
    budget: int = 2
    thresholds: float = 0.08
    unhelpful: int = 0


#: The spread of each variant around its centre. Wide enough that users of one variant differ
#: (onset of frustration included), narrow enough that variants stay apart.
SPREADS: dict[str, Spread] = {
    "base": Spread(register=0.2, typo_rate=0.01),
    "terse": Spread(politeness=0.08),
    "verbose": Spread(),
    "frustrated": Spread(politeness=0.05, typo_rate=0.01, thresholds=0.1, unhelpful=1),
    "confused": Spread(typo_rate=0.015, budget=3),
    "non_native": Spread(typo_rate=0.02, budget=3),
    "impatient": Spread(politeness=0.05, typo_rate=0.02, lowercase=0.15, budget=1, thresholds=0.1),
}


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
    ("they'll", "they will"),
    ("they're", "they are"),
    ("we're", "we are"),
    ("we've", "we have"),
    ("you're", "you are"),
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


#: Text in quotes: a ticket's title or an error read back, words a rewrite must keep (an apostrophe
#: followed by a letter is part of a word, "won't", not the closing quote).
_QUOTED = re.compile(r"\"[^\"\n]*\"|(?<!\w)'(?:[^'\n]|'(?=\w))*'(?!\w)")


def _protected_spans(text: str, persona: Persona) -> list[tuple[int, int]]:
    """Spans the rewrite must not touch: placeholders, fact values and quoted text."""
    spans = [match.span() for match in FACT_PLACEHOLDER.finditer(text)]
    spans += [match.span() for match in _QUOTED.finditer(text)]
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
    """Apply ``change`` to the parts of ``text`` outside placeholders, fact values and quotes."""
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
    kept = [s for s in sentences if not _PLEASANTRY.match(s) or FACT_PLACEHOLDER.search(s)]
    return " ".join(kept or sentences)


def _essential(text: str, values: tuple[str, ...] = ()) -> str:
    """The first substantive sentence, and every one holding a placeholder, a fact value or a request."""
    sentences = _sentences(_strip_greeting(text))
    substantive = [s for s in sentences if not _PLEASANTRY.match(s)] or sentences
    # Keep what carries content: placeholders, fact values, and the request itself (a question).
    patterns = [pattern for value in values if (pattern := value_pattern(value)) is not None]
    keep = [
        s
        for s in sentences
        if FACT_PLACEHOLDER.search(s) or any(p.search(s) for p in patterns) or s.rstrip().endswith("?")
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


@dataclass(frozen=True)
class Framing:
    """What a variant says around the body of an opening; a draw takes one of each bank.

    The first entry of each bank is the centre (:func:`variant`). A lead that does not end a
    sentence (``"Quick one:"``, ``"Hi,"``) runs into the body, which then starts in lower case.
    An aside stands on its own, so a draw may put it before or after the body (the centre puts
    it after). A lead, aside or tail that thanks is left out when the body thanks already.

    Attributes:
        leads: Said first.
        asides: Said right before or right after the body.
        tails: Said last.
    """

    leads: tuple[str, ...] = ("",)
    asides: tuple[str, ...] = ("",)
    tails: tuple[str, ...] = ("",)


#: The framing of each variant's opening. No entry holds a digit, a value, an agent phrase, a
#: farewell or giving up (the fidelity lexicons), or a tool, field or state word.
FRAMINGS: dict[str, Framing] = {
    "base": Framing(
        leads=("", "Hi,", "Hello,", "Hi there,", "Good morning,", "Hey,", "Hello there,"),
        asides=("", "", "Sorry to bother you.", "Hope you can help."),
        tails=("", "Thanks.", "Thanks in advance.", "Any help is appreciated.", "Thank you!"),
    ),
    "terse": Framing(leads=("", "Hi.", "Hey."), tails=("", "Thanks.", "Ta.", "Cheers.")),
    "verbose": Framing(
        leads=(
            "Hello, I hope you're doing well.",
            "Hi there, I hope your day is going well.",
            "Good morning, I hope you're well.",
            "Hello, I hope you're having a good week.",
        ),
        asides=(
            "I've been trying to sort this out on my own for a while without any luck, so I'd really "
            "appreciate your help with it.",
            "I've tried a few things myself but nothing has worked so far, so I'd be very grateful for "
            "your help.",
            "I did try to figure it out on my own first, but I'm stuck now and would really appreciate "
            "a hand.",
            "I've spent quite a while on this already and I'm a bit lost, so any help would be wonderful.",
        ),
        tails=(
            "Thank you so much in advance.",
            "Many thanks in advance for your help.",
            "Thanks a lot for your time.",
            "I really appreciate it.",
        ),
    ),
    "frustrated": Framing(
        leads=(
            "This is really frustrating.",
            "I'm really annoyed about this.",
            "Honestly, this is so frustrating.",
            "I'm getting really frustrated with this.",
        ),
        asides=("", "It keeps getting in the way of my work.", "I've already lost a lot of time over this."),
        tails=(
            "I need this sorted today.",
            "I need this fixed today.",
            "This has to be sorted today.",
            "I can't keep working like this.",
        ),
    ),
    "confused": Framing(
        leads=(
            "I'm not sure what's wrong but",
            "I don't really know what's going on, but",
            "I'm not sure what happened, but",
            "I'm a bit lost here, but",
        ),
        asides=("", "I hope that makes sense.", "I tried to explain it as best I can."),
        tails=(
            "Sorry, I'm not very good with computers.",
            "Sorry if this is a silly question, I'm not very technical.",
            "Apologies, computers aren't really my thing.",
            "Sorry, I'm hopeless with this kind of thing.",
        ),
    ),
    "non_native": Framing(
        leads=("Hello.", "Hello,", "Good day.", "Hi."),
        asides=("", "Sorry for my English.", "I try to explain the problem."),
        tails=(
            "Please help me.",
            "Please can you help me.",
            "Thank you for help.",
            "I hope you can help me.",
        ),
    ),
    "impatient": Framing(
        leads=("Quick one:", "Quick question:", "Quick one,", "Need help:"),
        tails=(
            "Need this fixed fast.",
            "Need it sorted asap.",
            "No time for this.",
            "Need this done today.",
            "Be quick.",
        ),
    ),
}

#: Word choices a drawn opening may make in the persona's own words (outside placeholders, fact
#: values and quotes): each applies with even odds, all occurrences alike. None adds a digit or
#: a contraction (the ``non_native`` body has none).
_WORD_CHOICES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"can you help\?", ("could you help me?", "can you help me with this?")),
    (r"can you", ("could you",)),
    (r"could you", ("can you", "would you")),
    (r"I need", ("I would like",)),
    (r"a while ago", ("some time ago",)),
    (r"a few days ago", ("a couple of days ago",)),
    (r"my whole team", ("my entire team", "the whole team")),
    (r"sorted", ("fixed",)),
    (r"what's happening", ("what's going on",)),
    (r"recently", ("not long ago",)),
    (r"it's", ("it is",)),
    (r"I'm", ("I am",)),
    (r"can't", ("cannot",)),
    (r"haven't", ("have not",)),
)


def _word_choices(text: str, persona: Persona, rng: random.Random) -> str:
    """``text`` with some of :data:`_WORD_CHOICES` made (the same number of draws whatever the text)."""
    made: list[tuple[str, str]] = []
    for pattern, alternatives in _WORD_CHOICES:
        take, alternative = rng.random() < 0.5, rng.choice(alternatives)
        if take:
            made.append((pattern, alternative))

    def choose(fragment: str) -> str:
        for pattern, alternative in made:
            fragment = re.sub(rf"\b{pattern}(?!\w)", _same_case(alternative), fragment, flags=re.IGNORECASE)
        return fragment

    return _outside(text, persona, choose)


def _body(persona: Persona, name: str) -> str:
    """What the variant keeps of the persona's opening, before its framing."""
    opening = persona.opening
    body = _strip_greeting(opening).strip()
    values = tuple(fact.value for fact in persona.facts)
    if name in ("terse", "impatient"):
        return _outside(_end_sentence(_essential(opening, values)), persona, _no_please)
    if name == "frustrated":
        return _end_sentence(_outside(_without_pleasantries(body), persona, _no_please))
    if name in ("verbose", "confused"):
        return _end_sentence(_without_pleasantries(body))
    if name == "non_native":
        return _end_sentence(_drop_articles(_outside(body, persona, _non_native), persona).strip())
    return body


#: Thanks: a framing sentence that thanks is left out when the body thanks already.
_THANKS = re.compile(r"\b(?:thanks|thank\s+you|cheers|appreciate|grateful)\b", re.IGNORECASE)


def _frame(body: str, lead: str, aside: str, tail: str, aside_first: bool) -> str:
    """The opening: lead, aside and body (or body and aside), tail.

    A lead that does not end a sentence runs into what follows it, in lower case; otherwise what
    follows starts with a capital. A lead that is a clause (ends in a word or ``:``) must run
    into the body, so the aside then goes after it.
    """
    clause = lead.endswith(":") or lead[-1:].isalpha()
    if aside_first and aside and not clause:
        head, after = f"{aside} {_capitalize(body)}", ""
    else:
        head, after = body, aside
    if lead and not lead.endswith((".", "!", "?")):
        head = f"{lead} {_decapitalize(head)}"
    else:
        head = f"{lead} {_capitalize(head)}"
    return _tidy(" ".join(part for part in (head, after, tail) if part))


def _keeps_content(persona: Persona, original: str, rewritten: str) -> bool:
    """Whether a rewrite keeps every placeholder and adds no digit and no fact value."""
    if Counter(FACT_PLACEHOLDER.findall(rewritten)) != Counter(FACT_PLACEHOLDER.findall(original)):
        return False
    if not set(re.findall(r"\d+", rewritten)) <= set(re.findall(r"\d+", original)):
        return False
    for fact in persona.facts:
        pattern = value_pattern(fact.value)
        if pattern is not None and pattern.search(rewritten) and not pattern.search(original):
            return False
    return True


def rewrite_opening(persona: Persona, name: str, rng: random.Random | None = None) -> str:
    """The opening of ``persona`` as the variant ``name`` would say it.

    Without ``rng``, the variant's centre (deterministic):

    - ``terse``: greeting and pleasantries dropped, the first substantive sentence (plus any
      sentence with a placeholder, a fact value or a question), no "please";
    - ``verbose``: a courteous preamble and a sentence about having tried for a while;
    - ``frustrated``: "This is really frustrating." and a demand to get it sorted today;
    - ``confused``: "I'm not sure what's wrong but ..." and an apology for not being technical;
    - ``non_native``: simpler words, contractions expanded, every other article dropped;
    - ``impatient``: the terse opening framed as a quick one that must be fixed fast;
    - ``base``: the opening as written.

    With ``rng``, one drawn user's opening: the same body, each framing sentence drawn from the
    variant's banks (:data:`FRAMINGS`, greetings for ``base``), the aside's place drawn, and some
    word choices made in the persona's own words. Either way placeholders (``{{key}}``), fact
    values and quoted text of the original are kept exactly, and no digit or fact value is added
    (a draw that would add one falls back to the centre).

    Args:
        persona: The persona (its opening and facts).
        name: ``base`` or one of :data:`VARIANTS`.
        rng: The drawn user's random stream; None for the centre.

    Returns:
        The rewritten opening.
    """
    if name not in ALL_VARIANTS:
        raise ValueError(f"unknown variant {name!r}; expected base or one of {', '.join(VARIANTS)}")
    if name == "base" and rng is None:
        return persona.opening
    body, framing = _body(persona, name), FRAMINGS[name]
    if rng is None:
        return _frame(body, framing.leads[0], framing.asides[0], framing.tails[0], aside_first=False)
    body = _word_choices(body, persona, rng)
    lead, aside, tail = rng.choice(framing.leads), rng.choice(framing.asides), rng.choice(framing.tails)
    aside_first = rng.random() < 0.5
    if _THANKS.search(body):
        lead, aside, tail = ("" if _THANKS.search(part) else part for part in (lead, aside, tail))
    drawn = _frame(body, lead, aside, tail, aside_first)
    return drawn if _keeps_content(persona, persona.opening, drawn) else rewrite_opening(persona, name)


# --------------------------------------------------------------------------------------------
# Variants
# --------------------------------------------------------------------------------------------


def _derive(persona: Persona, name: str) -> None:
    """Raise unless ``name`` is a variant and ``persona`` is the base (or already that variant)."""
    if name not in ALL_VARIANTS:
        raise ValueError(f"unknown variant {name!r}; expected base or one of {', '.join(VARIANTS)}")
    if persona.variant not in ("base", name):
        raise ValueError(f"persona is already variant {persona.variant!r}; derive {name!r} from the base")


def variant(persona: Persona, name: str) -> Persona:
    """The centre of variant ``name`` (``base`` or one of :data:`VARIANTS`) for ``persona``.

    Facts, values, unknowns, refusals, steps, ``done_when``, name and goal are unchanged; the
    style, patience and opening change (see :func:`rewrite_opening` and the module's tables) and
    ``variant`` is set to ``name``. Deterministic.

    Args:
        persona: A base persona (``variant == "base"``).
        name: The variant.

    Returns:
        A new persona (models are frozen; the original is untouched).

    Raises:
        ValueError: For an unknown variant, or a persona that is already another variant.
    """
    _derive(persona, name)
    if persona.variant == name or name == "base":
        return persona
    style, patience = _centre(persona, name)
    return persona.model_copy(
        update={
            "style": style,
            "patience": patience,
            "opening": rewrite_opening(persona, name),
            "variant": name,
        }
    )


def _centre(persona: Persona, name: str) -> tuple[Style, Patience]:
    """The style and patience of variant ``name``'s centre (its opening is rewritten apart)."""
    if name == "base":
        return persona.style, persona.patience
    return persona.style.model_copy(update=_STYLES[name]), _patience(name, persona.patience)


_REGISTERS = (Register.TERSE, Register.NEUTRAL, Register.WORDY)


def _near(centre: float, half_width: float, low: float, high: float, rng: random.Random) -> float:
    """A number drawn uniformly within ``half_width`` of ``centre``, clamped, to three decimals."""
    return round(min(high, max(low, rng.uniform(centre - half_width, centre + half_width))), 3)


def _drawn_style(centre: Style, spread: Spread, rng: random.Random) -> Style:
    wording = centre.wording
    index = _REGISTERS.index(wording)
    neighbours = [_REGISTERS[i] for i in (index - 1, index + 1) if 0 <= i < len(_REGISTERS)]
    stray, neighbour = rng.random() < spread.register, rng.choice(neighbours)
    answers = centre.answers_per_turn + rng.randint(-spread.answers, spread.answers)
    return Style(
        wording=neighbour if stray else wording,
        politeness=_near(centre.politeness, spread.politeness, 0.0, 1.0, rng),
        typo_rate=_near(centre.typo_rate, spread.typo_rate, 0.0, 0.2, rng),
        lowercase=centre.lowercase != (rng.random() < spread.lowercase),
        answers_per_turn=min(5, max(1, answers)),
        identifiers_in_opening=centre.identifiers_in_opening,
    )


def _drawn_patience(centre: Patience, spread: Spread, rng: random.Random) -> Patience:
    floor = min(4, centre.budget)
    budget = max(floor, centre.budget + rng.randint(-spread.budget, spread.budget))
    irritated = _near(centre.irritated_below, spread.thresholds, 0.05, 1.0, rng)
    angry = _near(centre.angry_below, spread.thresholds, 0.02, irritated, rng)
    unhelpful = max(0, centre.unhelpful + rng.randint(-spread.unhelpful, spread.unhelpful))
    return centre.model_copy(
        update={"budget": budget, "irritated_below": irritated, "angry_below": angry, "unhelpful": unhelpful}
    )


def _drawn_phrasings(facts: list[Fact], rng: random.Random) -> list[Fact]:
    """Each fact without an authored phrasing gets one of its kind's labelled phrasings.

    Labelled phrasings name the fact ("My employee ID is {value}."), so a reply telling several
    facts stays clear; the label is filled in now and ``{value}`` stays for the reply.
    """
    drawn = []
    for fact in facts:
        labelled, _bare = FACT_PHRASINGS[fact.kind]
        template = rng.choice(labelled)
        if fact.phrasing is None:
            fact = fact.model_copy(
                update={"phrasing": fill(template, {"label": label(fact.key)}, strict=False)}
            )
        drawn.append(fact)
    return drawn


def draw(persona: Persona, name: str, rng: random.Random) -> Persona:
    """One user of variant ``name``, drawn around its centre (:func:`variant`) with ``rng``.

    The draws, in this order: the style (:data:`SPREADS`: register, politeness, typo rate,
    lowercase, facts per reply), the patience (budget, mood thresholds, the cost of a stall), a
    phrasing per fact without an authored one, and the opening (:func:`rewrite_opening` with
    ``rng``). What the persona knows is unchanged: facts keep their keys, values, kinds and
    disclosure, and an authored phrasing is kept. Only ``rng`` is read, so the same stream gives
    the same user in any process.

    Args:
        persona: A base persona (``variant == "base"``).
        name: The variant.
        rng: The random stream (the scenario instance's, in the environment).

    Returns:
        A new persona with ``variant`` set to ``name``.

    Raises:
        ValueError: For an unknown variant, or a persona that is already another variant.
    """
    _derive(persona, name)
    if persona.variant == name and name != "base":
        raise ValueError(f"persona is already variant {name!r}; draw from the base")
    # The centre's style and patience, not its opening: the drawn opening replaces it.
    (style, patience), spread = _centre(persona, name), SPREADS[name]
    return persona.model_copy(
        update={
            "style": _drawn_style(style, spread, rng),
            "patience": _drawn_patience(patience, spread, rng),
            "facts": _drawn_phrasings(persona.facts, rng),
            "opening": rewrite_opening(persona, name, rng),
            "variant": name,
        }
    )


def draw_variant(persona: Persona, rng: random.Random) -> Persona:
    """A user drawn from the population of ``persona``: a variant picked uniformly, then :func:`draw`."""
    return draw(persona, rng.choice(ALL_VARIANTS), rng)


def population(persona: Persona) -> list[Persona]:
    """The centres of ``base`` and every variant of ``persona``, in :data:`ALL_VARIANTS` order."""
    return [variant(persona, name) for name in ALL_VARIANTS]
