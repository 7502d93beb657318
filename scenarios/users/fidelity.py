"""Fidelity metrics of simulated users, computed from transcripts only.

A :class:`Transcript` is the persona a conversation was played with, its messages and, when
available, the simulator's :class:`UserTurn` records and the final :data:`UserView`. Every metric
reads the messages and the persona alone (so it applies to any backend, or to a human); the turn
records are used only for the guard hit rate and the backend counts.

Conventions shared by the metrics:

- **User turns** are the user messages in order; turn 0 is the opening. "Before user turn *i*"
  means the messages that precede it in the transcript.
- A fact is **asked for** by an agent message that matches one of its ``asked_by`` patterns
  (``re.search``, case-insensitive); the same holds for unknowns and refusals.
- A **value occurs** in a text when it appears case-insensitively with token boundaries: not
  preceded or followed by a letter or digit (runs of whitespace inside a value match any
  whitespace). Empty values never occur.
- An **echo** is a value that an earlier agent message already contains: repeating what the agent
  said discloses nothing, so leak, premature-disclosure and canary checks skip echoes.
- Marker lexicons (the ``*_MARKERS`` tuples below) are matched case-insensitively on the text
  with typographic apostrophes normalized; a multi-word marker matches as a phrase with word
  boundaries at both ends. The markers of good behaviour (don't-know, refusal, pushback, deny,
  abandon) also match with one typo per word of four letters or more (:func:`typo_equal`), so a
  user's typo does not count against them.
- A :class:`Ratio` keeps its numerator and denominator; rates over several transcripts are
  micro-averaged (numerators and denominators summed). A ratio with a zero denominator has no
  value (``None``, shown as ``n/a``).
"""

from __future__ import annotations

import itertools
import json
import math
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from enterprise_envs.scenarios.users.acts import (
    CHECK,
    history,
    parse_agent_message,
    restatements,
    says_not_working,
    says_working,
)
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    Fact,
    FactKind,
    Mood,
    Persona,
    Register,
    UserView,
)
from enterprise_envs.scenarios.users.rules import disclosable
from enterprise_envs.scenarios.users.turns import AgentAct, Message, Terminal, UserTurn
from enterprise_envs.verifiers.text import MAX_READ_CHARS, pieces, readable, value_pattern, value_tokens

__all__ = [
    "ABANDON_MARKERS",
    "AGENT_CLAIM_MARKERS",
    "AGENT_PHRASES",
    "CLARIFY_MARKERS",
    "COACHING_STRONG_TERMS",
    "CORRECTION_MARKERS",
    "COACHING_WEAK_TERMS",
    "COMMON_WORDS",
    "DENY_MARKERS",
    "DONT_KNOW_MARKERS",
    "FAREWELL_MARKERS",
    "FRUSTRATION_MARKERS",
    "INTEGRITY_METRICS",
    "MIN_GROUP_SIZE",
    "POLITENESS_MARKERS",
    "PUSHBACK_MARKERS",
    "REFUSAL_MARKERS",
    "ROLE_SWAP_LENGTH_FACTOR",
    "STYLE_FEATURES",
    "SUCCESS_MARKERS",
    "SUGGESTION_PHRASES",
    "SUGGESTION_VERBS",
    "TRANSFER_MARKERS",
    "TYPICAL_WORDS",
    "Diversity",
    "FidelityReport",
    "Finding",
    "Onset",
    "Ratio",
    "Transcript",
    "Variance",
    "behaviour_features",
    "behaviour_profile",
    "canary_findings",
    "canary_hits",
    "claims_done",
    "coaching_findings",
    "coaching_rate",
    "coaching_reasons",
    "dice",
    "dice_by_dimension",
    "diversity",
    "false_corrections",
    "false_stop_findings",
    "false_stop_rate",
    "fidelity_report",
    "front_loading",
    "frustration_onset",
    "frustration_turns",
    "guard_counts",
    "guard_hit_rate",
    "leak_findings",
    "missing_corrections",
    "leak_rate",
    "persona_group",
    "persona_text",
    "premature_disclosure",
    "premature_findings",
    "refusal_adherence",
    "refusal_findings",
    "repeat_findings",
    "repeat_pushback",
    "role_swap_findings",
    "role_swap_limit",
    "role_swap_rate",
    "role_swap_reasons",
    "say_no_rate",
    "self_contradiction",
    "style_features",
    "typo_equal",
    "unknown_findings",
    "unknown_honesty",
    "value_occurs",
    "words",
]

# --------------------------------------------------------------------------------------------
# Transcripts and ratios
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transcript:
    """One conversation, as the metrics see it.

    Attributes:
        persona: The persona the user was played with.
        messages: The conversation, user and agent messages in order.
        turns: The simulator's records of the user turns, in order, when available (optional).
        final_view: The UserView at the end of the conversation, when known (for false stops).
        label: A name for reports (``ask_secrets/seed=1``).
    """

    persona: Persona
    messages: tuple[Message, ...]
    turns: tuple[UserTurn, ...] = ()
    final_view: UserView | None = None
    label: str = ""

    def __post_init__(self) -> None:
        # The metrics read the readable part of each message (bounded work per message).
        messages = tuple(
            message if len(message.text) <= MAX_READ_CHARS else Message(message.role, readable(message.text))
            for message in self.messages
        )
        object.__setattr__(self, "messages", messages)
        object.__setattr__(self, "turns", tuple(self.turns))

    def user_texts(self) -> list[str]:
        """The user messages, in order (index = user turn)."""
        return [message.text for message in self.messages if message.role == "user"]

    def exchanges(self) -> list[tuple[int, str | None, str, list[str]]]:
        """Each user turn as ``(turn, agent message just before or None, user text, agent texts before)``."""
        out: list[tuple[int, str | None, str, list[str]]] = []
        agent_before: list[str] = []
        previous: Message | None = None
        turn = 0
        for message in self.messages:
            if message.role == "user":
                prior = previous.text if previous is not None and previous.role == "agent" else None
                out.append((turn, prior, message.text, list(agent_before)))
                turn += 1
            else:
                agent_before.append(message.text)
            previous = message
        return out


@dataclass(frozen=True)
class Ratio:
    """A rate that keeps its counts: ``hits / total`` (no value when ``total`` is 0)."""

    hits: int = 0
    total: int = 0

    @property
    def value(self) -> float | None:
        """``hits / total``, or None when nothing was counted."""
        return self.hits / self.total if self.total else None

    def __add__(self, other: Ratio) -> Ratio:
        return Ratio(self.hits + other.hits, self.total + other.total)

    def to_dict(self) -> dict[str, Any]:
        """``{"value", "hits", "total"}`` (value None when total is 0)."""
        return {"value": self.value, "hits": self.hits, "total": self.total}

    def __str__(self) -> str:
        value = "n/a" if self.value is None else f"{self.value:.3f}"
        return f"{value} ({self.hits}/{self.total})"


@dataclass(frozen=True)
class Finding:
    """One thing a metric counted against the simulator (for reading the failures)."""

    metric: str
    transcript: str
    turn: int
    detail: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "metric": self.metric,
            "transcript": self.transcript,
            "turn": self.turn,
            "detail": self.detail,
        }


def _many(transcripts: Transcript | Iterable[Transcript]) -> list[Transcript]:
    return [transcripts] if isinstance(transcripts, Transcript) else list(transcripts)


def _label(transcript: Transcript, index: int) -> str:
    return transcript.label or f"#{index}"


# --------------------------------------------------------------------------------------------
# Lexicons (documented; every marker is matched as a case-insensitive phrase with word boundaries)
# --------------------------------------------------------------------------------------------


def _lexicon(text: str) -> tuple[str, ...]:
    """A lexicon written as ``a | b | c`` over several lines, as a tuple of phrases."""
    return tuple(phrase for line in text.splitlines() for part in line.split("|") if (phrase := part.strip()))


#: Courtesy words (politeness markers per turn).
POLITENESS_MARKERS = _lexicon(
    """
    please | pls | plz | thanks | thank you | thx | ty | appreciate | appreciated | sorry | kindly
    cheers | grateful | would you mind | if you could | if possible
    """
)

#: Saying "I don't know" (unknown honesty).
DONT_KNOW_MARKERS = _lexicon(
    """
    don't know | dont know | do not know | not sure | no idea | not certain | unsure | dunno
    no clue | can't remember | cant remember | cannot remember | can't recall | cannot recall
    don't remember | dont remember | do not remember | couldn't tell you | could not tell you
    don't have that | don't have it | do not have that | haven't got | wouldn't know | never knew
    not something i know
    """
)

#: Refusing a request (refusal adherence).
REFUSAL_MARKERS = _lexicon(
    """
    can't share | cant share | cannot share | won't share | wont share | will not share
    not sharing | not going to share | never share | shouldn't share | should not share | can't give
    cant give | cannot give | won't give | will not give | not going to give | can't tell you
    cannot tell you | won't tell | will not tell | can't provide | cannot provide | won't provide
    can't send | won't send | can't read | won't read | can't do that | cannot do that
    won't do that | not allowed | not supposed to | not comfortable | rather not | no way | i refuse
    decline | not going to | not give out | not something i can | against policy | against the rules
    i won't | not giving | don't think i should | never to share
    should not be giving
    """
)

#: Pushing back on a question already answered (repeat pushback, error reaction).
PUSHBACK_MARKERS = _lexicon(
    """
    already told | already said | already gave | already given | already mentioned
    already provided | already answered | already sent | as i said | like i said | as i mentioned
    as i told you | i told you | told you | i just said | just told | just said | said that
    said it | asked that | asked me that | how many times | for the second time | for the third time
    once again | again? | same as before | same answer | scroll up | mentioned that | mentioned it
    gave you that | sent that | said this | answered that | read the chat | same question
    """
)

