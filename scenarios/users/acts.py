"""What the rule user understands of agent messages, and of the conversation so far.

:func:`parse_agent_message` reads one agent message as a list of :class:`ParsedAct`, sentence by
sentence, in order of appearance: any number of facts, unknowns and secrets asked for (the
persona's ``asked_by`` patterns, case-insensitive ``re.search``), steps instructed, a claim that
the problem is solved, a sign-off, a hand-over to another team, and the questions that match none
of these (``OTHER``, with the question kept for ``UserTurn.unanswered``).

A persona pattern only counts as *asking* when the sentence reads as a request (see
:data:`REQUEST_CUES`, :data:`NEGATION`, :data:`SELF_REFERENCE`): "Thanks for your employee ID." or
"Never share your password." ask for nothing, "Could you give me your employee ID?" does.

:func:`history` replays the transcript before the reply: which facts the user already gave and in
which user turn (a fact is given when its value occurs in a user message, whoever wrote it), what
the agent asked when, the steps the user already reported, and the patience spent, with the rule
policy's own branch choice (:func:`enterprise_envs.scenarios.users.rules.decide`) for each earlier
reply. An earlier reply to a claim of success counts as a denial: had the goal been met, the user
would have ended the conversation there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from enterprise_envs.scenarios.users.persona import Persona
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserIntent
from enterprise_envs.verifiers import dialogue
from enterprise_envs.verifiers.dialogue import (
    CHECK_PATTERNS,
    CLAIM_PATTERNS,
    CLOSE_PATTERNS,
    CONDITION_AFTER,
    CONDITIONAL,
    INTERROGATIVE,
    NEGATION,
    SELF_REFERENCE,
    TRANSFER_PATTERNS,
    clause_matches,
    is_question,
)
from enterprise_envs.verifiers.text import pieces, readable, value_pattern, value_tokens

__all__ = [
    "CHECK",
    "CHECK_PATTERNS",
    "CLAIM_PATTERNS",
    "CLOSE_PATTERNS",
    "CONDITIONAL",
    "CONDITION_AFTER",
    "INTERROGATIVE",
    "NEGATION",
    "REQUEST_CUES",
    "SELF_REFERENCE",
    "TRANSFER_PATTERNS",
    "History",
    "ParsedAct",
    "agent_values",
    "history",
    "occurs",
    "parse_agent_message",
    "sentences",
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
    return tuple(found)


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


def history(persona: Persona, transcript: Sequence[Message]) -> History:
    """Replay the transcript: facts given and when, questions asked, steps tried, patience spent.

    Consecutive agent messages are read as one. Earlier replies are accounted with the rule
    policy's branch choice (:func:`~enterprise_envs.scenarios.users.rules.decide`), whatever
    backend wrote them; a claim of success that the conversation went on after was denied.
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
            )
            decision = decide(persona, so_far, done=False)
            spent += decision.cost
            intents.append(decision.intent)
            if decision.intent is UserIntent.REPORT_STEP:
                for key in decision.keys:
                    steps_tried.setdefault(key, turn)
            if decision.intent is UserIntent.DENY and not decision.check_only:
                false_claims += 1
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
    )
