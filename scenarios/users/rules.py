"""The rule user: the default simulated user, a pure function of (persona, seed, transcript, view).

No LLM, no clock, no ``hash()``: every random choice comes from ``random.Random`` seeded with a
string ``f"{seed}:{turn}:{purpose}"``, so the same inputs give the same :class:`UserTurn` byte for
byte in any process, whatever ``PYTHONHASHSEED`` is. The UserView is read for two things only:
``view[persona.done_when]`` and the ``view`` key of a step the agent told the user to try (a
missing key reads as false).

With no user message yet, the reply is the opening: the persona's opening text with ``{{key}}``
filled for facts disclosed at opening (identifiers only with ``style.identifiers_in_opening``; a
sentence holding an identifier the user may not give yet is dropped). Afterwards the reply answers
the agent message(s) since the last user message by a fixed priority (:func:`decide`):

1. REFUSE: a secret is asked for (a refusal's patterns, or a ``never`` fact); spends each
   refusal's ``patience_cost`` (1 for a ``never`` fact).
   CORRECT: the agent says a fact of the user's back with a wrong value ("So it started on
   Tuesday, right?", :func:`~enterprise_envs.scenarios.users.acts.restatements`); the user says
   it is wrong and tells the fact (only a fact it may tell now, :func:`disclosable`, at most
   ``style.answers_per_turn``); spends ``patience.repeated_question`` when the user had already
   told or confirmed it.
2. DONT_KNOW: an unknown is asked for.
3. PUSH_BACK: a fact the user already gave in an earlier turn is asked for again; the user says so
   and restates the value; spends ``patience.repeated_question``.
4. INFORM: facts asked for that the user may tell now (not ``never``, ``min_turn`` reached), at
   most ``style.answers_per_turn``; facts whose ``min_turn`` has not come get a stalling sentence
   that does not reveal them (a reply with only those is an INFORM that discloses nothing).
5. REPORT_STEP: the user tries each step instructed and says its ``when_true``/``when_false`` as
   the UserView says; trying a step already reported spends ``patience.redo_step``.
   CLARIFY: the agent answers with several values where one was wanted ("It's New, In Progress
   or On Hold"); the user asks which one it is (a question offering options is no answer).
6. ACCEPT / DENY: the agent claims success, asks whether it works now, or signs off; or the view
   says the goal is met (the user stops when it is met, design.md). ACCEPT (terminal DONE) only
   when ``view[done_when]`` is true, else DENY, which spends ``patience.false_fixed`` for a claim
   or a sign-off (not for a question whether it works). An agent's claim is never enough.
7. ACK_TRANSFER: the agent hands the user over (terminal TRANSFERRED). A goodbye in the hand-over
   message is part of it, not a sign-off.
   CONFIRM: the agent says a fact of the user's back with its right value; the user confirms.
8. RESTATE: anything else; the user restates the goal (never with an identifier). A message
   with no act at all (a stall: "Let me look into that.") spends ``patience.unhelpful``.

Every reply spends ``patience.per_turn`` on top. When the patience left reaches 0 the reply is
ABANDON (terminal ABANDONED), an annoyed goodbye, unless it is an ACCEPT (the goal is met). The
mood after the turn (``Patience.mood``) picks the wording: irritated and angry users write more
tersely and with an edge (:mod:`~enterprise_envs.scenarios.users.templates`). The user keeps to
its own words: once it reported that a step worked, a DENY or RESTATE says it works but is not
done yet (``AFTER_WORKS``), a step that would not have helped is reported as still working
(``STILL_WORKS``), and a fact saying the problem is still there is no longer told. Then the style pass
(:mod:`~enterprise_envs.scenarios.users.style`) adds courtesy, lowercase and typos, never inside a
fact value or a value the agent said.

Public API for the LLM backend (besides :class:`RuleUser`):

- ``disclosable(persona, history, turn=None) -> set[str]``: the fact keys the user may tell in
  user turn ``turn`` (default ``history.turn``) given :func:`~enterprise_envs.scenarios.users.acts.history`
  of the transcript: facts already told, and facts not ``never`` whose ``min_turn`` has come that
  are disclosed at opening or were asked for (in any agent message so far, the pending one
  included); at the opening (turn 0) only opening facts, identifiers only with
  ``style.identifiers_in_opening``.
- ``reply_for_intent(persona, seed, transcript, view, intent) -> UserTurn``: the rule reply worded
  for ``intent`` (the fallback for a rejected LLM candidate). The intent is honoured when it
  applies to the agent's message (REFUSE needs a secret asked, DONT_KNOW an unknown asked,
  PUSH_BACK a repeated fact, INFORM a fact asked, REPORT_STEP a step instructed, ACK_TRANSFER a
  hand-over, ACCEPT the view's ``done_when`` true, DENY it false; RESTATE always applies; OPENING
  only with no user message yet; ABANDON only when the rule policy abandons). Otherwise, and when
  the patience is spent, it returns what :meth:`RuleUser.respond` returns. Patience, mood and the
  ``acts``/``unanswered`` fields are always the rule policy's accounting of this turn (the next
  turn's :func:`~enterprise_envs.scenarios.users.acts.history` replays that accounting).
- ``decide(persona, history, done) -> Decision``: the rule policy's branch for the pending agent
  message without wording (intent, keys, patience cost and left, terminal).
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from enterprise_envs.scenarios.users.acts import (
    CHECK,
    History,
    ParsedAct,
    history,
    occurs,
    says_not_working,
    sentences,
)
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    FactKind,
    Mood,
    Persona,
    Refusal,
    Register,
    UserView,
)
from enterprise_envs.scenarios.users.style import apply_style
from enterprise_envs.scenarios.users.templates import (
    AFTER_WORKS,
    AFTER_WORKS_BY_MOOD,
    BANKS,
    EDGES,
    FACT_PHRASINGS,
    MOOD_BANKS,
    STALL,
    STEP_REDO,
    STILL_WORKS,
    fill,
    goal_sentence,
    label,
    placeholders_in,
    register_for,
)
from enterprise_envs.scenarios.users.turns import AgentAct, Message, Terminal, UserIntent, UserTurn
from enterprise_envs.verifiers.templates import FACT_PLACEHOLDER

__all__ = [
    "NEVER_FACT_COST",
    "Decision",
    "RuleUser",
    "decide",
    "disclosable",
    "opening",
    "reply_for_intent",
    "respond",
]

#: Patience spent when asked for a ``never`` fact: what a refusal costs by default.
NEVER_FACT_COST: int = Refusal.model_fields["patience_cost"].default

#: Said instead of the goal when the goal's own words hold a value the user may not give.
_GOAL_FALLBACK = "I still need help with the problem I described."
_OPENING_GOAL_FALLBACK = "I need some help with a problem."

_ENDS_SENTENCE = re.compile(r"[.!?\u2026]['\")\]]*$")


@dataclass(frozen=True)
class Decision:
    """The rule policy's branch for one reply, before wording.

    Attributes:
        intent: The reply's intent.
        keys: The items it is about: facts told (INFORM), restated (PUSH_BACK), corrected
            (CORRECT) or confirmed (CONFIRM), refusal or ``never`` fact keys (REFUSE), unknown
            keys (DONT_KNOW), step keys (REPORT_STEP).
        stalled: Facts asked for whose ``min_turn`` has not come (INFORM).
        redo: A step instructed was already tried (REPORT_STEP).
        check_only: A DENY answering only "is it working now?" (no false claim).
        cost: Patience spent by this reply, ``per_turn`` included.
        left: Patience left after it (may be negative; UserTurn reports at least 0).
        terminal: Set when the reply ends the conversation.
    """

    intent: UserIntent
    keys: tuple[str, ...] = ()
    stalled: tuple[str, ...] = ()
    redo: bool = False
    check_only: bool = False
    cost: int = 0
    left: int = 0
    terminal: Terminal | None = None


@dataclass(frozen=True)
class _Material:
    """What the pending agent message gives each branch to work with."""

    secrets: tuple[str, ...]
    secret_cost: int
    unknowns: tuple[str, ...]
    repeated: tuple[str, ...]
    told: tuple[str, ...]
    stalled: tuple[str, ...]
    steps: tuple[str, ...]
    redo: bool
    claim: bool
    check: bool
    transfer: bool
    misstated: tuple[str, ...]
    misstated_before: bool
    restated: tuple[str, ...]
    alternatives: bool


def _keys(acts: Sequence[ParsedAct], act: AgentAct) -> list[str]:
    return list(dict.fromkeys(item.key for item in acts if item.act is act and item.key is not None))


def _material(persona: Persona, hist: History) -> _Material:
    acts = hist.pending
    facts = {fact.key: fact for fact in persona.facts}
    refusals = {refusal.key: refusal for refusal in persona.refusals}
    unknowns = {unknown.key for unknown in persona.unknowns}
    asked = [key for key in _keys(acts, AgentAct.ASK_FACT) if key in facts]
    never = [key for key in asked if facts[key].disclosure is Disclosure.NEVER]
    secrets = [key for key in _keys(acts, AgentAct.ASK_SECRET) if key in refusals] + never
    cost = sum(refusals[key].patience_cost if key in refusals else NEVER_FACT_COST for key in secrets)
    # Once the user said it works, a fact saying the problem is still there is no longer true.
    outdated = _outdated(persona, hist)
    open_facts = [
        key for key in asked if facts[key].disclosure is not Disclosure.NEVER and key not in outdated
    ]
    repeated = [key for key in open_facts if key in hist.given and hist.given[key] < hist.turn]
    fresh = [key for key in open_facts if key not in hist.given]
    per_turn = persona.style.answers_per_turn
    steps = [key for key in _keys(acts, AgentAct.INSTRUCT_STEP) if any(s.key == key for s in persona.steps)]
    transfer = any(item.act is AgentAct.TRANSFER for item in acts)
    claim = any(item.act is AgentAct.CLAIM_RESOLVED and item.key != CHECK for item in acts) or (
        not transfer and any(item.act is AgentAct.CLOSE for item in acts)
    )
    # Only what the user may tell now is corrected: a wrong value of a fact still held back stands.
    may_tell = disclosable(persona, hist)
    misstated = [key for key in _keys(acts, AgentAct.MISSTATE_FACT) if key in may_tell][:per_turn]
    remembered = {key for key, turn in hist.given.items() if turn < hist.turn} | set(hist.confirmed)
    return _Material(
        secrets=tuple(secrets),
        secret_cost=cost,
        unknowns=tuple(key for key in _keys(acts, AgentAct.ASK_UNKNOWN) if key in unknowns),
        repeated=tuple(repeated[:per_turn]),
        told=tuple([key for key in fresh if facts[key].min_turn <= hist.turn][:per_turn]),
        stalled=tuple(key for key in fresh if facts[key].min_turn > hist.turn),
        steps=tuple(steps),
        redo=any(key in hist.steps_tried for key in steps),
        claim=claim,
        check=any(item.act is AgentAct.CLAIM_RESOLVED and item.key == CHECK for item in acts),
        transfer=transfer,
        misstated=tuple(misstated),
        misstated_before=any(key in remembered for key in misstated),
        restated=tuple(key for key in _keys(acts, AgentAct.RESTATE_FACT) if key not in misstated),
        alternatives=any(item.act is AgentAct.ALTERNATIVES for item in acts),
    )


def _outdated(persona: Persona, hist: History) -> set[str]:
    """Facts whose words say the problem is still there, once the user said it works."""
    if hist.works_said is None:
        return set()
    return {
        fact.key
        for fact in persona.facts
        if says_not_working(persona, fact.value)
        or (
            fact.phrasing
            and says_not_working(persona, fill(fact.phrasing, {"value": fact.value}, strict=False))
        )
    }


def _terminal(intent: UserIntent) -> Terminal | None:
    return {
        UserIntent.ACCEPT: Terminal.DONE,
        UserIntent.ACK_TRANSFER: Terminal.TRANSFERRED,
        UserIntent.ABANDON: Terminal.ABANDONED,
    }.get(intent)


def decide(persona: Persona, hist: History, done: bool) -> Decision:
    """The rule policy's branch for the pending agent message (see the module docstring).

    Args:
        persona: The user.
        hist: :func:`~enterprise_envs.scenarios.users.acts.history` of the transcript (its
            ``pending`` acts are the message replied to).
        done: ``view[persona.done_when]``.
    """
    patience = persona.patience
    found = _material(persona, hist)
    extra = 0
    keys: tuple[str, ...] = ()
    stalled: tuple[str, ...] = ()
    check_only = False
    if found.secrets:
        intent, keys, extra = UserIntent.REFUSE, found.secrets, found.secret_cost
    elif found.misstated:
        # Getting wrong what the user already said costs what asking it again costs.
        intent, keys = UserIntent.CORRECT, found.misstated
        extra = patience.repeated_question if found.misstated_before else 0
    elif found.unknowns:
        intent, keys = UserIntent.DONT_KNOW, found.unknowns
    elif found.repeated:
        intent, keys, extra = UserIntent.PUSH_BACK, found.repeated, patience.repeated_question
    elif found.told or found.stalled:
        intent, keys, stalled = UserIntent.INFORM, found.told, found.stalled
    elif found.steps:
        intent, keys = UserIntent.REPORT_STEP, found.steps
        extra = patience.redo_step if found.redo else 0
    elif found.alternatives:
        intent = UserIntent.CLARIFY
    elif done:
        intent = UserIntent.ACCEPT
    elif found.claim or found.check:
        intent, check_only = UserIntent.DENY, not found.claim
        extra = patience.false_fixed if found.claim else 0
    elif found.transfer:
        intent = UserIntent.ACK_TRANSFER
    elif found.restated:
        intent, keys = UserIntent.CONFIRM, found.restated
    else:
        intent = UserIntent.RESTATE
        # A message with no act at all (no question, claim, step or hand-over) is a stall: it
        # gives the user nothing, so it costs more than an exchange that moves things on.
        extra = 0 if hist.pending else patience.unhelpful
    cost = patience.per_turn + extra
    left = patience.budget - hist.spent - cost
    if left <= 0 and intent is not UserIntent.ACCEPT:
        return Decision(UserIntent.ABANDON, cost=cost, left=left, terminal=Terminal.ABANDONED)
    return Decision(
        intent,
        keys=keys,
        stalled=stalled,
        redo=found.redo and intent is UserIntent.REPORT_STEP,
        check_only=check_only,
        cost=cost,
        left=left,
        terminal=_terminal(intent),
    )


def disclosable(persona: Persona, history: History, turn: int | None = None) -> set[str]:
    """The fact keys the user may tell in user turn ``turn`` (see the module docstring)."""
    turn = history.turn if turn is None else turn
    asked = {label.split(":", 1)[1] for label in history.asked if label.startswith("ask_fact:")}
    keys: set[str] = set()
    for fact in persona.facts:
        if fact.disclosure is Disclosure.NEVER:
            continue
        if fact.key in history.given:
            keys.add(fact.key)
        elif fact.min_turn > turn:
            continue
        elif turn == 0:
            if fact.disclosure is Disclosure.OPENING and (
                fact.kind is not FactKind.IDENTIFIER or persona.style.identifiers_in_opening
            ):
                keys.add(fact.key)
        elif fact.disclosure is Disclosure.OPENING or fact.key in asked:
            keys.add(fact.key)
    return keys


# --- wording -----------------------------------------------------------------------------------------


def _pick(templates: Sequence[str], values: dict[str, str], rng: random.Random) -> str:
    usable = [template for template in templates if set(placeholders_in(template)) <= values.keys()]
    return fill(usable[rng.randrange(len(usable))], values)


def _sentence(text: str) -> str:
    text = text.strip()
    return text if not text or _ENDS_SENTENCE.search(text) else text + "."


def _held_back(persona: Persona, hist: History | None, opening: bool) -> list[str]:
    """Values the user must not say in free text (goal, name): secrets, identifiers, untold facts."""
    told = {} if hist is None else hist.given
    values = []
    for fact in persona.facts:
        secret = fact.disclosure is Disclosure.NEVER or fact.kind is FactKind.IDENTIFIER
        untold = fact.key not in told and (opening or fact.disclosure is not Disclosure.OPENING)
        if secret or untold:
            values.append(fact.value)
    return values


def _free_text(persona: Persona, hist: History | None, opening: bool) -> dict[str, str]:
    """``goal`` and (when safe) ``name`` for templates."""
    held = _held_back(persona, hist, opening)
    goal = goal_sentence(persona.goal)
    if any(occurs(value, goal) for value in held):
        goal = _OPENING_GOAL_FALLBACK if opening else _GOAL_FALLBACK
    values = {"goal": goal}
    name = persona.name.strip()
    if name and not any(occurs(value, name) or occurs(name, value) for value in held):
        values["name"] = name
    return values


def _fact_sentences(persona: Persona, keys: Sequence[str], rng: random.Random) -> str:
    several = len(keys) > 1
    out = []
    for key in keys:
        fact = persona.fact(key)
        if fact is None:  # pragma: no cover - decide() only names the persona's facts
            continue
        values = {"value": fact.value, "label": label(fact.key)}
        if fact.phrasing:
            out.append(_sentence(fill(fact.phrasing, values, strict=False)))
            continue
        labelled, bare = FACT_PHRASINGS[fact.kind]
        out.append(_pick(labelled if several else labelled + bare, values, rng))
    return " ".join(out)


def _bank(
    intent: UserIntent, register: Register, mood: Mood, values: dict[str, str], rng: random.Random
) -> str:
    by_mood = MOOD_BANKS.get(mood, {}).get(intent)
    return _pick(by_mood if by_mood else BANKS[intent][register], values, rng)


def _edge(text: str, intent: UserIntent, mood: Mood, rng: random.Random) -> str:
    if mood is Mood.CALM or intent is UserIntent.ABANDON or intent in MOOD_BANKS.get(mood, {}):
        return text
    edges = EDGES[mood]
    if mood is Mood.IRRITATED:
        if rng.random() < 0.5:
            return f"{edges['prefix'][rng.randrange(len(edges['prefix']))]} {text}"
        return f"{text} {edges['suffix'][rng.randrange(len(edges['suffix']))]}"
    text = f"{edges['prefix'][rng.randrange(len(edges['prefix']))]} {text}"
    if rng.random() < 0.5:
        text = f"{text} {edges['suffix'][rng.randrange(len(edges['suffix']))]}"
    return text


def _and(keys: Sequence[str]) -> str:
    return " and ".join(label(key) for key in keys) if keys else "that"


def _word(persona: Persona, hist: History, decision: Decision, view: UserView, mood: Mood, seed: int) -> str:
    """The reply's words, before style."""
    rng = random.Random(f"{seed}:{hist.turn}:wording")
    register = register_for(persona.style.wording, mood)
    intent = decision.intent
    values = _free_text(persona, hist, opening=False)
    if intent is UserIntent.REFUSE:
        first = decision.keys[0] if decision.keys else None
        custom = next((r.reply for r in persona.refusals if r.key == first and r.reply), None)
        text = custom or _bank(intent, register, mood, {**values, "what": _or(decision.keys)}, rng)
    elif intent is UserIntent.DONT_KNOW:
        first = decision.keys[0] if decision.keys else None
        custom = next((u.reply for u in persona.unknowns if u.key == first and u.reply), None)
        text = custom or _bank(intent, register, mood, {**values, "what": _or(decision.keys)}, rng)
    elif intent in (UserIntent.PUSH_BACK, UserIntent.CORRECT):
        facts = _fact_sentences(persona, decision.keys, rng)
        text = _bank(intent, register, mood, {**values, "facts": facts}, rng)
    elif (intent is UserIntent.DENY and hist.works_said is not None) or (
        intent is UserIntent.RESTATE and (hist.works_said or 0) > 0
    ):
        # The user said it works: it keeps to its word (it works, but it is not done yet). Said
        # in its opening, it is the persona's premise, and restating the goal keeps to it.
        text = _pick(AFTER_WORKS_BY_MOOD.get(mood) or AFTER_WORKS[register], {}, rng)
    elif intent is UserIntent.INFORM:
        parts = []
        if decision.keys:
            facts = _fact_sentences(persona, decision.keys, rng)
            parts.append(_bank(intent, register, mood, {**values, "facts": facts}, rng))
        if decision.stalled:
            parts.append(_pick(STALL[register], {"what": _and(decision.stalled)}, rng))
        text = " ".join(parts)
    elif intent is UserIntent.REPORT_STEP:
        steps = {step.key: step for step in persona.steps}
        reports = [
            _sentence(
                steps[key].when_true
                if view.get(steps[key].view, False)
                # Said to work before: a step that would not have helped leaves it working.
                else _pick(STILL_WORKS[register], {}, rng)
                if hist.works_said is not None
                else steps[key].when_false
            )
            for key in decision.keys
        ]
        report = " ".join(reports)
        if decision.redo:
            text = f"{_pick(STEP_REDO[register], {}, rng)} {report}"
        else:
            text = _bank(intent, register, mood, {**values, "report": report}, rng)
    else:
        text = _bank(intent, register, mood, values, rng)
    return _edge(text.strip(), intent, mood, rng)


