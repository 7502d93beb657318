"""The chat ``typed`` surface on a live tiny workspace: every tool's success path (its answer checked
against its output schema), Slack's errors, failed calls changing nothing, and the same goal through
``typed`` and ``rest`` leaving the same rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.tools import ToolKind
from enterprise_envs.mocks.chat import CHAT
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, OWNER_HANDLE
from tests.mocks.chat.helpers import changed, dump, fresh, typed

SURFACE = CHAT.surface("typed")

TOOLS = {
    "find_users", "get_user", "list_channels", "get_channel", "list_channel_members", "create_channel",
    "join_channel", "leave_channel", "invite_to_channel", "remove_from_channel", "archive_channel",
    "unarchive_channel", "rename_channel", "set_channel_topic", "set_channel_purpose", "post_message",
    "send_direct_message", "read_channel", "read_thread", "edit_message", "delete_message", "add_reaction",
    "remove_reaction", "list_user_groups", "get_user_group", "create_user_group", "update_user_group_members",
    "wait",
}  # fmt: skip
READS = {
    "find_users", "get_user", "list_channels", "get_channel", "list_channel_members", "read_channel",
    "read_thread", "list_user_groups", "get_user_group", "wait",
}  # fmt: skip
#: A ts no message has.
UNKNOWN_TS = "1234567890.000001"


class Bot:
    """Calls on the ``typed`` surface as the IT bot, each answer checked.

    Args:
        backend: A freshly reset tiny chat world.
    """

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.store = backend.store
        self.id = backend.identity.user_sys_id

    def ok(self, tool: str, **arguments: Any) -> Any:
        """A call that must succeed: its answer, checked against the tool's output schema."""
        result = typed(self.backend, tool, **arguments)
        assert self.backend.internal_errors == [], self.backend.internal_errors[-1]["traceback"]
        assert result.ok, (tool, arguments, result.body)
        schema = dict(SURFACE[tool].output_schema)
        errors = sorted(Draft202012Validator(schema).iter_errors(result.body), key=str)
        assert not errors, (tool, errors[0].message)
        return result.body

    def error(self, tool: str, **arguments: Any) -> str:
        """A call that must fail: Slack's error code, the store left exactly as it was."""
        before, rows = dump(self.backend), changed(self.backend)
        result = typed(self.backend, tool, **arguments)
        assert self.backend.internal_errors == []
        assert not result.ok, (tool, arguments, result.body)
        assert result.body["ok"] is False
        assert dump(self.backend) == before, f"{tool} failed with {result.body['error']} but wrote"
        assert changed(self.backend) == rows
        return result.body["error"]


@pytest.fixture
def bot(slack_typed: Backend) -> Bot:
    """The IT bot on a freshly reset tiny workspace."""
    return Bot(slack_typed)


# -- the workspace, read from the store (the tests follow the world, not its ids) ----------------

_BOT = f"(SELECT id FROM user WHERE name = '{BOT_HANDLE}')"
_BOT_IN = f"id IN (SELECT channel FROM channel_member WHERE user = {_BOT})"
_CHANNELS = "is_im = 'false' AND is_mpim = 'false'"
_LIVE = "is_archived = 'false'"


def channel_where(store: Any, where: str, order_by: str = "name") -> dict[str, str]:
    """The first channel (by name, unless ``order_by``) matching ``where``."""
    rows = store.select("channel", f"{_CHANNELS} AND {where}", order_by=order_by, limit=1)
    assert rows, f"no channel matches {where}"
    return rows[0]


def bot_public(store: Any) -> dict[str, str]:
    """A live public channel the bot is in, not the general one."""
    return channel_where(store, f"is_private = 'false' AND is_general = 'false' AND {_LIVE} AND {_BOT_IN}")


def outside_public(store: Any) -> dict[str, str]:
    """A live public channel the bot is not in (the smallest: some people are not in it either)."""
    size = "(SELECT COUNT(*) FROM channel_member WHERE channel_member.channel = channel.id)"
    return channel_where(store, f"is_private = 'false' AND {_LIVE} AND NOT {_BOT_IN}", f"{size}, name")


def outside_private(store: Any) -> dict[str, str]:
    """A private channel the bot is not in."""
    return channel_where(store, f"is_private = 'true' AND NOT {_BOT_IN}")


def archived_mine(store: Any) -> dict[str, str]:
    """An archived channel the bot is in."""
    return channel_where(store, f"is_archived = 'true' AND {_BOT_IN}")


def people(store: Any, where: str = "1") -> list[dict[str, str]]:
    """Active people (not the bot, not the owner) matching ``where``, by handle."""
    return store.select(
        "user",
        f"deleted = 'false' AND is_bot = 'false' AND name != ? AND {where}",
        (OWNER_HANDLE,),
        order_by="name",
    )


