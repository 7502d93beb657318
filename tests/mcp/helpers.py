"""MCP test helpers: clients, control-plane requests, servers in subprocesses (always stopped)."""

from __future__ import annotations

import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx2
from fastmcp import Client
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mcp import END_TOOL, MESSAGE_TOOL

TOKEN_A, TOKEN_B = "secret-alice", "secret-bob"
TOKENS = {TOKEN_A: "alice", TOKEN_B: "bob"}
MODULE = [sys.executable, "-m", "enterprise_envs.mcp"]
#: Bound every wait: a hung server fails the test instead of hanging CI.
TIMEOUT = 60.0


@asynccontextmanager
async def sdk_session(
    url: str, token: str | None = TOKEN_A, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    """An initialized session of the official MCP SDK's client over streamable HTTP."""
    all_headers = {"Authorization": f"Bearer {token}"} if token else {}
    all_headers.update(headers or {})
    async with (
        httpx2.AsyncClient(headers=all_headers, timeout=httpx2.Timeout(30.0)) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def control(
    base_url: str, method: str, path: str, body: Any = None, token: str | None = TOKEN_A
) -> tuple[int, Any]:
    """A control-plane request: (status, decoded JSON)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"{base_url}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw)
        except json.JSONDecodeError:
            return error.code, raw.decode("utf-8", "replace")


def payload(result: Any) -> Any:
    """The JSON text of a tool result, decoded."""
    return json.loads(result.content[0].text)


@contextmanager
def serve_subprocess(
    *args: str, env: dict[str, str] | None = None, transport: str = "http", banner: str = "MCP endpoint:"
) -> Iterator[str]:
    """``python -m enterprise_envs.mcp serve ... --transport http --port 0`` in a subprocess.

    Yields the base URL, read from the banner line starting with ``banner`` (``--transport
    rest`` prints ``API:``). The process is terminated (then killed) at the end.
    """
    command = [*MODULE, "serve", *args, "--transport", transport, "--host", "127.0.0.1", "--port", "0"]
    process = subprocess.Popen(
        command,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    lines: queue.Queue[str] = queue.Queue()
    log: list[str] = []

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            lines.put(line)
        lines.put("")

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + TIMEOUT
        base_url = None
        while base_url is None:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                line = ""
            log.append(line)
            found = re.search(re.escape(banner) + r"\s+(http://[^/\s]+)/", line)
            if found:
                base_url = found.group(1)
            elif line == "" or time.monotonic() > deadline:
                raise RuntimeError("server did not start:\n" + "".join(log))
        wait_healthy(base_url)
        yield base_url
    finally:
        process.terminate()  # SIGTERM: a graceful shutdown
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
        reader.join(timeout=5)
    assert process.returncode == 0, f"unclean shutdown (exit {process.returncode}):\n{''.join(log)}"


def wait_healthy(base_url: str) -> None:
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            status, _ = control(base_url, "GET", "/control/health", token=None)
            if status == 200:
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{base_url} never became healthy")
        time.sleep(0.05)


def incident_numbers_with(backend: Any, prefix: str) -> list[str]:
    rows = backend.store.select("incident", "short_description LIKE ?", (prefix + "%",))
    return sorted(row["short_description"] for row in rows)


# -- playing episodes over MCP ---------------------------------------------------------------

MAX_ACTIONS = 200


async def play_oracle(call: Any, agent: OracleAgent, opening: str) -> dict[str, int]:
    """Drive ``agent`` through MCP. ``call(name, arguments)`` returns (text, structured, is_error, meta).

    Stops where a Gym loop would: when the user ends the conversation, or after ``end``.
    """
    observation = {"role": "user", "name": "", "content": opening}
    counts = {"tools": 0, "messages": 0}
    for _ in range(MAX_ACTIONS):
        action = agent.act(observation)
        if "tool" in action:
            text, _, _, meta = await call(action["tool"], action["arguments"])
            counts["tools"] += 1
            if (meta or {}).get("conversation_over"):
                break
            observation = {"role": "tool", "name": action["tool"], "content": text}
        elif "message" in action:
            text, structured, is_error, _ = await call(MESSAGE_TOOL, {"message": action["message"]})
            assert not is_error, text
            counts["messages"] += 1
            if structured["conversation_over"]:
                break
            observation = {"role": "user", "name": "", "content": text}
        else:
            await call(END_TOOL, {})
            break
    return counts


def sdk_caller(session: Any):
    """``play_oracle``'s ``call`` over an MCP SDK session."""

    async def call(name: str, arguments: dict) -> tuple:
        result = await session.call_tool(name, arguments)
        return result.content[0].text, result.structured_content, result.is_error, result.meta

    return call


def fastmcp_caller(client: Client):
    """``play_oracle``'s ``call`` over a FastMCP client."""

    async def call(name: str, arguments: dict) -> tuple:
        result = await client.call_tool(name, arguments, raise_on_error=False)
        return result.content[0].text, result.structured_content, result.is_error, result.meta

    return call


def gym_final(scenario: str, seed: int, surface: str = "typed") -> dict[str, Any]:
    """The final info of the oracle's Gym episode on ``scenario`` and ``seed`` (in its suite's env)."""
    env = EnterpriseEnv(suite=registry.suite_serving(scenario).env_id, scenario=scenario, surface=surface)
    try:
        return play_episode(env, OracleAgent(), seed, options={"scenario": scenario})
    finally:
        env.close()


def raw_post(base_url: str, path: str, headers: dict[str, str], body: bytes) -> int:
    """POST with a raw socket (so the test controls framing); the response status."""
    host, port = base_url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=TIMEOUT) as conn:
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        conn.sendall(f"POST {path} HTTP/1.1\r\nHost: {host}\r\n{head}\r\n".encode() + body)
        reply = b""
        while b"\r\n" not in reply:
            chunk = conn.recv(4096)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1])
