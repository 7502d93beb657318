"""The scenario format: one TOML file per scenario, validated by these models.

A scenario is the task triplet:

- **problem**: the user's persona (goal, closed facts, unknowns, refusals, style) and the UserView
  checks that tell the simulator what it can observe;
- **environment**: the world (size), params drawn per seed from it, setup calls placing the
  scenario's state, faults, budget;
- **verification**: the expectation (required, allowed, forbidden changes, transcript checks) and
  reference solutions (the oracle) proving the task can be done.

Values anywhere may use ``{{param.field}}`` templates, resolved when an instance is drawn. The JSON
Schema is published as ``scenarios/schema/scenario.schema.json``. See docs/scenarios.md.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

_ID = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$"
_NAME = r"^[a-z_][a-z0-9_]*$"


def scenario_json_schema() -> dict[str, Any]:
    """The published JSON Schema of a scenario file."""
    schema = Scenario.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "enterprise-envs scenario"
    return schema


#: The template root of the caller's closed facts in ``[expect]``: ``{{facts.deadline}}`` is the
#: persona's fact ``deadline`` as drawn for the instance (what required text must state).
FACTS = "facts"


class ScenarioError(ValueError):
    """A scenario that cannot be loaded or instantiated: the author's bug, never the agent's."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Budget(_Strict):
    """Limits of one episode; reaching one truncates it."""

    max_steps: int = Field(30, ge=1, description="Agent actions (tool calls, messages, end).")
    max_tool_calls: int = Field(20, ge=0)


class ParamSpec(_Strict):
    """A value drawn per seed from the world: one row (or several) of a table.

    ``where`` is a SQL condition over the table's columns written by the scenario author (trusted
    package data); ``{{earlier.param}}`` inside it is bound as a SQL parameter, never pasted.
    """

    table: str
    where: str = "1"
    count: int = Field(1, ge=1, description="Rows to draw; more than 1 gives a list.")
    order_by: str | None = Field(
        None, description="Candidates are sorted so a seed picks the same rows (default: the table's key)."
    )


