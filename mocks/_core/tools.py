"""Tool registry: a tool is a name, an agent-facing description, JSON Schemas and a handler.

Input is validated with jsonschema (Draft 2020-12) before the handler runs, so handlers can
trust the shape of their arguments. Output schemas are checked in the tests, not per call.
"""

from __future__ import annotations

import enum
import json
import marshal
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match

from enterprise_envs.mocks._core.errors import invalid

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext


class ToolKind(enum.Enum):
    """READ tools never change state (enforced: they run on a query-only connection)."""

    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class Response:
    """What a handler returns when it needs more than a 200 body.

    Attributes:
        body: JSON-serializable payload.
        status: HTTP-like status (201 for a create, 204 for a delete, ...).
        headers: Response headers (X-Total-Count, Link, ...).
    """

    body: Any
    status: int = 200
    headers: Mapping[str, str] = field(default_factory=dict)


Handler = Callable[["CallContext", dict[str, Any]], Any]


@dataclass(frozen=True)
class Tool:
    """One callable operation of a tool surface.

    Attributes:
        name: Unique within its surface; what the agent calls.
        description: Written for the agent: what it does, when to use it, what it returns.
        input_schema: JSON Schema (2020-12) of the arguments object.
        output_schema: JSON Schema of a successful result body (checked in tests).
        kind: READ or WRITE.
        handler: ``handler(ctx, arguments) -> body | Response``.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    kind: ToolKind
    handler: Handler = field(repr=False, compare=False)
    _validator: Draft202012Validator = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The validator reads its schema on every call: it gets a private deep copy, so nothing
        # handed out (tool lists, MCP schemas) can change what is accepted.
        schema = json.loads(json.dumps(self.input_schema))
        Draft202012Validator.check_schema(schema)
        object.__setattr__(self, "_validator", Draft202012Validator(schema))

    def validate(self, arguments: Any) -> None:
        """Raise a 400 :class:`ToolError` naming the offending field if the arguments are invalid."""
        if self._validator.is_valid(arguments):
            return
        error = best_match(self._validator.iter_errors(arguments))
        path = ".".join(str(part) for part in error.absolute_path)
        if error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else "?"
            raise invalid(f"Missing required argument: {missing}", error.message)
        if error.validator == "additionalProperties":
            raise invalid("Unknown argument", error.message)
        where = f"'{path}'" if path else "arguments"
        raise invalid(f"Invalid argument {where}", _short(error.message))


def _short(text: str, limit: int = 300) -> str:
    """Keep error details readable when the offending value is huge."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Surface:
    """A named set of tools over one system (``rest``, ``typed``, ...).

    Args:
        name: Surface name.
        tools: The tools; names must be unique.
        full_response: Agents see status, headers and body (an HTTP-faithful surface), not
            just the body.
    """

    def __init__(self, name: str, tools: Iterable[Tool], *, full_response: bool = False) -> None:
        self.name = name
        self.full_response = full_response
        self._openai: bytes | None = None
        self.tools: dict[str, Tool] = {}
        for tool in tools:
            if tool.name in self.tools:
                raise ValueError(f"surface {name!r}: duplicate tool {tool.name!r}")
            self.tools[tool.name] = tool

    def __getitem__(self, name: str) -> Tool:
        return self.tools[name]

    def __contains__(self, name: object) -> bool:
        return name in self.tools

    def __iter__(self):
        return iter(self.tools.values())

    def __len__(self) -> int:
        return len(self.tools)

    def openai_tools(self) -> list[dict[str, Any]]:
        """The tools in OpenAI function-calling format: a fresh deep copy, the caller's own.

        Built once per surface and kept serialized, so a copy costs one ``marshal.loads``
        (~0.1 ms for 25 tools) and shares nothing with the validators or other callers.
        """
        if self._openai is None:
            self._openai = marshal.dumps(json.loads(json.dumps(self._build_openai_tools())))
        return marshal.loads(self._openai)

    def _build_openai_tools(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": dict(tool.input_schema),
                },
            }
            for tool in self.tools.values()
        ]


def obj(properties: Mapping[str, Any], required: Iterable[str] = (), **extra: Any) -> dict[str, Any]:
    """A closed JSON Schema object (no unknown arguments): the common case for tool inputs."""
    schema: dict[str, Any] = {
        "type": "object",
        "properties": dict(properties),
        "additionalProperties": False,
    }
    required = list(required)
    if required:
        schema["required"] = required
    schema.update(extra)
    return schema


def string(description: str, max_length: int = 1000, **extra: Any) -> dict[str, Any]:
    """A bounded string property (bounds keep huge inputs out of the database)."""
    return {"type": "string", "description": description, "maxLength": max_length, **extra}


def full_response(body: Mapping[str, Any] | None) -> dict[str, Any]:
    """The output schema of a tool answering the full response (``CallResult.to_dict``).

    Args:
        body: The body's schema (None: the response has no body, a 204).
    """
    return {
        "type": "object",
        "required": ["status", "headers", "body"],
        "properties": {
            "status": {"type": "integer"},
            "headers": {"type": "object", "additionalProperties": {"type": "string"}},
            "body": dict(body) if body is not None else {"type": "null"},
        },
    }


#: The name of the tool that lets simulated time pass (every surface has it).
WAIT_TOOL = "wait"


def wait_tool() -> Tool:
    """The one tool every surface shares: let simulated time pass (after a 429's Retry-After)."""

    def handler(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        ctx.clock.advance(args["seconds"])
        return {"waited_seconds": args["seconds"], "now": ctx.clock.now_text()}

    return Tool(
        name=WAIT_TOOL,
        description=(
            "Wait before your next call. Use it when a call was rate limited (status 429): wait the "
            "number of seconds given in the Retry-After header, then retry. Returns the current time."
        ),
        input_schema=obj(
            {
                "seconds": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": 3600,
                    "description": "Seconds to wait.",
                }
            },
            required=["seconds"],
        ),
        output_schema=obj(
            {"waited_seconds": {"type": "integer"}, "now": {"type": "string"}},
            required=["waited_seconds", "now"],
        ),
        kind=ToolKind.READ,
        handler=handler,
    )
