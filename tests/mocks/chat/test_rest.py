"""The ``rest`` surface: Slack's Web API methods as tools, on a live tiny workspace.

Every tool's answer validates against its method's 200 schema in the derived document (with the
documented differences below); every error path of the services is reached through the tools,
each refusal leaving the database as it was and answering a code the method documents (or one
of the commented codes Slack sends today); cursor paging visits each visible row once; a rate
limit is Slack's 429.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.faults import FaultConfig, RateLimit
from enterprise_envs.mocks.chat import CHAT
from enterprise_envs.mocks.chat.access import READABLE_CHANNELS
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, OWNER_HANDLE
from enterprise_envs.mocks.chat.services.messages import MAX_TEXT
from enterprise_envs.mocks.chat.surfaces.rest import (
    GENERIC_ERRORS,
    METHOD_ERRORS,
    UNDOCUMENTED_ERRORS,
    UNSERVED_PARAMETERS,
    input_schema,
    methods,
    served_parameters,
)
from enterprise_envs.mocks.chat.tables import spec_document
from tests.mocks.chat.helpers import as_handle, as_user_row, rest

SURFACE = CHAT.surface("rest")
#: The tools that answered a successful call through :func:`ok` (the answers test clears it first).
ANSWERED: set[str] = set()

# -- the document's response schemas as JSON Schema -------------------------------------------------


def _json_schema(node: Any) -> Any:
    """OpenAPI 3.0 to JSON Schema: ``nullable: true`` becomes an alternative of ``null``."""
    if isinstance(node, list):
        return [_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _json_schema(value) for key, value in node.items() if key != "nullable"}
    return {"anyOf": [converted, {"type": "null"}]} if node.get("nullable") is True else converted


_TS = {"$ref": "#/components/schemas/defs_ts"}
_NEXT_CURSOR = {
    "type": "object",
    "properties": {"next_cursor": {"type": "string"}},
    "required": ["next_cursor"],
    "additionalProperties": False,
}


@cache
def _documented() -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The components and each method's 200 schema, with the documented differences patched in.

    Each patch is a place where the 2021 description is older than what Slack answers (and the
    mock with it):
    """
    document = copy.deepcopy(spec_document())
    components = document["components"]
    # An edited message carries `edited: {user, ts}` (Slack's message reference); objs_message
    # does not declare it and forbids undeclared keys.
    components["schemas"]["objs_message"]["properties"]["edited"] = {
        "type": "object",
        "properties": {"user": {"$ref": "#/components/schemas/defs_user_id"}, "ts": _TS},
        "required": ["user", "ts"],
        "additionalProperties": False,
    }
    responses = {name: copy.deepcopy(dict(method.response)) for name, method in methods().items()}
    # conversations.replies gives a thread's parent and its replies their own shapes (the parent
    # with reply_count and subscribed, a reply with parent_user_id), each closed to every other key
    # of a message: a bot's bot_id, an edit, reactions. Both take a message's keys here, and keep
    # their required ones.
    message_keys = components["schemas"]["objs_message"]["properties"]
    for shape in responses["conversations_replies"]["properties"]["messages"]["items"]["anyOf"]:
        shape["properties"] = {**message_keys, **shape["properties"]}
    for name in ("conversations_history", "conversations_replies"):
        # Both page by cursor (response_metadata.next_cursor while has_more), which the 2021 schemas
        # of these two methods leave out.
        responses[name]["properties"]["response_metadata"] = _NEXT_CURSOR
    # A conversation without messages (a channel just made) has an empty history; the schema
    # asks for at least one.
    responses["conversations_history"]["properties"]["messages"].pop("minItems")
    return _json_schema(components), {name: _json_schema(schema) for name, schema in responses.items()}


def _schema_errors(tool: str, body: Any) -> list[str]:
    components, responses = _documented()
    schema = {**responses[tool], "components": components}
    validator = Draft202012Validator(schema)
    return sorted(
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(body)
    )


# -- calls ---------------------------------------------------------------------------------------------