class SetupCall(_Strict):
    """A call that places the scenario's state over the world before the episode starts."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    surface: Literal["typed", "rest"] = "typed"
    as_user: str | None = Field(
        None, description="Login to act as (templated); default: the tool's system's setup user."
    )
    save_as: str | None = Field(None, pattern=_NAME, description="Keep the result body as a param.")


class ViewCheck(_Strict):
    """One UserView key: what the user can tell on their own, from what they see and were told.

    The user sees no state but the notifications the system sends them (observational closure,
    docs/users.md), so a key is computed from those and the conversation only:

    ``told_text``: an agent message tells ``text`` (a status the user asked for), read as the
    verifier reads it: asserted, and none of ``rivals`` offered ("New, In Progress or On Hold"
    tells nothing). ``told_record``: an agent message tells a record number of ``table``: with
    ``events``, the number of a record one of those notifications was about (the number in the
    e-mail the user got); without, any number of that table's format that is not one of the
    user's own facts (the user cannot check it). ``claimed``: the agent's latest message reports
    the work done (or asks whether it works now, or signs off, after reporting it); with
    ``events``, only once one of those notifications (about ``record``, when given) has reached
    the user. ``notified``: one of ``events`` (about ``record``, when given) has reached the
    user, whatever the agent says: what they see happen on their own (the e-mail that their
    account is unlocked, so signing in works again). ``situation``: the user's own circumstances
    (which fix works on their machine), a row of ``table`` matching ``where``, read once when the
    instance is drawn, before the agent does anything.
    """

    kind: Literal["situation", "told_record", "told_text", "claimed", "notified"]
    table: str = ""
    where: str = "1"
    text: str = ""
    rivals: list[str] = Field(default_factory=list, description="told_text: the other values of its kind.")
    events: list[str] = Field(default_factory=list, description="Notifications that corroborate it.")
    record: str = Field("", description="claimed, notified: the record the notification must be about.")

    @model_validator(mode="after")
    def _fields_for_kind(self) -> ViewCheck:
        if (self.kind == "told_text") != bool(self.text):
            raise ValueError("told_text needs text, and only told_text takes text")
        if (self.kind in ("situation", "told_record")) != bool(self.table):
            raise ValueError("situation and told_record need a table, and only they take one")
        if self.where != "1" and self.kind != "situation":
            raise ValueError("only a situation reads state (where); the user sees nothing else")
        if self.events and self.kind not in ("told_record", "claimed", "notified"):
            raise ValueError("only told_record, claimed and notified read notifications (events)")
        if self.kind == "notified" and not self.events:
            raise ValueError("notified needs events: the notifications that make it true")
        if self.record and not (self.kind in ("claimed", "notified") and self.events):
            raise ValueError("record narrows a claimed or notified check's notifications (events)")
        return self


class SolutionStep(_Strict):
    """One step of a reference solution: a tool call, a message to the user, or the end."""

    tool: str | None = None
    arguments: dict[str, Any] = Field(default_factory=dict)
    message: str | None = None
    save_as: str | None = Field(None, pattern=_NAME, description="Keep the result body for later steps.")
    end: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> SolutionStep:
        kinds = sum([self.tool is not None, self.message is not None, self.end])
        if kinds != 1:
            raise ValueError("a step is exactly one of: tool, message, end")
        return self


class Solution(_Strict):
    """A reference solution (the oracle) on one surface."""

    name: str = Field(pattern=_NAME)
    surface: Literal["typed", "rest"] = "typed"
    steps: list[SolutionStep]


class Scenario(_Strict):
    """One scenario file.

    Attributes:
        id: ``<system>.<name>`` (``itsm.report_incident``); unique across the registry.
        version: Bumped when the task changes, so trajectories stay comparable.
        systems: The mocked systems it uses (``["itsm"]``).
        title: One line for people.
        tags: Capabilities it exercises (lookup, multi_step, ambiguity, refusal, pagination,
            recovery, policy, create, update, ...).
        budget: Step and tool-call limits.
        world_size: The world it is designed for (an env may override it).
        params: Values drawn per seed from the world, in order (later ones may use earlier ones).
        setup: Calls placing the scenario's state after the world is restored.
        user: The persona (issue 4's format) with templates.
        person: The key of the world's person the user is (``{{caller.sys_id}}``): whose
            notifications they receive.
        view: UserView keys and how each is computed.
        faults: Injected faults (``FaultConfig`` fields).
        solutions: Reference solutions; the first on each surface is the oracle's.
        expect: The expectation (the verifier's format).
        policy: Additions to the system's runbook rules (``rules``, ``entitled`` rows); none
            can be removed (verifiers/policy.py).
    """

    id: str = Field(pattern=_ID)
    version: int = Field(ge=1)
    systems: list[str] = Field(min_length=1)
    title: str
    tags: list[str] = Field(min_length=1)
    budget: Budget = Field(default_factory=Budget)
    world_size: Literal["tiny", "default", "large"] = "default"
    params: dict[str, ParamSpec] = Field(default_factory=dict)
    setup: list[SetupCall] = Field(default_factory=list)
    user: dict[str, Any]
    person: str = ""
    view: dict[str, ViewCheck] = Field(default_factory=dict)
    faults: dict[str, Any] = Field(default_factory=dict)
    solutions: list[Solution] = Field(min_length=1)
    expect: dict[str, Any]
    policy: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _consistent(self) -> Scenario:
        names = [solution.name for solution in self.solutions]
        if len(names) != len(set(names)):
            raise ValueError(f"duplicate solution names: {names}")
        system = self.id.split(".", 1)[0]
        if system not in self.systems:
            raise ValueError(f"id {self.id!r} does not start with one of its systems {self.systems}")
        return self