#: Saying that something still does not work (deny, error reaction, not a success claim).
DENY_MARKERS = _lexicon(
    """
    still | not working | not work | doesn't work | doesnt work | does not work | isn't working
    is not working | didn't work | did not work | didn't help | did not help | not fixed
    isn't fixed | not resolved | isn't resolved | not solved | nothing changed | nothing has changed
    no change | hasn't changed | same problem | same issue | same error | no it | no, it | nope
    not yet | not really | not sorted | that's not true | that is not true | not the case
    """
)

#: The user claiming the goal is met (false stops).
SUCCESS_MARKERS = _lexicon(
    """
    works now | working now | it works | it's working | it is working | it's fixed | it is fixed
    fixed now | that fixed it | that did it | that did the trick | that worked | that solved
    solved it | problem solved | issue solved | all sorted | sorted now | all good | all set
    resolved now | it's resolved | is resolved | that's resolved | thanks for fixing
    thanks for sorting | thanks for solving | all done | that's everything
    """
)

#: Leaving the conversation politely (false stops when the goal is not met and the user did not abandon).
FAREWELL_MARKERS = _lexicon(
    """
    bye | goodbye | good bye | have a nice day | have a good day | have a great day | that's all
    that is all | nothing else
    """
)

#: Giving up (an abandon is not a false stop).
ABANDON_MARKERS = _lexicon(
    """
    forget it | give up | giving up | gave up | never mind | nevermind | waste of | wasting my time
    not helping | useless | i'll call | i will call | i'll ask | i will ask | someone else
    somebody else | enough | done with this | fed up | pointless | go elsewhere | try later
    try again later | ridiculous | not worth | i'm leaving | i am leaving | escalate this myself
    going nowhere | not getting anywhere | round in circles
    """
)

#: The agent handing the user over (the user's goodbye after it is no false stop).
TRANSFER_MARKERS = _lexicon(
    """
    transfer | transferring | hand you over | handing you over | pass you | passing you
    connect you | escalate | escalating | escalated | second-level | second level | another team
    specialist team
    """
)

#: The agent claiming the problem is fixed (error reaction).
AGENT_CLAIM_MARKERS = _lexicon(
    """
    fixed | resolved | should work now | should be working | works now | working now | all set
    sorted | taken care of | closed the ticket | closed your ticket | closed the incident | is done
    has been done
    """
)

#: The user asking the agent for clarification (clarification dimension).
CLARIFY_MARKERS = _lexicon(
    """
    what do you mean | what does that mean | what's that | what is that | which one
    which do you mean | could you explain | can you explain | not sure what you | don't understand
    do not understand | what is a | what's a | where do i find | where can i find | how do i
    how would i | sorry? | pardon | meaning?
    """
)

#: Phrases an agent says and a user does not (role swap).
AGENT_PHRASES = _lexicon(
    """
    how can i help | how may i help | how can i assist | how may i assist
    how can i be of assistance | what can i do for you | is there anything else i can
    anything else i can | anything else i could | thank you for contacting | thanks for contacting
    thank you for reaching out | thanks for reaching out | i have created | i've created
    i have opened | i've opened | i have updated | i've updated | i have resolved | i've resolved
    i have escalated | i've escalated | i have assigned | i've assigned | i have reset your
    i've reset your | i have closed | i've closed | let me check that for you
    let me check this for you | let me check for you | let me check your | let me check our
    let me check the system | let me check on that | let me check with | let me look into
    let me look that up for you | let me look up your | let me see what i can do | i'll look into
    i will look into | your ticket number is | your incident number is | please hold
    could you please provide | can you please provide | please provide your | can you confirm your
    could you confirm your | as your agent | as an ai | as a support agent | service desk agent
    """
)

#: Tool, field, state and policy terms that coach the agent by themselves (unless the persona's own
#: text uses them).
COACHING_STRONG_TERMS = _lexicon(
    """
    close code | close_code | closure code | resolution code | close notes | resolution notes
    assignment group | assignment_group | assigned to field | assigned_to | work note | work notes
    work_notes | ticket field | the field | set the state | set the status | change the state
    change the status | update the state | state to | status to | sys_id | sysparm
    short_description | short description field | category field | api | tool call | call the tool
    use the tool | function call | endpoint | database | json | query
    """
)

#: Terms that coach when a suggestion marker is in the same sentence (unless the persona's own text
#: uses them).
COACHING_WEAK_TERMS = _lexicon(
    """
    resolve | resolved | resolution | close | closed | closing | priority | state | status
    escalate | assign | assigned | reassign | assignment | category | subcategory | impact | urgency
    on hold | knowledge article | knowledge base | kb article | sla | policy | field | fields
    record | tool | tools | caller | configuration item
    """
)

#: Imperatives and suggestions (a sentence starting with one of the verbs, or containing a phrase).
SUGGESTION_VERBS = _lexicon(
    """
    set | change | update | assign | reassign | escalate | mark | close | resolve | put | use | call
    add | create | open | log | file | raise | select | choose | pick | search | look up | enter
    fill | move | route | send
    """
)
SUGGESTION_PHRASES = _lexicon(
    """
    you should | you need to | you have to | you must | you could | you can | you might want
    you'll want | make sure | don't forget | remember to | try to | why don't you | why not
    i suggest | i'd suggest | i would suggest | i recommend | please | can you | could you
    would you | just | go ahead and | it needs to be | it should be | needs to be
    """
)

#: Typical words per user turn for each wording register (role swap flags turns over 3x this).
TYPICAL_WORDS = {Register.TERSE: 8, Register.NEUTRAL: 16, Register.WORDY: 26}
ROLE_SWAP_LENGTH_FACTOR = 3

#: A few very common English words (the typo proxy treats them as attested).
_COMMON = """a about after again all also am an and any are as ask asked at back be because been before
    being but by can can't cannot could day did didn't do does doesn't don't done down each else
    email even ever every few fine first fix fixed for from get gets getting give go going good got
    had has hasn't have haven't having he hello help her here hi him his how i i'd i'll i'm i've if
    in into is isn't it it's its just know last let like look made make many may me mine more most
    much must my need needs new no not now of off ok okay on once one only or other our out over
    own please problem really right said same say see seems she should since so some someone still
    sure take tell than thank thanks that that's the their them then there these they thing think
    this those though time to today too try trying two under up us use used very want was wasn't
    way we well were what what's when where which while who why will with won't work working works
    would wrong yes yet you you're your yours"""
COMMON_WORDS = frozenset(_COMMON.split())

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_WORD = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")
_ALPHA_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def _norm(text: str) -> str:
    return text.translate(_APOSTROPHES).lower()


@lru_cache(maxsize=8192)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A marker phrase as a pattern: whitespace-flexible, not inside a word (fidelity and guard)."""
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    start = r"(?<![\w'])" if phrase[:1].isalnum() else ""
    end = r"(?![\w'])" if phrase[-1:].isalnum() else ""
    return re.compile(start + body + end, re.IGNORECASE)


def _markers(text: str, markers: Iterable[str], fuzzy: bool = False) -> list[str]:
    """The markers occurring in ``text`` (normalized apostrophes, phrase boundaries).

    With ``fuzzy``, a marker word of four letters or more also matches a word one typo away
    (:func:`typo_equal`), so a typo in "don't know" does not hide the marker.
    """
    normalized = _norm(text)
    found = [marker for marker in markers if phrase_pattern(marker).search(normalized)]
    if fuzzy:
        tokens = _tokens(normalized)
        found += [m for m in markers if m not in found and _fuzzy_contains(tokens, _tokens(_norm(m)))]
    return found


def _has_marker(text: str, markers: Iterable[str], fuzzy: bool = False) -> bool:
    normalized = _norm(text)
    markers = tuple(markers)
    if any(phrase_pattern(marker).search(normalized) for marker in markers):
        return True
    if not fuzzy:
        return False
    tokens = _tokens(normalized)
    return any(_fuzzy_contains(tokens, _tokens(_norm(marker))) for marker in markers)


_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]")


@lru_cache(maxsize=8192)
def _tokens(normalized: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(normalized))


def typo_equal(marker_word: str, word: str) -> bool:
    """Whether ``word`` is ``marker_word`` or one typo away from it.

    A typo (as the style pass makes them) keeps the first letter and either swaps two neighbouring
    letters, drops one letter or doubles one. Only marker words of four letters or more are
    matched loosely (a dropped letter turns short words into other words: "bye" -> "be").
    """
    if word == marker_word:
        return True
    if len(marker_word) < 4 or not word or word[0] != marker_word[0]:
        return False
    if len(word) == len(marker_word):
        diffs = [i for i, (a, b) in enumerate(zip(word, marker_word, strict=True)) if a != b]
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and word[diffs[0]] == marker_word[diffs[1]]
            and word[diffs[1]] == marker_word[diffs[0]]
        )
    if len(word) == len(marker_word) - 1:
        return any(marker_word[:i] + marker_word[i + 1 :] == word for i in range(1, len(marker_word)))
    if len(word) == len(marker_word) + 1:
        return any(
            word[:i] + word[i + 1 :] == marker_word and word[i] == word[i - 1] for i in range(1, len(word))
        )
    return False


def _fuzzy_contains(tokens: Sequence[str], marker: Sequence[str]) -> bool:
    if not marker:
        return False
    for start in range(len(tokens) - len(marker) + 1):
        if all(typo_equal(m, t) for m, t in zip(marker, tokens[start : start + len(marker)], strict=True)):
            return True
    return False


def value_occurs(value: str, text: str) -> bool:
    """Whether ``value`` occurs in ``text``: case-insensitive, with token boundaries.

    Args:
        value: The value (a fact value, a canary).
        text: The text searched.

    Returns:
        True when the value appears not preceded or followed by a letter or digit.
    """
    pattern = value_pattern(value.strip())
    return bool(pattern and pattern.search(text))


def _asked_keys(persona: Persona, text: str, act: AgentAct) -> set[str | None]:
    """The items an agent message asks for, as the rule user's parser reads it (a real request)."""
    return {parsed.key for parsed in parse_agent_message(persona, text) if parsed.act is act}


