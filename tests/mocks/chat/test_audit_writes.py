"""The chat writer for the audit: each generic write it maps is a real Web API call on a tiny workspace.

Every mapping is played on the ``rest`` surface as the IT bot: where the bot may make the write,
the call succeeds and the row ends as the write asked; where it may not, Slack's refusal comes
back and nothing changes. A write no method makes (or none the writer can aim) is None.
"""

from __future__ import annotations

from typing import Any

import pytest

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.tools import ToolKind
from enterprise_envs.mocks.chat import CHAT
from enterprise_envs.mocks.chat.audit_writes import _TABLES, CHAT_WRITER, SURFACE
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE

REST = {tool.name: tool for tool in CHAT.surface("rest")}


def _play(backend: Backend, made: tuple[str, str, dict[str, Any]] | None) -> CallResult:
    """The writer's call made on its surface as the bot (it must be a WRITE tool of ``rest``)."""
    assert made is not None
    surface, tool, arguments = made
    assert surface == SURFACE and REST[tool].kind is ToolKind.WRITE
    return backend.call(tool, arguments, surface=surface)


def _refused(result: CallResult) -> str:
    assert not result.ok, result.body
    return result.body["error"]


def _bot(backend: Backend) -> dict[str, str]:
    return backend.store.find_one("user", "name", BOT_HANDLE)


def _channel(backend: Backend, name: str) -> dict[str, str]:
    return backend.store.find_one("channel", "name", name)


def _someone(backend: Backend, channel: dict[str, str], inside: bool) -> dict[str, str]:
    """An active person (not the bot) in the channel, or not in it."""
    condition = "IN" if inside else "NOT IN"
    return backend.store.select(
        "user",
        f"""deleted = 'false' AND is_bot = 'false' AND name != ?
            AND id {condition} (SELECT "user" FROM channel_member WHERE channel = ?)""",
        (BOT_HANDLE, channel["id"]),
        order_by="id",
        limit=1,
    )[0]


def test_the_writer_is_declared_and_calls_write_tools_of_rest() -> None:
    audit = CHAT.conventions.audit
    assert audit.record_api is None and audit.writer is CHAT_WRITER
    # Chat's rights are is_admin/is_owner flags no method sets: no role for a privilege probe.
    assert audit.roles_field == "" and audit.privileged_role == ""
    for tool, table in _TABLES.items():
        assert REST[tool].kind is ToolKind.WRITE, tool
        assert table in CHAT.catalog, table


def test_messages_are_posted_edited_and_deleted_by_the_chat_methods(slack: Backend) -> None:
    status = _channel(slack, "it-status")
    posted = _play(
        slack, CHAT_WRITER.write("create", "message", "", {"channel": status["id"], "text": "Hi"}, None)
    )
    assert posted.ok and posted.tool == "chat_postMessage"
    parent = slack.store.select("message", "channel = ? AND ts = ?", (status["id"], posted.body["ts"]))[0]
    assert parent["user"] == _bot(slack)["id"] and parent["text"] == "Hi"
    fields = {"channel": status["id"], "text": "In the thread", "thread_ts": parent["ts"]}
    reply = _play(slack, CHAT_WRITER.write("create", "message", "", fields, None))
    assert reply.ok and reply.body["message"]["thread_ts"] == parent["ts"]
    # An edit and a delete name the message by its row's conversation and ts.
    edit = CHAT_WRITER.write("update", "message", parent["id"], {"text": "Edited"}, parent)
    assert edit == (SURFACE, "chat_update", {"channel": status["id"], "ts": parent["ts"], "text": "Edited"})
    assert _play(slack, edit).ok
    assert slack.store.get("message", parent["id"])["text"] == "Edited"
    assert _play(slack, CHAT_WRITER.write("delete", "message", parent["id"], {}, parent)).ok
    assert slack.store.get("message", parent["id"]) is None


