"""Serving live Gym envs from Python: act through MCP, verify on the Gym side."""

from __future__ import annotations

import asyncio
import threading

import gymnasium
import pytest
from fastmcp import Client

import enterprise_envs  # noqa: F401  (registers ITSM-v0)
from enterprise_envs.agents import OracleAgent
from enterprise_envs.mcp import HubServer, serve_env
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from tests.mcp.helpers import TIMEOUT
from tests.mcp.test_episode import fastmcp_caller, play_oracle


def test_world_mode_tools_through_mcp_and_the_gym_side_verifies() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    observation, info = env.reset(seed=11)
    agent = OracleAgent()
    agent.reset(env, info)
    threads_before = set(threading.enumerate())
    final: dict = {}
    with serve_env(env) as served:

        async def harness() -> None:
            """Tools go through MCP; what the agent says goes to the Gym env's user."""
            nonlocal observation, final
            async with Client(served.url, auth=served.token) as client:
                for _ in range(100):
                    action = agent.act(observation)
                    if "tool" in action:
                        result = await client.call_tool(
                            action["tool"], action["arguments"], raise_on_error=False
                        )
                        observation = {
                            "role": "tool",
                            "name": action["tool"],
                            "content": result.content[0].text,
                        }
                    elif "message" in action:
                        observation, _, terminated, _, final = env.step(action)
                        if terminated:  # the user saw their goal met: the Gym side has the verdict
                            return
                    else:
                        final = env.step(action)[4]
                        return

        asyncio.run(asyncio.wait_for(harness(), TIMEOUT))
        assert served.server.running
    assert not served.server.running
    assert final["outcome"]["kind"] == "success"
    assert final["tool_calls"] == 0  # the tools were called through MCP, not env.step
    env.close()
    assert {t for t in threading.enumerate() if t.name.startswith("mcp-http")} - threads_before == set()


def test_episode_mode_through_mcp_has_the_gym_verdict() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.escalate")
    observation, info = env.reset(seed=4)
    agent = OracleAgent()
    agent.reset(env, info)
    with serve_env(env, episode=True) as served:

        async def harness() -> None:
            async with Client(served.url, auth=served.token) as client:
                await play_oracle(fastmcp_caller(client), agent, observation["content"])

        asyncio.run(asyncio.wait_for(harness(), TIMEOUT))
        record = served.verdict()
    assert record["outcome"]["kind"] == "success"
    # The env itself recorded the episode: its transcript has the MCP-driven tool calls.
    assert record["tool_calls"] == env.unwrapped.tool_calls > 0
    env.close()


def test_one_server_many_envs_and_a_plain_backend() -> None:
    first = Backend(ITSM, size="tiny")
    second = Backend(ITSM, size="tiny")
    caller = first.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0]["user_name"]
    with HubServer("itsm") as server:
        one = serve_env(first, server=server)
        two = serve_env(second, server=server)

        async def harness() -> None:
            async with Client(one.url, auth=one.token) as client:
                await client.call_tool(
                    "create_incident", {"caller": caller, "short_description": "first only"}
                )
            async with Client(two.url, auth=two.token) as client:
                found = await client.call_tool("search_incidents", {"text": "first only"})
                assert found.structured_content["total"] == 0

        asyncio.run(asyncio.wait_for(harness(), TIMEOUT))
        assert first.store.select("incident", "short_description = 'first only'")
        assert not second.store.select("incident", "short_description = 'first only'")
        one.close()
        assert server.hub.find(server.owner, one.env_id) is None
        with pytest.raises(ValueError, match="serves itsm/typed worlds"):
            serve_env(Backend(ITSM, size="tiny", surface="rest"), server=server)
        with pytest.raises(TypeError):
            one.verdict()
    # Served backends stay open and usable, the served episode's writes in place until a reset.
    assert first.call("list_groups", {}).ok
    assert first.store.select("incident", "short_description = 'first only'")
    first.reset()
    assert first.store.last_restore == "rollback"
    assert not first.store.select("incident", "short_description = 'first only'")
    first.close()
    second.close()


def test_serving_needs_a_reset_env() -> None:
    env = gymnasium.make("ITSM-v0", scenario="itsm.report_incident")
    with pytest.raises(ValueError, match="reset the env"):
        serve_env(env)
    env.close()
