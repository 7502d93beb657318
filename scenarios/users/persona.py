"""Personas: what a simulated user knows, wants, refuses and how they talk. Data, not code.

A persona is loaded from a scenario's ``[user]`` table and validated by these models (JSON
Schema published as ``scenarios/schema/persona.schema.json``). The simulator sees the persona
and a :data:`UserView` only: never the database, the verifier or the solution.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from enterprise_envs.verifiers.templates import FACT_KEY, FACT_PLACEHOLDER

#: The few outcomes a scenario declares that the user can tell on its own ("I was told my ticket
#: number": True), computed each turn from the notifications its person got and the conversation,
#: never from other state (observational closure). The simulator's only window on the environment.
UserView = Mapping[str, bool]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


@lru_cache(maxsize=4096)
def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A compiled regular expression, cached.

    Personas are validated on every reset, and their patterns would otherwise evict each other
    from ``re``'s small cache (it cost a third of the reset time).
    """
    return re.compile(pattern, flags)


def _patterns_compile(patterns: list[str]) -> list[str]:
    for pattern in patterns:
        try:
            compiled(pattern)
        except re.error as error:
            raise ValueError(f"invalid pattern {pattern!r}: {error}") from None
    return patterns


class Disclosure(enum.Enum):
    """When a fact may be told."""

    OPENING = "opening"  # said in the first message
    ON_ASK = "on_ask"  # only when the agent asks for it
    NEVER = "never"  # never told (a secret the user holds but must not share)


class FactKind(enum.Enum):
    """What sort of fact, for metrics (front-loading counts identifiers)."""

    IDENTIFIER = "identifier"
    ATTRIBUTE = "attribute"
    SYMPTOM = "symptom"
    HISTORY = "history"
    PREFERENCE = "preference"


class Fact(_Strict):
    """Something the user knows and may tell.

    Attributes:
        key: Name (``employee_id``); also the placeholder ``{{employee_id}}`` in templates.
        value: The exact value; protected from typos and paraphrase.
        asked_by: Regular expressions (case-insensitive) that count as the agent asking for it.
        disclosure: opening, on_ask or never.
        min_turn: The earliest user turn (0 = opening) in which it may be told.
        kind: identifier, attribute, symptom, history or preference.
        phrasing: How the user says it, with ``{value}`` (default: a template per kind).
        decides: Change entry ids it decides: their write must come after the user told it.
    """

    key: str = Field(pattern=f"^{FACT_KEY}$")
    value: str
    asked_by: list[str] = Field(default_factory=list)
    disclosure: Disclosure = Disclosure.ON_ASK
    min_turn: int = Field(0, ge=0)
    kind: FactKind = FactKind.ATTRIBUTE
    phrasing: str | None = None
    decides: list[str] = Field(
        default_factory=list,
        description="Change entry ids whose write must wait until the user told this fact (which one).",
    )

    _check_patterns = field_validator("asked_by")(_patterns_compile)

    @field_validator("value", mode="before")
    @classmethod
    def _as_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class Unknown(_Strict):
    """Something the user explicitly does not know (they say so instead of inventing)."""

    key: str = Field(pattern=f"^{FACT_KEY}$")
    asked_by: list[str]
    reply: str | None = None

    _check_patterns = field_validator("asked_by")(_patterns_compile)


class Refusal(_Strict):
    """A request the user refuses (passwords, MFA codes, someone else's data)."""

    key: str = Field(pattern=f"^{FACT_KEY}$")
    asked_by: list[str]
    reply: str | None = None
    patience_cost: int = Field(1, ge=0)

    _check_patterns = field_validator("asked_by")(_patterns_compile)


class StepOutcome(_Strict):
    """What the user reports after the agent tells them to try something.

    The report is read from the UserView (``view`` key), never invented.
    """

    key: str = Field(pattern=f"^{FACT_KEY}$")
    asked_by: list[str] = Field(description="Patterns recognizing the instruction (e.g. 'restart|reboot').")
    view: str = Field(description="UserView key telling whether trying the step helped.")
    when_true: str
    when_false: str

    _check_patterns = field_validator("asked_by")(_patterns_compile)


class Mood(enum.Enum):
    """How the user feels; frustration changes the register."""

    CALM = "calm"
    IRRITATED = "irritated"
    ANGRY = "angry"


class Patience(_Strict):
    """A budget the agent spends; the user abandons when it runs out."""

    budget: int = Field(14, ge=1)
    per_turn: int = Field(1, ge=0)
    repeated_question: int = Field(2, ge=0)
    false_fixed: int = Field(3, ge=0)
    redo_step: int = Field(1, ge=0)
    unhelpful: int = Field(
        1,
        ge=0,
        description="Extra, for a reply to a message that gives the user nothing (no question, claim, "
        "step or hand-over): stalling costs more than a useful exchange.",
    )
    irritated_below: float = Field(0.5, gt=0, le=1, description="Fraction of the budget left.")
    angry_below: float = Field(0.25, gt=0, le=1)

    @model_validator(mode="after")
    def _ordered(self) -> Patience:
        if self.angry_below > self.irritated_below:
            raise ValueError("angry_below must not exceed irritated_below")
        return self

    def mood(self, left: int) -> Mood:
        """The mood at this much patience left."""
        fraction = left / self.budget
        if fraction < self.angry_below:
            return Mood.ANGRY
        if fraction < self.irritated_below:
            return Mood.IRRITATED
        return Mood.CALM


