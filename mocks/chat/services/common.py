"""What the chat services share: naming things the way Slack does, paging, ``ts`` and the bot.

Slack names a conversation by id (``C...``, ``D...``; a public channel's name with or without
``#`` is accepted where the Web API takes one, as ``chat.postMessage`` does), a member by id
(the task-level tools also take a handle, ``@handle`` or an e-mail address), a user group by id
(or ``@handle``). Every lookup reads through the access policy
(:meth:`CallContext.authorize <enterprise_envs.mocks._core.backend.CallContext.authorize>`): a
conversation the caller may not read is ``channel_not_found``, as if it did not exist.

Lists page with an opaque ``cursor`` (``response_metadata.next_cursor``, ``""`` on the last
page): the mock's cursor is the offset, base64-encoded with a prefix as Slack's look
(``dXNlcjpVMDYxTkZUVDI=`` shapes), refused with ``invalid_cursor`` when it was not handed out.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, ID_PATTERN, TS_PATTERN, ts_text
from enterprise_envs.mocks.chat.errors import SlackError, invalid_arguments, not_found, slack_error

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "Page",
    "bot_user",
    "decode_cursor",
    "encode_cursor",
    "find_channel",
    "find_message",
    "find_user",
    "find_usergroup",
    "is_member",
    "new_ts",
    "page_limit",
]

_IS_ID = re.compile(ID_PATTERN).fullmatch
_IS_TS = re.compile(TS_PATTERN).fullmatch
#: Slack's default and largest page (``limit``): 100 by default, at most 1000.
DEFAULT_LIMIT, MAX_LIMIT = 100, 1000
_CURSOR_PREFIX = "next:"


def _visible(ctx: CallContext, table: str, row: Row | None, code: str, what: str) -> Row:
    if row is None:
        raise not_found(code, what)
    ctx.authorize(Operation.READ, table, row)
    return row


def find_channel(ctx: CallContext, ref: str) -> Row:
    """A conversation by id, or a channel by name (``general`` or ``#general``).

    Raises:
        SlackError: ``channel_not_found`` when nothing the caller may read is named so.
    """
    ref = ref.strip()
    row = ctx.store.get("channel", ref) if _IS_ID(ref) else None
    if row is None and ref:
        name = ref[1:] if ref.startswith("#") else ref
        row = ctx.store.find_one("channel", "name", name.lower()) if name else None
    return _visible(ctx, "channel", row, "channel_not_found", ref)


def find_user(ctx: CallContext, ref: str, *, code: str = "user_not_found") -> Row:
    """A member by id, handle (``@handle`` too) or e-mail address.

    Raises:
        SlackError: ``code`` (``user_not_found``) when nobody is named so.
    """
    ref = ref.strip()
    row = ctx.store.get("user", ref) if _IS_ID(ref) else None
    if row is None and ref:
        if "@" in ref[1:]:
            # E-mail addresses are compared without case, as people type them any way.
            found = ctx.store.select("user", "email = ? COLLATE NOCASE", (ref,), limit=1)
            row = found[0] if found else None
        else:
            row = ctx.store.find_one("user", "name", (ref[1:] if ref.startswith("@") else ref).lower())
    return _visible(ctx, "user", row, code, ref)


def find_usergroup(ctx: CallContext, ref: str) -> Row:
    """A user group by id, handle (``@oncall-network`` too) or name.

    Raises:
        SlackError: ``no_such_subteam`` when no group is named so.
    """
    ref = ref.strip()
    row = ctx.store.get("usergroup", ref) if _IS_ID(ref) else None
    if row is None and ref:
        handle = ref[1:] if ref.startswith("@") else ref
        row = ctx.store.find_one("usergroup", "handle", handle.lower())
        if row is None:
            # A group's name is what people say ("network on-call"): compared without case.
            found = ctx.store.select("usergroup", "name = ? COLLATE NOCASE", (ref,), limit=1)
            row = found[0] if found else None
    return _visible(ctx, "usergroup", row, "no_such_subteam", ref)


def find_message(ctx: CallContext, channel: Row, ts: str, *, code: str = "message_not_found") -> Row:
    """The message of a conversation with this ``ts``.

    Raises:
        SlackError: ``bad_timestamp`` style ``invalid_arguments`` for a malformed ``ts``;
            ``code`` when the conversation has no such message.
    """
    ts = ts.strip()
    if not _IS_TS(ts):
        raise invalid_arguments(f"invalid ts: '{ts}' is not a message timestamp like 1772442000.000100")
    found = ctx.store.select("message", "channel = ? AND ts = ?", (channel["id"], ts), limit=1)
    return _visible(ctx, "message", found[0] if found else None, code, ts)


def is_member(ctx: CallContext, channel_id: str, user_id: str) -> bool:
    """Whether a member is in a conversation."""
    found = ctx.store.conn.execute(
        'SELECT 1 FROM channel_member WHERE channel = ? AND "user" = ? LIMIT 1', (channel_id, user_id)
    ).fetchone()
    return found is not None


def bot_user(ctx: CallContext) -> Row:
    """The IT bot's user row (the workspace's bot; its ``team_id`` is the workspace's)."""
    row = ctx.store.find_one("user", "name", BOT_HANDLE)
    if row is None:
        raise slack_error(ErrorKind.INTERNAL, "internal_error", "the workspace has no IT bot")
    return row


def new_ts(ctx: CallContext, channel_id: str) -> str:
    """A new message ``ts`` in a conversation: now, unique in it and after every earlier one."""
    now = ctx.clock.timestamp()
    latest = ctx.store.conn.execute(
        "SELECT MAX(ts) FROM message WHERE channel = ?", (channel_id,)
    ).fetchone()[0]
    seconds, micros = now, 0
    if latest:
        last_seconds, _, last_micros = latest.partition(".")
        if int(last_seconds) >= now:
            seconds, micros = int(last_seconds), int(last_micros) + 1
            if micros >= 1_000_000:
                seconds, micros = seconds + 1, 0
    return ts_text(seconds, micros)


# -- paging ------------------------------------------------------------------------------------


def encode_cursor(offset: int) -> str:
    """The ``next_cursor`` of the page starting at ``offset``."""
    return base64.b64encode(f"{_CURSOR_PREFIX}{offset}".encode("ascii")).decode("ascii")


def decode_cursor(cursor: str | None) -> int:
    """The offset a cursor this mock handed out names (0 for none).

    Raises:
        SlackError: ``invalid_cursor`` for anything else.
    """
    if not cursor:
        return 0
    try:
        text = base64.b64decode(cursor.encode("ascii"), validate=True).decode("ascii")
    except (binascii.Error, UnicodeError, ValueError):
        text = ""
    if not text.startswith(_CURSOR_PREFIX) or not text[len(_CURSOR_PREFIX) :].isdigit():
        raise slack_error(
            ErrorKind.INVALID_ARGUMENT, "invalid_cursor", f"cursor '{cursor[:40]}' was not handed out"
        )
    return int(text[len(_CURSOR_PREFIX) :])


def page_limit(limit: int | None) -> int:
    """The page size asked for, within Slack's bounds (``invalid_limit`` outside 1..1000)."""
    if limit is None or limit == 0:
        return DEFAULT_LIMIT
    if limit < 1 or limit > MAX_LIMIT:
        raise slack_error(
            ErrorKind.INVALID_ARGUMENT, "invalid_limit", f"limit {limit} is not within 1..{MAX_LIMIT}"
        )
    return limit


class Page:
    """One page of a list and the cursor of the next (``""`` when it is the last)."""

    __slots__ = ("next_cursor", "rows")

    def __init__(self, rows: list[Row], offset: int, total: int) -> None:
        self.rows = rows
        following = offset + len(rows)
        self.next_cursor = encode_cursor(following) if rows and following < total else ""

    def metadata(self) -> dict[str, str]:
        """``response_metadata`` as Slack sends it."""
        return {"next_cursor": self.next_cursor}


def refuse_unless(condition: bool, error: SlackError) -> None:
    """Raise ``error`` when ``condition`` does not hold."""
    if not condition:
        raise error