def _or(keys: Sequence[str]) -> str:
    return " or ".join(label(key) for key in keys) if keys else "that"


def _protected(persona: Persona, hist: History) -> list[str]:
    return [fact.value for fact in persona.facts if fact.value] + list(hist.agent_values)


def _disclosed(persona: Persona, keys: Sequence[str], text: str) -> tuple[str, ...]:
    told = set(keys)
    return tuple(fact.key for fact in persona.facts if fact.key in told or occurs(fact.value, text))


def _render(persona: Persona, seed: int, hist: History, decision: Decision, view: UserView) -> UserTurn:
    left = max(decision.left, 0)
    mood = persona.patience.mood(left)
    words = _word(persona, hist, decision, view, mood, seed)
    style_rng = random.Random(f"{seed}:{hist.turn}:style")
    text = apply_style(words, _protected(persona, hist), persona.style, style_rng, mood=mood)
    told = (
        decision.keys
        if decision.intent in (UserIntent.INFORM, UserIntent.PUSH_BACK, UserIntent.CORRECT)
        else ()
    )
    return UserTurn(
        text=text,
        intent=decision.intent,
        acts=tuple(act.label for act in hist.pending),
        disclosed=_disclosed(persona, told, text),
        terminal=decision.terminal,
        patience_left=left,
        mood=mood,
        unanswered=tuple(act.text for act in hist.pending if act.act is AgentAct.OTHER),
        backend="rules",
        confirms=_confirms(persona, decision, view),
    )