def ok(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> dict[str, Any]:
    """A call that must succeed: its body, checked against the document and the tool's output schema."""
    result = rest(backend, tool, identity, **arguments)
    assert result.ok and result.body["ok"] is True, (tool, arguments, result.status, result.body)
    assert backend.internal_errors == []
    problems = _schema_errors(tool, result.body)
    assert not problems, (tool, problems)
    ANSWERED.add(tool)
    output = Draft202012Validator(dict(SURFACE[tool].output_schema))
    assert output.is_valid(result.to_dict()), (tool, next(output.iter_errors(result.to_dict())).message)
    return result.body


def refused(
    backend: Backend, tool: str, code: str, identity: Identity | None = None, **arguments: Any
) -> CallResult:
    """A call that must fail with Slack's ``code``, change nothing, and answer a code the method may."""
    before = backend.serialize()
    result = rest(backend, tool, identity, **arguments)
    assert not result.ok, (tool, arguments, result.body)
    assert result.body["ok"] is False and result.body["error"] == code, (tool, arguments, result.body)
    assert backend.serialize() == before, f"{tool} failed with {code} but wrote"
    assert backend.internal_errors == []
    assert code in METHOD_ERRORS[tool] or code in GENERIC_ERRORS, (tool, code)
    return result


def channel(backend: Backend, name: str) -> dict[str, str]:
    row = backend.store.find_one("channel", "name", name)
    assert row is not None, name
    return row


_MEMBER = 'id IN (SELECT channel FROM channel_member WHERE "user" = ?)'
#: Kinds of channel a test needs, by what they are to the bot (not by name, so the text bank may
#: change): (is_private, is_archived, the bot is a member).
_ROLES = {
    "joined": ("false", "false", True),
    "outside": ("false", "false", False),
    "private-joined": ("true", "false", True),
    "private-outside": ("true", "false", False),
    "archived-joined": ("false", "true", True),
    "archived-outside": ("false", "true", False),
}


def role(backend: Backend, which: str) -> dict[str, str]:
    """A channel (not general, not a DM) of this kind, the one with the fewest members."""
    private, archived, member = _ROLES[which]
    rows = backend.store.select(
        "channel",
        f"is_im = 'false' AND is_general = 'false' AND is_private = ? AND is_archived = ? AND "
        f"{'' if member else 'NOT '}{_MEMBER}",
        (private, archived, bot_id(backend)),
        order_by="(SELECT COUNT(*) FROM channel_member m WHERE m.channel = channel.id), name",
        limit=1,
    )
    assert rows, which
    return rows[0]


def person(backend: Backend, where: str = "1", params: tuple = ()) -> dict[str, str]:
    """An active human member (not the bot or the owner) matching ``where``."""
    rows = backend.store.select(
        "user",
        f"deleted = 'false' AND is_bot = 'false' AND name != ? AND ({where})",
        (OWNER_HANDLE, *params),
        limit=1,
    )
    assert rows, where
    return rows[0]


def bot_id(backend: Backend) -> str:
    return backend.identity.user_sys_id


def others_message(backend: Backend, name: str) -> dict[str, str]:
    """A top-level message someone other than the bot posted in a channel."""
    rows = backend.store.select(
        "message",
        "channel = ? AND \"user\" != ? AND (thread_ts = '' OR thread_ts = ts)",
        (channel(backend, name)["id"], bot_id(backend)),
        limit=1,
    )
    assert rows, name
    return rows[0]


# -- the surface -----------------------------------------------------------------------------------------


def test_one_tool_per_method_of_the_document_and_wait() -> None:
    assert set(SURFACE.tools) == {*methods(), "wait"}
    assert len(methods()) == 38 and SURFACE.full_response
    assert "chat_postMessage" in SURFACE and "users_lookupByEmail" in SURFACE
    assert "usergroups_users_update" in SURFACE
    writes = {name for name, tool in SURFACE.tools.items() if tool.kind.value == "write"}
    assert (
        "chat_postMessage" in writes
        and "conversations_open" in writes
        and "usergroups_users_update" in writes
    )
    assert not writes & {"conversations_list", "users_list", "conversations_history", "api_test", "auth_test"}


def test_argument_schemas_are_the_documents_parameters() -> None:
    for name, method in methods().items():
        schema = SURFACE[name].input_schema
        assert schema == input_schema(method) and schema["additionalProperties"] is False
        unserved = set(UNSERVED_PARAMETERS.get(name, ((), ""))[0])
        assert unserved <= {parameter.name for parameter in method.parameters}, name
        served = served_parameters(method)
        assert set(schema["properties"]) == {p.name for p in method.parameters} - unserved, name
        assert set(schema.get("required", ())) == {p.name for p in served if p.required}, name
        for parameter in served:
            assert schema["properties"][parameter.name]["description"], (name, parameter.name)
        description = SURFACE[name].description
        assert description.startswith(method.summary.strip().rstrip(".")) and len(description) < 700, name
    # The document's types and Slack's encodings.
    history = SURFACE["conversations_history"].input_schema["properties"]
    assert history["inclusive"]["enum"] == [True, False, "true", "false", "1", "0"]
    assert history["limit"]["type"] == ["integer", "string"]
    assert history["oldest"]["type"] == ["string", "number"]
    assert SURFACE["conversations_invite"].input_schema["properties"]["users"]["type"] == ["string", "array"]
    assert SURFACE["usergroups_users_update"].input_schema["required"] == ["usergroup", "users"]
    assert SURFACE["reactions_add"].input_schema["required"] == ["channel", "name", "timestamp"]


def test_every_code_a_handler_answers_is_documented_or_listed() -> None:
    for name, method in methods().items():
        undocumented = UNDOCUMENTED_ERRORS.get(name, {})
        for code in METHOD_ERRORS[name]:
            assert code in method.errors or code in undocumented or code in GENERIC_ERRORS, (name, code)
        for code, why in undocumented.items():
            # Each listed code is one the method answers and the 2021 enum really omits.
            assert code in METHOD_ERRORS[name] and code not in method.errors and why, (name, code)
    assert set(METHOD_ERRORS) == set(methods())
    # The user group codes Slack sends today that its 2021 description leaves out.
    assert {"name_already_exists", "handle_already_exists"} <= set(UNDOCUMENTED_ERRORS["usergroups_create"])
    assert "invalid_users" in UNDOCUMENTED_ERRORS["usergroups_users_update"]


# -- answers ---------------------------------------------------------------------------------------------


def test_every_tool_answers_as_the_document_describes(slack: Backend) -> None:
    ANSWERED.clear()
    me = bot_id(slack)
    general, it_help = channel(slack, "general"), role(slack, "joined")
    it_admins = role(slack, "private-joined")
    alice, bob = person(slack), person(slack, "id != ?", (person(slack)["id"],))
    ok(slack, "api_test")
    assert ok(slack, "api_test", foo="bar")["args"] == {"foo": "bar"}
    who = ok(slack, "auth_test")
    assert who["user_id"] == me and who["user"] == BOT_HANDLE and who["bot_id"].startswith("B")
    assert who["url"] == "https://example.slack.com/" and who["team_id"].startswith("T")
    # Conversations.
    listed = ok(slack, "conversations_list", types="public_channel,private_channel,im", limit=50)
    assert {row["id"] for row in listed["channels"]} >= {general["id"], it_admins["id"]}
    assert all("is_member" in row for row in listed["channels"] if not row["is_im"])
    ok(slack, "users_conversations", types=["public_channel", "im"], exclude_archived="true")
    info = ok(slack, "conversations_info", channel=general["id"], include_num_members="1")["channel"]
    assert info["num_members"] == slack.store.count("channel_member", "channel = ?", (general["id"],))
    assert info["topic"].keys() == {"value", "creator", "last_set"} and info["is_member"] is True
    ok(slack, "conversations_info", channel="#" + it_admins["name"])
    ok(slack, "conversations_members", channel=general["id"], limit="5")
    ok(slack, "conversations_history", channel=general["id"], limit=5, inclusive=True, oldest=0)
    ok(slack, "conversations_history", channel=it_help["id"])
    readable = f"channel IN (SELECT id FROM channel WHERE {READABLE_CHANNELS})"
    parent = slack.store.select("message", f"reply_count != '' AND {readable}", (me,), limit=1)[0]
    history = ok(slack, "conversations_history", channel=parent["channel"], limit=200)["messages"]
    threaded = next(m for m in history if m["ts"] == parent["ts"])
    replies = ok(slack, "conversations_replies", channel=parent["channel"], ts=threaded["ts"])["messages"]
    assert replies[0]["ts"] == threaded["ts"] and len(replies) == threaded["reply_count"] + 1
    created = ok(slack, "conversations_create", name="inc-printer-floor-3", is_private=False)["channel"]
    assert created["creator"] == me and created["is_member"] is True
    ok(slack, "conversations_history", channel=created["id"])  # an empty history
    ok(slack, "conversations_setTopic", channel=created["id"], topic="Printer down on floor 3")
    ok(slack, "conversations_setPurpose", channel=created["id"], purpose="Incident room")
    ok(slack, "conversations_invite", channel=created["id"], users=f"{alice['id']},{bob['id']}")
    ok(slack, "conversations_kick", channel=created["id"], user=bob["id"])
    ok(slack, "conversations_rename", channel=created["id"], name="inc-printer-floor-3-done")
    ok(slack, "conversations_archive", channel=created["id"])
    ok(slack, "conversations_unarchive", channel=created["id"])
    ok(slack, "conversations_leave", channel=created["id"])
    outside = role(slack, "outside")
    joined = ok(slack, "conversations_join", channel=outside["name"])
    assert "warning" not in joined and joined["channel"]["is_member"] is True
    again = ok(slack, "conversations_join", channel=outside["id"])
    assert again["warning"] == "already_in_channel"
    assert again["response_metadata"] == {"warnings": ["already_in_channel"]}
    opened = ok(slack, "conversations_open", users=alice["id"])
    assert set(opened["channel"]) == {"id"} and opened["channel"]["id"].startswith("D")
    dm = ok(slack, "conversations_open", users=[alice["id"]], return_im=True)
    assert dm["already_open"] is True and dm["no_op"] is True and dm["channel"]["user"] == alice["id"]
    ok(slack, "conversations_open", channel=dm["channel"]["id"])
    # Messages and reactions.
    posted = ok(slack, "chat_postMessage", channel="general", text="The VPN is back up.")
    assert posted["channel"] == general["id"] and posted["message"]["user"] == me
    assert posted["message"]["bot_id"] and posted["ts"] == posted["message"]["ts"]
    ok(slack, "chat_postMessage", channel=dm["channel"]["id"], text="Your laptop is ready.")
    ok(slack, "chat_postEphemeral", channel=general["id"], user=alice["id"], text="Only you see this.")
    ok(slack, "reactions_add", channel=general["id"], timestamp=posted["ts"], name=":white_check_mark:")
    got = ok(slack, "reactions_get", channel=general["id"], timestamp=posted["ts"], full=True)
    assert got["message"]["reactions"] == [{"name": "white_check_mark", "users": [me], "count": 1}]
    ok(slack, "reactions_remove", channel=general["id"], timestamp=posted["ts"], name="white_check_mark")
    edited = ok(
        slack, "chat_update", channel=general["id"], ts=posted["ts"], text="The VPN is back up (fixed)."
    )
    assert edited["message"]["edited"]["user"] == me and edited["text"].endswith("(fixed).")
    history = ok(slack, "conversations_history", channel=general["id"], limit=1)["messages"]
    assert history[0]["edited"] == edited["message"]["edited"]
    link = ok(slack, "chat_getPermalink", channel=general["id"], message_ts=posted["ts"])["permalink"]
    assert link == f"https://example.slack.com/archives/{general['id']}/p{posted['ts'].replace('.', '')}"
    ok(slack, "chat_delete", channel=general["id"], ts=float(posted["ts"]))
    # User groups.
    groups = ok(slack, "usergroups_list", include_users="true", include_count=True)["usergroups"]
    assert all(len(group["users"]) == group["user_count"] for group in groups)
    group = ok(slack, "usergroups_create", name="Printer Fixers", handle="printer-fixers")["usergroup"]
    assert group["user_count"] == 0 and group["created_by"] == me and "users" not in group
    updated = ok(slack, "usergroups_users_update", usergroup=group["id"], users=[alice["id"], bob["id"]])
    pair = sorted([alice["id"], bob["id"]])
    assert sorted(updated["usergroup"]["users"]) == pair and updated["usergroup"]["user_count"] == 2
    assert sorted(ok(slack, "usergroups_users_list", usergroup=group["id"])["users"]) == pair
    ok(slack, "usergroups_update", usergroup=group["id"], description="Floor 3 printers")
    disabled = ok(slack, "usergroups_disable", usergroup=group["id"])["usergroup"]
    assert disabled["date_delete"] > 0 and disabled["deleted_by"] == me
    ok(slack, "usergroups_users_list", usergroup=group["id"], include_disabled=True)
    assert ok(slack, "usergroups_enable", usergroup=group["id"])["usergroup"]["date_delete"] == 0
    # Users.
    users = ok(slack, "users_list", limit=5, include_locale=True)
    assert len(users["members"]) == 5 and users["members"][0]["locale"] == "en-US"
    found = ok(slack, "users_lookupByEmail", email=alice["email"])["user"]
    assert found["id"] == alice["id"] and found["profile"]["email"] == alice["email"]
    assert ok(slack, "users_info", user=alice["id"])["user"] == found
    assert ok(slack, "users_profile_get", user=alice["id"])["profile"] == found["profile"]
    assert ok(slack, "users_profile_get")["profile"]["bot_id"] == who["bot_id"]
    deleted = slack.store.select("user", "deleted = 'true'", limit=1)[0]
    assert ok(slack, "users_info", user=deleted["id"])["user"]["deleted"] is True
    assert slack.call("wait", {"seconds": 5}, surface="rest").ok
    assert set(methods()) == ANSWERED, sorted(set(methods()) - ANSWERED)


def test_slacks_encodings_of_booleans_lists_and_numbers(slack: Backend) -> None:
    for value in (True, "true", "1"):
        channels = ok(slack, "conversations_list", exclude_archived=value, limit=200)["channels"]
        assert not any(row["is_archived"] for row in channels)
    for value in (False, "false", "0"):
        channels = ok(slack, "conversations_list", exclude_archived=value, limit=200)["channels"]
        assert any(row["is_archived"] for row in channels)
    assert len(ok(slack, "users_list", limit="3")["members"]) == 3
    both = ok(slack, "conversations_list", types=["im", "private_channel"], limit=100)["channels"]
    assert {row["is_im"] for row in both} == {True, False}
    assert both == ok(slack, "conversations_list", types="im, private_channel", limit=100)["channels"]
    bad = refused(slack, "conversations_list", "invalid_arguments", exclude_archived="yes")
    assert bad.body["response_metadata"]["messages"][0].startswith("[ERROR]")
    refused(slack, "users_list", "invalid_arguments", limit="ten")
    refused(slack, "chat_postMessage", "invalid_arguments", channel="general", text="x", blocks="[]")
    missing = refused(slack, "reactions_add", "invalid_arguments", channel="general", name="tada")
    assert "timestamp" in missing.body["response_metadata"]["messages"][0]
    # A channel Slack's 2021 description does not require is still needed.
    missing = refused(slack, "conversations_info", "invalid_arguments")
    assert missing.body["response_metadata"]["messages"] == ["[ERROR] missing required field: channel"]


def test_api_test_fails_with_the_code_it_is_given(slack: Backend) -> None:
    result = rest(slack, "api_test", error="my_error", foo="x")
    assert result.body == {"ok": False, "error": "my_error", "args": {"error": "my_error", "foo": "x"}}


# -- threads -----------------------------------------------------------------------------------------------


def test_a_thread_reply_counts_on_its_parent(slack: Backend) -> None:
    it_help = role(slack, "joined")
    parent = slack.store.select(
        "message", "channel = ? AND thread_ts = '' AND \"user\" != ?", (it_help["id"], bot_id(slack)), limit=1
    )[0]
    reply = ok(
        slack, "chat_postMessage", channel=it_help["id"], text="Looking into it.", thread_ts=parent["ts"]
    )
    assert reply["message"]["thread_ts"] == parent["ts"]
    stored = slack.store.get("message", parent["id"])
    assert stored["reply_count"] == stored["reply_users_count"] == "1" and stored["thread_ts"] == parent["ts"]
    member = person(slack, 'id IN (SELECT "user" FROM channel_member WHERE channel = ?)', (it_help["id"],))
    second = ok(
        slack,
        "chat_postMessage",
        as_user_row(slack, member),
        channel=it_help["id"],
        text="Thanks!",
        thread_ts=parent["ts"],
    )
    thread = ok(slack, "conversations_replies", channel=it_help["id"], ts=parent["ts"])["messages"]
    assert [m["ts"] for m in thread] == [parent["ts"], reply["ts"], second["ts"]]
    assert thread[0]["reply_count"] == 2 and thread[0]["reply_users_count"] == 2
    assert thread[0]["latest_reply"] == second["ts"]
    # The history shows the parent with its count, not the replies.
    history = ok(slack, "conversations_history", channel=it_help["id"], limit=200)["messages"]
    assert reply["ts"] not in {m["ts"] for m in history}
    assert next(m for m in history if m["ts"] == parent["ts"])["reply_count"] == 2
    # A reply to a reply is refused: Slack threads are one level deep.
    refused(
        slack, "chat_postMessage", "thread_not_found", channel=it_help["id"], text="x", thread_ts=reply["ts"]
    )


# -- paging ------------------------------------------------------------------------------------------------


def _pages(backend: Backend, tool: str, key: str, **arguments: Any) -> list[list[Any]]:
    pages, cursor = [], ""
    while True:
        body = ok(backend, tool, cursor=cursor, **arguments)
        pages.append(body[key])
        cursor = body["response_metadata"]["next_cursor"]
        if not cursor:
            return pages
        assert len(pages) < 100


def test_cursor_paging_visits_every_visible_row_once(slack: Backend) -> None:
    pages = _pages(slack, "users_list", "members", limit=7)
    ids = [user["id"] for page in pages for user in page]
    assert len(ids) == len(set(ids)) and set(ids) == {row["id"] for row in slack.store.select("user", "1")}
    assert all(len(page) == 7 for page in pages[:-1]) and 1 <= len(pages[-1]) <= 7
    types = "public_channel,private_channel,im,mpim"
    pages = _pages(slack, "conversations_list", "channels", types=types, limit=4)
    ids = [row["id"] for page in pages for row in page]
    visible = {row["id"] for row in slack.store.select("channel", READABLE_CHANNELS, (bot_id(slack),))}
    assert len(ids) == len(set(ids)) and set(ids) == visible
    assert role(slack, "private-outside")["id"] not in ids
    general = channel(slack, "general")
    members = [
        m
        for page in _pages(slack, "conversations_members", "members", channel="general", limit=9)
        for m in page
    ]
    assert sorted(members) == sorted(
        slack.store.column_values("channel_member", "user", "channel = ?", (general["id"],))
    )
    # History pages by has_more and the cursor, newest first.
    seen, cursor = [], ""
    while True:
        body = ok(slack, "conversations_history", channel=general["id"], limit=2, cursor=cursor)
        seen += [message["ts"] for message in body["messages"]]
        if not body["has_more"]:
            assert "response_metadata" not in body
            break
        cursor = body["response_metadata"]["next_cursor"]
    assert seen == sorted(seen, reverse=True) and len(seen) == len(set(seen))


def test_a_cursor_not_handed_out_and_a_bad_limit_are_refused(slack: Backend) -> None:
    for cursor in ("garbage", "bmV4dDp4", "dXNlcjpVMDYxTkZUVDI="):
        refused(slack, "users_list", "invalid_cursor", cursor=cursor)
    refused(slack, "conversations_list", "invalid_cursor", cursor="garbage")
    refused(slack, "conversations_members", "invalid_cursor", channel="general", cursor="nope")
    refused(slack, "users_list", "invalid_limit", limit=5000)
    refused(slack, "conversations_list", "invalid_types", types="public_channel,dm")


def test_a_page_size_cap_shortens_pages(slack: Backend) -> None:
    slack.set_faults(FaultConfig(page_size_cap=3))
    body = ok(slack, "users_list", limit=100)
    assert len(body["members"]) == 3 and body["response_metadata"]["next_cursor"]


# -- refusals ----------------------------------------------------------------------------------------------


def test_conversation_refusals(slack: Backend) -> None:
    leadership, general = role(slack, "private-outside"), channel(slack, "general")
    joined, outside = role(slack, "joined")["id"], role(slack, "outside")
    alice = person(slack, 'id IN (SELECT "user" FROM channel_member WHERE channel = ?)', (general["id"],))
    # A private channel the bot is not in does not exist for it.
    for tool, arguments in (
        ("conversations_info", {}),
        ("conversations_history", {}),
        ("conversations_members", {}),
        ("conversations_join", {}),
        ("chat_postMessage", {"text": "hello"}),
    ):
        refused(slack, tool, "channel_not_found", channel=leadership["id"], **arguments)
    refused(slack, "conversations_info", "channel_not_found", channel="no-such-channel")
    refused(slack, "chat_postMessage", "not_in_channel", channel=outside["id"], text="hello")
    refused(slack, "conversations_setTopic", "not_in_channel", channel=outside["id"], topic="x")
    archived = role(slack, "archived-joined")
    refused(slack, "chat_postMessage", "is_archived", channel=archived["id"], text="hello")
    refused(slack, "conversations_setPurpose", "is_archived", channel=archived["id"], purpose="x")
    refused(slack, "conversations_archive", "already_archived", channel=archived["id"])
    refused(slack, "conversations_join", "is_archived", channel=role(slack, "archived-outside")["id"])
    refused(slack, "conversations_unarchive", "not_archived", channel="general")
    refused(
        slack,
        "conversations_archive",
        "cant_archive_general",
        as_handle(slack, OWNER_HANDLE),
        channel="general",
    )
    refused(slack, "conversations_invite", "already_in_channel", channel="general", users=alice["id"])
    refused(slack, "conversations_invite", "cant_invite_self", channel=joined, users=bot_id(slack))
    refused(slack, "conversations_invite", "user_not_found", channel=joined, users="U0NOSUCHONE")
    refused(slack, "conversations_invite", "no_user", channel=joined, users=" , ")
    refused(slack, "conversations_invite", "not_in_channel", channel=outside["id"], users=alice["id"])
    leaver = slack.store.select("user", "deleted = 'true'", limit=1)[0]
    refused(slack, "conversations_invite", "cant_invite", channel=joined, users=leaver["id"])
    refused(slack, "conversations_kick", "cant_kick_from_general", channel="general", user=alice["id"])
    refused(slack, "conversations_kick", "cant_kick_self", channel=joined, user=bot_id(slack))
    refused(slack, "conversations_leave", "cant_leave_general", channel="general")
    refused(slack, "conversations_create", "name_taken", name=outside["name"])
    refused(slack, "conversations_create", "invalid_name_specials", name="Printer Room!")
    refused(slack, "conversations_create", "invalid_name_required", name="")
    refused(slack, "conversations_create", "invalid_name_maxlength", name="x" * 81)
    refused(slack, "conversations_rename", "name_taken", channel=joined, name="general")
    refused(slack, "conversations_setTopic", "too_long", channel=joined, topic="x" * 251)
    refused(
        slack,
        "conversations_join",
        "method_not_supported_for_channel_type",
        channel=role(slack, "private-joined")["id"],
    )
    dm = slack.store.select("channel", "is_im = 'true'", limit=1)[0]
    refused(slack, "conversations_archive", "method_not_supported_for_channel_type", channel=dm["id"])
    refused(slack, "conversations_open", "method_not_supported_for_channel_type", channel="general")
    refused(slack, "conversations_open", "users_list_not_supplied")
    refused(slack, "conversations_open", "user_disabled", users=leaver["id"])
    refused(slack, "conversations_open", "user_not_found", users="U0NOSUCHONE")
    two = [alice["id"], person(slack, "id != ?", (alice["id"],))["id"]]
    refused(slack, "conversations_open", "invalid_arguments", users=two)
    refused(slack, "conversations_history", "invalid_ts_oldest", channel="general", oldest="yesterday")
    refused(slack, "conversations_history", "invalid_ts_latest", channel="general", latest="1.2.3")
    refused(slack, "users_conversations", "user_not_found", user="U0NOSUCHONE")


def test_a_leave_from_outside_is_a_flagged_success(slack: Backend) -> None:
    outside = role(slack, "outside")
    before = slack.serialize()
    assert ok(slack, "conversations_leave", channel=outside["id"]) == {"ok": True, "not_in_channel": True}
    assert slack.serialize() == before


def test_message_refusals(slack: Backend) -> None:
    general = channel(slack, "general")
    joined, outside = role(slack, "joined"), role(slack, "outside")
    theirs = others_message(slack, "general")
    refused(slack, "chat_postMessage", "no_text", channel="general", text="   ")
    refused(slack, "chat_postMessage", "no_text", channel="general")
    refused(slack, "chat_postMessage", "msg_too_long", channel="general", text="x" * (MAX_TEXT + 1))
    refused(
        slack,
        "chat_postMessage",
        "thread_not_found",
        channel="general",
        text="x",
        thread_ts="1700000000.000001",
    )
    refused(
        slack, "chat_update", "cant_update_message", channel=general["id"], ts=theirs["ts"], text="mine now"
    )
    refused(slack, "chat_delete", "cant_delete_message", channel=general["id"], ts=theirs["ts"])
    refused(
        slack, "chat_update", "message_not_found", channel=general["id"], ts="1700000000.000001", text="x"
    )
    refused(
        slack, "chat_getPermalink", "message_not_found", channel=general["id"], message_ts="1700000000.000001"
    )
    refused(slack, "chat_update", "invalid_arguments", channel=general["id"], ts="yesterday", text="x")
    # Posting under another name needs a scope the IT bot's token does not hold.
    for name, value in (
        ("username", "Helpdesk"),
        ("icon_emoji", ":robot_face:"),
        ("icon_url", "https://x/y.png"),
    ):
        result = refused(
            slack, "chat_postMessage", "missing_scope", channel="general", text="hi", **{name: value}
        )
        assert result.body["needed"] == "chat:write.customize"
    refused(slack, "chat_postMessage", "invalid_arguments", channel="general", text="hi", as_user="true")
    assert (
        ok(slack, "chat_postMessage", channel="general", text="hi", as_user="false")["message"]["text"]
        == "hi"
    )
    outsider = person(
        slack, 'id NOT IN (SELECT "user" FROM channel_member WHERE channel = ?)', (joined["id"],)
    )
    refused(
        slack,
        "chat_postEphemeral",
        "user_not_in_channel",
        channel=joined["id"],
        user=outsider["id"],
        text="x",
    )
    refused(
        slack, "chat_postEphemeral", "not_in_channel", channel=outside["id"], user=outsider["id"], text="x"
    )
    refused(slack, "chat_postEphemeral", "no_text", channel=joined["id"], user=outsider["id"], text="")


def test_reaction_refusals(slack: Backend) -> None:
    general = channel(slack, "general")
    theirs = others_message(slack, "general")
    ok(slack, "reactions_add", channel=general["id"], timestamp=theirs["ts"], name="eyes")
    refused(
        slack, "reactions_add", "already_reacted", channel=general["id"], timestamp=theirs["ts"], name="eyes"
    )
    refused(
        slack, "reactions_add", "invalid_name", channel=general["id"], timestamp=theirs["ts"], name="no way!"
    )
    refused(
        slack, "reactions_remove", "no_reaction", channel=general["id"], timestamp=theirs["ts"], name="tada"
    )
    refused(
        slack,
        "reactions_add",
        "message_not_found",
        channel=general["id"],
        timestamp="1700000000.000001",
        name="eyes",
    )
    refused(slack, "reactions_get", "no_item_specified", channel=general["id"])
    leadership = role(slack, "private-outside")
    hidden = slack.store.select("message", "channel = ?", (leadership["id"],), limit=1)[0]
    refused(
        slack,
        "reactions_add",
        "channel_not_found",
        channel=leadership["id"],
        timestamp=hidden["ts"],
        name="eyes",
    )


def test_user_and_user_group_refusals(slack: Backend) -> None:
    group = slack.store.select("usergroup", "1", limit=1)[0]
    leaver = slack.store.select("user", "deleted = 'true'", limit=1)[0]
    refused(slack, "users_lookupByEmail", "users_not_found", email="nobody@example.com")
    refused(slack, "users_lookupByEmail", "users_not_found", email="it-bot")
    refused(slack, "users_info", "user_not_found", user="U0NOSUCHONE")
    refused(slack, "users_profile_get", "user_not_found", user="U0NOSUCHONE")
    refused(slack, "usergroups_users_list", "no_such_subteam", usergroup="S0NOSUCHONE")
    refused(slack, "usergroups_update", "no_such_subteam", usergroup="S0NOSUCHONE", name="x")
    made = ok(slack, "usergroups_create", name="Printer Fixers", handle="printer-fixers")["usergroup"]
    refused(slack, "usergroups_create", "handle_already_exists", name="Another", handle=made["handle"])
    refused(slack, "usergroups_create", "handle_already_exists", name="Another", handle=BOT_HANDLE)
    refused(slack, "usergroups_create", "name_already_exists", name=group["name"], handle="fresh-handle")
    refused(slack, "usergroups_update", "name_already_exists", usergroup=made["id"], name=group["name"])
    refused(slack, "usergroups_create", "invalid_arguments", name="Bad Handle", handle="Bad Handle!")
    refused(slack, "usergroups_users_update", "invalid_users", usergroup=group["id"], users=leaver["id"])
    refused(slack, "usergroups_users_update", "invalid_users", usergroup=group["id"], users="U0NOSUCHONE")
    refused(slack, "usergroups_users_update", "invalid_users", usergroup=group["id"], users=",")
    disabled = ok(slack, "usergroups_disable", usergroup=group["id"])["usergroup"]
    refused(slack, "usergroups_users_list", "no_such_subteam", usergroup=disabled["id"])
    assert group["id"] not in {g["id"] for g in ok(slack, "usergroups_list")["usergroups"]}
    assert group["id"] in {g["id"] for g in ok(slack, "usergroups_list", include_disabled=True)["usergroups"]}


def test_a_refused_write_is_logged_as_tried(slack: Backend) -> None:
    refused(slack, "chat_postMessage", "missing_scope", channel="general", text="hi", username="Helpdesk")
    theirs = others_message(slack, "general")
    refused(slack, "chat_update", "cant_update_message", channel="general", ts=theirs["ts"], text="x")
    assert [(denial.tool, denial.table) for denial in slack.denials] == [
        ("chat_postMessage", "message"),
        ("chat_update", "message"),
    ]


# -- rate limits -----------------------------------------------------------------------------------------


def test_a_rate_limit_is_slacks_429_with_retry_after(slack: Backend) -> None:
    slack.set_faults(FaultConfig(rate_limit=RateLimit(calls=2, window_seconds=60)))
    assert rest(slack, "auth_test").ok and rest(slack, "users_list", limit=1).ok
    before = slack.serialize()
    limited = rest(slack, "chat_postMessage", channel="general", text="hello")
    assert limited.status == 429 and limited.injected
    assert limited.body == {"ok": False, "error": "ratelimited"}
    assert set(limited.headers) == {"Retry-After"} and int(limited.headers["Retry-After"]) > 0
    assert slack.serialize() == before
    assert slack.call("wait", {"seconds": int(limited.headers["Retry-After"])}, surface="rest").ok
    assert rest(slack, "chat_postMessage", channel="general", text="hello").ok


@pytest.mark.parametrize("tool", ["conversations_list", "chat_postMessage"])
def test_an_injected_outage_is_a_slack_error_body(slack: Backend, tool: str) -> None:
    slack.set_faults(FaultConfig(unavailable_p=1.0))
    result = (
        rest(slack, tool, channel="general", text="x") if tool == "chat_postMessage" else rest(slack, tool)
    )
    assert result.status == 503 and result.body == {"ok": False, "error": "service_unavailable"}
