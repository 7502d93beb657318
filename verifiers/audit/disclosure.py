"""Premature fact use: tool calls carrying a value only the user knows, before the agent learnt it.

A trace used as a demonstration (supervised fine-tuning from the oracle's episodes) must not use
what the agent could not know yet: the caller's e-mail address in a lookup before the caller gave
it teaches a policy to pull values out of thin air. :func:`premature_uses` reads a finished
episode's messages (OpenAI chat format, as the env's final ``info["messages"]`` holds them) and
the user's persona facts, and reports every tool call whose arguments carry a private fact's value
that nothing before the call had made known to the agent.

Which facts count (:func:`private_facts`): identifiers and attributes whose value is a specific
token an agent could not guess or write by chance: at least :data:`MIN_VALUE_LENGTH` characters,
at most :data:`MAX_VALUE_WORDS` words, and marked as a proper value by a digit, a capital letter or
one of ``@#_-./:`` (e-mail addresses, employee numbers, record numbers, names, host names, team
and product names). Free-text values (a ``details`` sentence, "only me", "no workaround") and
symptoms, histories and preferences do not count: an agent may well write such words on its own.

When a value is known: it occurs in a text the agent has seen before the call, that is in
``known`` (the instructions, anything visible at reset), a system message, a user message, or an
earlier tool result (a value the agent looked up is fair to use). "Occurs" and "carries" both use
the one value matcher of the package (:func:`~enterprise_envs.verifiers.text.value_pattern`):
case-insensitive, whole tokens (``Legal`` is not in ``illegal``, ``100146`` not in ``1001460``),
any white space between words.

Plain data only: facts are anything with ``key``, ``value`` and ``kind`` (a string or an enum whose
``value`` is one), so this layer needs neither the persona models nor the env.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from enterprise_envs.verifiers.text import value_pattern

#: Fact kinds whose values are looked up or written into records (symptoms, histories and
#: preferences are the user's own words).
COUNTED_KINDS = frozenset({"identifier", "attribute"})
#: Shorter values are too generic to tell a use from a coincidence.
MIN_VALUE_LENGTH = 4
#: Longer values are sentences, which an agent paraphrases rather than copies.
MAX_VALUE_WORDS = 4
#: What marks a value as specific: a digit, a capital letter (a name) or an identifier's punctuation.
_SPECIFIC = re.compile(r"[0-9A-Z@#_\-./:]")


class FactLike(Protocol):
    """A persona fact as this module reads it (``scenarios.users.persona.Fact`` is one)."""

    key: str
    value: str
    kind: Any


@dataclass(frozen=True)
class PrivateFact:
    """A fact only the user knows at the start, whose value a tool call may carry."""

    key: str
    value: str


@dataclass(frozen=True)
class PrematureUse:
    """A tool call carrying a private fact's value before the agent could know it.

    Attributes:
        message: Index of the assistant message holding the call in ``messages``.
        call_id: The tool call's id (empty when the message had none).
        tool: The tool called.
        fact: The fact's key.
        value: The fact's value.
    """

    message: int
    call_id: str
    tool: str
    fact: str
    value: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return asdict(self)

    def __str__(self) -> str:
        return f"message {self.message}: {self.tool} uses {self.fact}={self.value!r} before it was known"


def counts(fact: FactLike) -> bool:
    """Whether a fact's value is specific enough to count (see the module docstring)."""
    kind = getattr(fact.kind, "value", fact.kind)
    value = str(fact.value).strip()
    return (
        kind in COUNTED_KINDS
        and len(value) >= MIN_VALUE_LENGTH
        and len(value.split()) <= MAX_VALUE_WORDS
        and _SPECIFIC.search(value) is not None
    )


def private_facts(facts: Iterable[FactLike]) -> tuple[PrivateFact, ...]:
    """The facts :func:`premature_uses` checks, in the persona's order (one per distinct value)."""
    out: dict[str, PrivateFact] = {}
    for fact in facts:
        if counts(fact):
            value = str(fact.value).strip()
            out.setdefault(value.casefold(), PrivateFact(fact.key, value))
    return tuple(out.values())


def carries(value: str, texts: Iterable[str]) -> bool:
    """Whether any of the texts holds the value (case-insensitive, whole tokens)."""
    pattern = value_pattern(value)
    return pattern is not None and any(pattern.search(text) for text in texts)


def strings_in(data: Any) -> Iterator[str]:
    """Every string and number in JSON data (keys included), depth first."""
    if isinstance(data, Mapping):
        for key, item in data.items():
            yield str(key)
            yield from strings_in(item)
    elif isinstance(data, list | tuple):
        for item in data:
            yield from strings_in(item)
    elif isinstance(data, str):
        yield data
    elif isinstance(data, int | float) and not isinstance(data, bool):
        yield str(data)


def texts_of(content: Any) -> list[str]:
    """The texts a message's content shows: the raw text and, for JSON, its strings unescaped."""
    if content is None:
        return []
    if not isinstance(content, str):
        return list(strings_in(content))
    texts = [content]
    if content[:1] in "[{":
        with contextlib.suppress(json.JSONDecodeError):
            texts.extend(strings_in(json.loads(content)))
    return texts


def _arguments(call: Mapping[str, Any]) -> tuple[str, str, list[str]]:
    """(id, tool name, argument strings) of an OpenAI tool call (malformed arguments read as text)."""
    function = call.get("function") or {}
    raw = function.get("arguments")
    if isinstance(raw, str):
        try:
            values = list(strings_in(json.loads(raw)))
        except json.JSONDecodeError:
            values = [raw]
    else:
        values = list(strings_in(raw))
    return str(call.get("id", "")), str(function.get("name", "")), values


def premature_uses(
    messages: Sequence[Mapping[str, Any]], facts: Iterable[FactLike], known: Iterable[str] = ()
) -> list[PrematureUse]:
    """Every tool call carrying a private fact the agent had not been told or shown yet.

    Args:
        messages: The episode's messages in OpenAI chat format (``info["messages"]``): user and
            system messages and tool results make values known; assistant tool calls use them.
        facts: The user's persona facts (only :func:`private_facts` of them are checked).
        known: Texts the agent saw before the first message (the reset ``info``'s instructions).

    Returns:
        One entry per (tool call, fact) in message order; empty for a fair trace.
    """
    pending = list(private_facts(facts))
    seen = [text for text in known if text]
    pending = [fact for fact in pending if not carries(fact.value, seen)]
    found: list[PrematureUse] = []
    for index, message in enumerate(messages):
        if not pending:
            break
        role = message.get("role")
        if role in ("user", "tool", "system"):
            texts = texts_of(message.get("content"))
            pending = [fact for fact in pending if not carries(fact.value, texts)]
            continue
        if role != "assistant":
            continue
        for call in message.get("tool_calls") or ():
            call_id, tool, values = _arguments(call)
            for fact in pending:
                if carries(fact.value, values):
                    found.append(PrematureUse(index, call_id, tool, fact.key, fact.value))
    return found


__all__ = [
    "COUNTED_KINDS",
    "MAX_VALUE_WORDS",
    "MIN_VALUE_LENGTH",
    "PrematureUse",
    "PrivateFact",
    "carries",
    "counts",
    "premature_uses",
    "private_facts",
    "strings_in",
    "texts_of",
]
