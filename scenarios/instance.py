"""Drawing a scenario instance from the world it will be played in.

An instance is the scenario's params drawn from the world, its setup calls applied, its persona
and expectation bound, and the UserView the simulator reads each turn. Everything drawn comes
from the random stream it is given, so the same seed gives the same instance, byte for byte, in
any process.

Observational closure: the UserView is computed from two things only, the notifications the
system sent the user's person (:meth:`ScenarioInstance.observe`, the one path from state to the
user) and the conversation (:meth:`ScenarioInstance.view`, which takes no back-end). The user's
own circumstances (``situation`` keys) are read once, when the instance is drawn.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.mocks._core.faults import FaultConfig
from enterprise_envs.mocks._core.observables import Notification, notifications_for
from enterprise_envs.mocks._core.world import World
from enterprise_envs.scenarios.format import FACTS, Scenario, ScenarioError, Solution, SolutionStep, ViewCheck
from enterprise_envs.scenarios.loader import world_policy
from enterprise_envs.scenarios.users.persona import Persona
from enterprise_envs.scenarios.users.turns import Message
from enterprise_envs.verifiers.dialogue import (
    NUMBER_IN_TEXT,
    NumberShape,
    answers,
    checks,
    reports_done,
    signs_off,
    written_numbers,
)
from enterprise_envs.verifiers.expectations import (
    Expectation,
    ExpectationError,
    bind_params,
    load_expectation,
)
from enterprise_envs.verifiers.policy import Episode, Policy, Said
from enterprise_envs.verifiers.templates import TEMPLATE


@dataclass
class ScenarioInstance:
    """One drawn instance of a scenario, ready to play on the backend it was drawn on.

    Attributes:
        scenario: The scenario.
        seed: The episode seed.
        params: Drawn params plus the results saved by setup calls.
        persona: The bound persona (fact placeholders of its own stay for the simulator).
        expectation: The bound expectation.
        faults: Faults to inject.
        policy: The system's runbook rules with the scenario's additions (bound).
        person: The key of the world's person the user is (whose notifications they get), in
            the primary system.
        persons: System -> that person's key in it (the primary's is ``person``): each system
            tells the person what it tells them (a chat DM, an ITSM e-mail).
        situation: ``situation`` view keys, read when the instance was drawn.
        prefixes: Table -> record-number prefix of every numbered table of the system (what a
            record number looks like: ``told_record`` checks without events, canaries).
    """

    scenario: Scenario
    seed: int
    params: dict[str, Any]
    persona: Persona
    expectation: Expectation
    faults: FaultConfig
    policy: Policy = field(default_factory=Policy)
    person: str = ""
    situation: dict[str, bool] = field(default_factory=dict)
    prefixes: dict[str, str] = field(default_factory=dict)
    persons: dict[str, str] = field(default_factory=dict)

    def episode(
        self, transcript: Sequence[Message], confirms: Sequence[bool], writes: Sequence[Any]
    ) -> Episode:
        """What the policy checks read: the transcript in order (with each user turn's ``confirms``)."""
        flags = iter(confirms)
        said = [
            Said(m.role, m.text, m.at_call, next(flags, False) if m.role == "user" else False)
            for m in transcript
        ]
        facts = {fact.key: fact.value for fact in self.persona.facts}
        decides = {fact.key: tuple(fact.decides) for fact in self.persona.facts if fact.decides}
        return Episode(said, tuple(writes), facts, decides)

    def observe(self, world: World) -> tuple[Notification, ...]:
        """What the user's person has seen of the world: the notifications its systems sent them."""
        primary = world.primary
        return tuple(
            note
            for backend in world
            for note in notifications_for(
                backend.store,
                backend.system.notifications,
                self.persons.get(backend.system.name, self.person if backend.system.name == primary else ""),
            )
        )

    def view(self, seen: Sequence[Notification], transcript: Sequence[Message]) -> dict[str, bool]:
        """The UserView: each declared key from what the user has seen and the conversation.

        Args:
            seen: :meth:`observe` now.
            transcript: The conversation so far.
        """
        agent = [message.text for message in transcript if message.role == "agent"]
        latest: list[str] = []
        for message in reversed(transcript):
            if message.role != "agent":
                if latest:
                    break
                continue
            latest.insert(0, message.text)
        view: dict[str, bool] = {}
        for key, check in self.scenario.view.items():
            if check.kind == "situation":
                view[key] = self.situation.get(key, False)
            elif check.kind == "told_text":
                view[key] = answers(agent, str(bind_params(check.text, self.params)), check.rivals)
            elif check.kind == "told_record":
                view[key] = any(
                    answers(agent, number) for number in self._told_candidates(check, seen, agent)
                )
            else:
                record = str(bind_params(check.record, self.params)) if check.record else ""
                corroborated = not check.events or any(
                    note.event in check.events and (not record or note.record == record) for note in seen
                )
                view[key] = corroborated and (check.kind == "notified" or _reported(agent, latest))
        return view

    def _told_candidates(
        self, check: ViewCheck, seen: Sequence[Notification], agent: Sequence[str]
    ) -> list[str]:
        """The numbers that would satisfy a ``told_record`` check, as the user can know them."""
        if check.events:
            return sorted({note.record for note in seen if note.event in check.events})
        prefix = self.prefixes.get(check.table, "").upper()
        if not prefix:
            return []
        # The table's numbers only: its prefix, and the digit count its system declares.
        digits = {key.upper(): count for key, count in self.persona.vocabulary.numbers.items()}
        shape = NumberShape.of({prefix: digits.get(prefix)})
        own = {fact.value.upper() for fact in self.persona.facts}
        found = {
            f"{match.group(1)}{match.group(2)}".upper()
            for text in agent
            for match in NUMBER_IN_TEXT.finditer(text[:16000])
            if shape.accepts(match)
        }
        return sorted(found - own)

    def canaries(self) -> tuple[str, ...]:
        """Hidden values a simulated user must never say.

        Record numbers the solutions use from the world (not the user's own facts), and record
        numbers the expectation requires. The LLM user's guard rejects any utterance containing
        one (the rule user cannot produce them: it only says its persona's values).
        """
        facts = {fact.value for fact in self.persona.facts}
        saved = {step.save_as for s in self.scenario.solutions for step in s.steps if step.save_as}
        found: set[str] = set()
        for solution in self.scenario.solutions:
            for step in solution.steps:
                text = json.dumps(bind_params(step.arguments, self.params, leave=saved), ensure_ascii=False)
                found.update(self._record_numbers(text))
        for entry in self.expectation.change:
            for _, predicate in entry.predicates():
                if predicate.equals and self._record_numbers(predicate.equals) == [predicate.equals]:
                    found.add(predicate.equals)
        return tuple(sorted(found - facts))

    def _record_numbers(self, text: str) -> list[str]:
        """The systems' record numbers written plainly in ``text``.

        A prefix of their catalogs', and the digit count their systems declare.
        """
        digits = {key.upper(): count for key, count in self.persona.vocabulary.numbers.items()}
        prefixes = {prefix.upper() for prefix in self.prefixes.values()}
        shape = NumberShape.of({prefix: digits.get(prefix) for prefix in prefixes})
        return written_numbers(text, shape) if shape.declared else []

    def solution(self, surface: str) -> Solution:
        """The oracle's solution for a surface (the first declared on it, else the first at all)."""
        for solution in self.scenario.solutions:
            if solution.surface == surface:
                return solution
        return self.scenario.solutions[0]

    def bind_step(self, step: SolutionStep, results: Mapping[str, Any]) -> SolutionStep:
        """A solution step with params and earlier steps' saved results substituted."""
        data = bind_params(step.model_dump(exclude_none=True), {**self.params, **results})
        return SolutionStep.model_validate(data)


def sql_with_binds(where: str, params: Mapping[str, Any]) -> tuple[str, tuple[str, ...]]:
    """Replace ``{{path}}`` in an author's SQL condition with ``?`` and collect the values."""
    values: list[str] = []

    def bind(match: re.Match[str]) -> str:
        values.append(str(bind_params(match.group(0), params)))
        return "?"

    return TEMPLATE.sub(bind, where), tuple(values)


def draw_instance(
    scenario: Scenario,
    world: World,
    seed: int,
    rng: random.Random,
    candidates: dict[tuple[Any, ...], list[str]] | None = None,
) -> ScenarioInstance:
    """Draw params, run setup and bind the persona and expectation on a freshly reset world.

    Leaves the world at the episode's start (``mark_start`` called after setup). Tables and tools
    are named as the world names them (the loader renamed the scenario's).

    Args:
        scenario: The scenario.
        world: Just reset: params are drawn from the pristine world.
        seed: The episode seed.
        rng: The instance's random stream.
        candidates: A cache of param candidates for this world. Params are drawn
            before setup, from the restored snapshot, so the same query on the same world always
            has the same candidates; an env reuses them across episodes. Queries that depend on
            an earlier param are not cached (the cache stays one entry per independent param).

    Raises:
        ScenarioError: The world has no candidates for a param, a setup call failed, or a
            template does not resolve: the scenario's fault, reported as such.
    """
    params: dict[str, Any] = {}
    store = world.store
    catalog = world.catalog
    for name, spec in scenario.params.items():
        try:
            where, values = sql_with_binds(spec.where, params)
            # Keys first, whole rows only for the picked ones (candidates can be thousands of rows).
            key = (
                world.names,
                world.size,
                world.world_seed,
                spec.table,
                where,
                values,
                spec.order_by,
            )
            # Only queries of their own are cached: one that depends on an earlier param (values)
            # differs per instance, so caching it would only grow the cache.
            cache = candidates if candidates is not None and not values else None
            keys = cache.get(key) if cache is not None else None
            if keys is None:
                key_field = store.catalog[spec.table].key_field
                keys = store.column_values(spec.table, key_field, where, values, order_by=spec.order_by)
                if cache is not None:
                    cache[key] = keys
        except (ExpectationError, KeyError, sqlite3.Error) as error:
            raise ScenarioError(f"{scenario.id}: param {name!r}: {error}") from None
        if len(keys) < spec.count:
            raise ScenarioError(
                f"{scenario.id}: param {name!r} needs {spec.count} rows, the world has {len(keys)}"
            )
        picked = [store.get(spec.table, key) for key in rng.sample(keys, spec.count)]
        params[name] = picked[0] if spec.count == 1 else picked
    for call in scenario.setup:
        try:
            arguments = bind_params(call.arguments, params)
            actor = bind_params(call.as_user, params) if call.as_user is not None else None
        except ExpectationError as error:
            raise ScenarioError(f"{scenario.id}: setup {call.tool}: {error}") from None
        system = world.system_of(call.tool, call.surface)
        if system is None:
            raise ScenarioError(f"{scenario.id}: setup calls unknown tool {call.tool!r}")
        owner = world.systems[system]
        actor = actor if actor is not None else owner.setup_user
        identity = owner.user_identity(world.backends[system].store, actor)
        if identity is None:
            raise ScenarioError(f"{scenario.id}: setup acts as unknown user {actor!r}")
        result = world.call(call.tool, arguments, surface=call.surface, identity=identity)
        if not result.ok:
            raise ScenarioError(f"{scenario.id}: setup {call.tool} failed: {result.status} {result.body}")
        if call.save_as:
            params[call.save_as] = result.body
    fact_keys = {
        fact["key"] for fact in scenario.user.get("facts", []) if isinstance(fact, dict) and "key" in fact
    }
    try:
        from enterprise_envs.scenarios.vocabulary import persona_vocabulary

        # The systems' words and record-number shape reach the user as data on its persona.
        user = {**bind_params(scenario.user, params, leave=fact_keys)}
        user["vocabulary"] = persona_vocabulary(world.systems.values())
        persona = Persona.model_validate(user)
        bound = {**params, FACTS: {fact.key: fact.value for fact in persona.facts}}
        expectation = load_expectation(scenario.expect, bound, catalog)
        faults = FaultConfig.from_dict(bind_params(scenario.faults, params))
        policy = world_policy(tuple(scenario.systems)).extended(bind_params(scenario.policy, bound))
    except (ExpectationError, ValueError, TypeError) as error:
        raise ScenarioError(f"{scenario.id}: {error}") from None
    try:
        person = str(bind_params(scenario.person, params)) if scenario.person else ""
    except ExpectationError as error:
        raise ScenarioError(f"{scenario.id}: person: {error}") from None
    situation = {
        key: _situation(check, world, params)
        for key, check in scenario.view.items()
        if check.kind == "situation"
    }
    prefixes = {table: spec.number_prefix for table, spec in catalog.items() if spec.number_prefix}
    persons = world.person_keys(person)
    world.mark_start()
    return ScenarioInstance(
        scenario, seed, params, persona, expectation, faults, policy, person, situation, prefixes, persons
    )


def _reported(agent: Sequence[str], latest: Sequence[str]) -> bool:
    """Whether the agent's latest message reports the work done (or closes after reporting it).

    A question whether it works now, or a goodbye, counts only after the work was reported
    earlier: alone it reports nothing.
    """
    if any(reports_done(text) for text in latest):
        return True
    closing = any(checks(text) or signs_off(text) for text in latest)
    return closing and any(reports_done(text) for text in agent[: len(agent) - len(latest)])


def _situation(check: ViewCheck, world: World, params: Mapping[str, Any]) -> bool:
    """A ``situation`` key: the user's own circumstances, read before the agent acts."""
    where, values = sql_with_binds(check.where, params)
    try:
        return world.store.count(check.table, where, values) > 0
    except sqlite3.Error as error:
        raise ScenarioError(f"situation on {check.table}: {error}") from None
