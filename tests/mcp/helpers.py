"""MCP test helpers: clients, control-plane requests, servers in subprocesses (always stopped)."""

from __future__ import annotations

import json
import os
import queue
import re
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
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

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
def serve_subprocess(*args: str, env: dict[str, str] | None = None) -> Iterator[str]:
    """``python -m enterprise_envs.mcp serve ... --transport http --port 0`` in a subprocess.

    Yields the base URL (read from the banner). The process is terminated (then killed) at the end.
    """
    command = [*MODULE, "serve", *args, "--transport", "http", "--host", "127.0.0.1", "--port", "0"]
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
            found = re.search(r"MCP endpoint:\s+(http://[^/\s]+)/", line)
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
