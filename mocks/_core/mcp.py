"""The MCP adapter: a system's tool surface as a FastMCP server.

Each tool of a surface becomes an MCP tool with the same name, description and input and
output JSON Schemas, and a read-only hint from its kind. The adapter never validates arguments
itself and never lets FastMCP do it: a call goes to :meth:`Backend.call` (or whatever target the
router picks), which validates with the tool's schema and answers a bad call with the vendor's
error envelope. So an invalid call comes back as a tool result with ``isError`` set and the
vendor-shaped 400 in its text, never as a protocol error.

Routing is not this module's business: a server is built with a *resolver*, a function called on
every tool call (inside the request) that returns the live instance to act on, or raises
:class:`RouteError` with a message for the caller. ``enterprise_envs.mcp`` builds the resolver
that reads ``?env=<id>`` / ``X-Env-Id`` and the bearer token's principal.

Threads: handlers are synchronous and hold the instance's lock. When the lock is free the call
runs inline on the event loop (the common case: a call costs well under a millisecond);
when another thread holds it (a Gym env stepping the same world), the call moves to a worker
thread so the event loop never blocks on a lock.
"""

from __future__ import annotations

import inspect
import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.exceptions import ToolError as MCPToolError
from fastmcp.tools import Tool as MCPTool
from fastmcp.tools import ToolResult
from mcp.types import TextContent, ToolAnnotations
from pydantic import PrivateAttr

from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind
from enterprise_envs.mocks._core.world import tool_name, world_key

#: The keys of a full response (status, headers, body), as full-response surfaces return it.
FULL_RESPONSE_KEYS = frozenset({"status", "headers", "body"})


class RouteError(Exception):
    """A call that cannot be served: unknown env id, another token's env, an ended episode.

    The message is shown to the MCP client as the tool's error result; nothing was called.
    """


class CallTarget(Protocol):
    """A live instance the adapter can call (a Backend, or an episode wrapping a Gym env).

    Attributes:
        lock: The re-entrant lock ``call`` takes; the adapter tries it to decide whether the
            call can run inline on the event loop.

    A target may also have a boolean ``over`` (an episode that ended): results then carry
    ``conversation_over`` in their ``_meta``.
    """

    lock: Any

    def call(self, tool: str, arguments: Any, *, surface: str | None = None) -> CallResult:
        """Run one tool call and return its result (errors are results, never raised)."""
        ...


#: Returns the target of the current call (read from the request), or an awaitable of it when
#: finding it may be slow (it is then awaited off the event loop's critical path); raises
#: RouteError when the call cannot be served.
Resolver = Callable[[], Any]


