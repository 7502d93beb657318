"""Suite episode mode: ``serve --suite Workplace-v0`` serves episodes of any scenario of the suite.

Each episode's MCP endpoint lists its own world's tools (namespaced ``<system>_<tool>`` when the
world holds several systems): the names the Gym env lists in ``info["tools"]`` for the same
scenario and seed, plus the episode tools. A seed without a scenario draws the scenario that
``gymnasium.make(SUITE).reset(seed=seed)`` draws, and the oracle played over MCP gets the Gym
run's verdict.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import gymnasium
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.shared.exceptions import MCPError

import enterprise_envs  # noqa: F401  (registers the suites' Gym ids)
from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mcp import END_TOOL, MESSAGE_TOOL, HubServer, serve_env
from enterprise_envs.mcp.commands import main as mcp_main
from enterprise_envs.mcp.hub import EpisodeDefaults
from enterprise_envs.scenarios.format import ScenarioError
from tests.mcp.helpers import (
    MODULE,
    TIMEOUT,
    TOKEN_A,
    TOKEN_B,
    TOKENS,
    control,
    fastmcp_caller,
    gym_final,
    play_oracle,
    sdk_caller,
    sdk_session,
    serve_subprocess,
)

SUITE = "Workplace-v0"
#: A scenario of two systems (itsm and identity).
TWO_SYSTEMS = "itsm.workplace.password_ticket"
SEED = 1
EPISODE_TOOLS = {MESSAGE_TOOL, END_TOOL}
#: What must agree between the MCP verdict record and the Gym run's final info.
SAME = ("outcome", "verdict", "messages", "steps", "tool_calls", "faults", "user_terminal", "systems_used")


def gym_start(scenario: str | None, seed: int) -> tuple[dict[str, str], dict[str, Any]]:
    """``gymnasium.make(SUITE).reset(seed=seed)`` (with the scenario, if given): observation, info."""
    env = gymnasium.make(SUITE)
    try:
        options = {"scenario": scenario} if scenario else None
        return env.reset(seed=seed, options=options)
    finally:
        env.close()


def gym_names(info: dict[str, Any]) -> list[str]:
    """The tool names of a Gym reset's ``info["tools"]`` (OpenAI function format)."""
    return [tool["function"]["name"] for tool in info["tools"]]


def world_names(names: list[str]) -> list[str]:
    """An MCP listing without the episode tools, in its order."""
    return [name for name in names if name not in EPISODE_TOOLS]


def three_systems() -> str:
    """A Workplace-v0 scenario of three systems whose instance draws on SEED; skip if none.

    The suite's cross-system content is still growing: the first such scenario that starts.
    """
    served = registry.select(registry.suite(SUITE))
    for scenario in [s.id for s in served if len(s.systems) == 3]:
        try:
            gym_start(scenario, SEED)
        except ScenarioError:
            continue
        return scenario
    pytest.skip(f"{SUITE} has no scenario of three systems that starts on seed {SEED}")


@pytest.fixture(params=["two systems", "three systems"])
def scenario(request: pytest.FixtureRequest) -> str:
    """A Workplace-v0 scenario id: one of two systems, and one of three if the suite has one."""
    return TWO_SYSTEMS if request.param == "two systems" else three_systems()


@pytest.fixture
def suite_server() -> Iterator[HubServer]:
    """An in-process HTTP server for Workplace-v0 episodes (typed surface), tokens of alice and bob."""
    with HubServer(suite=SUITE, tokens=TOKENS) as server:
        yield server


def seed_drawing(scenario: str) -> int:
    """A seed whose suite draw is ``scenario`` (checked against Gym by the tests)."""
    env = EnterpriseEnv(suite=SUITE)
    try:
        return next(seed for seed in range(500) if env.scenario_for_seed(seed).id == scenario)
    finally:
        env.close()


