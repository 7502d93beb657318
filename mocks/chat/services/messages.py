"""Messages and reactions: posting, threads, edits, deletes and emoji reactions.

Rules (Slack's Web API reference for ``chat.*`` and ``reactions.*``), held once on their tables:

- **Posting** (:class:`MessageRules`): text is required (``no_text``) and at most 40,000
  characters (``msg_too_long``); an archived conversation takes no message (``is_archived``); a
  reply's ``thread_ts`` names a message of the same conversation that is not itself a reply
  (``thread_not_found``); a reply counts on its parent (``reply_count``, ``reply_users_count``,
  ``latest_reply``), and the parent's ``thread_ts`` becomes its own ``ts``. Only the author edits
  (``cant_update_message``) or deletes (``cant_delete_message``) a message (the access policy);
  an edit stamps ``edited_ts``/``edited_user``.
- **Authorship**: a message is the caller's. The IT bot's token has no ``chat:write.customize``
  scope, so ``username``, ``icon_emoji`` and ``icon_url`` (posting under another name) are
  ``missing_scope``; ``as_user`` is not for bot tokens (``invalid_arguments``).
- **Reactions** (:class:`ReactionRules`): an emoji name of letters, digits, ``_``, ``+`` and
  ``-`` (``invalid_name``), once per person and message (``already_reacted``); removing one that
  is not there is ``no_reaction``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.records import TableRules
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.conventions import bot_id_of
from enterprise_envs.mocks.chat.errors import conflict, invalid_arguments, refused, slack_error
from enterprise_envs.mocks.chat.records import ENGINE
from enterprise_envs.mocks.chat.services.common import (
    Page,
    bot_user,
    decode_cursor,
    find_message,
    new_ts,
    page_limit,
)

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "MessageRules",
    "ReactionRules",
    "add_reaction",
    "delete_message",
    "history",
    "permalink",
    "post_message",
    "reactions_of",
    "remove_reaction",
    "replies",
    "update_message",
]

MAX_TEXT = 40_000
_EMOJI = re.compile(r"[a-z0-9_+\-']{1,100}").fullmatch
#: Posting parameters that would show the message under another name.
IMPERSONATION_PARAMETERS = ("username", "icon_emoji", "icon_url")


def _check_text(text: str) -> None:
    if not text.strip():
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "no_text", "a message needs text")
    if len(text) > MAX_TEXT:
        raise slack_error(ErrorKind.INVALID_ARGUMENT, "msg_too_long", f"at most {MAX_TEXT} characters")


class MessageRules(TableRules):
    """Rules on ``message`` rows: text, archived conversations, threads and their counts."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """Text, a live conversation, and a parent in the same conversation for a reply."""
        _check_text(new["text"])
        channel = ctx.store.get("channel", new["channel"]) or {}
        if channel.get("is_archived") == "true":
            raise refused("is_archived")
        parent_ts = new["thread_ts"]
        if parent_ts:
            found = ctx.store.select(
                "message", "channel = ? AND ts = ?", (new["channel"], parent_ts), limit=1
            )
            if not found or (found[0]["thread_ts"] and found[0]["thread_ts"] != found[0]["ts"]):
                raise slack_error(
                    ErrorKind.NOT_FOUND, "thread_not_found", f"no message {parent_ts} to reply to"
                )

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """An edit keeps valid text and is stamped; an archived conversation takes none."""
        if new["text"] != old["text"]:
            _check_text(new["text"])
            channel = ctx.store.get("channel", old["channel"]) or {}
            if channel.get("is_archived") == "true":
                raise refused("is_archived")
            new["edited_ts"] = new_ts(ctx, old["channel"])
            new["edited_user"] = ctx.identity.user_sys_id

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Keep a thread's parent counting its replies."""
        row = new if new is not None else old
        if row is None or not row["thread_ts"] or row["thread_ts"] == row["ts"]:
            return
        found = ctx.store.select(
            "message", "channel = ? AND ts = ?", (row["channel"], row["thread_ts"]), limit=1
        )
        if found:
            _recount(ctx, found[0])


def _recount(ctx: CallContext, parent: Row) -> None:
    count, users, latest = ctx.store.conn.execute(
        """SELECT COUNT(*), COUNT(DISTINCT "user"), MAX(ts) FROM message
           WHERE channel = ? AND thread_ts = ? AND ts != thread_ts""",
        (parent["channel"], parent["ts"]),
    ).fetchone()
    changes = (
        {
            "thread_ts": parent["ts"],
            "reply_count": str(count),
            "reply_users_count": str(users),
            "latest_reply": latest,
        }
        if count
        else {"reply_count": "0", "reply_users_count": "0", "latest_reply": ""}
    )
    ENGINE.system_update(ctx, "message", parent, changes)


