"""The guard of the LLM user backend: checks one candidate utterance against what the persona may say.

Pure functions over one utterance and a :class:`GuardContext` (persona, transcript so far, the fact
keys disclosable now, the scenario's canaries, the UserView). Each check returns a named
:class:`GuardHit` or ``None``; :func:`guard` runs them all. The checks:

``leak``
    A value-like span (four or more digits, a phone number, an email, a record number of any
    system: letters then three or more digits, or one of the persona's systems' numbers in any
    written form, a hostname or IP, a ``WS-0042``-style asset name, a 32-hex-digit key) or any
    persona fact value
    (of three characters or more), that is neither the
    value of a fact the user may tell now (disclosable or already told) nor something the agent
    itself said; or a ``{{placeholder}}`` for a fact that may not be told now (or no fact at all).
``canary``
    A hidden value the scenario registered (solution ids, KB numbers, expected field values) that
    the agent has not said.
``role_swap``
    The simulated user talking like the agent: service-desk phrases ("how can I help you", "I have
    created <a record> ...", "let me check"), tool or JSON syntax (a system term written as code,
    such as a key field's name), markdown lists and headers, or a reply far longer than the persona's style.
``coaching``
    An imperative or suggestion that names a tool, field, state or policy term the persona's goal
    and facts do not mention ("you should set the priority", "resolve it with resolution code
    ..."), or a term of the persona's systems anywhere.
``stop``
    The reply ends the conversation while the UserView says the goal is not met (unless this turn
    is meant to end it: abandoning, accepting a transfer).

The ``role_swap``, ``coaching`` and ``stop`` checks also fire on whatever the fidelity metrics
(:mod:`~enterprise_envs.scenarios.users.fidelity`) would count for the reply, so a reply that passes
the guard never counts against the simulator there.

A system's own words (field names, query syntax, what its records are called, its record-number
shape) are not written here: they come with the persona as data
(:attr:`~enterprise_envs.scenarios.users.persona.Persona.vocabulary`, set by the scenario
instance from the system's conventions; :mod:`~enterprise_envs.scenarios.users.vocabulary`).

The model writes ``{{key}}`` placeholders instead of values; :func:`fill` replaces them with the
fact values for the keys that may be told now and leaves the others for the ``leak`` check.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from enterprise_envs.scenarios.users import fidelity
from enterprise_envs.scenarios.users.acts import history, says_not_working
from enterprise_envs.scenarios.users.persona import Persona, Register, UserView, Vocabulary
from enterprise_envs.scenarios.users.turns import Message
from enterprise_envs.scenarios.users.vocabulary import (
    code_terms,
    number_shape,
    record_reference,
    record_words,
)
from enterprise_envs.verifiers.dialogue import NumberShape, record_numbers
from enterprise_envs.verifiers.text import value_pattern

__all__ = [
    "CHECKS",
    "GuardContext",
    "GuardHit",
    "WORDS_PER_REPLY",
    "check_canary",
    "check_coaching",
    "check_leak",
    "check_role_swap",
    "check_stop",
    "fill",
    "guard",
    "max_words",
    "placeholders",
    "told",
]

#: About how many words a reply has, per wording register (said in the LLM prompt); the fidelity
#: metrics' typical lengths, so the guard and the role-swap metric agree.
WORDS_PER_REPLY: Mapping[Register, int] = fidelity.TYPICAL_WORDS

#: Typographic apostrophes, read as ``'`` (one character for one: spans keep their positions).
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})

#: ``{{key}}`` (and the single-brace slip ``{key}``) in a model's reply.
_PLACEHOLDER = re.compile(r"\{\{?\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}?")

#: Values shorter than this are not searched for (a fact value "3" would match everywhere).
_MIN_VALUE_CHARS = 3


@dataclass(frozen=True)
class GuardHit:
    """One check that fired on a candidate: the check's name and what it found."""

    check: str
    detail: str

    def __str__(self) -> str:
        return f"{self.check}:{self.detail}"


