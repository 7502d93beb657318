"""Surface ``rest``: Slack's Web API, one tool per method, named by its ``operationId``.

The 38 methods of the derived description (``spec/slack-web-1.7.0.derived.openapi.json``) as
tools (``chat_postMessage`` is ``POST /api/chat.postMessage``), plus ``wait``. Each tool's
arguments are generated from its method's parameters in the document (query parameters, or the
form body's properties), with their descriptions and the document's ``required`` list, and take
Slack's encodings: booleans as JSON booleans or ``"true"``/``"false"``/``"1"``/``"0"`` (as a form
body sends them), lists as a comma-separated string (``users="U1,U2"``) or a JSON array, whole
numbers as numbers or digit strings, timestamps as strings or numbers. A few parameters of the
document are not taken (:data:`UNSERVED_PARAMETERS`: rich layouts, files, default channels), so
passing one is an ``invalid_arguments`` refusal rather than silently ignored.

Answers are Slack's: ``{"ok": true, ...}`` bodies with the documented fields, objects shaped by
:mod:`..render`; failures are the services' errors (:class:`~..errors.SlackError`), rendered by
the backend (``{"ok": false, "error": "<code>"}``). A rate limit is a 429 with ``Retry-After``.
Agents see the full response (status, headers, body).

Every handler calls the service layer (``mocks/chat/services``); nothing here decides a rule.
The codes each handler can answer are :data:`METHOD_ERRORS`; those the 2021 description omits
for the method but Slack sends today are :data:`UNDOCUMENTED_ERRORS` and :data:`GENERIC_ERRORS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.openapi import dereference
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind, full_response, wait_tool
from enterprise_envs.mocks.chat import render
from enterprise_envs.mocks.chat.errors import invalid_arguments, not_found, refused, slack_error
from enterprise_envs.mocks.chat.records import ENGINE
from enterprise_envs.mocks.chat.services import conversations, messages, usergroups
from enterprise_envs.mocks.chat.services.common import (
    bot_user,
    find_channel,
    find_message,
    find_user,
    find_usergroup,
    is_member,
    new_ts,
    page_limit,
)
from enterprise_envs.mocks.chat.tables import spec_document
from enterprise_envs.mocks.chat.world import bank

__all__ = [
    "GENERIC_ERRORS",
    "METHOD_ERRORS",
    "UNDOCUMENTED_ERRORS",
    "UNSERVED_PARAMETERS",
    "Arguments",
    "Method",
    "Parameter",
    "build_rest_surface",
    "input_schema",
    "methods",
    "served_parameters",
]

Handler = Callable[[CallContext, "Arguments"], dict[str, Any]]

# -- the methods, as the derived document describes them -----------------------------------------


@dataclass(frozen=True)
class Parameter:
    """One argument of a method.

    Attributes:
        name: Its name (``channel``).
        kind: ``string``, ``boolean``, ``integer``, ``number`` (a timestamp) or ``list`` (a
            string the document describes as comma-separated).
        required: Whether the document requires it.
        description: The document's description.
    """

    name: str
    kind: str
    required: bool
    description: str


@dataclass(frozen=True)
class Method:
    """One Web API method of the derived document.

    Attributes:
        operation_id: Its ``operationId`` (``chat_postMessage``), the tool's name.
        name: The method's name (``chat.postMessage``).
        http_method: ``GET`` or ``POST``.
        summary: The document's description of the method.
        parameters: Its arguments, in the document's order.
        errors: The error codes the document lists for it (its ``default`` response's enum).
        response: The schema of its ``200`` response (OpenAPI 3.0, ``$ref``s into the document).
    """

    operation_id: str
    name: str
    http_method: str
    summary: str
    parameters: tuple[Parameter, ...]
    errors: frozenset[str]
    response: Mapping[str, Any]


_COMMA_LIST = re.compile(r"comma[- ]separated", re.IGNORECASE)


def _parameter(name: str, schema: Mapping[str, Any], required: bool, description: str) -> Parameter:
    kind = schema.get("type", "string")
    if kind == "string" and _COMMA_LIST.search(description):
        kind = "list"
    return Parameter(name, kind, required, description)


def _json_schema(content: Mapping[str, Any]) -> Mapping[str, Any]:
    return (content.get("application/json") or {}).get("schema") or {}


@cache
def methods() -> dict[str, Method]:
    """Every method of the derived document, by ``operationId`` (read once per process)."""
    found: dict[str, Method] = {}
    for path, item in spec_document()["paths"].items():
        for http_method, operation in item.items():
            parameters = [
                _parameter(
                    q["name"], q.get("schema") or {}, bool(q.get("required")), q.get("description", "")
                )
                for q in operation.get("parameters", ())
            ]
            body = (operation.get("requestBody") or {}).get("content") or {}
            form = (body.get("application/x-www-form-urlencoded") or {}).get("schema") or {}
            for name, schema in (form.get("properties") or {}).items():
                required = name in (form.get("required") or ())
                parameters.append(_parameter(name, schema, required, schema.get("description", "")))
            responses = operation.get("responses") or {}
            error_schema = _json_schema((responses.get("default") or {}).get("content") or {})
            enum = ((error_schema.get("properties") or {}).get("error") or {}).get("enum") or ()
            found[operation["operationId"]] = Method(
                operation_id=operation["operationId"],
                name=path.lstrip("/"),
                http_method=http_method.upper(),
                summary=operation.get("description", ""),
                parameters=tuple(parameters),
                errors=frozenset(enum),
                response=_json_schema((responses.get("200") or {}).get("content") or {}),
            )
    return found


#: Parameters of the document the mock does not take (the tool refuses them as unknown arguments
#: rather than dropping them unseen): operationId -> (names, why).
UNSERVED_PARAMETERS: dict[str, tuple[tuple[str, ...], str]] = {
    "chat_postMessage": (
        ("attachments", "blocks", "reply_broadcast"),
        "messages are plain text here: no block or attachment layouts, no broadcast replies",
    ),
    "chat_postEphemeral": (("attachments", "blocks"), "messages are plain text here"),
    "chat_update": (("attachments", "blocks"), "messages are plain text here"),
    "conversations_replies": (
        ("latest", "oldest", "inclusive"),
        "a thread is read whole, a page at a time",
    ),
    "reactions_get": (("file", "file_comment"), "files are not modelled"),
    "reactions_remove": (("file", "file_comment"), "files are not modelled"),
    "usergroups_create": (("channels",), "a user group's default channels are not modelled"),
    "usergroups_update": (("channels",), "a user group's default channels are not modelled"),
}

# -- error codes -------------------------------------------------------------------------------------

#: Codes any method may answer: Slack lists them for every method today, the 2021 description
#: for few or none of them.
GENERIC_ERRORS: dict[str, str] = {
    "invalid_arguments": "a malformed call: a missing or ill-typed argument, an unknown one",
    "ratelimited": "HTTP 429 with Retry-After (an injected rate limit)",
    "service_unavailable": "an injected outage",
    "request_timeout": "an injected timeout",
    "internal_error": "a fault of the mock itself",
    "missing_scope": "a call the IT bot's token has no scope for",
    "restricted_action": "the workspace's policy refuses the caller",
}

#: What each handler can answer besides :data:`GENERIC_ERRORS` (the services' codes on the
#: method's path). Each is in the method's documented enum or in :data:`UNDOCUMENTED_ERRORS`.
_PAGE = ("invalid_cursor", "invalid_limit")
_NAMES = ("invalid_name_required", "invalid_name_maxlength", "invalid_name_specials", "name_taken")
METHOD_ERRORS: dict[str, tuple[str, ...]] = {
    "api_test": (),  # it answers whatever code it is asked to fail with
    "auth_test": (),
    "chat_delete": ("channel_not_found", "message_not_found", "cant_delete_message"),
    "chat_getPermalink": ("channel_not_found", "message_not_found"),
    "chat_postEphemeral": (
        "channel_not_found", "not_in_channel", "user_not_found", "user_not_in_channel", "is_archived",
        "no_text", "msg_too_long",
    ),
    "chat_postMessage": (
        "channel_not_found", "not_in_channel", "is_archived", "no_text", "msg_too_long", "thread_not_found",
    ),
    "chat_update": (
        "channel_not_found", "message_not_found", "cant_update_message", "no_text", "msg_too_long",
        "is_archived",
    ),
    "conversations_archive": (
        "channel_not_found", "not_in_channel", "already_archived", "cant_archive_general",
        "method_not_supported_for_channel_type",
    ),
    "conversations_create": _NAMES,
    "conversations_history": ("channel_not_found", "invalid_ts_latest", "invalid_ts_oldest", *_PAGE),
    "conversations_info": ("channel_not_found",),
    "conversations_invite": (
        "channel_not_found", "not_in_channel", "no_user", "user_not_found", "cant_invite_self",
        "already_in_channel", "is_archived", "cant_invite", "too_many_users",
        "method_not_supported_for_channel_type",
    ),
    "conversations_join": ("channel_not_found", "is_archived", "method_not_supported_for_channel_type"),
    "conversations_kick": (
        "channel_not_found", "not_in_channel", "user_not_found", "cant_kick_self", "cant_kick_from_general",
        "method_not_supported_for_channel_type",
    ),
    "conversations_leave": (
        "channel_not_found", "is_archived", "cant_leave_general", "method_not_supported_for_channel_type",
    ),
    "conversations_list": ("invalid_types", *_PAGE),
    "conversations_members": ("channel_not_found", *_PAGE),
    "conversations_open": (
        "users_list_not_supplied", "user_not_found", "user_disabled", "channel_not_found",
        "method_not_supported_for_channel_type",
    ),
    "conversations_rename": (
        "channel_not_found", "not_in_channel", "is_archived", "method_not_supported_for_channel_type",
        *_NAMES,
    ),
    "conversations_replies": ("channel_not_found", "thread_not_found", *_PAGE),
    "conversations_setPurpose": (
        "channel_not_found", "not_in_channel", "is_archived", "too_long",
        "method_not_supported_for_channel_type",
    ),
    "conversations_setTopic": (
        "channel_not_found", "not_in_channel", "is_archived", "too_long",
        "method_not_supported_for_channel_type",
    ),
    "conversations_unarchive": (
        "channel_not_found", "not_in_channel", "not_archived", "method_not_supported_for_channel_type",
    ),
    "reactions_add": (
        "no_item_specified", "channel_not_found", "message_not_found", "invalid_name", "already_reacted",
    ),
    "reactions_get": ("no_item_specified", "channel_not_found", "message_not_found"),
    "reactions_remove": ("no_item_specified", "channel_not_found", "message_not_found", "no_reaction"),
    "usergroups_create": ("name_already_exists", "handle_already_exists"),
    "usergroups_disable": ("no_such_subteam",),
    "usergroups_enable": ("no_such_subteam",),
    "usergroups_list": (),
    "usergroups_update": ("no_such_subteam", "name_already_exists", "handle_already_exists"),
    "usergroups_users_list": ("no_such_subteam",),
    "usergroups_users_update": ("no_such_subteam", "invalid_users"),
    "users_conversations": ("user_not_found", "invalid_types", *_PAGE),
    "users_info": ("user_not_found",),
    "users_list": _PAGE,
    "users_lookupByEmail": ("users_not_found",),
    "users_profile_get": ("user_not_found",),
}  # fmt: skip

_PAGE_CODES = "Slack answers invalid_cursor and invalid_limit on every cursor-paged method today"
_CHANNEL_CODE = "Slack lists channel_not_found for the method today (a conversation the caller cannot see)"
_NOT_IN_CHANNEL = "Slack answers not_in_channel when the caller is not in the conversation"
#: Codes a handler answers that the 2021 description omits for the method, each with why:
#: operationId -> {code: why}.
UNDOCUMENTED_ERRORS: dict[str, dict[str, str]] = {
    "chat_postMessage": {
        "thread_not_found": "the service's answer to a thread_ts naming no parent message in the "
        "conversation; the 2021 enum has no code for it",
    },
    "chat_postEphemeral": {
        "not_in_channel": _NOT_IN_CHANNEL,
        "user_not_found": "the user argument names no member",
    },
    "chat_update": {"is_archived": "an archived conversation's messages cannot be edited"},
    "conversations_archive": {"not_in_channel": _NOT_IN_CHANNEL},
    "conversations_unarchive": {"not_in_channel": _NOT_IN_CHANNEL},
    "conversations_rename": {"is_archived": "an archived channel cannot be renamed"},
    "conversations_history": {code: _PAGE_CODES for code in _PAGE},
    "conversations_list": {
        "invalid_types": "Slack's answer to an unknown type in types (listed for users.conversations)",
        **{code: _PAGE_CODES for code in _PAGE},
    },
    "conversations_replies": {code: _PAGE_CODES for code in _PAGE},
    "reactions_add": {"channel_not_found": _CHANNEL_CODE},
    "reactions_get": {"channel_not_found": _CHANNEL_CODE},
    "reactions_remove": {"channel_not_found": _CHANNEL_CODE},
    # Slack's user group codes (its reference lists them today; the 2021 enums hold only the
    # generic ones).
    "usergroups_create": {
        "name_already_exists": "another user group has this name",
        "handle_already_exists": "another user group or a member has this handle",
    },
    "usergroups_update": {
        "no_such_subteam": "the usergroup argument names no user group",
        "name_already_exists": "another user group has this name",
        "handle_already_exists": "another user group or a member has this handle",
    },
    "usergroups_disable": {"no_such_subteam": "the usergroup argument names no user group"},
    "usergroups_enable": {"no_such_subteam": "the usergroup argument names no user group"},
    "usergroups_users_list": {"no_such_subteam": "the usergroup argument names no user group"},
    "usergroups_users_update": {
        "no_such_subteam": "the usergroup argument names no user group",
        "invalid_users": "a listed user is unknown or deactivated, or the list is empty",
    },
    "users_conversations": {"user_not_found": "the user argument names no member"},
    "users_list": {"invalid_limit": _PAGE_CODES},
}

# -- arguments ---------------------------------------------------------------------------------------

_TRUE, _FALSE = ("true", "1"), ("false", "0")
#: Length bounds of string arguments: message text past Slack's 40,000 characters must reach the
#: service (``msg_too_long``); everything else is far shorter.
_TEXT_MAX = 50_000
_STRING_MAX = 4_000
_ITEM_MAX = 200
_LIST_MAX = 1_000


class Arguments:
    """A call's arguments in Slack's encodings, read as the handler needs them."""

    __slots__ = ("values",)

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values = dict(values)

    def __contains__(self, name: object) -> bool:
        return name in self.values

    def text(self, name: str, default: str = "") -> str:
        """A string argument, stripped of surrounding blanks (``default`` when absent)."""
        value = self.values.get(name)
        if value is None:
            return default
        return str(value).strip() if not isinstance(value, bool) else ("true" if value else "false")

    def raw_text(self, name: str) -> str:
        """A string argument as sent (message text keeps its blanks)."""
        value = self.values.get(name)
        return "" if value is None else str(value)

    def required(self, name: str) -> str:
        """A string argument Slack needs, or ``invalid_arguments`` naming it."""
        value = self.text(name)
        if not value:
            raise invalid_arguments(f"missing required field: {name}")
        return value

    def flag(self, name: str, default: bool = False) -> bool:
        """A boolean: ``true``/``false`` or ``"true"``/``"false"``/``"1"``/``"0"``."""
        value = self.values.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise invalid_arguments(f"{name} must be true or false")

    def integer(self, name: str) -> int | None:
        """A whole number, given as a number or a digit string (None when absent)."""
        value = self.values.get(name)
        if value is None or value == "":
            return None
        try:
            return int(str(value).strip())
        except ValueError:
            raise invalid_arguments(f"{name} must be a whole number") from None

    def ts(self, name: str) -> str:
        """A message timestamp as Slack writes it (``"1772442000.000100"``); "" when absent.

        A JSON number is written with six decimals, as its ``ts`` string would be.
        """
        value = self.values.get(name)
        if value is None or isinstance(value, bool):
            return ""
        if isinstance(value, float):
            return f"{value:.6f}"
        return str(value).strip()

    def items(self, name: str) -> list[str]:
        """A list: a comma-separated string or a JSON array, blanks and empty items dropped."""
        value = self.values.get(name)
        if value is None:
            return []
        parts = value if isinstance(value, list) else str(value).split(",")
        return [str(part).strip() for part in parts if str(part).strip()]


def _clean(description: str) -> str:
    """A document description without its links to Slack's pages, bounded."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", description).strip()
    return text if len(text) <= 300 else text[:297] + "..."


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _property(parameter: Parameter) -> dict[str, Any]:
    description = _clean(parameter.description) or parameter.name
    if parameter.kind == "boolean":
        return {
            "type": ["boolean", "string"],
            "enum": [True, False, "true", "false", "1", "0"],
            "description": description,
        }
    if parameter.kind == "integer":
        return {"type": ["integer", "string"], "pattern": r"^\s*-?[0-9]{1,9}\s*$", "description": description}
    if parameter.kind == "number":
        return {
            "type": ["string", "number"],
            "maxLength": 40,
            "description": f"{_sentence(description)} A timestamp such as 1772442000.000100.",
        }
    if parameter.kind == "list":
        return {
            "type": ["string", "array"],
            "items": {"type": "string", "maxLength": _ITEM_MAX},
            "maxItems": _LIST_MAX,
            "maxLength": _LIST_MAX * 16,
            "description": f"{_sentence(description)} A comma-separated string or a JSON array.",
        }
    limit = _TEXT_MAX if parameter.name == "text" else _STRING_MAX
    return {"type": "string", "maxLength": limit, "description": description}


def served_parameters(method: Method) -> tuple[Parameter, ...]:
    """The method's parameters the tool takes (the document's, less :data:`UNSERVED_PARAMETERS`)."""
    unserved = UNSERVED_PARAMETERS.get(method.operation_id, ((), ""))[0]
    return tuple(parameter for parameter in method.parameters if parameter.name not in unserved)


def input_schema(method: Method) -> dict[str, Any]:
    """The tool's argument schema, generated from the method's parameters in the document."""
    parameters = served_parameters(method)
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {parameter.name: _property(parameter) for parameter in parameters},
        "additionalProperties": False,
    }
    required = [parameter.name for parameter in parameters if parameter.required]
    if required:
        schema["required"] = required
    return schema


