"""What every user simulator produces and consumes: messages, acts, turns, the protocol."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from enterprise_envs.scenarios.users.persona import Mood, Persona, UserView

Role = Literal["user", "agent"]


@dataclass(frozen=True)
class Message:
    """One message of the conversation between the simulated user and the agent."""

    role: Role
    text: str


class AgentAct(enum.Enum):
    """What an agent message does, as the user understands it."""

    ASK_FACT = "ask_fact"
    ASK_UNKNOWN = "ask_unknown"
    ASK_SECRET = "ask_secret"
    INSTRUCT_STEP = "instruct_step"
    CLAIM_RESOLVED = "claim_resolved"
    CLOSE = "close"
    TRANSFER = "transfer"
    OTHER = "other"


class UserIntent(enum.Enum):
    """What the user's reply does (the rule policy's branches)."""

    OPENING = "opening"
    REFUSE = "refuse"
    DONT_KNOW = "dont_know"
    PUSH_BACK = "push_back"
    INFORM = "inform"
    REPORT_STEP = "report_step"
    ACCEPT = "accept"
    DENY = "deny"
    RESTATE = "restate"
    ACK_TRANSFER = "ack_transfer"
    ABANDON = "abandon"


class Terminal(enum.Enum):
    """Why the user ended the conversation."""

    DONE = "done"  # the UserView says the goal is met and the user said goodbye
    TRANSFERRED = "transferred"
    ABANDONED = "abandoned"  # patience ran out


@dataclass(frozen=True)
class UserTurn:
    """One reply of the simulated user, with what it did (for logs and metrics).

    Attributes:
        text: What the user says.
        intent: The reply's branch.
        acts: The agent acts recognized in the message replied to, as ``act`` or ``act:key``.
        disclosed: Fact keys told in this reply.
        terminal: Set when the user ends the conversation.
        patience_left: Patience after this turn.
        mood: Mood after this turn.
        unanswered: Agent questions the persona had no fact, unknown or refusal for (pilot tooling).
        backend: ``rules`` or ``llm``; ``llm->rules`` when the guard fell back.
        guard_hits: Guard checks that fired on rejected candidates (LLM backend).
    """

    text: str
    intent: UserIntent
    acts: tuple[str, ...] = ()
    disclosed: tuple[str, ...] = ()
    terminal: Terminal | None = None
    patience_left: int = 0
    mood: Mood = Mood.CALM
    unanswered: tuple[str, ...] = ()
    backend: str = "rules"
    guard_hits: tuple[str, ...] = field(default=())


class UserSimulator(Protocol):
    """A simulated user. ``respond`` is a pure function of its inputs for the rule backend.

    With an empty transcript it returns the opening message.
    """

    def respond(self, persona: Persona, seed: int, transcript: Sequence[Message], view: UserView) -> UserTurn:
        """The user's next turn after the transcript (whose last message is the agent's)."""
        ...