@dataclass(frozen=True)
class GuardContext:
    """What the guard knows besides the utterance.

    Attributes:
        persona: The simulated user.
        transcript: The conversation so far (before the candidate reply).
        disclosable: Fact keys the user may tell now. Facts already told in the transcript are
            added by the checks themselves.
        canaries: Hidden values the scenario registered; the user must never say them first.
        view: The UserView this turn.
        may_end: This turn is meant to end the conversation (abandon, accept a transfer), so a
            farewell is not a false stop.
    """

    persona: Persona
    transcript: Sequence[Message] = ()
    disclosable: frozenset[str] = frozenset()
    canaries: tuple[str, ...] = ()
    view: UserView = field(default_factory=dict)
    may_end: bool = False


# --- values -------------------------------------------------------------------------------------------


def _value_pattern(value: str) -> re.Pattern[str] | None:
    value = value.strip()
    if len(value) < _MIN_VALUE_CHARS:
        return None
    return value_pattern(value)


def _occurrences(value: str, text: str) -> list[tuple[int, int]]:
    pattern = _value_pattern(value)
    return [] if pattern is None else [match.span() for match in pattern.finditer(text)]


def _said(value: str, text: str) -> bool:
    return bool(_occurrences(value, text))


def told(persona: Persona, transcript: Sequence[Message]) -> frozenset[str]:
    """Fact keys whose values the user has already said in the transcript."""
    said = "\n".join(message.text for message in transcript if message.role == "user")
    return frozenset(fact.key for fact in persona.facts if _said(fact.value, said))


def placeholders(utterance: str) -> list[str]:
    """The placeholder keys in an utterance, in order."""
    return [match.group(1) for match in _PLACEHOLDER.finditer(utterance)]


def _fill_spans(
    utterance: str, persona: Persona, allowed: Iterable[str]
) -> tuple[str, list[tuple[int, int]]]:
    """The filled utterance and where the values were put in."""
    allowed = set(allowed)
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    length = last = 0
    for match in _PLACEHOLDER.finditer(utterance):
        fact = persona.fact(match.group(1))
        if fact is None or fact.key not in allowed:
            continue
        before = utterance[last : match.start()]
        parts += [before, fact.value]
        length += len(before)
        spans.append((length, length + len(fact.value)))
        length += len(fact.value)
        last = match.end()
    parts.append(utterance[last:])
    return "".join(parts), spans


def fill(utterance: str, persona: Persona, allowed: Iterable[str]) -> str:
    """Replace the placeholders of the ``allowed`` facts by their values; leave the others as they are."""
    return _fill_spans(utterance, persona, allowed)[0]


def _mask_values(persona: Persona, text: str) -> str:
    """Text with every fact value replaced by its placeholder (what the model may see)."""
    for fact in sorted(persona.facts, key=lambda fact: -len(fact.value)):
        pattern = _value_pattern(fact.value)
        if pattern is not None:
            text = pattern.sub("{{" + fact.key + "}}", text)
    return text


def _allowed(context: GuardContext) -> frozenset[str]:
    return context.disclosable | told(context.persona, context.transcript)


def _public_text(context: GuardContext) -> str:
    """What the user may repeat: the agent's messages, the goal and the opening (values masked)."""
    agent = [message.text for message in context.transcript if message.role == "agent"]
    persona = context.persona
    return "\n".join([*agent, _mask_values(persona, persona.goal), _mask_values(persona, persona.opening)])


