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
