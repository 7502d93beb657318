"""A catalog from an OpenAPI document and an overlay kept as data: a new vendor needs no Python."""

from __future__ import annotations

import tomllib

import pytest

from enterprise_envs.mocks._core.openapi import catalog_from_openapi

DOCUMENT = {
    "components": {
        "schemas": {
            "SettingRecord": {
                "properties": {
                    "key": {"type": "string"},
                    "number": {"type": "string"},
                    "sys_id": {"type": "string"},
                    "owner": {"type": "string"},
                    "enabled": {"type": "string"},
                    "level": {"type": "string", "x-choices": {"1": "Low", "2": "High"}},
                    "changed_on": {"type": "string"},
                    "run_duration_on": {"type": "string"},
                    "expires": {"type": "string", "description": "Date/time the setting lapses"},
                    "revision": {"type": "string"},
                    "notes": {"type": "string"},
                }
            }
        }
    }
}

NUMBERED = {"kv_setting": "KVS"}
OVERLAY = tomllib.loads(
    """
key = "sys_id"
common_system = ["created_on", "revision"]

[schemas]
kv_setting = "SettingRecord"

[kinds]
booleans = ["enabled"]
integers = ["revision"]
journals = ["notes"]
datetime_description = "Date/time"
datetime_suffixes = ["_on"]
datetime_excluding = "duration"

[kinds.references]
owner = "kv_user"

[fields]
audit = ["revision"]
system = ["key"]
settable_on_insert = ["owner"]
computed = [["kv_setting", "level"]]

[fields.max_length]
key = 64

[fields.labels]
key = "Key"

[tables.indexes]
kv_setting = [["key"]]

[[extra_fields.kv_setting]]
name = "scope"
kind = "choice"
label = "Scope"

[extra_fields.kv_setting.choices]
global = "Global"

[extra_tables.kv_user]
label = "User"
display = "login"
fields = ["login", "enabled", "owner", "tier"]

[extra_kinds]
tier = ["integer"]

[extra_choices."kv_user.login"]
admin = "Administrator"
"""
)


def test_a_described_table_takes_its_columns_from_the_document_and_the_rest_from_the_overlay() -> None:
    catalog = catalog_from_openapi("kv", DOCUMENT, OVERLAY, NUMBERED)
    table = catalog["kv_setting"]
    described = DOCUMENT["components"]["schemas"]["SettingRecord"]["properties"]
    assert table.columns == ("sys_id", *sorted(set(described) - {"sys_id"}), "scope")
    kinds = {spec.name: spec.kind for spec in table.fields}
    assert kinds == {
        "sys_id": "string", "changed_on": "datetime", "enabled": "boolean", "expires": "datetime",
        "key": "string", "level": "choice", "notes": "journal", "number": "string", "owner": "reference",
        "revision": "integer", "run_duration_on": "string", "scope": "choice",
    }  # fmt: skip
    field = table.field
    assert field("owner").reference == "kv_user" and field("owner").settable_on_insert
    assert field("key").read_only and field("key").max_length == 64 and field("key").label == "Key"
    assert field("revision").read_only and field("revision").derived  # audit fields are both
    assert field("level").computed and dict(field("level").choices) == {"1": "Low", "2": "High"}
    assert dict(field("scope").choices) == {"global": "Global"}
    assert table.number_prefix == "KVS" and table.display_field == "number"
    assert table.indexes == (("key",),) and table.label == "Kv Setting"


def test_an_extra_table_is_listed_by_the_overlay_with_its_bookkeeping_columns() -> None:
    table = catalog_from_openapi("kv", DOCUMENT, OVERLAY, NUMBERED)["kv_user"]
    assert table.columns == ("sys_id", "login", "enabled", "owner", "tier", "created_on", "revision")
    kinds = {spec.name: spec.kind for spec in table.fields}
    assert kinds["login"] == "choice" and kinds["enabled"] == "boolean" and kinds["tier"] == "integer"
    assert kinds["owner"] == "reference" and kinds["created_on"] == "datetime"
    assert all(spec.read_only for spec in table.fields if spec.name in ("sys_id", "created_on", "revision"))
    assert table.display_field == "login" and table.label == "User" and table.number_prefix is None


