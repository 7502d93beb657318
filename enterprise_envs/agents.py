"""Agents: the protocol user code implements, an oracle and a random agent.

An agent sees what a policy sees: the observation and the reset ``info`` (instructions, tools,
budget). The oracle is the exception: it exists to validate scenarios, so it reads the
scenario instance and plays the reference solution.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mocks._core.tools import WAIT_TOOL
from enterprise_envs.scenarios.users.persona import Fact, compiled
from enterprise_envs.scenarios.users.templates import label
from enterprise_envs.verifiers.audit.disclosure import carries, private_facts, strings_in, texts_of
from enterprise_envs.verifiers.text import pieces

#: Statuses of injected faults an agent should retry after (429 after waiting Retry-After).
RETRYABLE = (429, 503, 504)
MAX_RETRIES = 5


class AgentInfrastructureError(Exception):
    """The agent's own infrastructure failed for good (its model endpoint, after its retries).

    Not a policy error: the runner records the episode as ``invalid`` (``agent_infrastructure``).
    """


class Agent(Protocol):
    """A policy: ``reset`` at the start of an episode, then ``act`` until it ends."""

    def reset(self, env: EnterpriseEnv, info: Mapping[str, Any]) -> None:
        """Start an episode (``info`` is what ``env.reset`` returned)."""
        ...

    def act(self, observation: Mapping[str, str]) -> str | dict[str, Any]:
        """The next action for this observation."""
        ...


class OracleAgent:
    """Plays the scenario's reference solution on the env's surface, as a fair demonstrator.

    Tool results saved with ``save_as`` feed later steps' templates. Injected faults are
    handled as the runbook says: wait Retry-After on a 429, retry on a 503 or 504.

    The oracle never uses a value the user has not told it yet: its traces seed supervised
    fine-tuning, where a lookup by an e-mail address nobody gave teaches guessing. Before a tool
    step whose bound arguments carry a private persona fact (see
    :func:`~enterprise_envs.verifiers.audit.disclosure.private_facts`) that no observation so far
    showed (the instructions, the user's messages, earlier tool results), it asks the user for it
    (:func:`_question_for`), at most :data:`MAX_REASKS` times per fact, then plays the step. A
    persona that answers one question per turn gets the second fact of a two-fact question asked
    again on its own. When the harness does not relay the user's replies (an empty user
    observation: the audit's open-loop recordings), the oracle cannot tell what was said and
    plays the solution as written.
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
        persona = instance.persona
        self.private = private_facts(persona.facts)
        #: Every text the agent has seen (instructions, user messages, tool results), and the
        #: user's messages alone (what the user will not be asked again).
        self.seen: list[str] = [str(info.get("instructions") or "")]
        self.heard: list[str] = []
        #: Patterns the user answers with something other than a fact (unknowns, refusals).
        deflectors = (*persona.unknowns, *persona.refusals)
        self.deflecting = [pattern for item in deflectors for pattern in item.asked_by]
        self.reasks: dict[str, int] = {}
        self.blind = False

    def act(self, observation: Mapping[str, str]) -> dict[str, Any]:
        """The next step of the solution (or a retry, or a question for a fact not told yet), then ``end``."""
        self._observe(observation)
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
        if step.tool is not None:
            question = self._question_before(step.arguments)
            if question is not None:
                return {"message": question}
        self.position += 1
        if step.tool is not None:
            self.pending = step
            self.last_action = {"tool": step.tool, "arguments": step.arguments}
            return self.last_action
        if step.message is not None:
            return {"message": step.message}
        return {"end": True}

    def _observe(self, observation: Mapping[str, str]) -> None:
        """Remember what an observation showed the agent."""
        role, content = observation.get("role"), observation.get("content") or ""
        if role == "user" and not content:
            self.blind = True  # the user's replies are not relayed: nothing to go by
        elif role in ("user", "tool"):
            texts = texts_of(content)
            self.seen.extend(texts)
            if role == "user":
                self.heard.extend(texts)

    def _question_before(self, arguments: Any) -> str | None:
        """A question for the private facts these arguments carry and the agent was not told yet.

        None when there is nothing to ask: every value is known, each missing fact was asked
        :data:`MAX_REASKS` times already, or no question that the user would read as asking for
        it can be found.
        """
        if self.blind or not self.private:
            return None
        values = list(strings_in(arguments))
        missing = [
            fact
            for fact in self.private
            if carries(fact.value, values)
            and not carries(fact.value, self.seen)
            and self.reasks.get(fact.key, 0) < MAX_REASKS
        ]
        if not missing:
            return None
        facts = {fact.key: fact for fact in self.instance.persona.facts}
        wanted = [facts[fact.key] for fact in missing if fact.key in facts]
        told = [fact for fact in self.instance.persona.facts if carries(fact.value, self.heard)]
        messages = [
            str(self.instance.bind_step(step, self.results).message)
            for step in reversed(self.solution.steps[: self.position])
            if step.message is not None
        ]
        question = _question_for(wanted, told, self.deflecting, messages)
        if question is None:
            return None
        for fact in wanted:
            if _matches(fact.asked_by, question):
                self.reasks[fact.key] = self.reasks.get(fact.key, 0) + 1
        return question

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


#: Most times the oracle asks again for one fact before it plays the step anyway.
MAX_REASKS = 2

#: Where a question asking for several things splits into one question per thing.
_CLAUSE_BREAKS = re.compile(r",\s*(?:and\s+)?|;\s*|\s+and\s+", re.IGNORECASE)
_PLURAL_ADDRESSES = re.compile(r"\baddresses\b", re.IGNORECASE)
#: Words a clause that is a question of its own starts with.
_QUESTION_START = re.compile(
    r"^(?:what|which|who|whose|when|where|how|could|can|would|will|may|please|do|does|is|are)\b",
    re.IGNORECASE,
)


def _matches(patterns: Sequence[str], text: str) -> bool:
    """Whether one of a persona item's ``asked_by`` patterns finds the text (case-insensitive)."""
    return any(compiled(pattern, re.IGNORECASE).search(text) for pattern in patterns)


def _question_for(
    wanted: Sequence[Fact], told: Sequence[Fact], deflecting: Sequence[str], messages: Sequence[str]
) -> str | None:
    """The oracle's question for facts it needs: the solution's own words when they fit.

    Candidates, in order: each earlier message of the solution that asks for one of the facts
    (newest first), then its sentences, then their clauses as questions of their own ("..., and
    Jon's e-mail address?" -> "Could you also give me Jon's e-mail address?"); then questions built
    from the facts' keys. The first candidate that one of the
    wanted facts' ``asked_by`` patterns matches, and that matches no pattern of a fact the user
    already told (the user would push back on that instead of answering) nor of an unknown or a
    refusal, is the question. None when no candidate fits.

    Args:
        wanted: The facts to ask for.
        told: The facts the user already said.
        deflecting: ``asked_by`` patterns of the persona's unknowns and refusals.
        messages: The solution's messages played so far, bound, newest first.
    """
    asking = [text for text in messages if any(_matches(fact.asked_by, text) for fact in wanted)]
    sentences = [sentence for text in asking for sentence in pieces(text)]
    clauses = [
        question
        for sentence in sentences
        for clause in _CLAUSE_BREAKS.split(sentence)
        for question in _as_questions(clause)
    ]
    built = [question for fact in wanted for question in _built_questions(fact.key)]
    for candidate in dict.fromkeys([*asking, *sentences, *clauses, *built]):
        if (
            candidate
            and any(_matches(fact.asked_by, candidate) for fact in wanted)
            and not any(_matches(fact.asked_by, candidate) for fact in told)
            and not _matches(deflecting, candidate)
        ):
            return candidate
    return None


def _as_questions(clause: str) -> list[str]:
    """A clause of a longer question as questions of its own ("Jon's e-mail" -> "Could you also ...")."""
    # Asked alone, "Jon's and Amy's e-mail addresses" leaves one address.
    clause = _PLURAL_ADDRESSES.sub("address", clause.strip().rstrip(".?!,;: "))
    if not clause:
        return []
    if _QUESTION_START.match(clause):
        return [f"{clause[:1].upper()}{clause[1:]}?"]
    return [f"Could you also give me {clause}?", f"And what is {clause}?"]


def _built_questions(key: str) -> list[str]:
    """Questions for a fact built from its key (``colleague_email`` -> "the colleague's e-mail address")."""
    words = label(key).split()
    if words and words[-1].lower() in ("email", "e-mail"):
        owner = " ".join(words[:-1])
        thing = f"the {owner}'s e-mail address" if owner else "your e-mail address"
        return [
            f"Could you also give me {thing}?",
            f"Could you also give me the {owner} e-mail address?" if owner else "",
            "And what is their e-mail address?" if owner else "",
            "And what is their e-mail?" if owner else "",
        ]
    phrase = " ".join(words)
    return [
        f"Could you also give me your {phrase}?",
        f"Could you also tell me the {phrase}?",
        f"Which {phrase}?",
    ]


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


__all__ = [
    "Agent",
    "AgentInfrastructureError",
    "OracleAgent",
    "RandomAgent",
    "play_episode",
    "sample_from_schema",
]
