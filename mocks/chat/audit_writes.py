"""The chat system's writer for the audit: a generic row write as one of Slack's Web API methods.

Slack has no generic record API: a message is posted, edited and deleted by ``chat.*`` methods
that name it by its conversation and ``ts``, a channel changes one property per
``conversations.*`` method, a user group by ``usergroups.*``. The audit's probes that damage rows
(an edit nobody asked for, a write of a table the task never touches, an attempt the agent's
role may not make) ask :data:`CHAT_WRITER` for the call of the ``rest`` surface that makes their
write; a write no method makes is None, and the probe reports that part skipped (see
``AuditHints.writer`` in ``mocks/_core/conventions.py``).

What the writer is given bounds what it can aim: the write (table, key, fields) and the written
row as the episode starts, nothing else of the workspace, and not who the caller is. So:

- a message's conversation and ``ts`` (what ``chat.update`` and ``chat.delete`` name it by) come
  from its row; a message the episode created has no row at the start, and is not edited here;
- a reaction names its message by the mock's internal key, which no method takes, and the
  message's row is not given: reactions are not written here;
- ``usergroups.users.update`` replaces a group's whole list, which the writer cannot read:
  memberships of user groups are not written here;
- a channel membership is made by ``conversations.invite`` and ended by ``conversations.kick``;
  the caller's own (``conversations.join``, ``.leave``) cannot be told apart, and Slack refuses
  to invite or kick oneself (``cant_invite_self``, ``cant_kick_self``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: The surface whose tools (named by Slack's ``operationId``) the writer calls.
SURFACE = "rest"

#: A channel's properties that one ``conversations.*`` method sets -> (method, its argument).
_CHANNEL_TEXT = {
    "name": ("conversations_rename", "name"),
    "topic_value": ("conversations_setTopic", "topic"),
    "purpose_value": ("conversations_setPurpose", "purpose"),
}
#: What a new channel takes (``conversations.create``); the rest Slack sets.
_CHANNEL_CREATE = frozenset({"name", "is_private"})
#: What a post takes (``chat.postMessage``); ``username`` posts under another name.
_MESSAGE_CREATE = frozenset({"channel", "text", "thread_ts", "username"})
#: A user group's properties ``usergroups.create`` and ``usergroups.update`` take.
_USERGROUP_FIELDS = frozenset({"name", "handle", "description"})
#: ``date_delete`` of a live user group (Slack writes 0; the mock's rows may hold "").
_LIVE = ("", "0")
#: The writer's tools whose arguments, where named like a column of the table they write, mean
#: that column (a post's ``channel``, ``text`` and ``thread_ts``; a group's ``name``) -> that
#: table. Tools the writer never calls are left out (``conversations_join``, ``reactions_add``,
#: ``usergroups_users_update``), as in the identity writer.
_TABLES = {
    "chat_postMessage": "message",
    "chat_update": "message",
    "chat_delete": "message",
    "conversations_create": "channel",
    "conversations_rename": "channel",
    "conversations_setTopic": "channel",
    "conversations_setPurpose": "channel",
    "conversations_archive": "channel",
    "conversations_unarchive": "channel",
    "conversations_invite": "channel_member",
    "conversations_kick": "channel_member",
    "usergroups_create": "usergroup",
    "usergroups_update": "usergroup",
    "usergroups_disable": "usergroup",
    "usergroups_enable": "usergroup",
}

Made = tuple[str, str, dict[str, Any]]


def _call(tool: str, arguments: Mapping[str, Any]) -> Made:
    return (SURFACE, tool, dict(arguments))


def _message(operation: str, fields: Mapping[str, str], row: Mapping[str, str] | None) -> Made | None:
    """A post, an edit of its text, or a delete (the last two name the message by its row)."""
    if operation == "create":
        if set(fields) - _MESSAGE_CREATE or not (fields.get("channel") and fields.get("text")):
            return None  # an author, a bot id or a subtype: no post sets them
        return _call("chat_postMessage", {name: value for name, value in fields.items() if value})
    if row is None or not (row.get("channel") and row.get("ts")):
        return None
    where = {"channel": row["channel"], "ts": row["ts"]}
    if operation == "delete":
        return _call("chat_delete", where)
    if set(fields) == {"text"}:
        return _call("chat_update", {**where, "text": fields["text"]})
    return None


def _channel(operation: str, key: str, fields: Mapping[str, str]) -> Made | None:
    """A new channel, or one property of a channel by its own method (its key is its Slack id)."""
    if operation == "create":
        if set(fields) - _CHANNEL_CREATE or not fields.get("name"):
            return None
        arguments: dict[str, Any] = {"name": fields["name"]}
        if "is_private" in fields:
            arguments["is_private"] = fields["is_private"] == "true"
        return _call("conversations_create", arguments)
    if operation != "update" or len(fields) != 1:
        return None  # Slack's non-admin methods delete no conversation; one property per call
    ((name, value),) = fields.items()
    if name == "is_archived" and value in ("true", "false"):
        return _call(
            "conversations_archive" if value == "true" else "conversations_unarchive", {"channel": key}
        )
    if name in _CHANNEL_TEXT:
        tool, argument = _CHANNEL_TEXT[name]
        return _call(tool, {"channel": key, argument: value})
    return None


def _channel_member(operation: str, fields: Mapping[str, str], row: Mapping[str, str] | None) -> Made | None:
    """Someone added to a conversation, or removed from one (the membership's row names both)."""
    if operation == "create":
        if set(fields) != {"channel", "user"} or not all(fields.values()):
            return None
        return _call("conversations_invite", {"channel": fields["channel"], "users": fields["user"]})
    if operation == "delete" and row is not None and row.get("channel") and row.get("user"):
        return _call("conversations_kick", {"channel": row["channel"], "user": row["user"]})
    return None


def _usergroup(operation: str, key: str, fields: Mapping[str, str]) -> Made | None:
    """A new group, a change of its name, handle or description, or disabling and enabling it."""
    if operation == "create":
        if set(fields) - _USERGROUP_FIELDS or not fields.get("name"):
            return None
        return _call("usergroups_create", dict(fields))
    if operation != "update" or not fields:
        return None  # Slack deletes no user group: disabling keeps it
    if set(fields) <= _USERGROUP_FIELDS:
        return _call("usergroups_update", {"usergroup": key, **fields})
    if set(fields) == {"date_delete"}:
        # Disabling stamps its own time and the caller as deleted_by: any time asks for a disable.
        tool = "usergroups_enable" if fields["date_delete"] in _LIVE else "usergroups_disable"
        return _call(tool, {"usergroup": key})
    return None


class ChatWriter:
    """Slack's Web API methods for the audit's generic writes (``AuditHints.writer``)."""

    def write(
        self, operation: str, table: str, key: str, fields: Mapping[str, str], row: Mapping[str, str] | None
    ) -> Made | None:
        """The ``rest`` call making a generic write, or None when no method makes it.

        - ``message``: create (``channel``, ``text``, optionally ``thread_ts`` and ``username``)
          by ``chat_postMessage``; ``text`` by ``chat_update`` and delete by ``chat_delete``,
          both naming the message by its row's ``channel`` and ``ts``.
        - ``channel``: create (``name``, optionally ``is_private``) by ``conversations_create``;
          ``name``, ``topic_value``, ``purpose_value`` by ``conversations_rename``,
          ``conversations_setTopic``, ``conversations_setPurpose``; ``is_archived`` by
          ``conversations_archive`` or ``conversations_unarchive``; one property per call.
        - ``channel_member``: create by ``conversations_invite``, delete by
          ``conversations_kick``.
        - ``usergroup``: create (``name``, optionally ``handle``, ``description``) by
          ``usergroups_create``; those fields by ``usergroups_update``; ``date_delete`` set by
          ``usergroups_disable``, cleared (``0``) by ``usergroups_enable``.

        Anything else has no method the bot may call, or none the writer can aim: accounts
        (Slack's admin methods are not served), a message's author or stamps, a channel's kind,
        deleting a channel or a group, reactions and user-group memberships (see the module
        docstring): None.

        Args:
            operation: ``create``, ``update`` or ``delete``.
            table: The row's table.
            key: The row's key ("" for a create): a channel's or a group's Slack id.
            fields: Field values to write (create, update).
            row: The row as the episode starts, when it exists then (None otherwise).
        """
        row = row or None
        if table == "message":
            return _message(operation, fields, row)
        if table == "channel":
            return _channel(operation, key, fields)
        if table == "channel_member":
            return _channel_member(operation, fields, row)
        if table == "usergroup":
            return _usergroup(operation, key, fields)
        return None

    def table_of(self, surface: str, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """The table whose fields a call of one of the writer's ``rest`` tools names (else None)."""
        return _TABLES.get(tool) if surface == SURFACE else None


#: The chat system's writer, declared in its conventions.
CHAT_WRITER = ChatWriter()
