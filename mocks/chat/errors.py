"""Slack's error envelope and the errors its Web API answers with.

Every failure is ``{"ok": false, "error": "<code>"}`` (Slack's description, every method's
``default`` response). A call Slack cannot parse gets ``invalid_arguments`` with the reasons in
``response_metadata.messages`` (``"[ERROR] missing required field: channel"``), as Slack answers
today. Codes are each method's documented ones (``spec/``'s error enums): ``channel_not_found``,
``not_in_channel``, ``is_archived``, ``already_in_channel``, ``cant_invite_self``, ...

Slack answers errors with HTTP 200, except a rate limit (429 with ``Retry-After``). In process
the result keeps the error class's status (404, 403, ...), so every generic layer sees a failed
call; the body is Slack's. A transport serving the Web API on the wire sends 200 for them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from enterprise_envs.mocks._core.errors import ErrorKind, ToolError


@dataclass
class SlackError(ToolError):
    """A ToolError carrying Slack's error code.

    Attributes:
        code: The ``error`` string (``channel_not_found``).
        extra: Further top-level fields Slack sends with this error (``needed``, ``provided``).
    """

    code: str = ""
    extra: dict[str, Any] | None = None


#: The code of an error the generic layers raise (schema validation, an injected fault).
_KIND_CODES: dict[ErrorKind, str] = {
    ErrorKind.INVALID_ARGUMENT: "invalid_arguments",
    ErrorKind.NOT_FOUND: "not_found",
    ErrorKind.PERMISSION_DENIED: "restricted_action",
    ErrorKind.CONFLICT: "invalid_arguments",
    ErrorKind.RATE_LIMITED: "ratelimited",
    ErrorKind.UNAVAILABLE: "service_unavailable",
    ErrorKind.TIMEOUT: "request_timeout",
    ErrorKind.INTERNAL: "internal_error",
}
#: Headers of the generic fault injector that Slack does not send (it sends ``Retry-After`` only).
_FOREIGN_HEADER_PREFIX = "X-RateLimit-"


def render_error(error: ToolError) -> dict[str, Any]:
    """Slack's error body for any failed call.

    A :class:`SlackError` says its code; another ToolError (from the call pipeline: a malformed
    argument, an injected fault) takes its kind's code, with its message and detail as
    ``response_metadata.messages`` where Slack explains (``invalid_arguments``).
    """
    if isinstance(error, SlackError):
        body: dict[str, Any] = {"ok": False, "error": error.code}
        if error.extra:
            body.update(error.extra)
        if error.code == "invalid_arguments" and error.detail:
            body["response_metadata"] = {"messages": [f"[ERROR] {error.detail}"]}
        return body
    code = _KIND_CODES[error.kind]
    body = {"ok": False, "error": code}
    if error.kind is ErrorKind.RATE_LIMITED:
        for name in [name for name in error.headers if name.startswith(_FOREIGN_HEADER_PREFIX)]:
            del error.headers[name]
    elif code == "invalid_arguments":
        reason = f"{error.message}: {error.detail}" if error.detail else error.message
        body["response_metadata"] = {"messages": [f"[ERROR] {reason}"]}
    return body


def slack_error(kind: ErrorKind, code: str, detail: str | None = None, **extra: Any) -> SlackError:
    """An error in Slack's words (``detail`` is for logs and ``invalid_arguments``' messages)."""
    return SlackError(kind, code, detail, code=code, extra=extra or None)


def invalid_arguments(detail: str) -> SlackError:
    """``invalid_arguments``: a value Slack refuses, the reason in ``response_metadata.messages``."""
    return slack_error(ErrorKind.INVALID_ARGUMENT, "invalid_arguments", detail)


def not_found(code: str, detail: str | None = None) -> SlackError:
    """A lookup that names nothing the caller can see.

    ``channel_not_found``, ``user_not_found``, ``message_not_found``, ``thread_not_found``,
    ``no_such_subteam``, ``users_not_found``.
    """
    return slack_error(ErrorKind.NOT_FOUND, code, detail)


def refused(code: str, detail: str | None = None) -> SlackError:
    """A refusal: the call is understood but not allowed in this state or for this caller.

    ``not_in_channel``, ``is_archived``, ``cant_update_message``, ``restricted_action``, ...
    """
    return slack_error(ErrorKind.PERMISSION_DENIED, code, detail)


def conflict(code: str, detail: str | None = None) -> SlackError:
    """A change that collides with what is there.

    ``name_taken``, ``already_in_channel``, ``already_archived``, ``already_reacted``.
    """
    return slack_error(ErrorKind.CONFLICT, code, detail)
