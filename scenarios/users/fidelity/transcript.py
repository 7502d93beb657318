"""What every fidelity metric reads and returns: transcripts, ratios and findings.

A :class:`Transcript` is the persona a conversation was played with, its messages and, when
available, the simulator's :class:`UserTurn` records and the final :data:`UserView`. A metric
returns a :class:`Ratio` (its counts) and the :class:`Finding` list naming what it counted.

- **User turns** are the user messages in order; turn 0 is the opening. "Before user turn *i*"
  means the messages that precede it in the transcript.
- A fact is **asked for** by an agent message that matches one of its ``asked_by`` patterns
  (``re.search``, case-insensitive); the same holds for unknowns and refusals.
- A :class:`Ratio` keeps its numerator and denominator; rates over several transcripts are
  micro-averaged (numerators and denominators summed). A ratio with a zero denominator has no
  value (``None``, shown as ``n/a``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from enterprise_envs.scenarios.users.acts import parse_agent_message
from enterprise_envs.scenarios.users.persona import Persona, UserView
from enterprise_envs.scenarios.users.turns import AgentAct, Message, UserTurn
from enterprise_envs.verifiers.text import MAX_READ_CHARS, readable


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


def _asked_keys(persona: Persona, text: str, act: AgentAct) -> set[str | None]:
    """The items an agent message asks for, as the rule user's parser reads it (a real request)."""
    return {parsed.key for parsed in parse_agent_message(persona, text) if parsed.act is act}


def _asked(patterns: Iterable[str], text: str) -> bool:
    return any(re.search(pattern, text, re.IGNORECASE) for pattern in patterns)
