"""Surface ``typed``: task-level chat tools, the way chat MCP servers expose them.

An IT bot works in a Slack workspace by the names people use: a channel is given by id
(``C...``, ``D...``) or name (``general``, ``#general``), a person by id (``U...``), handle
(``isaac.brock``, ``@isaac.brock``) or e-mail address, a user group by id (``S...``), handle
(``@oncall-network``) or name. Answers are compact JSON that names people by handle and name and
channels by name, not only by id.

Every tool calls the chat services (``mocks/chat/services``), where each Slack rule is held once,
so the same goal reached through ``typed`` or ``rest`` leaves the same rows; errors are Slack's
(``{"ok": false, "error": "not_in_channel"}``). Read tools only read: they run on a query-only
connection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.tools import Handler, Surface, Tool, ToolKind, obj, string, wait_tool
from enterprise_envs.mocks.chat.errors import invalid_arguments
from enterprise_envs.mocks.chat.services import conversations, messages, usergroups
from enterprise_envs.mocks.chat.services.common import (
    Page,
    find_channel,
    find_message,
    find_user,
    find_usergroup,
    is_member,
)

__all__ = ["build_typed_surface"]

_TRUE = "true"

# -- argument schemas ----------------------------------------------------------------------------

_CHANNEL = string(
    "The channel: its name (general or #general) or id (C..., or D... for a direct message).",
    100,
    minLength=1,
)
_USER = string(
    "The person: their handle (isaac.brock or @isaac.brock), e-mail address or user id (U...).",
    200,
    minLength=1,
)
_GROUP = string(
    "The user group: its handle (oncall-network or @oncall-network), name or id (S...).", 200, minLength=1
)
_TS = string("The message's ts, as read_channel returns it (e.g. 1772442000.000100).", 32, minLength=1)
_CURSOR = string("The next_cursor of the previous page, to get the next one.", 200)
_PEOPLE = {"type": "array", "items": _USER, "maxItems": 50, "uniqueItems": True}


def _limit(default: int, maximum: int) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": 1,
        "maximum": maximum,
        "description": f"Maximum results per page (default {default}).",
    }


# -- output schemas ------------------------------------------------------------------------------

_STR = {"type": "string"}
_INT = {"type": "integer"}
_BOOL = {"type": "boolean"}

PERSON: dict[str, Any] = obj(
    {"id": _STR, "handle": _STR, "name": _STR, "email": _STR, "title": _STR, "deactivated": _BOOL},
    required=["id", "handle", "name", "email", "title", "deactivated"],
)
PERSON_DETAIL: dict[str, Any] = obj(
    {**PERSON["properties"], "timezone": _STR, "is_admin": _BOOL, "is_bot": _BOOL},
    required=[*PERSON["required"], "timezone", "is_admin", "is_bot"],
)
CHANNEL: dict[str, Any] = obj(
    {
        "id": _STR, "name": _STR, "private": _BOOL, "archived": _BOOL, "general": _BOOL, "topic": _STR,
        "purpose": _STR, "members": _INT, "is_member": _BOOL,
    },
    required=["id", "name", "private", "archived", "general", "topic", "purpose", "members", "is_member"],
)  # fmt: skip
DIRECT: dict[str, Any] = obj({"id": _STR, "direct_with": _STR}, required=["id", "direct_with"])
#: A channel or a direct conversation, as one object schema (MCP wants an object at the top).
CHANNEL_OR_DIRECT: dict[str, Any] = obj(
    {**CHANNEL["properties"], **DIRECT["properties"]},
    required=["id"],
    anyOf=[{"required": CHANNEL["required"]}, {"required": DIRECT["required"]}],
)
MESSAGE: dict[str, Any] = obj(
    {
        "ts": _STR, "user": _STR, "name": _STR, "text": _STR, "thread_ts": _STR, "reply_count": _INT,
        "reactions": {
            "type": "array",
            "items": obj({"emoji": _STR, "count": _INT}, required=["emoji", "count"]),
        },
        "edited": _BOOL,
    },
    required=["ts", "user", "name", "text", "thread_ts", "reply_count", "reactions", "edited"],
)  # fmt: skip
GROUP: dict[str, Any] = obj(
    {"id": _STR, "handle": _STR, "name": _STR, "description": _STR, "members": _INT, "disabled": _BOOL},
    required=["id", "handle", "name", "description", "members", "disabled"],
)
GROUP_DETAIL: dict[str, Any] = obj(
    {**GROUP["properties"], "members": {"type": "array", "items": PERSON}},
    required=GROUP["required"],
)
#: What a tool changing a channel answers: the channel as it is now, whether the call changed
#: anything, and what it did in words. The channel's fields are at the top, so a caller reads
#: ``id`` as from get_channel.
CHANNEL_CHANGE: dict[str, Any] = obj(
    {**CHANNEL["properties"], "changed": _BOOL, "detail": _STR},
    required=[*CHANNEL["required"], "changed", "detail"],
)
MESSAGE_IN: dict[str, Any] = obj({"channel": _STR, "message": MESSAGE}, required=["channel", "message"])
_NEXT = {"type": "string", "description": "Pass as cursor for the next page; empty on the last page."}


# -- rendering -----------------------------------------------------------------------------------


def _flag(row: Row, name: str) -> bool:
    return row.get(name) == _TRUE


def person(row: Row) -> dict[str, Any]:
    """A member as the tools show one: handle, name, e-mail, title, deactivated."""
    return {
        "id": row["id"],
        "handle": row["name"],
        "name": row["real_name"] or row["display_name"] or row["name"],
        "email": row["email"],
        "title": row["title"],
        "deactivated": _flag(row, "deleted"),
    }


def person_detail(row: Row) -> dict[str, Any]:
    """A member with their time zone and account type."""
    return {
        **person(row),
        "timezone": row["tz"],
        "is_admin": _flag(row, "is_admin") or _flag(row, "is_owner"),
        "is_bot": _flag(row, "is_bot"),
    }


def _users(ctx: CallContext, ids: Iterable[str]) -> dict[str, Row]:
    """User rows by id, read at once (every member may read every user)."""
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return {}
    rows = ctx.store.select("user", f"id IN ({', '.join('?' * len(wanted))})", wanted)
    return {row["id"]: row for row in rows}


def _people(ctx: CallContext, ids: Iterable[str]) -> list[dict[str, Any]]:
    """The members with these ids, in the order given (unknown ids left out)."""
    ids = list(ids)
    rows = _users(ctx, ids)
    return [person(rows[user_id]) for user_id in ids if user_id in rows]


def _is_direct(row: Row) -> bool:
    return _flag(row, "is_im") or _flag(row, "is_mpim")


def _direct_with(ctx: CallContext, row: Row) -> str:
    """The handle of the other person in a direct conversation of the caller's."""
    me = ctx.identity.user_sys_id
    other = row["user"] if row["creator"] == me or not row["user"] else row["creator"]
    found = ctx.store.get("user", other)
    return found["name"] if found else other