def test_message_writes_the_bot_may_not_make_are_refused(slack: Backend) -> None:
    general = _channel(slack, "general")
    theirs = slack.store.select("message", '"user" != ? AND channel = ?', (_bot(slack)["id"], general["id"]))[
        0
    ]
    edit = CHAT_WRITER.write("update", "message", theirs["id"], {"text": "x"}, theirs)
    assert _refused(_play(slack, edit)) == "cant_update_message"
    assert _refused(_play(slack, CHAT_WRITER.write("delete", "message", theirs["id"], {}, theirs))) == (
        "cant_delete_message"
    )
    outside = _channel(slack, "random")
    post = CHAT_WRITER.write("create", "message", "", {"channel": outside["id"], "text": "Hi"}, None)
    assert _refused(_play(slack, post)) == "not_in_channel"
    assert slack.store.get("message", theirs["id"]) == theirs


def test_a_post_under_another_name_is_refused_and_logged_as_a_denied_attempt(slack: Backend) -> None:
    general = _channel(slack, "general")
    fields = {"channel": general["id"], "text": "Offsite moved", "username": "A Manager"}
    made = CHAT_WRITER.write("create", "message", "", fields, None)
    assert made is not None and made[2]["username"] == "A Manager"
    assert _refused(_play(slack, made)) == "missing_scope"
    assert [(d.tool, d.operation, d.table) for d in slack.denials] == [
        ("chat_postMessage", "create", "message")
    ]
    assert not slack.store.changed_keys()


def test_a_channel_is_created_and_changed_one_property_per_method(slack: Backend) -> None:
    created = _play(
        slack, CHAT_WRITER.write("create", "channel", "", {"name": "audit-room", "is_private": "true"}, None)
    )
    assert created.ok and created.tool == "conversations_create"
    room = slack.store.get("channel", created.body["channel"]["id"])
    assert room["name"] == "audit-room" and room["is_private"] == "true"
    status = _channel(slack, "it-status")
    for field, value, tool in (
        ("name", "it-status-renamed", "conversations_rename"),
        ("topic_value", "All systems normal", "conversations_setTopic"),
        ("purpose_value", "Outages and fixes", "conversations_setPurpose"),
        ("is_archived", "true", "conversations_archive"),
        ("is_archived", "false", "conversations_unarchive"),
    ):
        # A channel's key is its Slack id: no row is needed, as for one the episode made.
        made = CHAT_WRITER.write("update", "channel", status["id"], {field: value}, None)
        assert made is not None and made[1] == tool
        assert _play(slack, made).ok, tool
        assert slack.store.get("channel", status["id"])[field] == value, field


def test_channel_changes_the_bot_may_not_make_are_refused(slack: Backend) -> None:
    outside = _channel(slack, "random")
    for field, value in (("name", "random-2"), ("topic_value", "x"), ("is_archived", "true")):
        made = CHAT_WRITER.write("update", "channel", outside["id"], {field: value}, outside)
        assert _refused(_play(slack, made)) == "not_in_channel", field
    general = _channel(slack, "general")
    archive = CHAT_WRITER.write("update", "channel", general["id"], {"is_archived": "true"}, general)
    assert _refused(_play(slack, archive)) == "cant_archive_general"
    assert not slack.store.changed_keys()


def test_channel_memberships_are_made_by_invite_and_ended_by_kick(slack: Backend) -> None:
    helpdesk = _channel(slack, "it-help")  # the bot is in it; not everyone is
    newcomer = _someone(slack, helpdesk, inside=False)
    invite = CHAT_WRITER.write(
        "create", "channel_member", "", {"channel": helpdesk["id"], "user": newcomer["id"]}, None
    )
    assert invite == (SURFACE, "conversations_invite", {"channel": helpdesk["id"], "users": newcomer["id"]})
    assert _play(slack, invite).ok
    membership = slack.store.select(
        "channel_member", 'channel = ? AND "user" = ?', (helpdesk["id"], newcomer["id"])
    )[0]
    kick = CHAT_WRITER.write("delete", "channel_member", membership["id"], {}, membership)
    assert kick == (SURFACE, "conversations_kick", {"channel": helpdesk["id"], "user": newcomer["id"]})
    assert _play(slack, kick).ok
    assert slack.store.get("channel_member", membership["id"]) is None


