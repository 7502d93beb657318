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
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from enterprise_envs.scenarios.users.persona import Persona, compiled
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserIntent
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

# --- built-in pattern sets (case-insensitive; searched in one sentence at a time) -------------------

#: The agent saying the problem is solved. Past participles after a copula ("is fixed", "has been
#: resolved", "it's working again"), the stock phrases of service desks ("you're all set",
#: "taken care of", "should work now") and closing the ticket. A match in a clause that negates
#: or makes it conditional ("not fixed yet", "once it's resolved I'll ...") is no claim.
CLAIM_PATTERNS: tuple[str, ...] = (
    r"(?:\bis|'s|'re|\bare|\bhas been|\bhave been|\bwas|\bwere|\bshould be|\bnow|\bbeen)\s+"
    r"(?:now\s+|all\s+|fully\s+|finally\s+)?(?:fixed|resolved|solved|sorted(?: out)?|restored|unlocked|"
    r"working(?: again| now| fine)?|back (?:up|online|to normal)|up and running)\b",
    r"\bshould (?:now |then )?(?:work|be working|be able to|be fine|be good)\b",
    r"\b(?:works|working) (?:again|now|fine now)\b",
    r"\b(?:you're|you are|we're|we are|you should be) (?:all )?(?:set|good to go|sorted)\b",
    r"\ball set\b",
    r"\bgood to go\b",
    r"\btaken care of\b",
    r"\b(?:I|we)(?:'ve| have)? (?:just |now |finally )?(?:fixed|resolved|solved|sorted out|closed)\b",
    r"\b(?:closed|resolved|closing|resolving) (?:your|the|this) (?:ticket|incident|request|case|issue)\b",
    r"\bmarked (?:it |this |your \w+ |the \w+ )?as (?:resolved|closed|fixed|done)\b",
    r"\b(?:issue|problem) (?:is |has been )?(?:fixed|resolved|solved|sorted)\b",
    r"\bthat (?:should|will) (?:do it|fix it|sort it|solve it|do the trick)\b",
)

#: The agent asking the user to check whether it works now. Only in a question whose clause starts
#: like one (:data:`INTERROGATIVE`): "Is it working now?", "Did that help?", "Can you log in now?".
CHECK_PATTERNS: tuple[str, ...] = (
    r"\b(?:work(?:s|ing)?|fixed|resolved|sorted|better|connect(?:s|ing|ed)?|log(?:ged)? ?in|"
    r"sign(?:ed)? ?in|access|open)\b.*\b(?:now|again|yet)\b",
    r"\b(?:did|does|has) (?:that|this|it) (?:help|fix|solve|work|do the trick|sort)",
    r"\b(?:is|does|did) (?:it|that|this|everything) (?:\w+ )?(?:work(?:s|ing)?|fixed|resolved|sorted|"
    r"ok(?:ay)?|fine|better)\b",
)

#: The agent signing off. A goodbye alone is a sign-off; "anything else I can help with" is the
#: desk's way of closing. "Thank you for contacting us" is left out: desks open with it too.
CLOSE_PATTERNS: tuple[str, ...] = (
    r"\banything else (?:I|we) can (?:help|do|assist)\b",
    r"\b(?:is there )?anything else(?: (?:today|for now|for you))?\s*\?",
    r"\bgood ?bye\b",
    r"\bbye\b",
    r"\bhave a (?:nice|good|great|lovely|wonderful) (?:day|one|evening|weekend|afternoon|morning)\b",
    r"\btake care\b",
    r"\bglad (?:I|we) could help\b",
    r"\b(?:closing|close|end|ending) (?:this|the|our) (?:chat|conversation|session)\b",
)