def _confirms(persona: Persona, decision: Decision, view: UserView) -> bool:
    """Whether the reply says it works: an accepted claim, or a step tried that worked."""
    if decision.intent is UserIntent.ACCEPT:
        return True
    if decision.intent is UserIntent.REPORT_STEP:
        steps = {step.key: step for step in persona.steps}
        return any(view.get(steps[key].view, False) for key in decision.keys if key in steps)
    return False


# --- the opening -------------------------------------------------------------------------------------


def _opening_allows(persona: Persona, key: str) -> bool:
    fact = persona.fact(key)
    return (
        fact is not None
        and fact.disclosure is Disclosure.OPENING
        and fact.min_turn == 0
        and (fact.kind is not FactKind.IDENTIFIER or persona.style.identifiers_in_opening)
    )


def opening(persona: Persona, seed: int, hist: History | None = None) -> UserTurn:
    """The first user message (intent OPENING, full patience, nothing spent).

    The persona's opening with ``{{key}}`` filled for the facts it may give at opening; a sentence
    naming a fact it may not give (an identifier without ``identifiers_in_opening``, a ``never``
    fact, a fact whose ``min_turn`` is later) is dropped. If nothing is left, a bank opening with
    the goal is used.
    """
    hist = hist if hist is not None else history(persona, [])
    blocked = [
        fact.value
        for fact in persona.facts
        if fact.value
        and (fact.disclosure is Disclosure.NEVER or fact.kind is FactKind.IDENTIFIER)
        and not _opening_allows(persona, fact.key)
    ]
    filled_keys: list[str] = []

    def fill_facts(sentence: str) -> str:
        def value(match: re.Match[str]) -> str:
            fact = persona.fact(match.group(1))
            return fact.value if fact is not None else match.group(0)

        return FACT_PLACEHOLDER.sub(value, sentence)

    def usable(sentence: str) -> bool:
        keys = FACT_PLACEHOLDER.findall(sentence)
        return all(_opening_allows(persona, key) for key in keys) and not any(
            occurs(value, sentence) for value in blocked
        )

    if usable(persona.opening):
        text = fill_facts(persona.opening)
        filled_keys = FACT_PLACEHOLDER.findall(persona.opening)
    else:
        kept = [sentence for sentence in sentences(persona.opening) if usable(sentence)]
        filled_keys = [key for sentence in kept for key in FACT_PLACEHOLDER.findall(sentence)]
        text = " ".join(fill_facts(sentence) for sentence in kept)
    if not text.strip():
        register = persona.style.wording
        rng = random.Random(f"{seed}:0:wording")
        text = _pick(BANKS[UserIntent.OPENING][register], _free_text(persona, None, opening=True), rng)
    style_rng = random.Random(f"{seed}:0:style")
    text = apply_style(text, _protected(persona, hist), persona.style, style_rng)
    budget = persona.patience.budget
    return UserTurn(
        text=text,
        intent=UserIntent.OPENING,
        acts=tuple(act.label for act in hist.pending),
        disclosed=_disclosed(persona, filled_keys, text),
        terminal=None,
        patience_left=budget,
        mood=persona.patience.mood(budget),
        backend="rules",
    )


