"""The extension point, proved by a second system that lives only here (Keyval, a toy KV SaaS).

Keyval differs from ITSM on purpose (key field ``id``, ``kv_`` ids, ``KV`` + five-digit
references, ISO times, its own error envelope, a record API with other argument names) and is
loaded as a plugin. Its scenarios run through Gym, MCP, the verifier and the audit, alone and in
a World with ITSM where each step needs an earlier one's output.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import gymnasium
import pytest

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.audit import audit_one
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mcp import HubServer
from enterprise_envs.mocks._core.faults import FaultConfig
from enterprise_envs.mocks._core.world import World
from tests.kv_system import CONVENTIONS, EPOCH
from tests.mcp.helpers import TOKEN_A, control, sdk_session
from tests.mcp.test_episode import play_oracle, sdk_caller

DESK = "kv.oncall_incident"
ALONE = "kv.store_value"
ROOT = Path(__file__).resolve().parents[2]


def _play(scenario: str, seed: int, surface: str, agent: Any = None) -> dict[str, Any]:
    env = EnterpriseEnv(suite=registry.suite_serving(scenario).env_id, scenario=scenario, surface=surface)
    try:
        return play_episode(env, agent or OracleAgent(), seed, options={"scenario": scenario})
    finally:
        env.close()


def _world() -> World:
    return World([registry.systems()["itsm"], registry.systems()["kv"]], size="tiny")


def test_the_plugin_brings_its_system_scenarios_and_suites() -> None:
    assert registry.systems()["kv"].conventions is CONVENTIONS
    assert {"Keyval-v0", "KeyvalDesk-v0"} <= set(registry.suites())
    assert registry.suites()["KeyvalDesk-v0"].systems == ("itsm", "kv")
    assert {ALONE, DESK} <= set(registry.scenarios())
    env = gymnasium.make("KeyvalDesk-v0")
    try:
        _, info = env.reset(seed=0)
        assert info["scenario"] == DESK
        assert "Keyval" in info["instructions"] and "service desk" in info["instructions"].lower()
    finally:
        env.close()


@pytest.mark.parametrize("surface", ["typed", "rest"])
@pytest.mark.parametrize("scenario", [ALONE, DESK])
def test_the_oracle_succeeds_through_gym(scenario: str, surface: str) -> None:
    for seed in (0, 1):
        final = _play(scenario, seed, surface)
        assert final["outcome"]["kind"] == "success", final["verdict"]
        assert final["reward"] == 1.0


def test_a_world_of_two_names_every_table_and_tool_by_its_system() -> None:
    world = _world()
    try:
        names = {tool.name for tool in world.surface}
        itsm = {tool.name for tool in registry.systems()["itsm"].surface("typed")}
        kv = {tool.name for tool in registry.systems()["kv"].surface("typed")}
        assert names == {f"itsm_{t}" for t in itsm} | {f"kv_{t}" for t in kv}
        assert {"itsm.incident", "kv.entry", "kv.member"} <= set(world.catalog)
        assert world.catalog["kv.entry"].field("owner").reference == "kv.member"
        assert world.catalog["kv.entry"].key_field == "id"
        unknown = world.call("put_entry", {"space": "x", "name": "y", "value": "z"})
        assert unknown.status == 400 and "put_entry" in json.dumps(unknown.body)
    finally:
        world.close()


def test_one_people_directory_makes_the_same_employees_in_both_systems() -> None:
    world = _world()
    try:
        assert world.directory is not None and world.directory.source == "itsm"
        people = world.directory.people
        assert len(people) > 10
        members = {row["login"]: row for row in world.store.select("kv.member", "1")}
        by_id = {row["id"]: row for row in members.values()}
        for person in people:
            member = members[person.login]
            itsm_user = world.store.find_one("itsm.sys_user", "user_name", person.login)
            assert itsm_user is not None
            assert member["email"] == itsm_user["email"] == person.email
            assert member["display_name"] == person.name
            if person.manager:
                assert by_id[member["manager"]]["login"] == person.manager
    finally:
        world.close()


def test_one_clock_runs_across_the_systems() -> None:
    world = _world()
    try:
        world.reset(episode_seed=1)
        user = world.store.select("itsm.sys_user", "active = 'true' AND roles = ''", limit=1)[0]
        assert world.call("itsm_search_users", {"query": user["email"]}).ok
        assert world.call("itsm_wait", {"seconds": 60}).ok
        put = world.call("kv_put_entry", {"space": "team-notes", "name": "clock", "value": "tick"})
        assert put.ok, put.body
        # Three calls of 5 s each and a 60 s wait, on the one clock, written in Keyval's format.
        expected = (EPOCH + timedelta(seconds=3 * 5 + 60)).strftime(CONVENTIONS.formats.datetime)
        assert put.body["entry"]["created_at"] == expected
        assert re.fullmatch(CONVENTIONS.id_pattern, put.body["entry"]["id"])
        assert re.fullmatch(r"KV\d{5}", put.body["entry"]["ref"])
        assert world.call_index == 3
        assert [write.tool for write in world.writes] == ["kv_put_entry"]
        assert world.writes[0].rows[0][0] == "kv.entry"
    finally:
        world.close()


def test_one_fault_injector_rate_limits_the_world_as_a_whole() -> None:
    world = _world()
    try:
        world.reset(episode_seed=2)
        world.set_faults(FaultConfig.from_dict({"rate_limit": {"calls": 2, "window_seconds": 600}}), 2)
        results = [
            world.call("itsm_get_incident", {"number": "INC0000000"}),
            world.call("kv_get_entry", {"space": "team-notes", "name": "none"}),
            world.call("kv_get_entry", {"space": "team-notes", "name": "none"}),
        ]
        assert [r.status for r in results[:2]] == [404, 404]
        assert results[2].status == 429 and results[2].injected
        assert results[2].body == {
            "error": {"code": "rate_limited", "message": results[2].body["error"]["message"]}
        }
        assert len(world.faults.log) == 1
    finally:
        world.close()


class _WrongNumber(OracleAgent):
    """The oracle, but the number noted in Keyval is another incident's."""

    def act(self, observation: Any) -> Any:
        action = super().act(observation)
        if isinstance(action, dict) and action.get("tool") in ("kv_put_entry", "kv_create_record"):
            action = json.loads(json.dumps(action))
            target = action["arguments"] if "value" in action["arguments"] else action["arguments"]["data"]
            target["value"] = "INC0010001"
        return action