#: Value-like strings. Each run may only start where a run of its characters starts (the
#: lookbehinds) and is bounded, so every pattern is linear in the text (see verifiers/text.py).
_VALUE_LIKE: tuple[re.Pattern[str], ...] = (
    re.compile(r"(?<![\w.+-])[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}"),  # email
    # Record numbers of any system (TKT001234, KB0001234, REQ123): letters, then three or more digits.
    re.compile(r"\b[A-Za-z]{2,6}\d{3,}\b"),
    re.compile(r"\b[A-Z][A-Z0-9]{1,9}-\d+\b"),  # issue keys: IT-42
    re.compile(r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),  # IPv4
    re.compile(
        r"(?<![a-z0-9.-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}[a-z]{2,24}\b", re.IGNORECASE
    ),  # hostnames
    # WS-0042, LAPTOP-7F3K2
    re.compile(r"(?<![A-Za-z])[A-Za-z]{2,32}-(?=[A-Za-z0-9]{0,32}\d)[A-Za-z0-9]{3,32}\b"),
    re.compile(r"\b[0-9a-f]{32}\b", re.IGNORECASE),  # 32-hex-digit record keys
    re.compile(r"\b\d{2,4}[-.]\d{3,4}(?:[-.]\d{2,4})?\b|\+\d[\d\s().-]{6,}\d"),  # phone numbers
    re.compile(r"\d{4,}"),
)


@lru_cache(maxsize=256)
def _system_values(key: tuple[Any, ...]) -> tuple[re.Pattern[str], ...]:
    """The value-like patterns, the declared systems' record numbers in any written form first.

    So "kv 00042" is one value, not a word and digits.
    """
    numbers = dict(key[3])
    if not numbers:
        return _VALUE_LIKE
    shape = NumberShape.of(numbers).pattern()
    return (re.compile(rf"(?<![^\W_]){shape}(?![^\W_])", re.IGNORECASE), *_VALUE_LIKE)


