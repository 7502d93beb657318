"""The chat access policy, read directly on a built workspace: what a member may see and do."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.errors import ToolError
from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks.chat import CHAT, identity_of
from enterprise_envs.mocks.chat.access import ChatAccessPolicy
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, OWNER_HANDLE
from enterprise_envs.mocks.chat.errors import render_error

POLICY = ChatAccessPolicy()


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    system = dataclasses.replace(CHAT, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})
    live = Backend(system, size="tiny", world_seed=1, surface="typed")
    yield live
    live.close()


def _who(backend: Backend, handle: str):  # noqa: ANN202
    return identity_of(backend.store, backend.store.find_one("user", "name", handle))


def _code(call) -> str:  # noqa: ANN001
    with pytest.raises(ToolError) as raised:
        call()
    return render_error(raised.value)["error"]


def _channel(backend: Backend, name: str) -> dict[str, str]:
    return backend.store.find_one("channel", "name", name)


def test_a_private_channel_does_not_exist_for_a_non_member(backend: Backend) -> None:
    bot = _who(backend, BOT_HANDLE)
    leadership = _channel(backend, "leadership")
    assert _code(lambda: POLICY.check(bot, Operation.READ, "channel", leadership)) == "channel_not_found"
    message = backend.store.select("message", "channel = ?", (leadership["id"],), limit=1)[0]
    assert _code(lambda: POLICY.check(bot, Operation.READ, "message", message)) == "message_not_found"
    # Listing leaves it out; the IT admins' private channel, which the bot is in, stays.
    where, params = POLICY.row_filter(bot, "channel")
    visible = {row["name"] for row in backend.store.select("channel", where, params)}
    assert "leadership" not in visible and "it-admins" in visible and "general" in visible


def test_posting_needs_membership_and_ones_own_name(backend: Backend) -> None:
    bot = _who(backend, BOT_HANDLE)
    random_channel = _channel(backend, "random")
    status = _channel(backend, "it-status")
    mine = {"channel": status["id"], "user": bot.user_sys_id, "text": "hi"}
    POLICY.check(bot, Operation.CREATE, "message", None, mine)
    elsewhere = {**mine, "channel": random_channel["id"]}
    assert _code(lambda: POLICY.check(bot, Operation.CREATE, "message", None, elsewhere)) == "not_in_channel"
    someone = backend.store.select("user", "is_bot = 'false' AND deleted = 'false'", (), limit=1)[0]
    as_someone = {**mine, "user": someone["id"]}
    assert (
        _code(lambda: POLICY.check(bot, Operation.CREATE, "message", None, as_someone)) == "restricted_action"
    )
    theirs = backend.store.select(
        "message", '"user" != ? AND channel = ?', (bot.user_sys_id, status["id"]), limit=1
    )[0]
    assert (
        _code(lambda: POLICY.check(bot, Operation.WRITE, "message", theirs, {"text": "x"}))
        == "cant_update_message"
    )
    assert _code(lambda: POLICY.check(bot, Operation.DELETE, "message", theirs)) == "cant_delete_message"


def test_joining_public_channels_but_not_private_ones(backend: Backend) -> None:
    bot = _who(backend, BOT_HANDLE)
    join_random = {"channel": _channel(backend, "random")["id"], "user": bot.user_sys_id}
    POLICY.check(bot, Operation.CREATE, "channel_member", None, join_random)
    join_private = {"channel": _channel(backend, "hr-cases")["id"], "user": bot.user_sys_id}
    assert _code(lambda: POLICY.check(bot, Operation.CREATE, "channel_member", None, join_private)) == (
        "channel_not_found"
    )
    someone = backend.store.select("user", "is_bot = 'false' AND deleted = 'false'", (), limit=1)[0]
    invite_random = {"channel": _channel(backend, "random")["id"], "user": someone["id"]}
    assert _code(lambda: POLICY.check(bot, Operation.CREATE, "channel_member", None, invite_random)) == (
        "not_in_channel"
    )


def test_accounts_and_the_owner(backend: Backend) -> None:
    bot = _who(backend, BOT_HANDLE)
    owner = _who(backend, OWNER_HANDLE)
    someone = backend.store.select("user", "is_bot = 'false' AND deleted = 'false'", (), limit=1)[0]
    assert (
        _code(lambda: POLICY.check(bot, Operation.WRITE, "user", someone, {"title": "x"}))
        == "restricted_action"
    )
    POLICY.check(owner, Operation.WRITE, "user", someone, {"title": "x"})
    POLICY.check(owner, Operation.READ, "channel", _channel(backend, "leadership"))
    assert POLICY.row_filter(owner, "message") is None