#: The agent handing the user over to someone else: transferring, escalating to a team, handing
#: over, routing the case on. Assigning a ticket to a team is not a hand-over of the user.
TRANSFER_PATTERNS: tuple[str, ...] = (
    r"\btransfer(?:ring|red)? (?:you|your (?:call|chat|ticket|request|case|incident|issue)|this|it)\b",
    r"\bescalat(?:e|ing|ed)\b.{0,40}\b(?:to|with)\b",
    r"\bescalat(?:e|ing|ed) (?:this|it|your (?:ticket|request|case|incident|issue))\b",
    r"\bhand(?:ing|ed)? (?:you|this|it|your \w+) (?:over|off)\b",
    r"\b(?:pass|passing|route|routing|forward|forwarding) (?:you|this|it|your (?:ticket|request|case|"
    r"incident|issue)) (?:on |over )?to\b",
    r"\b(?:connect|connecting|put|putting) you (?:through )?(?:to|with)\b",
    r"\b(?:another|a different|the right|a specialist|the appropriate|second[- ]level) (?:team|group|"
    r"department|colleague|agent)\b.{0,40}\b(?:will|can|should) (?:take|help|contact|reach|follow|get)\b",
)

#: Words that make a sentence a request, so a persona pattern in it counts as asking (a question
#: mark does too), unless the pattern sits in a clause that only acknowledges ("Thanks for the
#: employee ID, could you restart?" asks for no employee ID).
REQUEST_CUES = re.compile(
    r"\?|\b(?:please|pls|kindly|(?:can|could|would|will) you|(?:may|can|could) I (?:have|get|ask|know)|"
    r"need|provide|share|give|send|tell|confirm|verify|let me know|what|what's|whats|which|type|enter|"
    r"read|look up|look for|find|check)\b",
    re.IGNORECASE,
)

#: A negation before the pattern, in the same clause: "don't share your password", "no need for
#: your employee ID", "it's not fixed yet".
NEGATION = re.compile(
    r"\b(?:not|no|never|don't|do not|dont|won't|will not|shouldn't|should not|without|nor)\b|n't\b",
    re.IGNORECASE,
)

#: A condition before the pattern, in the same clause: "if restarting doesn't help", "once it's
#: resolved". Claims, hand-overs and steps under a condition are not made yet.
CONDITIONAL = re.compile(r"\b(?:if|once|when|after|until|unless|before|as soon as|in case)\b", re.IGNORECASE)

#: A clause about the agent themself ("My name is Alex", "I've restarted the server"): a pattern in
#: it asks or instructs nothing unless "you"/"your" or a wish comes before the pattern ("I need
#: your name", "I'll need the one-time code", "I'd like you to restart").
SELF_REFERENCE = re.compile(r"^\W*(?:I|I'm|I am|I've|I'll|I'd|my|we|we're|we've|we'll|our|this is)\b", re.I)
_ADDRESSED = re.compile(r"\b(?:you|your|yours|need|needs|want|require|like|ask(?:ing)? for)\b", re.I)

#: Clauses that only acknowledge what the user said ("Thanks for the employee ID, ...").
_ACKNOWLEDGEMENT = re.compile(
    r"^\W*(?:thanks|thank you|got it|noted|great|perfect|ok(?:ay)?|i see|understood|right)\b", re.I
)

#: A clause that starts like a question (for telling "Is it fixed now?" from "It is fixed now.").
INTERROGATIVE = re.compile(
    r"^\W*(?:(?:so|and|ok(?:ay)?|now|great|right)\W+)?(?:is|are|does|do|did|has|have|can|could|would|"
    r"will|was|were|any luck)\b",
    re.IGNORECASE,
)

#: Conditions that suspend a claim or a hand-over even after it: "it should work once you
#: reconnect", "I'll escalate it if that fails" ("resolved after the restart" is still a claim).
CONDITION_AFTER = re.compile(r"\b(?:if|unless|once|in case|otherwise)\b", re.IGNORECASE)

_CLAUSE_BREAK = re.compile(r"[,;:]|\s(?:but|and then|so|however)\s|\s[-\u2013\u2014]\s", re.IGNORECASE)
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


def _compiled(pattern: str) -> re.Pattern[str]:
    return compiled(pattern, re.IGNORECASE)


