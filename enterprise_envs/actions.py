"""Agent actions: parse whatever the agent sent into a tool call, a message or the end.

Accepted (as a JSON string or an already-decoded dict):

- ``{"tool": "name", "arguments": {...}}`` (arguments may also be a JSON string);
- an OpenAI tool call: ``{"type": "function", "function": {"name": ..., "arguments": "..."}}``,
  with or without ``id``; or an assistant message carrying exactly one ``tool_calls`` entry;
- ``{"message": "text"}`` (or an assistant message ``{"role": "assistant", "content": "text"}``);
- ``{"end": true}``.

Anything else is an :class:`ActionError` with a message for the agent; parsing never raises
anything else.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

FORMS = (
    'Send one JSON action: {"tool": "<name>", "arguments": {...}} to call a tool, '
    '{"message": "<text>"} to talk to the user, or {"end": true} to finish.'
)


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
    data = raw
    if isinstance(raw, bytes | bytearray):
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ActionError(f"The action is not UTF-8 text. {FORMS}") from None
    if isinstance(data, str):
        try:
            data = json.loads(data)
        except (json.JSONDecodeError, RecursionError):
            raise ActionError(f"The action is not valid JSON. {FORMS}") from None
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
    if not isinstance(value, str) or not value:
        raise ActionError(f"The tool name must be a non-empty string. {FORMS}")
    return value


def _arguments(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else {}
        except (json.JSONDecodeError, RecursionError):
            raise ActionError("The tool arguments are not valid JSON.") from None
    if not isinstance(value, dict):
        raise ActionError("The tool arguments must be a JSON object.")
    return value


def _text(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ActionError(f"The message must be non-empty text. {FORMS}")
    return value
