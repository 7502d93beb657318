"""World mode over streamable HTTP on 127.0.0.1: both clients, routing, auth, isolation, bad input."""

from __future__ import annotations

import asyncio
import json

import httpx2
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from enterprise_envs import registry
from enterprise_envs.mcp import HubServer
from tests.mcp.helpers import TOKEN_A, TOKEN_B, control, payload, sdk_session

ITSM = registry.systems()["itsm"]
CALLER = {"caller": "abel.tuter", "short_description": "x"}


def plain(schema) -> dict:
    return json.loads(json.dumps(schema))


def new_world(server: HubServer, token: str = TOKEN_A) -> str:
    status, body = control(server.base_url, "POST", "/control/envs", {"seed": 0, "size": "tiny"}, token=token)
    assert status == 201, body
    assert body["mcp_url"] == server.mcp_url(body["env_id"])
    return body["env_id"]


def a_caller(server: HubServer) -> str:
    world = server.hub.create_world("probe", "itsm", size="tiny")
    row = world.backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0]
    return row["user_name"]


def test_official_sdk_client_lists_and_calls(world_server: HubServer) -> None:
    env_id = new_world(world_server)

    async def main():
        async with sdk_session(world_server.mcp_url(env_id)) as session:
            listed = await session.list_tools()
            found = await session.call_tool("search_users", {"query": "example.com", "limit": 1})
            bad = await session.call_tool("search_users", {"query": 5})
            return listed.tools, found, bad

    tools, found, bad = asyncio.run(main())
    ours = ITSM.surface("typed")
    assert [tool.name for tool in tools] == [tool.name for tool in ours]
    for tool in tools:
        assert tool.description == ours[tool.name].description
        assert tool.input_schema == plain(ours[tool.name].input_schema)
        assert tool.output_schema == plain(ours[tool.name].output_schema)
    assert not found.is_error and found.structured_content["users"]
    assert bad.is_error and payload(bad)["status"] == 400
    assert payload(bad)["body"]["error"]["message"] == "Invalid argument 'query'"


def test_fastmcp_client_lists_and_calls(world_server: HubServer) -> None:
    env_id = new_world(world_server)

    async def main():
        async with Client(world_server.mcp_url(env_id), auth=TOKEN_A) as client:
            tools = await client.list_tools()
            found = await client.call_tool("list_groups", {})
            with pytest.raises(ToolError, match="Missing required argument: caller"):
                await client.call_tool("create_incident", {"short_description": "x"})
            return tools, found

    tools, found = asyncio.run(main())
    ours = ITSM.surface("typed")
    assert [tool.name for tool in tools] == list(ours.tools)
    for tool in tools:
        assert tool.description == ours[tool.name].description
        assert tool.input_schema == plain(ours[tool.name].input_schema)
        assert tool.output_schema == plain(ours[tool.name].output_schema)
    assert found.data is not None and found.structured_content["groups"]


def test_rest_surface_403_over_http(rest_server: HubServer) -> None:
    async def main():
        async with sdk_session(rest_server.mcp_base) as session:
            return await session.call_tool(
                "table_create", {"table": "incident", "fields": {"short_description": ""}}
            )

    result = asyncio.run(main())
    assert result.is_error and payload(result)["status"] == 403
    assert "Data Policy Exception" in payload(result)["body"]["error"]["detail"]


def test_no_token_or_a_wrong_token_is_401(world_server: HubServer) -> None:
    async def main():
        async with httpx2.AsyncClient(timeout=10) as http:
            body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
            headers = {"Accept": "application/json, text/event-stream"}
            missing = await http.post(world_server.mcp_base, json=body, headers=headers)
            wrong = await http.post(
                world_server.mcp_base, json=body, headers={**headers, "Authorization": "Bearer nope"}
            )
            return missing.status_code, wrong.status_code

    assert asyncio.run(main()) == (401, 401)
    assert control(world_server.base_url, "GET", "/control/envs", token=None)[0] == 401
    assert control(world_server.base_url, "GET", "/control/envs", token="nope")[0] == 401
    assert control(world_server.base_url, "GET", "/control/health", token=None)[0] == 200


