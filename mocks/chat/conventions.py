"""The chat system's conventions, as the generic layers ask for them (Slack's shapes).

Facts from Slack's Web API description and the SDK's samples (``spec/``):

- **Ids** are upper-case: a type letter, then letters and digits (``C013T0FTKU3`` in the
  description's examples): ``U`` users, ``C`` channels (public and private alike, as Slack makes
  them today), ``D`` direct messages, ``S`` user groups, ``T`` the workspace, ``B`` bots. The mock
  writes 11 characters with a ``0`` second, as Slack's current ids have it, so no upper-case
  English word (``SUSPENDED``) ever looks like one.
- **Times** are UNIX seconds (``created``, ``updated``, ``date_create``); a message is named by
  its channel and ``ts``, ``"<seconds>.<6 digits>"``, unique in its channel.
- **Errors** are ``{"ok": false, "error": "<code>"}`` (``errors.py``).
- No record numbers: Slack names objects by id, name or handle.

Slack gives no object to a channel membership, a reaction or a user-group membership; the
record engine keys every row, so those rows (and messages, which Slack names by channel and
``ts``) get mock-internal keys of the same shape (:data:`INTERNAL_ID_PREFIXES`), never shown.
"""

from __future__ import annotations

import random
import string

from enterprise_envs.mocks._core.conventions import AuditHints, Conventions, Vocabulary
from enterprise_envs.mocks._core.people import Person
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks.chat.audit_writes import CHAT_WRITER

#: What follows an id's type letter and its ``0``.
_ALPHABET = string.digits + string.ascii_uppercase
#: The type letter of each table's Slack ids.
ID_PREFIXES = {"user": "U", "channel": "C", "usergroup": "S"}
#: The type letter of a direct-message conversation (a ``channel`` row with ``is_im``).
DM_PREFIX = "D"
#: The workspace's and the bot's letters.
TEAM_PREFIX, BOT_PREFIX = "T", "B"
#: Mock-internal key letters for the rows Slack gives no id of their own.
INTERNAL_ID_PREFIXES = {"channel_member": "K", "message": "M", "reaction": "R", "usergroup_member": "N"}
#: Any id the mock makes: a type letter, ``0``, nine letters or digits.
ID_PATTERN = r"[A-Z]0[0-9A-Z]{9}"
#: A message timestamp: UNIX seconds, a dot, six digits.
TS_PATTERN = r"\d{10}\.\d{6}"


def slack_id(rng: random.Random, prefix: str) -> str:
    """A new Slack-shaped id: the type letter, ``0`` and nine upper-case letters or digits."""
    if len(prefix) != 1:
        raise ValueError(f"a Slack id prefix is one letter, not {prefix!r}")
    return prefix + "0" + "".join(rng.choice(_ALPHABET) for _ in range(9))


#: The key kind a direct conversation's row is made with (``RecordEngine.create(key_kind=...)``).
DM_KEY_KIND = "channel.im"


def new_id(rng: random.Random, table: str = "") -> str:
    """The record engine's key maker: a new key in the shape of ``table``'s rows (no table: a user's).

    ``table`` may also be :data:`DM_KEY_KIND`: a direct conversation's ``D...`` id.

    Raises:
        ValueError: The chat catalog has no such table.
    """
    if table == DM_KEY_KIND:
        return slack_id(rng, DM_PREFIX)
    prefix = ID_PREFIXES.get(table or "user") or INTERNAL_ID_PREFIXES.get(table)
    if prefix is None:
        raise ValueError(f"no id prefix for table {table!r}")
    return slack_id(rng, prefix)


def ts_text(seconds: int, micros: int = 0) -> str:
    """A message ``ts`` from UNIX seconds and a microsecond part (``1772442000.000100``)."""
    return f"{seconds:010d}.{micros:06d}"


def bot_id_of(user_id: str) -> str:
    """The ``bot_id`` of a bot user's messages: the user's id with the bot letter (one per bot)."""
    return BOT_PREFIX + user_id[1:]


def handle_of(login: str) -> str:
    """A person's Slack handle (``name``) from their World login: Slack's handles are lower case."""
    return login.lower()


#: Words a caller would not use: the Web API's (a simulated user saying one coaches the agent).
_API_TERMS = (
    "chat.postMessage",
    "conversations.",
    "usergroups.",
    "users.lookupByEmail",
    "thread_ts",
    "next_cursor",
    "response_metadata",
    "is_archived",
    "is_private",
    "channel_not_found",
    "not_in_channel",
    "already_in_channel",
    "cant_invite_self",
    "ratelimited",
    "/api/",
)

CHAT_CONVENTIONS = Conventions(
    id_pattern=ID_PATTERN,
    new_id=new_id,
    vocabulary=Vocabulary(
        record="message",
        terms=_API_TERMS,
        nouns={
            "user": "chat account",
            "channel": "channel",
            "channel_member": "channel",
            "message": "message",
            "reaction": "reaction",
            "usergroup": "team handle",
            "usergroup_member": "team handle",
        },
    ),
    audit=AuditHints(
        # Slack has no generic record API: its methods are per object, and the audit writes
        # through them instead (chat.update for a message's text, conversations.archive...).
        record_api=None,
        writer=CHAT_WRITER,
        login_fields=("name", "email"),
        lifecycle_fields=("deleted",),
        # A member's rights are the account's is_admin/is_owner flags, not a list of roles, and no
        # method the bot may call sets them: there is no role for a privilege probe to grant.
        roles_field="",
        privileged_role="",
    ),
)

#: Handles of the accounts that are not people (the IT bot the agent is, the workspace owner).
BOT_HANDLE = "it-bot"
OWNER_HANDLE = "slack-admin"


def chat_directory(store: Store) -> tuple[Person, ...]:
    """The workspace's people: every active member who is not a bot or the workspace owner.

    A person's login is their handle; the chat workspace knows no manager or department (a
    World takes people from its first system that does).
    """
    rows = store.conn.execute(
        """
        SELECT name, first_name, last_name, email, title FROM user
        WHERE deleted != 'true' AND is_bot != 'true' AND name != ?
        ORDER BY name
        """,
        (OWNER_HANDLE,),
    ).fetchall()
    return tuple(Person(name, first, last, email, title=title) for name, first, last, email, title in rows)