def _merge(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def _filled(utterance: str, context: GuardContext) -> str:
    return fill(utterance, context.persona, _allowed(context)).translate(_APOSTROPHES)


def _filled_permitted(utterance: str, context: GuardContext) -> tuple[str, list[tuple[int, int]]]:
    """The filled utterance and the spans holding values the user may tell now."""
    allowed = _allowed(context)
    text, spans = _fill_spans(utterance, context.persona, allowed)
    text = text.translate(_APOSTROPHES)
    for fact in context.persona.facts:
        if fact.key in allowed:
            spans += _occurrences(fact.value, text)
    return text, spans


def _turn(context: GuardContext) -> int:
    return sum(1 for message in context.transcript if message.role == "user")


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    """Text with the spans blanked out (same length), so nothing is found inside them."""
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def check_leak(utterance: str, context: GuardContext) -> GuardHit | None:
    """A value the user may not tell now, or a placeholder for one."""
    persona = context.persona
    allowed = _allowed(context)
    found: list[str] = []
    for key in placeholders(utterance):
        fact = persona.fact(key)
        label = key if fact is not None else "{{" + key + "}}"
        if key not in allowed and label not in found:
            found.append(label)
    text, permitted = _filled_permitted(utterance, context)
    text = _blank(_PLACEHOLDER.sub(lambda match: " " * len(match.group(0)), text), permitted)
    public = _public_text(context)
    for fact in persona.facts:
        if fact.key in allowed:
            continue
        spans = _occurrences(fact.value, text)
        text = _blank(text, spans)
        if spans and not _said(fact.value, public) and fact.key not in found:
            found.append(fact.key)
    value_like = _system_values(persona.vocabulary.key())
    spans = _merge(match.span() for pattern in value_like for match in pattern.finditer(text))
    shape = number_shape(persona.vocabulary)
    public_numbers = set(record_numbers(public, shape)) if shape.declared else set()
    for start, end in spans:
        value = text[start:end]
        label = repr(value)
        if value.casefold() in public.casefold() or label in found:
            continue
        numbers = record_numbers(value, shape) if shape.declared else []
        if numbers and set(numbers) <= public_numbers:
            continue  # the agent's own number, written another way ("TKT-001234" for TKT001234)
        found.append(label)
    return GuardHit("leak", ", ".join(found)) if found else None


def check_canary(utterance: str, context: GuardContext) -> GuardHit | None:
    """A registered hidden value (solution id, KB number, expected field value) the agent has not said."""
    text, permitted = _filled_permitted(utterance, context)
    text = _blank(text, permitted)
    public = "\n".join(message.text for message in context.transcript if message.role == "agent")
    found = []
    for canary in context.canaries:
        if _said(canary, text) and not _said(canary, public) and canary.strip() not in found:
            found.append(canary.strip())
    return GuardHit("canary", ", ".join(found)) if found else None


# --- role swap ----------------------------------------------------------------------------------------

_I_HAVE = r"\bI(?:\s*'\s*ve|\s+have)?\s+(?:now\s+|just\s+|already\s+|successfully\s+|gone\s+ahead\s+and\s+)?"
#: Service-desk phrases; ``{record}`` is a reference to a record (:func:`record_reference`: a word
#: the persona's systems use for one, or a record number).
_AGENT_PHRASE_FORMS: tuple[str, ...] = (
    r"\bhow\s+(?:can|may|could|might)\s+I\s+(?:help|assist)",
    r"\bwhat\s+(?:else\s+)?can\s+I\s+(?:do|help)\s+(?:for|with)\s+you",
    r"\b(?:is\s+there\s+)?anything\s+else\s+(?:I\s+(?:can|could|may)|that\s+I\s+can)\b",
    r"\bhappy\s+to\s+(?:help|assist)\b",
    _I_HAVE + r"(?:created|resolved|closed|assigned|reassigned|escalated|updated|set)\s+"
    r"(?:a|an|the|your|this|that|it\s+for\s+you|{record})\b",
    _I_HAVE + r"(?:opened|raised|logged|submitted|filed)\b[^.!?\n]{0,40}\bfor\s+you\b",
    r"\bI(?:\s*'\s*ll|\s+will)\s+(?:now\s+|go\s+ahead\s+and\s+)?(?:create|open|raise|log|escalate|assign|"
    r"reassign|resolve|close|update)\s+(?:a|an|the|this|your)\s+{record}",
    r"\blet\s+me\s+(?:just\s+|quickly\s+)?(?:check|search|verify)\s+(?:(?:that|this|it)\s+)?(?:for\s+you|your|"
    r"our|(?:in\s+)?the\s+system|on\s+that|with)\b",
    r"\blet\s+me\s+(?:just\s+|quickly\s+)?(?:look\s+into|look\s+(?:that|this|it)\s+up|pull\s+up|create|"
    r"escalate|assign|see\s+what\s+I\s+can\s+do)\b",
    r"\b(?:thank\s+you|thanks)\s+for\s+(?:contacting|calling|reaching\s+out|your\s+patience|waiting)\b",
    r"\bI\s+(?:understand|apologi[sz]e\s+for)\s+(?:your|the)\s+(?:frustration|inconvenience|trouble)",
    r"\bsorry\s+for\s+the\s+inconvenience\b",
    r"\byour\s+(?:{words}|reference)\s+(?:number\s+)?is\b",
    r"\b(?:could|can|would|may)\s+you\s+(?:please\s+)?(?:provide|confirm|share|verify|give\s+me)\s+your\s+"
    r"(?:employee|user|staff|email|phone|full\s+name|name|id\b|username|identity|location|department)",
    r"^\s*(?:please\s+)?(?:provide|confirm|verify)\s+your\s+(?:employee|user|staff|email|phone|id\b|username|"
    r"identity)",
    r"\bas\s+an?\s+(?:ai|assistant|language\s+model|agent)\b",
    r"\bI\s*'?\s*a?m\s+(?:an?\s+)?(?:ai|assistant|language\s+model|virtual\s+agent|service\s+desk\s+agent)\b",
)


def _agent_phrases(vocabulary: Vocabulary) -> tuple[re.Pattern[str], ...]:
    """The service-desk phrases, with the persona's systems' record words and numbers."""
    return _agent_phrases_for(record_reference(vocabulary), record_words(vocabulary))


@lru_cache(maxsize=256)
def _agent_phrases_for(record: str, words: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    alternation = "|".join(
        r"\s+".join(re.escape(part) for part in word.split()) for word in sorted(words, key=len, reverse=True)
    )
    return tuple(
        re.compile(form.replace("{record}", record).replace("{words}", f"(?:{alternation})"), re.IGNORECASE)
        for form in _AGENT_PHRASE_FORMS
    )


_TOOL_SYNTAX: tuple[re.Pattern[str], ...] = (
    re.compile(r"\{\s*\"[^\"\n]*\"\s*:"),  # a JSON object
    re.compile(r"```"),
    re.compile(r"</?\s*(?:tool_call|tool|function|function_call)\b", re.IGNORECASE),
    re.compile(r"\b[a-z]+(?:_[a-z]+)+\s*\("),  # create_record(
)


def _tool_syntax(text: str, vocabulary: Vocabulary) -> bool:
    """Tool or JSON syntax, or a term of the persona's systems written as code (with an underscore)."""
    if any(pattern.search(text) for pattern in _TOOL_SYNTAX):
        return True
    return any(fidelity.phrase_pattern(term).search(text) for term in code_terms(vocabulary))


_MD_HEADER = re.compile(r"^[ \t]{0,3}#{1,6}[ \t]+\S", re.MULTILINE)
# Line-anchored patterns skip only spaces and tabs: "\s*" would cross line breaks from every
# line start (quadratic on a text of blank lines).
_MD_LIST = re.compile(r"^[ \t]*(?:[-*+\u2022]|\d+[.)])[ \t]+\S", re.MULTILINE)
_MD_OTHER = re.compile(r"\*\*[^*\n]+\*\*|^[ \t]*\|.*\|[ \t]*$", re.MULTILINE)


def max_words(persona: Persona, turn: int) -> int:
    """The word count past which a reply is far longer than the persona's style (the metric's limit)."""
    return fidelity.role_swap_limit(persona, turn)


def check_role_swap(utterance: str, context: GuardContext) -> GuardHit | None:
    """The user talking like the agent: service-desk phrases, tool syntax, markdown, length.

    Also fires on whatever :func:`~enterprise_envs.scenarios.users.fidelity.role_swap_reasons`
    counts, so a reply that passes never counts in the role-swap metric.
    """
    text = _PLACEHOLDER.sub("it", _filled(utterance, context))  # placeholders are the leak check's
    found = []
    vocabulary = context.persona.vocabulary
    if any(pattern.search(text) for pattern in _agent_phrases(vocabulary)):
        found.append("agent phrase")
    if _tool_syntax(text, vocabulary):
        found.append("tool syntax")
    if _MD_HEADER.search(text) or len(_MD_LIST.findall(text)) >= 2 or _MD_OTHER.search(text):
        found.append("markdown")
    found += [reason for reason in fidelity.role_swap_reasons(text, context.persona, _turn(context))]
    found = list(dict.fromkeys(found))
    return GuardHit("role_swap", ", ".join(found)) if found else None


# --- coaching ----------------------------------------------------------------------------------------

_ACTIONS = (
    r"(?:set|assign|reassign|resolve|close|mark|change|update|use|link|categori[sz]e|route|put|move|select|"
    r"choose|fill\s+in|search|look\s+up|attach|apply|cite|bump|raise|lower|escalate|give\s+it|file\s+it|log\s+it)"
)
_SUGGESTIONS: tuple[re.Pattern[str], ...] = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"\byou\s+(?:should|must|need\s+to|have\s+to|ought\s+to|could|might\s+want\s+to|may\s+want\s+to|"
        r"(?:'|\s+ha)d\s+better)\b",
        r"\byou\s*'\s*(?:ll|d)\s+(?:need|want|have)\s+to\b",
        r"\b(?:make\s+sure|be\s+sure|don\s*'?\s*t\s+forget|remember)\s+to\b",
        r"\b(?:why\s+not|how\s+about|what\s+about|I\s+(?:suggest|recommend|think\s+you\s+should))\b",
        r"\b(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:just\s+)?" + _ACTIONS + r"\b",
        r"\b(?:please|maybe|perhaps|try)\s+(?:just\s+)?" + _ACTIONS + r"\b",
        r"^\W*(?:(?:please|just|so|then|now|and|ok|okay)\W+)*" + _ACTIONS + r"\b",
        r"\b(?:it|this)\s+should\s+be\s+(?:set|assigned|marked|resolved|closed|categori[sz]ed|routed)\b",
    )
)
#: Tool, field, state and policy terms any help desk has; a suggestion naming one coaches. The
#: persona's systems' own terms coach anywhere (the fidelity metric's, :func:`check_coaching`).
_TERMS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        ("priority", r"\bpriorit(?:y|ies|ize|ise)\b|\bP[1-5]\b"),
        ("impact", r"\bimpact\b"),
        ("urgency", r"\burgency\b"),
        ("assignment", r"\b(?:re)?assign(?:ed|ing|ment)?\b"),
        ("category", r"\b(?:sub)?categor(?:y|ies|i[sz]e)\b"),
        ("state", r"\bstate\b|\bon\s+hold\b|\bin\s+progress\b|\b(?:as|to)\s+(?:resolved|closed)\b"),
        ("close code", r"\b(?:closure|resolution)\s+(?:code|notes?)\b"),
        ("field", r"\bcaller\b"),
        ("ci", r"\bconfiguration\s+item\b|\bCI\b|\bcmdb\b"),
        ("knowledge", r"\bknowledge\s+(?:base|article)\b|\bKB\b|\bkb\s+article\b"),
        ("policy", r"\bSLA\b|\bpolicy\b|\btier\s*[123]\b|\blevel\s*[123]\b|\bL[123]\b"),
        ("escalation", r"\bescalat\w*\s+(?:it\s+|this\s+)?to\b"),
        ("tool", r"\b[a-z]+(?:_[a-z]+)+\b|\btool\b"),
    )
)


