"""Load on loopback: concurrent clients of a vendor's API over HTTP, no errors, every write kept.

Each client is a thread with its own connection (RestClient, one keep-alive HTTP/1.1 connection)
posting messages as Slack's ``chat.postMessage`` and reading them back. Half the clients use one
token, half another, so the test also checks that concurrent writes land in their token's world
and nowhere else; a side thread holds one world's lock now and then (a Gym harness stepping it),
so calls take both paths: inline on the event loop and via a worker thread.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.rest import RestServer
from enterprise_envs.rest.client import RestClient
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKEN_B, TOKENS
from tests.rest.helpers import world_of

TEXT_PREFIX = "load "


def run_load(clients: int, calls: int) -> float:
    """Run the load; returns API calls per second (wall clock, clients and server in one process)."""
    with RestServer("chat", tokens=TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))) as server:
        worlds = {token: world_of(server, owner) for token, owner in TOKENS.items()}
        channel = worlds[TOKEN_A].store.find_one("channel", "name", "it-status")
        assert channel is not None
        # Same seed, same workspace: the channel's id is the same in both worlds.
        assert worlds[TOKEN_B].store.find_one("channel", "name", "it-status")["id"] == channel["id"]
        stop = threading.Event()

        def gym_side() -> None:  # holds alice's world's lock for a moment, again and again
            backend = worlds[TOKEN_A]
            while not stop.is_set():
                with backend.lock:
                    backend.call("auth_test", {})
                    time.sleep(0.002)
                time.sleep(0.005)

        def client(index: int) -> list[str]:
            token = (TOKEN_A, TOKEN_B)[index % 2]
            written: list[str] = []
            with RestClient(server.base_url, server.apis, token, timeout=TIMEOUT) as api:
                for call in range(calls):
                    if call % 2 == 0:
                        text = f"{TEXT_PREFIX}{index} {call}"
                        result = api.call("chat_postMessage", {"channel": channel["id"], "text": text})
                        assert result.status == 200 and result.body["ok"], result.body
                        written.append(text)
                    else:
                        result = api.call("conversations_history", {"channel": channel["id"], "limit": 5})
                        assert result.status == 200 and result.body["ok"], result.body
            return written

        side = threading.Thread(target=gym_side, daemon=True)
        side.start()
        started = time.perf_counter()
        try:
            with ThreadPoolExecutor(max_workers=clients) as pool:
                written = list(pool.map(client, range(clients), timeout=TIMEOUT * 10))
        finally:
            stop.set()
            side.join(5)
        elapsed = time.perf_counter() - started
        for side_index, token in enumerate((TOKEN_A, TOKEN_B)):
            expected = sorted(
                text for index, texts in enumerate(written) if index % 2 == side_index for text in texts
            )
            rows = worlds[token].store.select("message", "text LIKE ?", (f"{TEXT_PREFIX}%",))
            assert sorted(row["text"] for row in rows) == expected  # every write, in its own world only
            assert len({row["ts"] for row in rows}) == len(rows)  # no two messages share a ts
            assert not worlds[token].internal_errors
        return clients * calls / elapsed


def test_load_small() -> None:
    assert run_load(clients=8, calls=20) > 0


@pytest.mark.slow
def test_load_50_clients_x_200_calls() -> None:
    rate = run_load(clients=50, calls=200)
    print(f"\n{rate:.0f} API calls per second (50 RestClient threads and the server in one process)")
