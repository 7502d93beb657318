"""The HTTP server under a hostile client: quotas per token, bounded bodies and messages, others served.

Real servers on 127.0.0.1 and the official MCP SDK client, as in the other MCP tests.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from enterprise_envs.actions import MAX_MESSAGE_CHARS
from enterprise_envs.hostile import maximal, maximal_messages
from enterprise_envs.mcp import Hub, HubServer, WorldDefaults
from enterprise_envs.mcp.app import MAX_BODY_BYTES
from enterprise_envs.mcp.hub import Quotas
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKEN_B, TOKENS, control, raw_post, sdk_session

#: A call that waits this long behind another client's work has stalled (a call costs ~2 ms).
STALL_SECONDS = 1.0


def _server(**quotas) -> HubServer:
    hub = Hub(world_defaults=WorldDefaults(size="tiny"), quotas=Quotas(**quotas))
    return HubServer("itsm", "typed", tokens=TOKENS, hub=hub)


def test_live_env_quota_is_per_token_and_freed_by_deleting() -> None:
    with _server(max_envs=3) as server:
        made = [control(server.base_url, "POST", "/control/envs", {"size": "tiny"}) for _ in range(3)]
        assert [status for status, _ in made] == [201, 201, 201]
        status, body = control(server.base_url, "POST", "/control/envs", {"size": "tiny"})
        assert status == 429 and "quota" in body["error"] and "delete" in body["error"]
        # Another token is not charged for alice's envs.
        assert control(server.base_url, "POST", "/control/envs", {"size": "tiny"}, token=TOKEN_B)[0] == 201
        assert control(server.base_url, "DELETE", f"/control/envs/{made[0][1]['env_id']}")[0] == 200
        assert control(server.base_url, "POST", "/control/envs", {"size": "tiny"})[0] == 201
    server.hub.close()


def test_memory_quota_counts_the_databases_held() -> None:
    with _server(max_bytes=1_000_000) as server:  # a tiny world is ~0.4 MB
        statuses = [control(server.base_url, "POST", "/control/envs", {"size": "tiny"})[0] for _ in range(4)]
        assert statuses[0] == 201 and 429 in statuses
        held = server.hub.usage("alice")
        assert held[1] <= 1_000_000 and held[0] == statuses.count(201)
        status, body = control(server.base_url, "POST", "/control/envs", {"size": "tiny"})
        assert status == 429 and "MiB" in body["error"]
    server.hub.close()


def test_sizes_a_server_does_not_make_are_forbidden() -> None:
    with _server(sizes=frozenset({"tiny"})) as server:
        status, body = control(server.base_url, "POST", "/control/envs", {"size": "large"})
        assert status == 403 and "large" in body["error"]
        assert server.hub.usage("alice") == (0, 0)
    server.hub.close()


def test_oversized_request_bodies_get_413_and_the_server_keeps_serving(world_server: HubServer) -> None:
    auth = {"Authorization": f"Bearer {TOKEN_A}", "Content-Type": "application/json"}
    for path in ("/mcp", "/control/envs"):
        # Declared too large: refused before a byte of the body is read.
        declared = {**auth, "Content-Length": str(MAX_BODY_BYTES + 1)}
        assert raw_post(world_server.base_url, path, declared, b"") == 413
        # Streamed without a length: refused once the limit is passed.
        size = MAX_BODY_BYTES + 4096
        chunked = f"{size:x}\r\n".encode() + b" " * size + b"\r\n0\r\n\r\n"
        assert raw_post(world_server.base_url, path, {**auth, "Transfer-Encoding": "chunked"}, chunked) == 413
    assert control(world_server.base_url, "GET", "/control/health")[0] == 200
    assert control(world_server.base_url, "POST", "/control/envs", {"size": "tiny"})[0] == 201


def test_send_message_to_user_enforces_the_length_it_advertises(episode_server: HubServer) -> None:
    status, episode = control(
        episode_server.base_url, "POST", "/control/episodes", {"scenario": "itsm.report_incident", "seed": 0}
    )
    assert status == 201

    async def run() -> None:
        async with sdk_session(episode_server.mcp_url(episode["env_id"])) as session:
            tools = {tool.name: tool for tool in (await session.list_tools()).tools}
            advertised = tools["send_message_to_user"].input_schema["properties"]["message"]["maxLength"]
            assert advertised == MAX_MESSAGE_CHARS
            refused = await session.call_tool("send_message_to_user", {"message": "x" * (advertised + 1)})
            assert refused.is_error and str(MAX_MESSAGE_CHARS) in refused.content[0].text
            accepted = await session.call_tool("send_message_to_user", {"message": "Hello, how can I help?"})
            assert not accepted.is_error and not accepted.structured_content["conversation_over"]

    asyncio.run(asyncio.wait_for(run(), TIMEOUT))


@pytest.mark.parametrize("attack", ["maximal", "oversized"])
def test_one_tokens_hostile_messages_never_stall_another_tokens_calls(attack: str) -> None:
    with HubServer("itsm", "typed", episodes=True, tokens=TOKENS) as server:
        _, episode = control(
            server.base_url, "POST", "/control/episodes", {"scenario": "itsm.status_check", "seed": 0}
        )
        # Bob plays his own episodes on the same server, a few tool calls each (within budget).
        bobs = [server.hub.create_episode("bob", "itsm.report_incident", seed=seed) for seed in range(4)]
        messages = [text for _, text in maximal_messages()]
        if attack == "oversized":
            messages = [maximal(text, 4 * MAX_MESSAGE_CHARS) for text in messages]
        stop = threading.Event()
        sent = []

        async def attacker() -> None:
            async with sdk_session(server.mcp_url(episode["env_id"]), token=TOKEN_A) as session:
                for index, text in enumerate(messages):
                    if stop.is_set():
                        break
                    await session.call_tool(
                        "send_message_to_user", {"message": f"{index} {text}"[: len(text)]}
                    )
                    sent.append(index)

        def attack_in_thread() -> None:
            asyncio.run(asyncio.wait_for(attacker(), 3 * TIMEOUT))

        thread = threading.Thread(target=attack_in_thread, daemon=True)
        thread.start()
        waits = []

        async def victim() -> None:
            for bob in bobs:
                async with sdk_session(server.mcp_url(bob.id), token=TOKEN_B) as session:
                    for _ in range(8):
                        started = time.perf_counter()
                        result = await session.call_tool("list_groups", {})
                        waits.append(time.perf_counter() - started)
                        assert not result.is_error, result.content[0].text

        asyncio.run(asyncio.wait_for(victim(), TIMEOUT))
        stop.set()
        thread.join(TIMEOUT)
        assert sent, "the attacker got no reply"
        assert max(waits) < STALL_SECONDS, max(waits)
    server.hub.close()
