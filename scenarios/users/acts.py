"""What the rule user understands of agent messages, and of the conversation so far.

:func:`parse_agent_message` reads one agent message as a list of :class:`ParsedAct`, sentence by
sentence, in order of appearance: any number of facts, unknowns and secrets asked for (the
persona's ``asked_by`` patterns, case-insensitive ``re.search``), steps instructed, a claim that
the problem is solved, a sign-off, a hand-over to another team, and the questions that match none
of these (``OTHER``, with the question kept for ``UserTurn.unanswered``). It also reads a fact of
the user's said back to them (:func:`restatements`: ``MISSTATE_FACT`` with another value of the
same shape, "So it started on Tuesday, right?" when it started Monday; ``RESTATE_FACT`` with the
right one) and an answer that lists several values where one was wanted (``ALTERNATIVES``,
read by :func:`enterprise_envs.verifiers.dialogue.alternatives`: "It's New, In Progress or On
Hold").

A persona pattern only counts as *asking* when the sentence reads as a request (see
:data:`REQUEST_CUES`, :data:`NEGATION`, :data:`SELF_REFERENCE`): "Thanks for your employee ID." or
"Never share your password." ask for nothing, "Could you give me your employee ID?" does.

:func:`history` replays the transcript before the reply: which facts the user already gave and in
which user turn (a fact is given when its value occurs in a user message, whoever wrote it), what
the agent asked when, the steps the user already reported, and the patience spent, with the rule
policy's own branch choice (:func:`enterprise_envs.scenarios.users.rules.decide`) for each earlier
reply. An earlier reply to a claim of success counts as a denial: had the goal been met, the user
would have ended the conversation there. It also remembers what the user itself said: the steps
it reported working (:func:`reported_working`), after which it never says the problem is still
there (:func:`says_not_working`), and the facts it confirmed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from enterprise_envs.scenarios.users.persona import Fact, Persona, compiled
from enterprise_envs.scenarios.users.templates import label
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserIntent
from enterprise_envs.scenarios.users.vocabulary import number_shape
from enterprise_envs.verifiers import dialogue
from enterprise_envs.verifiers.dialogue import (
    CHECK_PATTERNS,
    CLAIM_PATTERNS,
    CLOSE_PATTERNS,
    CONDITION_AFTER,
    CONDITIONAL,
    GENERIC_NUMBERS,
    INTERROGATIVE,
    NEGATION,
    NUMBER_IN_TEXT,
    SELF_REFERENCE,
    TRANSFER_PATTERNS,
    NumberShape,
    clause_bounds,
    clause_matches,
    is_question,
)
from enterprise_envs.verifiers.text import fact_tokens, pieces, readable, value_pattern, value_tokens

__all__ = [
    "CHECK",
    "CHECK_PATTERNS",
    "CLAIM_PATTERNS",
    "CLOSED_SETS",
    "CLOSE_PATTERNS",
    "CONDITIONAL",
    "CONDITION_AFTER",
    "INTERROGATIVE",
    "NEGATION",
    "NOT_WORKING",
    "REQUEST_CUES",
    "SELF_REFERENCE",
    "TRANSFER_PATTERNS",
    "WORKING",
    "History",
    "ParsedAct",
    "Restatement",
    "Shaped",
    "agent_values",
    "history",
    "occurs",
    "parse_agent_message",
    "reported_working",
    "restatements",
    "says_not_working",
    "says_working",
    "sentences",
    "shaped_values",
]

#: Key of a ``CLAIM_RESOLVED`` act that is a question ("Is it working now?"): the agent asks the
#: user to check rather than claims success. The user answers it from the UserView like a claim,
#: but a "no" to a question does not cost the ``false_fixed`` patience a false claim costs.
CHECK = "check"

#: Words that make a sentence a request, so a persona pattern in it counts as asking (a question
#: mark does too), unless the pattern sits in a clause that only acknowledges ("Thanks for the
#: employee ID, could you restart?" asks for no employee ID).
REQUEST_CUES = re.compile(
    r"\?|\b(?:please|pls|kindly|(?:can|could|would|will) you|(?:may|can|could) I (?:have|get|ask|know)|"
    r"need|provide|share|give|send|tell|confirm|verify|let me know|what|what's|whats|which|type|enter|"
    r"read|look up|look for|find|check)\b",
    re.IGNORECASE,
)

_ADDRESSED = re.compile(r"\b(?:you|your|yours|need|needs|want|require|like|ask(?:ing)? for)\b", re.I)

#: A sentence about what the agent is doing or will do ("Let me check with the team", "Please
#: hold on while I look", "I'll check your ticket"): it asks for nothing, unless it also asks the
#: user to hand something over (:data:`_HANDED_OVER`) or is a question.
_AGENT_AT_WORK = re.compile(
    r"^\W*(?:(?:ok(?:ay)?|sure|thanks|thank you|great|right|one moment|one sec(?:ond)?)\W+)*"
    r"(?:let me|let us|let's|i'll|i will|i'm going to|i am going to|we'll|we will|i'm|i am|we're|"
    r"please (?:hold on|bear with me|wait|give me a (?:moment|minute|second))|hold on|bear with me|"
    r"one moment|give me a (?:moment|minute|second))\b",
    re.IGNORECASE,
)
_HANDED_OVER = re.compile(
    r"\b(?:you|your)\b[^.?!]{0,30}\b(?:tell|give|send|share|provide|confirm|type|enter)\b|"
    r"\b(?:need|needs|want|require)\b[^.?!]{0,12}\b(?:you|your)\b|"
    r"\b(?:need|needs|require)\s+(?!to\b)(?:the|a|an|some|that|this)\b|"
    r"\b(?:could|can|would|will) you\b|\bplease (?:tell|give|send|share|provide|confirm|let me know)\b|"
    r"\blet me know\b",
    re.IGNORECASE,
)

#: Clauses that only acknowledge what the user said ("Thanks for the employee ID, ...").
_ACKNOWLEDGEMENT = re.compile(
    r"^\W*(?:thanks|thank you|got it|noted|great|perfect|ok(?:ay)?|i see|understood|right)\b", re.I
)

_QUOTED = re.compile(
    r"\"([^\"\n]{1,80})\"|(?<!\w)'([^'\n]{1,80})'(?!\w)|`([^`\n]{1,80})`|\u201c([^\u201d\n]{1,80})\u201d"
)


@dataclass(frozen=True)
class ParsedAct:
    """One act recognized in an agent message.

    Attributes:
        act: What the agent does.
        key: The persona item it is about (fact, unknown, refusal or step key), ``check`` for a
            question whether it works now, None otherwise.
        text: The sentence that carried it (for ``OTHER``: the unanswered question).
    """

    act: AgentAct
    key: str | None = None
    text: str = ""

    @property
    def label(self) -> str:
        """``act`` or ``act:key`` (as in ``UserTurn.acts``)."""
        return f"{self.act.value}:{self.key}" if self.key else self.act.value


def sentences(text: str) -> list[str]:
    """The sentences of a message (split after ``.``, ``!``, ``?`` and at line breaks).

    Bounded reading (:func:`enterprise_envs.verifiers.text.pieces`): a very long sentence comes
    in pieces, so every pattern below runs on at most a few hundred characters at a time.
    """
    return list(pieces(text))


#: Quoted spans: "...", curly quotes, and '...' not inside a word (so "don't" is no quote).
QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<!\w)'[^']{2,}'(?!\w)")


@lru_cache(maxsize=16384)
def _asks(patterns: tuple[str, ...], sentence: str) -> bool:
    """Whether a sentence asks for the item (a request, not negated, not about the agent).

    Cached (a pure function of its arguments): agents repeat their sentences across episodes.
    """
    if REQUEST_CUES.search(sentence) is None:
        return False
    if _AGENT_AT_WORK.match(sentence) and not is_question(sentence) and not _HANDED_OVER.search(sentence):
        return False  # "Let me check with the team.", "I'll check the details of your ticket."
    for _match, clause, before in clause_matches(patterns, sentence):
        if NEGATION.search(before):
            continue
        if SELF_REFERENCE.match(clause) and not _ADDRESSED.search(before):
            continue
        if not _ACKNOWLEDGEMENT.match(clause):
            return True
    return False


@lru_cache(maxsize=16384)
def _instructs(patterns: tuple[str, ...], sentence: str) -> bool:
    """Whether a sentence tells the user to do the step (not negated, conditional or done by the agent)."""
    for _match, clause, before in clause_matches(patterns, sentence):
        if NEGATION.search(before) or CONDITIONAL.search(before):
            continue
        if SELF_REFERENCE.match(clause) and not _ADDRESSED.search(before):
            continue
        return True
    return False


@lru_cache(maxsize=8192)
def _built_in_acts(sentence: str) -> tuple[tuple[AgentAct, str | None], ...]:
    """The acts of a sentence that need no persona, read by the shared dialogue-act reader."""
    found: list[tuple[AgentAct, str | None]] = []
    if dialogue.sentence_checks(sentence):
        found.append((AgentAct.CLAIM_RESOLVED, CHECK))
    elif dialogue.sentence_claims_done(sentence):
        found.append((AgentAct.CLAIM_RESOLVED, None))
    if dialogue.sentence_signs_off(sentence):
        found.append((AgentAct.CLOSE, None))
    if dialogue.sentence_hands_over(sentence):
        found.append((AgentAct.TRANSFER, None))
    if dialogue.sentence_alternatives(sentence):
        found.append((AgentAct.ALTERNATIVES, None))
    return tuple(found)


# --- values put back to the user -----------------------------------------------------------------

#: Closed sets a value's word may belong to: another word of the set is another value of the same
#: kind ("Tuesday" for "Monday", "this afternoon" for "this morning", "Low" for "High"). "May" is
#: left out of the months: it is mostly a verb.
CLOSED_SETS: Mapping[str, frozenset[str]] = {
    "day": frozenset(
        {
            "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "today",
            "yesterday", "tomorrow", "weekend",
        }
    ),
    "daypart": frozenset({"morning", "afternoon", "evening", "night", "tonight", "lunchtime"}),
    "month": frozenset(
        {
            "january", "february", "march", "april", "june", "july", "august", "september", "october",
            "november", "december",
        }
    ),
    "level": frozenset({"low", "medium", "high", "critical"}),
}  # fmt: skip
_SET_OF = {word: name for name, words in CLOSED_SETS.items() for word in words}
#: Shapes that name a time: a sentence that puts one back as the user's ("So it started on
#: Tuesday, right?") is about the persona's one fact of that shape, named or not.
_TEMPORAL = frozenset({"day", "daypart", "month", "date", "time"})

#: Value-like spans by kind (an address, a date, a time of day, any other token): each run is
#: bounded, so each pattern stays linear on whatever text it reads.
_EMAIL = re.compile(r"(?<![\w.+\-])[\w.+\-]{1,64}@[\w\-]{1,63}(?:\.[\w\-]{1,63}){1,6}")
_DATE = re.compile(r"(?<![\w/.\-])(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}(?:/\d{2,4})?)(?![\w/\-])")
_TIME = re.compile(
    r"(?<![\w:.])(?:(\d{1,2}):(\d{2})(?::\d{2})?(?:[ \t]?([ap])\.?m\b\.?)?|(\d{1,2})[ \t]?([ap])\.?m\b\.?)|"
    r"\b(noon|midday|midnight)\b",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"(?<![\w\-])[^\W_](?:[\w\-]{0,62}[^\W_])?(?![\w\-])")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
#: Words between a count and what it counts ("two more people").
_COUNT_FILLERS = frozenset({"more", "other", "extra", "additional", "further"})


@dataclass(frozen=True)
class Shaped:
    """A value-like token of a text, with its shape (what kind of value it is).

    Attributes:
        shape: ``email``, ``record:<prefix>`` (TKT001234), ``date``, ``time``, ``digits`` (three
            digits or more), ``code:<form>`` (letters and digits, ``E10423`` is ``code:a9``),
            ``count:<noun>`` (a small number and what it counts: "four of us" is ``count:of``), or
            a :data:`CLOSED_SETS` name.
        norm: The value in a comparable form (case folded; a time as ``HH:MM``, a count as digits).
        text: The token as written.
        start: Where it starts in the text read.
        end: Where it ends.
    """

    shape: str
    norm: str
    text: str
    start: int
    end: int


def _clock(hour: str, minute: str | None, half: str | None) -> str | None:
    """A time as ``HH:MM`` on a 24-hour clock, or None when it is no time of day."""
    hours, minutes = int(hour), int(minute or 0)
    if half:
        if not 1 <= hours <= 12:
            return None
        hours = hours % 12 + (12 if half.lower() == "p" else 0)
    return f"{hours:02d}:{minutes:02d}" if hours < 24 and minutes < 60 else None


@lru_cache(maxsize=8192)
def shaped_values(text: str, numbers: NumberShape = GENERIC_NUMBERS) -> tuple[Shaped, ...]:
    """The value-like tokens of a text with their shapes (see :class:`Shaped`), in order.

    Reads the :func:`~enterprise_envs.verifiers.text.readable` text; every pattern is linear.
    ``numbers``: what a record number looks like (the persona's systems' shape, from its
    vocabulary; the generic one reads any system's).
    """
    text = readable(text)
    found: list[Shaped] = []
    taken = bytearray(len(text))  # characters already read as part of a value

    def free(match: re.Match[str]) -> bool:
        return not any(taken[match.start() : match.end()])

    def take(shape: str, norm: str, match: re.Match[str]) -> None:
        if free(match):
            found.append(Shaped(shape, norm, match.group(0), match.start(), match.end()))
            taken[match.start() : match.end()] = b"\x01" * (match.end() - match.start())

    for match in _EMAIL.finditer(text):
        take("email", match.group(0).casefold(), match)
    for match in NUMBER_IN_TEXT.finditer(text):
        if numbers.accepts(match):
            take(f"record:{match.group(1).casefold()}", (match.group(1) + match.group(2)).casefold(), match)
    for match in _DATE.finditer(text):
        take("date", match.group(0), match)
    for match in _TIME.finditer(text):
        word = match.group(6)
        if word:
            take("time", "00:00" if word.lower() == "midnight" else "12:00", match)
            continue
        clock = _clock(match.group(1) or match.group(4), match.group(2), match.group(3) or match.group(5))
        if clock is not None:
            take("time", clock, match)
    tokens = [match for match in _TOKEN.finditer(text) if free(match)]
    for index, match in enumerate(tokens):
        word = match.group(0).casefold()
        has_digit = any(char.isdecimal() for char in word)
        count: str | None = None
        if word.isdecimal():
            if len(word) >= 3:
                take("digits", word, match)
                continue
            count = str(int(word))
        elif has_digit:
            if not _ORDINAL.fullmatch(word):
                form = re.sub(r"[^\W\d_]+", "a", re.sub(r"\d+", "9", word))
                take(f"code:{form}", word, match)
            continue
        elif word in _SET_OF:
            take(_SET_OF[word], word, match)
            continue
        else:
            digits = fact_tokens(word)
            count = digits[0] if len(digits) == 1 and digits[0].isdecimal() and digits[0] != word else None
        if count is None:
            continue
        following = (later.group(0).casefold() for later in tokens[index + 1 : index + 4])
        noun = next((later for later in following if later not in _COUNT_FILLERS), None)
        if noun is not None and not noun.isdecimal():
            take(f"count:{noun}", count, match)
    found.sort(key=lambda shaped: shaped.start)
    return tuple(found)


@lru_cache(maxsize=8192)
def _value_shapes(value: str, numbers: NumberShape = GENERIC_NUMBERS) -> Mapping[str, frozenset[str]]:
    """A value's shapes, each with the forms the value takes in it."""
    forms: dict[str, set[str]] = {}
    for shaped in shaped_values(value, numbers):
        forms.setdefault(shaped.shape, set()).add(shaped.norm)
    return {shape: frozenset(norms) for shape, norms in forms.items()}


#: Per persona object (checked by identity, bounded like :data:`_PARSED`): its owned values.
_OWNED: dict[int, tuple[Persona, dict[str, set[str]]]] = {}
_OWNED_LIMIT = 256


def _persona_values(persona: Persona) -> dict[str, set[str]]:
    """Every shaped value of the persona's own words: a value the user owns is never a wrong one.

    Read only for a value said back that is not the fact's, and once per persona object: every
    episode draws a new persona, and reading all of its words costs more than a message.
    """
    hit = _OWNED.get(id(persona))
    if hit is not None and hit[0] is persona:
        return hit[1]
    values = _owned_values(persona)
    if len(_OWNED) >= _OWNED_LIMIT:
        _OWNED.clear()
    _OWNED[id(persona)] = (persona, values)
    return values


def _owned_values(persona: Persona) -> dict[str, set[str]]:
    texts = [persona.goal, persona.opening]
    for fact in persona.facts:
        texts += [fact.value, fact.phrasing or ""]
    texts += [item.reply or "" for item in (*persona.unknowns, *persona.refusals)]
    texts += [text for step in persona.steps for text in (step.when_true, step.when_false)]
    values: dict[str, set[str]] = {}
    numbers = number_shape(persona.vocabulary)
    for text in texts:
        for shape, norms in _value_shapes(text, numbers).items():
            values.setdefault(shape, set()).update(norms)
    return values


#: Words that put something back to the user as theirs: what they said reported ("you said",
#: "you mentioned"), a recap ("so ..." at a clause's start, "just to confirm", "to recap", "I have
#: you down as"), or a tag asking them to confirm it ("..., right?", "correct?").
_PUT_BACK = re.compile(
    "|".join(
        (
            r"(?:^|[,;:])\W*so\b",
            r"\byou (?:said|mentioned|told me|wrote|reported|stated|gave me|indicated|confirmed)\b",
            r"\bas you (?:said|mentioned)\b|\baccording to you\b|\bconfirming\b|\bnoted\b",
            r"\b(?:just )?to (?:confirm|recap|summari[sz]e|double-check|be sure)\b",
            r"\bif I (?:understand|understood|got (?:that|this|it))\b|\bI (?:understand|gather)\b",
            r"\bI(?:'ve| have) (?:noted|got|written down|you down|your)\b",
            r"\b(?:right|correct|yes|yeah|yep|isn't it|wasn't it|didn't it|is that (?:right|correct)|"
            r"am I right|did I get that right)\W{0,3}\?",
        )
    ),
    re.IGNORECASE,
)
#: Before a value in its clause: something else than the user's own ("your new ticket", "a
#: different laptop"), so the value is not put back as theirs.
_ANOTHER = re.compile(r"\b(?:new|another|other|different)\b", re.IGNORECASE)
#: Before a value in its clause: a plan, not a memory ("the engineer can come on Tuesday").
_PLAN = re.compile(
    r"\b(?:will|would|shall|should|can|could|may|might|going to|plan|planned|schedule|scheduled|book|"
    r"booked)\b|'ll\b|'d\b",
    re.IGNORECASE,
)


@lru_cache(maxsize=4096)
def _label_words(key: str) -> tuple[re.Pattern[str], ...]:
    return tuple(
        re.compile(rf"\b{re.escape(word)}s?\b", re.IGNORECASE) for word in label(key).casefold().split()
    )


def _names(fact: Fact, text: str) -> bool:
    """Whether a text names the fact: one of its ``asked_by`` patterns, or every word of its label."""
    if any(compiled(pattern, re.IGNORECASE).search(text) for pattern in fact.asked_by):
        return True
    words = _label_words(fact.key)
    return bool(words) and all(word.search(text) for word in words)


@dataclass(frozen=True)
class Restatement:
    """A fact of the user's said back with a value (see :func:`restatements`).

    Attributes:
        key: The fact.
        said: The value-like token said for it (the first wrong one, when one is wrong).
        right: Whether every value said for it is the fact's own.
        sentence: The sentence that said it.
    """

    key: str
    said: str
    right: bool
    sentence: str


def _referent(
    persona: Persona,
    sentence: str,
    token: Shaped,
    shapes: Mapping[str, Mapping[str, frozenset[str]]],
    recap: bool,
) -> tuple[Fact | None, int]:
    """The fact a value-like token is said for, and how plainly, or ``(None, 0)``.

    3: its clause names the fact; 2: its sentence does; 1: a recap, and the persona's only fact
    of that shape is a time's. Between facts named alike, the one whose label is named with
    more words wins ("your colleague's email" is the colleague's email, not the user's). None
    when no fact fits, or more than one fits equally well.
    """
    candidates = [fact for fact in persona.facts if token.shape in shapes[fact.key]]
    begin, end = clause_bounds(sentence, token.start, token.end)
    clause, before = sentence[begin:end], sentence[begin : token.start]
    ranked: list[tuple[tuple[int, int], Fact]] = []
    for fact in candidates:
        words = _label_words(fact.key)
        named = len(words) if all(word.search(sentence) for word in words) else 0
        if _names(fact, clause):
            ranked.append(((3, named), fact))
        elif _names(fact, sentence):
            ranked.append(((2, named), fact))
        elif recap and len(candidates) == 1 and token.shape in _TEMPORAL and not _PLAN.search(before):
            ranked.append(((1, 0), fact))
    if not ranked:
        return None, 0
    best = max(rank for rank, _fact in ranked)
    top = [fact for rank, fact in ranked if rank == best]
    return (top[0], best[0]) if len(top) == 1 else (None, 0)


def _sentence_restatements(persona: Persona, sentence: str, by_user: bool) -> list[Restatement]:
    # Quoted text (a ticket title read back) is blanked, keeping every offset.
    bare = QUOTED.sub(lambda match: " " * len(match.group(0)), sentence)
    numbers = number_shape(persona.vocabulary)
    tokens = shaped_values(bare, numbers)
    if not tokens:
        return []
    shapes = {fact.key: _value_shapes(fact.value, numbers) for fact in persona.facts}
    recap = by_user or _PUT_BACK.search(bare) is not None
    put_to_user = recap or is_question(bare)
    said: dict[str, list[tuple[Shaped, bool]]] = {}
    for token in tokens:
        begin, _end = clause_bounds(bare, token.start, token.end)
        before = bare[begin : token.start]
        if NEGATION.search(before):
            continue  # "it's not Tuesday"
        if not by_user and SELF_REFERENCE.match(bare[begin:]) and not _ADDRESSED.search(before):
            continue  # the agent's own doing: "I'll call you on Tuesday"
        fact, strength = _referent(persona, bare, token, shapes, recap)
        if fact is None or (by_user and strength < 3):
            continue
        own_words = label(fact.key).casefold().split()
        if any(word.casefold() not in own_words for word in _ANOTHER.findall(before)):
            continue  # "your new ticket TKT..." (but "your new hire's email" names the fact)
        your_own = re.search(r"\byour\b", before, re.IGNORECASE) and _names(fact, before)
        if not put_to_user and not your_own:
            continue  # told, not put back: "The window is ..." ("Your email is ..." is put back)
        right = token.norm in shapes[fact.key][token.shape]
        # The persona's own words are read only for a value that is not the fact's.
        if right or token.norm not in _persona_values(persona).get(token.shape, ()):
            said.setdefault(fact.key, []).append((token, right))
    found = []
    for key, values in said.items():
        wrong = [token for token, right in values if not right]
        fact = persona.fact(key)
        if wrong and fact is not None and not occurs(fact.value, bare):
            found.append(Restatement(key, wrong[0].text, False, sentence))
        elif not wrong:
            found.append(Restatement(key, values[0][0].text, True, sentence))
    return found


def restatements(persona: Persona, text: str, *, by_user: bool = False) -> list[Restatement]:
    """The facts of the user's that a message says back with a value, sentence by sentence.

    In an agent message, a sentence says a fact back when it carries a value-like token of the
    same shape as the fact's value (:func:`shaped_values`: a weekday for a weekday, an address
    for an address, ``ABC0001234`` for a record number, a word of the same closed set), names the
    fact (its ``asked_by`` patterns or its label's words; a recap needs no name for the persona's
    only fact of a time's shape), and puts the value to the user: a question, a recap ("so",
    "you said", "just to confirm", "..., right?") or "your <fact> is ...". It is *right* when the
    value is the fact's. A wrong value is one the persona never owns (not another fact's, not in
    its own words), in a sentence without the fact's own value ("Was it Monday or Tuesday?" is a
    question with the answer in it), not negated ("it's not Tuesday"), not something else's
    ("your new ticket ..."), not the agent's own doing ("I'll call you on Tuesday") and, for an
    unnamed fact, not a plan ("the engineer can come on Tuesday").

    With ``by_user``, the text is the user's: a value is said for a fact only where its clause
    names the fact ("my employee number is 100247"), and needs no question or recap.
    """
    found: list[Restatement] = []
    for sentence in dict.fromkeys(sentences(text)):
        found += _sentence_restatements(persona, sentence, by_user)
    return found


# --- what the user said of the problem ----------------------------------------------------------------

#: The user saying the problem is still there: a negated "works" ("still not working", "it
#: doesn't connect", "not fixed"), "still" before a symptom's verb ("it still drops", "still
#: crashing", "still there"), "same problem", "nothing has changed", "didn't help". Saying it works
#: but is not finished ("it works now, but it's not sorted yet", "it still works") is not this.
NOT_WORKING = re.compile(
    r"(?:\bnot|n't|\bnever)\s+(?:(?:really|actually|quite|even|yet|seem to|seems to|appear to|look|looks|"
    r"be|been)\s+){0,2}(?:(?:work|works|worked|working)(?!\s+(?:around|on|from|with|for)\b)|fixed|"
    r"connect|connects|connecting|load|loading|open|opening)\b|"
    r"\bstill\s+(?:broken|down|the same|there|not|(?!(?:works?|working|fine|ok|okay|good|connects?|"
    r"connected|connecting|runs?|running|loads?|loading|opens?|is|has|needs?|wants?|thinks?|hopes?|"
    r"feels?|seems?|looks?|things?|waiting|hoping|nothing)\b)[a-z]{2,20}(?:s|ing))\b|"
    r"\b(?:same|original)\s+(?:problem|issue|error)\b|\bnothing\s+(?:has\s+)?changed\b|\bno\s+change\b|"
    r"\b(?:didn't|did not)\s+(?:help|fix|work)\b|\b(?:don't|do not) think (?:that|it|this) (?:worked|"
    r"helped|fixed)\b",
    re.IGNORECASE,
)


def _step_report(step_true: str, step_false: str, text: str) -> bool | None:
    """Which report of a step a text gives: True its ``when_true``, False its ``when_false``, or None.

    Read on the content words (:func:`~enterprise_envs.verifiers.text.fact_tokens`) one report
    has and the other has not, so a typo does not hide it: the report with the larger share of
    its own words, at least :data:`_REPORT_SHARE` of them.
    """
    said, said_true, said_false = (_content(text), _content(step_true), _content(step_false))
    true_words, false_words = said_true - said_false, said_false - said_true
    true_share = len(true_words & said) / len(true_words) if true_words else 0.0
    false_share = len(false_words & said) / len(false_words) if false_words else 0.0
    if max(true_share, false_share) < _REPORT_SHARE or true_share == false_share:
        return None
    return true_share > false_share


#: The share of a report's own words a text must hold to give that report.
_REPORT_SHARE = 0.6


def _content(text: str) -> set[str]:
    """A text's content words of three letters or more (no pieces of "won't", "I'm")."""
    return {word for word in fact_tokens(text) if len(word) >= 3}


def reported_working(persona: Persona, text: str, keys: Iterable[str] | None = None) -> tuple[str, ...]:
    """The steps (of ``keys``, default all) that a user message reports as having worked."""
    wanted = None if keys is None else set(keys)
    return tuple(
        step.key
        for step in persona.steps
        if (wanted is None or step.key in wanted) and _step_report(step.when_true, step.when_false, text)
    )


#: The user saying the problem works, now: "it works", "it's working again", "that's sorted now",
#: "the problem in it is fixed", "that did it". Only the present and the step just tried ("that
#: worked"): "it was fixed back then" says nothing of now, and "whoever is working on it" nothing
#: of the problem.
WORKING = re.compile(
    r"\b(?:it|that|this|everything|all)(?:\s+is|'s)\s+(?:now\s+|all\s+)?(?:working|fixed|"
    r"sorted|resolved|solved|gone|back to normal)\b|\b(?:it|that|this|everything)\s+works\b|"
    r"\b(?:works|working)\s+(?:now|again|fine|properly)\b|\b(?:is|are)\s+(?:now\s+)?(?:fixed|sorted|"
    r"resolved|solved|gone)\b|\b(?:fixed|sorted|solved|resolved)\s+now\b|"
    r"\bthat\s+(?:worked|fixed it|did it|did the trick|solved it)\b",
    re.IGNORECASE,
)


def says_working(persona: Persona, text: str, tried: Iterable[str] = ()) -> bool:
    """Whether a user message says the problem works.

    A step of ``tried`` (the steps the agent had just told the user to try) reported working
    (:func:`reported_working`), or a :data:`WORKING` phrase in a message that does not also say
    the problem is still there ("I don't think that worked").
    """
    tried = tuple(tried)
    if tried and reported_working(persona, text, tried):
        return True
    return WORKING.search(readable(text)) is not None and not says_not_working(persona, text)


def says_not_working(persona: Persona, text: str) -> bool:
    """Whether a user message says the problem is still there.

    A :data:`NOT_WORKING` phrase, or a step's ``when_false`` report.
    """
    if NOT_WORKING.search(readable(text)):
        return True
    return any(_step_report(step.when_true, step.when_false, text) is False for step in persona.steps)


#: Parses already made, by (persona identity, text). The entry holds the persona, so its id is not
#: reused while the entry lives, and a hit is checked with ``is``. The rule user replays the
#: whole transcript on every turn; with this, each agent message is parsed once.
_PARSED: dict[tuple[int, str], tuple[Persona, tuple[ParsedAct, ...]]] = {}
_PARSED_LIMIT = 2048


def parse_agent_message(persona: Persona, text: str) -> list[ParsedAct]:
    """The acts of one agent message, sentence by sentence in order of appearance (no duplicates).

    Args:
        persona: Whose facts, unknowns, refusals and steps the patterns come from.
        text: The agent's message.

    Returns:
        ``ASK_FACT``/``ASK_UNKNOWN``/``ASK_SECRET``/``INSTRUCT_STEP`` with the item's key,
        ``CLAIM_RESOLVED`` (key ``check`` for "is it working now?" questions), ``CLOSE``,
        ``TRANSFER``, and ``OTHER`` for each question that none of these recognized (its text kept).
        A message with none of these gives an empty list.
    """
    key = (id(persona), text)
    hit = _PARSED.get(key)
    if hit is not None and hit[0] is persona:
        return list(hit[1])
    acts = _parse(persona, text)
    if len(_PARSED) >= _PARSED_LIMIT:
        _PARSED.clear()
    _PARSED[key] = (persona, tuple(acts))
    return acts


def _parse(persona: Persona, text: str) -> list[ParsedAct]:
    acts: list[ParsedAct] = []
    seen: set[tuple[AgentAct, str | None, str]] = set()  # membership only, never iterated

    def add(act: AgentAct, key: str | None, sentence: str) -> None:
        identity = (act, key, sentence if act is AgentAct.OTHER else "")
        if identity not in seen:
            seen.add(identity)
            acts.append(ParsedAct(act, key, sentence))

    # A repeated sentence adds nothing new (acts are deduplicated), so each is read once.
    for sentence in dict.fromkeys(sentences(text)):
        recognized = False
        # Quoted text (a ticket title the agent reads back) asks for nothing.
        bare = QUOTED.sub(" ", sentence)
        for act, items, judge in (
            (AgentAct.ASK_FACT, persona.facts, _asks),
            (AgentAct.ASK_UNKNOWN, persona.unknowns, _asks),
            (AgentAct.ASK_SECRET, persona.refusals, _asks),
            (AgentAct.INSTRUCT_STEP, persona.steps, _instructs),
        ):
            for item in items:
                if judge(tuple(item.asked_by), bare):
                    add(act, item.key, sentence)
                    recognized = True
        for act, key in _built_in_acts(sentence):
            add(act, key, sentence)
            recognized = True
        for restated in _sentence_restatements(persona, sentence, by_user=False):
            add(AgentAct.RESTATE_FACT if restated.right else AgentAct.MISSTATE_FACT, restated.key, sentence)
            recognized = True
        if not recognized and is_question(sentence):
            add(AgentAct.OTHER, None, sentence)
    return acts


def agent_values(text: str) -> list[str]:
    """Value-like strings an agent message contains (numbers, ids, e-mails, quoted text), in order.

    The style pass protects them: a user repeating what the agent said keeps it verbatim.
    """
    return list(_agent_values(text))


@lru_cache(maxsize=4096)
def _agent_values(text: str) -> tuple[str, ...]:
    found = list(value_tokens(text))
    for match in _QUOTED.finditer(readable(text)):
        quoted = next(group for group in match.groups() if group is not None).strip()
        if quoted:
            found.append(quoted)
    return tuple(dict.fromkeys(found))


#: Every cache here is bounded: fact values and agent messages are new in every episode, and a
#: training run plays millions of them in one process. (``value_pattern`` is the one value matcher,
#: in verifiers/text.py, shared with the verifier.)


@lru_cache(maxsize=16384)
def occurs(value: str, text: str) -> bool:
    """Whether a fact value occurs in a text: case-insensitive, with token boundaries (cached)."""
    pattern = value_pattern(value)
    return pattern is not None and pattern.search(text) is not None


@dataclass(frozen=True)
class History:
    """The conversation before the reply, as the rule user remembers it.

    Attributes:
        turn: The user turn being written (user messages so far; 0 = the opening).
        given: Fact key -> the user turn whose message first contained its value.
        asked: Act label (``ask_fact:email``) -> the user turns answering a message with that act,
            the pending message included (as ``turn``).
        steps_tried: Step key -> the user turn that first reported trying it.
        spent: Patience spent before this turn (by the rule policy's accounting).
        false_claims: Claims of success (or sign-offs) answered with a denial so far.
        intents: The rule policy's intent for each earlier user turn (``OPENING`` first).
        pending: The acts of the agent message(s) after the last user message, to reply to.
        agent_values: Value-like strings the agent said (see :func:`agent_values`).
        works_said: The first user turn (0 is the opening) that said the problem works
            (:func:`says_working`: a step reported working, or "it's fixed now"); the user never
            says afterwards that the problem is still there. None when no turn did.
        confirmed: Fact key -> the user turn that first confirmed a value the agent said back.
    """

    turn: int
    given: Mapping[str, int]
    asked: Mapping[str, tuple[int, ...]]
    steps_tried: Mapping[str, int]
    spent: int
    false_claims: int
    intents: tuple[UserIntent, ...]
    pending: tuple[ParsedAct, ...]
    agent_values: tuple[str, ...]
    works_said: int | None = None
    confirmed: Mapping[str, int] = field(default_factory=dict)


def history(persona: Persona, transcript: Sequence[Message]) -> History:
    """Replay the transcript: facts given and when, questions asked, steps tried, patience spent.

    Consecutive agent messages are read as one. Earlier replies are accounted with the rule
    policy's branch choice (:func:`~enterprise_envs.scenarios.users.rules.decide`), whatever
    backend wrote them; a claim of success that the conversation went on after was denied. What
    the user said is remembered from its words: a step report that reads as the step's
    ``when_true``, or any message of its own saying the problem works (:func:`says_working`), and
    a confirmation confirmed the fact.
    """
    # The replay needs the policy's choice for each earlier reply (patience and step attempts depend
    # on it), and rules.py builds on this module: hence the import here.
    from enterprise_envs.scenarios.users.rules import decide

    turn = 0
    given: dict[str, int] = {}
    asked: dict[str, tuple[int, ...]] = {}
    steps_tried: dict[str, int] = {}
    spent = 0
    false_claims = 0
    intents: list[UserIntent] = []
    pending: list[str] = []
    values: list[str] = []
    works_said: int | None = None
    confirmed: dict[str, int] = {}

    def parse(texts: list[str]) -> tuple[ParsedAct, ...]:
        return tuple(parse_agent_message(persona, "\n".join(texts))) if texts else ()

    def note_asked(acts: Iterable[ParsedAct], at: int) -> None:
        for act in acts:
            if act.act is not AgentAct.OTHER:
                turns = asked.get(act.label, ())
                if at not in turns:
                    asked[act.label] = (*turns, at)

    for message in transcript:
        if message.role == "agent":
            pending.append(message.text)
            values.extend(agent_values(message.text))
            continue
        acts = parse(pending)
        note_asked(acts, turn)
        tried: tuple[str, ...] = ()
        if turn == 0:
            intents.append(UserIntent.OPENING)
        else:
            so_far = History(
                turn=turn,
                given=dict(given),
                asked=dict(asked),
                steps_tried=dict(steps_tried),
                spent=spent,
                false_claims=false_claims,
                intents=tuple(intents),
                pending=acts,
                agent_values=tuple(dict.fromkeys(values)),
                works_said=works_said,
                confirmed=dict(confirmed),
            )
            decision = decide(persona, so_far, done=False)
            spent += decision.cost
            intents.append(decision.intent)
            if decision.intent is UserIntent.REPORT_STEP:
                tried = decision.keys
                for key in decision.keys:
                    steps_tried.setdefault(key, turn)
            if decision.intent is UserIntent.CONFIRM:
                for key in decision.keys:
                    confirmed.setdefault(key, turn)
            if decision.intent is UserIntent.DENY and not decision.check_only:
                false_claims += 1
        if works_said is None and says_working(persona, message.text, tried):
            works_said = turn
        for fact in persona.facts:
            if fact.key not in given and occurs(fact.value, message.text):
                given[fact.key] = turn
        turn += 1
        pending = []
    acts = parse(pending)
    note_asked(acts, turn)
    return History(
        turn=turn,
        given=given,
        asked=asked,
        steps_tried=steps_tried,
        spent=spent,
        false_claims=false_claims,
        intents=tuple(intents),
        pending=acts,
        agent_values=tuple(dict.fromkeys(values)),
        works_said=works_said,
        confirmed=confirmed,
    )