async def run_locked(lock: Any, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Run a synchronous call that takes ``lock``: inline if the lock is free, else in a thread.

    Inline is the fast path (no thread hop). If another thread holds the lock the call waits
    for it in a worker thread, so the event loop keeps serving other requests.
    """
    if lock.acquire(blocking=False):
        try:
            return function(*args, **kwargs)
        finally:
            lock.release()
    return await anyio.to_thread.run_sync(lambda: function(*args, **kwargs))


def refusal(message: str) -> MCPToolError:
    """The error result for a call that was not served (logged at debug level only)."""
    try:
        return MCPToolError(message, log_level=logging.DEBUG)
    except TypeError:  # FastMCP releases without per-error log levels
        return MCPToolError(message)


def describes_full_response(schema: Mapping[str, Any]) -> bool:
    """True if an output schema describes the full response ({status, headers, body})."""
    properties = schema.get("properties")
    return isinstance(properties, Mapping) and set(properties) >= FULL_RESPONSE_KEYS


def tool_result(result: CallResult, *, full_response: bool, structured_is_full: bool) -> ToolResult:
    """The MCP result of a call: the same text the Gym env shows the agent, plus structure.

    - text: ``result.to_json(full=full_response)``, byte for byte what the in-process env returns
      (errors always carry status, headers and the vendor's error body);
    - structured content (successes only): what the tool's output schema describes, the body
      or, on a full-response surface, the full response;
    - ``isError`` for any status >= 400; ``_meta`` carries ``status`` (and ``error``, the error
      kind, and ``injected`` for an injected fault).
    """
    text = result.to_json(full=full_response)
    meta: dict[str, Any] = {"status": result.status}
    content = [TextContent(type="text", text=text)]
    if not result.ok:
        meta["error"] = result.error
        if result.injected:
            meta["injected"] = True
        return ToolResult(content=content, meta=meta, is_error=True)
    structured = result.to_dict() if structured_is_full else result.body
    if not isinstance(structured, dict):
        structured = None
    return ToolResult(content=content, structured_content=structured, meta=meta)


def annotations_for(tool: Tool) -> ToolAnnotations:
    """MCP hints from the tool's kind: READ tools are read-only; the world is closed."""
    if tool.kind is ToolKind.READ:
        return ToolAnnotations(readOnlyHint=True, openWorldHint=False)
    return ToolAnnotations(readOnlyHint=False, openWorldHint=False)


class RoutedTool(MCPTool):
    """An MCP tool whose every call is routed to the instance the resolver picks.

    Subclasses implement :meth:`invoke`. FastMCP does not validate the arguments of a
    ``Tool`` subclass: they reach ``invoke`` exactly as the client sent them.
    """

    _resolve: Resolver = PrivateAttr()

    def bind(self, resolve: Resolver) -> RoutedTool:
        """Set the resolver (returns self)."""
        self._resolve = resolve
        return self

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Resolve the target of this request and invoke the tool on it."""
        try:
            target = self._resolve()
            if inspect.isawaitable(target):
                target = await target
        except RouteError as error:
            raise refusal(str(error)) from None
        return await self.invoke(target, arguments)

    async def invoke(self, target: Any, arguments: dict[str, Any]) -> ToolResult:
        """Run the call on ``target``."""
        raise NotImplementedError


class SurfaceTool(RoutedTool):
    """One tool of a system's surface, called through ``target.call`` (validation included)."""

    _surface: str = PrivateAttr()
    _full_response: bool = PrivateAttr()
    _structured_is_full: bool = PrivateAttr()
    _call_name: str = PrivateAttr()

    @classmethod
    def from_tool(
        cls, tool: Tool, surface: Surface, resolve: Resolver, call_name: str | None = None
    ) -> SurfaceTool:
        """The MCP tool for one of our tools (same name, description and schemas).

        ``call_name`` is the name the target calls it by, when it differs (a tool of one system
        of a world of several, mounted under its system's namespace).
        """
        made = cls(
            name=tool.name,
            description=tool.description,
            parameters=_plain(tool.input_schema),
            output_schema=_plain(tool.output_schema),
            annotations=annotations_for(tool),
        )
        made._surface = surface.name
        made._full_response = surface.full_response
        made._structured_is_full = describes_full_response(tool.output_schema)
        made._call_name = call_name or tool.name
        return made.bind(resolve)  # type: ignore[return-value]

    async def invoke(self, target: Any, arguments: dict[str, Any]) -> ToolResult:
        """Call the tool on the target's world and convert the result."""
        try:
            result = await run_locked(
                target.lock, target.call, self._call_name, arguments, surface=self._surface
            )
        except RouteError as error:
            raise refusal(str(error)) from None
        converted = tool_result(
            result, full_response=self._full_response, structured_is_full=self._structured_is_full
        )
        if getattr(target, "over", False):  # an episode that this call ended (budget spent)
            converted.meta = {**(converted.meta or {}), "conversation_over": True}
        return converted


def surface_tools(
    system: System, surface: str, resolve: Resolver, world: Sequence[str] = ()
) -> list[SurfaceTool]:
    """The MCP tools of one surface of a system, routed by ``resolve``.

    In a world of several systems (``world``: their names), each is called by its world name.
    """
    tools = system.surface(surface)
    names = tuple(world) or (system.name,)
    return [
        SurfaceTool.from_tool(tool, tools, resolve, tool_name(system.name, tool.name, names))
        for tool in tools
    ]


def build_server(
    systems: System | Sequence[System],
    surface: str,
    resolve: Resolver,
    *,
    name: str | None = None,
    instructions: str | None = None,
    extra_tools: Iterable[MCPTool] = (),
) -> FastMCP:
    """A FastMCP server exposing the systems' surface (plus ``extra_tools``), routed by ``resolve``.

    One system's tools keep their names. Several systems' are each a server mounted under the
    system's namespace (``itsm_create_incident``): the names the Gym env lists for the same world.
    Schemas are served as they are (no ``$ref`` dereferencing), so clients see exactly the
    in-process tools' schemas. Building one takes a few milliseconds; callers cache them.
    """
    systems = [systems] if isinstance(systems, System) else list(systems)
    key = world_key([system.name for system in systems])
    server = new_server(name or f"enterprise-envs-{key}-{surface}", instructions)
    if len(systems) == 1:
        for tool in surface_tools(systems[0], surface, resolve):
            server.add_tool(tool)
    else:
        names = tuple(system.name for system in systems)
        for system in systems:
            child = new_server(f"enterprise-envs-{system.name}-{surface}", None)
            for tool in surface_tools(system, surface, resolve, names):
                child.add_tool(tool)
            server.mount(child, namespace=system.name)
    for tool in extra_tools:
        server.add_tool(tool)
    return server


def new_server(name: str, instructions: str | None = None, providers: Sequence[Any] = ()) -> FastMCP:
    """An empty FastMCP server with the adapter's options (schemas as they are, errors shown).

    ``providers`` are FastMCP providers of its tools (e.g. a server serving another's tools).
    """
    options = _supported(FastMCP.__init__, dereference_schemas=False, mask_error_details=False)
    if providers:
        options["providers"] = list(providers)
    return FastMCP(name, instructions=instructions, **options)


def _plain(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A deep, JSON-only copy of a schema (FastMCP must not share our frozen mappings)."""
    return json.loads(json.dumps(schema))


def _supported(function: Callable[..., Any], **options: Any) -> dict[str, Any]:
    """The options ``function`` accepts (keyword arguments differ across FastMCP releases)."""
    parameters = inspect.signature(function).parameters
    return {key: value for key, value in options.items() if key in parameters}


__all__ = [
    "CallTarget",
    "FULL_RESPONSE_KEYS",
    "Resolver",
    "RouteError",
    "RoutedTool",
    "SurfaceTool",
    "annotations_for",
    "build_server",
    "describes_full_response",
    "new_server",
    "refusal",
    "run_locked",
    "surface_tools",
    "tool_result",
]