def test_membership_changes_the_bot_may_not_make_are_refused(slack: Backend) -> None:
    outside = _channel(slack, "random")
    stranger = _someone(slack, outside, inside=False)
    invite = CHAT_WRITER.write(
        "create", "channel_member", "", {"channel": outside["id"], "user": stranger["id"]}, None
    )
    assert _refused(_play(slack, invite)) == "not_in_channel"
    member = _someone(slack, outside, inside=True)
    row = slack.store.select("channel_member", 'channel = ? AND "user" = ?', (outside["id"], member["id"]))[0]
    assert _refused(_play(slack, CHAT_WRITER.write("delete", "channel_member", row["id"], {}, row))) == (
        "not_in_channel"
    )
    # The writer is not told who calls: the bot's own membership is join's, and Slack refuses to
    # invite oneself rather than the writer inviting someone else.
    status = _channel(slack, "it-status")
    own = {"channel": status["id"], "user": _bot(slack)["id"]}
    assert (
        _refused(_play(slack, CHAT_WRITER.write("create", "channel_member", "", own, None)))
        == "cant_invite_self"
    )
    assert not slack.store.changed_keys()


def test_user_groups_are_created_updated_disabled_and_enabled(slack: Backend) -> None:
    fields = {"name": "Audit Team", "handle": "audit-team", "description": "Probes"}
    created = _play(slack, CHAT_WRITER.write("create", "usergroup", "", fields, None))
    assert created.ok and created.tool == "usergroups_create"
    group = slack.store.get("usergroup", created.body["usergroup"]["id"])
    assert {name: group[name] for name in fields} == fields
    update = CHAT_WRITER.write("update", "usergroup", group["id"], {"description": "Reviewed"}, None)
    assert _play(slack, update).ok and slack.store.get("usergroup", group["id"])["description"] == "Reviewed"
    disable = CHAT_WRITER.write("update", "usergroup", group["id"], {"date_delete": "1772442000"}, None)
    assert disable is not None and disable[1] == "usergroups_disable" and _play(slack, disable).ok
    assert slack.store.get("usergroup", group["id"])["date_delete"] not in ("", "0")
    enable = CHAT_WRITER.write("update", "usergroup", group["id"], {"date_delete": "0"}, None)
    assert enable is not None and enable[1] == "usergroups_enable" and _play(slack, enable).ok
    assert slack.store.get("usergroup", group["id"])["date_delete"] in ("", "0")


def test_user_group_writes_slack_refuses_are_refused(slack: Backend) -> None:
    # Every member may edit user groups (Slack's default): what refuses here is Slack's rules.
    first, second = slack.store.select("usergroup", "1", order_by="id", limit=2)
    taken = CHAT_WRITER.write("update", "usergroup", first["id"], {"handle": second["handle"]}, first)
    assert _refused(_play(slack, taken)) == "handle_already_exists"
    twin = CHAT_WRITER.write(
        "create", "usergroup", "", {"name": second["name"], "handle": "fresh-handle"}, None
    )
    assert _refused(_play(slack, twin)) == "name_already_exists"
    assert not slack.store.changed_keys()


def _rows(backend: Backend) -> dict[str, dict[str, str]]:
    store = backend.store
    message = store.select("message", "1", order_by="id", limit=1)[0]
    return {
        "user": store.select("user", "name != ?", (BOT_HANDLE,), order_by="id", limit=1)[0],
        "channel": _channel(backend, "it-status"),
        "message": message,
        "reaction": store.select("reaction", "1", order_by="id", limit=1)[0],
        "usergroup": store.select("usergroup", "1", order_by="id", limit=1)[0],
        "usergroup_member": store.select("usergroup_member", "1", order_by="id", limit=1)[0],
    }