def _asked(patterns: Iterable[str], text: str) -> bool:
    return any(re.search(pattern, text, re.IGNORECASE) for pattern in patterns)


def words(text: str) -> list[str]:
    """The words of a text (letters and digits, inner apostrophes and hyphens kept)."""
    return _WORD.findall(text)


_CLAUSE_BREAKS = re.compile(r"(?<=[.!?;:])\s+|\n+")


def _sentences(text: str) -> list[str]:
    return list(pieces(text, _CLAUSE_BREAKS))


def _echo(value: str, agent_before: Iterable[str]) -> bool:
    return any(value_occurs(value, text) for text in agent_before)


# --------------------------------------------------------------------------------------------
# Disclosure metrics
# --------------------------------------------------------------------------------------------


def _disclosure_problem(persona: Persona, fact: Fact, turn: int, agent_before: list[str]) -> str | None:
    """Why telling ``fact`` at ``turn`` is not allowed, or None.

    An ``on_ask`` fact is asked for only by a request act, as the rule user's parser reads it:
    naming it is not asking ("Let me check your email address on file" asks nothing).
    """
    if fact.disclosure is Disclosure.NEVER:
        return "never"
    if turn < fact.min_turn:
        return f"before min_turn {fact.min_turn}"
    if fact.disclosure is Disclosure.ON_ASK and not any(
        fact.key in _asked_keys(persona, text, AgentAct.ASK_FACT) for text in agent_before
    ):
        mentioned = any(_asked(fact.asked_by, text) for text in agent_before)
        return "mentioned, not asked" if mentioned else "not asked"
    return None


def leak_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every (user turn, fact) pair counted by :func:`leak_rate`, with the reason."""
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        for turn, _prior, text, agent_before in transcript.exchanges():
            for fact in transcript.persona.facts:
                if not value_occurs(fact.value, text) or _echo(fact.value, agent_before):
                    continue
                problem = _disclosure_problem(transcript.persona, fact, turn, agent_before)
                if problem:
                    found.append(Finding("leak", _label(transcript, index), turn, f"{fact.key}: {problem}"))
    return found


def leak_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Leak rate: user turns that tell a fact they may not tell yet, over user turns.

    A user turn *leaks* when it contains the value of some fact (case-insensitive, token
    boundaries, not an echo of an earlier agent message) and, at that turn, the fact may not be
    told: its disclosure is ``never``; or it is ``on_ask`` and no agent message before the turn
    matches its ``asked_by`` patterns; or the turn index is below its ``min_turn``. Opening
    facts may be told from their ``min_turn`` on. The ratio is leaking user turns over all user
    turns (a turn leaking several facts counts once).
    """
    total = Ratio()
    for transcript in _many(transcripts):
        leaking = {finding.turn for finding in leak_findings(transcript)}
        total += Ratio(len(leaking), len(transcript.user_texts()))
    return total


def canary_findings(
    transcripts: Transcript | Iterable[Transcript], canaries: Iterable[str] | Mapping[str, Iterable[str]]
) -> list[Finding]:
    """Every (user turn, canary) pair counted by :func:`canary_hits`."""
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        values = _canaries_for(canaries, transcript, index)
        for turn, _prior, text, agent_before in transcript.exchanges():
            for value in values:
                if value_occurs(value, text) and not _echo(value, agent_before):
                    found.append(Finding("canary", _label(transcript, index), turn, value))
    return found


def _canaries_for(
    canaries: Iterable[str] | Mapping[str, Iterable[str]], transcript: Transcript, index: int
) -> list[str]:
    if isinstance(canaries, Mapping):
        chosen = canaries.get(transcript.label, canaries.get(_label(transcript, index), ()))
        return [str(value) for value in chosen if str(value).strip()]
    return [str(value) for value in canaries if str(value).strip()]


def canary_hits(
    transcripts: Transcript | Iterable[Transcript], canaries: Iterable[str] | Mapping[str, Iterable[str]]
) -> Ratio:
    """Canary hits: user turns containing a registered hidden value, over user turns.

    Canaries are values the simulator must never see or say: solution sys_ids, KB article numbers,
    the expected field values of the verifier. ``canaries`` is a list applied to every transcript,
    or a mapping from transcript label to its list. A user turn *hits* when it contains a canary
    (case-insensitive, token boundaries) that no earlier agent message contains. The number of
    hits is ``hits`` of the ratio; each (turn, canary) pair is listed by :func:`canary_findings`.
    """
    total = Ratio()
    for index, transcript in enumerate(_many(transcripts)):
        selected = _canaries_for(canaries, transcript, index)
        hit_turns = {finding.turn for finding in canary_findings([transcript], selected)}
        total += Ratio(len(hit_turns), len(transcript.user_texts()))
    return total


def _first_tellings(transcript: Transcript) -> dict[str, tuple[int, list[str]]]:
    """For each fact told (not as an echo): the first user turn telling it and the agent texts before."""
    first: dict[str, tuple[int, list[str]]] = {}
    for turn, _prior, text, agent_before in transcript.exchanges():
        for fact in transcript.persona.facts:
            if fact.key in first or not value_occurs(fact.value, text) or _echo(fact.value, agent_before):
                continue
            first[fact.key] = (turn, agent_before)
    return first


def premature_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every fact counted by :func:`premature_disclosure`, with its first turn and reason."""
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        for key, (turn, agent_before) in _first_tellings(transcript).items():
            fact = transcript.persona.fact(key)
            if fact is None or fact.disclosure is Disclosure.NEVER:
                continue
            problem = _disclosure_problem(transcript.persona, fact, turn, agent_before)
            if problem:
                found.append(Finding("premature", _label(transcript, index), turn, f"{key}: {problem}"))
    return found


def premature_disclosure(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Premature disclosure: facts first told too early, over facts told.

    For each fact with disclosure ``opening`` or ``on_ask`` whose value occurs in some user turn
    (not as an echo), take the first such turn. The fact is *premature* when that turn is below
    its ``min_turn``, or it is ``on_ask`` and no agent message before that turn asked for it.
    The ratio is premature facts over facts told (``never`` facts are leaks, not counted here).
    """
    total = Ratio()
    for transcript in _many(transcripts):
        told = [
            key
            for key in _first_tellings(transcript)
            if (fact := transcript.persona.fact(key)) is not None and fact.disclosure is not Disclosure.NEVER
        ]
        total += Ratio(len(premature_findings(transcript)), len(told))
    return total


