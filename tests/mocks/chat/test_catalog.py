"""The chat catalog: Slack's objects as tables through the generic OpenAPI step and its overlay.

This is the contract the chat services, surfaces and world are written against: the tables,
their keys and display fields, the columns (Slack's JSON names) and their kinds, references.
"""

from __future__ import annotations

import json
from dataclasses import fields

from enterprise_envs.mocks.chat.tables import catalog_overlay, chat_catalog, spec_document

CATALOG = chat_catalog()
SCHEMAS = spec_document()["components"]["schemas"]


def _kinds(table: str) -> dict[str, str]:
    return {spec.name: spec.kind for spec in CATALOG[table].fields}


def _has(table: str, kinds: dict[str, str]) -> None:
    """The table has these columns, of these kinds."""
    have = _kinds(table)
    missing = set(kinds) - set(have)
    assert not missing, f"{table} lacks {sorted(missing)}"
    wrong = {name: (have[name], kind) for name, kind in kinds.items() if have[name] != kind}
    assert not wrong, f"{table}: (have, want) {wrong}"


def _all(kind: str, *names: str) -> dict[str, str]:
    return dict.fromkeys(names, kind)


def test_the_tables_their_keys_labels_and_display_fields() -> None:
    assert chat_catalog() is CATALOG and CATALOG.system == "chat"
    assert list(CATALOG) == [
        "user", "channel", "message", "usergroup", "channel_member", "reaction", "usergroup_member",
    ]  # fmt: skip
    assert {name: table.key_field for name, table in CATALOG.items()} == dict.fromkeys(CATALOG, "id")
    assert {name: table.label for name, table in CATALOG.items()} == {
        "user": "User",
        "channel": "Channel",
        "message": "Message",
        "usergroup": "User Group",
        "channel_member": "Channel Member",
        "reaction": "Reaction",
        "usergroup_member": "User Group Member",
    }
    displays = {name: table.display_field for name, table in CATALOG.items()}
    assert displays["user"] == "name" and displays["channel"] == "name" and displays["usergroup"] == "handle"
    assert displays["message"] == "ts" and displays["reaction"] == "name"
    for table in CATALOG.values():
        assert table.columns[0] == "id" and table.field("id").read_only, table.name
        assert table.number_prefix is None  # Slack numbers nothing


def test_a_user_is_objs_user_with_its_profile_flattened() -> None:
    _has("user", {
        "id": "string", "team_id": "string", "name": "string", "real_name": "string", "tz": "string",
        "tz_label": "string", "color": "string", "tz_offset": "integer", "updated": "integer",
        **_all("boolean", "deleted", "is_admin", "is_owner", "is_primary_owner", "is_restricted",
               "is_ultra_restricted", "is_bot", "is_app_user"),
        **_all("string", "email", "display_name", "first_name", "last_name", "title", "phone", "status_text",
               "status_emoji"),
    })  # fmt: skip
    user = CATALOG["user"]
    # Nothing of the avatar, no object, no profile property shadowing a top-level one.
    for name in user.columns:
        assert not name.startswith(("image_", "profile")) and name not in ("avatar_hash", "skype", "fields")
    assert "enterprise_user" not in user.columns and "team_profile" not in user.columns
    assert user.field("updated").derived and user.field("updated").read_only
    assert not user.field("name").read_only and not user.field("email").read_only
    assert user.field("real_name_normalized").computed and user.field("display_name_normalized").computed
    assert user.field("tz").label == "Time zone"


def test_a_channel_is_objs_conversation_with_topic_and_purpose_flattened() -> None:
    _has("channel", {
        "id": "string", "name": "string", "name_normalized": "string", "created": "integer",
        "creator": "reference", "user": "reference",
        **_all("boolean", "is_channel", "is_group", "is_im", "is_mpim", "is_private", "is_archived",
               "is_general", "is_shared", "is_ext_shared", "is_org_shared"),
        "topic_value": "string", "topic_creator": "reference", "topic_last_set": "integer",
        "purpose_value": "string", "purpose_creator": "reference", "purpose_last_set": "integer",
    })  # fmt: skip
    channel = CATALOG["channel"]
    # Slack's group DM narrows is_mpim to enum [true]: still a boolean, not a one-value choice.
    assert channel.field("is_mpim").choices is None
    for name in ("previous_names", "pending_shared", "shared_team_ids", "members", "num_members", "is_member",
                 "topic", "purpose", "latest", "last_read"):  # fmt: skip
        assert name not in channel.columns, name
    assert channel.field("created").read_only and channel.field("name_normalized").computed


