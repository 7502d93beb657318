"""Slack's JSON objects of the chat rows, as the Web API returns them.

Shapes follow the derived description's objects (``objs_user``, ``objs_conversation``,
``objs_message``, ``objs_subteam``) and the SDK's samples (``spec/observed/``):

- a **user** nests its ``profile`` (names, e-mail, title, phone, status; a bot's ``bot_id``);
  flags are JSON booleans and ``updated``/``tz_offset`` numbers;
- a **conversation** is a channel object (``topic`` and ``purpose`` as ``{value, creator,
  last_set}``, ``is_member`` for the caller, ``num_members`` when counted) or a direct
  conversation's short object (``user`` is the other person, ``is_user_deleted``, ``priority``),
  the two shapes Slack's ``conversations.*`` methods answer;
- a **message** carries ``type``, ``user``, ``text``, ``ts`` and, only when set, ``bot_id``,
  ``thread_ts``, a reply's ``parent_user_id``, a thread parent's counts (``reply_count``,
  ``reply_users_count``, ``latest_reply``, ``reply_users``, ``subscribed``),
  ``edited: {user, ts}``, ``subtype``, ``username`` and its ``reactions``
  (``[{name, users, count}]``);
- a **user group** (``subteam``) with ``users`` when asked for and its ``user_count``.

Rows hold every value as text; here they become the JSON types the description gives. Nothing
here reads the store: what depends on who asks (membership, counts, reactions) is passed in.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.conventions import bot_id_of

__all__ = ["conversation", "message", "profile", "usergroup", "user"]

#: The locale Slack reports with ``include_locale`` (the workspace's one language).
LOCALE = "en-US"


def _flag(value: str) -> bool:
    return value == "true"


def _number(value: str) -> int:
    """A whole number stored as text ("" and unparsable text read as 0, Slack's "never")."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _avatar_hash(user_id: str) -> str:
    """The profile's ``avatar_hash``: stable per member, shaped as Slack's (``g`` and 11 hex digits)."""
    return "g" + hashlib.sha1(user_id.encode("ascii")).hexdigest()[:11]


def profile(row: Row) -> dict[str, Any]:
    """A member's ``profile`` object (``users.profile.get``, and nested in a user)."""
    body: dict[str, Any] = {
        "title": row["title"],
        "phone": row["phone"],
        "skype": "",
        "real_name": row["real_name"],
        "real_name_normalized": row["real_name_normalized"],
        "display_name": row["display_name"],
        "display_name_normalized": row["display_name_normalized"],
        "fields": {},
        "status_text": row["status_text"],
        "status_emoji": row["status_emoji"],
        "status_expiration": _number(row["status_expiration"]),
        "avatar_hash": _avatar_hash(row["id"]),
        "first_name": row["first_name"],
        "last_name": row["last_name"],
        "team": row["team_id"],
    }
    # Slack leaves out what a member never set (a bot has no e-mail address, few set pronouns).
    if row["email"]:
        body["email"] = row["email"]
    if row["pronouns"]:
        body["pronouns"] = row["pronouns"]
    if _flag(row["is_bot"]):
        body["bot_id"] = bot_id_of(row["id"])
        body["always_active"] = False
    return body


def user(row: Row, *, include_locale: bool = False) -> dict[str, Any]:
    """A user object (``users.info``, ``users.list``, ``users.lookupByEmail``)."""
    body: dict[str, Any] = {
        "id": row["id"],
        "team_id": row["team_id"],
        "name": row["name"],
        "deleted": _flag(row["deleted"]),
        "color": row["color"],
        "real_name": row["real_name"],
        "tz": row["tz"] or None,
        "tz_label": row["tz_label"],
        "tz_offset": _number(row["tz_offset"]),
        "profile": profile(row),
        "is_admin": _flag(row["is_admin"]),
        "is_owner": _flag(row["is_owner"]),
        "is_primary_owner": _flag(row["is_primary_owner"]),
        "is_restricted": _flag(row["is_restricted"]),
        "is_ultra_restricted": _flag(row["is_ultra_restricted"]),
        "is_bot": _flag(row["is_bot"]),
        "is_app_user": _flag(row["is_app_user"]),
        "updated": _number(row["updated"]),
    }
    if include_locale:
        body["locale"] = LOCALE
    return body


def _topic(row: Row, which: str) -> dict[str, Any]:
    return {
        "value": row[f"{which}_value"],
        "creator": row[f"{which}_creator"],
        "last_set": _number(row[f"{which}_last_set"]),
    }


def conversation(
    row: Row,
    *,
    viewer: str,
    team_id: str,
    is_member: bool | None = None,
    num_members: int | None = None,
    user_deleted: bool = False,
) -> dict[str, Any]:
    """A conversation object as the caller ``viewer`` sees it.

    Args:
        row: The ``channel`` row.
        viewer: The caller's user id (a direct conversation's ``user`` is the other person).
        team_id: The workspace's id (a channel's ``shared_team_ids``).
        is_member: Whether the caller is in the channel (left out when None).
        num_members: The channel's member count (left out when None).
        user_deleted: For a direct conversation: whether the other person is deactivated.
    """
    if _flag(row["is_im"]):
        other = row["creator"] if row["user"] == viewer else row["user"]
        return {
            "id": row["id"],
            "created": _number(row["created"]),
            "is_archived": _flag(row["is_archived"]),
            "is_im": True,
            "is_org_shared": _flag(row["is_org_shared"]),
            "user": other,
            "is_user_deleted": user_deleted,
            "priority": 0,
        }
    body: dict[str, Any] = {
        "id": row["id"],
        "name": row["name"],
        "is_channel": _flag(row["is_channel"]),
        "is_group": _flag(row["is_group"]),
        "is_im": False,
        "is_mpim": _flag(row["is_mpim"]),
        "is_private": _flag(row["is_private"]),
        "created": _number(row["created"]),
        "is_archived": _flag(row["is_archived"]),
        "is_general": _flag(row["is_general"]),
        "unlinked": 0,
        "name_normalized": row["name_normalized"],
        "is_shared": _flag(row["is_shared"]),
        "is_org_shared": _flag(row["is_org_shared"]),
        "is_ext_shared": _flag(row["is_ext_shared"]),
        "is_pending_ext_shared": False,
        "pending_shared": [],
        "pending_connected_team_ids": [],
        "shared_team_ids": [team_id],
        "creator": row["creator"],
        "topic": _topic(row, "topic"),
        "purpose": _topic(row, "purpose"),
        "previous_names": [],
    }
    if is_member is not None:
        body["is_member"] = is_member
    if num_members is not None:
        body["num_members"] = num_members
    return body


def message(
    row: Row,
    *,
    reactions: Sequence[Mapping[str, Any]] = (),
    team_id: str = "",
    parent_user_id: str = "",
    reply_users: Sequence[str] = (),
    subscribed: bool | None = None,
) -> dict[str, Any]:
    """A message object (``conversations.history``, ``.replies``, ``chat.postMessage``, ...).

    Args:
        row: The ``message`` row.
        reactions: Its reactions as :func:`~.services.messages.reactions_of` groups them.
        team_id: The workspace's id (the message's ``team``; left out when "").
        parent_user_id: For a thread reply: the author of the thread's parent.
        reply_users: For a thread's parent: who replied, in the order they first did.
        subscribed: For a thread's parent: whether the caller follows the thread.
    """
    body: dict[str, Any] = {"type": row["type"] or "message"}
    if row["subtype"]:
        body["subtype"] = row["subtype"]
    body["user"] = row["user"]
    if row["bot_id"]:
        body["bot_id"] = row["bot_id"]
    if row["username"]:
        body["username"] = row["username"]
    body["text"] = row["text"]
    body["ts"] = row["ts"]
    if team_id:
        body["team"] = team_id
    if row["client_msg_id"]:
        body["client_msg_id"] = row["client_msg_id"]
    if row["thread_ts"]:
        body["thread_ts"] = row["thread_ts"]
    if parent_user_id:
        body["parent_user_id"] = parent_user_id
    # A thread's parent counts its replies; a message that never had one carries no counts.
    replies = _number(row["reply_count"])
    if replies:
        body["reply_count"] = replies
        body["reply_users_count"] = _number(row["reply_users_count"])
        body["latest_reply"] = row["latest_reply"]
        if reply_users:
            body["reply_users"] = list(reply_users)
        if subscribed is not None:
            body["subscribed"] = subscribed
    if row["edited_ts"]:
        body["edited"] = {"user": row["edited_user"], "ts": row["edited_ts"]}
    if reactions:
        body["reactions"] = [dict(reaction) for reaction in reactions]
    return body


def usergroup(
    row: Row, *, users: Sequence[str] | None = None, user_count: int | None = None
) -> dict[str, Any]:
    """A user group (``subteam``) object.

    Args:
        row: The ``usergroup`` row.
        users: Its members' ids, when the caller asked for them (left out when None).
        user_count: Its member count (default: the row's ``user_count``).
    """
    body: dict[str, Any] = {
        "id": row["id"],
        "team_id": row["team_id"],
        "is_usergroup": True,
        "is_subteam": True,
        "name": row["name"],
        "description": row["description"],
        "handle": row["handle"],
        "is_external": _flag(row["is_external"]),
        "date_create": _number(row["date_create"]),
        "date_update": _number(row["date_update"]),
        "date_delete": _number(row["date_delete"]),
        "auto_type": row["auto_type"] or None,
        "auto_provision": False,
        "enterprise_subteam_id": "",
        "created_by": row["created_by"],
        "updated_by": row["updated_by"],
        "deleted_by": row["deleted_by"] or None,
        # Default channels are not modelled: a group names none.
        "prefs": {"channels": [], "groups": []},
    }
    if users is not None:
        body["users"] = list(users)
    body["user_count"] = _number(row["user_count"]) if user_count is None else user_count
    return body
