"""Observational closure (issue 14): the simulated user's words follow only what it can see.

Metamorphic tests over every shipped scenario: the oracle's actions are played twice on the same
instance, once as they are and once with fields the user cannot see changed behind the agent's
back after every tool call (hidden state: fields no notification reads, on the rows the episode
touched and on the user's own records). What the user has seen and every word it says must be the
same. ``HYPOTHESIS_PROFILE=full`` runs them at full strength (docs/testing.md).
"""

from __future__ import annotations

import ast
import inspect
import json
import random
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from enterprise_envs import registry
from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.observables import observable_fields
from enterprise_envs.mocks._core.world import World
from enterprise_envs.scenarios.instance import ScenarioInstance
from enterprise_envs.scenarios.users.clients import canonical_request
from enterprise_envs.scenarios.users.llm import LLMUser
from enterprise_envs.simulator_tools import compare_heard, pilot_scenario
from tests.shipped import SCENARIOS, make_env
from tests.strategies import examples

USERS_PACKAGE = Path(__file__).resolve().parents[2] / "scenarios" / "users"


def test_the_user_package_has_no_handle_on_a_back_end() -> None:
    """Structural: nothing under scenarios/users imports the mocks, a store or a database."""
    offending = []
    for path in sorted(USERS_PACKAGE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            offending += [f"{path.name}: {name}" for name in names if "mocks" in name or "sqlite" in name]
    assert offending == []


def test_the_view_takes_no_back_end() -> None:
    """Structural: the UserView is computed from what the user saw and the conversation only."""
    parameters = list(inspect.signature(ScenarioInstance.view).parameters)
    assert parameters == ["self", "seen", "transcript"]
    assert "world" in inspect.signature(ScenarioInstance.observe).parameters


def _tables(world: World) -> dict[str, tuple[Backend, str]]:
    """Every table of the world by its world name (qualified when there are several systems)."""
    return {
        world.table_name(backend.system.name, table): (backend, table)
        for backend in world
        for table in backend.system.catalog
    }


def _hidden_fields(world: World) -> dict[str, list[str]]:
    """World table -> fields no notification of its system reads, nor any label one shows."""
    out = {}
    for name, (backend, table) in _tables(world).items():
        seen = observable_fields(backend.system.notifications)
        spec = backend.system.catalog[table]
        # The key, the record number people are told and the display value are what a note shows.
        shown = seen.get(table, frozenset()) | seen.get("*", frozenset())
        shown |= {spec.key_field, spec.display_field}
        if spec.number_prefix:
            shown |= {"number"}
        out[name] = [column for column in spec.columns if column not in shown]
    return out


def _own_rows(world: World, keys_of: Mapping[str, str]) -> list[tuple[str, str]]:
    """Rows of the watched tables that name the person (their key in each system) in a recipient field."""
    rows = []
    for backend in world:
        system = backend.system
        mine = keys_of.get(system.name)
        if not mine:
            continue
        for rule in system.notifications:
            if rule.about is not None:
                continue
            key_field = system.catalog[rule.table].key_field
            for field in rule.recipients:
                keys = backend.store.column_values(rule.table, key_field, f'"{field}" = ?', (mine,))
                rows += [(world.table_name(system.name, rule.table), key) for key in keys[:5]]
    return sorted(set(rows))


def _other_value(backend: Backend, table: str, column: str, current: str, rng: random.Random) -> str:
    spec = backend.system.catalog[table].field(column)
    choices = sorted(set(spec.choices or ()) - {current}) if spec is not None else []
    return rng.choice(choices) if choices else f"{current}~hidden{rng.randrange(1000)}"


def _change_hidden_state(keys_of: Mapping[str, str], picks: random.Random) -> Callable[[World, int], None]:
    """A hook changing hidden fields of up to three touched or own rows, checking that what the
    user has seen did not change with them."""

    def after_call(world: World, _index: int) -> None:
        hidden = _hidden_fields(world)
        tables = _tables(world)
        instance_seen = _seen(world, keys_of)
        rows = sorted(
            {(table, key) for table, key, _ in world.store.changed_rows()} | set(_own_rows(world, keys_of))
        )
        for table, key in picks.sample(rows, min(len(rows), 3)):
            backend, local = tables[table]
            row = backend.store.get(local, key)
            if row is None or not hidden[table]:
                continue
            column = picks.choice(hidden[table])
            other = _other_value(backend, local, column, row[column], picks)
            backend.store.update(local, key, {column: other})
        assert _seen(world, keys_of) == instance_seen, "a hidden field changed what the user has seen"

    return after_call


def _seen(world: World, keys_of: Mapping[str, str]) -> list[dict]:
    """What every system of the world has told the person (their own key in each)."""
    from enterprise_envs.mocks._core.observables import notifications_for

    return [
        note.to_dict()
        for backend in world
        for note in notifications_for(
            backend.store, backend.system.notifications, keys_of.get(backend.system.name, "")
        )
    ]


def _person_keys(episodes: EnvEpisodes, seed: int, surface: str) -> dict[str, str]:
    """The user's person in each system, as the instance found them when it was drawn.

    Fixed at the draw, as the env's user sees them: a hidden field changed later (a login) must
    not move whom the notifications are for.
    """
    instance = episodes._start(seed, surface).instance
    return {episodes.scenario.systems[0]: instance.person, **instance.persons}


@pytest.fixture(scope="module")
def episodes_by_scenario():
    made: dict[str, EnvEpisodes] = {}
    yield lambda scenario_id: made.setdefault(scenario_id, EnvEpisodes(scenario_id))
    for episodes in made.values():
        episodes.close()


@pytest.mark.parametrize("scenario_id", SCENARIOS)
@settings(
    max_examples=examples(4),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 40), picks=st.integers(0, 2**32 - 1), every_call=st.booleans())