def _system_terms(vocabulary: Vocabulary) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """:data:`_TERMS` and the persona's systems' own.

    "major <record>", and each field name the systems write as code said as words ("contact
    type" for ``contact_type``).
    """
    return _system_terms_for(record_words(vocabulary), code_terms(vocabulary))


@lru_cache(maxsize=256)
def _system_terms_for(
    words: tuple[str, ...], code: tuple[str, ...]
) -> tuple[tuple[str, re.Pattern[str]], ...]:
    def alternation(phrases: Iterable[str]) -> str:
        return "|".join(
            r"\s+".join(re.escape(part) for part in phrase.split())
            for phrase in sorted(phrases, key=len, reverse=True)
        )

    terms = [*_TERMS, ("policy", re.compile(rf"\bmajor\s+(?:{alternation(words)})\b", re.IGNORECASE))]
    spoken = {" ".join(term.replace("_", " ").split()) for term in code}
    spoken = {phrase for phrase in spoken if " " in phrase}  # a field's name of two words or more
    if spoken:
        terms.append(("field", re.compile(rf"\b(?:{alternation(spoken)})\b", re.IGNORECASE)))
    return tuple(terms)


_SENTENCE = re.compile(r"[^.!?;\n]+")


def _own_words(persona: Persona) -> str:
    """The persona's own text: a term it uses itself is no coaching."""
    parts = [persona.goal, persona.opening]
    for fact in persona.facts:
        parts += [fact.key.replace("_", " "), fact.value, fact.phrasing or ""]
    return "\n".join(parts)