# --- entry points --------------------------------------------------------------------------------------


def _check(transcript: Sequence[Message]) -> None:
    if transcript and transcript[-1].role != "agent":
        raise ValueError("the transcript must be empty or end with an agent message")


def respond(persona: Persona, seed: int, transcript: Sequence[Message], view: UserView) -> UserTurn:
    """The rule user's next turn (see the module docstring).

    Args:
        persona: The user.
        seed: The episode's user seed (wording and style choices).
        transcript: The conversation so far: empty, or ending with an agent message.
        view: The UserView now (only ``done_when`` and instructed steps' keys are read).
    """
    _check(transcript)
    hist = history(persona, transcript)
    if hist.turn == 0:
        return opening(persona, seed, hist)
    decision = decide(persona, hist, bool(view.get(persona.done_when, False)))
    return _render(persona, seed, hist, decision, view)


def _forced(
    persona: Persona, hist: History, done: bool, intent: UserIntent, rule: Decision
) -> Decision | None:
    """``rule`` re-branched to ``intent`` when the pending message gives it something to say."""
    found = _material(persona, hist)
    keys: tuple[str, ...] = ()
    stalled: tuple[str, ...] = ()
    redo = check_only = False
    if intent is UserIntent.REFUSE and found.secrets:
        keys = found.secrets
    elif intent is UserIntent.CORRECT and found.misstated:
        keys = found.misstated
    elif intent is UserIntent.CONFIRM and found.restated:
        keys = found.restated
    elif intent is UserIntent.CLARIFY and found.alternatives:
        pass
    elif intent is UserIntent.DONT_KNOW and found.unknowns:
        keys = found.unknowns
    elif intent is UserIntent.PUSH_BACK and found.repeated:
        keys = found.repeated
    elif intent is UserIntent.INFORM and (found.told or found.stalled):
        keys, stalled = found.told, found.stalled
    elif intent is UserIntent.REPORT_STEP and found.steps:
        keys, redo = found.steps, found.redo
    elif intent is UserIntent.ACCEPT and done:
        pass
    elif intent is UserIntent.DENY and not done:
        check_only = not found.claim
    elif intent is UserIntent.ACK_TRANSFER and found.transfer:
        pass
    elif intent is not UserIntent.RESTATE:
        return None
    return replace(
        rule,
        intent=intent,
        keys=keys,
        stalled=stalled,
        redo=redo,
        check_only=check_only,
        terminal=_terminal(intent),
    )


