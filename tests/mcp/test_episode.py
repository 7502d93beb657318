"""Episode mode end to end: an MCP client plays a scenario; the control plane gives the verdict.

The oracle is driven from MCP results: observations are built from tool results and the user's
replies, exactly as the Gym env would have produced them, and the verdict must equal the Gym
env's verdict for the same scenario and seed.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from enterprise_envs.agents import OracleAgent
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mcp import END_TOOL, MESSAGE_TOOL, HubServer
from enterprise_envs.mcp.commands import main as mcp_main
from tests.mcp.helpers import (
    MODULE,
    TIMEOUT,
    TOKEN_A,
    TOKEN_B,
    control,
    fastmcp_caller,
    gym_final,
    play_oracle,
    sdk_caller,
    sdk_session,
    serve_subprocess,
)

CASES = [
    ("itsm.report_incident", 3, "typed"),
    ("itsm.recover_rate_limit", 1, "typed"),  # injected 429s: the oracle waits and retries
    ("itsm.refuse_admin_rights", 2, "typed"),  # the right answer is a refusal
    ("itsm.resolve_with_kb", 4, "rest"),
]


@pytest.mark.parametrize(("scenario", "seed", "surface"), CASES)
def test_oracle_through_mcp_passes_with_the_gym_verdict(scenario: str, seed: int, surface: str) -> None:
    with HubServer("itsm", surface, episodes=True, tokens={TOKEN_A: "alice"}) as server:
        status, started = control(
            server.base_url, "POST", "/control/episodes", {"scenario": scenario, "seed": seed}
        )
        assert status == 201, started
        assert started["opening_message"] and started["instructions"] and started["tools"]
        episode = server.hub.get("alice", started["episode_id"])
        agent = OracleAgent()
        agent.reset(episode.env, episode.reset_info)

        async def main():
            async with sdk_session(started["mcp_url"]) as session:
                return await play_oracle(sdk_caller(session), agent, started["opening_message"])

        counts = asyncio.run(main())
        assert counts["tools"] > 0
        status, record = control(server.base_url, "POST", f"/control/episodes/{started['episode_id']}/verify")
        assert status == 200
        assert record["outcome"]["kind"] == "success", record["outcome"]
        assert record["reward"] == 1.0
        # The verdict is the Gym env's verdict for the same scenario and seed.
        gym = gym_final(scenario, seed, surface)
        for key in ("outcome", "verdict", "messages", "steps", "tool_calls", "faults", "user_terminal"):
            assert record[key] == gym[key], key
        # Once over, the verdict can be read again, and the agent can do nothing more.
        assert control(server.base_url, "GET", f"/control/episodes/{started['episode_id']}/verdict") == (
            200,
            record,
        )


def test_a_do_nothing_client_fails(episode_server: HubServer) -> None:
    base = episode_server.base_url
    status, started = control(
        base, "POST", "/control/episodes", {"scenario": "itsm.report_incident", "seed": 0}
    )
    assert status == 201
    episode_id = started["episode_id"]

    async def main():
        async with sdk_session(started["mcp_url"]) as session:
            return [tool.name for tool in (await session.list_tools()).tools]

    names = asyncio.run(main())
    assert MESSAGE_TOOL in names and END_TOOL in names
    assert not {"verify", "reset", "create_episode"} & set(names)  # the control plane is not a tool
    status, body = control(base, "GET", f"/control/episodes/{episode_id}/verdict")
    assert status == 409 and "still running" in body["error"]
    status, record = control(base, "POST", f"/control/episodes/{episode_id}/verify")
    assert status == 200 and record["outcome"]["kind"] == "failure" and record["reward"] == 0.0
    listed = control(base, "GET", "/control/episodes")[1]["episodes"]
    assert [(e["episode_id"], e["status"], e["outcome"]["kind"]) for e in listed] == [
        (episode_id, "over", "failure")
    ]


def test_episode_tools_after_the_end_and_across_tokens(episode_server: HubServer) -> None:
    base = episode_server.base_url
    started = control(base, "POST", "/control/episodes", {"scenario": "itsm.status_check", "seed": 1})[1]

    async def main():
        async with sdk_session(started["mcp_url"], token=TOKEN_B) as bob:
            stolen = await bob.call_tool(MESSAGE_TOOL, {"message": "hi"})
        async with sdk_session(started["mcp_url"]) as alice:
            empty = await alice.call_tool(MESSAGE_TOOL, {"message": "   "})
            reply = await alice.call_tool(MESSAGE_TOOL, {"message": "Hello, how can I help?"})
            ended = await alice.call_tool(END_TOOL, {})
            after = await alice.call_tool("list_groups", {})
            again = await alice.call_tool(MESSAGE_TOOL, {"message": "still there?"})
        return stolen, empty, reply, ended, after, again

    stolen, empty, reply, ended, after, again = asyncio.run(main())
    assert stolen.is_error and "unknown env id" in stolen.content[0].text
    assert empty.is_error  # an empty message is a malformed action, as in Gym
    assert (
        not reply.is_error
        and reply.structured_content["reply"]
        and not reply.structured_content["conversation_over"]
    )
    assert ended.structured_content == {"ended": True} and "verdict" not in ended.content[0].text
    assert after.is_error and "is over" in after.content[0].text
    assert again.is_error
    record = control(base, "GET", f"/control/episodes/{started['episode_id']}/verdict")[1]
    assert record["outcome"]["kind"] == "failure"
    assert control(base, "GET", f"/control/episodes/{started['episode_id']}/verdict", token=TOKEN_B)[0] == 404
    assert control(base, "POST", "/control/envs", {})[0] == 400  # an episode server makes no worlds
    assert control(base, "POST", "/control/episodes", {"scenario": "nope"})[0] == 400


def test_cli_episode_server_and_verify_command(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario, seed = "itsm.report_incident", 5
    with serve_subprocess("--scenario", scenario, "--seed", str(seed), "--token", f"alice={TOKEN_A}") as base:
        # The default episode (serve's scenario and seed); reading it makes it.
        status, started = control(base, "GET", "/control/episodes/default")
        assert status == 200 and started["scenario"] == scenario and started["seed"] == seed
        # The oracle plays from a twin env: same scenario and seed give the same instance in any process.
        twin = EnterpriseEnv(scenario=scenario)
        observation, info = twin.reset(seed=seed, options={"scenario": scenario})
        assert observation["content"] == started["opening_message"]
        agent = OracleAgent()
        agent.reset(twin, info)

        async def main():
            async with Client(f"{base}/mcp?env=default", auth=TOKEN_A) as client:
                await play_oracle(fastmcp_caller(client), agent, started["opening_message"])

        asyncio.run(asyncio.wait_for(main(), TIMEOUT))
        twin.close()
        verify = [*MODULE, "verify", "--episode", "default", "--url", base, "--token", TOKEN_A]
        done = subprocess.run(verify, capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        assert "success" in done.stdout and scenario in done.stdout
        # A second episode that nobody plays fails; --json prints the record (in process from here).
        other = control(base, "POST", "/control/episodes", {"seed": 9})[1]
        monkeypatch.setenv("ENTERPRISE_ENVS_TOKENS", f"alice={TOKEN_A}")
        assert mcp_main(["verify", "--episode", other["episode_id"], "--url", base, "--json"]) == 1
        assert json.loads(capsys.readouterr().out)["outcome"]["kind"] == "failure"
        assert mcp_main(["verify", "--episode", "nope", "--url", base]) == 3
        assert "unknown env id" in capsys.readouterr().err
        monkeypatch.delenv("ENTERPRISE_ENVS_TOKENS")
        assert mcp_main(["verify", "--episode", other["episode_id"], "--url", base]) == 3  # no token: 401
        assert "401" in capsys.readouterr().err


def test_stdio_episode_writes_its_verdict(tmp_path: Path) -> None:
    scenario, seed = "itsm.add_info", 2
    out = tmp_path / "verdict.json"
    args = ["-m", "enterprise_envs.mcp", "serve", "--scenario", scenario, "--seed", str(seed)]
    args += ["--transport", "stdio", "--verdict-out", str(out)]
    twin = EnterpriseEnv(scenario=scenario)
    observation, info = twin.reset(seed=seed, options={"scenario": scenario})
    agent = OracleAgent()
    agent.reset(twin, info)

    async def main():
        async with Client(StdioTransport(command=sys.executable, args=args)) as client:
            instructions = client.instructions
            assert observation["content"] in instructions  # the opening message is in the instructions
            await play_oracle(fastmcp_caller(client), agent, observation["content"])

    asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    twin.close()
    record = json.loads(out.read_text())
    assert record["outcome"]["kind"] == "success" and record["scenario"] == scenario


def test_the_budget_ends_the_episode_as_in_gym(episode_server: HubServer) -> None:
    base = episode_server.base_url
    started = control(base, "POST", "/control/episodes", {"scenario": "itsm.status_check", "seed": 0})[1]
    limit = started["budget"]["max_tool_calls"]

    async def main():
        async with sdk_session(started["mcp_url"]) as session:
            results = [await session.call_tool("list_groups", {}) for _ in range(limit)]
            results.append(await session.call_tool("list_groups", {}))
            return results

    results = asyncio.run(main())
    assert not any((result.meta or {}).get("conversation_over") for result in results[: limit - 1])
    assert results[limit - 1].meta["conversation_over"] is True and not results[limit - 1].is_error
    assert results[limit].is_error and "is over" in results[limit].content[0].text
    record = control(base, "GET", f"/control/episodes/{started['episode_id']}/verdict")[1]
    assert record["truncated"] and record["tool_calls"] == limit and record["outcome"]["kind"] == "failure"
