"""EnterpriseEnv: a Gymnasium environment of a simulated user and a mocked enterprise back-end."""

from __future__ import annotations

import os
import random
import reprlib
from collections.abc import Iterable, Mapping
from typing import Any

import gymnasium
from gymnasium.utils import seeding

from enterprise_envs import registry
from enterprise_envs.actions import (
    ActionError,
    EndAction,
    MessageAction,
    ToolAction,
    TurnAction,
    parse_action,
)
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.faults import FaultConfig
from enterprise_envs.mocks._core.inputs import json_text, plain_json
from enterprise_envs.mocks._core.world import World
from enterprise_envs.scenarios.format import Scenario, ScenarioError
from enterprise_envs.scenarios.instance import ScenarioInstance, draw_instance
from enterprise_envs.scenarios.loader import instructions
from enterprise_envs.scenarios.users.turns import Message, UserSimulator, UserTurn
from enterprise_envs.spaces import MAX_NAME, MAX_TEXT, action_space, observation_space
from enterprise_envs.verifiers import EpisodeFacts, Verdict, classify, verify

Observation = dict[str, str]

#: The longest refused action kept in the record (it is context, kept to show what was sent).
MAX_RECORDED = 8000


class EnterpriseEnv(gymnasium.Env):
    """A service-desk episode: a simulated user with a problem, tools on a mocked back-end.

    ## Description
    Each episode draws a scenario (a task family such as "report a new incident" or "resolve with
    a knowledge article") and an instance of it from the world: a caller, their records, a
    persona that knows only closed facts. The agent talks to the user and calls tools; when the
    episode ends, a verifier compares the back-end's state with the start and scores it. No LLM
    is in the reward path.

    ## Action Space
    ``AnyText``: one JSON action per step (a dict is accepted too):
    ``{"tool": name, "arguments": {...}}``, ``{"message": text}`` or ``{"end": true}``; an OpenAI
    tool-call object also works. Anything else yields an ``error`` observation; ``step`` never
    raises on agent input.

    ## Observation Space
    ``Dict(role, name, content)`` of ``AnyText``: ``role`` is ``user`` (the simulated user
    speaks), ``tool`` (a tool result; ``name`` is the tool) or ``error`` (the action was not
    understood). ``content`` is text (tool results are JSON).

    ## Rewards
    0 on every step but the last, which gets the verdict's score: 1.0 when the required change
    happened and nothing else was damaged, else 0.0 (and 0.0 for an invalid episode).

    ## Starting State
    The world restored from its snapshot, the scenario's setup applied, the user's opening
    message as the first observation. ``info`` holds ``scenario``, ``version``, ``instructions``
    (the service desk's policy), ``tools`` (OpenAI function-calling format) and ``budget``.

    ## Episode End
    Terminated when the user stops (goal met), transfers or abandons, or the agent sends
    ``{"end": true}``. Truncated when the step or tool-call budget is spent. The final ``info``
    holds ``outcome`` (success, failure or invalid, with the reason), ``verdict``, ``diff``,
    ``faults``, ``messages`` (the dialogue in OpenAI chat format), ``user_terminal``,
    ``user_turns`` (the simulator's record of each user turn) and ``final_view`` (the UserView
    at the end).

    ## Arguments
    ``scenario`` (an id, a tag, or a list of either; default: the whole suite), ``surface``
    (``typed`` or ``rest``), ``user`` (``rules``, ``llm`` or a simulator object),
    ``world_size`` (default: each scenario's own), ``faults`` (``scenario``, ``off`` or a
    FaultConfig dict), ``world_seed``, ``persona_variants`` (draw the user's style from the
    population; default True), ``user_model`` and ``user_base_url`` (the ``llm`` user's model and
    OpenAI-compatible endpoint; default: ``ENTERPRISE_ENVS_LLM_MODEL`` and
    ``ENTERPRISE_ENVS_LLM_BASE_URL``).

    ## Registered ids
    Every suite of ``scenarios/suites.toml`` (``ITSM-v0``, ``Identity-v0``), plain and under
    ``enterprise_envs/``. Vector envs work, ``AsyncVectorEnv`` with its default shared memory too
    (the text spaces register their own slots: ``enterprise_envs/spaces.py``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        suite: str = "ITSM-v0",
        scenario: str | Iterable[str] | None = None,
        surface: str = "typed",
        user: str | UserSimulator = "rules",
        world_size: str | None = None,
        faults: str | Mapping[str, Any] = "scenario",
        world_seed: int = 0,
        persona_variants: bool = True,
        render_mode: str | None = None,
        user_model: str | None = None,
        user_base_url: str | None = None,
    ) -> None:
        super().__init__()
        if surface not in ("typed", "rest"):
            raise ValueError(f"surface must be 'typed' or 'rest', not {surface!r}")
        self.suite = registry.suite(suite)
        self.scenarios: list[Scenario] = registry.select(self.suite, scenario)
        self.surface = surface
        # The LLM user's model and endpoint: given, or from the environment (docs/users.md).
        self.user_model = user_model or os.environ.get("ENTERPRISE_ENVS_LLM_MODEL")
        self.user_base_url = user_base_url or os.environ.get("ENTERPRISE_ENVS_LLM_BASE_URL")
        self._user: UserSimulator = _make_user(user, self.user_model, self.user_base_url)
        self.user: UserSimulator = self._user
        self.user_backend = user if isinstance(user, str) else type(user).__name__
        self.world_size = world_size
        # A config dict is read once, here: a bad one fails at make, naming the field, not at reset.
        self._faults: FaultConfig | None = None
        if isinstance(faults, Mapping):
            self._faults = FaultConfig.from_dict(dict(faults))
        elif faults == "off":
            self._faults = FaultConfig()
        elif faults != "scenario":
            raise ValueError(f"faults must be 'scenario', 'off' or a fault config dict, not {faults!r}")
        self.faults_option = faults
        self.world_seed = world_seed
        self.persona_variants = persona_variants
        self.render_mode = render_mode
        self.observation_space = observation_space()
        self.action_space = action_space()
        self._worlds: dict[tuple[tuple[str, ...], str], World] = {}
        #: This env's own copy of the tool list per surface (handed out in info; a caller may
        #: adapt it in place without touching any other env or any validator).
        self._tool_lists: dict[tuple[str, ...], list[dict[str, Any]]] = {}
        #: Param candidates per world and query (drawn from pristine worlds, so reusable).
        self._candidates: dict[tuple, list[str]] = {}
        #: The last tool call's full result (status, headers, body), for harnesses such as MCP.
        self.last_result: CallResult | None = None
        self._instance: ScenarioInstance | None = None
        self._done = True

    # -- gymnasium API -----------------------------------------------------------------------

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict]:
        """Start an episode: draw a scenario and an instance, return the user's opening."""
        super().reset(seed=seed)
        options = options or {}
        episode_seed, scenario = self._draw(self.np_random, options.get("scenario"))
        rng = random.Random(f"{scenario.id}:{episode_seed}")
        world = self._world(scenario)
        world.reset(episode_seed=episode_seed)
        instance = draw_instance(scenario, world, episode_seed, rng, self._candidates)
        if self.persona_variants:
            from enterprise_envs.scenarios.users.population import draw_variant

            instance.persona = draw_variant(instance.persona, rng)
        world.set_faults(self._faults or instance.faults, episode_seed)
        # A guarded simulator learns this instance's hidden values (the rule user needs none).
        with_canaries = getattr(self._user, "with_canaries", None)
        self.user = with_canaries(instance.canaries()) if with_canaries else self._user
        self.world, self._instance, self._done = world, instance, False
        self.transcript: list[Message] = []
        self.chat: list[dict[str, Any]] = []
        self.steps = self.tool_calls = self.malformed = 0
        #: The systems the agent's tool calls reached, in first-call order.
        self.systems_used: dict[str, None] = {}
        self.simulator_error: str | None = None
        self.user_terminal: str | None = None
        #: The simulator's record of each user turn (intent, disclosures, guard hits), in order.
        self.user_turns: list[UserTurn] = []
        tools = world.surface
        # Per world: suites mix system sets, and each set has its own tools on the same surface.
        tools_key = (*world.names, tools.name)
        if tools_key not in self._tool_lists:
            self._tool_lists[tools_key] = tools.openai_tools()
        self._tools_for_agent = self._tool_lists[tools_key]
        opening = self._user_turn()
        info = {
            "scenario": scenario.id,
            "version": scenario.version,
            "title": scenario.title,
            "tags": list(scenario.tags),
            "instructions": "\n\n".join(instructions(system) for system in scenario.systems),
            "tools": self._tools_for_agent,
            "budget": scenario.budget.model_dump(),
            "surface": self.surface,
            "persona_variant": instance.persona.variant,
        }
        if opening is None:
            return self._observation("error", "", "The user simulator failed to start."), info
        return self._observation("user", "", opening.text), info

    def step(self, action: Any) -> tuple[Observation, float, bool, bool, dict]:
        """Apply one agent action. Never raises on agent input."""
        if self._done or self._instance is None:
            return self._observation("error", "", "The episode is over; call reset()."), 0.0, True, False, {}
        self.steps += 1
        try:
            parsed = parse_action(action)
        except ActionError as error:
            self.malformed += 1
            # Kept in the record as sent, answered by the error: context for training, never a target.
            self.chat.append({"role": "assistant", "content": _as_sent(action), "target": False})
            self.chat.append({"role": "user", "name": "environment", "content": str(error)})
            observation = self._observation("error", "", str(error))
            return self._after(observation, terminated=False)
        if isinstance(parsed, ToolAction):
            call = self._assistant_calls(None, [(parsed.call_id, parsed.name, json_text(parsed.arguments))])
            return self._after(self._tool(parsed, call[0]), terminated=False)
        if isinstance(parsed, TurnAction):
            return self._after(self._turn(parsed), terminated=False)
        if isinstance(parsed, MessageAction):
            self.transcript.append(Message("agent", parsed.text, self.world.call_index))
            self.chat.append({"role": "assistant", "content": parsed.text, "target": True})
            turn = self._user_turn()
            if turn is None:
                return self._after(
                    self._observation("error", "", "The user did not answer."), terminated=True
                )
            return self._after(self._observation("user", "", turn.text), terminated=turn.terminal is not None)
        assert isinstance(parsed, EndAction)
        return self._after(self._observation("user", "", ""), terminated=True)

    def user_settings(self) -> dict[str, str | None]:
        """The simulated user's backend, and for ``llm`` its model and endpoint (for run records)."""
        llm = self.user_backend == "llm"
        return {
            "backend": self.user_backend,
            "model": self.user_model if llm else None,
            "base_url": self.user_base_url if llm else None,
        }

    def render(self) -> str | None:
        """The dialogue so far as text (``ansi``)."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(f"{message.role}: {message.text}" for message in getattr(self, "transcript", []))

    def close(self) -> None:
        """Release the worlds."""
        for world in self._worlds.values():
            world.close()
        self._worlds.clear()

    def worlds(self) -> list[Backend]:
        """The live back-ends this env holds (one per system, for each world it has used)."""
        return [backend for world in self._worlds.values() for backend in world]

    @property
    def backend(self) -> World:
        """The current episode's World (every layer's one back-end; named for harness code)."""
        return self.world

    @property
    def instance(self) -> ScenarioInstance | None:
        """The current scenario instance (params, persona, expectation).

        For the oracle, the audit and tests: an agent under evaluation must not read it.
        """
        return self._instance

    def scenario_for_seed(self, seed: int, scenario: str | None = None) -> Scenario:
        """The scenario ``reset(seed=seed, options={"scenario": scenario})`` plays, without resetting.

        For servers that must know an episode's scenario before building its world (the MCP hub
        checks the world size a client may ask for first).
        """
        generator, _ = seeding.np_random(seed)
        return self._draw(generator, scenario)[1]

    # -- internals -----------------------------------------------------------------------------

    def _draw(self, generator: Any, requested: str | None) -> tuple[int, Scenario]:
        """(episode seed, scenario) drawn from ``generator`` (the env's ``np_random`` on reset)."""
        # The episode seed is drawn first, and the scenario pick is always drawn, so a seed means
        # the same episode whether the env serves one scenario or the whole suite.
        episode_seed = int(generator.integers(0, 2**31 - 1))
        return episode_seed, self._choose(requested, int(generator.integers(0, 2**31 - 1)))

    def _choose(self, requested: str | None, pick: int) -> Scenario:
        if requested is not None:
            matches = [scenario for scenario in self.scenarios if scenario.id == requested]
            if not matches:
                raise ValueError(f"scenario {requested!r} is not in this env's set")
            return matches[0]
        return self.scenarios[pick % len(self.scenarios)]

    def _world(self, scenario: Scenario) -> World:
        size = self.world_size or scenario.world_size
        key = (tuple(scenario.systems), size)
        if key not in self._worlds:
            systems = [registry.systems()[name] for name in scenario.systems]
            self._worlds[key] = World(systems, size=size, world_seed=self.world_seed, surface=self.surface)
        return self._worlds[key]

    def _assistant_calls(
        self, text: str | None, calls: list[tuple[str | None, str, str]], target: bool = True
    ) -> list[str]:
        """Record one assistant turn of tool calls (id, name, arguments as sent); returns the ids used.

        A call the agent gave no id gets ``call_<n>``, numbered by the episode's calls so far.
        """
        first = self.tool_calls + 1
        ids = [call_id or f"call_{first + index}" for index, (call_id, _, _) in enumerate(calls)]
        self.chat.append(
            {
                "role": "assistant",
                "content": text,
                "tool_calls": [
                    {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}
                    for call_id, (_, name, arguments) in zip(ids, calls, strict=True)
                ],
                "target": target,
            }
        )
        return ids

    def _tool(self, action: ToolAction, call_id: str) -> Observation:
        self.tool_calls += 1
        result = self.last_result = self.world.call(action.name, action.arguments)
        system = self.world.system_of(action.name)
        if system is not None:
            self.systems_used[system] = None
        content = result.to_json(full=self.world.surface.full_response)
        self.chat.append({"role": "tool", "tool_call_id": call_id, "content": content})
        return self._observation("tool", action.name, content)

    def _turn(self, turn: TurnAction) -> Observation:
        """Run an assistant turn's calls in order; each is a step and a tool call of the budgets.

        The turn's text is recorded but not sent to the user (it accompanies tool calls). A
        malformed call is answered by its error and the others still run; once a budget is spent,
        the remaining calls are not run and say so.
        """
        if turn.malformed:
            self.malformed += 1
        ids = self._assistant_calls(
            turn.text, [(call.call_id, call.name, call.arguments) for call in turn.calls], not turn.malformed
        )
        assert self._instance is not None
        budget = self._instance.scenario.budget
        answers = []
        for index, (call, call_id) in enumerate(zip(turn.calls, ids, strict=True)):
            if index and (self.steps >= budget.max_steps or self.tool_calls >= budget.max_tool_calls):
                content = "Not run: the episode's step or tool-call budget is spent."
                self.chat.append({"role": "tool", "tool_call_id": call_id, "content": content})
            else:
                self.steps += bool(index)  # the turn's first call is the step() that brought it
                if call.action is None:
                    content = call.error or ""
                    self.chat.append({"role": "tool", "tool_call_id": call_id, "content": content})
                else:
                    content = self._tool(call.action, call_id)["content"]
            answers.append({"tool_call_id": call_id, "name": call.name, "content": content})
        if len(answers) == 1:
            return self._observation("tool", answers[0]["name"], answers[0]["content"])
        return self._observation("tool", "", json_text(answers))

    def _user_turn(self) -> UserTurn | None:
        instance = self._instance
        assert instance is not None
        view = instance.view(instance.observe(self.world), self.transcript)
        try:
            turn = self.user.respond(instance.persona, instance.seed, self.transcript, view)
        except Exception as error:  # the simulator's fault: the episode becomes invalid
            self.simulator_error = f"{type(error).__name__}: {error}"
            return None
        self.transcript.append(Message("user", turn.text, self.world.call_index))
        self.chat.append({"role": "user", "content": turn.text})
        self.user_turns.append(turn)
        if turn.terminal is not None:
            self.user_terminal = turn.terminal.value
        return turn

    def _after(
        self, observation: Observation, terminated: bool
    ) -> tuple[Observation, float, bool, bool, dict]:
        assert self._instance is not None
        budget = self._instance.scenario.budget
        terminated = terminated or self.simulator_error is not None
        truncated = not terminated and (
            self.steps >= budget.max_steps or self.tool_calls >= budget.max_tool_calls
        )
        if not (terminated or truncated):
            return observation, 0.0, False, False, {}
        reward, info = self._finish(truncated)
        return observation, reward, terminated, truncated, info

    def truncate(self) -> tuple[float, dict]:
        """End the running episode as truncated from outside (a wrapper's time limit); (reward, final info).

        Gymnasium's ``TimeLimit`` truncates without telling the env; the registered
        :class:`FinalInfoOnTruncation` wrapper calls this so the final info still holds the
        verdict and the outcome. An episode already over gives ``(0.0, {})``.
        """
        if self._done or self._instance is None:
            return 0.0, {}
        return self._finish(truncated=True)

    def _finish(self, truncated: bool) -> tuple[float, dict]:
        """Verify and classify the episode: its reward and final info."""
        self._done = True
        verdict, verifier_error = self._verify()
        facts = EpisodeFacts(
            internal_errors=tuple(self.world.internal_errors),
            verifier_error=verifier_error,
            simulator_error=self.simulator_error,
            malformed_actions=self.malformed,
            budget_exhausted=truncated,
            injected_faults=len(self.world.faults.log),
        )
        outcome = classify(verdict, facts)
        reward = verdict.score if verdict is not None and outcome.kind.value != "invalid" else 0.0
        info = {
            "outcome": outcome.to_dict(),
            "verdict": verdict.to_dict() if verdict is not None else None,
            "diff": verdict.diff.to_dict() if verdict is not None else None,
            "faults": [event.to_dict() for event in self.world.faults.log],
            "user_terminal": self.user_terminal,
            "user_turns": [turn.to_dict() for turn in self.user_turns],
            "final_view": self._final_view(),
            "steps": self.steps,
            "tool_calls": self.tool_calls,
            "systems": list(self.world.names),
            "systems_used": list(self.systems_used),
            "messages": list(self.chat),
        }
        return reward, info

    def _final_view(self) -> dict[str, bool] | None:
        """The UserView at the end, for simulator metrics (did the user stop before the goal?)."""
        instance = self._instance
        assert instance is not None
        try:
            return instance.view(instance.observe(self.world), self.transcript)
        except Exception:  # a scenario's view query failing must not end step() with an exception
            return None

    def _verify(self) -> tuple[Verdict | None, str | None]:
        instance = self._instance
        assert instance is not None
        said = [message.text for message in self.transcript if message.role == "agent"]
        try:
            world = self.world
            episode = instance.episode(
                self.transcript, [turn.confirms for turn in self.user_turns], world.writes
            )
            verdict = verify(
                world.store,
                instance.expectation,
                said,
                world.denials,
                world.refusals,
                instance.policy,
                episode,
            )
            return verdict, None
        except Exception as error:  # the verifier's fault: invalid, never a policy failure
            return None, f"{type(error).__name__}: {error}"

    @staticmethod
    def _observation(role: str, name: str, content: str) -> Observation:
        """An observation that lies in ``observation_space`` whatever the tool or the text was."""
        if len(name) > MAX_NAME:
            name = name[: MAX_NAME - 3] + "..."
        if len(content) > MAX_TEXT:
            content = content[: MAX_TEXT - 3] + "..."
        return {"role": role, "name": name, "content": content}


class FinalInfoOnTruncation(gymnasium.Wrapper, gymnasium.utils.RecordConstructorArgs):
    """Gives a truncation by an outer limit (``make(..., max_episode_steps=N)``) the verdict and outcome.

    Registered as every suite's additional wrapper, so it sits outside ``TimeLimit``: when the
    limit truncates an episode the env had not ended, the env is asked to end it (verify and
    classify) and the final info carries what an episode ended by the env's own budget carries.
    """

    def __init__(self, env: gymnasium.Env) -> None:
        gymnasium.utils.RecordConstructorArgs.__init__(self)
        gymnasium.Wrapper.__init__(self, env)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        """Step; on an outer truncation, end the episode in the env."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated and "outcome" not in info:
            inner = self.env.unwrapped
            if isinstance(inner, EnterpriseEnv):
                reward, info = inner.truncate()
        return observation, reward, terminated, truncated, info


def _as_sent(action: Any) -> str:
    """A refused action as text for the record, bounded (it may be anything the agent passed)."""
    if isinstance(action, bytes | bytearray):
        action = bytes(action[:MAX_RECORDED]).decode("utf-8", errors="replace")
    if isinstance(action, str):
        text = action
    else:
        try:
            text = json_text(plain_json(action, check_text=False))
        except Exception:  # not plain JSON (objects, cycles, huge): a bounded repr says what it was
            text = reprlib.repr(action)
    return text if len(text) <= MAX_RECORDED else text[: MAX_RECORDED - 3] + "..."


def _make_user(user: str | UserSimulator, model: str | None, base_url: str | None) -> UserSimulator:
    if user == "rules":
        from enterprise_envs.scenarios.users.rules import RuleUser

        return RuleUser()
    if user == "llm":
        from enterprise_envs.scenarios.users.llm import LLMUser

        if not model:
            raise ValueError(
                "user='llm' needs a model: user_model=... (the CLI's --user-model) or "
                "ENTERPRISE_ENVS_LLM_MODEL, and user_base_url=... (ENTERPRISE_ENVS_LLM_BASE_URL) for a "
                "non-OpenAI endpoint; the key is read from OPENAI_API_KEY. Or pass an LLMUser object."
            )
        # The key rule (read OPENAI_API_KEY when set or needed) is clients.api_key_from_env's.
        return LLMUser.openai(model, base_url=base_url, api_key_env="OPENAI_API_KEY")
    if isinstance(user, str):
        raise ValueError(f"user must be 'rules', 'llm' or a simulator object, not {user!r}")
    return user


__all__ = ["EnterpriseEnv", "ScenarioError"]
