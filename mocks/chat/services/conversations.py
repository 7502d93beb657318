"""Conversations: channels and direct messages, their members, names, topics and archiving.

Rules (Slack's Web API reference for ``conversations.*``), each held once, on the table it
guards, so any write through the engine obeys it:

- **Names** (:class:`ChannelRules`): required, at most 80 characters, lower-case letters, digits,
  hyphens and underscores only (``invalid_name_required``, ``invalid_name_maxlength``,
  ``invalid_name_specials``), unique in the workspace (``name_taken``). A created channel's
  creator is its first member. The general channel cannot be archived
  (``cant_archive_general``); archiving twice is ``already_archived``, unarchiving a live one
  ``not_archived``; an archived channel takes no topic, purpose or name (``is_archived``).
  Topics and purposes hold at most 250 characters (``too_long``).
- **Members** (:class:`ChannelMemberRules`): one membership per person and conversation
  (``already_in_channel``); nobody joins an archived channel (``is_archived``) and a deactivated
  member joins nothing (``cant_invite``); the general channel keeps everyone
  (``cant_kick_from_general``, ``cant_leave_general``); a direct conversation's members are
  fixed (``method_not_supported_for_channel_type``).
- Direct conversations (``conversations.open``) are found or made: one per pair of people.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.records import TableRules
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.conventions import DM_KEY_KIND
from enterprise_envs.mocks.chat.errors import conflict, refused, slack_error
from enterprise_envs.mocks.chat.records import ENGINE
from enterprise_envs.mocks.chat.services.common import Page, decode_cursor, find_user, is_member, page_limit

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "ChannelMemberRules",
    "ChannelRules",
    "archive",
    "create_channel",
    "invite",
    "join",
    "kick",
    "leave",
    "list_channels",
    "list_members",
    "open_direct",
    "rename",
    "set_text",
    "unarchive",
]

_NAME_MAX = 80
_TEXT_MAX = 250
_VALID_NAME = re.compile(r"[a-z0-9_-]+").fullmatch
TRUE, FALSE = "true", "false"


def _is_dm(channel: Row) -> bool:
    return channel.get("is_im") == TRUE or channel.get("is_mpim") == TRUE


def _check_name(name: str) -> None:
    if not name:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "invalid_name_required", "a channel needs a name")
    if len(name) > _NAME_MAX:
        raise slack_error(
            ErrorKind.INVALID_ARGUMENT, "invalid_name_maxlength", f"at most {_NAME_MAX} characters"
        )
    if not _VALID_NAME(name):
        raise slack_error(
            ErrorKind.INVALID_ARGUMENT, "invalid_name_specials",
            "names hold lower-case letters, digits, hyphens and underscores only",
        )  # fmt: skip


class ChannelRules(TableRules):
    """Rules on ``channel`` rows: names, archiving, topics and purposes."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """A direct conversation has no name; a channel a valid, free one."""
        if _is_dm(new):
            return
        _check_name(new["name"])
        if ctx.store.find_one("channel", "name", new["name"]) is not None:
            raise conflict("name_taken", f"a channel named {new['name']} exists")

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Archiving, names, topics and purposes as Slack allows them."""
        archived_before, archived_after = old["is_archived"] == TRUE, new["is_archived"] == TRUE
        if archived_after and not archived_before and old["is_general"] == TRUE:
            raise refused("cant_archive_general")
        if "is_archived" in supplied and archived_before == archived_after:
            raise conflict("already_archived" if archived_after else "not_archived")
        edited = [name for name in ("name", "topic_value", "purpose_value") if new[name] != old[name]]
        if edited and (archived_before and archived_after):
            raise refused("is_archived")
        if _is_dm(old) and edited:
            raise refused("method_not_supported_for_channel_type")
        if new["name"] != old["name"]:
            _check_name(new["name"])
            if ctx.store.find_one("channel", "name", new["name"]) is not None:
                raise conflict("name_taken", f"a channel named {new['name']} exists")
            new["name_normalized"] = new["name"]
        for name in ("topic_value", "purpose_value"):
            if len(new[name]) > _TEXT_MAX:
                raise slack_error(ErrorKind.INVALID_ARGUMENT, "too_long", f"at most {_TEXT_MAX} characters")

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """A new channel's creator is its first member."""
        if old is None and new is not None and not _is_dm(new) and new["creator"]:
            ENGINE.system_insert(ctx, "channel_member", {"channel": new["id"], "user": new["creator"]})


