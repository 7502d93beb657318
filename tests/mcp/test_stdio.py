"""World mode over stdio: ``python -m enterprise_envs.mcp serve itsm --transport stdio`` in a subprocess."""

from __future__ import annotations

import asyncio
import json
import queue
import subprocess
import sys
import threading
import time

from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from enterprise_envs import registry
from tests.mcp.helpers import TIMEOUT, payload

ARGS = ["-m", "enterprise_envs.mcp", "serve", "itsm", "--transport", "stdio", "--size", "tiny"]
TYPED = registry.systems()["itsm"].surface("typed")


def plain(schema) -> dict:
    return json.loads(json.dumps(schema))


def test_official_sdk_client_over_stdio() -> None:
    async def main():
        params = StdioServerParameters(command=sys.executable, args=ARGS)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            users = await session.call_tool("search_users", {"query": "example.com", "limit": 1})
            caller = users.structured_content["users"][0]["user_name"]
            made = await session.call_tool(
                "create_incident", {"caller": caller, "short_description": "stdio"}
            )
            got = await session.call_tool("get_incident", {"number": made.structured_content["number"]})
            bad = await session.call_tool("create_incident", {"caller": caller})
            return tools, made, got, bad

    tools, made, got, bad = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    assert [tool.name for tool in tools] == list(TYPED.tools)
    for tool in tools:
        assert tool.description == TYPED[tool.name].description
        assert tool.input_schema == plain(TYPED[tool.name].input_schema)
    assert not made.is_error and got.structured_content["short_description"] == "stdio"
    assert bad.is_error and payload(bad)["status"] == 400
    assert "short_description" in payload(bad)["body"]["error"]["message"]


def test_fastmcp_client_over_stdio() -> None:
    async def main():
        async with Client(
            StdioTransport(command=sys.executable, args=[*ARGS, "--surface", "rest"])
        ) as client:
            tools = await client.list_tools()
            listed = await client.call_tool("table_list", {"table": "sys_user_group", "sysparm_limit": 2})
            refused = await client.call_tool(
                "table_create",
                {"table": "incident", "fields": {"description": "no caller"}},
                raise_on_error=False,
            )
            return tools, listed, refused

    tools, listed, refused = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
    rest = registry.systems()["itsm"].surface("rest")
    assert [tool.name for tool in tools] == list(rest.tools)
    for tool in tools:
        assert tool.description == rest[tool.name].description
        assert tool.input_schema == plain(rest[tool.name].input_schema)
    assert (
        listed.structured_content["status"] == 200 and len(listed.structured_content["body"]["result"]) == 2
    )
    assert refused.is_error and payload(refused)["status"] == 403


def test_malformed_stdio_input_gets_errors_and_the_server_keeps_serving() -> None:
    lines = [
        "garbage",
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-06-18",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            }
        ),
        "[1, 2]",
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "list_groups", "arguments": "x"},
            }
        ),
        json.dumps(
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 4,
                "method": "tools/call",
                "params": {"name": "get_incident", "arguments": {"number": 5}},
            }
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "list_groups", "arguments": {}},
            }
        ),
    ]
    process = subprocess.Popen(
        [sys.executable, *ARGS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    answers: dict[int, dict] = {}
    try:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("\n".join(lines) + "\n")
        process.stdin.flush()
        found: queue.Queue[str] = queue.Queue()
        reader = threading.Thread(target=lambda: [found.put(line) for line in process.stdout], daemon=True)
        reader.start()
        deadline = time.monotonic() + TIMEOUT
        while 5 not in answers and time.monotonic() < deadline:
            try:
                message = json.loads(found.get(timeout=1))
            except queue.Empty:
                continue
            if "id" in message:
                answers[message["id"]] = message
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
    assert "result" in answers[1]
    assert "error" in answers[2]  # arguments that are not an object: a protocol error
    assert answers[3]["result"]["isError"]  # unknown tool
    assert json.loads(answers[4]["result"]["content"][0]["text"])["status"] == 400
    assert answers[5]["result"]["structuredContent"]["groups"]