def test_two_envs_never_see_each_others_writes(world_server: HubServer) -> None:
    first, second = new_world(world_server), new_world(world_server)
    caller = a_caller(world_server)

    async def main():
        async with (
            sdk_session(world_server.mcp_url(first)) as one,
            sdk_session(world_server.mcp_url(second)) as two,
        ):
            made = await one.call_tool(
                "create_incident", {"caller": caller, "short_description": "only in one"}
            )
            number = made.structured_content["number"]
            in_one = await one.call_tool("get_incident", {"number": number})
            in_two = await two.call_tool("get_incident", {"number": number})
            search_two = await two.call_tool("search_incidents", {"text": "only in one"})
            return in_one, in_two, search_two

    in_one, in_two, search_two = asyncio.run(main())
    assert not in_one.is_error
    # The other world numbered its own records independently: same number, different record or none.
    assert in_two.is_error or in_two.structured_content["short_description"] != "only in one"
    assert search_two.structured_content["total"] == 0
    world_one = world_server.hub.get("alice", first).backend
    world_two = world_server.hub.get("alice", second).backend
    assert len(world_one.store.changed_rows()) > 0 and world_two.store.changed_rows() == []


def test_a_token_cannot_reach_another_tokens_env(world_server: HubServer) -> None:
    alices = new_world(world_server, TOKEN_A)
    caller = a_caller(world_server)

    async def main():
        async with sdk_session(world_server.mcp_url(alices), token=TOKEN_B) as session:
            write = await session.call_tool(
                "create_incident", {"caller": caller, "short_description": "bob was here"}
            )
            read = await session.call_tool("list_groups", {})
            return write, read

    write, read = asyncio.run(main())
    for result in (write, read):
        assert result.is_error
        assert f"unknown env id '{alices}'" in result.content[0].text
    assert world_server.hub.get("alice", alices).backend.store.changed_rows() == []
    # The control plane answers the same way.
    for method, path in (("GET", f"/control/envs/{alices}"), ("DELETE", f"/control/envs/{alices}")):
        status, body = control(world_server.base_url, method, path, token=TOKEN_B)
        assert status == 404 and "unknown env id" in body["error"]
    assert [
        env["env_id"]
        for env in control(world_server.base_url, "GET", "/control/envs", token=TOKEN_B)[1]["envs"]
    ] == []
    assert world_server.hub.find("alice", alices) is not None


def test_routing_by_header_and_default_env(world_server: HubServer) -> None:
    env_id = new_world(world_server)
    caller = a_caller(world_server)

    async def main():
        async with sdk_session(world_server.mcp_base, headers={"X-Env-Id": env_id}) as session:
            await session.call_tool("create_incident", {"caller": caller, "short_description": "by header"})
        async with sdk_session(world_server.mcp_base) as session:  # no id: alice's default world
            await session.call_tool("create_incident", {"caller": caller, "short_description": "by default"})
        async with sdk_session(world_server.mcp_url("nope")) as session:
            return await session.call_tool("list_groups", {})

    unknown = asyncio.run(main())
    assert unknown.is_error and "unknown env id 'nope'" in unknown.content[0].text
    by_header = world_server.hub.get("alice", env_id).backend
    default = world_server.hub.get("alice", "default").backend
    assert by_header.store.select("incident", "short_description = 'by header'")
    assert not by_header.store.select("incident", "short_description = 'by default'")
    assert default.store.select("incident", "short_description = 'by default'")


