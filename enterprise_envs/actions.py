"""Agent actions: parse whatever the agent sent into a tool call, a message or the end.

Accepted (as a JSON string or an already-decoded dict):

- ``{"tool": "name", "arguments": {...}}`` (arguments may also be a JSON string);
- an OpenAI tool call: ``{"type": "function", "function": {"name": ..., "arguments": "..."}}``,
  with or without ``id``; or an assistant message carrying exactly one ``tool_calls`` entry;
- ``{"message": "text"}`` (or an assistant message ``{"role": "assistant", "content": "text"}``);
- ``{"end": true}``.

Anything else is an :class:`ActionError` with a message for the agent; parsing never raises
anything else. The action first passes the input boundary
(:func:`enterprise_envs.mocks._core.inputs.plain_json`): JSON text is parsed with bounded work,
and whatever the agent sent becomes a fresh plain-JSON value (string keys, JSON scalars, bounded
depth and size) or is refused. Tool names and messages are bounded here; argument values are
checked against the tool's own schema by the backend.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.mocks._core.inputs import InputError, loads, plain_json, text_problem

FORMS = (
    'Send one JSON action: {"tool": "<name>", "arguments": {...}} to call a tool, '
    '{"message": "<text>"} to talk to the user, or {"end": true} to finish.'
)


#: The longest message an agent may send the user (the MCP ``send_message_to_user`` tool
#: advertises the same bound). Longer messages are refused before any work.
MAX_MESSAGE_CHARS = 8000
#: Tool names: what OpenAI function names and MCP tool names allow (no tool has another form).
TOOL_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,128}")


class ActionError(ValueError):
    """An action the environment cannot understand (shown to the agent as an error)."""


@dataclass(frozen=True)
class ToolAction:
    """Call a tool."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class MessageAction:
    """Say something to the user."""

    text: str


@dataclass(frozen=True)
class EndAction:
    """End the episode."""


Action = ToolAction | MessageAction | EndAction


def parse_action(raw: Any) -> Action:
    """Parse an agent action.

    Raises:
        ActionError: Unparseable or of no known form.
    """
    try:
        data = loads(raw) if isinstance(raw, str | bytes | bytearray) else raw
        data = plain_json(data, check_text=False)
    except InputError as error:
        raise ActionError(f"The action was refused: {error}. {FORMS}") from None
    if not isinstance(data, dict):
        raise ActionError(f"The action must be a JSON object. {FORMS}")
    if isinstance(data.get("tool_calls"), list):
        calls = data["tool_calls"]
        if len(calls) != 1:
            raise ActionError(f"Send exactly one tool call per step (got {len(calls)}). {FORMS}")
        data = calls[0] if isinstance(calls[0], dict) else {}
    if isinstance(data.get("function"), dict):
        function = data["function"]
        return ToolAction(_name(function.get("name")), _arguments(function.get("arguments", {})))
    if "tool" in data:
        return ToolAction(_name(data["tool"]), _arguments(data.get("arguments", {})))
    if "message" in data:
        return MessageAction(_text(data["message"]))
    if data.get("role") == "assistant" and "content" in data:
        return MessageAction(_text(data["content"]))
    if data.get("end") is True:
        return EndAction()
    raise ActionError(f"Unknown action. {FORMS}")


def _name(value: Any) -> str:
    if not isinstance(value, str) or not TOOL_NAME.fullmatch(value):
        raise ActionError(
            "The tool name must be a string of 1 to 128 letters, digits, '_', '-' or '.' "
            f"(the tools are listed in info['tools']). {FORMS}"
        )
    return value


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = loads(value) if value.strip() else {}
        except InputError as error:
            raise ActionError(f"The tool arguments were refused: {error}.") from None
    if not isinstance(value, dict):
        raise ActionError("The tool arguments must be a JSON object.")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f"The message must be non-empty text. {FORMS}")
    if len(value) > MAX_MESSAGE_CHARS:
        raise ActionError(
            f"The message is too long ({len(value)} characters; at most {MAX_MESSAGE_CHARS}). Say it in "
            "fewer words."
        )
    problem = text_problem(value)
    if problem is not None:
        raise ActionError(f"The message was refused: it {problem}.")
    return value