def member_of(store: Any, channel: dict[str, str], inside: bool = True) -> dict[str, str]:
    """An active person in (``inside``) or out of a channel."""
    test = "IN" if inside else "NOT IN"
    found = people(store, f"id {test} (SELECT user FROM channel_member WHERE channel = '{channel['id']}')")
    assert found, channel["name"]
    return found[0]


def leaver(store: Any) -> dict[str, str]:
    """A deactivated account."""
    return store.select("user", "deleted = 'true'", order_by="name", limit=1)[0]


def memberships(store: Any, channel_id: str) -> set[str]:
    """The user ids in a conversation."""
    return set(store.column_values("channel_member", "user", "channel = ?", (channel_id,)))


def no_direct(store: Any, bot_id: str) -> dict[str, str]:
    """A person the bot has no direct conversation with."""
    return people(
        store, f"id NOT IN (SELECT user FROM channel WHERE is_im = 'true' AND creator = '{bot_id}')"
    )[0]


# -- the surface ---------------------------------------------------------------------------------


def _loose(schema: Any, where: str) -> list[str]:
    """Places in an input schema that are not strict: open objects, unbounded strings or lists."""
    problems: list[str] = []
    if isinstance(schema, dict):
        kind = schema.get("type")
        if kind == "object" and schema.get("additionalProperties") is not False:
            problems.append(f"{where}: open object")
        if kind == "string" and "maxLength" not in schema:
            problems.append(f"{where}: unbounded string")
        if kind == "array" and "maxItems" not in schema:
            problems.append(f"{where}: unbounded list")
        for name, value in schema.items():
            problems += _loose(value, f"{where}.{name}")
    elif isinstance(schema, list):
        for index, value in enumerate(schema):
            problems += _loose(value, f"{where}[{index}]")
    return problems


def test_the_surface_has_the_agreed_tools_with_strict_inputs() -> None:
    assert set(SURFACE.tools) == TOOLS
    assert {tool.name for tool in SURFACE if tool.kind is ToolKind.READ} == READS
    for tool in SURFACE:
        assert _loose(dict(tool.input_schema), tool.name) == []
        # An object at the top: MCP clients expect one.
        assert tool.output_schema["type"] == "object", tool.name
        Draft202012Validator.check_schema(dict(tool.output_schema))
        assert len(tool.description) > 60, tool.name
    # Descriptions name the errors an agent recovers from, and how.
    assert "join_channel" in SURFACE["post_message"].description
    assert "not_in_channel" in SURFACE["post_message"].description
    assert "already_in_channel" in SURFACE["invite_to_channel"].description


def test_unknown_arguments_and_oversized_lists_are_refused(bot: Bot) -> None:
    assert bot.error("get_channel", channel="general", verbose=True) == "invalid_arguments"
    many = [f"user{index}" for index in range(31)]
    assert bot.error("invite_to_channel", channel="general", users=many) == "invalid_arguments"
    assert bot.error("invite_to_channel", channel="general", users=[]) == "invalid_arguments"
    assert bot.error("post_message", channel="general", text="x" * 40_001) == "invalid_arguments"


# -- people --------------------------------------------------------------------------------------


def test_find_users(bot: Bot) -> None:
    someone = people(bot.store)[0]
    found = bot.ok("find_users", query=f"@{someone['name']}")["users"]
    assert found == [
        {
            "id": someone["id"],
            "handle": someone["name"],
            "name": someone["real_name"],
            "email": someone["email"],
            "title": someone["title"],
            "deactivated": False,
        }
    ]
    by_name = bot.ok("find_users", query=f"{someone['first_name']} {someone['last_name']}")["users"]
    assert someone["id"] in [item["id"] for item in by_name]
    # Paging: a cursor leads to the next page, and the last page has none.
    first = bot.ok("find_users", query="", limit=3)
    assert len(first["users"]) == 3 and first["next_cursor"]
    second = bot.ok("find_users", query="", limit=3, cursor=first["next_cursor"])
    assert {item["id"] for item in first["users"]}.isdisjoint(item["id"] for item in second["users"])
    assert bot.ok("find_users", query="", limit=100)["next_cursor"] == ""
    assert bot.error("find_users", query="", cursor="not-a-cursor") == "invalid_cursor"
    # Deactivated accounts only when asked for.
    gone = leaver(bot.store)
    assert bot.ok("find_users", query=gone["name"])["users"] == []
    again = bot.ok("find_users", query=gone["name"], include_deactivated=True)["users"]
    assert [(item["id"], item["deactivated"]) for item in again] == [(gone["id"], True)]


def test_get_user(bot: Bot) -> None:
    someone = people(bot.store)[0]
    for ref in (
        someone["id"],
        someone["name"],
        f"@{someone['name']}",
        someone["email"],
        someone["email"].upper(),
    ):
        assert bot.ok("get_user", user=ref)["id"] == someone["id"], ref
    me = bot.ok("get_user", user=BOT_HANDLE)
    assert me["is_bot"] is True and me["is_admin"] is False and me["timezone"]
    assert bot.ok("get_user", user=OWNER_HANDLE)["is_admin"] is True
    assert bot.error("get_user", user="nobody.here") == "user_not_found"