class ChannelMemberRules(TableRules):
    """Rules on ``channel_member`` rows: who may be in which conversation."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """No double membership, no archived channel, no deactivated member, no DM change."""
        channel = ctx.store.get("channel", new["channel"]) or {}
        user = ctx.store.get("user", new["user"]) or {}
        if _is_dm(channel):
            raise refused("method_not_supported_for_channel_type")
        if channel.get("is_archived") == TRUE:
            raise refused("is_archived")
        if user.get("deleted") == TRUE:
            raise refused("cant_invite", f"{user.get('name', '')} is deactivated")
        if is_member(ctx, new["channel"], new["user"]):
            raise conflict("already_in_channel", f"{user.get('name', '')} is already in the channel")

    def before_delete(self, ctx: CallContext, old: Row) -> None:
        """Everyone stays in the general channel and in their direct conversations."""
        channel = ctx.store.get("channel", old["channel"]) or {}
        if channel.get("is_general") == TRUE:
            raise refused(
                "cant_leave_general" if old["user"] == ctx.identity.user_sys_id else "cant_kick_from_general"
            )
        if _is_dm(channel):
            raise refused("method_not_supported_for_channel_type")


ENGINE.register("channel", ChannelRules())
ENGINE.register("channel_member", ChannelMemberRules())


# -- operations --------------------------------------------------------------------------------


def _membership(ctx: CallContext, channel_id: str, user_id: str) -> Row | None:
    found = ctx.store.select("channel_member", 'channel = ? AND "user" = ?', (channel_id, user_id), limit=1)
    return found[0] if found else None


def create_channel(ctx: CallContext, name: str, is_private: bool = False) -> Row:
    """``conversations.create``: a new channel, made and joined by the caller."""
    values = {"name": name, "name_normalized": name, "is_private": TRUE if is_private else FALSE}
    trusted = {
        "is_channel": TRUE, "is_group": FALSE, "is_im": FALSE, "is_mpim": FALSE, "is_archived": FALSE,
        "is_general": FALSE, "is_shared": FALSE, "is_ext_shared": FALSE, "is_org_shared": FALSE,
        "creator": ctx.identity.user_sys_id, "topic_last_set": "0", "purpose_last_set": "0",
    }  # fmt: skip
    return ENGINE.create(ctx, "channel", values, trusted=trusted)


def archive(ctx: CallContext, channel: Row) -> Row:
    """``conversations.archive``."""
    if _is_dm(channel):
        raise refused("method_not_supported_for_channel_type")
    return ENGINE.update(ctx, "channel", channel, {"is_archived": TRUE})


def unarchive(ctx: CallContext, channel: Row) -> Row:
    """``conversations.unarchive``."""
    if _is_dm(channel):
        raise refused("method_not_supported_for_channel_type")
    return ENGINE.update(ctx, "channel", channel, {"is_archived": FALSE})


def rename(ctx: CallContext, channel: Row, name: str) -> Row:
    """``conversations.rename``."""
    return ENGINE.update(ctx, "channel", channel, {"name": name})


def set_text(ctx: CallContext, channel: Row, which: str, text: str) -> Row:
    """``conversations.setTopic`` (``which`` = ``topic``) or ``setPurpose`` (``purpose``)."""
    now = str(ctx.clock.timestamp())
    trusted = {f"{which}_creator": ctx.identity.user_sys_id, f"{which}_last_set": now}
    return ENGINE.update(ctx, "channel", channel, {f"{which}_value": text}, trusted=trusted)


def invite(ctx: CallContext, channel: Row, users: Iterable[str]) -> list[Row]:
    """``conversations.invite``: every named member joins, or nobody does (the first refusal)."""
    me = ctx.identity.user_sys_id
    added = []
    for ref in users:
        user = find_user(ctx, ref)
        if user["id"] == me:
            raise refused("cant_invite_self")
        added.append(ENGINE.create(ctx, "channel_member", {"channel": channel["id"], "user": user["id"]}))
    return added


def join(ctx: CallContext, channel: Row) -> bool:
    """``conversations.join``: the caller joins a public channel; False when already in it."""
    if channel["is_private"] == TRUE:
        raise refused("method_not_supported_for_channel_type")
    if is_member(ctx, channel["id"], ctx.identity.user_sys_id):
        return False
    ENGINE.create(ctx, "channel_member", {"channel": channel["id"], "user": ctx.identity.user_sys_id})
    return True


def kick(ctx: CallContext, channel: Row, user_ref: str) -> None:
    """``conversations.kick``: remove someone else from a conversation the caller is in."""
    user = find_user(ctx, user_ref)
    if user["id"] == ctx.identity.user_sys_id:
        raise refused("cant_kick_self")
    row = _membership(ctx, channel["id"], user["id"])
    if row is None:
        raise refused("not_in_channel", f"{user['name']} is not in the channel")
    ENGINE.delete(ctx, "channel_member", row)


def leave(ctx: CallContext, channel: Row) -> None:
    """``conversations.leave``: the caller leaves."""
    row = _membership(ctx, channel["id"], ctx.identity.user_sys_id)
    if row is None:
        raise refused("not_in_channel")
    if channel["is_archived"] == TRUE:
        raise refused("is_archived")
    ENGINE.delete(ctx, "channel_member", row)


def open_direct(ctx: CallContext, user_ref: str) -> tuple[Row, bool]:
    """``conversations.open`` with one person: the caller's direct conversation with them.

    Returns:
        The conversation and whether it was already open.
    """
    user = find_user(ctx, user_ref)
    if user["deleted"] == TRUE:
        raise refused("user_disabled")
    me = ctx.identity.user_sys_id
    found = ctx.store.select(
        "channel",
        """is_im = 'true' AND ((creator = ? AND "user" = ?) OR (creator = ? AND "user" = ?))""",
        (me, user["id"], user["id"], me),
        limit=1,
    )
    if found:
        return found[0], True
    values: dict[str, Any] = {}
    trusted = {
        "name": "", "name_normalized": "", "is_channel": FALSE, "is_group": FALSE, "is_im": TRUE,
        "is_mpim": FALSE, "is_private": TRUE, "is_archived": FALSE, "is_general": FALSE,
        "is_shared": FALSE, "is_ext_shared": FALSE, "is_org_shared": FALSE, "creator": me,
        "user": user["id"], "topic_last_set": "0", "purpose_last_set": "0",
    }  # fmt: skip
    # The access check is the caller creating a conversation; both people are its members.
    channel = ENGINE.create(ctx, "channel", values, trusted=trusted, key_kind=DM_KEY_KIND)
    for member in dict.fromkeys((me, user["id"])):
        ENGINE.system_insert(ctx, "channel_member", {"channel": channel["id"], "user": member})
    return channel, False


_TYPES = {
    "public_channel": "(is_channel = 'true' AND is_private != 'true')",
    "private_channel": "(is_channel = 'true' AND is_private = 'true')",
    "im": "is_im = 'true'",
    "mpim": "is_mpim = 'true'",
}


def type_condition(types: str | None) -> str:
    """The SQL condition of ``types`` (comma-separated; default ``public_channel``).

    Raises:
        SlackError: ``invalid_types`` for a type Slack does not know.
    """
    names = [name.strip() for name in (types or "public_channel").split(",") if name.strip()]
    unknown = [name for name in names if name not in _TYPES]
    if unknown or not names:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "invalid_types", f"unknown types: {', '.join(unknown)}")
    return "(" + " OR ".join(_TYPES[name] for name in names) + ")"


def list_channels(
    ctx: CallContext,
    *,
    types: str | None = None,
    exclude_archived: bool = False,
    member: str = "",
    name_contains: str = "",
    cursor: str | None = None,
    limit: int | None = None,
) -> Page:
    """``conversations.list`` (``users.conversations`` with ``member``): conversations the caller sees."""
    conditions, params = [type_condition(types)], []
    if exclude_archived:
        conditions.append("is_archived != 'true'")
    if member:
        conditions.append('id IN (SELECT channel FROM channel_member WHERE "user" = ?)')
        params.append(member)
    if name_contains:
        conditions.append("instr(name, ?) > 0")
        params.append(name_contains.lower().lstrip("#"))
    offset, size = decode_cursor(cursor), page_limit(limit)
    rows, total = ENGINE.query(
        ctx,
        "channel",
        " AND ".join(conditions),
        tuple(params),
        order_by="created, id",
        limit=size,
        offset=offset,
    )
    return Page(rows, offset, total)


def list_members(
    ctx: CallContext, channel: Row, *, cursor: str | None = None, limit: int | None = None
) -> Page:
    """``conversations.members``: the member rows of a conversation, a page at a time."""
    offset, size = decode_cursor(cursor), page_limit(limit)
    rows, total = ENGINE.query(
        ctx, "channel_member", "channel = ?", (channel["id"],), order_by="id", limit=size, offset=offset
    )
    return Page(rows, offset, total)
