"""Agents: the protocol user code implements, an oracle and a random agent.

An agent sees what a policy sees: the observation and the reset ``info`` (instructions, tools,
budget). The oracle is the exception: it exists to validate scenarios, so it reads the
scenario instance and plays the reference solution.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping
from typing import Any, Protocol

from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mocks._core.tools import WAIT_TOOL

#: Statuses of injected faults an agent should retry after (429 after waiting Retry-After).
RETRYABLE = (429, 503, 504)
MAX_RETRIES = 5


class Agent(Protocol):
    """A policy: ``reset`` at the start of an episode, then ``act`` until it ends."""

    def reset(self, env: EnterpriseEnv, info: Mapping[str, Any]) -> None:
        """Start an episode (``info`` is what ``env.reset`` returned)."""
        ...

    def act(self, observation: Mapping[str, str]) -> str | dict[str, Any]:
        """The next action for this observation."""
        ...


class OracleAgent:
    """Plays the scenario's reference solution on the env's surface.

    Tool results saved with ``save_as`` feed later steps' templates. Injected faults are
    handled as the runbook says: wait Retry-After on a 429, retry on a 503 or 504.
    """

    def __init__(self, solution: str | None = None) -> None:
        self.solution_name = solution

    def reset(self, env: EnterpriseEnv, info: Mapping[str, Any]) -> None:
        """Pick the solution for this episode."""
        instance = env.unwrapped.instance
        if instance is None:
            raise RuntimeError("reset the env before the oracle")
        self.instance = instance
        if self.solution_name is None:
            self.solution = instance.solution(env.unwrapped.surface)
        else:
            self.solution = next(s for s in instance.scenario.solutions if s.name == self.solution_name)
        self.position = 0
        self.results: dict[str, Any] = {}
        self.pending: Any = None
        self.retries = 0
        self.waiting = False
        self.last_action: dict[str, Any] | None = None

    def act(self, observation: Mapping[str, str]) -> dict[str, Any]:
        """The next step of the solution (or a retry), then ``end``."""
        if self.pending is not None and observation.get("role") == "tool":
            if self.waiting:  # the wait after a 429 is over: retry the refused call
                self.waiting = False
                return self.last_action  # type: ignore[return-value]
            retry = self._retry_after_fault(observation["content"])
            if retry is not None:
                return retry
            if self.pending.save_as:
                self.results[self.pending.save_as] = json.loads(observation["content"])
            self.pending = None
        self.retries = 0
        if self.position >= len(self.solution.steps):
            return {"end": True}
        step = self.instance.bind_step(self.solution.steps[self.position], self.results)
        self.position += 1
        if step.tool is not None:
            self.pending = step
            self.last_action = {"tool": step.tool, "arguments": step.arguments}
            return self.last_action
        if step.message is not None:
            return {"message": step.message}
        return {"end": True}

    def _retry_after_fault(self, content: str) -> dict[str, Any] | None:
        """The action that answers an injected fault: wait out a 429, repeat after a 503/504."""
        try:
            data = json.loads(content)
        except json.JSONDecodeError:
            return None
        if not isinstance(data, dict) or data.get("status") not in RETRYABLE or self.retries >= MAX_RETRIES:
            return None
        self.retries += 1
        if data["status"] == 429:
            self.waiting = True
            seconds = int(data.get("headers", {}).get("Retry-After", "1"))
            return {"tool": WAIT_TOOL, "arguments": {"seconds": max(1, min(seconds, 3600))}}
        return self.last_action


class RandomAgent:
    """Samples tool calls with schema-valid arguments, messages and ends: a floor for policies."""

    def __init__(
        self, seed: int = 0, end_probability: float = 0.05, message_probability: float = 0.2
    ) -> None:
        self.rng = random.Random(f"random-agent:{seed}")
        self.end_probability = end_probability
        self.message_probability = message_probability

    def reset(self, env: EnterpriseEnv, info: Mapping[str, Any]) -> None:
        """Remember the tools on offer."""
        self.tools = [tool["function"] for tool in info["tools"]]

    def act(self, observation: Mapping[str, str]) -> dict[str, Any]:
        """A random action."""
        draw = self.rng.random()
        if draw < self.end_probability:
            return {"end": True}
        if draw < self.end_probability + self.message_probability:
            return {
                "message": self.rng.choice(["Can you tell me more?", "Done, anything else?", "Let me check."])
            }
        tool = self.rng.choice(self.tools)
        return {"tool": tool["name"], "arguments": sample_from_schema(tool["parameters"], self.rng)}


def sample_from_schema(schema: Mapping[str, Any], rng: random.Random, depth: int = 0) -> Any:
    """A value satisfying the subset of JSON Schema tool inputs use (objects, enums, strings...)."""
    if "enum" in schema:
        return rng.choice(list(schema["enum"]))
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = rng.choice(kind)
    if kind == "object":
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        out = {}
        for name, sub in properties.items():
            if name in required or rng.random() < 0.3:
                out[name] = sample_from_schema(sub, rng, depth + 1)
        return out
    if kind == "array":
        return [sample_from_schema(schema.get("items", {}), rng, depth + 1) for _ in range(rng.randint(0, 2))]
    if kind == "integer":
        low, high = schema.get("minimum", 0), min(schema.get("maximum", 100), 100)
        return rng.randint(low, max(low, high))
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "string":
        low = schema.get("minLength", 0)
        length = max(low, rng.randint(0, min(12, schema.get("maxLength", 12))))
        return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(length))
    return None


def play_episode(
    env: EnterpriseEnv, agent: Agent, seed: int, options: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """Run one episode to its end; returns the final info plus reward and counts."""
    observation, info = env.reset(seed=seed, options=dict(options or {}))
    agent.reset(env, info)
    total, terminated, truncated = 0.0, False, False
    final: dict[str, Any] = {}
    while not (terminated or truncated):
        observation, reward, terminated, truncated, final = env.step(agent.act(observation))
        total += float(reward)
    return {"reset_info": info, "reward": total, "terminated": terminated, "truncated": truncated, **final}


__all__ = ["Agent", "OracleAgent", "RandomAgent", "play_episode", "sample_from_schema"]
