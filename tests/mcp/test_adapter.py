"""The adapter, in process (FastMCP's in-memory client): same tools, our validation, vendor errors."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator

import pytest
from fastmcp import Client
from jsonschema import Draft202012Validator

from enterprise_envs import registry
from enterprise_envs.mcp import Hub, WorldDefaults, default_hub, server_for, set_default_hub
from enterprise_envs.mcp.hub import LOCAL, result_from_content
from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.mcp import describes_full_response, run_locked, tool_result
from enterprise_envs.mocks._core.tools import ToolKind

ITSM = registry.systems()["itsm"]


def plain(schema) -> dict:
    return json.loads(json.dumps(schema))


@pytest.fixture
def local_hub() -> Iterator[Hub]:
    """The process hub (stdio and in-memory clients route to it), with tiny worlds."""
    previous = default_hub()
    hub = set_default_hub(Hub(world_defaults=WorldDefaults(size="tiny")))
    yield hub
    hub.close()
    set_default_hub(previous)


@pytest.mark.parametrize("surface", ["typed", "rest"])
def test_tools_mirror_the_surface(local_hub: Hub, surface: str) -> None:
    async def main() -> list:
        async with Client(server_for("itsm", surface)) as client:
            return await client.list_tools()

    tools = asyncio.run(main())
    ours = ITSM.surface(surface)
    assert [tool.name for tool in tools] == [tool.name for tool in ours]
    for listed in tools:
        tool = ours[listed.name]
        assert listed.description == tool.description
        assert listed.input_schema == plain(tool.input_schema)
        assert listed.output_schema == plain(tool.output_schema)
        assert listed.annotations.read_only_hint is (tool.kind is ToolKind.READ)


def test_server_is_built_once_per_process() -> None:
    assert server_for("itsm") is server_for(ITSM, "typed")
    assert server_for("itsm", "rest") is not server_for("itsm", "typed")
    with pytest.raises(KeyError):
        server_for("itsm", "nope")


def test_invalid_arguments_come_back_as_the_vendor_400_not_a_protocol_error(local_hub: Hub) -> None:
    async def main() -> list:
        async with Client(server_for("itsm")) as client:
            return [
                await client.call_tool("search_users", {"query": 5}, raise_on_error=False),
                await client.call_tool("create_incident", {"short_description": "x"}, raise_on_error=False),
                await client.call_tool(
                    "get_incident", {"number": "INC0000001", "bogus": 1}, raise_on_error=False
                ),
            ]

    wrong_type, missing, unknown = asyncio.run(main())
    for result in (wrong_type, missing, unknown):
        assert result.is_error
        body = json.loads(result.content[0].text)
        assert body["status"] == 400 and body["body"]["status"] == "failure"
        assert result.meta["status"] == 400 and result.meta["error"] == "invalid_argument"
    assert "query" in json.loads(wrong_type.content[0].text)["body"]["error"]["message"]
    assert "caller" in json.loads(missing.content[0].text)["body"]["error"]["message"]
    # Nothing was written by the refused calls.
    world = local_hub.resolve(LOCAL, None, system="itsm", kind="world")
    assert world.backend.store.changed_rows() == []


def test_results_are_the_gym_text_with_schema_valid_structure(local_hub: Hub) -> None:
    """Text content is what the in-process env shows; structured content validates."""

    async def main() -> tuple:
        async with Client(server_for("itsm")) as client:
            typed = await client.call_tool("search_users", {"query": "example.com", "limit": 2})
        async with Client(server_for("itsm", "rest")) as client:
            rest = await client.call_tool("table_list", {"table": "incident", "sysparm_limit": 2})
            wait = await client.call_tool("wait", {"seconds": 3})
        return typed, rest, wait

    typed, rest, wait = asyncio.run(main())
    twin = local_hub.create_world("twin", "itsm")
    expected = twin.backend.call("search_users", {"query": "example.com", "limit": 2}).to_json()
    assert typed.content[0].text == expected
    validator = Draft202012Validator(ITSM.surface("typed")["search_users"].output_schema)
    assert validator.is_valid(typed.structured_content)
    # rest is a full-response surface: text and structure are {status, headers, body}
    assert json.loads(rest.content[0].text)["status"] == 200
    assert rest.structured_content["headers"]["X-Total-Count"]
    # wait's schema is its body: structure follows the schema, text follows the surface
    assert set(wait.structured_content) == {"waited_seconds", "now"}
    assert json.loads(wait.content[0].text)["body"]["waited_seconds"] == 3


def test_rest_403_data_policy_error_is_vendor_shaped(local_hub: Hub) -> None:
    async def main():
        async with Client(server_for("itsm", "rest")) as client:
            return await client.call_tool(
                "table_create", {"table": "incident", "fields": {"description": "x"}}, raise_on_error=False
            )

    result = asyncio.run(main())
    assert result.is_error and result.meta["status"] == 403
    body = json.loads(result.content[0].text)["body"]
    assert body["status"] == "failure" and body["error"]["message"] == "Operation Failed"
    assert "Data Policy Exception" in body["error"]["detail"] and "mandatory" in body["error"]["detail"]


def test_tool_result_conversion() -> None:
    ok = tool_result(CallResult("t", 201, {"a": 1}), full_response=False, structured_is_full=False)
    assert not ok.is_error and ok.structured_content == {"a": 1} and ok.meta == {"status": 201}
    full = tool_result(
        CallResult("t", 200, {"a": 1}, {"H": "v"}), full_response=True, structured_is_full=True
    )
    assert full.structured_content == {"status": 200, "headers": {"H": "v"}, "body": {"a": 1}}
    error = tool_result(
        CallResult("t", 429, {"e": 1}, {"Retry-After": "5"}, "rate_limited", True),
        full_response=False,
        structured_is_full=False,
    )
    assert error.is_error and error.structured_content is None
    assert error.meta == {"status": 429, "error": "rate_limited", "injected": True}
    assert json.loads(error.content[0].text)["headers"]["Retry-After"] == "5"
    assert describes_full_response(ITSM.surface("rest")["table_get"].output_schema)
    assert not describes_full_response(ITSM.surface("rest")["wait"].output_schema)


def test_result_from_content_round_trips() -> None:
    for result in (
        CallResult("t", 200, {"x": [1]}),
        CallResult("t", 404, {"error": {"message": "No Record found"}}, {}, "not_found"),
        CallResult("t", 429, {"error": {}}, {"Retry-After": "2"}, "rate_limited", True),
    ):
        back = result_from_content("t", result.to_json(), injected=result.injected)
        assert (back.status, back.body, dict(back.headers), back.error, back.injected) == (
            result.status,
            result.body,
            dict(result.headers),
            result.error,
            result.injected,
        )
    full = CallResult("t", 201, {"result": {}}, {"Location": "x"})
    assert result_from_content("t", full.to_json(full=True)).status == 201


def test_run_locked_goes_to_a_thread_when_the_lock_is_held() -> None:
    lock = threading.RLock()
    ran_in: list[str] = []

    def work() -> str:
        with lock:
            ran_in.append(threading.current_thread().name)
            return "done"

    async def main() -> tuple[str, str]:
        inline = await run_locked(lock, work)
        holder_started = threading.Event()

        def hold() -> None:
            with lock:
                holder_started.set()
                time.sleep(0.2)

        holder = threading.Thread(target=hold)
        holder.start()
        holder_started.wait(5)
        # The loop stays free while the call waits for the lock in a worker thread.
        ticks = 0

        async def tick() -> None:
            nonlocal ticks
            while holder.is_alive():
                ticks += 1
                await asyncio.sleep(0.01)

        waited, _ = await asyncio.gather(run_locked(lock, work), tick())
        holder.join(5)
        assert ticks > 3
        return inline, waited

    assert asyncio.run(main()) == ("done", "done")
    assert ran_in[0] == threading.main_thread().name and ran_in[1] != threading.main_thread().name