def test_mcp_tool_names_are_the_gym_names_over_http_and_stdio(suite_server: HubServer, scenario: str) -> None:
    observation, info = gym_start(scenario, SEED)
    names = gym_names(info)
    systems = registry.scenarios()[scenario].systems
    assert len(systems) >= 2 and {name.split("_", 1)[0] for name in names} == set(systems)
    status, started = control(
        suite_server.base_url, "POST", "/control/episodes", {"scenario": scenario, "seed": SEED}
    )
    assert status == 201, started
    assert started["opening_message"] == observation["content"]
    assert gym_names(started) == names
    stdio = [*MODULE, "serve", "--suite", SUITE, "--scenario", scenario, "--seed", str(SEED)]

    async def main() -> tuple[list[Any], list[str], str | None]:
        async with Client(started["mcp_url"], auth=TOKEN_A) as client:
            http_tools = list(await client.list_tools())
        async with Client(StdioTransport(command=sys.executable, args=stdio[1:])) as client:
            over_stdio = [tool.name for tool in await client.list_tools()]
            return http_tools, over_stdio, client.instructions

    http_tools, over_stdio, instructions = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    for listed in ([tool.name for tool in http_tools], over_stdio):
        assert world_names(listed) == names  # same names, same order
        assert set(listed) - set(names) == EPISODE_TOOLS
    functions = {tool["function"]["name"]: tool["function"] for tool in info["tools"]}
    for tool in http_tools:  # and the same tools: descriptions and input schemas
        if tool.name not in EPISODE_TOOLS:
            assert tool.description == functions[tool.name]["description"]
            assert tool.input_schema == functions[tool.name]["parameters"]
    assert instructions and observation["content"] in instructions  # the same episode over stdio


def test_the_oracle_over_mcp_gets_the_gym_verdict(suite_server: HubServer, scenario: str) -> None:
    status, started = control(
        suite_server.base_url, "POST", "/control/episodes", {"scenario": scenario, "seed": SEED}
    )
    assert status == 201, started
    episode = suite_server.hub.get("alice", started["episode_id"])
    agent = OracleAgent()
    agent.reset(episode.env, episode.reset_info)

    async def main() -> dict[str, int]:
        async with sdk_session(started["mcp_url"]) as session:
            return await play_oracle(sdk_caller(session), agent, started["opening_message"])

    counts = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert counts["tools"] > 0
    status, record = control(
        suite_server.base_url, "POST", f"/control/episodes/{started['episode_id']}/verify"
    )
    assert status == 200, record
    gym = gym_final(scenario, SEED)
    for key in SAME:
        assert record[key] == gym[key], key
    assert record["reward"] == (1.0 if gym["outcome"]["kind"] == "success" else 0.0)
    if scenario == TWO_SYSTEMS:
        assert record["outcome"]["kind"] == "success", record["outcome"]
        assert set(record["systems_used"]) == {"itsm", "identity"}


def test_the_suite_endpoint_routes_only_its_callers_episodes(suite_server: HubServer) -> None:
    base = suite_server.base_url
    started = control(base, "POST", "/control/episodes", {"scenario": TWO_SYSTEMS, "seed": SEED})[1]
    # An ITSM-v0 episode of alice's in the same hub: not one this endpoint serves.
    other = suite_server.hub.create_episode("alice", "itsm.status_check", seed=0, defaults=EpisodeDefaults())
    foreign = suite_server.mcp_url(other.id)

    async def main() -> Any:
        async with Client(started["mcp_url"], auth=TOKEN_B) as bob:
            with pytest.raises(MCPError, match="unknown env id"):
                await bob.list_tools()
            stolen = await bob.call_tool("itsm_search_incidents", {}, raise_on_error=False)
        async with Client(foreign, auth=TOKEN_A) as alice:
            with pytest.raises(MCPError, match=f"not an episode of {SUITE}"):
                await alice.list_tools()
        async with Client(suite_server.mcp_base, auth=TOKEN_A) as alice:
            with pytest.raises(MCPError, match="no episode id given"):  # no default episode here
                await alice.list_tools()
        async with Client(started["mcp_url"], auth=TOKEN_A) as alice:
            absent = await alice.call_tool("chat_post_message", {"channel": "x"}, raise_on_error=False)
        return stolen, absent

    stolen, absent = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert stolen.is_error and "unknown env id" in stolen.content[0].text
    assert absent.is_error  # a tool of the suite, not of this episode's world (itsm+identity)
    status, body = control(base, "POST", "/control/episodes", {"scenario": "itsm.report_incident"})
    assert status == 400 and f"suite {SUITE} does not serve scenario 'itsm.report_incident'" in body["error"]
    assert control(base, "POST", "/control/episodes", {"scenario": "nope"})[0] == 400
    assert control(base, "POST", "/control/envs", {})[0] == 400  # a suite server makes no worlds
    health = control(base, "GET", "/control/health", token=None)[1]
    assert health["suite"] == SUITE and health["mode"] == "episode"


