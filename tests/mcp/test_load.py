"""Load on loopback: concurrent MCP clients over HTTP, no errors, every write in the final state.

Half the clients share one world, half another, so the test also checks that concurrent writes
land in the right world. A side thread holds one world's lock now and then (a Gym harness
stepping it), so calls take both paths: inline on the event loop and via a worker thread.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from enterprise_envs.mcp import Hub, HubServer, WorldDefaults
from tests.mcp.helpers import TIMEOUT, TOKEN_A, sdk_session


def run_load(clients: int, calls: int) -> float:
    """Run the load; returns tool calls per second (wall clock, client and server in one process)."""
    with HubServer(
        "itsm", tokens={TOKEN_A: "alice"}, hub=Hub(world_defaults=WorldDefaults(size="tiny"))
    ) as server:
        worlds = [server.hub.create_world("alice", "itsm", env_id=name) for name in ("left", "right")]
        caller = worlds[0].backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0][
            "user_name"
        ]
        stop = threading.Event()

        def gym_side() -> None:  # holds the left world's lock for a moment, again and again
            backend = worlds[0].backend
            while not stop.is_set():
                with backend.lock:
                    backend.call("list_groups", {})
                    time.sleep(0.002)
                time.sleep(0.005)

        side = threading.Thread(target=gym_side, daemon=True)
        side.start()

        async def client(index: int) -> list[str]:
            world = worlds[index % 2].id
            written = []
            async with sdk_session(server.mcp_url(world)) as session:
                number = None
                for call in range(calls):
                    if call % 2 == 0 or number is None:
                        text = f"load {index} {call}"
                        result = await session.call_tool(
                            "create_incident", {"caller": caller, "short_description": text}
                        )
                        assert not result.is_error, result.content[0].text
                        number = result.structured_content["number"]
                        written.append(text)
                    else:
                        result = await session.call_tool("get_incident", {"number": number})
                        assert not result.is_error, result.content[0].text
                        assert result.structured_content["number"] == number
            return written

        async def main() -> list[list[str]]:
            return await asyncio.gather(*(client(index) for index in range(clients)))

        started = time.perf_counter()
        try:
            written = asyncio.run(asyncio.wait_for(main(), TIMEOUT * 5))
        finally:
            stop.set()
            side.join(5)
        elapsed = time.perf_counter() - started
        for side_index, world in enumerate(worlds):
            expected = sorted(
                text for index, texts in enumerate(written) if index % 2 == side_index for text in texts
            )
            rows = world.backend.store.select("incident", "short_description LIKE 'load %'")
            assert sorted(row["short_description"] for row in rows) == expected
            assert len({row["number"] for row in rows}) == len(rows)  # numbering stayed consistent
        assert not any(world.backend.internal_errors for world in worlds)
        return clients * calls / elapsed


def test_load_small() -> None:
    assert run_load(clients=6, calls=20) > 0


@pytest.mark.slow
def test_load_20_clients_x_100_calls() -> None:
    rate = run_load(clients=20, calls=100)
    print(f"\n{rate:.0f} tool calls per second (MCP SDK clients and server in one process)")
