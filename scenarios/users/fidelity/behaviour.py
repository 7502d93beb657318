"""Behaviour metrics: how a simulated user answers, remembers and reacts (not pass/fail gates).

Information (:func:`front_loading`), questions (:func:`unknown_honesty`,
:func:`refusal_adherence`, :func:`repeat_pushback`), memory (:func:`missing_corrections`,
:func:`false_corrections`, :func:`self_contradiction`, :func:`say_no_rate`) and the backend
(:func:`guard_hit_rate`, read from the turn records only).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from enterprise_envs.scenarios.users.acts import (
    CHECK,
    history,
    parse_agent_message,
    restatements,
    says_not_working,
    says_working,
)
from enterprise_envs.scenarios.users.fidelity.integrity import _first_tellings
from enterprise_envs.scenarios.users.fidelity.lexicon import (
    CORRECTION_MARKERS,
    DENY_MARKERS,
    DONT_KNOW_MARKERS,
    PUSHBACK_MARKERS,
    REFUSAL_MARKERS,
    _has_marker,
    _left,
    _norm,
    value_occurs,
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
from enterprise_envs.scenarios.users.persona import Disclosure, FactKind, Persona
from enterprise_envs.scenarios.users.rules import disclosable
from enterprise_envs.scenarios.users.turns import AgentAct, Message
from enterprise_envs.verifiers.text import value_tokens


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


# --------------------------------------------------------------------------------------------
# Questions: unknowns, refusals, repeats
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


# --------------------------------------------------------------------------------------------
# Memory: corrections, self-contradiction, saying no
# --------------------------------------------------------------------------------------------


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


def _missing_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    missing, _false, found = _correction_check(transcripts)
    return missing, [finding for finding in found if finding.metric == "missing_correction"]


def _false_check(transcripts: Transcript | Iterable[Transcript]) -> tuple[Ratio, list[Finding]]:
    _missing, false, found = _correction_check(transcripts)
    return false, [finding for finding in found if finding.metric == "false_correction"]


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


# --------------------------------------------------------------------------------------------
# The backend: guard hits (turn records only)
# --------------------------------------------------------------------------------------------


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
