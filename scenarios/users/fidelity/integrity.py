"""Integrity metrics: a simulator that keeps its facts closed and stays in role scores zero on each.

Disclosure (:func:`leak_rate`, :func:`canary_hits`, :func:`premature_disclosure`), register
(:func:`coaching_rate`, :func:`role_swap_rate`) and ending (:func:`false_stop_rate`). Each metric
is a ``_*_check`` giving its :class:`Ratio` and findings at once; the public ``<name>`` and
``<name>_findings`` functions read one half of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping

from enterprise_envs.scenarios.users.fidelity.lexicon import (
    ABANDON_MARKERS,
    COACHING_WEAK_TERMS,
    DENY_MARKERS,
    FAREWELL_MARKERS,
    SUCCESS_MARKERS,
    SUGGESTION_PHRASES,
    SUGGESTION_VERBS,
    TRANSFER_MARKERS,
    _echo,
    _has_marker,
    _markers,
    _norm,
    _sentences,
    agent_phrases,
    coaching_strong_terms,
    phrase_pattern,
    typo_equal,
    value_occurs,
    words,
)
from enterprise_envs.scenarios.users.fidelity.transcript import (
    Finding,
    Ratio,
    Transcript,
    _asked,
    _asked_keys,
    _label,
    _many,
)
from enterprise_envs.scenarios.users.persona import Disclosure, Fact, Persona, Register
from enterprise_envs.scenarios.users.turns import AgentAct, Terminal
from enterprise_envs.verifiers.text import value_pattern

#: What a canary check takes: one list of hidden values for all, or one list per transcript label.
Canaries = Iterable[str] | Mapping[str, Iterable[str]]

#: Typical words per user turn for each wording register (role swap flags turns over 3x this).
TYPICAL_WORDS = {Register.TERSE: 8, Register.NEUTRAL: 16, Register.WORDY: 26}
ROLE_SWAP_LENGTH_FACTOR = 3


# --------------------------------------------------------------------------------------------
# Disclosure: leaks, canaries, premature tellings
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


def _turn_check(
    transcripts: Transcript | Iterable[Transcript], find: Callable[[Transcript, int], list[Finding]]
) -> tuple[Ratio, list[Finding]]:
    """A per-turn metric: user turns with a finding over user turns, and the findings.

    ``find`` gives one transcript's findings from the transcript and its index in the population
    (which names it when it has no label); a turn with several findings counts once.
    """
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        hits = find(transcript, index)
        total += Ratio(len({finding.turn for finding in hits}), len(transcript.user_texts()))
        found += hits
    return total, found


def _leaks(transcript: Transcript, index: int) -> list[Finding]:
    found: list[Finding] = []
    for turn, _prior, text, agent_before in transcript.exchanges():
        for fact in transcript.persona.facts:
            if not value_occurs(fact.value, text) or _echo(fact.value, agent_before):
                continue
            problem = _disclosure_problem(transcript.persona, fact, turn, agent_before)
            if problem:
                found.append(Finding("leak", _label(transcript, index), turn, f"{fact.key}: {problem}"))
    return found


def _leak_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    return _turn_check(transcripts, _leaks)


def leak_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every (user turn, fact) pair counted by :func:`leak_rate`, with the reason."""
    return _leak_check(transcripts)[1]