# -- channels ------------------------------------------------------------------------------------


def test_list_channels(bot: Bot) -> None:
    hidden, archived = outside_private(bot.store), archived_mine(bot.store)
    mine_private = channel_where(bot.store, f"is_private = 'true' AND {_BOT_IN}")
    listed = bot.ok("list_channels", limit=100)
    names = {item["name"] for item in listed["channels"]}
    assert listed["next_cursor"] == ""
    assert "general" in names and mine_private["name"] in names
    assert hidden["name"] not in names and archived["name"] not in names
    assert all(item["id"].startswith("C") for item in listed["channels"])  # no direct messages
    public = bot.ok("list_channels", include_private=False, limit=100)["channels"]
    assert mine_private["name"] not in {item["name"] for item in public}
    with_archived = bot.ok("list_channels", include_archived=True, limit=100)["channels"]
    assert archived["name"] in {item["name"] for item in with_archived}
    teams = bot.ok("list_channels", query="#team-")["channels"]
    assert teams and all("team-" in item["name"] for item in teams)
    page = bot.ok("list_channels", limit=2)
    assert len(page["channels"]) == 2 and page["next_cursor"]
    following = bot.ok("list_channels", limit=100, cursor=page["next_cursor"])["channels"]
    assert len(page["channels"]) + len(following) == len(listed["channels"])


def test_get_channel_and_its_members(bot: Bot) -> None:
    general = channel_where(bot.store, "is_general = 'true'")
    for ref in ("general", "#general", general["id"], " General "):
        view = bot.ok("get_channel", channel=ref)
        assert (view["id"], view["general"], view["is_member"]) == (general["id"], True, True), ref
    assert view["members"] == len(memberships(bot.store, general["id"]))
    assert bot.ok("get_channel", channel=outside_public(bot.store)["name"])["is_member"] is False
    direct = bot.store.select("channel", "is_im = 'true'", limit=1)[0]
    other = bot.store.get("user", direct["user"])
    assert bot.ok("get_channel", channel=direct["id"]) == {"id": direct["id"], "direct_with": other["name"]}

    first = bot.ok("list_channel_members", channel="general", limit=5)
    assert first["channel"] == "general" and len(first["members"]) == 5 and first["next_cursor"]
    rest = bot.ok("list_channel_members", channel="general", limit=200, cursor=first["next_cursor"])
    assert rest["next_cursor"] == ""
    assert {item["id"] for item in first["members"] + rest["members"]} == memberships(
        bot.store, general["id"]
    )


def test_a_private_channel_the_bot_is_not_in_does_not_exist(bot: Bot) -> None:
    hidden = outside_private(bot.store)
    for ref in (hidden["name"], hidden["id"]):
        assert bot.error("get_channel", channel=ref) == "channel_not_found"
        assert bot.error("read_channel", channel=ref) == "channel_not_found"
        assert bot.error("post_message", channel=ref, text="hello") == "channel_not_found"
        assert bot.error("join_channel", channel=ref) == "channel_not_found"
        assert bot.error("list_channel_members", channel=ref) == "channel_not_found"
    assert bot.error("get_channel", channel="no-such-channel") == "channel_not_found"


def test_create_channel_in_one_call(bot: Bot) -> None:
    channel = bot.ok(
        "create_channel", name="#inc-2026-03-vpn", topic="VPN down in London", purpose="Major incident"
    )
    assert channel["changed"] is True and channel["id"].startswith("C")
    assert (channel["name"], channel["topic"], channel["purpose"]) == (
        "inc-2026-03-vpn", "VPN down in London", "Major incident",
    )  # fmt: skip
    assert (channel["private"], channel["members"], channel["is_member"]) == (False, 1, True)
    row = bot.store.get("channel", channel["id"])
    assert row["creator"] == bot.id and row["topic_creator"] == bot.id and row["purpose_creator"] == bot.id
    secret = bot.ok("create_channel", name="inc-2026-03-secret", private=True)
    assert secret["private"] is True and secret["topic"] == ""
    listed = {item["name"]: item for item in bot.ok("list_channels", limit=100)["channels"]}
    assert listed["inc-2026-03-secret"]["private"] is True

    assert bot.error("create_channel", name="general") == "name_taken"
    assert bot.error("create_channel", name=archived_mine(bot.store)["name"]) == "name_taken"
    assert bot.error("create_channel", name="Bad Name!") == "invalid_name_specials"
    assert bot.error("create_channel", name="x" * 81) == "invalid_name_maxlength"
    # The topic is set in the same call: a refused topic leaves no channel behind.
    assert bot.error("create_channel", name="inc-too-long", topic="x" * 251) == "too_long"


