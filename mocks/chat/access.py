r"""Who may do what in the chat mock: a Slack workspace's members, as one policy.

- The workspace's owners and admins (``is_owner``, ``is_admin``; scenario setup acts as the
  owner) may do everything.
- Everyone else, the IT bot the agent is included, is a member:

  - reads every user and user group, the public channels, and the private channels and direct
    messages they are in (a conversation they may not read does not exist for them:
    ``channel_not_found``), with the messages, reactions and members of what they may read;
  - posts only as themselves and only where they are a member (``not_in_channel``); edits and
    deletes only their own messages (``cant_update_message``, ``cant_delete_message``) and
    reactions;
  - creates channels; renames, sets the topic or purpose of, archives, invites to and removes
    from the channels they are in (``not_in_channel``); joins public channels and leaves any;
  - creates and edits user groups and their members (Slack's default workspace setting);
  - changes no other person's account (``restricted_action``).

Refusals are Slack's codes in :mod:`.errors`. Whether the caller is in a channel is read from
the workspace the caller belongs to: identities are :class:`WorkspaceIdentity`\ s, built with
their workspace's store, so the policy reads memberships at check time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.store import Row, Store
from enterprise_envs.mocks.chat.errors import not_found, refused

#: Roles a workspace identity may hold (Slack's account types above a member's).
OWNER, ADMIN = "owner", "admin"
#: The code of a conversation, message or user the caller may not see.
_NOT_FOUND_CODES = {"channel": "channel_not_found", "message": "message_not_found", "user": "user_not_found"}
#: Tables whose rows hang off a channel through their ``channel`` field.
_IN_CHANNEL = frozenset({"channel_member", "message"})


@dataclass(frozen=True)
class WorkspaceIdentity(Identity):
    """An identity that knows its workspace, so the policy can read what it is a member of.

    Attributes:
        workspace: The store of the workspace (None: unknown, no member right holds).
    """

    workspace: Store | None = field(default=None, compare=False, hash=False, repr=False)


def is_member(store: Store, channel_id: str, user_id: str) -> bool:
    """Whether a user is in a conversation."""
    found = store.conn.execute(
        'SELECT 1 FROM channel_member WHERE channel = ? AND "user" = ? LIMIT 1', (channel_id, user_id)
    ).fetchone()
    return found is not None


def is_public(channel: Row) -> bool:
    """A public channel: anyone in the workspace may read and join it."""
    return (
        channel.get("is_private") != "true"
        and channel.get("is_im") != "true"
        and channel.get("is_mpim") != "true"
    )


#: SQL: the conversations a user (the one parameter) may read. Parenthesized whole: callers AND it
#: to their own condition, and a bare OR would let every conversation the user is in through.
READABLE_CHANNELS = """((is_private != 'true' AND is_im != 'true' AND is_mpim != 'true')
  OR id IN (SELECT channel FROM channel_member WHERE "user" = ?))"""


class ChatAccessPolicy:
    """The chat access rules (see the module docstring)."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        """Allow, or raise Slack's not-found (may not see) or refusal (may see, may not do)."""
        if identity.superuser or identity.has_role(OWNER, ADMIN):
            return
        workspace = getattr(identity, "workspace", None)
        if workspace is None:
            raise refused("restricted_action", "the caller belongs to no workspace")
        facts = {**(row or {}), **(changes or {})}
        me = identity.user_sys_id
        channel = row if table == "channel" else self._channel_of(workspace, table, facts)
        if channel is not None and not (is_public(channel) or is_member(workspace, channel["id"], me)):
            raise not_found(_NOT_FOUND_CODES.get(table, "channel_not_found"))
        if operation is Operation.READ:
            return
        member = channel is not None and is_member(workspace, channel["id"], me)
        if table == "user":
            if operation is Operation.WRITE and row is not None and row["id"] == me:
                return
            raise refused("restricted_action", "members change only their own account")
        if table == "channel":
            if operation is Operation.CREATE and facts.get("creator", me) == me:
                return
            if operation is Operation.WRITE and member:
                return
            raise refused("not_in_channel" if operation is Operation.WRITE else "restricted_action")
        if table == "channel_member":
            joining_self = facts.get("user") == me and channel is not None and is_public(channel)
            leaving_self = facts.get("user") == me and operation is Operation.DELETE
            if member or joining_self or leaving_self:
                return
            raise refused("not_in_channel")
        if table == "message":
            if facts.get("user") != me:
                code = {Operation.WRITE: "cant_update_message", Operation.DELETE: "cant_delete_message"}
                raise refused(code.get(operation, "restricted_action"), "members post only as themselves")
            if operation is Operation.CREATE and not member:
                raise refused("not_in_channel")
            return
        if table == "reaction":
            if facts.get("user") == me:
                return
            raise refused("restricted_action", "members react only as themselves")
        if table in ("usergroup", "usergroup_member"):
            return
        raise refused("restricted_action")

    @staticmethod
    def _channel_of(store: Store, table: str, facts: Mapping[str, str]) -> Row | None:
        """The conversation a row of a table other than ``channel`` belongs to, if any."""
        if table in _IN_CHANNEL:
            return store.get("channel", facts.get("channel", ""))
        if table == "reaction":
            message = store.get("message", facts.get("message", ""))
            return None if message is None else store.get("channel", message["channel"])
        return None

    def row_filter(self, identity: Identity, table: str) -> tuple[str, tuple[str, ...]] | None:
        """Owners and admins list every row; members the conversations they may read and what is in them."""
        if identity.superuser or identity.has_role(OWNER, ADMIN):
            return None
        me = identity.user_sys_id
        if table == "channel":
            return READABLE_CHANNELS, (me,)
        if table in _IN_CHANNEL:
            return f"channel IN (SELECT id FROM channel WHERE {READABLE_CHANNELS})", (me,)
        if table == "reaction":
            return (
                "message IN (SELECT m.id FROM message m WHERE m.channel IN "
                f"(SELECT id FROM channel WHERE {READABLE_CHANNELS}))",
                (me,),
            )
        return None
