"""What every user simulator produces and consumes: messages, acts, turns, the protocol."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from enterprise_envs.scenarios.users.persona import Mood, Persona, UserView

Role = Literal["user", "agent"]


@dataclass(frozen=True)
class Message:
    """One message of the conversation between the simulated user and the agent."""

    role: Role
    text: str
    #: Tool calls the agent had made when the message was written (orders messages and writes).
    at_call: int = 0


class AgentAct(enum.Enum):
    """What an agent message does, as the user understands it."""

    ASK_FACT = "ask_fact"
    ASK_UNKNOWN = "ask_unknown"
    ASK_SECRET = "ask_secret"
    INSTRUCT_STEP = "instruct_step"
    CLAIM_RESOLVED = "claim_resolved"
    CLOSE = "close"
    TRANSFER = "transfer"
    #: Puts a fact of the user's back to them with another value than theirs ("So it started on
    #: Tuesday, right?" when it started Monday): the user corrects it.
    MISSTATE_FACT = "misstate_fact"
    #: Puts a fact of the user's back to them with their own value ("So it started Monday?").
    RESTATE_FACT = "restate_fact"
    #: Answers with several values where one was wanted ("It's New, In Progress or On Hold").
    ALTERNATIVES = "alternatives"
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
    CORRECT = "correct"  # a fact of the user's put back wrong: "No, it started Monday."
    CONFIRM = "confirm"  # a fact of the user's put back right: "Yes, that's right."
    CLARIFY = "clarify"  # several values offered for one: "Which one is it?"
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
    #: The user said the problem is solved (accepted a claim, or reported a step that worked).
    confirms: bool = False

    def to_dict(self) -> dict[str, Any]:
        """The turn as JSON-ready data (enums as their values), for run logs."""
        return {
            "text": self.text,
            "intent": self.intent.value,
            "acts": list(self.acts),
            "disclosed": list(self.disclosed),
            "terminal": self.terminal.value if self.terminal is not None else None,
            "patience_left": self.patience_left,
            "mood": self.mood.value,
            "unanswered": list(self.unanswered),
            "backend": self.backend,
            "guard_hits": list(self.guard_hits),
            "confirms": self.confirms,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> UserTurn:
        """The turn :meth:`to_dict` wrote."""
        return cls(
            text=data["text"],
            intent=UserIntent(data["intent"]),
            acts=tuple(data.get("acts", ())),
            disclosed=tuple(data.get("disclosed", ())),
            terminal=Terminal(data["terminal"]) if data.get("terminal") else None,
            patience_left=data.get("patience_left", 0),
            mood=Mood(data.get("mood", Mood.CALM.value)),
            unanswered=tuple(data.get("unanswered", ())),
            backend=data.get("backend", "rules"),
            guard_hits=tuple(data.get("guard_hits", ())),
            confirms=bool(data.get("confirms", False)),
        )


class UserSimulator(Protocol):
    """A simulated user. ``respond`` is a pure function of its inputs for the rule backend.

    With an empty transcript it returns the opening message.
    """

    def respond(self, persona: Persona, seed: int, transcript: Sequence[Message], view: UserView) -> UserTurn:
        """The user's next turn after the transcript (whose last message is the agent's)."""
        ...