def check_coaching(utterance: str, context: GuardContext) -> GuardHit | None:
    """A suggestion or imperative naming a tool, field, state or policy term foreign to the persona.

    A term of the persona's systems (its vocabulary's ``terms``) coaches anywhere, as the coaching
    metric counts it. Also fires on whatever
    :func:`~enterprise_envs.scenarios.users.fidelity.coaching_reasons` counts, so a reply that
    passes never counts in the coaching metric. Placeholders left unfilled are the ``leak``
    check's business and read as "it" here.
    """
    text = _PLACEHOLDER.sub("it", _filled(utterance, context))
    own = _own_words(context.persona)
    terms = _system_terms(context.persona.vocabulary)
    found = []
    for sentence in _SENTENCE.findall(text):
        if not any(pattern.search(sentence) for pattern in _SUGGESTIONS):
            continue
        found += [name for name, term in terms if term.search(sentence) and not term.search(own)]
    found += fidelity.coaching_reasons(text, context.persona)
    found = list(dict.fromkeys(found))
    return GuardHit("coaching", ", ".join(found)) if found else None


# --- stop hygiene ----------------------------------------------------------------------------------

_FAREWELLS = re.compile(
    r"|".join(
        (
            r"\b(?:good\s*)?bye\b",
            r"\bhave\s+a\s+(?:nice|good|great|lovely)\s+(?:day|one|weekend|evening|afternoon)\b",
            r"\bthat\s*(?:'\s*s|\s+is|\s+was)\s+(?:all|everything|it\s+for\s+(?:now|today))\b",
            r"\ball\s+(?:set|sorted|good|fixed)\s+now\b",
            r"\b(?:problem|issue)\s*(?:'\s*s|\s+is)?\s+(?:solved|fixed|resolved|sorted)\b",
            r"\b(?:it|everything)\s*(?:'\s*s|\s+is)\s+(?:working|fixed|resolved|solved|sorted)\s+now\b",
            r"\b(?:it\s+)?works\s+now\b",
            r"\b(?:we\s*'\s*re|we\s+are|I\s*'\s*m|I\s+am)\s+(?:done|all\s+set)\b",
            r"\bno\s+(?:further|more|other)\s+(?:questions|issues|help)\b",
            r"\bnothing\s+else\b",
            r"\byou\s+can\s+close\s+(?:it|this|the\s+ticket)\b",
            r"\b(?:forget\s+it|never\s*mind|I\s+give\s+up)\b",
        )
    ),
    re.IGNORECASE,
)