def test_posting_needs_membership_then_join_and_post(bot: Bot) -> None:
    outside = outside_public(bot.store)
    name = outside["name"]
    assert bot.error("post_message", channel=name, text="Maintenance tonight") == "not_in_channel"
    joined = bot.ok("join_channel", channel=f"#{name}")
    assert joined["changed"] is True and joined["is_member"] is True
    assert bot.ok("join_channel", channel=name)["changed"] is False
    posted = bot.ok("post_message", channel=name, text="Maintenance tonight")
    assert posted["channel"] == outside["id"] and posted["channel_name"] == name
    assert posted["permalink"].endswith(f"/archives/{outside['id']}/p{posted['ts'].replace('.', '')}")
    latest = bot.ok("read_channel", channel=name, limit=1)["messages"][0]
    assert (latest["ts"], latest["user"], latest["name"], latest["text"]) == (
        posted["ts"], BOT_HANDLE, "IT Bot", "Maintenance tonight",
    )  # fmt: skip
    row = bot.store.select("message", "channel = ? AND ts = ?", (outside["id"], posted["ts"]))[0]
    assert row["user"] == bot.id and row["bot_id"]
    # It can leave again; nobody leaves the general channel.
    assert bot.ok("leave_channel", channel=name)["is_member"] is False
    assert bot.error("leave_channel", channel=name) == "not_in_channel"
    assert bot.error("leave_channel", channel="general") == "cant_leave_general"


def test_archived_channels(bot: Bot) -> None:
    archived = archived_mine(bot.store)["name"]
    assert bot.error("post_message", channel=archived, text="hello") == "is_archived"
    assert bot.error("set_channel_topic", channel=archived, topic="x") == "is_archived"
    assert bot.error("archive_channel", channel=archived) == "already_archived"
    assert bot.ok("unarchive_channel", channel=archived)["archived"] is False
    bot.ok("post_message", channel=archived, text="Reopened for the follow-up.")
    assert bot.ok("archive_channel", channel=f"#{archived}")["archived"] is True
    assert bot.error("unarchive_channel", channel="general") == "not_archived"
    assert bot.error("archive_channel", channel="general") == "cant_archive_general"
    assert bot.error("archive_channel", channel=outside_public(bot.store)["name"]) == "not_in_channel"


def test_rename_topic_and_purpose(bot: Bot) -> None:
    channel = bot_public(bot.store)
    renamed = bot.ok("rename_channel", channel=channel["name"], name="#it-help-desk")
    assert renamed["name"] == "it-help-desk" and renamed["changed"] is True
    assert bot.ok("get_channel", channel="it-help-desk")["id"] == channel["id"]
    assert bot.error("rename_channel", channel="it-help-desk", name="general") == "name_taken"
    assert bot.error("rename_channel", channel="it-help-desk", name="Help Desk") == "invalid_name_specials"
    topic = bot.ok("set_channel_topic", channel=channel["id"], topic="Outage: VPN (London)")
    assert topic["topic"] == "Outage: VPN (London)" and topic["changed"] is True
    assert (
        bot.ok("set_channel_topic", channel=channel["id"], topic="Outage: VPN (London)")["changed"] is False
    )
    purpose = bot.ok("set_channel_purpose", channel=channel["id"], purpose="Ask IT for help")
    assert purpose["purpose"] == "Ask IT for help"
    assert bot.error("set_channel_purpose", channel=channel["id"], purpose="x" * 251) == "too_long"
    assert (
        bot.error("set_channel_topic", channel=outside_public(bot.store)["name"], topic="x")
        == "not_in_channel"
    )


def test_invite_and_remove(bot: Bot) -> None:
    channel = bot_public(bot.store)
    name = channel["name"]
    newcomer, inside = member_of(bot.store, channel, inside=False), member_of(bot.store, channel)
    before = memberships(bot.store, channel["id"])
    # Someone already in: refused, and the newcomer named before them is not added either.
    assert bot.error("invite_to_channel", channel=name, users=[inside["name"]]) == "already_in_channel"
    assert bot.error("invite_to_channel", channel=name, users=[newcomer["email"], inside["id"]]) == (
        "already_in_channel"
    )
    assert memberships(bot.store, channel["id"]) == before
    assert bot.error("invite_to_channel", channel=name, users=[BOT_HANDLE]) == "cant_invite_self"
    assert bot.error("invite_to_channel", channel=name, users=["nobody.here"]) == "user_not_found"
    assert bot.error("invite_to_channel", channel=name, users=[leaver(bot.store)["name"]]) == "cant_invite"
    outside = outside_public(bot.store)
    stranger = member_of(bot.store, outside, inside=False)
    assert (
        bot.error("invite_to_channel", channel=outside["name"], users=[stranger["name"]]) == "not_in_channel"
    )

    invited = bot.ok("invite_to_channel", channel=name, users=[f"@{newcomer['name']}"])
    assert [item["id"] for item in invited["invited"]] == [newcomer["id"]]
    assert invited["members"] == len(before) + 1
    assert memberships(bot.store, channel["id"]) == before | {newcomer["id"]}

    removed = bot.ok("remove_from_channel", channel=name, user=newcomer["email"])
    assert removed["removed"]["id"] == newcomer["id"] and removed["members"] == len(before)
    assert memberships(bot.store, channel["id"]) == before
    assert bot.error("remove_from_channel", channel=name, user=newcomer["name"]) == "not_in_channel"
    assert bot.error("remove_from_channel", channel=name, user=BOT_HANDLE) == "cant_kick_self"
    assert (
        bot.error("remove_from_channel", channel="general", user=inside["name"]) == "cant_kick_from_general"
    )