class ReactionRules(TableRules):
    """Rules on ``reaction`` rows: a valid emoji name, once per person and message."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """Refuse a malformed name or a reaction the person already left."""
        if not _EMOJI(new["name"]):
            raise slack_error(
                ErrorKind.INVALID_ARGUMENT, "invalid_name", f"'{new['name']}' is not an emoji name"
            )
        taken = ctx.store.select(
            "reaction",
            'message = ? AND name = ? AND "user" = ?',
            (new["message"], new["name"], new["user"]),
            limit=1,
        )
        if taken:
            raise conflict("already_reacted")


ENGINE.register("message", MessageRules())
ENGINE.register("reaction", ReactionRules())


# -- operations --------------------------------------------------------------------------------


def post_message(
    ctx: CallContext,
    channel: Row,
    text: str,
    *,
    thread_ts: str = "",
    impersonating: Mapping[str, object] | None = None,
) -> Row:
    """``chat.postMessage``: a message (or a thread reply) by the caller.

    Args:
        ctx: Call context.
        channel: The conversation.
        text: The message.
        thread_ts: The parent's ``ts`` for a reply.
        impersonating: Any of :data:`IMPERSONATION_PARAMETERS` and ``as_user`` the client sent.
    """
    sent = {name: value for name, value in (impersonating or {}).items() if value not in (None, "", False)}
    if "as_user" in sent:
        raise invalid_arguments("as_user is not supported for bot tokens: a bot posts as itself")
    if sent:
        # A refused attempt at a write, logged as one (``error.target``), like the access check's.
        error = slack_error(
            ErrorKind.PERMISSION_DENIED, "missing_scope",
            "posting under another name needs chat:write.customize",
            needed="chat:write.customize", provided="chat:write,channels:read,channels:join,channels:manage,"
            "groups:read,im:write,reactions:write,usergroups:read,usergroups:write,users:read,users:read.email",
        )  # fmt: skip
        error.target = (Operation.CREATE.value, "message", "")
        raise error
    me = ctx.identity.user_sys_id
    bot = bot_user(ctx)
    bot_id = bot_id_of(me) if me == bot["id"] else ""
    trusted = {"ts": new_ts(ctx, channel["id"]), "type": "message", "bot_id": bot_id}
    # The conversation and author go with the values: the access check reads them (a trusted
    # value is not shown to it, and without them every post was refused as restricted_action).
    values = {"channel": channel["id"], "user": me, "text": text, "thread_ts": thread_ts.strip()}
    return ENGINE.create(ctx, "message", values, trusted=trusted)


def update_message(ctx: CallContext, channel: Row, ts: str, text: str) -> Row:
    """``chat.update``: the author changes a message's text."""
    message = find_message(ctx, channel, ts)
    return ENGINE.update(ctx, "message", message, {"text": text})


def delete_message(ctx: CallContext, channel: Row, ts: str) -> Row:
    """``chat.delete``: the author deletes a message (its reactions go with it)."""
    message = find_message(ctx, channel, ts)
    ENGINE.delete(ctx, "message", message)
    for reaction in ctx.store.select("reaction", "message = ?", (message["id"],)):
        ctx.store.delete("reaction", reaction["id"])
    return message


def permalink(ctx: CallContext, channel: Row, ts: str) -> str:
    """``chat.getPermalink``: the message's link in the workspace."""
    message = find_message(ctx, channel, ts)
    base = str(ctx.settings.get("workspace_url", "https://example.slack.com"))
    return f"{base}/archives/{channel['id']}/p{message['ts'].replace('.', '')}"


def add_reaction(ctx: CallContext, channel: Row, ts: str, name: str) -> Row:
    """``reactions.add``: the caller reacts to a message."""
    message = find_message(ctx, channel, ts)
    values = {"message": message["id"], "name": name.strip(":"), "user": ctx.identity.user_sys_id}
    return ENGINE.create(ctx, "reaction", values)


def remove_reaction(ctx: CallContext, channel: Row, ts: str, name: str) -> None:
    """``reactions.remove``: the caller takes back a reaction."""
    message = find_message(ctx, channel, ts)
    found = ctx.store.select(
        "reaction", 'message = ? AND name = ? AND "user" = ?',
        (message["id"], name.strip(":"), ctx.identity.user_sys_id),
        limit=1,
    )  # fmt: skip
    if not found:
        raise refused("no_reaction")
    ENGINE.delete(ctx, "reaction", found[0])


def reactions_of(ctx: CallContext, message: Row) -> list[dict[str, object]]:
    """A message's reactions as Slack nests them: ``[{name, users, count}]``, by first reaction."""
    grouped: dict[str, list[str]] = {}
    for row in ctx.store.select("reaction", "message = ?", (message["id"],), order_by="id"):
        grouped.setdefault(row["name"], []).append(row["user"])
    return [{"name": name, "users": users, "count": len(users)} for name, users in grouped.items()]


def history(
    ctx: CallContext,
    channel: Row,
    *,
    oldest: str = "",
    latest: str = "",
    inclusive: bool = False,
    cursor: str | None = None,
    limit: int | None = None,
) -> Page:
    """``conversations.history``: a conversation's messages, newest first (replies stay in threads)."""
    conditions, params = ["channel = ?", "(thread_ts = '' OR thread_ts = ts)"], [channel["id"]]
    for name, value, strict, loose in (("oldest", oldest, ">", ">="), ("latest", latest, "<", "<=")):
        if value:
            if not re.fullmatch(r"\d{1,10}(\.\d{1,6})?", value):
                raise slack_error(
                    ErrorKind.INVALID_ARGUMENT, f"invalid_ts_{name}", f"'{value}' is not a timestamp"
                )
            seconds, _, micros = value.partition(".")
            conditions.append(f"ts {loose if inclusive else strict} ?")
            params.append(f"{int(seconds):010d}.{micros.ljust(6, '0')}")
    offset, size = decode_cursor(cursor), page_limit(limit)
    rows, total = ENGINE.query(
        ctx, "message", " AND ".join(conditions), tuple(params), order_by="ts DESC", limit=size, offset=offset
    )
    return Page(rows, offset, total)


def replies(
    ctx: CallContext, channel: Row, ts: str, *, cursor: str | None = None, limit: int | None = None
) -> Page:
    """``conversations.replies``: a thread's parent, then its replies, oldest first."""
    parent = find_message(ctx, channel, ts, code="thread_not_found")
    root = parent["thread_ts"] or parent["ts"]
    offset, size = decode_cursor(cursor), page_limit(limit)
    rows, total = ENGINE.query(
        ctx, "message", "channel = ? AND (ts = ? OR thread_ts = ?)", (channel["id"], root, root),
        order_by="ts", limit=size, offset=offset,
    )  # fmt: skip
    return Page(rows, offset, total)