def reply_for_intent(
    persona: Persona, seed: int, transcript: Sequence[Message], view: UserView, intent: UserIntent
) -> UserTurn:
    """The rule reply worded for ``intent``, when it applies (see the module docstring)."""
    _check(transcript)
    hist = history(persona, transcript)
    if hist.turn == 0:
        return opening(persona, seed, hist)
    done = bool(view.get(persona.done_when, False))
    rule = decide(persona, hist, done)
    if intent is rule.intent or rule.intent is UserIntent.ABANDON:
        return _render(persona, seed, hist, rule, view)
    forced = _forced(persona, hist, done, intent, rule)
    return _render(persona, seed, hist, forced if forced is not None else rule, view)


class RuleUser:
    """The rule-based simulated user (implements ``UserSimulator``); stateless, no LLM."""

    backend = "rules"

    def respond(self, persona: Persona, seed: int, transcript: Sequence[Message], view: UserView) -> UserTurn:
        """The user's next turn after the transcript (whose last message is the agent's)."""
        return respond(persona, seed, transcript, view)

    def reply_for_intent(
        self, persona: Persona, seed: int, transcript: Sequence[Message], view: UserView, intent: UserIntent
    ) -> UserTurn:
        """The rule reply worded for ``intent`` (see :func:`reply_for_intent`)."""
        return reply_for_intent(persona, seed, transcript, view, intent)