def test_the_overlay_names_the_key_field() -> None:
    catalog = catalog_from_openapi("kv", DOCUMENT, {**OVERLAY, "key": "key"}, NUMBERED)
    setting, user = catalog["kv_setting"], catalog["kv_user"]
    assert setting.key_field == "key" and setting.columns[1:4] == ("changed_on", "enabled", "expires")
    assert "sys_id" in setting.columns  # an ordinary column now
    assert user.key_field == "key" and user.field("key").read_only
    # Without one, the key is ``id``: a document describing no ``id`` is refused by name.
    with pytest.raises(ValueError, match="no key field 'id'"):
        catalog_from_openapi("kv", DOCUMENT, {k: v for k, v in OVERLAY.items() if k != "key"}, NUMBERED)


# -- records that nest: $ref, allOf, anyOf, enum, formats, flattening (the identity system's needs) --

NESTED = {
    "components": {
        "schemas": {
            "Account": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "readOnly": True},
                    "state": {"$ref": "#/components/schemas/AccountState"},
                    "opened": {"type": "string", "format": "date-time", "readOnly": True},
                    "seen": {"allOf": [{"$ref": "#/components/schemas/Stamp"}, {"description": "Last seen"}]},
                    "tries": {"type": "integer"},
                    "vip": {"type": "boolean"},
                    "card": {"$ref": "#/components/schemas/Card"},
                    "secrets": {"type": "object", "properties": {"pin": {"type": "string"}}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "links": {"type": "array", "items": {"$ref": "#/components/schemas/Link"}},
                    "beta": {"type": "string"},
                    "_links": {"allOf": [{"$ref": "#/components/schemas/Link"}]},
                },
            },
            "AccountState": {"type": "string", "enum": ["OPEN", "FROZEN", None], "readOnly": True},
            "Stamp": {"type": "string", "format": "date-time"},
            "Card": {
                "type": "object",
                "properties": {
                    "holder": {"type": "string", "maxLength": 40},
                    "ownerId": {"type": "string"},
                    "issuer": {"$ref": "#/components/schemas/Issuer"},
                },
            },
            "Issuer": {
                "readOnly": True,
                "anyOf": [
                    {"type": "object", "properties": {"kind": {"type": "string", "enum": ["BANK", "SHOP"]}}},
                    {
                        "type": "object",
                        "properties": {"kind": {"type": "string"}, "region": {"type": "string"}},
                    },
                ],
            },
            "Link": {"type": "object", "properties": {"href": {"type": "string"}}},
            "Event": {
                "type": "object",
                "properties": {"uuid": {"type": "string"}, "what": {"type": "string"}},
            },
        }
    }
}

NESTED_OVERLAY = tomllib.loads(
    """
[schemas]
account = "Account"
event = "Event"

[kinds]
reference_schemas = []

[kinds.references]
ownerId = "account"

[tables.keys]
event = "uuid"

[tables.display]
account = "holder"
event = "what"

[tables.flatten.account]
card = "{name}"
"card.issuer" = "issuer{Name}"

[tables.omit]
account = ["beta", "not.in.this.release"]

[tables.json]
account = ["links"]
"""
)


def test_nested_records_become_columns_by_the_overlays_naming_rule() -> None:
    catalog = catalog_from_openapi("nest", NESTED, NESTED_OVERLAY)
    table = catalog["account"]
    # Key first, then by name: flattened scalars, kept JSON; no object, array, omitted or link field.
    assert table.columns == (
        "id", "holder", "issuerKind", "issuerRegion", "links", "opened", "ownerId", "seen", "state", "tries",
        "vip",
    )  # fmt: skip
    kinds = {spec.name: spec.kind for spec in table.fields}
    assert kinds == {
        "id": "string", "holder": "string", "issuerKind": "choice", "issuerRegion": "string",
        "links": "string", "opened": "datetime", "ownerId": "reference", "seen": "datetime",
        "state": "choice", "tries": "integer", "vip": "boolean",
    }  # fmt: skip
    field = table.field
    # An enum (through a $ref, or an anyOf alternative) is a choice list, each value its own label.
    assert dict(field("state").choices) == {"OPEN": "OPEN", "FROZEN": "FROZEN"}
    assert dict(field("issuerKind").choices) == {"BANK": "BANK", "SHOP": "SHOP"}
    # readOnly holds for the property and for everything under a read-only object.
    assert field("id").read_only and field("state").read_only and field("opened").read_only
    assert field("issuerKind").read_only and field("issuerRegion").read_only
    assert not field("holder").read_only and not field("seen").read_only
    assert field("holder").max_length == 40 and field("ownerId").reference == "account"
    # camelCase names read as words; an explicit label would win.
    assert field("ownerId").label == "Owner id" and field("issuerRegion").label == "Issuer region"
    assert catalog["event"].key_field == "uuid" and catalog["event"].columns == ("uuid", "what")


