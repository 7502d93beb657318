"""The hackability audit, run on the Gym env: ``enterprise-envs audit``.

``verifiers/audit`` holds the probes, the checks and the report over a small protocol
(:class:`~enterprise_envs.verifiers.audit.Episodes`). This module implements it with
:class:`~enterprise_envs.env.EnterpriseEnv`:

- the oracle is played as a real episode (``play_episode`` with the rule user and the
  scenario's faults) and, for probing, recorded open-loop with faults off: each tool call's
  result and the rows each write changed;
- a variant is replayed open-loop on a fresh reset of the same (scenario, seed): tool calls in
  order through the backend (as the agent, or as the user a privilege probe names), messages to
  the user, then the end; then verified exactly as the env verifies (expectation, transcript,
  refused writes). No budget and no user turn cut a replay short: the audit judges the
  verifier, not the policy's pacing. Faults are off, so that a probe never fails by chance.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import IO, Any

import gymnasium

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.observables import Notification
from enterprise_envs.mocks._core.tools import ToolKind
from enterprise_envs.mocks._core.world import World, split_table
from enterprise_envs.scenarios.users.turns import Message, UserSimulator
from enterprise_envs.verifiers import compute_diff, verify
from enterprise_envs.verifiers.audit import (
    PROBES,
    Action,
    AuditReport,
    ProbeContext,
    Run,
    ScenarioAudit,
    Step,
    ToolInfo,
    audit_scenario,
    corpus,
    step_effects,
)
from enterprise_envs.verifiers.audit.disclosure import premature_uses
from enterprise_envs.verifiers.audit.probes import ADVISORY
from enterprise_envs.verifiers.audit.report import merge

#: Seeds per scenario by default, and the most steps a recorded solution may take.
DEFAULT_SEEDS = 20
MAX_STEPS = 500


class EnvEpisodes:
    """Episodes of one scenario on :class:`EnterpriseEnv` (the audit's :class:`Episodes`).

    Args:
        scenario_id: The scenario.
        world_size: Override the scenario's world size.
        user: The simulated user replays talk to (the rule user by default).
    """

    def __init__(
        self, scenario_id: str, world_size: str | None = None, user: str | UserSimulator = "rules"
    ) -> None:
        self.scenario_id = scenario_id
        self.user = user
        self.scenario = registry.scenarios()[scenario_id]
        self.suite = registry.suite_serving(scenario_id).env_id
        self.world_size = world_size
        self._replay: dict[str, EnterpriseEnv] = {}
        self._closed: dict[str, gymnasium.Env] = {}

    # -- the protocol ---------------------------------------------------------------------------

    def solutions(self) -> list[tuple[str, str]]:
        """(name, surface) of each reference solution."""
        return [(solution.name, solution.surface) for solution in self.scenario.solutions]

    def oracle(self, seed: int, surface: str) -> tuple[bool, str]:
        """The surface's oracle as a real episode: rule user, the scenario's faults, budgets."""
        env = self._closed.get(surface)
        if env is None:
            env = self._closed[surface] = gymnasium.make(
                self.suite,
                scenario=self.scenario_id,
                surface=surface,
                persona_variants=False,
                **self._size(),
            )
        episode = play_episode(env, OracleAgent(), seed)
        outcome = episode.get("outcome") or {}
        passed = outcome.get("kind") == "success" and episode["reward"] == 1.0
        # The oracle is also a demonstrator: its trace must not use a fact before the user told it.
        early = premature_uses(
            episode["messages"], env.unwrapped.instance.persona.facts, [episode["reset_info"]["instructions"]]
        )
        if passed and early:
            return False, f"the oracle used a fact before the user told it: {early[0]}"
        return passed, str(outcome.get("reason", ""))

    def record(self, seed: int, surface: str, solution: str) -> Run:
        """Play a reference solution open-loop, recording results and each write's effects."""
        env = self._start(seed, surface)
        agent = OracleAgent(solution)
        agent.reset(env, {})
        player = _Player(env, surface, effects=True)
        observation: Mapping[str, str] = {"role": "user", "name": "", "content": ""}
        for _ in range(MAX_STEPS):
            action = _action(agent.act(observation))
            step = player.play(action)
            if action.kind == "end":
                break
            if action.kind == "tool":
                full = env.world.tools(action.surface or surface).full_response
                content = player.result.to_json(full=full) if player.result else json.dumps(step.body)
                observation = {"role": "tool", "name": action.tool, "content": content}
            else:
                observation = {"role": "user", "name": "", "content": ""}
        return player.finish()

    def replay(
        self,
        seed: int,
        surface: str,
        actions: Sequence[Action],
        after_call: Callable[[World, int], None] | None = None,
    ) -> Run:
        """Play actions open-loop on a fresh reset, then verify.

        Args:
            seed: The episode seed.
            surface: The episode's surface.
            actions: What to play.
            after_call: Called with the world and the action's index after each tool call (a
                test changing state behind the agent's back, e.g. fields the user cannot see).
        """
        env = self._start(seed, surface)
        player = _Player(env, surface)
        for index, action in enumerate(actions):
            player.play(action)
            if action.kind == "tool" and after_call is not None:
                after_call(env.world, index)
            if action.kind == "end":
                break
        return player.finish()

    def context(self, seed: int, surface: str) -> ProbeContext:
        """The probe context at the instance's start."""
        env = self._start(seed, surface)
        world = env.world
        system, store = world.system, world.store
        assert env.instance is not None
        surfaces = {
            name: {
                tool.name: ToolInfo(tool.name, tool.kind.value, tool.input_schema)
                for tool in world.tools(name)
            }
            for name in system.surfaces
        }
        agent = world.backend.identity

        def select(table: str, where: str, params: Sequence[str], limit: int | None) -> list[dict[str, str]]:
            return store.select(table, where, tuple(params), limit=limit)

        def allowed(
            operation: str, table: str, row: Any, changes: Mapping[str, str], as_user: str | None
        ) -> bool:
            # The table's own system decides, for its own identity of the agent or the user.
            name, local = split_table(table, world.primary)
            backend = world.backends.get(name)
            if backend is None:
                return False
            owner = backend.system
            identity = backend.identity if as_user is None else owner.user_identity(backend.store, as_user)
            if identity is None:
                return False
            try:
                owner.access.check(identity, Operation(operation), local, dict(row) if row else None, changes)
            except Exception:  # noqa: BLE001  (a refusal is a ToolError; anything else is a no too)
                return False
            return True

        return ProbeContext(
            surface=surface,
            tools=surfaces[surface],
            surfaces=surfaces,
            expectation=env.instance.expectation,
            catalog=world.catalog,
            select=select,
            allowed=allowed,
            agent=agent.user_name,
            conventions=system.conventions,
            systems={} if world.single else {name: s.conventions for name, s in world.systems.items()},
            decided=frozenset(entry for fact in env.instance.persona.facts for entry in fact.decides),
            private={
                table: (tuple(owners), tuple((rule.details or {}).get(table, ())))
                for rule in env.instance.policy.rules
                if rule.kind == "no_disclosure"
                for table, owners in (rule.owners or {}).items()
            },
        )

    def close(self) -> None:
        """Release the worlds."""
        for env in [*self._replay.values(), *self._closed.values()]:
            env.close()

    # -- internals ------------------------------------------------------------------------------

    def _size(self) -> dict[str, str]:
        return {"world_size": self.world_size} if self.world_size else {}

    def _start(self, seed: int, surface: str) -> EnterpriseEnv:
        env = self._replay.get(surface)
        if env is None:
            env = self._replay[surface] = EnterpriseEnv(
                suite=self.suite,
                scenario=self.scenario_id,
                surface=surface,
                faults="off",
                persona_variants=False,
                user=self.user,
                **self._size(),
            )
        env.reset(seed=seed, options={"scenario": self.scenario_id})
        return env


class _Player:
    """Plays actions on a reset env's backend and records each step.

    With ``effects``, each write's changed rows are taken from a diff after the call (recordings
    need them to build probes; replays only need the verdict).
    """

    def __init__(self, env: EnterpriseEnv, surface: str, effects: bool = False) -> None:
        self.env, self.surface, self.effects = env, surface, effects
        self.world = env.world
        self.steps: list[Step] = []
        self.said: list[str] = []
        # The conversation as the env had it after reset (the opening), continued by the same
        # simulated user: the runbook rules read who said what when.
        self.transcript: list[Message] = list(env.transcript)
        self.confirms: list[bool] = [turn.confirms for turn in env.user_turns]
        self.seen: list[str] = [_seen_text(())] * len(env.user_turns)
        self.result: CallResult | None = None
        self.diff = compute_diff(self.world.store) if effects else None

    def play(self, action: Action) -> Step:
        if action.kind != "tool":
            if action.kind == "message":
                self.said.append(action.text)
                self._reply(action.text)
            step = Step(action)
            self.steps.append(step)
            return step
        world = self.world
        identity = None
        if action.as_user:
            identity = world.user_identity(action.as_user, action.tool, action.surface)
        tool = world.tools(action.surface).tools.get(action.tool)
        write = tool is not None and tool.kind is ToolKind.WRITE
        denials = len(world.denials)
        self.result = None
        if action.as_user and identity is None:
            step = Step(action, 404, {"error": f"no user {action.as_user!r}"}, write)
        else:
            arguments = json.loads(json.dumps(action.arguments))
            result = self.result = world.call(
                action.tool, arguments, surface=action.surface, identity=identity
            )
            effects = ()
            if write and self.diff is not None:
                diff = compute_diff(world.store)
                effects = step_effects(self.diff, diff)
                self.diff = diff
            step = Step(action, result.status, result.body, write, effects, len(world.denials) > denials)
        self.steps.append(step)
        return step

    def _heard(self) -> tuple[str, ...]:
        return tuple(message.text for message in self.transcript if message.role == "user")

    def _reply(self, text: str) -> None:
        """The simulated user's answer to an agent message (none if the simulator fails)."""
        instance = self.env.instance
        assert instance is not None
        at = self.world.call_index
        self.transcript.append(Message("agent", text, at))
        try:
            seen = instance.observe(self.world)
            view = instance.view(seen, self.transcript)
            turn = self.env.user.respond(instance.persona, instance.seed, self.transcript, view)
        except Exception:  # noqa: BLE001  (a replay judges the verifier; a silent user is fine)
            return
        self.transcript.append(Message("user", turn.text, at))
        self.confirms.append(turn.confirms)
        self.seen.append(_seen_text(seen))

    def finish(self) -> Run:
        backend = self.world
        instance = self.env.instance
        assert instance is not None
        denials = tuple((d.tool, d.operation, d.table, d.sys_id) for d in backend.denials)
        if backend.internal_errors:
            first = backend.internal_errors[0]
            error = f"mock handler error in {first.get('tool')}: {first.get('error')}"
            return Run(self.surface, tuple(self.steps), None, error, denials, self._heard(), tuple(self.seen))
        try:
            episode = instance.episode(self.transcript, self.confirms, backend.writes)
            verdict = verify(
                backend.store,
                instance.expectation,
                self.said,
                backend.denials,
                backend.refusals,
                instance.policy,
                episode,
            )
        except Exception as exc:  # noqa: BLE001  (the verifier's fault: an invalid run, reported)
            return Run(
                self.surface, tuple(self.steps), None, f"verifier error: {type(exc).__name__}: {exc}", denials
            )
        return Run(self.surface, tuple(self.steps), verdict, None, denials, self._heard(), tuple(self.seen))


def _seen_text(seen: Sequence[Notification]) -> str:
    """What a user has seen, as canonical JSON (comparable across runs)."""
    return json.dumps([note.to_dict() for note in seen], sort_keys=True, ensure_ascii=False)


def _action(raw: Mapping[str, Any]) -> Action:
    if raw.get("end"):
        return Action.end()
    if "message" in raw:
        return Action.say(str(raw["message"]))
    return Action.call(str(raw["tool"]), dict(raw.get("arguments") or {}))


# -- the whole audit ----------------------------------------------------------------------------------


def audit_one(
    scenario_id: str,
    seeds: Sequence[int],
    surfaces: Sequence[str] = ("typed",),
    probes: Sequence[str] | None = None,
    world_size: str | None = None,
    strict: bool = False,
) -> ScenarioAudit:
    """Audit one scenario."""
    episodes = EnvEpisodes(scenario_id, world_size)
    try:
        return audit_scenario(episodes, list(seeds), surfaces, probes, strict)
    finally:
        episodes.close()


def _audit_task(args: tuple[Any, ...]) -> ScenarioAudit:
    return audit_one(*args)


def run_audit(
    scenarios: str | Iterable[str] | None = None,
    seeds: int = DEFAULT_SEEDS,
    seed: int = 0,
    surfaces: Sequence[str] = ("typed",),
    probes: Sequence[str] | None = None,
    world_size: str | None = None,
    jobs: int = 1,
    on_scenario: Callable[[ScenarioAudit], None] | None = None,
    strict: bool = False,
) -> AuditReport:
    """Audit scenarios (ids or tags; default: every shipped scenario) on ``seeds`` seeds.

    Args:
        scenarios: Ids or tags, as ``gymnasium.make(..., scenario=)`` takes them.
        seeds: Seeds per scenario: ``seed, seed+1, ...``.
        seed: The first seed.
        surfaces: Surfaces whose oracle is probed; the other surfaces' solutions are alternatives.
        probes: Probe names (default: every probe).
        world_size: Override each scenario's world size.
        jobs: Worker processes (scenarios are audited in parallel).
        on_scenario: Called with each scenario's audit as it completes.
        strict: Count the false positives of advisory probes as failures.
    """
    began = time.perf_counter()
    chosen = [scenario.id for scenario in registry.select(None, scenarios)]
    unknown = set(probes or ()) - set(PROBES)
    if unknown:
        raise ValueError(f"unknown probes {sorted(unknown)} (probes: {', '.join(PROBES)})")
    order = list(probes or PROBES)
    tasks = [
        (sid, tuple(range(seed, seed + seeds)), tuple(surfaces), order, world_size, strict) for sid in chosen
    ]
    # Longest first (by solution length), so that parallel workers finish together.
    tasks.sort(key=lambda task: -max(len(s.steps) for s in registry.scenarios()[task[0]].solutions))
    audits: list[ScenarioAudit] = []
    if jobs > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            for audit in pool.map(_audit_task, tasks):
                audits.append(audit)
                if on_scenario:
                    on_scenario(audit)
    else:
        for task in tasks:
            audit = _audit_task(task)
            audits.append(audit)
            if on_scenario:
                on_scenario(audit)
    report = merge([AuditReport(audits, order, advisory={k: v for k, v in ADVISORY.items() if k in order})])
    report.reader = reader_scores()
    report.seconds = time.perf_counter() - began
    return report


def reader_scores() -> dict[str, dict[str, Any]]:
    """The dialogue-act reader's precision and recall on each labelled corpus that ships."""
    out = {}
    for name in corpus.CORPORA:
        items = corpus.load(name)
        if items:
            out[name] = {check: tally.to_dict() for check, tally in corpus.score(items).items()}
    return out


def progress_printer(stream: IO[str]) -> Callable[[ScenarioAudit], None]:
    """A line per audited scenario, for a terminal."""

    def show(audit: ScenarioAudit) -> None:
        stream.write(f"{audit.scenario}: {'ok' if audit.passed else 'FAILED'} ({audit.seconds:.1f} s)\n")
        stream.flush()

    return show


__all__ = ["DEFAULT_SEEDS", "EnvEpisodes", "audit_one", "run_audit"]