@pytest.mark.parametrize("surface", ["typed", "rest"])
def test_an_earlier_steps_output_is_checked_in_the_later_system(surface: str) -> None:
    final = _play(DESK, 0, surface, _WrongNumber())
    assert final["outcome"]["kind"] == "failure"
    note = [r for r in final["verdict"]["requirements"] if "noted in Keyval" in r["label"]]
    assert note and not note[0]["passed"]
    assert "expected the $ticket.number of a row that entry claims" in note[0]["evidence"]


def test_the_audit_is_sound_over_both_systems_and_skips_nothing() -> None:
    for scenario in (ALONE, DESK):
        audit = audit_one(scenario, [0], ("typed", "rest"))
        assert audit.passed, audit.to_dict()["findings"]
        assert audit.skipped == {}
    tallies = audit.to_dict()["probes"]
    # The record-API probes wrote through both systems' own tools, and were rejected.
    for probe in ("privilege", "created_unasked", "canary", "wrong_record"):
        assert tallies[probe]["rejected"] > 0, probe


@pytest.mark.parametrize("surface", ["typed", "rest"])
def test_a_stale_carried_value_is_probed_and_rejected(surface: str) -> None:
    """The perturb probe's ``stale_carry``: the number carried into Keyval swapped for the next
    record's (same shape, another incident) is a different world, and the verdict fails it."""
    from enterprise_envs.audit import EnvEpisodes
    from enterprise_envs.verifiers.audit.probes import _rival, perturb
    from enterprise_envs.verifiers.audit.soundness import judge
    from enterprise_envs.verifiers.audit.trace import clock_fields

    assert _rival("INC0010099") == "INC0010100" and _rival("no digits") == "no digitsX"
    episodes = EnvEpisodes(DESK)
    try:
        solution = next(s.name for s in episodes.scenario.solutions if s.surface == surface)
        oracle = episodes.record(0, surface, solution)
        ctx = episodes.context(0, surface)
        stale = [variant for variant in perturb(oracle, ctx) if "stale_carry" in variant.name]
        assert stale
        for variant in stale:
            run = episodes.replay(0, surface, variant.actions)
            assert judge(variant, run, oracle, clock_fields(ctx.catalog)) == "rejected", variant.name
    finally:
        episodes.close()


def test_an_mcp_client_plays_the_cross_system_episode_as_gym_does() -> None:
    with HubServer("itsm+kv", "typed", episodes=True, tokens={TOKEN_A: "alice"}) as server:
        status, started = control(server.base_url, "POST", "/control/episodes", {"scenario": DESK, "seed": 1})
        assert status == 201, started
        episode = server.hub.get("alice", started["episode_id"])
        agent = OracleAgent()
        agent.reset(episode.env, episode.reset_info)

        async def main() -> tuple[set[str], dict[str, int]]:
            async with sdk_session(started["mcp_url"]) as session:
                listed = {tool.name for tool in (await session.list_tools()).tools}
                return listed, await play_oracle(sdk_caller(session), agent, started["opening_message"])

        listed, counts = asyncio.run(main())
        gym_tools = {tool["function"]["name"] for tool in episode.reset_info["tools"]}
        assert gym_tools <= listed and {"kv_put_entry", "itsm_create_incident"} <= listed
        assert counts["tools"] >= 4
        status, record = control(server.base_url, "POST", f"/control/episodes/{started['episode_id']}/verify")
        assert status == 200 and record["reward"] == 1.0, record["outcome"]
        gym = _play(DESK, 1, "typed")
        for key in ("outcome", "verdict", "messages", "steps", "tool_calls"):
            assert record[key] == gym[key], key


def test_nothing_outside_this_folder_names_the_toy_system() -> None:
    """Adding Keyval touched no file of the package: its code and data never name it (docs may)."""
    for folder in ("enterprise_envs", "mocks", "scenarios", "verifiers"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in (".py", ".toml", ".md", ".json"):
                text = path.read_text(encoding="utf-8", errors="replace")
                assert "kv_system" not in text and "Keyval" not in text, path