# -- messages ------------------------------------------------------------------------------------


def test_read_channel_and_threads(bot: Bot) -> None:
    name = bot_public(bot.store)["name"]
    history = bot.ok("read_channel", channel=name, limit=100)["messages"]
    stamps = [item["ts"] for item in history]
    assert stamps == sorted(stamps, reverse=True)
    assert all(item["thread_ts"] in ("", item["ts"]) for item in history)  # no replies
    page = bot.ok("read_channel", channel=name, limit=2)
    following = bot.ok("read_channel", channel=name, limit=2, cursor=page["next_cursor"])
    assert [item["ts"] for item in page["messages"] + following["messages"]] == stamps[:4]

    parent = bot.ok("post_message", channel=name, text="Is VPN working for everyone?")
    reply = bot.ok("post_message", channel=name, text="Fixed now.", thread_ts=parent["ts"])
    assert reply["thread_ts"] == parent["ts"]
    thread = bot.ok("read_thread", channel=name, ts=parent["ts"])["messages"]
    assert [item["ts"] for item in thread] == [parent["ts"], reply["ts"]]
    assert thread[0]["reply_count"] == 1 and thread[0]["thread_ts"] == parent["ts"]
    # From any reply, the whole thread; the channel shows the parent only.
    assert bot.ok("read_thread", channel=name, ts=reply["ts"])["messages"] == thread
    top = [item["ts"] for item in bot.ok("read_channel", channel=name, limit=3)["messages"]]
    assert parent["ts"] in top and reply["ts"] not in top

    assert bot.error("post_message", channel=name, text="hi", thread_ts=UNKNOWN_TS) == "thread_not_found"
    assert bot.error("read_thread", channel=name, ts=UNKNOWN_TS) == "thread_not_found"


def test_edit_delete_and_react(bot: Bot) -> None:
    channel = bot_public(bot.store)
    name = channel["name"]
    where = "channel = ? AND user != ? AND thread_ts = ''"
    theirs = bot.store.select("message", where, (channel["id"], bot.id), limit=1)[0]["ts"]
    assert bot.error("edit_message", channel=name, ts=theirs, text="x") == "cant_update_message"
    assert bot.error("delete_message", channel=name, ts=theirs) == "cant_delete_message"
    assert bot.error("edit_message", channel=name, ts=UNKNOWN_TS, text="x") == "message_not_found"

    mine = bot.ok("post_message", channel=name, text="Restart the VPN client")["ts"]
    edited = bot.ok("edit_message", channel=name, ts=mine, text="Restart the VPN app")["message"]
    assert (edited["ts"], edited["text"], edited["edited"]) == (mine, "Restart the VPN app", True)
    assert bot.error("edit_message", channel=name, ts=mine, text=" ") == "no_text"

    reacted = bot.ok("add_reaction", channel=name, ts=theirs, emoji=":white_check_mark:")["message"]
    assert {"emoji": "white_check_mark", "count": 1} in reacted["reactions"]
    assert bot.error("add_reaction", channel=name, ts=theirs, emoji="white_check_mark") == "already_reacted"
    assert bot.error("add_reaction", channel=name, ts=theirs, emoji="no way") == "invalid_name"
    taken = bot.ok("remove_reaction", channel=name, ts=theirs, emoji="white_check_mark")["message"]
    assert "white_check_mark" not in {item["emoji"] for item in taken["reactions"]}
    assert bot.error("remove_reaction", channel=name, ts=theirs, emoji="eyes") == "no_reaction"

    bot.ok("add_reaction", channel=name, ts=mine, emoji="eyes")
    assert bot.ok("delete_message", channel=name, ts=mine) == {
        "channel": channel["id"],
        "ts": mine,
        "deleted": True,
    }
    assert bot.store.count("message", "channel = ? AND ts = ?", (channel["id"], mine)) == 0
    assert bot.store.count("reaction", "user = ? AND name = 'eyes'", (bot.id,)) == 0  # gone with it