class Register(enum.Enum):
    """Wording bank: how many words the user spends."""

    TERSE = "terse"
    NEUTRAL = "neutral"
    WORDY = "wordy"


class Style(_Strict):
    """How the user writes. Fact values are never altered by style."""

    wording: Register = Field(Register.NEUTRAL, description="terse, neutral or wordy template bank.")
    politeness: float = Field(0.5, ge=0, le=1, description="Probability of a courtesy word.")
    typo_rate: float = Field(0.0, ge=0, le=0.2, description="Per-word probability of a typo.")
    lowercase: bool = False
    answers_per_turn: int = Field(2, ge=1, le=5, description="Most facts given in one reply.")
    identifiers_in_opening: bool = False


class Vocabulary(_Strict):
    """The words and record numbers of the systems the user's scenario runs on, as plain data.

    Set by the scenario instance from its systems' declared conventions (a user package may not
    import a mock: observational closure), not by scenario authors. The guard, the fidelity
    metrics and the rule user's reading of record numbers take a system's words from here; the
    default is no system in particular (generic help-desk words, any record number).

    Attributes:
        record: What a person calls one of the systems' records ("ticket").
        terms: Words only someone reading the systems' own API or admin screens would use (field
            names, query syntax, internal states): a user saying them coaches the agent.
        nouns: Table -> what a person calls a record of it ("issue" -> "ticket").
        numbers: Record-number prefix -> its digit count (``{"TKT": 6}``): what the systems'
            record numbers look like.
    """

    record: str = "record"
    terms: list[str] = Field(default_factory=list)
    nouns: dict[str, str] = Field(default_factory=dict)
    numbers: dict[str, int] = Field(default_factory=dict)

    @field_validator("numbers")
    @classmethod
    def _digit_counts(cls, numbers: dict[str, int]) -> dict[str, int]:
        for prefix, digits in numbers.items():
            if not re.fullmatch(r"[A-Za-z]{2,6}", prefix) or not 3 <= digits <= 12:
                raise ValueError(f"record numbers {prefix!r}: 2-6 letters and 3-12 digits, not {digits}")
        return numbers

    def key(self) -> tuple[Any, ...]:
        """A hashable form (for caches of what is compiled from it)."""
        return (
            self.record,
            tuple(self.terms),
            tuple(sorted(self.nouns.items())),
            tuple(sorted(self.numbers.items())),
        )


class Persona(_Strict):
    """One simulated user.

    Attributes:
        name: The user's display name (what they call themselves).
        goal: What they want, in their words (for the LLM prompt and restating the goal).
        opening: The first message, with no identifiers unless ``style.identifiers_in_opening``
            (``{{key}}`` placeholders are filled for opening facts only).
        facts, unknowns, refusals, steps: See the classes.
        done_when: The UserView key meaning "my goal is met".
        patience, style: See the classes.
        variant: Population variant name (``base``, ``terse``, ``frustrated``, ...).
        vocabulary: The systems' words and record-number shape (set by the scenario instance,
            not by authors; the default is no system in particular).
    """

    name: str
    goal: str
    opening: str
    facts: list[Fact] = Field(default_factory=list)
    unknowns: list[Unknown] = Field(default_factory=list)
    refusals: list[Refusal] = Field(default_factory=list)
    steps: list[StepOutcome] = Field(default_factory=list)
    done_when: str
    patience: Patience = Field(default_factory=Patience)
    style: Style = Field(default_factory=Style)
    variant: str = "base"
    vocabulary: Vocabulary = Field(default_factory=Vocabulary)

    @model_validator(mode="after")
    def _consistent(self) -> Persona:
        keys = [item.key for item in [*self.facts, *self.unknowns, *self.refusals, *self.steps]]
        duplicates = sorted({key for key in keys if keys.count(key) > 1})
        if duplicates:
            raise ValueError(f"duplicate keys: {duplicates}")
        facts = {fact.key: fact for fact in self.facts}
        for key in FACT_PLACEHOLDER.findall(self.opening):
            if key not in facts:
                raise ValueError(f"opening mentions unknown fact {key!r}")
            if facts[key].disclosure is not Disclosure.OPENING:
                raise ValueError(f"opening mentions {key!r}, which is not disclosed at opening")
        return self

    def fact(self, key: str) -> Fact | None:
        """The fact called ``key``."""
        return next((fact for fact in self.facts if fact.key == key), None)

    def view_keys(self) -> set[str]:
        """Every UserView key the persona reads."""
        return {self.done_when, *(step.view for step in self.steps)}


def persona_json_schema() -> dict[str, Any]:
    """The published JSON Schema of the persona format."""
    schema = Persona.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "enterprise-envs persona"
    return schema