def channel_view(ctx: CallContext, row: Row) -> dict[str, Any]:
    """A channel as the tools show one (a direct conversation: who it is with)."""
    if _is_direct(row):
        return {"id": row["id"], "direct_with": _direct_with(ctx, row)}
    return {
        "id": row["id"],
        "name": row["name"],
        "private": _flag(row, "is_private"),
        "archived": _flag(row, "is_archived"),
        "general": _flag(row, "is_general"),
        "topic": row["topic_value"],
        "purpose": row["purpose_value"],
        "members": ctx.store.count("channel_member", "channel = ?", (row["id"],)),
        "is_member": is_member(ctx, row["id"], ctx.identity.user_sys_id),
    }


def _channel_label(row: Row) -> str:
    return row["name"] or row["id"]


def message_views(ctx: CallContext, rows: list[Row]) -> list[dict[str, Any]]:
    """Messages as the tools show them: author's handle and name, text, thread, reactions."""
    authors = _users(ctx, (row["user"] for row in rows))
    views = []
    for row in rows:
        author = authors.get(row["user"])
        views.append(
            {
                "ts": row["ts"],
                "user": author["name"] if author else row["user"],
                "name": person(author)["name"] if author else "",
                "text": row["text"],
                "thread_ts": row["thread_ts"],
                "reply_count": int(row["reply_count"] or 0),
                "reactions": [
                    {"emoji": item["name"], "count": item["count"]}
                    for item in messages.reactions_of(ctx, row)
                ],
                "edited": bool(row["edited_ts"]),
            }
        )
    return views


def _group_view(ctx: CallContext, row: Row) -> dict[str, Any]:
    return {
        "id": row["id"],
        "handle": row["handle"],
        "name": row["name"],
        "description": row["description"],
        "members": len(usergroups.member_ids(ctx, row)),
        "disabled": row["date_delete"] not in ("", "0"),
    }


def _group_detail(ctx: CallContext, row: Row) -> dict[str, Any]:
    # By handle: membership rows carry no order of their own (their keys are random).
    members = sorted(_people(ctx, usergroups.member_ids(ctx, row)), key=lambda item: item["handle"])
    return {**_group_view(ctx, row), "members": members}