def test_direct_messages_reuse_one_conversation(bot: Bot) -> None:
    person = no_direct(bot.store, bot.id)
    count = bot.store.count("channel", "is_im = 'true'")
    first = bot.ok("send_direct_message", user=person["email"], text="Your laptop is ready.")
    second = bot.ok("send_direct_message", user=f"@{person['name']}", text="Pick it up at the desk.")
    assert first["channel"] == second["channel"] and first["channel"].startswith("D")
    assert first["direct_with"] == second["direct_with"] == person["name"]
    assert bot.store.count("channel", "is_im = 'true'") == count + 1
    assert memberships(bot.store, first["channel"]) == {bot.id, person["id"]}
    texts = [item["text"] for item in bot.ok("read_channel", channel=first["channel"])["messages"]]
    assert texts == ["Pick it up at the desk.", "Your laptop is ready."]
    assert bot.ok("get_channel", channel=first["channel"])["direct_with"] == person["name"]
    # A conversation from the world is reused too.
    seeded = bot.store.select("channel", "is_im = 'true' AND creator = ?", (bot.id,), limit=1)[0]
    assert bot.ok("send_direct_message", user=seeded["user"], text="Hi")["channel"] == seeded["id"]
    assert bot.error("send_direct_message", user=leaver(bot.store)["name"], text="Hi") == "user_disabled"
    assert bot.error("send_direct_message", user="nobody.here", text="Hi") == "user_not_found"


# -- user groups ---------------------------------------------------------------------------------


def test_list_and_get_user_groups(bot: Bot) -> None:
    groups = bot.ok("list_user_groups")["groups"]
    assert len(groups) == bot.store.count("usergroup", "date_delete IN ('', '0')")
    network = next(item for item in groups if item["handle"] == "oncall-network")
    for ref in ("oncall-network", "@oncall-network", "Network On-Call", "network on-call", network["id"]):
        assert bot.ok("get_user_group", group=ref)["id"] == network["id"], ref
    detail = bot.ok("get_user_group", group="@oncall-network")
    assert len(detail["members"]) == network["members"] >= 1
    assert bot.error("get_user_group", group="@nobody") == "no_such_subteam"


def test_update_user_group_members(bot: Bot) -> None:
    group = bot.store.find_one("usergroup", "handle", "oncall-network")
    current = [item["handle"] for item in bot.ok("get_user_group", group=group["id"])["members"]]
    newcomer = next(row for row in people(bot.store) if row["name"] not in current)
    # Hand the rotation over: the new person in, the current ones out, in one call.
    handed = bot.ok(
        "update_user_group_members", group="oncall-network", add=[newcomer["email"]], remove=current
    )
    assert [item["handle"] for item in handed["members"]] == [newcomer["name"]]
    row = bot.store.get("usergroup", group["id"])
    assert row["user_count"] == "1" and row["updated_by"] == bot.id
    listed = {item["handle"]: item for item in bot.ok("list_user_groups")["groups"]}
    assert listed["oncall-network"]["members"] == 1
    # Adding a member again, or removing a non-member, changes nothing.
    assert (
        bot.ok("update_user_group_members", group=group["id"], add=[newcomer["name"]], remove=current)
        == handed
    )

    def refused(**changes: list[str]) -> str:
        return bot.error("update_user_group_members", group="oncall-network", **changes)

    assert refused(remove=[newcomer["name"]]) == "invalid_users"  # Slack keeps one member at least
    assert refused(add=[current[0]], remove=[current[0]]) == "invalid_arguments"
    assert refused(add=["nobody.here"]) == "invalid_users"
    assert refused(add=[leaver(bot.store)["name"]]) == "invalid_users"
    assert (
        bot.error("update_user_group_members", group="@nobody", add=[newcomer["name"]]) == "no_such_subteam"
    )


def test_create_user_group(bot: Bot) -> None:
    first, second = people(bot.store)[:2]
    made = bot.ok(
        "create_user_group", name="Database On-Call", handle="@oncall-database",
        description="Whoever is on call for databases", members=[second["name"], first["email"]],
    )  # fmt: skip
    assert (made["handle"], made["name"], made["disabled"]) == ("oncall-database", "Database On-Call", False)
    assert [item["handle"] for item in made["members"]] == [first["name"], second["name"]]
    assert bot.store.get("usergroup", made["id"])["user_count"] == "2"
    assert bot.ok("create_user_group", name="Empty Group", handle="empty-group")["members"] == []
    assert bot.error("create_user_group", name="Another", handle="oncall-network") == "handle_already_exists"
    assert bot.error("create_user_group", name="Another", handle=first["name"]) == "handle_already_exists"
    assert bot.error("create_user_group", name="Network On-Call", handle="net2") == "name_already_exists"
    assert bot.error("create_user_group", name="Bad", handle="Bad Handle") == "invalid_arguments"
    # A refused member leaves no group behind.
    assert bot.error("create_user_group", name="Ghosts", handle="ghosts", members=["nobody.here"]) == (
        "invalid_users"
    )