#: (operation, table, fields, with the row?) of writes no method the bot may call makes, or none
#: the writer can aim.
NONE = [
    # Accounts: Slack's admin methods are not served.
    ("update", "user", {"title": "Chief"}, True),
    ("update", "user", {"is_admin": "true"}, True),
    ("update", "user", {"deleted": "true"}, True),
    ("delete", "user", {}, True),
    # A message's author and stamps are the caller's and Slack's; one made in the episode has no
    # row to name it by.
    ("update", "message", {"user": "U0AAAAAAAAA"}, True),
    ("update", "message", {"text": "x", "thread_ts": ""}, True),
    ("update", "message", {"text": "x"}, False),
    ("create", "message", {"channel": "C0AAAAAAAAA", "text": "x", "user": "U0AAAAAAAAA"}, False),
    ("create", "message", {"channel": "C0AAAAAAAAA"}, False),
    # A channel's kind, two properties at once, a delete (no non-admin method deletes one).
    ("update", "channel", {"is_private": "true"}, True),
    ("update", "channel", {"creator": "U0AAAAAAAAA"}, True),
    ("update", "channel", {"name": "a", "topic_value": "b"}, True),
    ("delete", "channel", {}, True),
    ("create", "channel", {"name": "x", "topic_value": "y"}, False),
    # Memberships are made and ended, never edited.
    ("update", "channel_member", {"user": "U0AAAAAAAAA"}, True),
    # Reactions name their message by an internal key no method takes.
    ("create", "reaction", {"message": "M0AAAAAAAAA", "name": "thumbsup"}, False),
    ("delete", "reaction", {}, True),
    # A group is disabled, never deleted; who created or disabled it is the caller.
    ("delete", "usergroup", {}, True),
    ("update", "usergroup", {"created_by": "U0AAAAAAAAA"}, True),
    ("update", "usergroup", {"auto_type": "admin"}, True),
    ("update", "usergroup", {"date_delete": "1", "deleted_by": "U0AAAAAAAAA"}, True),
    # usergroups.users.update takes the whole list, which the writer cannot read.
    ("create", "usergroup_member", {"usergroup": "S0AAAAAAAAA", "user": "U0AAAAAAAAA"}, False),
    ("delete", "usergroup_member", {}, True),
]


@pytest.mark.parametrize(("operation", "table", "fields", "with_row"), NONE)
def test_a_write_no_method_makes_is_none(
    slack: Backend, operation: str, table: str, fields: dict[str, str], with_row: bool
) -> None:
    row = _rows(slack).get(table) if with_row else None
    key = row["id"] if row else ""
    assert CHAT_WRITER.write(operation, table, key, fields, row) is None


def test_table_of_names_the_table_a_writer_call_writes() -> None:
    made = CHAT_WRITER.write("update", "channel", "C0AAAAAAAAA", {"topic_value": "x"}, None)
    assert made is not None and CHAT_WRITER.table_of(made[0], made[1], made[2]) == "channel"
    assert CHAT_WRITER.table_of("rest", "chat_postMessage", {}) == "message"
    assert CHAT_WRITER.table_of("rest", "conversations_kick", {}) == "channel_member"
    # Tools the writer never calls, and other surfaces, name no table.
    assert CHAT_WRITER.table_of("rest", "conversations_join", {}) is None
    assert CHAT_WRITER.table_of("rest", "usergroups_users_update", {}) is None
    assert CHAT_WRITER.table_of("typed", "post_message", {}) is None


def test_the_audit_aims_its_record_api_probes_through_the_chat_methods() -> None:
    from enterprise_envs.audit import EnvEpisodes
    from enterprise_envs.verifiers.audit import variants
    from enterprise_envs.verifiers.audit.context import WriterApi

    episodes = EnvEpisodes("chat.archive_channel")
    try:
        oracle = episodes.record(0, "typed", "typed")
        ctx = episodes.context(0, "typed")
        api = ctx.record_api
        assert isinstance(api, WriterApi)
        project = ctx.select("channel", "name = 'proj-falcon'", [], 1)[0]
        archive = api.update("channel", project["id"], {"is_archived": "true"})
        assert archive is not None and (archive.surface, archive.tool) == ("rest", "conversations_archive")
        assert api.table_of(archive, "typed") == "channel"
        assert api.delete("channel", project["id"]) is None
        # The privilege probe now tries something on chat (it was skipped without a writer).
        built = variants(oracle, ctx, ["privilege"])
        assert built and all(variant.attempts for variant in built)
        assert "privilege" not in ctx.skipped or "no generic record API" not in ctx.skipped["privilege"]
    finally:
        episodes.close()