# -- handlers: people ----------------------------------------------------------------------------


def find_users(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Members whose handle, names, e-mail address or title hold every word of the query."""
    # "@handle" is how people write a handle; the search matches the handle without its "@".
    words = [word[1:] if word.startswith("@") else word for word in args["query"].split()]
    page = usergroups.list_users(
        ctx,
        query=" ".join(words),
        include_deleted=args.get("include_deactivated", False),
        cursor=args.get("cursor"),
        limit=args.get("limit", 10),
    )
    return {"users": [person(row) for row in page.rows], "next_cursor": page.next_cursor}


def get_user(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One member in detail."""
    return person_detail(find_user(ctx, args["user"]))


# -- handlers: channels --------------------------------------------------------------------------


def list_channels(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The channels the bot can see: public ones, and private ones it is in (no direct messages)."""
    types = "public_channel,private_channel" if args.get("include_private", True) else "public_channel"
    page = conversations.list_channels(
        ctx,
        types=types,
        exclude_archived=not args.get("include_archived", False),
        name_contains=args.get("query", "").strip(),
        cursor=args.get("cursor"),
        limit=args.get("limit", 20),
    )
    return {"channels": [channel_view(ctx, row) for row in page.rows], "next_cursor": page.next_cursor}


def get_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One channel (or direct conversation)."""
    return channel_view(ctx, find_channel(ctx, args["channel"]))


def _channel_page(
    ctx: CallContext,
    args: dict[str, Any],
    key: str,
    default: int,
    read: Callable[..., Page],
    view: Callable[[CallContext, list[Row]], list[dict[str, Any]]],
) -> dict[str, Any]:
    """A page of a channel's list: ``{channel, <key>: the rows' views, next_cursor}``.

    Args:
        ctx: The call.
        args: The tool's arguments: ``channel``, ``cursor`` and ``limit`` (default ``default``).
        key: The list's name in the answer.
        default: The page size when the call gives none.
        read: ``(ctx, channel, cursor=, limit=) -> Page``: the service reading the page.
        view: ``(ctx, rows) -> list``: the rows as the tools show them.
    """
    channel = find_channel(ctx, args["channel"])
    page = read(ctx, channel, cursor=args.get("cursor"), limit=args.get("limit", default))
    return {"channel": _channel_label(channel), key: view(ctx, page.rows), "next_cursor": page.next_cursor}


def list_channel_members(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The members of a channel, a page at a time."""

    def members(ctx: CallContext, rows: list[Row]) -> list[dict[str, Any]]:
        return _people(ctx, (row["user"] for row in rows))

    return _channel_page(ctx, args, "members", 50, conversations.list_members, members)


def _channel_name(text: str) -> str:
    """A channel name as people write it: ``#`` is how a name is shown, not part of it."""
    text = text.strip()
    return text[1:] if text.startswith("#") else text


def _changed(ctx: CallContext, channel: Row, changed: bool, detail: str) -> dict[str, Any]:
    # Re-read: a write may have changed what the view shows (members, archived, topic).
    current = ctx.store.get("channel", channel["id"]) or channel
    return {**channel_view(ctx, current), "changed": changed, "detail": detail}


def create_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Create a channel (the bot is its first member), then set its topic and purpose if given."""
    channel = conversations.create_channel(ctx, _channel_name(args["name"]), args.get("private", False))
    for which in ("topic", "purpose"):
        if args.get(which, "").strip():
            channel = conversations.set_text(ctx, channel, which, args[which])
    kind = "private" if args.get("private", False) else "public"
    return _changed(ctx, channel, True, f"Created the {kind} channel #{channel['name']}; the bot is in it.")


def join_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The bot joins a public channel."""
    channel = find_channel(ctx, args["channel"])
    joined = conversations.join(ctx, channel)
    name = _channel_label(channel)
    return _changed(ctx, channel, joined, f"Joined #{name}." if joined else f"Already in #{name}.")


def _channel_action(act: Callable[[CallContext, Row], Any], done: str, doc: str) -> Handler:
    """A handler doing ``act`` to the channel named, then answering with it.

    Args:
        act: The service call, ``(ctx, channel)``; it raises if it cannot be done.
        done: What it did, in words, with ``{}`` for the channel's name.
        doc: The handler's docstring.
    """

    def handle(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        channel = find_channel(ctx, args["channel"])
        act(ctx, channel)
        return _changed(ctx, channel, True, done.format(f"#{_channel_label(channel)}"))

    handle.__doc__ = doc
    return handle


leave_channel = _channel_action(conversations.leave, "Left {}.", "The bot leaves a channel.")


def invite_to_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Add people to a channel the bot is in: all of them, or (on the first refusal) none."""
    channel = find_channel(ctx, args["channel"])
    added = conversations.invite(ctx, channel, args["users"])
    invited = _people(ctx, (row["user"] for row in added))
    handles = ", ".join(item["handle"] for item in invited)
    return {
        **_changed(ctx, channel, True, f"Added {handles} to #{_channel_label(channel)}."),
        "invited": invited,
    }


def remove_from_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Remove someone else from a channel the bot is in."""
    channel = find_channel(ctx, args["channel"])
    user = find_user(ctx, args["user"])
    conversations.kick(ctx, channel, user["id"])
    detail = f"Removed {user['name']} from #{_channel_label(channel)}."
    return {**_changed(ctx, channel, True, detail), "removed": person(user)}


archive_channel = _channel_action(
    conversations.archive, "Archived {}: it is read-only now.", "Archive a channel the bot is in."
)
unarchive_channel = _channel_action(
    conversations.unarchive, "Unarchived {}.", "Bring an archived channel the bot is in back."
)


def rename_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Rename a channel the bot is in."""
    channel = find_channel(ctx, args["channel"])
    renamed = conversations.rename(ctx, channel, _channel_name(args["name"]))
    changed = renamed["name"] != channel["name"]
    detail = f"Renamed #{channel['name']} to #{renamed['name']}." if changed else "The name is unchanged."
    return _changed(ctx, channel, changed, detail)


def _text_setter(which: str) -> Handler:
    """A handler setting a channel's topic or purpose (``which``)."""

    def handle(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
        channel = find_channel(ctx, args["channel"])
        updated = conversations.set_text(ctx, channel, which, args[which])
        changed = updated[f"{which}_value"] != channel[f"{which}_value"]
        detail = (
            f"Set the {which} of #{_channel_label(channel)}." if changed else f"The {which} is unchanged."
        )
        return _changed(ctx, channel, changed, detail)

    handle.__doc__ = f"Set the {which} of a channel the bot is in."
    return handle


# -- handlers: messages --------------------------------------------------------------------------


def post_message(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Post a message, or a reply in a thread, as the bot."""
    channel = find_channel(ctx, args["channel"])
    message = messages.post_message(ctx, channel, args["text"], thread_ts=args.get("thread_ts", ""))
    return {
        "channel": channel["id"],
        "channel_name": _channel_label(channel),
        "ts": message["ts"],
        "thread_ts": message["thread_ts"],
        "permalink": messages.permalink(ctx, channel, message["ts"]),
    }


def send_direct_message(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Open (or reuse) the bot's direct conversation with a person and post in it."""
    channel, _ = conversations.open_direct(ctx, args["user"])
    message = messages.post_message(ctx, channel, args["text"])
    return {
        "channel": channel["id"],
        "ts": message["ts"],
        "direct_with": _direct_with(ctx, channel),
        "permalink": messages.permalink(ctx, channel, message["ts"]),
    }


def read_channel(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """A channel's messages, newest first (thread replies stay in their threads)."""
    return _channel_page(ctx, args, "messages", 20, messages.history, message_views)


#: The most messages a thread answer holds (Slack's largest page).
_THREAD_LIMIT = 1000


def read_thread(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """A thread: its parent first, then the replies, oldest first."""
    channel = find_channel(ctx, args["channel"])
    page = messages.replies(ctx, channel, args["ts"], limit=_THREAD_LIMIT)
    return {"channel": _channel_label(channel), "messages": message_views(ctx, page.rows)}


def _message_in(ctx: CallContext, channel: Row, ts: str) -> dict[str, Any]:
    # Re-read: the message's row changed (text, edited) or its reactions did.
    message = find_message(ctx, channel, ts)
    return {"channel": channel["id"], "message": message_views(ctx, [message])[0]}


def edit_message(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Change the text of one of the bot's own messages."""
    channel = find_channel(ctx, args["channel"])
    message = messages.update_message(ctx, channel, args["ts"], args["text"])
    return _message_in(ctx, channel, message["ts"])


def delete_message(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Delete one of the bot's own messages."""
    channel = find_channel(ctx, args["channel"])
    message = messages.delete_message(ctx, channel, args["ts"])
    return {"channel": channel["id"], "ts": message["ts"], "deleted": True}


def add_reaction(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """React to a message with an emoji, as the bot."""
    channel = find_channel(ctx, args["channel"])
    messages.add_reaction(ctx, channel, args["ts"], args["emoji"])
    return _message_in(ctx, channel, args["ts"])


def remove_reaction(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Take back one of the bot's reactions."""
    channel = find_channel(ctx, args["channel"])
    messages.remove_reaction(ctx, channel, args["ts"], args["emoji"])
    return _message_in(ctx, channel, args["ts"])


# -- handlers: user groups -----------------------------------------------------------------------


def list_user_groups(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """The workspace's user groups, by name."""
    rows = usergroups.list_usergroups(ctx, include_disabled=args.get("include_disabled", False))
    return {"groups": [_group_view(ctx, row) for row in rows]}


def get_user_group(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One user group with its members."""
    return _group_detail(ctx, find_usergroup(ctx, args["group"]))


def create_user_group(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Create a user group, with its first members if given."""
    group = usergroups.create_usergroup(ctx, args["name"], args["handle"], args.get("description", ""))
    if args.get("members"):
        group = usergroups.set_members(ctx, group, args["members"])
    return _group_detail(ctx, group)


def update_user_group_members(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Add people to and remove people from a user group (the group's whole list is then set)."""
    group = find_usergroup(ctx, args["group"])
    # Names become ids first, so one person given two ways (handle, e-mail) is one person.
    add = [find_user(ctx, ref, code="invalid_users")["id"] for ref in args.get("add", [])]
    remove = {find_user(ctx, ref, code="invalid_users")["id"] for ref in args.get("remove", [])}
    both = remove.intersection(add)
    if both:
        handles = ", ".join(sorted(row["name"] for row in _users(ctx, both).values()))
        raise invalid_arguments(f"{handles}: both in add and in remove")
    current = usergroups.member_ids(ctx, group)
    wanted = [user_id for user_id in dict.fromkeys([*current, *add]) if user_id not in remove]
    updated = usergroups.set_members(ctx, group, wanted)
    return _group_detail(ctx, updated)


# -- the surface ---------------------------------------------------------------------------------

_R, _W = ToolKind.READ, ToolKind.WRITE

#: The errors of naming a channel, and of changing one the bot is not in.
_NOT_FOUND = (
    "channel_not_found: no channel of that name or id that the bot can see (a private channel the bot "
    "is not in looks like it does not exist)"
)
_CHANNEL_ERRORS = (
    f"{_NOT_FOUND}; not_in_channel: the bot must be in the channel (join a public one with "
    "join_channel first; ask a member to add it to a private one)"
)


#: What every tool changing a channel says it answers.
_RETURNS = (
    " Returns the channel as it is now, with get_channel's fields (id, name, ..., is_member), changed "
    "(false when there was nothing to do) and detail."
)


def _channel_tool(name: str, description: str, handler: Handler) -> Tool:
    """A tool taking only a channel and answering with it."""
    arguments = obj({"channel": _CHANNEL}, required=["channel"])
    return Tool(name, description + _RETURNS, arguments, CHANNEL_CHANGE, _W, handler)


def _channel_page_tool(
    name: str, description: str, key: str, item: dict[str, Any], limit: dict[str, Any], handler: Handler
) -> Tool:
    """A tool reading a channel's list a page at a time: ``{channel, <key>, next_cursor}``."""
    return Tool(
        name,
        f"{description} Returns {{channel, {key}, next_cursor}}. Errors: {_NOT_FOUND}.",
        obj({"channel": _CHANNEL, "limit": limit, "cursor": _CURSOR}, required=["channel"]),
        obj(
            {"channel": _STR, key: {"type": "array", "items": item}, "next_cursor": _NEXT},
            required=["channel", key, "next_cursor"],
        ),
        _R,
        handler,
    )


def _text_tool(which: str, what: str) -> Tool:
    """The tool setting a channel's topic or purpose (``which``); ``what`` says what it is for."""
    return Tool(
        f"set_channel_{which}",
        f"Set the {which} of a channel the bot is in ({what}). At most 250 characters. Errors: "
        f"{_CHANNEL_ERRORS}; is_archived, too_long." + _RETURNS,
        obj(
            {"channel": _CHANNEL, which: string(f"The new {which} (empty clears it).", 500)},
            required=["channel", which],
        ),
        CHANNEL_CHANGE,
        _W,
        _text_setter(which),
    )


def _reaction_tool(name: str, description: str, handler: Handler) -> Tool:
    """A tool taking a message (channel and ts) and an emoji, answering with the message."""
    arguments = obj(
        {"channel": _CHANNEL, "ts": _TS, "emoji": string("The emoji's name, with or without colons.", 100)},
        required=["channel", "ts", "emoji"],
    )
    return Tool(name, description, arguments, MESSAGE_IN, _W, handler)


def build_typed_surface() -> Surface:
    """The task-level chat tools (see the module docstring)."""
    paging = {"next_cursor": _NEXT}
    return Surface(
        "typed",
        [
            # -- people
            Tool(
                "find_users",
                "Find people in the workspace by part of their handle, name, e-mail address or job title "
                "(every word must match; an empty query lists everyone). Several people can share a "
                "name: check the handle or e-mail address before acting. Deactivated accounts are left "
                "out unless include_deactivated. Returns {users, next_cursor}.",
                obj(
                    {
                        "query": string("Words to look for, e.g. 'isaac brock', 'network engineer'.", 200),
                        "include_deactivated": {
                            "type": "boolean",
                            "description": "Also deactivated accounts.",
                        },
                        "limit": _limit(10, 100),
                        "cursor": _CURSOR,
                    },
                    required=["query"],
                ),
                obj(
                    {"users": {"type": "array", "items": PERSON}, **paging}, required=["users", "next_cursor"]
                ),
                _R,
                find_users,
            ),
            Tool(
                "get_user",
                "Look up one person by handle, e-mail address or id: name, title, time zone, whether the "
                "account is deactivated, an admin or a bot. Errors: user_not_found.",
                obj({"user": _USER}, required=["user"]),
                PERSON_DETAIL,
                _R,
                get_user,
            ),
            # -- channels
            Tool(
                "list_channels",
                "List the channels the bot can see: every public channel, and the private channels it is "
                "in (direct messages are not listed). Each comes with its topic, purpose, member count and "
                "whether the bot is a member (is_member: it must be to post). Archived channels are left "
                "out unless include_archived. Returns {channels, next_cursor}.",
                obj(
                    {
                        "query": string("Part of the channel name, e.g. 'team-' or 'incident'.", 100),
                        "include_archived": {"type": "boolean", "description": "Also archived channels."},
                        "include_private": {
                            "type": "boolean",
                            "description": "Also the private channels the bot is in (default true).",
                        },
                        "limit": _limit(20, 100),
                        "cursor": _CURSOR,
                    }
                ),
                obj(
                    {"channels": {"type": "array", "items": CHANNEL}, **paging},
                    required=["channels", "next_cursor"],
                ),
                _R,
                list_channels,
            ),
            Tool(
                "get_channel",
                "Look up one channel by name or id: private or public, archived, topic, purpose, member "
                "count and whether the bot is a member. For a direct message (D...) it says who it is "
                f"with. Errors: {_NOT_FOUND}.",
                obj({"channel": _CHANNEL}, required=["channel"]),
                CHANNEL_OR_DIRECT,
                _R,
                get_channel,
            ),
            _channel_page_tool(
                "list_channel_members",
                "List the people in a channel the bot can see.",
                "members",
                PERSON,
                _limit(50, 200),
                list_channel_members,
            ),
            Tool(
                "create_channel",
                "Create a channel, with its topic and purpose if given, in one step; the bot becomes its "
                "first member. Names are lower-case letters, digits, hyphens and underscores, at most 80 "
                "characters (e.g. inc-2026-03-vpn-outage). Errors: name_taken (a channel, maybe an "
                "archived one, has that name), invalid_name_specials, invalid_name_maxlength, "
                "invalid_name_required, too_long (topic or purpose over 250 characters)." + _RETURNS,
                obj(
                    {
                        "name": string("The new channel's name, e.g. inc-2026-03-vpn-outage.", 100),
                        "private": {
                            "type": "boolean",
                            "description": "A private channel, visible to its members only (default false).",
                        },
                        "topic": string("The channel's topic (what is going on now).", 500),
                        "purpose": string("The channel's purpose (what it is for).", 500),
                    },
                    required=["name"],
                ),
                CHANNEL_CHANGE,
                _W,
                create_channel,
            ),
            _channel_tool(
                "join_channel",
                "Make the bot a member of a public channel, so it can post there. Joining a channel the "
                "bot is already in changes nothing (changed: false). Errors: channel_not_found, "
                "is_archived, method_not_supported_for_channel_type (a private channel: a member must "
                "invite the bot).",
                join_channel,
            ),
            _channel_tool(
                "leave_channel",
                "Take the bot out of a channel. Errors: channel_not_found, not_in_channel (the bot is not "
                "in it), cant_leave_general (everyone stays in the general channel), is_archived.",
                leave_channel,
            ),
            Tool(
                "invite_to_channel",
                "Add people (up to 30) to a channel the bot is in. All are added, or none: the first "
                "refusal stops the call and nobody is added. Errors: "
                f"{_CHANNEL_ERRORS}; already_in_channel (someone given is already a member: leave them "
                "out), cant_invite_self (the bot joins with join_channel), cant_invite (a deactivated "
                "account), user_not_found, is_archived." + _RETURNS + " invited: who was added.",
                obj(
                    {
                        "channel": _CHANNEL,
                        "users": {
                            "type": "array",
                            "items": _USER,
                            "minItems": 1,
                            "maxItems": 30,
                            "uniqueItems": True,
                            "description": "The people to add.",
                        },
                    },
                    required=["channel", "users"],
                ),
                obj(
                    {**CHANNEL_CHANGE["properties"], "invited": {"type": "array", "items": PERSON}},
                    required=[*CHANNEL_CHANGE["required"], "invited"],
                ),
                _W,
                invite_to_channel,
            ),
            Tool(
                "remove_from_channel",
                "Remove a person from a channel the bot is in. Errors: "
                f"{_CHANNEL_ERRORS}, or the person is not in it; cant_kick_from_general (nobody leaves "
                "the general channel), cant_kick_self (use leave_channel), user_not_found." + _RETURNS,
                obj({"channel": _CHANNEL, "user": _USER}, required=["channel", "user"]),
                obj(
                    {**CHANNEL_CHANGE["properties"], "removed": PERSON},
                    required=[*CHANNEL_CHANGE["required"], "removed"],
                ),
                _W,
                remove_from_channel,
            ),
            _channel_tool(
                "archive_channel",
                "Archive a channel the bot is in: it becomes read-only and leaves the channel list, with "
                f"its history kept. Errors: {_CHANNEL_ERRORS}; already_archived, cant_archive_general.",
                archive_channel,
            ),
            _channel_tool(
                "unarchive_channel",
                "Bring an archived channel the bot is in back: it takes messages again. Archived channels "
                f"are found with list_channels(include_archived=true). Errors: {_CHANNEL_ERRORS}; "
                "not_archived.",
                unarchive_channel,
            ),
            Tool(
                "rename_channel",
                "Rename a channel the bot is in (lower-case letters, digits, hyphens and underscores, at "
                f"most 80 characters). Errors: {_CHANNEL_ERRORS}; name_taken, invalid_name_specials, "
                "invalid_name_maxlength, is_archived." + _RETURNS,
                obj(
                    {"channel": _CHANNEL, "name": string("The new name, e.g. inc-vpn-outage-resolved.", 100)},
                    required=["channel", "name"],
                ),
                CHANNEL_CHANGE,
                _W,
                rename_channel,
            ),
            _text_tool("topic", "what is going on now; shown at the top of the channel"),
            _text_tool("purpose", "what the channel is for"),
            # -- messages
            Tool(
                "post_message",
                "Post a message as the bot in a channel it is in, or reply in a thread (thread_ts: the "
                "ts of the thread's first message). Slack markup works: <@U...> mentions a person, "
                "<!subteam^S...> a user group. Returns {channel, ts, permalink}. Errors: "
                f"{_CHANNEL_ERRORS}; is_archived, thread_not_found (no message with that thread_ts "
                "here, or it is itself a reply), no_text, msg_too_long.",
                obj(
                    {
                        "channel": _CHANNEL,
                        "text": string("The message.", 40_000),
                        "thread_ts": string("Reply in this thread: the ts of its first message.", 32),
                    },
                    required=["channel", "text"],
                ),
                obj(
                    {"channel": _STR, "channel_name": _STR, "ts": _STR, "thread_ts": _STR, "permalink": _STR},
                    required=["channel", "ts", "permalink"],
                ),
                _W,
                post_message,
            ),
            Tool(
                "send_direct_message",
                "Send a person a direct message from the bot: opens the bot's direct conversation with "
                "them (or reuses the one there is) and posts in it. Returns {channel, ts, direct_with}. "
                "Errors: user_not_found, user_disabled (a deactivated account), no_text, msg_too_long.",
                obj({"user": _USER, "text": string("The message.", 40_000)}, required=["user", "text"]),
                obj(
                    {"channel": _STR, "ts": _STR, "direct_with": _STR, "permalink": _STR},
                    required=["channel", "ts", "direct_with"],
                ),
                _W,
                send_direct_message,
            ),
            _channel_page_tool(
                "read_channel",
                "Read a channel's messages, newest first (a public channel needs no membership). Thread "
                "replies are not included: a message with reply_count > 0 has a thread, read it with "
                "read_thread.",
                "messages",
                MESSAGE,
                _limit(20, 100),
                read_channel,
            ),
            Tool(
                "read_thread",
                "Read a whole thread: its first message, then every reply, oldest first. ts may be the "
                "first message's or any reply's. Errors: "
                f"{_NOT_FOUND}; thread_not_found.",
                obj({"channel": _CHANNEL, "ts": _TS}, required=["channel", "ts"]),
                obj(
                    {"channel": _STR, "messages": {"type": "array", "items": MESSAGE}},
                    required=["channel", "messages"],
                ),
                _R,
                read_thread,
            ),
            Tool(
                "edit_message",
                "Change the text of a message the bot posted (it is marked edited). Errors: "
                f"{_NOT_FOUND}; message_not_found, cant_update_message (someone "
                "else's message: the bot edits only its own), is_archived, no_text.",
                obj(
                    {"channel": _CHANNEL, "ts": _TS, "text": string("The new text.", 40_000)},
                    required=["channel", "ts", "text"],
                ),
                MESSAGE_IN,
                _W,
                edit_message,
            ),
            Tool(
                "delete_message",
                "Delete a message the bot posted (its reactions go with it). Errors: "
                f"{_NOT_FOUND}; message_not_found, cant_delete_message (someone "
                "else's message).",
                obj({"channel": _CHANNEL, "ts": _TS}, required=["channel", "ts"]),
                obj(
                    {"channel": _STR, "ts": _STR, "deleted": _BOOL},
                    required=["channel", "ts", "deleted"],
                ),
                _W,
                delete_message,
            ),
            _reaction_tool(
                "add_reaction",
                "React to a message with an emoji as the bot (e.g. white_check_mark or "
                ":white_check_mark:, eyes). Returns the message with its reactions. Errors: "
                f"{_NOT_FOUND}; message_not_found, already_reacted, invalid_name "
                "(not an emoji name).",
                add_reaction,
            ),
            _reaction_tool(
                "remove_reaction",
                "Take back one of the bot's reactions to a message. Errors: "
                f"{_NOT_FOUND}; message_not_found, no_reaction (the bot did not react "
                "with that emoji).",
                remove_reaction,
            ),
            # -- user groups
            Tool(
                "list_user_groups",
                "List the workspace's user groups (@handles that notify every member, e.g. "
                "@oncall-network), with their member counts. Disabled groups are left out unless "
                "include_disabled.",
                obj({"include_disabled": {"type": "boolean", "description": "Also disabled groups."}}),
                obj({"groups": {"type": "array", "items": GROUP}}, required=["groups"]),
                _R,
                list_user_groups,
            ),
            Tool(
                "get_user_group",
                "Look up one user group by handle, name or id, with its members. Errors: no_such_subteam.",
                obj({"group": _GROUP}, required=["group"]),
                GROUP_DETAIL,
                _R,
                get_user_group,
            ),
            Tool(
                "create_user_group",
                "Create a user group (an @handle that notifies its members), with its first members if "
                "given. Errors: name_already_exists, handle_already_exists (a group or a person has that "
                "handle), invalid_arguments (a handle is up to 21 lower-case letters, digits, '.', '-' "
                "and '_'), invalid_users (someone given does not exist or is deactivated).",
                obj(
                    {
                        "name": string("The group's name, e.g. Database On-Call.", 200, minLength=1),
                        "handle": string("Its handle, e.g. oncall-database or @oncall-database.", 100),
                        "description": string("What the group is for.", 1000),
                        "members": {**_PEOPLE, "description": "Its first members."},
                    },
                    required=["name", "handle"],
                ),
                GROUP_DETAIL,
                _W,
                create_user_group,
            ),
            Tool(
                "update_user_group_members",
                "Add people to and remove people from a user group in one step (e.g. hand over an on-call "
                "rotation: add the new person, remove the old one). Returns the group with its members. "
                "Adding a member or removing a non-member changes nothing. Errors: no_such_subteam, "
                "invalid_users (someone given does not exist or is deactivated, or the group would be "
                "left empty: a group keeps at least one member), invalid_arguments (a person both in "
                "add and in remove).",
                obj(
                    {
                        "group": _GROUP,
                        "add": {**_PEOPLE, "description": "People to add."},
                        "remove": {**_PEOPLE, "description": "People to remove."},
                    },
                    required=["group"],
                ),
                GROUP_DETAIL,
                _W,
                update_user_group_members,
            ),
            wait_tool(),
        ],
    )