def test_without_reference_schemas_an_allof_is_still_a_reference() -> None:
    """The legacy rule ITSM's derived document relies on: a reference is wrapped in allOf."""
    overlay = {
        **NESTED_OVERLAY,
        "kinds": {"references": {"seen": "account", "_links": "account", "ownerId": "account"}},
    }
    table = catalog_from_openapi("nest", NESTED, overlay)["account"]
    assert table.field("seen").kind == "reference" and table.field("seen").reference == "account"
    assert table.field("_links").kind == "reference"  # an allOf of an object: a reference all the same
    # With reference_schemas naming Stamp, a $ref to it alone or in an allOf marks a reference.
    marked = {**NESTED_OVERLAY, "kinds": {"reference_schemas": ["Stamp"], "references": {"seen": "account"}}}
    table = catalog_from_openapi("nest", NESTED, marked)["account"]
    assert table.field("seen").kind == "reference" and "_links" not in table


def test_an_overlay_naming_what_the_document_lacks_or_two_names_for_one_column_is_refused() -> None:
    missing = {
        **NESTED_OVERLAY,
        "tables": {**NESTED_OVERLAY["tables"], "flatten": {"account": {"wallet": "{name}"}}},
    }
    with pytest.raises(ValueError, match="paths the document lacks: \\['wallet'\\]"):
        catalog_from_openapi("nest", NESTED, missing)
    clash = {
        **NESTED_OVERLAY,
        "tables": {**NESTED_OVERLAY["tables"], "flatten": {"account": {"card": "tries"}}},
    }
    with pytest.raises(ValueError, match="two properties make the column 'tries'"):
        catalog_from_openapi("nest", NESTED, clash)
    cycle = {"components": {"schemas": {"Loop": {"$ref": "#/components/schemas/Loop"}}}}
    with pytest.raises(ValueError, match="circular reference"):
        catalog_from_openapi("nest", cycle, {"schemas": {"loop": "Loop"}})


def test_labels_internal_keys_boolean_enums_and_clock_fields() -> None:
    """Overlay entries a chat-like vendor needs: a table's label, a key the document does not
    describe (a message named by its channel and timestamp), a boolean narrowed by an enum, and
    fields stamped with the call's time whatever their kind."""
    document = {
        "components": {
            "schemas": {
                "Message": {
                    "properties": {
                        "ts": {"type": "string"},
                        "text": {"type": "string"},
                        "is_mpim": {"type": "boolean", "enum": [True]},
                        "created": {"type": "integer"},
                    }
                }
            }
        }
    }
    overlay = tomllib.loads(
        """
key = "id"
[schemas]
chat_message = "Message"
[fields]
clock = ["ts", "created"]
[tables]
internal_keys = ["chat_message"]
[tables.labels]
chat_message = "Chat Message"
[tables.display]
chat_message = "ts"
"""
    )
    table = catalog_from_openapi("chat", document, overlay)["chat_message"]
    assert table.label == "Chat Message"
    assert table.key_field == "id" and table.field("id").read_only
    assert table.field("is_mpim").kind == "boolean" and table.field("is_mpim").choices is None
    assert {spec.name for spec in table.fields if spec.clock} == {"ts", "created"}
    # A table that describes its key may not be declared internal, nor one lacking it left out.
    with pytest.raises(ValueError, match="describes key field"):
        catalog_from_openapi("chat", document, {**overlay, "key": "ts"})
    with pytest.raises(ValueError, match="describes no key field"):
        catalog_from_openapi("chat", document, {**overlay, "tables": {"display": {"chat_message": "ts"}}})