def test_wait(bot: Bot) -> None:
    assert bot.ok("wait", seconds=30)["waited_seconds"] == 30


# -- reads never write; failures change nothing --------------------------------------------------


def test_read_tools_leave_the_store_as_it_was(bot: Bot) -> None:
    before = dump(bot.backend)
    channel = bot_public(bot.store)
    parent = bot.store.select("message", "channel = ? AND thread_ts = ts", (channel["id"],), limit=1)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("find_users", {"query": "a"}),
        ("get_user", {"user": BOT_HANDLE}),
        ("list_channels", {"include_archived": True}),
        ("get_channel", {"channel": "general"}),
        ("list_channel_members", {"channel": "general"}),
        ("read_channel", {"channel": channel["name"]}),
        ("list_user_groups", {"include_disabled": True}),
        ("get_user_group", {"group": "oncall-network"}),
    ]
    if parent:
        calls.append(("read_thread", {"channel": channel["name"], "ts": parent[0]["ts"]}))
    for tool, arguments in calls:
        bot.ok(tool, **arguments)
    assert dump(bot.backend) == before and changed(bot.backend) == []


def test_a_failed_call_changes_nothing_after_earlier_writes(bot: Bot) -> None:
    """Calls that write several rows before a refusal: each rolls back whole (``Bot.error`` compares
    the database and the episode's changed rows before and after), the episode's earlier writes stay."""
    channel = bot_public(bot.store)
    bot.ok("post_message", channel=channel["name"], text="Starting the access review.")
    written = changed(bot.backend)
    assert written
    newcomer, inside = member_of(bot.store, channel, inside=False), member_of(bot.store, channel)
    group = [item["handle"] for item in bot.ok("get_user_group", group="oncall-network")["members"]]
    failures = [
        ("create_channel", {"name": "inc-half-made", "topic": "ok", "purpose": "x" * 251}, "too_long"),
        ("invite_to_channel", {"channel": channel["name"], "users": [newcomer["id"], inside["id"]]}, None),
        ("update_user_group_members", {"group": "oncall-network", "remove": group}, "invalid_users"),
        (
            "create_user_group",
            {"name": "Half", "handle": "half", "members": [newcomer["id"], "nobody"]},
            None,
        ),
        ("send_direct_message", {"user": no_direct(bot.store, bot.id)["name"], "text": " "}, "no_text"),
    ]
    for tool, arguments, code in failures:
        error = bot.error(tool, **arguments)
        assert code is None or error == code, (tool, error)
    assert changed(bot.backend) == written


# -- the same goal through either surface --------------------------------------------------------


def _rest_surface_or_skip() -> None:
    try:
        CHAT.surface("rest")
    except ImportError as error:  # the rest surface is written separately
        pytest.skip(f"the chat rest surface is not there yet: {error}")


def _call(backend: Backend, surface: str, tool: str, **arguments: Any) -> Any:
    result = backend.call(tool, arguments, surface=surface)
    assert result.ok, (surface, tool, result.body)
    assert backend.internal_errors == []
    return result.body


def _rest(backend: Backend, tool: str, **arguments: Any) -> Any:
    body = _call(backend, "rest", tool, **arguments)
    assert body["ok"] is True, (tool, body)
    return body


def _top_ts(store: Any) -> str:
    """The ts of a message (not a reply) in the bot's public channel."""
    rows = store.select("message", "channel = ? AND thread_ts = ''", (bot_public(store)["id"],), limit=1)
    return rows[0]["ts"]


def _rotation(store: Any) -> tuple[dict[str, str], list[dict[str, str]], dict[str, str]]:
    """The network on-call group, its members, and the person who takes over."""
    group = store.find_one("usergroup", "handle", "oncall-network")
    members = store.column_values("usergroup_member", "user", "usergroup = ?", (group["id"],))
    newcomer = next(row for row in people(store) if row["id"] not in members)
    return group, [store.get("user", user_id) for user_id in members], newcomer


Play = Callable[[Backend], Any]


def _typed(tool: str, arguments: Callable[[Any], dict[str, Any]]) -> Play:
    return lambda backend: _call(backend, "typed", tool, **arguments(backend.store))


def _web(tool: str, arguments: Callable[[Any], dict[str, Any]]) -> Play:
    return lambda backend: _rest(backend, tool, **arguments(backend.store))


def _web_direct_message(backend: Backend) -> None:
    opened = _rest(backend, "conversations_open", users=_no_direct(backend.store)["id"])
    _rest(backend, "chat_postMessage", channel=opened["channel"]["id"], text="Your laptop is ready.")


def _web_create_channel(backend: Backend) -> None:
    made = _rest(backend, "conversations_create", name="inc-2026-03-vpn")
    _rest(backend, "conversations_setTopic", channel=made["channel"]["id"], topic="VPN down in London")