def test_serve_env_registers_a_gym_episode_on_a_suite_server(suite_server: HubServer) -> None:
    env = gymnasium.make(SUITE)
    _, info = env.reset(seed=SEED, options={"scenario": TWO_SYSTEMS})
    outsider = EnterpriseEnv(scenario="itsm.status_check")
    outsider.reset(seed=0, options={"scenario": "itsm.status_check"})
    try:
        with serve_env(env, episode=True, server=suite_server) as served:

            async def main() -> list[str]:
                async with Client(served.url, auth=served.token) as client:
                    return [tool.name for tool in await client.list_tools()]

            assert world_names(asyncio.run(asyncio.wait_for(main(), TIMEOUT))) == gym_names(info)
        with pytest.raises(ValueError, match=f"suite {SUITE} does not serve"):
            serve_env(outsider, episode=True, server=suite_server)
    finally:
        env.close()
        outsider.close()


def test_cli_suite_over_http_draws_the_scenario_as_gym_does() -> None:
    seed = seed_drawing(TWO_SYSTEMS)
    observation, info = gym_start(None, seed)
    assert info["scenario"] == TWO_SYSTEMS  # the draw is Gym's
    with serve_subprocess("--suite", SUITE, "--seed", str(seed), "--token", f"alice={TOKEN_A}") as base:
        # No scenario: the seed draws it, here and for the default episode (serve's seed).
        for status, started in (
            control(base, "POST", "/control/episodes", {"seed": seed}),
            control(base, "GET", "/control/episodes/default"),
        ):
            assert status in (200, 201), started
            assert started["scenario"] == TWO_SYSTEMS and started["seed"] == seed
            assert started["opening_message"] == observation["content"]
            assert gym_names(started) == gym_names(info)

        async def main() -> list[str]:
            async with Client(f"{base}/mcp?env=default", auth=TOKEN_A) as client:
                return [tool.name for tool in await client.list_tools()]

        listed = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
        assert world_names(listed) == gym_names(info) and set(listed) >= EPISODE_TOOLS
        status, body = control(base, "POST", "/control/episodes", {"scenario": "itsm.report_incident"})
        assert status == 400 and "does not serve" in body["error"]


def test_cli_suite_over_stdio_plays_the_drawn_episode(tmp_path: Path) -> None:
    seed = seed_drawing(TWO_SYSTEMS)
    out = tmp_path / "verdict.json"
    args = ["-m", "enterprise_envs.mcp", "serve", "--suite", SUITE, "--seed", str(seed)]
    args += ["--transport", "stdio", "--verdict-out", str(out)]
    twin = gymnasium.make(SUITE)
    observation, info = twin.reset(seed=seed)
    agent = OracleAgent()
    agent.reset(twin.unwrapped, info)

    async def main() -> list[str]:
        async with Client(StdioTransport(command=sys.executable, args=args)) as client:
            assert observation["content"] in (client.instructions or "")
            listed = [tool.name for tool in await client.list_tools()]
            await play_oracle(fastmcp_caller(client), agent, observation["content"])
            return listed

    listed = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    twin.close()
    assert world_names(listed) == gym_names(info)
    record = json.loads(out.read_text())
    gym = gym_final(TWO_SYSTEMS, seed)
    assert record["scenario"] == TWO_SYSTEMS and record["outcome"] == gym["outcome"]
    assert record["outcome"]["kind"] == "success"


def test_cli_refuses_what_a_suite_does_not_serve(capsys: pytest.CaptureFixture[str]) -> None:
    assert mcp_main(["serve", "--suite", SUITE, "--scenario", "itsm.report_incident"]) == 2
    assert f"suite {SUITE} does not serve scenario 'itsm.report_incident'" in capsys.readouterr().err
    assert mcp_main(["serve", "--suite", "Nope-v0"]) == 2
    assert "unknown suite 'Nope-v0'" in capsys.readouterr().err
    assert mcp_main(["serve", "itsm", "--suite", SUITE]) == 2
    assert "--suite serves episodes" in capsys.readouterr().err
