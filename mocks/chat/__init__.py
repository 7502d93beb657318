"""Chat: a Slack-like workspace mocked from Slack's published Web API description.

``CHAT`` (exported as ``SYSTEM``, so the registry discovers it) is the system object: its
catalog (``tables.py``, from Slack's OpenAPI description derived into ``spec/``), seeded world
(``world/``), conventions (Slack's ids, ``ts`` and words), error envelope (``errors.py``), record
engine (``records.py``), service layer (``services/``: conversations, messages, reactions, user
groups), surfaces (``surfaces/``: ``rest``, the Web API's methods, and ``typed``, task-level
tools), the Web API on the wire (``http.py``: ``/api/<method>``, served by ``serve chat
--transport rest``), access policy (``access.py``: a member's rights; the agent is the IT bot),
notifications (``notifications.py``: what a person sees) and identities.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks.chat import services as _services  # noqa: F401  (registers table rules)
from enterprise_envs.mocks.chat.access import ADMIN, OWNER, ChatAccessPolicy, WorkspaceIdentity
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, CHAT_CONVENTIONS, OWNER_HANDLE, chat_directory
from enterprise_envs.mocks.chat.errors import render_error
from enterprise_envs.mocks.chat.notifications import CHAT_NOTIFICATIONS
from enterprise_envs.mocks.chat.tables import chat_catalog

#: The simulated "now" of every chat world at reset (the same as the other systems', so a World
#: of several starts at one time).
CHAT_EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)

#: Instance settings: vendor behaviour that varies by workspace.
CHAT_SETTINGS: dict[str, Any] = {
    # The workspace's URL, for permalinks.
    "workspace_url": "https://example.slack.com",
    # Slack's description the surfaces follow.
    "spec_version": "1.7.0",
}

CATALOG = chat_catalog()
METADATA, MODELS = build_models(CATALOG)

#: The agent's account (the IT bot's handle) and the one scenario setup acts as (the owner).
AGENT_HANDLE = BOT_HANDLE
SETUP_HANDLE = OWNER_HANDLE


def find_user(store: Store, name: str) -> dict[str, str] | None:
    """The member with this handle, e-mail address or id."""
    if "@" in name:
        return store.find_one("user", "email", name)
    return store.find_one("user", "name", name) or store.get("user", name)


def identity_of(store: Store, user: dict[str, str]) -> WorkspaceIdentity:
    """The identity a member acts as: the owner and admins hold every right."""
    roles = [role for role, flag in ((OWNER, "is_owner"), (ADMIN, "is_admin")) if user.get(flag) == "true"]
    return WorkspaceIdentity(user["id"], user["name"], frozenset(roles), bool(roles), workspace=store)


def _user_identity(store: Store, name: str) -> WorkspaceIdentity | None:
    user = find_user(store, name)
    return None if user is None or user["deleted"] == "true" else identity_of(store, user)


def _person_login(store: Store, user_id: str) -> str | None:
    user = store.get("user", user_id)
    return None if user is None else user["name"]


def _agent_identity(store: Store) -> WorkspaceIdentity:
    identity = _user_identity(store, AGENT_HANDLE)
    if identity is None:
        raise RuntimeError("the chat world has no IT bot account")
    return identity


def _build_world(build) -> None:  # noqa: ANN001  (WorldBuild; imported lazily to keep import light)
    from enterprise_envs.mocks.chat.world import build_chat_world

    build_chat_world(build)


def _rest_surface():  # noqa: ANN202
    from enterprise_envs.mocks.chat.surfaces.rest import build_rest_surface

    return build_rest_surface()


def _typed_surface():  # noqa: ANN202
    from enterprise_envs.mocks.chat.surfaces.typed import build_typed_surface

    return build_typed_surface()


def _http_api():  # noqa: ANN202
    from enterprise_envs.mocks.chat.http import build_http_api

    return build_http_api()


CHAT = System(
    name="chat",
    catalog=CATALOG,
    metadata=METADATA,
    build_world=_build_world,
    epoch=CHAT_EPOCH,
    surfaces={"rest": _rest_surface, "typed": _typed_surface},
    render_error=render_error,
    access=ChatAccessPolicy(),
    agent_identity=_agent_identity,
    user_identity=_user_identity,
    person_login=_person_login,
    settings=CHAT_SETTINGS,
    # Slack's mention and channel-link markup and its ids among their rivals.
    hostile_text={
        "mentions": "<@U0ABCDEFGHI> <!channel> <#C0ABCDEFGHI|general> ",
        "channel-ids": "C0ABCDEFGHI,C0IHGFEDCBA,",
    },
    notifications=CHAT_NOTIFICATIONS,
    conventions=CHAT_CONVENTIONS,
    directory=chat_directory,
    setup_user=SETUP_HANDLE,
    http=_http_api,
)

#: The name the registry discovers a system by.
SYSTEM = CHAT

__all__ = [
    "AGENT_HANDLE",
    "CHAT",
    "CHAT_EPOCH",
    "CHAT_SETTINGS",
    "MODELS",
    "SETUP_HANDLE",
    "SYSTEM",
    "find_user",
    "identity_of",
]