# Short names for the goals' arguments, read from the world each goal starts from.
def _name(store: Any) -> str:
    return bot_public(store)["name"]


def _id(store: Any) -> str:
    return bot_public(store)["id"]


def _outsider(store: Any) -> dict[str, str]:
    return member_of(store, bot_public(store), inside=False)


def _insider(store: Any) -> dict[str, str]:
    return member_of(store, bot_public(store))


def _no_direct(store: Any) -> dict[str, str]:
    return no_direct(store, store.find_one("user", "name", BOT_HANDLE)["id"])


#: goal -> (through typed, through rest), each played on the freshly reset world.
GOALS: dict[str, tuple[Play, Play]] = {
    "post a message": (
        _typed("post_message", lambda s: {"channel": _name(s), "text": "VPN is back."}),
        _web("chat_postMessage", lambda s: {"channel": _id(s), "text": "VPN is back."}),
    ),
    "reply in a thread": (
        _typed("post_message", lambda s: {"channel": _name(s), "text": "Done.", "thread_ts": _top_ts(s)}),
        _web("chat_postMessage", lambda s: {"channel": _id(s), "text": "Done.", "thread_ts": _top_ts(s)}),
    ),
    "join a channel": (
        _typed("join_channel", lambda s: {"channel": f"#{outside_public(s)['name']}"}),
        _web("conversations_join", lambda s: {"channel": outside_public(s)["id"]}),
    ),
    "set a topic": (
        _typed("set_channel_topic", lambda s: {"channel": _name(s), "topic": "Outage"}),
        _web("conversations_setTopic", lambda s: {"channel": _id(s), "topic": "Outage"}),
    ),
    "react": (
        _typed("add_reaction", lambda s: {"channel": _name(s), "ts": _top_ts(s), "emoji": ":eyes:"}),
        _web("reactions_add", lambda s: {"channel": _id(s), "timestamp": _top_ts(s), "name": "eyes"}),
    ),
    "invite": (
        _typed("invite_to_channel", lambda s: {"channel": _name(s), "users": [_outsider(s)["email"]]}),
        _web("conversations_invite", lambda s: {"channel": _id(s), "users": _outsider(s)["id"]}),
    ),
    "remove": (
        _typed("remove_from_channel", lambda s: {"channel": _name(s), "user": _insider(s)["name"]}),
        _web("conversations_kick", lambda s: {"channel": _id(s), "user": _insider(s)["id"]}),
    ),
    "archive": (
        _typed("archive_channel", lambda s: {"channel": _name(s)}),
        _web("conversations_archive", lambda s: {"channel": _id(s)}),
    ),
    "hand over a rotation": (
        _typed(
            "update_user_group_members",
            lambda s: {
                "group": "@oncall-network",
                "add": [_rotation(s)[2]["name"]],
                "remove": [row["name"] for row in _rotation(s)[1]],
            },
        ),
        _web(
            "usergroups_users_update",
            lambda s: {"usergroup": _rotation(s)[0]["id"], "users": _rotation(s)[2]["id"]},
        ),
    ),
    # One typed call against two Web API calls: compared with times set aside (each call is a tick).
    "send a direct message": (
        _typed(
            "send_direct_message", lambda s: {"user": _no_direct(s)["name"], "text": "Your laptop is ready."}
        ),
        _web_direct_message,
    ),
    "create a channel with a topic": (
        _typed("create_channel", lambda s: {"name": "inc-2026-03-vpn", "topic": "VPN down in London"}),
        _web_create_channel,
    ),
}
_TWO_CALLS = {"send a direct message", "create a channel with a topic"}

#: Fields holding a time (or a ts, made of one): they differ when a goal takes more calls.
_TIMES = {
    "created", "updated", "date_create", "date_update", "ts", "thread_ts", "edited_ts", "latest_reply",
    "topic_last_set", "purpose_last_set",
}  # fmt: skip


def _timeless(
    rows: list[tuple[str, str, dict[str, str] | None]],
) -> list[tuple[str, str, dict[str, str] | None]]:
    return [
        (
            table,
            key,
            None if row is None else {name: value for name, value in row.items() if name not in _TIMES},
        )
        for table, key, row in rows
    ]


@pytest.mark.parametrize("goal", list(GOALS))
def test_the_same_goal_through_typed_and_rest_leaves_the_same_rows(slack_typed: Backend, goal: str) -> None:
    _rest_surface_or_skip()
    play_typed, play_rest = GOALS[goal]
    fresh(slack_typed, episode_seed=3)
    play_typed(slack_typed)
    through_typed = changed(slack_typed)
    fresh(slack_typed, episode_seed=3)
    play_rest(slack_typed)
    through_rest = changed(slack_typed)
    assert through_typed, goal
    if goal in _TWO_CALLS:
        assert _timeless(through_typed) == _timeless(through_rest)
    else:
        assert through_typed == through_rest