def leak_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Leak rate: user turns that tell a fact they may not tell yet, over user turns.

    A user turn *leaks* when it contains the value of some fact (case-insensitive, token
    boundaries, not an echo of an earlier agent message) and, at that turn, the fact may not be
    told: its disclosure is ``never``; or it is ``on_ask`` and no agent message before the turn
    matches its ``asked_by`` patterns; or the turn index is below its ``min_turn``. Opening
    facts may be told from their ``min_turn`` on. The ratio is leaking user turns over all user
    turns (a turn leaking several facts counts once).
    """
    return _leak_check(transcripts)[0]


def _canaries_for(canaries: Canaries, transcript: Transcript, index: int) -> list[str]:
    if isinstance(canaries, Mapping):
        chosen = canaries.get(transcript.label, canaries.get(_label(transcript, index), ()))
        return [str(value) for value in chosen if str(value).strip()]
    return [str(value) for value in canaries if str(value).strip()]


def _canary_check(
    transcripts: Transcript | Iterable[Transcript], canaries: Canaries
) -> tuple[Ratio, list[Finding]]:
    def hits(transcript: Transcript, index: int) -> list[Finding]:
        values = _canaries_for(canaries, transcript, index)
        return [
            Finding("canary", _label(transcript, index), turn, value)
            for turn, _prior, text, agent_before in transcript.exchanges()
            for value in values
            if value_occurs(value, text) and not _echo(value, agent_before)
        ]

    return _turn_check(transcripts, hits)


def canary_findings(transcripts: Transcript | Iterable[Transcript], canaries: Canaries) -> list[Finding]:
    """Every (user turn, canary) pair counted by :func:`canary_hits`."""
    return _canary_check(transcripts, canaries)[1]


def canary_hits(transcripts: Transcript | Iterable[Transcript], canaries: Canaries) -> Ratio:
    """Canary hits: user turns containing a registered hidden value, over user turns.

    Canaries are values the simulator must never see or say: solution record keys, KB article numbers,
    the expected field values of the verifier. ``canaries`` is a list applied to every transcript,
    or a mapping from transcript label to its list. A user turn *hits* when it contains a canary
    (case-insensitive, token boundaries) that no earlier agent message contains. The number of
    hits is ``hits`` of the ratio; each (turn, canary) pair is listed by :func:`canary_findings`.
    """
    return _canary_check(transcripts, canaries)[0]


def _first_tellings(transcript: Transcript) -> dict[str, tuple[int, list[str]]]:
    """For each fact told (not as an echo): the first user turn telling it and the agent texts before."""
    first: dict[str, tuple[int, list[str]]] = {}
    for turn, _prior, text, agent_before in transcript.exchanges():
        for fact in transcript.persona.facts:
            if fact.key in first or not value_occurs(fact.value, text) or _echo(fact.value, agent_before):
                continue
            first[fact.key] = (turn, agent_before)
    return first


def _premature_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    total = Ratio()
    found: list[Finding] = []
    for index, transcript in enumerate(_many(transcripts)):
        told = 0  # facts told, ``never`` facts left out (they are leaks)
        early: list[Finding] = []
        for key, (turn, agent_before) in _first_tellings(transcript).items():
            fact = transcript.persona.fact(key)
            if fact is None or fact.disclosure is Disclosure.NEVER:
                continue
            told += 1
            problem = _disclosure_problem(transcript.persona, fact, turn, agent_before)
            if problem:
                early.append(Finding("premature", _label(transcript, index), turn, f"{key}: {problem}"))
        total += Ratio(len(early), told)
        found += early
    return total, found


def premature_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every fact counted by :func:`premature_disclosure`, with its first turn and reason."""
    return _premature_check(transcripts)[1]