def test_hidden_state_changes_no_word_the_user_says(
    episodes_by_scenario, scenario_id: str, seed: int, picks: int, every_call: bool
) -> None:
    """Same conversation, same notifications, other hidden state: the same user words.

    Changed after the last tool call, hidden state cannot change what the agent's calls did, so
    every reply must agree. Changed after every call, a later call may fail on it (a field a
    service rule reads) and send other notifications: replies must agree wherever what the user
    had seen and the conversation so far agree (no *unexplained* difference).
    """
    episodes = episodes_by_scenario(scenario_id)
    surface = episodes.scenario.solutions[0].surface
    recorded = episodes.record(seed, surface, episodes.scenario.solutions[0].name)
    actions = recorded.actions()
    keys_of = _person_keys(episodes, seed, surface)
    last_call = max((i for i, action in enumerate(actions) if action.kind == "tool"), default=-1)
    edit = _change_hidden_state(keys_of, random.Random(picks))

    def hook(backend: World, index: int) -> None:
        if every_call or index == last_call:
            edit(backend, index)

    clean = episodes.replay(seed, surface, actions)
    changed = episodes.replay(seed, surface, actions, after_call=hook)
    compared, unexplained, _observable, differing = compare_heard(clean, changed)
    assert unexplained == 0, differing
    assert compared >= 1
    if not every_call:
        assert (clean.seen, clean.heard) == (changed.seen, changed.heard)


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_user_reacts_to_what_it_can_see(scenario_id: str) -> None:
    """The hook is not vacuous: where the oracle's writes send the person a notification, taking
    them away changes what the user sees, and the user may react to that (a person would too)."""
    episodes = EnvEpisodes(scenario_id)
    try:
        surface = episodes.scenario.solutions[0].surface
        recorded = episodes.record(0, surface, episodes.scenario.solutions[0].name)
        blind = episodes.replay(
            0, surface, [s.action for s in recorded.steps if not (s.action.kind == "tool" and s.write)]
        )
        # A refusal's goal is never met, so nothing is sent; every other one waits for its notice.
        observes = "refusal" not in episodes.scenario.tags and any(
            check.events for check in episodes.scenario.view.values()
        )
        notified = any(json.loads(text) for text in recorded.seen)
        assert all(json.loads(text) == [] for text in blind.seen)
        if observes:
            assert notified, f"{scenario_id}: its view waits for a notification the oracle never causes"
    finally:
        episodes.close()


class _RecordingClient:
    """A chat model that always offers the same harmless reply, keeping every request it got."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    def complete(self, messages, *, temperature=1.0, n=1, response_format=None) -> list[str]:
        self.requests.append(
            canonical_request(messages, temperature=temperature, n=n, response_format=response_format)
        )
        return [json.dumps({"replies": [{"text": "Okay.", "probability": 1.0}]})]


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_the_llm_user_is_prompted_with_nothing_hidden(scenario_id: str) -> None:
    """The guarded LLM user keeps the same closure: other hidden state, the very same prompts."""
    client = _RecordingClient()
    episodes = EnvEpisodes(scenario_id, user=LLMUser(client))
    try:
        surface = episodes.scenario.solutions[0].surface
        actions = episodes.record(3, surface, episodes.scenario.solutions[0].name).actions()
        keys_of = _person_keys(episodes, 3, surface)
        start = len(client.requests)
        episodes.replay(3, surface, actions)
        clean = client.requests[start:]
        start = len(client.requests)
        edit = _change_hidden_state(keys_of, random.Random(3))
        last_call = max((i for i, action in enumerate(actions) if action.kind == "tool"), default=-1)
        episodes.replay(3, surface, actions, after_call=lambda b, i: edit(b, i) if i == last_call else None)
        assert clean and client.requests[start:] == clean
    finally:
        episodes.close()


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_a_false_claim_satisfies_only_a_user_who_cannot_check(scenario_id: str) -> None:
    """The pilot's false_success probe claims the work done while nothing changed. A user whose goal
    shows in what it can see (a notification, a number, a status it was told) denies it; a user
    whose goal sends it nothing (an urgency, a work note) takes the agent's word, as a person would,
    and only the verifier can tell."""
    scenario = registry.scenarios()[scenario_id]
    done = scenario.view[scenario.user["done_when"]]
    trusting = done.kind == "claimed" and not done.events
    report = pilot_scenario(scenario_id, seeds=(0,))
    endings = {
        r.terminal.value if r.terminal else "open" for r in report.rollouts if r.agent == "false_success"
    }
    assert endings == ({"done"} if trusting else endings - {"done"}) and endings


@pytest.mark.parametrize("scenario_id", SCENARIOS)
def test_work_done_in_silence_is_not_thanked(scenario_id: str) -> None:
    """The oracle's tool calls with every message replaced by a stall: whatever the back-end now
    holds, a user who was told nothing never says it is all sorted (issue 14: 'all sorted, thanks'
    to an agent that did the work and said nothing)."""
    episodes = EnvEpisodes(scenario_id)
    try:
        surface = episodes.scenario.solutions[0].surface
        actions = episodes.record(1, surface, episodes.scenario.solutions[0].name).actions()
    finally:
        episodes.close()
    env = make_env(scenario_id, surface=surface, faults="off")
    try:
        env.reset(seed=1)
        for action in actions:
            if action.kind == "tool":
                step = {"tool": action.tool, "arguments": dict(action.arguments)}
            elif action.kind == "message":
                step = {"message": "Let me look into that for you."}
            else:
                break
            *_rest, terminated, truncated, _info = env.step(step)
            if terminated or truncated:
                break
        assert env.unwrapped.user_terminal != "done", [turn.text for turn in env.unwrapped.user_turns]
    finally:
        env.close()