def test_control_plane_world_lifecycle(world_server: HubServer) -> None:
    base = world_server.base_url
    env_id = new_world(world_server)
    caller = a_caller(world_server)
    status, listed = control(base, "GET", "/control/envs")
    assert status == 200 and [env["env_id"] for env in listed["envs"]] == [env_id]
    world = world_server.hub.get("alice", env_id)
    world.backend.call("create_incident", {"caller": caller, "short_description": "to be reset"})
    assert world.backend.store.changed_rows()
    status, body = control(base, "POST", f"/control/envs/{env_id}/reset", {"seed": 0})
    assert status == 200 and body["seed"] == 0 and world.backend.store.changed_rows() == []
    for bad in ({"seed": -1}, {"size": "huge"}, {"seed": "x"}, {"color": 1}, [1]):
        status, body = control(base, "POST", "/control/envs", bad)
        assert status == 400 and body["error"], bad
    assert control(base, "POST", "/control/episodes", {"scenario": "itsm.report_incident"})[0] == 400
    status, body = control(base, "DELETE", f"/control/envs/{env_id}")
    assert status == 200 and world_server.hub.find("alice", env_id) is None
    assert control(base, "GET", f"/control/envs/{env_id}")[0] == 404


def test_malformed_requests_get_errors_and_the_server_keeps_serving(world_server: HubServer) -> None:
    env_id = new_world(world_server)
    url = world_server.mcp_url(env_id)
    headers = {
        "Authorization": f"Bearer {TOKEN_A}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": "2025-06-18",
    }

    def call(name, arguments) -> dict:
        return {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }

    garbage = [
        b"{not json",
        b"",
        b"[]",
        b'"a string"',
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": "x"}).encode(),
        json.dumps(call("search_users", ["not", "an", "object"])).encode(),
        json.dumps({"id": 1, "method": "tools/list"}).encode(),
        b"\xff\xfe\x00garbage",
        json.dumps(call("x" * 10_000, {})).encode(),
    ]

    async def main():
        statuses = []
        async with httpx2.AsyncClient(timeout=10, headers=headers) as http:
            for body in garbage:
                response = await http.post(url, content=body)
                statuses.append(response.status_code)
                assert response.status_code < 500, (body, response.status_code, response.text)
                if response.status_code == 200:
                    assert "error" in response.json() or response.json()["result"].get("isError"), body
            unknown = (await http.post(url, json=call("no_such_tool", {}))).json()["result"]
            wrong = (await http.post(url, json=call("get_incident", {"number": 12}))).json()["result"]
            huge = (await http.post(url, json=call("search_users", {"query": "x" * 100_000}))).json()[
                "result"
            ]
            fine = (await http.post(url, json=call("list_groups", {}))).json()["result"]
        return statuses, unknown, wrong, huge, fine

    statuses, unknown, wrong, huge, fine = asyncio.run(main())
    assert all(400 <= status < 500 or status == 200 for status in statuses)
    assert unknown["isError"] and "no_such_tool" in unknown["content"][0]["text"]
    assert wrong["isError"] and json.loads(wrong["content"][0]["text"])["status"] == 400
    assert huge["isError"] and json.loads(huge["content"][0]["text"])["status"] == 400
    assert not fine.get("isError") and fine["structuredContent"]["groups"]

    async def sdk_still_works():
        async with sdk_session(url) as session:
            return await session.call_tool("list_groups", {})

    assert not asyncio.run(sdk_still_works()).is_error


def test_server_shutdown_is_clean() -> None:
    import threading

    before = {thread.ident for thread in threading.enumerate()}
    server = HubServer("itsm", tokens={TOKEN_A: "alice"})
    server.start()
    port = server.port

    async def main():
        async with sdk_session(server.mcp_base) as session:
            await session.call_tool("list_groups", {})

    asyncio.run(main())
    server.stop()
    assert not server.running
    left = [thread for thread in threading.enumerate() if thread.ident not in before and thread.is_alive()]
    assert not [thread for thread in left if thread.name.startswith("mcp-http")], left
    assert not [thread for thread in left if not thread.daemon], left
    assert server.hub.closed
    # The port is free again.
    from enterprise_envs.mcp.app import bind_socket

    bind_socket("127.0.0.1", port).close()