def _phrases(text: str, phrases: Iterable[str]) -> list[str]:
    return fidelity.phrases_in(text, phrases)


def check_stop(utterance: str, context: GuardContext) -> GuardHit | None:
    """The reply ends the conversation while the UserView says the goal is not met.

    A farewell, giving up, or a claim that the problem is solved (the fidelity metric's success and
    farewell markers; success markers do not count next to a deny marker such as "still"). Not a
    stop: a turn meant to end (``may_end``), a view whose ``done_when`` is true, and the words of a
    step report whose step the view says helped (the user quoting their own report).
    """
    persona = context.persona
    if context.may_end or context.view.get(persona.done_when, False):
        return None
    text = _filled(utterance, context)
    found = [match.group(0) for match in _FAREWELLS.finditer(text)]
    found += _phrases(text, fidelity.FAREWELL_MARKERS)
    if not _phrases(text, fidelity.DENY_MARKERS):
        found += _phrases(text, fidelity.SUCCESS_MARKERS)
    reports = "\n".join(
        step.when_true for step in persona.steps if context.view.get(step.view, False)
    ).translate(_APOSTROPHES)
    found = [phrase for phrase in dict.fromkeys(found) if not fidelity.phrase_pattern(phrase).search(reports)]
    return GuardHit("stop", ", ".join(found)) if found else None


def check_contradiction(utterance: str, context: GuardContext) -> GuardHit | None:
    """The reply says the problem is still there after the user already said it works.

    The user's own word is read from the transcript as the rule user remembers it
    (``History.works_said``), and the candidate as the ``self_contradiction`` metric reads it.
    """
    if not context.transcript:
        return None
    said = history(context.persona, context.transcript).works_said
    if said is None or not says_not_working(context.persona, _filled(utterance, context)):
        return None
    return GuardHit("contradiction", f"said it works in user turn {said}")


#: Every check, in the order :func:`guard` runs them.
CHECKS: tuple[Callable[[str, GuardContext], GuardHit | None], ...] = (
    check_leak,
    check_canary,
    check_role_swap,
    check_coaching,
    check_stop,
    check_contradiction,
)


def guard(utterance: str, context: GuardContext) -> list[GuardHit]:
    """Every check that fires on the utterance (empty: the utterance may be sent, after :func:`fill`)."""
    return [hit for check in CHECKS if (hit := check(utterance, context)) is not None]