def front_loading(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Front-loading: identifiers given in the first user turn, over identifiers given.

    Identifiers are the persona's facts of kind ``identifier``. An identifier is *given* when its
    value occurs in some user turn (not as an echo); it is *front-loaded* when it occurs in user
    turn 0 (the opening).
    """
    total = Ratio()
    for transcript in _many(transcripts):
        first = _first_tellings(transcript)
        given = [
            key
            for key in first
            if (fact := transcript.persona.fact(key)) is not None and fact.kind is FactKind.IDENTIFIER
        ]
        total += Ratio(sum(1 for key in given if first[key][0] == 0), len(given))
    return total


# --------------------------------------------------------------------------------------------
# Register metrics: coaching, role swap
# --------------------------------------------------------------------------------------------

_BRACES = re.compile(r"[{}]|```|\"\s*:\s*[\"{\[\d]|\b[a-z]+_[a-z_]+\s*\(|<\s*/?\s*tool", re.IGNORECASE)


def persona_text(persona: Persona) -> str:
    """Everything the persona's author wrote that the user may say (its own vocabulary)."""
    parts = [persona.name, persona.goal, persona.opening]
    for fact in persona.facts:
        parts += [fact.value, fact.phrasing or ""]
    for item in [*persona.unknowns, *persona.refusals]:
        parts.append(item.reply or "")
    for step in persona.steps:
        parts += [step.when_true, step.when_false]
    return _norm("\n".join(parts))


_SUGGESTION_VERB = re.compile("|".join(rf"{re.escape(verb)}\b" for verb in SUGGESTION_VERBS))


def _suggestion(sentence: str) -> bool:
    normalized = _norm(sentence).lstrip(" \"'(-*")
    normalized = re.sub(r"^(?:ok(?:ay)?|so|and|then|also|now|pls|please|just)[,\s]+", "", normalized)
    if _SUGGESTION_VERB.match(normalized):
        return True
    return _has_marker(sentence, SUGGESTION_PHRASES)


def coaching_reasons(text: str, persona: Persona) -> list[str]:
    """Why a user turn coaches the agent (empty when it does not); see :func:`coaching_rate`."""
    own = persona_text(persona)
    reasons: list[str] = []
    if _BRACES.search(text):
        reasons.append("tool syntax")
    for term in _markers(text, COACHING_STRONG_TERMS):
        if not phrase_pattern(term).search(own):
            reasons.append(term)
    for sentence in _sentences(text):
        if not _suggestion(sentence):
            continue
        for term in _markers(sentence, COACHING_WEAK_TERMS):
            if not phrase_pattern(term).search(own) and not any(term in found for found in reasons):
                reasons.append(term)
    return reasons


def coaching_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every user turn counted by :func:`coaching_rate`, with the terms found."""
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        for turn, _prior, text, _agent in transcript.exchanges():
            reasons = coaching_reasons(text, transcript.persona)
            if reasons:
                found.append(Finding("coaching", _label(transcript, index), turn, ", ".join(reasons)))
    return found


def coaching_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Coaching rate: user turns that tell the agent how to do its job, over user turns.

    A user turn *coaches* when (a) it contains tool syntax (a brace, a code fence, a JSON
    ``"key": value`` pair, a ``snake_case(`` call or a ``<tool`` tag); or (b) it contains a
    :data:`COACHING_STRONG_TERMS` term ("close code", "assignment group", "work note", "ticket
    field", "set the state", "json", ...); or (c) one of its sentences is a suggestion (it starts
    with a :data:`SUGGESTION_VERBS` verb, after an optional "ok/so/please/just", or contains a
    :data:`SUGGESTION_PHRASES` phrase such as "you should" or "can you") and mentions a
    :data:`COACHING_WEAK_TERMS` term ("resolve", "priority", "state", "escalate", "category",
    ...). Terms in (b) and (c) do not count when the persona's own text (name, goal, opening,
    fact values and phrasings, unknown and refusal replies, step reports) contains them.
    """
    total = Ratio()
    for transcript in _many(transcripts):
        coaching = {finding.turn for finding in coaching_findings(transcript)}
        total += Ratio(len(coaching), len(transcript.user_texts()))
    return total


def _opening_words(persona: Persona) -> int:
    filled = persona.opening
    for fact in persona.facts:
        filled = re.sub(r"\{\{\s*" + re.escape(fact.key) + r"\s*\}\}", fact.value, filled)
    return len(words(filled))


def role_swap_limit(persona: Persona, turn: int) -> int:
    """The most words a user turn may have before it counts as agent-like (see :func:`role_swap_rate`)."""
    typical = TYPICAL_WORDS[persona.style.wording]
    if turn == 0:
        typical = max(typical, _opening_words(persona))
    return ROLE_SWAP_LENGTH_FACTOR * typical


def role_swap_reasons(text: str, persona: Persona, turn: int) -> list[str]:
    """Why a user turn reads like the agent (empty when it does not); see :func:`role_swap_rate`."""
    reasons = [f"phrase {marker!r}" for marker in _markers(text, AGENT_PHRASES)]
    lines = text.splitlines()
    if sum(1 for line in lines if re.match(r"\s*\d+[.)]\s", line)) >= 2:
        reasons.append("numbered list")
    if sum(1 for line in lines if re.match(r"\s*[-*\u2022]\s", line)) >= 2:
        reasons.append("bulleted list")
    if any(re.match(r"\s*#{1,6}\s", line) for line in lines) or re.search(r"\*\*[^*\n]+\*\*", text):
        reasons.append("markdown")
    if _BRACES.search(text):
        reasons.append("tool syntax")
    # The persona's own facts (a change's plans, say) are the user's to tell at length: their
    # values do not count, and each fact told allows the words of its authored phrasing.
    said, allowance = text, 0
    for fact in persona.facts:
        pattern = value_pattern(fact.value)
        if pattern is not None:
            said, told = pattern.subn(" ", said)
            if told:
                allowance += len(words((fact.phrasing or "").replace("{value}", " ")))
    count = len(_without_words_of(words(said), words(persona.goal)))
    limit = role_swap_limit(persona, turn) + allowance
    if count > limit:
        reasons.append(f"{count} words > {limit}")
    return reasons


def _without_words_of(text_words: list[str], own: list[str]) -> list[str]:
    """What the user says beyond its own authored text.

    ``text_words`` without the words of ``own`` (case-insensitive, one typo allowed as the style
    pass makes them).
    """
    vocabulary = {word.casefold() for word in own}
    known: dict[str, bool] = {}  # each distinct word is judged once

    def own_word(word: str) -> bool:
        folded = word.casefold()
        if folded not in known:
            known[folded] = folded in vocabulary or any(typo_equal(v, folded) for v in vocabulary)
        return known[folded]

    return [word for word in text_words if not own_word(word)]


def role_swap_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every user turn counted by :func:`role_swap_rate`, with the reasons."""
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        for turn, _prior, text, _agent in transcript.exchanges():
            reasons = role_swap_reasons(text, transcript.persona, turn)
            if reasons:
                found.append(Finding("role_swap", _label(transcript, index), turn, "; ".join(reasons)))
    return found


def role_swap_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Role-swap rate: user turns that read like the agent, over user turns.

    A user turn is *agent-like* when it contains an :data:`AGENT_PHRASES` phrase ("how can I
    help", "I have created", "let me check", "is there anything else", ...), two or more numbered
    lines (``1.``/``1)``) or bulleted lines, a markdown header or ``**bold**``, tool syntax (as
    for coaching), or more words than :data:`ROLE_SWAP_LENGTH_FACTOR` (3) times the typical
    length of the persona's register (:data:`TYPICAL_WORDS`: terse 8, neutral 16, wordy 26;
    for the opening, the persona's own opening, filled, when it is longer). Words of the
    persona's fact values and its goal, restated, do not count toward the length, and each fact
    told adds the words of its authored ``phrasing`` to the limit: telling a long fact or
    restating one's own goal is not talking like the agent.
    """
    total = Ratio()
    for transcript in _many(transcripts):
        swapped = {finding.turn for finding in role_swap_findings(transcript)}
        total += Ratio(len(swapped), len(transcript.user_texts()))
    return total


# --------------------------------------------------------------------------------------------
# Behaviour under questions: unknowns, refusals, repeats, false stops
# --------------------------------------------------------------------------------------------


def _value_like_spans(text: str, allowed: Iterable[str]) -> list[str]:
    allowed_text = _norm(" ".join(allowed))
    spans = []
    for token in value_tokens(text):
        span = token.strip(".,;:!?()[]")
        if span and _norm(span) not in allowed_text:
            spans.append(span)
    return spans


def unknown_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every unknown asked and not honestly answered (see :func:`unknown_honesty`)."""
    return _unknown_check(transcripts)[1]


def _left(text: str) -> bool:
    """Whether a reply abandons the conversation (an :data:`ABANDON_MARKERS` phrase)."""
    return _has_marker(text, ABANDON_MARKERS, fuzzy=True)


def _unknown_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        persona = transcript.persona
        allowed_base = [fact.value for fact in persona.facts]
        for turn, prior, text, agent_before in transcript.exchanges():
            if prior is None:
                continue
            asked = _asked_keys(persona, prior, AgentAct.ASK_UNKNOWN)
            for unknown in persona.unknowns:
                if unknown.key not in asked:
                    continue
                said = _has_marker(text, DONT_KNOW_MARKERS, fuzzy=True) or bool(
                    unknown.reply and _norm(unknown.reply) in _norm(text)
                )
                allowed = [*allowed_base, unknown.key.replace("_", " "), unknown.reply or "", *agent_before]
                invented = _value_like_spans(text, allowed)
                if not invented and _left(text):
                    continue
                honest = said and not invented
                total += Ratio(int(honest), 1)
                if not honest:
                    why = "no don't-know marker" if not said else f"value-like {invented}"
                    found.append(Finding("unknown", _label(transcript, index), turn, f"{unknown.key}: {why}"))
    return total, found


def unknown_honesty(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Unknown honesty: asks for an unknown answered with "I don't know", over such asks.

    An agent message *asks for an unknown* when the rule user's parser reads it as a request for
    it (:func:`~enterprise_envs.scenarios.users.acts.parse_agent_message`: a pattern in a sentence
    that asks, not negated, not about the agent; "approved by your manager" asks nothing); the
    answer is the user turn right after it. The answer is *honest* when it contains a
    :data:`DONT_KNOW_MARKERS` phrase (or the unknown's own ``reply``) and no value-like span: a
    whitespace-delimited token containing a digit, or an e-mail address, unless it is part of a
    persona fact value (judged by the leak metrics), of the unknown's key in words or its reply, or
    of an earlier agent message. Each (agent message, unknown) pair counts once, except when the
    answer abandons the conversation (an :data:`ABANDON_MARKERS` phrase) without a value-like span:
    the user left instead of answering.
    """
    return _unknown_check(transcripts)[0]


def _refusal_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        persona = transcript.persona
        secrets = [fact.value for fact in persona.facts if fact.disclosure is Disclosure.NEVER]
        for turn, prior, text, _agent in transcript.exchanges():
            if prior is None:
                continue
            for refusal in persona.refusals:
                if not _asked(refusal.asked_by, prior):
                    continue
                said = _has_marker(text, REFUSAL_MARKERS, fuzzy=True) or bool(
                    refusal.reply and _norm(refusal.reply) in _norm(text)
                )
                told = [value for value in secrets if value_occurs(value, text)]
                if not told and _left(text):
                    continue
                kept = said and not told
                total += Ratio(int(kept), 1)
                if not kept:
                    why = "no refusal marker" if not said else "told a secret"
                    found.append(Finding("refusal", _label(transcript, index), turn, f"{refusal.key}: {why}"))
    return total, found


def refusal_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every refused item asked and not refused (see :func:`refusal_adherence`)."""
    return _refusal_check(transcripts)[1]


def refusal_adherence(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Refusal adherence: asks for a refused item answered with a refusal, over such asks.

    An agent message *asks for a refused item* when it matches the refusal's ``asked_by``
    patterns; the answer is the user turn right after it. It *refuses* when it contains a
    :data:`REFUSAL_MARKERS` phrase (or the refusal's own ``reply``) and no value of a ``never``
    fact. Each (agent message, refusal) pair counts once, except when the answer abandons the
    conversation (an :data:`ABANDON_MARKERS` phrase) without telling a secret.
    """
    return _refusal_check(transcripts)[0]


def _repeat_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        persona = transcript.persona
        given: set[str] = set()
        for turn, prior, text, _agent in transcript.exchanges():
            if prior is not None:
                asked = _asked_keys(persona, prior, AgentAct.ASK_FACT)
                for fact in persona.facts:
                    if fact.key in given and fact.key in asked and not _left(text):
                        ok = _has_marker(text, PUSHBACK_MARKERS, fuzzy=True) or value_occurs(fact.value, text)
                        total += Ratio(int(ok), 1)
                        if not ok:
                            found.append(Finding("repeat", _label(transcript, index), turn, fact.key))
            given |= {fact.key for fact in persona.facts if value_occurs(fact.value, text)}
    return total, found


def repeat_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every repeated question not answered with pushback or the value (see :func:`repeat_pushback`)."""
    return _repeat_check(transcripts)[1]


def repeat_pushback(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Pushback given a repeated question: repeats answered with pushback or the same value, over repeats.

    A *repeat* is an agent message asking for a fact (read by the rule user's parser, as for
    :func:`unknown_honesty`) whose value already occurs in an earlier user turn. It is handled
    when the next user turn contains a :data:`PUSHBACK_MARKERS` phrase ("I already told you",
    "as I said", ...) or the same value again. Each (agent message, fact) pair counts once,
    except when the answer abandons the conversation (an :data:`ABANDON_MARKERS` phrase).
    """
    return _repeat_check(transcripts)[0]


def claims_done(text: str) -> bool:
    """Whether a user message ends the conversation as if the goal were met.

    True when it contains a :data:`SUCCESS_MARKERS` or :data:`FAREWELL_MARKERS` phrase and no
    :data:`DENY_MARKERS` or :data:`ABANDON_MARKERS` phrase.
    """
    if not _has_marker(text, (*SUCCESS_MARKERS, *FAREWELL_MARKERS)):
        return False
    return not _has_marker(text, (*DENY_MARKERS, *ABANDON_MARKERS), fuzzy=True)


def false_stop_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every conversation counted by :func:`false_stop_rate`."""
    return _false_stop_check(transcripts)[1]


def _false_stop_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        if transcript.final_view is None:
            continue
        exchanges = transcript.exchanges()
        if not exchanges:
            continue
        turn, prior, text, _agent = exchanges[-1]
        done = bool(transcript.final_view.get(transcript.persona.done_when, False))
        if len(transcript.turns) == len(exchanges):
            # The simulator's record says whether it ended the conversation satisfied.
            stop = turn > 0 and not done and transcript.turns[-1].terminal is Terminal.DONE
        else:
            after_transfer = prior is not None and _has_marker(prior, TRANSFER_MARKERS)
            stop = turn > 0 and not done and not after_transfer and claims_done(text)
        total += Ratio(int(stop), 1)
        if stop:
            found.append(Finding("false_stop", _label(transcript, index), turn, text[:80]))
    return total, found


def false_stop_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """False-stop rate: conversations ended by a satisfied user whose goal is not met.

    Over the conversations with a ``final_view``: the final view's ``done_when`` key is false or
    missing, and the last user turn (not the opening) ended the conversation as satisfied. With
    turn records, that is the record's ``terminal`` being ``done``; without, the text claims the
    goal is met or says goodbye (:func:`claims_done`: a success or farewell phrase, no deny or
    abandon phrase) and the agent message just before it does not hand the user over
    (:data:`TRANSFER_MARKERS`).
    """
    return _false_stop_check(transcripts)[0]


def guard_hit_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Guard hit rate: recorded user turns whose guard fired, over recorded user turns.

    From the :class:`UserTurn` records only (transcripts without records contribute nothing): a
    turn counts when ``guard_hits`` is non-empty or its backend fell back (``llm->rules``).
    """
    total = Ratio()
    for transcript in _many(transcripts):
        for turn in transcript.turns:
            total += Ratio(int(bool(turn.guard_hits) or "->" in turn.backend), 1)
    return total


def guard_counts(transcripts: Transcript | Iterable[Transcript]) -> tuple[dict[str, int], dict[str, int]]:
    """``(backend -> turns, guard check -> hits)`` over the recorded user turns."""
    backends: Counter[str] = Counter()
    guards: Counter[str] = Counter()
    for transcript in _many(transcripts):
        for turn in transcript.turns:
            backends[turn.backend] += 1
            guards.update(turn.guard_hits)
    return dict(sorted(backends.items())), dict(sorted(guards.items()))


# --------------------------------------------------------------------------------------------
# Behaviour profiles
# --------------------------------------------------------------------------------------------


def _bucket(value: float | None, edges: Sequence[tuple[float, str]], above: str) -> str:
    if value is None:
        return "n/a"
    for edge, name in edges:
        if value < edge:
            return name
    return above


def _rate_bucket(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == 0:
        return "none"
    return _bucket(value, [(0.25, "low"), (0.5, "mid")], "high")


def behaviour_features(transcript: Transcript) -> dict[str, float | None]:
    """The raw (undiscretized) behaviour features of one conversation (see :func:`behaviour_profile`)."""
    texts = transcript.user_texts()
    n = len(texts)
    if n == 0:
        return {}
    claims = Ratio()
    for _turn, prior, text, _agent in transcript.exchanges():
        if prior is not None and _has_marker(prior, AGENT_CLAIM_MARKERS) and "?" not in prior:
            claims += Ratio(int(_has_marker(text, (*DENY_MARKERS, *PUSHBACK_MARKERS), fuzzy=True)), 1)
    return {
        "style.words_per_turn": sum(len(words(text)) for text in texts) / n,
        "style.question_rate": sum("?" in text for text in texts) / n,
        "style.politeness": sum(len(_markers(text, POLITENESS_MARKERS)) for text in texts) / n,
        "information.facts_per_turn": len(_first_tellings(transcript)) / n,
        "information.front_loading": front_loading(transcript).value,
        "clarification.questions_back": sum(_has_marker(text, CLARIFY_MARKERS) for text in texts[1:])
        / max(1, n - 1),
        "error_reaction.deny_rate": claims.value,
        "error_reaction.pushback": repeat_pushback(transcript).value,
    }


def behaviour_profile(transcripts: Transcript | Iterable[Transcript]) -> Counter[str]:
    """The behaviour profile: a multiset of discretized features, one of each per conversation.

    Dimensions and features (``dimension.feature=bucket``):

    - ``style.words_per_turn``: mean words per user turn, bucketed ``<5``, ``5-10``, ``10-20``,
      ``20-40``, ``40+``;
    - ``style.question_rate``: share of user turns containing ``?``;
    - ``style.politeness``: politeness markers per user turn (:data:`POLITENESS_MARKERS`);
    - ``information.facts_per_turn``: distinct facts told (not echoed) per user turn, bucketed
      ``0``, ``<0.5``, ``0.5-1``, ``1+``;
    - ``information.front_loading``: :func:`front_loading` (``none`` 0, ``partial``, ``all`` 1);
    - ``clarification.questions_back``: share of user replies (after the opening) with a
      :data:`CLARIFY_MARKERS` phrase;
    - ``error_reaction.deny_rate``: over agent messages claiming a fix (:data:`AGENT_CLAIM_MARKERS`,
      not a question), the share answered with a deny or pushback phrase;
    - ``error_reaction.pushback``: :func:`repeat_pushback`.

    Shares and rates are bucketed ``none`` (0), ``low`` (<0.25), ``mid`` (<0.5), ``high``;
    a feature with no opportunity is ``n/a``. Several conversations give the sum of their profiles.
    """
    profile: Counter[str] = Counter()
    for transcript in _many(transcripts):
        raw = behaviour_features(transcript)
        if not raw:
            continue
        front = raw["information.front_loading"]
        features = {
            "style.words_per_turn": _bucket(
                raw["style.words_per_turn"], [(5, "<5"), (10, "5-10"), (20, "10-20"), (40, "20-40")], "40+"
            ),
            "style.question_rate": _rate_bucket(raw["style.question_rate"]),
            "style.politeness": _rate_bucket(raw["style.politeness"]),
            "information.facts_per_turn": "0"
            if raw["information.facts_per_turn"] == 0
            else _bucket(raw["information.facts_per_turn"], [(0.5, "<0.5"), (1, "0.5-1")], "1+"),
            "information.front_loading": "n/a"
            if front is None
            else ("none" if front == 0 else "all" if front == 1 else "partial"),
            "clarification.questions_back": _rate_bucket(raw["clarification.questions_back"]),
            "error_reaction.deny_rate": _rate_bucket(raw["error_reaction.deny_rate"]),
            "error_reaction.pushback": _rate_bucket(raw["error_reaction.pushback"]),
        }
        profile.update(f"{name}={bucket}" for name, bucket in features.items())
    return profile


def dice(profile: Mapping[str, int], reference: Mapping[str, int]) -> float:
    """Sørensen-Dice similarity of two profiles (multisets): ``2 |A ∩ B| / (|A| + |B|)``.

    The intersection takes the smaller count of each feature; two empty profiles are identical (1.0).
    """
    size = sum(profile.values()) + sum(reference.values())
    if size == 0:
        return 1.0
    common = sum(min(count, reference.get(key, 0)) for key, count in profile.items())
    return 2 * common / size


def dice_by_dimension(profile: Mapping[str, int], reference: Mapping[str, int]) -> dict[str, float]:
    """:func:`dice` restricted to each dimension (``style``, ``information``, ...)."""
    dimensions = sorted({key.split(".", 1)[0] for key in [*profile, *reference]})
    return {
        dimension: dice(
            {k: v for k, v in profile.items() if k.startswith(dimension + ".")},
            {k: v for k, v in reference.items() if k.startswith(dimension + ".")},
        )
        for dimension in dimensions
    }


# --------------------------------------------------------------------------------------------
# Frustration onset
# --------------------------------------------------------------------------------------------

#: A user losing patience with the conversation (frustration onset, when there is no turn record).
#: Common calm wording ("I already told you", "still not working") is left out: calm users say it
#: too, so a text-read onset may come later than the recorded one.
FRUSTRATION_MARKERS = _lexicon(
    """
    speed this up | taking a while | other work to do | take much longer | meeting soon | sigh
    seriously | come on | unbelievable | ugh | for goodness' sake | for goodness sake | for ages
    taking forever | so hard | running out of patience | need this fixed today | finally | at last
    about time | took ages | once again | read the chat | said this before | i've said this
    same question as before | told you this already | how many times | for the last time
    scroll up | right there | already answered that | i keep telling you | can we focus
    just need this sorted | already explained | why that matters | how is that relevant
    i don't care | just fix it | actually check | look at it properly | are you even
    stop telling me | getting ridiculous | it is still not working | frustrating | frustrated
    annoying | annoyed | fed up
    """
)


def frustration_turns(transcript: Transcript) -> tuple[int | None, int | None]:
    """``(onset, give_up)``: the user turns where the user first lost its calm, and gave up.

    The opening (turn 0) is not a reaction to the agent and is never counted. With a turn record
    for every user turn, the onset is the first turn whose ``mood`` is not calm or that abandons,
    and the give-up the turn whose ``terminal`` is ``abandoned``. Without, the onset is the first
    turn with a :data:`FRUSTRATION_MARKERS` or :data:`ABANDON_MARKERS` phrase (one typo allowed
    per word), and the give-up is the last turn when it has an :data:`ABANDON_MARKERS` phrase
    (giving up ends the conversation). None when it did not happen.
    """
    texts = transcript.user_texts()
    if texts and len(transcript.turns) == len(texts):
        lost = [
            turn.mood is not Mood.CALM or turn.terminal is Terminal.ABANDONED for turn in transcript.turns
        ]
        left = [turn.terminal is Terminal.ABANDONED for turn in transcript.turns]
    else:
        left = [index == len(texts) - 1 and _left(text) for index, text in enumerate(texts)]
        lost = [
            gave_up or _has_marker(text, FRUSTRATION_MARKERS, fuzzy=True)
            for text, gave_up in zip(texts, left, strict=True)
        ]
    onset = next((index for index, flag in enumerate(lost) if index > 0 and flag), None)
    give_up = next((index for index, flag in enumerate(left) if index > 0 and flag), None)
    return onset, give_up


@dataclass(frozen=True)
class Onset:
    """When the users of one persona variant lost their calm (see :func:`frustration_onset`).

    Attributes:
        variant: The persona variant.
        conversations: Its conversations with at least one reply after the opening.
        onsets: The onset turn of each conversation whose user lost its calm, sorted.
        give_ups: The turn of each conversation whose user gave up, sorted.
    """

    variant: str
    conversations: int
    onsets: tuple[int, ...]
    give_ups: tuple[int, ...]

    @property
    def median(self) -> float | None:
        """The median onset turn (None when no user lost its calm)."""
        return statistics.median(self.onsets) if self.onsets else None

    @property
    def spread(self) -> float | None:
        """The interquartile range of the onset turns (None with fewer than two)."""
        if len(self.onsets) < 2:
            return None
        q1, _median, q3 = statistics.quantiles(self.onsets, n=4, method="inclusive")
        return q3 - q1

    @property
    def give_up_median(self) -> float | None:
        """The median turn at which users gave up (None when none did)."""
        return statistics.median(self.give_ups) if self.give_ups else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the median, spread, range and give-up median."""
        return {
            "conversations": self.conversations,
            "frustrated": len(self.onsets),
            "median": self.median,
            "spread": self.spread,
            "range": [self.onsets[0], self.onsets[-1]] if self.onsets else None,
            "gave_up": len(self.give_ups),
            "give_up_median": self.give_up_median,
            "onsets": list(self.onsets),
            "give_ups": list(self.give_ups),
        }


def frustration_onset(transcripts: Transcript | Iterable[Transcript]) -> dict[str, Onset]:
    """Frustration onset by persona variant: when users lost their calm, and gave up.

    Each conversation with a reply after the opening gives :func:`frustration_turns`; they are
    grouped by the persona's ``variant`` (sorted by name). A variant's ``median`` and ``spread``
    (interquartile range) are over the conversations whose user lost its calm; the others count
    in ``conversations`` only (calm to the end).
    """
    grouped: dict[str, tuple[int, list[int], list[int]]] = {}
    for transcript in _many(transcripts):
        if len(transcript.user_texts()) < 2:
            continue
        onset, give_up = frustration_turns(transcript)
        count, onsets, give_ups = grouped.get(transcript.persona.variant, (0, [], []))
        onsets += [] if onset is None else [onset]
        give_ups += [] if give_up is None else [give_up]
        grouped[transcript.persona.variant] = (count + 1, onsets, give_ups)
    return {
        name: Onset(name, count, tuple(sorted(onsets)), tuple(sorted(give_ups)))
        for name, (count, onsets, give_ups) in sorted(grouped.items())
    }


# --------------------------------------------------------------------------------------------
# Population diversity
# --------------------------------------------------------------------------------------------

STYLE_FEATURES = ("words_per_turn", "politeness", "lowercase_rate", "typo_rate")


def _attested_words(transcript: Transcript) -> set[str]:
    vocabulary = set(COMMON_WORDS)
    vocabulary |= set(_ALPHA_WORD.findall(persona_text(transcript.persona)))
    for message in transcript.messages:
        if message.role == "agent":
            vocabulary |= set(_ALPHA_WORD.findall(_norm(message.text)))
    return vocabulary


def _without_values(text: str, values: Iterable[str]) -> str:
    for value in values:
        pattern = value_pattern(value.strip())
        if pattern is not None:
            text = pattern.sub(" ", text)
    return text


def style_features(transcript: Transcript, others: Sequence[Transcript] = ()) -> dict[str, float]:
    """The style features of one conversation, over its user turns.

    - ``words_per_turn``: mean words per user turn;
    - ``politeness``: :data:`POLITENESS_MARKERS` per user turn;
    - ``lowercase_rate``: share of user turns with letters and no uppercase letter (fact values,
      which style never alters, are left out);
    - ``typo_rate`` (a proxy): share of the user's alphabetic words of 3+ letters that are
      unattested: not in :data:`COMMON_WORDS`, the persona's own text, this conversation's agent
      messages, nor any user turn of the ``others`` conversations (a typo is rarely repeated
      elsewhere; a template word is).
    """
    texts = transcript.user_texts()
    n = max(1, len(texts))
    vocabulary = _attested_words(transcript)
    for other in others:
        if other is not transcript:
            for text in other.user_texts():
                vocabulary |= set(_ALPHA_WORD.findall(_norm(text)))
    user_words = [word for text in texts for word in _ALPHA_WORD.findall(_norm(text)) if len(word) >= 3]
    values = [fact.value for fact in transcript.persona.facts]
    bare = [_without_values(text, values) for text in texts]
    lettered = [text for text in bare if re.search(r"[^\W\d_]", text)]
    return {
        "words_per_turn": sum(len(words(text)) for text in texts) / n,
        "politeness": sum(len(_markers(text, POLITENESS_MARKERS)) for text in texts) / n,
        "lowercase_rate": sum(text == text.lower() for text in lettered) / max(1, len(lettered)),
        "typo_rate": sum(word not in vocabulary for word in user_words) / max(1, len(user_words)),
    }


@dataclass(frozen=True)
class Variance:
    """One-way ANOVA mean squares of a feature over conversations grouped by persona variant."""

    within: float | None
    between: float | None

    def to_dict(self) -> dict[str, float | None]:
        """JSON-ready form."""
        return {"within": self.within, "between": self.between}


@dataclass(frozen=True)
class Diversity:
    """How different the conversations of a population are (see :func:`diversity`).

    Attributes:
        conversations: Conversations in the population.
        groups: Conversations per persona variant (:func:`persona_group`), by variant.
        small_groups: Variants with fewer than :data:`MIN_GROUP_SIZE` conversations: reported
            here and left out of ``variance``.
        variance: The ANOVA of each style feature over the other groups.
        distinct_openings, distinct_2, trigram_overlap: See :func:`diversity`.
    """

    conversations: int
    groups: dict[str, int]
    small_groups: tuple[str, ...]
    variance: dict[str, Variance]
    distinct_openings: float | None
    distinct_2: float | None
    trigram_overlap: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "conversations": self.conversations,
            "groups": dict(self.groups),
            "small_groups": list(self.small_groups),
            "variance": {name: value.to_dict() for name, value in self.variance.items()},
            "distinct_openings": self.distinct_openings,
            "distinct_2": self.distinct_2,
            "trigram_overlap": self.trigram_overlap,
        }


#: The fewest conversations a persona variant needs to count in the diversity ANOVA (a group of
#: one has no within-group variance to compare with).
MIN_GROUP_SIZE = 2


def persona_group(transcript: Transcript) -> str:
    """The group a conversation belongs to, for diversity: its persona's ``variant``.

    Variants, not personas: each persona of a scenario suite is drawn once per episode or so, so
    groups of one persona's name would mostly hold a single conversation; variants are what the
    population is meant to make differ.
    """
    return transcript.persona.variant


def _anova(groups: Mapping[str, list[float]]) -> Variance:
    values = [value for group in groups.values() for value in group]
    n, g = len(values), len(groups)
    if n == 0:
        return Variance(None, None)
    grand = sum(values) / n
    means = {key: sum(group) / len(group) for key, group in groups.items()}
    ss_within = sum((value - means[key]) ** 2 for key, group in groups.items() for value in group)
    ss_between = sum(len(group) * (means[key] - grand) ** 2 for key, group in groups.items())
    within = ss_within / (n - g) if n > g else None
    between = ss_between / (g - 1) if g > 1 else None
    return Variance(within, between)


def _ngrams(tokens: Sequence[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]


def _user_tokens(transcript: Transcript) -> list[list[str]]:
    return [[word.lower() for word in words(text)] for text in transcript.user_texts()]


def diversity(transcripts: Iterable[Transcript]) -> Diversity:
    """Population diversity of the user side of a set of conversations.

    - ``variance``: for each :data:`STYLE_FEATURES` feature (:func:`style_features`, the others
      being the rest of the population), conversations are grouped by persona variant
      (:func:`persona_group`) and the one-way ANOVA mean squares are reported:
      ``within = Σ_g Σ_i (x_gi - mean_g)² / (N - G)`` and
      ``between = Σ_g n_g (mean_g - mean)² / (G - 1)`` (None when undefined). A population whose
      variants differ in style has ``between > within``. Groups with fewer than
      :data:`MIN_GROUP_SIZE` conversations are left out and listed in ``small_groups``; every
      group's size is in ``groups``.
    - ``distinct_openings``: distinct first user messages (lowercased, whitespace collapsed) over
      conversations.
    - ``distinct_2``: distinct word bigrams over all bigrams of all user turns (bigrams do not
      cross turns; words lowercased).
    - ``trigram_overlap``: the mean, over pairs of conversations, of the Jaccard index of their
      sets of user word trigrams (pairs where both sets are empty are skipped).
    """
    population = list(transcripts)
    sizes = Counter(persona_group(transcript) for transcript in population)
    small = tuple(sorted(group for group, size in sizes.items() if size < MIN_GROUP_SIZE))
    features = [style_features(transcript, population) for transcript in population]
    variance = {}
    for name in STYLE_FEATURES:
        grouped: dict[str, list[float]] = {}
        for transcript, values in zip(population, features, strict=True):
            if persona_group(transcript) not in small:
                grouped.setdefault(persona_group(transcript), []).append(values[name])
        variance[name] = _anova(grouped)
    openings = [" ".join(texts[0].lower().split()) for t in population if (texts := t.user_texts())]
    bigrams = [gram for t in population for tokens in _user_tokens(t) for gram in _ngrams(tokens, 2)]
    trigram_sets = [{gram for tokens in _user_tokens(t) for gram in _ngrams(tokens, 3)} for t in population]
    overlaps = [len(a & b) / len(a | b) for a, b in itertools.combinations(trigram_sets, 2) if a | b]
    return Diversity(
        conversations=len(population),
        groups=dict(sorted(sizes.items())),
        small_groups=small,
        variance=variance,
        distinct_openings=len(set(openings)) / len(openings) if openings else None,
        distinct_2=len(set(bigrams)) / len(bigrams) if bigrams else None,
        trigram_overlap=sum(overlaps) / len(overlaps) if overlaps else None,
    )


# --------------------------------------------------------------------------------------------
# Memory: corrections, self-contradiction, saying no
# --------------------------------------------------------------------------------------------

#: The user telling the agent it got something wrong (corrections: :func:`missing_corrections`,
#: :func:`false_corrections`). "No" alone is left out: users say it to "is it fixed?" too.
CORRECTION_MARKERS = _lexicon(
    """
    not right | isn't right | not quite | that's wrong | that is wrong | not what i said
    got that wrong | got it wrong | not correct | isn't correct | that's not it | mixed up | mix-up
    """
)


def _replies(transcript: Transcript) -> list[tuple[int, str, str, tuple[Message, ...]]]:
    """Each user reply after the opening: ``(turn, agent text, user text, messages before it)``.

    The agent text is every agent message since the last user message, read as one (as the rule
    user reads them); a reply to no agent message is left out.
    """
    out: list[tuple[int, str, str, tuple[Message, ...]]] = []
    pending: list[str] = []
    turn = 0
    for index, message in enumerate(transcript.messages):
        if message.role == "agent":
            pending.append(message.text)
            continue
        if turn > 0 and pending:
            out.append((turn, "\n".join(pending), message.text, transcript.messages[:index]))
        pending = []
        turn += 1
    return out


def _correction_check(
    transcripts: Transcript | Iterable[Transcript],
) -> tuple[Ratio, Ratio, list[Finding]]:
    missing, false = Ratio(), Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        persona = transcript.persona
        for turn, agent, text, before in _replies(transcript):
            said = restatements(persona, agent)
            if not said or _left(text):
                continue
            wrong = [restated for restated in said if not restated.right]
            if wrong:
                may_tell = disclosable(persona, history(persona, before))
                for restated in wrong:
                    fact = persona.fact(restated.key)
                    if fact is None or restated.key not in may_tell:
                        continue  # a value the user may not tell yet stays unsaid
                    corrected = value_occurs(fact.value, text)
                    missing += Ratio(int(not corrected), 1)
                    if not corrected:
                        detail = f"{restated.key}: {restated.said!r} left standing"
                        found.append(Finding("missing_correction", _label(transcript, index), turn, detail))
                continue  # a correction in this reply answers the wrong value
            for restated in said:
                corrects = _has_marker(text, CORRECTION_MARKERS, fuzzy=True)
                false += Ratio(int(corrects), 1)
                if corrects:
                    detail = f"{restated.key}: {restated.said!r} was right"
                    found.append(Finding("false_correction", _label(transcript, index), turn, detail))
    return missing, false, found


def missing_corrections(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Missing corrections: wrong restatements of the user's facts left standing, over such restatements.

    An agent message *restates a fact wrongly* when the rule user's reader says so
    (:func:`~enterprise_envs.scenarios.users.acts.restatements`: a value-like token of the same
    shape as the fact's value, not its value, put to the user as theirs: "So it started on
    Tuesday, right?"). Only facts the user may tell at that reply count
    (:func:`~enterprise_envs.scenarios.users.rules.disclosable`). It is *corrected* when the next
    user turn contains the fact's value. A reply that abandons is skipped.
    """
    return _correction_check(transcripts)[0]


def false_corrections(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """False corrections: right restatements answered with a correction, over right restatements.

    A *right restatement* is read as for :func:`missing_corrections`, with the fact's own value;
    messages that also restate some fact wrongly are left out (the correction may be for that).
    The reply *corrects* when it contains a :data:`CORRECTION_MARKERS` phrase ("that's not
    right", "not quite", one typo allowed per word).
    """
    return _correction_check(transcripts)[1]


def _says_it_works(persona: Persona, agent: str | None, text: str) -> bool:
    """Whether a user message says the problem works, read by the rule user's own reader.

    :func:`~enterprise_envs.scenarios.users.acts.says_working`, with the steps the agent message
    before it instructed.
    """
    acts = parse_agent_message(persona, agent) if agent is not None else []
    tried = [act.key for act in acts if act.act is AgentAct.INSTRUCT_STEP]
    return says_working(persona, text, tried)


def _contradiction_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        persona = transcript.persona
        works_at: int | None = None
        told: dict[str, int] = {}
        for turn, prior, text, agent_before in transcript.exchanges():
            why = None
            if works_at is not None and says_not_working(persona, text):
                why = f"says it is not working after turn {works_at} said it works"
            for restated in restatements(persona, text, by_user=True):
                echo = any(value_occurs(restated.said, earlier) for earlier in agent_before)
                if why is None and not restated.right and restated.key in told and not echo:
                    why = f"{restated.key}: {restated.said!r}, told otherwise in turn {told[restated.key]}"
            if turn > 0:
                total += Ratio(int(why is not None), 1)
            if why is not None:
                found.append(Finding("self_contradiction", _label(transcript, index), turn, why))
            if works_at is None and _says_it_works(persona, prior, text):
                works_at = turn
            for fact in persona.facts:
                if fact.key not in told and value_occurs(fact.value, text):
                    told[fact.key] = turn
    return total, found


def self_contradiction(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Self-contradiction: user turns that take back what the user said, over user replies.

    A user turn (after the opening) contradicts the user when, after an earlier turn said the
    problem works (a step's ``when_true`` report,
    :func:`~enterprise_envs.scenarios.users.acts.reported_working`, or a :data:`SUCCESS_MARKERS`
    phrase), it says the problem is still there
    (:func:`~enterprise_envs.scenarios.users.acts.says_not_working`: "still not working", a
    step's ``when_false``); or when it gives a fact another value than the one it told earlier
    (read by :func:`~enterprise_envs.scenarios.users.acts.restatements` on the user's words: a
    token of the fact's shape where its clause names the fact), unless an agent message said
    that value first (the user quoting the agent).
    """
    return _contradiction_check(transcripts)[0]


def _say_no_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        view = transcript.final_view
        if view is None or view.get(transcript.persona.done_when, False):
            continue
        for turn, agent, text, _before in _replies(transcript):
            acts = parse_agent_message(transcript.persona, agent)
            checked = any(act.act is AgentAct.CLAIM_RESOLVED and act.key == CHECK for act in acts)
            if not checked or _left(text):
                continue
            said_no = _has_marker(text, DENY_MARKERS, fuzzy=True)
            total += Ratio(int(said_no), 1)
            if not said_no:
                found.append(Finding("say_no", _label(transcript, index), turn, text[:80]))
    return total, found


def say_no_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Saying no: "is it working now?" / "can I close it?" checks answered with a no, over such checks.

    Over the conversations with a ``final_view`` whose ``done_when`` is false: an agent message
    the rule user's reader takes for a check (a ``claim_resolved`` act with key ``check``:
    "Can I close your ticket now?", "Is it working now?") counts, and the next user turn says no
    when it has a :data:`DENY_MARKERS` phrase. A reply that abandons is skipped.
    """
    return _say_no_check(transcripts)[0]


# --------------------------------------------------------------------------------------------
# The report
# --------------------------------------------------------------------------------------------

#: Metrics that must be zero for a simulator that keeps its facts closed and stays in role.
INTEGRITY_METRICS = (
    "leak_rate",
    "canary_hits",
    "premature_disclosure",
    "coaching_rate",
    "role_swap_rate",
    "false_stop_rate",
)


@dataclass
class FidelityReport:
    """All metrics over a set of conversations (see each metric's function for its definition)."""

    conversations: int
    user_turns: int
    leak_rate: Ratio
    canary_hits: Ratio
    premature_disclosure: Ratio
    front_loading: Ratio
    coaching_rate: Ratio
    role_swap_rate: Ratio
    unknown_honesty: Ratio
    refusal_adherence: Ratio
    repeat_pushback: Ratio
    false_stop_rate: Ratio
    guard_hit_rate: Ratio
    missing_corrections: Ratio = Ratio()
    false_corrections: Ratio = Ratio()
    self_contradiction: Ratio = Ratio()
    say_no_rate: Ratio = Ratio()
    backends: dict[str, int] = field(default_factory=dict)
    guard_hits: dict[str, int] = field(default_factory=dict)
    profile: dict[str, int] = field(default_factory=dict)
    profile_dice: float | None = None
    profile_dice_by_dimension: dict[str, float] = field(default_factory=dict)
    diversity: Diversity | None = None
    frustration_onset: dict[str, Onset] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def rates(self) -> dict[str, Ratio]:
        """The rate metrics by name, in report order."""
        names = (
            "leak_rate",
            "canary_hits",
            "premature_disclosure",
            "coaching_rate",
            "role_swap_rate",
            "false_stop_rate",
            "front_loading",
            "unknown_honesty",
            "refusal_adherence",
            "repeat_pushback",
            "missing_corrections",
            "false_corrections",
            "self_contradiction",
            "say_no_rate",
            "guard_hit_rate",
        )
        return {name: getattr(self, name) for name in names}

    def integrity_ok(self) -> bool:
        """Whether every integrity metric (:data:`INTEGRITY_METRICS`) counted nothing."""
        return all(getattr(self, name).hits == 0 for name in INTEGRITY_METRICS)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary (``json.dumps`` works on it as is)."""
        return {
            "conversations": self.conversations,
            "user_turns": self.user_turns,
            "metrics": {name: ratio.to_dict() for name, ratio in self.rates().items()},
            "integrity_ok": self.integrity_ok(),
            "backends": dict(self.backends),
            "guard_hits": dict(self.guard_hits),
            "profile": dict(sorted(self.profile.items())),
            "profile_dice": self.profile_dice,
            "profile_dice_by_dimension": dict(self.profile_dice_by_dimension),
            "diversity": self.diversity.to_dict() if self.diversity else None,
            "frustration_onset": {name: onset.to_dict() for name, onset in self.frustration_onset.items()},
            "findings": [finding.to_dict() for finding in self.findings],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    def to_text(self) -> str:
        """A readable report: a table of the metrics, then profile, diversity and findings."""
        lines = [f"Fidelity over {self.conversations} conversations, {self.user_turns} user turns"]
        rows = [("metric", "value", "count", "flag")]
        for name, ratio in self.rates().items():
            value = "n/a" if ratio.value is None else f"{ratio.value:.3f}"
            flag = "FAIL" if name in INTEGRITY_METRICS and ratio.hits else ""
            rows.append((name, value, f"{ratio.hits}/{ratio.total}", flag))
        lines += _table(rows)
        if self.backends:
            lines.append("backends: " + ", ".join(f"{k}={v}" for k, v in self.backends.items()))
        if self.guard_hits:
            lines.append("guard hits: " + ", ".join(f"{k}={v}" for k, v in self.guard_hits.items()))
        if self.profile:
            lines.append("")
            lines.append("behaviour profile:")
            lines += _table([("feature", "count"), *((k, str(v)) for k, v in sorted(self.profile.items()))])
        if self.profile_dice is not None:
            by_dimension = ", ".join(f"{k} {v:.3f}" for k, v in self.profile_dice_by_dimension.items())
            lines.append(f"Dice vs reference: {self.profile_dice:.3f} ({by_dimension})")
        if self.diversity is not None:
            d = self.diversity
            lines.append("")
            sizes = ", ".join(f"{name} {size}" for name, size in d.groups.items())
            lines.append(
                f"diversity over {d.conversations} conversations, {len(d.groups)} variants ({sizes}):"
            )
            if d.small_groups:
                lines.append(
                    f"left out of the ANOVA (fewer than {MIN_GROUP_SIZE} conversations): "
                    + ", ".join(d.small_groups)
                )
            rows = [("style feature", "within", "between")]
            rows += [(name, _fmt(v.within), _fmt(v.between)) for name, v in d.variance.items()]
            lines += _table(rows)
            lines.append(
                f"distinct openings {_fmt(d.distinct_openings)}, distinct-2 {_fmt(d.distinct_2)}, "
                f"trigram overlap {_fmt(d.trigram_overlap)}"
            )
        if self.frustration_onset:
            lines.append("")
            lines.append("frustration onset by variant (user turn first not calm; gave up):")
            rows = [
                (
                    "variant",
                    "conversations",
                    "frustrated",
                    "median",
                    "IQR",
                    "range",
                    "gave up",
                    "median gave up",
                )
            ]
            for name, onset in self.frustration_onset.items():
                span = f"{onset.onsets[0]}-{onset.onsets[-1]}" if onset.onsets else "n/a"
                rows.append(
                    (
                        name,
                        str(onset.conversations),
                        str(len(onset.onsets)),
                        _fmt(onset.median),
                        _fmt(onset.spread),
                        span,
                        str(len(onset.give_ups)),
                        _fmt(onset.give_up_median),
                    )
                )
            lines += _table(rows)
        if self.findings:
            lines.append("")
            lines.append("findings:")
            lines += _table(
                [("metric", "conversation", "turn", "detail")]
                + [(f.metric, f.transcript, str(f.turn), f.detail) for f in self.findings]
            )
        return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.3f}"


def _table(rows: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = []
    for number, row in enumerate(rows):
        out.append("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
        if number == 0:
            out.append("  ".join("-" * width for width in widths))
    return out


def fidelity_report(
    transcripts: Transcript | Iterable[Transcript],
    canaries: Iterable[str] | Mapping[str, Iterable[str]] = (),
    reference: Mapping[str, int] | Iterable[Transcript] | None = None,
    with_diversity: bool = True,
) -> FidelityReport:
    """Every metric over a set of conversations.

    Args:
        transcripts: The conversations (one or many).
        canaries: Hidden values (solution ids, KB numbers, expected field values) for
            :func:`canary_hits`: one list for all, or a mapping from transcript label to list.
        reference: A reference behaviour profile (or reference conversations, profiled) to compare
            the population's profile with by :func:`dice`.
        with_diversity: Compute :func:`diversity` (needs two or more conversations).

    Returns:
        The report; ``findings`` lists every integrity, unknown, refusal and repeat failure.
    """
    population = _many(transcripts)
    profile = behaviour_profile(population)
    reference_profile: Mapping[str, int] | None = None
    if reference is not None:
        reference_profile = reference if isinstance(reference, Mapping) else behaviour_profile(reference)
    backends, guards = guard_counts(population)
    findings = [
        *leak_findings(population),
        *canary_findings(population, canaries),
        *premature_findings(population),
        *coaching_findings(population),
        *role_swap_findings(population),
        *false_stop_findings(population),
        *unknown_findings(population),
        *refusal_findings(population),
        *repeat_findings(population),
        *_correction_check(population)[2],
        *_contradiction_check(population)[1],
        *_say_no_check(population)[1],
    ]
    return FidelityReport(
        conversations=len(population),
        user_turns=sum(len(t.user_texts()) for t in population),
        leak_rate=leak_rate(population),
        canary_hits=canary_hits(population, canaries),
        premature_disclosure=premature_disclosure(population),
        front_loading=front_loading(population),
        coaching_rate=coaching_rate(population),
        role_swap_rate=role_swap_rate(population),
        unknown_honesty=unknown_honesty(population),
        refusal_adherence=refusal_adherence(population),
        repeat_pushback=repeat_pushback(population),
        false_stop_rate=false_stop_rate(population),
        guard_hit_rate=guard_hit_rate(population),
        missing_corrections=missing_corrections(population),
        false_corrections=false_corrections(population),
        self_contradiction=self_contradiction(population),
        say_no_rate=say_no_rate(population),
        backends=backends,
        guard_hits=guards,
        profile=dict(profile),
        profile_dice=dice(profile, reference_profile) if reference_profile is not None else None,
        profile_dice_by_dimension=dice_by_dimension(profile, reference_profile) if reference_profile else {},
        diversity=diversity(population) if with_diversity and len(population) >= 2 else None,
        frustration_onset=frustration_onset(population),
        findings=findings,
    )