def test_a_message_is_objs_message_in_a_channel_keyed_internally() -> None:
    _has("message", {
        "id": "string", "channel": "reference", "ts": "string", "thread_ts": "string", "type": "string",
        "subtype": "string", "user": "reference", "bot_id": "string", "text": "string",
        "reply_count": "integer", "reply_users_count": "integer", "latest_reply": "string",
        "username": "string", "client_msg_id": "string", "edited_ts": "string", "edited_user": "reference",
    })  # fmt: skip
    message = CATALOG["message"]
    assert "id" not in SCHEMAS["objs_message"]["properties"]  # Slack names it by (channel, ts)
    for name in (
        "attachments",
        "blocks",
        "files",
        "icons",
        "reactions",
        "reply_users",
        "edited",
        "permalink",
    ):
        assert name not in message.columns, name
    assert message.field("ts").read_only and not message.field("text").read_only
    assert message.field("reply_count").derived
    assert message.columns[-3:] == ("channel", "edited_ts", "edited_user")


def test_a_user_group_is_objs_subteam() -> None:
    _has("usergroup", {
        **_all("string", "id", "team_id", "name", "handle", "description"),
        **_all("boolean", "is_usergroup", "is_external"),
        **_all("integer", "date_create", "date_update", "date_delete", "user_count"),
        **_all("reference", "created_by", "updated_by", "deleted_by"),
    })  # fmt: skip
    group = CATALOG["usergroup"]
    assert "auto_type" in group.columns
    assert dict(group.field("auto_type").choices or {}) == {"owner": "owner", "admin": "admin"}
    assert group.field("user_count").derived and not group.field("user_count").read_only
    assert group.field("date_update").derived and group.field("date_create").read_only
    for name in ("prefs", "users", "channel_count", "enterprise_subteam_id"):
        assert name not in group.columns, name


def test_the_tables_slack_has_no_object_for() -> None:
    assert CATALOG["channel_member"].columns == ("id", "channel", "user")
    assert CATALOG["reaction"].columns == ("id", "message", "name", "user")
    assert CATALOG["usergroup_member"].columns == ("id", "usergroup", "user")
    assert _kinds("reaction")["name"] == "string"


def test_every_reference_points_at_a_modelled_table() -> None:
    references = {
        (name, spec.name): spec.reference
        for name, table in CATALOG.items()
        for spec in table.fields
        if spec.kind == "reference"
    }
    assert references == {
        **{("channel", name): "user" for name in ("creator", "user", "topic_creator", "purpose_creator")},
        ("message", "user"): "user",
        ("message", "channel"): "channel",
        ("message", "edited_user"): "user",
        **{("usergroup", name): "user" for name in ("created_by", "updated_by", "deleted_by")},
        ("channel_member", "channel"): "channel",
        ("channel_member", "user"): "user",
        ("reaction", "message"): "message",
        ("reaction", "user"): "user",
        ("usergroup_member", "usergroup"): "usergroup",
        ("usergroup_member", "user"): "user",
    }
    assert all(CATALOG.is_local(target) for target in references.values())


def test_indexes_and_bookkeeping() -> None:
    assert {name: table.indexes for name, table in CATALOG.items()} == {
        "user": (("name",), ("email",)),
        "channel": (("name",),),
        "message": (("channel", "ts"), ("thread_ts",)),
        "usergroup": (("handle",),),
        "channel_member": (("channel",), ("user",)),
        "reaction": (("message",),),
        "usergroup_member": (("usergroup",), ("user",)),
    }
    derived = {(name, spec.name) for name, table in CATALOG.items() for spec in table.fields if spec.derived}
    assert {("user", "updated"), ("usergroup", "date_update"), ("usergroup", "user_count")} <= derived
    overlay = catalog_overlay()
    assert overlay["fields"]["audit"] == ["updated", "date_update"]
    assert set(overlay["fields"]["system"]) == {"id", "ts", "created", "date_create"}


def test_every_column_of_a_described_table_is_a_property_slack_documents() -> None:
    """No invented names: each column is a property of the table's schema (or of the object
    flattened into it), except the overlay's extra fields and the message's internal key."""
    extra = {
        table: {entry["name"] for entry in entries}
        for table, entries in catalog_overlay()["extra_fields"].items()
    }
    flattened = {"user": {"profile": "objs_user_profile"}}
    for table, schema_name in catalog_overlay()["schemas"].items():
        schema = SCHEMAS[schema_name]
        alternatives = schema.get("anyOf", [schema])
        names = {prop for alt in alternatives for prop in alt["properties"]}
        for nested in flattened.get(table, {}).values():
            names |= set(SCHEMAS[nested]["properties"])
        if table == "channel":
            names |= {
                f"{obj}_{prop}" for obj in ("topic", "purpose") for prop in ("value", "creator", "last_set")
            }
        own = (
            set(CATALOG[table].columns) - extra.get(table, set()) - ({"id"} if table == "message" else set())
        )
        assert own <= names, (table, sorted(own - names))


def test_the_catalog_is_json_serialisable() -> None:
    data = {
        name: {
            "label": table.label,
            "display": table.display_field,
            "indexes": table.indexes,
            "fields": [
                {
                    field.name: dict(value) if field.name == "choices" and value is not None else value
                    for field in fields(spec)
                    for value in [getattr(spec, field.name)]
                }
                for spec in table.fields
            ],
        }
        for name, table in CATALOG.items()
    }
    assert json.loads(json.dumps(data))["user"]["fields"][0]["name"] == "id"
    json.dumps(catalog_overlay())