# -- output schemas --------------------------------------------------------------------------------


def _shallow(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A property's JSON type (nested objects as ``object``, ``null`` where the document allows it)."""
    resolved = dereference(spec_document(), schema)
    kind = resolved.get("type")
    if not isinstance(kind, str):
        return {}
    if resolved.get("nullable") or schema.get("nullable"):
        return {"type": [kind, "null"]}
    return {"type": kind}


def _body_schema(method: Method) -> dict[str, Any]:
    """The answer's top level as the document gives it: its fields' JSON types and required ones."""
    response = method.response
    properties = {name: _shallow(schema) for name, schema in (response.get("properties") or {}).items()}
    body: dict[str, Any] = {"type": "object", "properties": properties}
    if response.get("required"):
        body["required"] = list(response["required"])
    return body


# -- helpers ---------------------------------------------------------------------------------------


def _team_id(ctx: CallContext) -> str:
    return bot_user(ctx)["team_id"]


def _me(ctx: CallContext) -> str:
    return ctx.identity.user_sys_id


def _conversation(ctx: CallContext, row: Row, *, count: bool = False) -> dict[str, Any]:
    """A conversation as the caller sees it (``count``: with ``num_members``)."""
    me = _me(ctx)
    if row["is_im"] == "true":
        other = ctx.store.get("user", row["creator"] if row["user"] == me else row["user"]) or {}
        return render.conversation(
            row, viewer=me, team_id=_team_id(ctx), user_deleted=other.get("deleted") == "true"
        )
    members = ctx.store.count("channel_member", "channel = ?", (row["id"],)) if count else None
    return render.conversation(
        row, viewer=me, team_id=_team_id(ctx), is_member=is_member(ctx, row["id"], me), num_members=members
    )


def _message(ctx: CallContext, row: Row) -> dict[str, Any]:
    """A message with what Slack adds to it: its reactions, a reply's parent author, a parent's repliers."""
    parent_user, repliers = "", []
    thread = row["thread_ts"]
    if thread and thread != row["ts"]:
        parent = ctx.store.select("message", "channel = ? AND ts = ?", (row["channel"], thread), limit=1)
        parent_user = parent[0]["user"] if parent else ""
    elif row["reply_count"] not in ("", "0"):
        found = ctx.store.conn.execute(
            """SELECT "user" FROM message WHERE channel = ? AND thread_ts = ? AND ts != thread_ts
               GROUP BY "user" ORDER BY MIN(ts)""",
            (row["channel"], row["ts"]),
        )
        repliers = [user for (user,) in found]
    return render.message(
        row,
        reactions=messages.reactions_of(ctx, row),
        team_id=_team_id(ctx),
        parent_user_id=parent_user,
        reply_users=repliers,
        # Slack has a thread's author and everyone who replied follow it.
        subscribed=_me(ctx) in (row["user"], *repliers) if repliers else None,
    )


def _group(ctx: CallContext, row: Row, *, users: bool = False) -> dict[str, Any]:
    members = usergroups.member_ids(ctx, row) if users else None
    return render.usergroup(row, users=members)


def _page_size(ctx: CallContext, args: Arguments) -> int:
    """The page size asked for (Slack's bounds checked), shortened by an injected page-size cap."""
    return ctx.faults.cap_page(page_limit(args.integer("limit")))


def _channel(ctx: CallContext, args: Arguments) -> Row:
    return find_channel(ctx, args.required("channel"))


def _ok(**fields: Any) -> dict[str, Any]:
    return {"ok": True, **fields}


# -- api, auth -------------------------------------------------------------------------------------


def api_test(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``api.test``: echoes its arguments; with ``error`` fails with that code, as Slack does."""
    echoed = {name: args.text(name) for name in args.values}
    code = args.text("error")
    if code:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, code, "api.test was asked to fail", args=echoed)
    return _ok(args=echoed) if echoed else _ok()


def auth_test(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``auth.test``: who the token is (the IT bot, unless another identity acts)."""
    me = ctx.store.get("user", _me(ctx)) or {}
    body = _ok(
        url=str(ctx.settings["workspace_url"]).rstrip("/") + "/",
        team=bank()["team_name"],
        user=me.get("name", ""),
        team_id=me.get("team_id") or _team_id(ctx),
        user_id=_me(ctx),
    )
    if me.get("is_bot") == "true":
        body["bot_id"] = render.profile(me)["bot_id"]
    body["is_enterprise_install"] = False
    return body


# -- chat --------------------------------------------------------------------------------------------

_IMPERSONATION = (*messages.IMPERSONATION_PARAMETERS, "as_user")


def chat_post_message(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``chat.postMessage``: a message, or a thread reply with ``thread_ts``."""
    channel = _channel(ctx, args)
    impersonating: dict[str, object] = {name: args.text(name) for name in _IMPERSONATION if name in args}
    if "as_user" in args:
        impersonating["as_user"] = args.flag("as_user")
    row = messages.post_message(
        ctx, channel, args.raw_text("text"), thread_ts=args.ts("thread_ts"), impersonating=impersonating
    )
    return _ok(channel=channel["id"], ts=row["ts"], message=_message(ctx, row))


def chat_post_ephemeral(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``chat.postEphemeral``: a message only ``user`` sees, once; nothing is kept."""
    channel = _channel(ctx, args)
    user = find_user(ctx, args.required("user"))
    draft = dict.fromkeys(ctx.store.catalog["message"].columns, "")
    draft.update(channel=channel["id"], user=_me(ctx), text=args.raw_text("text"))
    draft["thread_ts"] = args.ts("thread_ts")
    # The checks a kept message passes, with nothing written: the caller may post here (the access
    # policy) and the text may be posted there (the message table's rules).
    ctx.authorize(Operation.CREATE, "message", None, draft)
    ENGINE.rules_for("message").before_insert(ctx, draft, draft)
    if not is_member(ctx, channel["id"], user["id"]):
        raise refused("user_not_in_channel", f"{user['name']} is not in the conversation")
    return _ok(message_ts=new_ts(ctx, channel["id"]))


def chat_update(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``chat.update``: the caller's own message gets new text."""
    channel = _channel(ctx, args)
    row = messages.update_message(ctx, channel, args.required("ts"), args.raw_text("text"))
    return _ok(channel=channel["id"], ts=row["ts"], text=row["text"], message=_message(ctx, row))


def chat_delete(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``chat.delete``: the caller's own message is deleted."""
    channel = _channel(ctx, args)
    ts = args.ts("ts")
    if not ts:
        raise invalid_arguments("missing required field: ts")
    row = messages.delete_message(ctx, channel, ts)
    return _ok(channel=channel["id"], ts=row["ts"])


def chat_get_permalink(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``chat.getPermalink``: a message's link."""
    channel = _channel(ctx, args)
    return _ok(channel=channel["id"], permalink=messages.permalink(ctx, channel, args.required("message_ts")))


# -- conversations -----------------------------------------------------------------------------------


def conversations_archive(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.archive``."""
    conversations.archive(ctx, _channel(ctx, args))
    return _ok()


def conversations_unarchive(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.unarchive``."""
    conversations.unarchive(ctx, _channel(ctx, args))
    return _ok()


def conversations_create(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.create``: a channel the caller makes and joins."""
    row = conversations.create_channel(ctx, args.text("name"), is_private=args.flag("is_private"))
    return _ok(channel=_conversation(ctx, row))


def conversations_history(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.history``: messages, newest first (thread replies stay in their threads)."""
    channel = _channel(ctx, args)
    page = messages.history(
        ctx,
        channel,
        oldest=args.ts("oldest"),
        latest=args.ts("latest"),
        inclusive=args.flag("inclusive"),
        cursor=args.text("cursor"),
        limit=_page_size(ctx, args),
    )
    has_more = bool(page.next_cursor)
    body = _ok(
        messages=[_message(ctx, row) for row in page.rows],
        has_more=has_more,
        # Pins and channel actions are not modelled: Slack's figures for a channel without them.
        pin_count=0,
        channel_actions_ts=None,
        channel_actions_count=0,
    )
    if has_more:
        body["response_metadata"] = page.metadata()
    return body


def conversations_info(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.info``."""
    row = _channel(ctx, args)
    return _ok(channel=_conversation(ctx, row, count=args.flag("include_num_members")))


def conversations_invite(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.invite``: every listed member joins, or nobody does."""
    channel = _channel(ctx, args)
    users = args.items("users")
    if not users:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "no_user", "users names nobody")
    if len(users) > _LIST_MAX:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "too_many_users", f"at most {_LIST_MAX} users at once")
    conversations.invite(ctx, channel, users)
    return _ok(channel=_conversation(ctx, channel))


def conversations_join(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.join``: the caller joins a public channel (a warning when already in it)."""
    channel = _channel(ctx, args)
    joined = conversations.join(ctx, channel)
    body = _ok(channel=_conversation(ctx, channel))
    if not joined:
        body["warning"] = "already_in_channel"
        body["response_metadata"] = {"warnings": ["already_in_channel"]}
    return body


def conversations_kick(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.kick``: someone else leaves a conversation the caller is in."""
    conversations.kick(ctx, _channel(ctx, args), args.required("user"))
    return _ok()


def conversations_leave(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.leave``: the caller leaves (``not_in_channel: true`` when they were not in it)."""
    channel = _channel(ctx, args)
    if not is_member(ctx, channel["id"], _me(ctx)):
        # Slack answers a leave from outside with success and a flag, not an error.
        return _ok(not_in_channel=True)
    conversations.leave(ctx, channel)
    return _ok()


def _list_conversations(ctx: CallContext, args: Arguments, member: str = "") -> dict[str, Any]:
    types = ",".join(args.items("types")) or None
    page = conversations.list_channels(
        ctx,
        types=types,
        exclude_archived=args.flag("exclude_archived"),
        member=member,
        cursor=args.text("cursor"),
        limit=_page_size(ctx, args),
    )
    return _ok(
        channels=[_conversation(ctx, row, count=True) for row in page.rows], response_metadata=page.metadata()
    )


def conversations_list(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.list``: the conversations the caller may see, a page at a time."""
    return _list_conversations(ctx, args)


def conversations_members(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.members``: member ids, a page at a time."""
    channel = _channel(ctx, args)
    page = conversations.list_members(ctx, channel, cursor=args.text("cursor"), limit=_page_size(ctx, args))
    return _ok(members=[row["user"] for row in page.rows], response_metadata=page.metadata())


def conversations_open(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.open``: the caller's direct conversation with one member (made if needed)."""
    users = args.items("users")
    if users:
        if len(users) > 1:
            raise invalid_arguments("multi-person direct messages are not supported: name one user")
        row, already = conversations.open_direct(ctx, users[0])
    elif args.text("channel"):
        row = _channel(ctx, args)
        if row["is_im"] != "true":
            raise refused("method_not_supported_for_channel_type", "only a direct conversation is opened")
        already = True
    else:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "users_list_not_supplied", "give users or channel")
    body = _ok()
    if already:
        body.update(no_op=True, already_open=True)
    body["channel"] = _conversation(ctx, row) if args.flag("return_im") else {"id": row["id"]}
    return body


def conversations_rename(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.rename``."""
    row = conversations.rename(ctx, _channel(ctx, args), args.text("name"))
    return _ok(channel=_conversation(ctx, row))


def conversations_replies(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``conversations.replies``: a thread's parent, then its replies, oldest first."""
    channel = _channel(ctx, args)
    ts = args.ts("ts")
    if not ts:
        raise invalid_arguments("missing required field: ts")
    page = messages.replies(ctx, channel, ts, cursor=args.text("cursor"), limit=_page_size(ctx, args))
    has_more = bool(page.next_cursor)
    body = _ok(messages=[_message(ctx, row) for row in page.rows], has_more=has_more)
    if has_more:
        body["response_metadata"] = page.metadata()
    return body


def _set_text(which: str) -> Handler:
    def handle(ctx: CallContext, args: Arguments) -> dict[str, Any]:
        row = conversations.set_text(ctx, _channel(ctx, args), which, args.raw_text(which))
        return _ok(channel=_conversation(ctx, row))

    handle.__doc__ = f"``conversations.set{which.title()}``."
    return handle


# -- reactions ---------------------------------------------------------------------------------------


def _reacted_message(ctx: CallContext, args: Arguments) -> tuple[Row, str]:
    """The conversation and ``timestamp`` a reactions method names (``no_item_specified`` without)."""
    if not args.text("channel") or not args.text("timestamp"):
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "no_item_specified", "give channel and timestamp")
    return _channel(ctx, args), args.text("timestamp")


def reactions_add(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``reactions.add``."""
    channel, ts = _reacted_message(ctx, args)
    messages.add_reaction(ctx, channel, ts, args.text("name"))
    return _ok()


def reactions_remove(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``reactions.remove``."""
    channel, ts = _reacted_message(ctx, args)
    messages.remove_reaction(ctx, channel, ts, args.text("name"))
    return _ok()


def reactions_get(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``reactions.get``: the message with its reactions."""
    channel, ts = _reacted_message(ctx, args)
    row = find_message(ctx, channel, ts)
    return _ok(type="message", channel=channel["id"], message=_message(ctx, row))


# -- user groups -------------------------------------------------------------------------------------


def _usergroup(ctx: CallContext, args: Arguments) -> Row:
    return find_usergroup(ctx, args.required("usergroup"))


def usergroups_create(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``usergroups.create``."""
    name, handle, description = args.text("name"), args.text("handle"), args.raw_text("description")
    row = usergroups.create_usergroup(ctx, name, handle, description)
    return _ok(usergroup=_group(ctx, row))


def usergroups_update(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``usergroups.update``: name, handle or description (what is not given stays)."""
    group = _usergroup(ctx, args)
    values = {name: args.text(name) for name in ("name", "handle") if name in args}
    if "description" in args:
        values["description"] = args.raw_text("description")
    row = usergroups.update_usergroup(ctx, group, values)
    return _ok(usergroup=_group(ctx, row))


def _set_enabled(enabled: bool) -> Handler:
    def handle(ctx: CallContext, args: Arguments) -> dict[str, Any]:
        row = usergroups.set_enabled(ctx, _usergroup(ctx, args), enabled)
        return _ok(usergroup=_group(ctx, row))

    handle.__doc__ = f"``usergroups.{'enable' if enabled else 'disable'}``."
    return handle


def usergroups_list(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``usergroups.list``: the workspace's groups (disabled ones with ``include_disabled``)."""
    rows = usergroups.list_usergroups(ctx, include_disabled=args.flag("include_disabled"))
    users = args.flag("include_users")
    return _ok(usergroups=[_group(ctx, row, users=users) for row in rows])


def _is_disabled(group: Row) -> bool:
    return group["date_delete"] not in ("", "0")


def usergroups_users_list(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``usergroups.users.list``: a group's member ids (a disabled group's with ``include_disabled``)."""
    group = _usergroup(ctx, args)
    if _is_disabled(group) and not args.flag("include_disabled"):
        raise not_found("no_such_subteam", f"{group['handle']} is disabled")
    return _ok(users=usergroups.member_ids(ctx, group))


def usergroups_users_update(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``usergroups.users.update``: the group's members become exactly ``users``."""
    group = _usergroup(ctx, args)
    row = usergroups.set_members(ctx, group, args.items("users"))
    return _ok(usergroup=_group(ctx, row, users=True))


# -- users -------------------------------------------------------------------------------------------


def users_conversations(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``users.conversations``: the conversations a member (default: the caller) is in."""
    member = find_user(ctx, args.text("user"))["id"] if args.text("user") else _me(ctx)
    return _list_conversations(ctx, args, member)


def users_info(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``users.info``."""
    row = find_user(ctx, args.required("user"))
    return _ok(user=render.user(row, include_locale=args.flag("include_locale")))


def users_list(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``users.list``: every member, deactivated ones too, a page at a time."""
    page = usergroups.list_users(ctx, cursor=args.text("cursor"), limit=_page_size(ctx, args))
    locale = args.flag("include_locale")
    return _ok(
        members=[render.user(row, include_locale=locale) for row in page.rows],
        cache_ts=ctx.clock.timestamp(),
        response_metadata=page.metadata(),
    )


def users_lookup_by_email(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``users.lookupByEmail``."""
    email = args.required("email")
    if "@" not in email[1:]:
        raise not_found("users_not_found", "not an e-mail address")
    return _ok(user=render.user(find_user(ctx, email, code="users_not_found")))


def users_profile_get(ctx: CallContext, args: Arguments) -> dict[str, Any]:
    """``users.profile.get``: a member's profile (default: the caller's)."""
    row = find_user(ctx, args.text("user")) if args.text("user") else ctx.store.get("user", _me(ctx))
    if row is None:
        raise not_found("user_not_found")
    return _ok(profile=render.profile(row))


# -- the tools ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Spec:
    handler: Handler
    kind: ToolKind
    returns: str


_R, _W = ToolKind.READ, ToolKind.WRITE

#: operationId -> (handler, kind, what the answer holds: the description's agent-facing part).
_SPECS: dict[str, _Spec] = {
    "api_test": _Spec(
        api_test, _R, "Returns ok and args (the arguments echoed); error=<code> makes it fail so."
    ),
    "auth_test": _Spec(auth_test, _R, "Returns who you are: url, team, user, team_id, user_id, bot_id."),
    "chat_postMessage": _Spec(
        chat_post_message,
        _W,
        "Post as yourself to a conversation you are in (join a public channel first). thread_ts: the "
        "parent's ts to reply in its thread. Returns channel, ts and the message.",
    ),
    "chat_postEphemeral": _Spec(
        chat_post_ephemeral,
        _W,
        "Show text to one member of a conversation, once; it is not kept in the history. Returns message_ts.",
    ),
    "chat_update": _Spec(
        chat_update, _W, "Change the text of your own message (channel + ts). Returns the message."
    ),
    "chat_delete": _Spec(chat_delete, _W, "Delete your own message (channel + ts). Returns channel and ts."),
    "chat_getPermalink": _Spec(chat_get_permalink, _R, "Returns the message's permalink."),
    "conversations_archive": _Spec(conversations_archive, _W, "Archive a channel you are in. Returns ok."),
    "conversations_unarchive": _Spec(conversations_unarchive, _W, "Returns ok."),
    "conversations_create": _Spec(
        conversations_create,
        _W,
        "Create a channel (lower-case letters, digits, - and _; at most 80) and join it. Returns the "
        "channel.",
    ),
    "conversations_history": _Spec(
        conversations_history,
        _R,
        "Returns messages (newest first; thread replies only via conversations_replies), has_more and "
        "response_metadata.next_cursor for the next page.",
    ),
    "conversations_info": _Spec(conversations_info, _R, "Returns the channel (id or name)."),
    "conversations_invite": _Spec(
        conversations_invite, _W, "Add members (user ids) to a channel you are in. Returns the channel."
    ),
    "conversations_join": _Spec(
        conversations_join,
        _W,
        "Join a public channel. Returns the channel; warning already_in_channel if you were in it.",
    ),
    "conversations_kick": _Spec(
        conversations_kick, _W, "Remove a member from a channel you are in. Returns ok."
    ),
    "conversations_leave": _Spec(
        conversations_leave,
        _W,
        "Leave a conversation. Returns ok (not_in_channel: true if you were not in it).",
    ),
    "conversations_list": _Spec(
        conversations_list,
        _R,
        "types: public_channel (default), private_channel, im, mpim. Returns channels (those you may see) "
        'and response_metadata.next_cursor ("" on the last page).',
    ),
    "conversations_members": _Spec(
        conversations_members, _R, "Returns members (user ids) and response_metadata.next_cursor."
    ),
    "conversations_open": _Spec(
        conversations_open,
        _W,
        "Open (or find) your direct conversation with one member (users=<user id>). Returns channel.id "
        "(the whole conversation with return_im).",
    ),
    "conversations_rename": _Spec(
        conversations_rename, _W, "Rename a channel you are in. Returns the channel."
    ),
    "conversations_replies": _Spec(
        conversations_replies,
        _R,
        "Read a thread (ts of its parent). Returns messages (the parent first), has_more, "
        "response_metadata.next_cursor.",
    ),
    "conversations_setPurpose": _Spec(
        _set_text("purpose"), _W, "At most 250 characters. Returns the channel."
    ),
    "conversations_setTopic": _Spec(_set_text("topic"), _W, "At most 250 characters. Returns the channel."),
    "reactions_add": _Spec(
        reactions_add,
        _W,
        "React to a message (channel + timestamp) with an emoji name (thumbsup). Returns ok.",
    ),
    "reactions_get": _Spec(
        reactions_get, _R, "Returns the message (channel + timestamp) with its reactions."
    ),
    "reactions_remove": _Spec(reactions_remove, _W, "Take back your reaction. Returns ok."),
    "usergroups_create": _Spec(
        usergroups_create, _W, "name and a unique handle (the @mention). Returns the usergroup."
    ),
    "usergroups_disable": _Spec(_set_enabled(False), _W, "Returns the usergroup (date_delete set)."),
    "usergroups_enable": _Spec(_set_enabled(True), _W, "Returns the usergroup."),
    "usergroups_list": _Spec(
        usergroups_list, _R, "Returns usergroups (with their users' ids when include_users is true)."
    ),
    "usergroups_update": _Spec(
        usergroups_update, _W, "Change name, handle or description. Returns the usergroup."
    ),
    "usergroups_users_list": _Spec(usergroups_users_list, _R, "Returns users (ids)."),
    "usergroups_users_update": _Spec(
        usergroups_users_update,
        _W,
        "Replace the group's whole member list (users: every member's id; at least one). Returns the "
        "usergroup.",
    ),
    "users_conversations": _Spec(
        users_conversations,
        _R,
        "Conversations a member (default: you) is in. Returns channels and response_metadata.next_cursor.",
    ),
    "users_info": _Spec(users_info, _R, "Returns the user (id)."),
    "users_list": _Spec(
        users_list,
        _R,
        "Returns members (deactivated ones too: deleted is true) and response_metadata.next_cursor.",
    ),
    "users_lookupByEmail": _Spec(users_lookup_by_email, _R, "Returns the user with this e-mail address."),
    "users_profile_get": _Spec(users_profile_get, _R, "Returns the profile of a member (default: you)."),
}


def _description(method: Method, spec: _Spec) -> str:
    summary = method.summary.strip().rstrip(".")
    codes = [code for code in METHOD_ERRORS[method.operation_id] if code not in _PAGE]
    text = f"{summary} ({method.http_method} /api/{method.name}). {spec.returns}"
    return f"{text} Errors: {', '.join(codes)}." if codes else text


def _with_arguments(handler: Handler) -> Callable[[CallContext, dict[str, Any]], dict[str, Any]]:
    def handle(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        return handler(ctx, Arguments(args))

    handle.__doc__ = handler.__doc__
    return handle


def _tool(method: Method, spec: _Spec) -> Tool:
    return Tool(
        name=method.operation_id,
        description=_description(method, spec),
        input_schema=input_schema(method),
        output_schema=full_response(_body_schema(method)),
        kind=spec.kind,
        handler=_with_arguments(spec.handler),
    )


def build_rest_surface() -> Surface:
    """Slack's Web API as tools (see the module docstring): one per served method, and ``wait``."""
    served = methods()
    missing = sorted(set(served) ^ set(_SPECS))
    if missing:
        raise RuntimeError(f"rest surface and the derived document disagree on methods: {missing}")
    return Surface("rest", [*(_tool(served[name], spec) for name, spec in _SPECS.items()), wait_tool()],
                   full_response=True)  # fmt: skip