@lru_cache(maxsize=8192)
def _clause_breaks(sentence: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(starts, ends) of the clause breaks of a sentence, found once."""
    found = list(_CLAUSE_BREAK.finditer(sentence))
    return tuple(match.start() for match in found), tuple(match.end() for match in found)


def _clause_start(sentence: str, position: int) -> int:
    ends = _clause_breaks(sentence)[1]
    index = bisect_right(ends, position)
    return ends[index - 1] if index else 0


def _clause_end(sentence: str, position: int) -> int:
    starts = _clause_breaks(sentence)[0]
    index = bisect_right(starts, position - 1)
    return starts[index] if index < len(starts) else len(sentence)


def _is_question(sentence: str) -> bool:
    return "?" in sentence


@lru_cache(maxsize=4096)
def _screen(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """All the patterns as one alternation, which matches a sentence iff one of them does.

    Most sentences match none of a set, and one search then replaces one per pattern. None when a
    pattern has groups (a backreference would change meaning once the groups are renumbered).
    """
    if not patterns or any(_compiled(pattern).groups for pattern in patterns):
        return None
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns), re.IGNORECASE)


def _matches(patterns: Sequence[str], sentence: str) -> Iterable[tuple[re.Match[str], str, str]]:
    """Each match with its clause and the part of the clause before it."""
    screen = _screen(tuple(patterns))
    if screen is not None and screen.search(sentence) is None:
        return
    for pattern in patterns:
        for match in _compiled(pattern).finditer(sentence):
            start = _clause_start(sentence, match.start())
            clause = sentence[start : _clause_end(sentence, match.end())]
            yield match, clause, sentence[start : match.start()]


#: Quoted spans: "...", curly quotes, and '...' not inside a word (so "don't" is no quote).
QUOTED = re.compile(r"\"[^\"]*\"|\u201c[^\u201d]*\u201d|(?<!\w)'[^']{2,}'(?!\w)")


@lru_cache(maxsize=16384)
def _asks(patterns: tuple[str, ...], sentence: str) -> bool:
    """Whether a sentence asks for the item (a request, not negated, not about the agent).

    Cached (a pure function of its arguments): agents repeat their sentences across episodes.
    """
    if REQUEST_CUES.search(sentence) is None:
        return False
    for _match, clause, before in _matches(patterns, sentence):
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
    for _match, clause, before in _matches(patterns, sentence):
        if NEGATION.search(before) or CONDITIONAL.search(before):
            continue
        if SELF_REFERENCE.match(clause) and not _ADDRESSED.search(before):
            continue
        return True
    return False


def _states(patterns: Sequence[str], sentence: str) -> bool:
    """Whether a sentence states it (claim, hand-over): not negated, not conditional, not a question.

    A condition before the pattern counts, and an "if"/"unless"/"once" anywhere in the clause ("I'll
    escalate it if that fails" escalates nothing yet); a negation only before the pattern.
    """
    for _match, clause, before in _matches(patterns, sentence):
        if NEGATION.search(before) or CONDITIONAL.search(before) or CONDITION_AFTER.search(clause):
            continue
        if _is_question(sentence) and INTERROGATIVE.match(clause):
            continue
        return True
    return False


def _checks(sentence: str) -> bool:
    if not _is_question(sentence):
        return False
    return any(INTERROGATIVE.match(clause) for _match, clause, _before in _matches(CHECK_PATTERNS, sentence))


def _mentions(patterns: Sequence[str], sentence: str) -> bool:
    return any(True for _ in _matches(patterns, sentence))


@lru_cache(maxsize=8192)
def _built_in_acts(sentence: str) -> tuple[tuple[AgentAct, str | None], ...]:
    """The acts of a sentence that need no persona: check question or claim, sign-off, hand-over."""
    found: list[tuple[AgentAct, str | None]] = []
    if _checks(sentence):
        found.append((AgentAct.CLAIM_RESOLVED, CHECK))
    elif _states(CLAIM_PATTERNS, sentence):
        found.append((AgentAct.CLAIM_RESOLVED, None))
    if _mentions(CLOSE_PATTERNS, sentence):
        found.append((AgentAct.CLOSE, None))
    if _states(TRANSFER_PATTERNS, sentence):
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
        if not recognized and _is_question(sentence):
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
