"""The OpenEnv server: OpenEnv's own client over HTTP (WebSocket) on 127.0.0.1 plays oracle episodes.

Needs the ``openenv`` extra (marker ``openenv``): ``pytest -m openenv tests/integrations/test_openenv.py``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import gymnasium
import pytest

import enterprise_envs  # noqa: F401
from enterprise_envs.agents import OracleAgent

pytestmark = pytest.mark.openenv
pytest.importorskip("openenv.core.env_server", reason="needs the openenv extra")

SCENARIO = "itsm.report_incident"
TIMEOUT = 30.0


def oracle_run(seed: int, scenario: str | None = SCENARIO) -> dict:
    """A direct gym run of the oracle: its actions, observations, reward and final info."""
    env = gymnasium.make("ITSM-v0")
    try:
        observation, info = env.reset(seed=seed, options={"scenario": scenario} if scenario else {})
        agent = OracleAgent()
        agent.reset(env, info)
        actions, observations, total, done = [], [observation], 0.0, False
        while not done:
            action = json.loads(json.dumps(agent.act(observation)))
            actions.append(action)
            observation, reward, terminated, truncated, final = env.step(action)
            observations.append(observation)
            total += reward
            done = terminated or truncated
        return {
            "info": info,
            "actions": actions,
            "observations": observations,
            "reward": total,
            "final": json.loads(json.dumps(final, default=str)),
        }
    finally:
        env.close()


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    import uvicorn

    from enterprise_envs.integrations.openenv import create_openenv_app

    app = create_openenv_app("ITSM-v0", max_concurrent_envs=4)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="websockets-sansio"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:
        assert time.monotonic() < deadline, "the OpenEnv server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
    sock.close()


def client(url: str):
    from openenv import GenericEnvClient

    return GenericEnvClient(base_url=url, connect_timeout_s=TIMEOUT, message_timeout_s=TIMEOUT)


async def play_actions(url: str, seed: int, actions: list, *, as_mcp: bool = False) -> dict:
    """Reset over OpenEnv with the seed and replay ``actions``: the observations and the end."""
    async with client(url) as env:
        started = await env.reset(seed=seed, scenario=SCENARIO)
        observations, rewards, last = [started.observation], [], started
        for action in actions:
            payload = mcp_call(action) if as_mcp else {"type": "act", "action": action}
            last = await env.step(payload)
            observations.append(last.observation)
            rewards.append(last.reward)
        state = await env.state()
    return {"observations": observations, "rewards": rewards, "done": last.done, "state": state}


def mcp_call(action: dict) -> dict:
    """Our action as the MCP call an MCP agent makes (our MCP servers' tool names)."""
    if "tool" in action:
        return {"type": "call_tool", "tool_name": action["tool"], "arguments": action.get("arguments", {})}
    if "message" in action:
        return {
            "type": "call_tool",
            "tool_name": "send_message_to_user",
            "arguments": {"message": action["message"]},
        }
    return {"type": "call_tool", "tool_name": "end_conversation", "arguments": {}}


def same_as_gym(direct: dict, served: dict, seed: int) -> None:
    opening = served["observations"][0]
    assert opening["content"] == direct["observations"][0]["content"]
    assert opening["info"]["scenario"] == SCENARIO and opening["info"]["seed"] == seed
    assert opening["info"]["instructions"] == direct["info"]["instructions"]
    assert [t["function"]["name"] for t in opening["info"]["tools"]] == [
        t["function"]["name"] for t in direct["info"]["tools"]
    ]
    for mine, theirs in zip(served["observations"][1:], direct["observations"][1:], strict=True):
        assert (mine["role"], mine["content"]) == (theirs["role"], theirs["content"])
    assert served["done"] is True
    assert sum(served["rewards"]) == direct["reward"] == 1.0
    final = served["observations"][-1]["info"]
    assert final["outcome"] == direct["final"]["outcome"]
    assert final["verdict"] == direct["final"]["verdict"]
    assert final["messages"] == direct["final"]["messages"]
    assert final["seed"] == seed and final["reward"] == 1.0
    assert served["state"]["seed"] == seed and served["state"]["over"] is True


@pytest.mark.parametrize("seed", [0, 3])
def test_oracle_episode_over_openenv_matches_gym(server_url: str, seed: int) -> None:
    direct = oracle_run(seed)
    served = asyncio.run(play_actions(server_url, seed, direct["actions"]))
    same_as_gym(direct, served, seed)


def test_mcp_tool_calls_play_the_same_episode(server_url: str) -> None:
    direct = oracle_run(1)
    served = asyncio.run(play_actions(server_url, 1, direct["actions"], as_mcp=True))
    same_as_gym(direct, served, 1)


def test_list_tools_and_concurrent_sessions_are_isolated(server_url: str) -> None:
    async def two_sessions() -> tuple:
        async with client(server_url) as first, client(server_url) as second:
            a = await first.reset(seed=0, scenario=SCENARIO)
            b = await second.reset(seed=5, scenario=SCENARIO)
            tools = await first.step({"type": "list_tools"})
            ended = await second.step({"type": "act", "action": {"end": True}})
            still = await first.step(
                {"type": "act", "action": {"tool": "search_users", "arguments": {"query": "x"}}}
            )
            return a, b, tools, ended, still

    a, b, tools, ended, still = asyncio.run(two_sessions())
    assert a.observation["content"] != b.observation["content"]
    names = [tool["name"] for tool in tools.observation["tools"]]
    assert names[-2:] == ["send_message_to_user", "end_conversation"]
    assert names[:-2] == [t["function"]["name"] for t in a.observation["info"]["tools"]]
    assert ended.done and ended.observation["info"]["outcome"]["kind"] == "failure"
    assert not still.done and still.observation["role"] == "tool"


def test_openenv_yaml_names_the_app() -> None:
    import yaml

    spec = yaml.safe_load(
        (Path(enterprise_envs.__file__).parent / "integrations" / "openenv.yaml").read_text()
    )
    assert spec["runtime"] == "fastapi" and spec["app"] == "enterprise_envs.integrations.openenv:app"
    module, _, attribute = spec["app"].partition(":")
    code = f"import {module} as m; print(type(getattr(m, {attribute!r})).__name__)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "FastAPI", result.stderr[-2000:]
