"""The trajectory record: one JSON line per episode of ``enterprise-envs run``, and its JSON Schema.

A record holds what a training or evaluation pipeline needs without re-running anything: the run's
settings (agent, model and endpoint, user backend, make options), the episode's identity (scenario,
version, seed, spec versions), the tools given, the dialogue in OpenAI chat format (tool-call ids
kept, refused actions kept with their error, each assistant turn flagged as a training target or
as context), the outcome and verdict, the budgets used and per-turn latency.

The models below are the record's contract: :func:`trajectory_json_schema` is published as
``enterprise_envs/schema/trajectory.schema.json`` (``python -m enterprise_envs.schemas``), and the
tests validate what ``run`` writes against that file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

#: Bumped when a field changes meaning or goes away (adding a field does not bump it).
RECORD_VERSION = 2

#: Fields that differ between two runs of the same seeds and actions (identity and wall-clock
#: time); everything else is the same, byte for byte, for deterministic agents.
VOLATILE_FIELDS = ("run", "started", "finished", "seconds", "turns")


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FunctionCall(_Closed):
    """The function of a tool call, its arguments as the agent sent them (JSON text, maybe malformed)."""

    name: str
    arguments: str


class ToolCall(_Closed):
    """An OpenAI tool call."""

    id: str
    type: Literal["function"]
    function: FunctionCall


class ChatMessage(_Closed):
    """A message in OpenAI chat format, with the record's ``target`` flag on assistant messages.

    ``target`` is true for an assistant turn a policy may be trained to produce and false for
    context: a turn the environment answered with an error (a refused action, or a turn with a
    malformed call). A ``user`` message named ``environment`` is such an error, not the user.
    """

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    name: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    target: bool | None = None


class AgentSettings(_Open):
    """The agent and, for a model-backed one, its model and endpoint settings (never a key)."""

    name: str


class UserSettings(_Closed):
    """The simulated user's backend and, for ``llm``, its model and endpoint."""

    backend: str
    model: str | None
    base_url: str | None


class MakeOptions(_Closed):
    """What ``gymnasium.make`` was given."""

    env_id: str
    scenario: list[str] | None
    surface: Literal["typed", "rest"]
    world_size: str | None
    world_seed: int
    faults: str | dict[str, Any]
    max_episode_steps: int | None


class RunInfo(_Closed):
    """The run an episode belongs to."""

    id: str
    started: str = Field(description="ISO 8601, UTC")
    package_version: str
    command: str
    agent: AgentSettings
    user: UserSettings
    make: MakeOptions
    jobs: int = Field(ge=1)
    trials: int = Field(ge=1)


class Used(_Closed):
    """A budget: how much was used of the limit."""

    used: int = Field(ge=0)
    limit: int | None


class TokensUsed(_Closed):
    """Model tokens the agent spent (0 for agents without a model)."""

    used: int = Field(ge=0)
    limit: int | None
    prompt: int = Field(ge=0)
    completion: int = Field(ge=0)


class Budget(_Closed):
    """Budgets used: steps, tool calls, tokens."""

    steps: Used
    tool_calls: Used
    tokens: TokensUsed


class Infrastructure(_Closed):
    """Faults outside the policy: the endpoint's retries and errors, the faults injected in the world."""

    endpoint_retries: int = Field(ge=0)
    endpoint_errors: list[str]
    injected_faults: int = Field(ge=0)
    worker_retries: int = Field(
        default=0, ge=0, description="plays of this episode lost with a Ray worker before this one"
    )


class Turn(_Closed):
    """One step: what kind of action, how long the agent took to choose it and the env to answer."""

    step: int = Field(ge=1)
    action: Literal["tool", "turn", "message", "end", "malformed"]
    agent_seconds: float = Field(ge=0)
    env_seconds: float = Field(ge=0)


class Outcome(_Open):
    """``success``, ``failure`` or ``invalid`` (not the policy's doing: excluded from scores), and why."""

    kind: Literal["success", "failure", "invalid"]
    reason: str


class TrajectoryRecord(_Closed):
    """One episode of ``enterprise-envs run``."""

    record_version: Literal[2]
    run: RunInfo
    episode: int = Field(ge=0, description="index of the seed in the run")
    trial: int = Field(ge=0, description="repeat of this seed (run --trials)")
    seed: int
    scenario: str = Field(description="the scenario (task family) id")
    scenario_version: int
    title: str
    tags: list[str]
    systems: list[str]
    systems_used: list[str]
    surface: Literal["typed", "rest"]
    persona_variant: str | None
    user_backend: str
    package_version: str
    spec_version: str
    spec_versions: dict[str, str]
    tools: list[dict[str, Any]]
    messages: list[ChatMessage]
    terminated: bool
    truncated: bool
    outcome: Outcome
    reward: float
    verdict: dict[str, Any] | None
    budget: Budget
    infra: Infrastructure
    turns: list[Turn]
    started: str
    finished: str
    seconds: float = Field(ge=0)
    steps: int = Field(ge=0)
    tool_calls: int = Field(ge=0)
    faults: list[dict[str, Any]]
    user_turns: list[dict[str, Any]]
    final_view: dict[str, bool] | None


def trajectory_json_schema() -> dict[str, Any]:
    """The JSON Schema of a trajectory record (published; see the module docstring)."""
    schema = TrajectoryRecord.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://enterprise-envs.dev/schema/trajectory.schema.json"
    return schema


def heard(messages: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """The conversation the user and the agent had: (``user`` | ``agent``, text), in order.

    Left out: the system prompt, tool calls and results, the text that came with tool calls
    (recorded, never sent to the user), refused actions and the environment's errors.
    """
    spoken = []
    for message in messages:
        content = message.get("content")
        if not content:
            continue
        if message.get("role") == "user" and message.get("name") != "environment":
            spoken.append(("user", content))
        elif (
            message.get("role") == "assistant"
            and not message.get("tool_calls")
            and message.get("target") is not False
        ):
            spoken.append(("agent", content))
    return spoken


def stable_part(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record without its volatile fields: equal for equal seeds and actions."""
    return {key: value for key, value in record.items() if key not in VOLATILE_FIELDS}


__all__ = [
    "RECORD_VERSION",
    "VOLATILE_FIELDS",
    "ChatMessage",
    "TrajectoryRecord",
    "heard",
    "stable_part",
    "trajectory_json_schema",
]