def premature_disclosure(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Premature disclosure: facts first told too early, over facts told.

    For each fact with disclosure ``opening`` or ``on_ask`` whose value occurs in some user turn
    (not as an echo), take the first such turn. The fact is *premature* when that turn is below
    its ``min_turn``, or it is ``on_ask`` and no agent message before that turn asked for it.
    The ratio is premature facts over facts told (``never`` facts are leaks, not counted here).
    """
    return _premature_check(transcripts)[0]


# --------------------------------------------------------------------------------------------
# Register: coaching, role swap
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
    for term in _markers(text, coaching_strong_terms(persona.vocabulary)):
        if not phrase_pattern(term).search(own):
            reasons.append(term)
    for sentence in _sentences(text):
        if not _suggestion(sentence):
            continue
        for term in _markers(sentence, COACHING_WEAK_TERMS):
            if not phrase_pattern(term).search(own) and not any(term in found for found in reasons):
                reasons.append(term)
    return reasons


def _turn_reasons(
    kind: str, reasons_of: Callable[[str, Persona, int], list[str]], separator: str
) -> Callable[[Transcript, int], list[Finding]]:
    """A finder for :func:`_turn_check`: one ``kind`` finding per user turn ``reasons_of`` objects to."""

    def find(transcript: Transcript, index: int) -> list[Finding]:
        found: list[Finding] = []
        for turn, _prior, text, _agent in transcript.exchanges():
            reasons = reasons_of(text, transcript.persona, turn)
            if reasons:
                found.append(Finding(kind, _label(transcript, index), turn, separator.join(reasons)))
        return found

    return find


def _coaching_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    coaching = _turn_reasons("coaching", lambda text, persona, _turn: coaching_reasons(text, persona), ", ")
    return _turn_check(transcripts, coaching)


def coaching_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every user turn counted by :func:`coaching_rate`, with the terms found."""
    return _coaching_check(transcripts)[1]


def coaching_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Coaching rate: user turns that tell the agent how to do its job, over user turns.

    A user turn *coaches* when (a) it contains tool syntax (a brace, a code fence, a JSON
    ``"key": value`` pair, a ``snake_case(`` call or a ``<tool`` tag); or (b) it contains a
    :data:`COACHING_STRONG_TERMS` term ("resolution code", "ticket field", "set the state",
    "json", ...) or a term of the persona's systems (their vocabulary's ``terms``: field names,
    query syntax); or (c) one of its sentences is a suggestion (it starts
    with a :data:`SUGGESTION_VERBS` verb, after an optional "ok/so/please/just", or contains a
    :data:`SUGGESTION_PHRASES` phrase such as "you should" or "can you") and mentions a
    :data:`COACHING_WEAK_TERMS` term ("resolve", "priority", "state", "escalate", "category",
    ...). Terms in (b) and (c) do not count when the persona's own text (name, goal, opening,
    fact values and phrasings, unknown and refusal replies, step reports) contains them.
    """
    return _coaching_check(transcripts)[0]


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
    reasons = [f"phrase {marker!r}" for marker in _markers(text, agent_phrases(persona.vocabulary))]
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


def _role_swap_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    return _turn_check(transcripts, _turn_reasons("role_swap", role_swap_reasons, "; "))


def role_swap_findings(transcripts: Transcript | Iterable[Transcript]) -> list[Finding]:
    """Every user turn counted by :func:`role_swap_rate`, with the reasons."""
    return _role_swap_check(transcripts)[1]


def role_swap_rate(transcripts: Transcript | Iterable[Transcript]) -> Ratio:
    """Role-swap rate: user turns that read like the agent, over user turns.

    A user turn is *agent-like* when it contains an :data:`AGENT_PHRASES` phrase ("how can I
    help", "I have created", "let me check", "is there anything else", ...) or "your <record>
    number is" for a word the persona's systems use for a record (:func:`agent_phrases`), two or more numbered
    lines (``1.``/``1)``) or bulleted lines, a markdown header or ``**bold**``, tool syntax (as
    for coaching), or more words than :data:`ROLE_SWAP_LENGTH_FACTOR` (3) times the typical
    length of the persona's register (:data:`TYPICAL_WORDS`: terse 8, neutral 16, wordy 26;
    for the opening, the persona's own opening, filled, when it is longer). Words of the
    persona's fact values and its goal, restated, do not count toward the length, and each fact
    told adds the words of its authored ``phrasing`` to the limit: telling a long fact or
    restating one's own goal is not talking like the agent.
    """
    return _role_swap_check(transcripts)[0]


# --------------------------------------------------------------------------------------------
# Ending: false stops
# --------------------------------------------------------------------------------------------


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
