"""The shipped Slack sources and the derived document spec/derive.py makes of them.

Read by path (the package's folder is found without running its ``__init__``), so these checks
do not depend on the rest of the chat package.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.mocks.helpers import load_script


def _package_folder() -> Path:
    spec = importlib.util.find_spec("enterprise_envs.mocks.chat")
    assert spec is not None and spec.submodule_search_locations
    return Path(next(iter(spec.submodule_search_locations)))


PACKAGE = _package_folder()
SPEC = PACKAGE / "spec"
DERIVE = load_script(SPEC / "derive.py", "chat_spec_derive")
DERIVED_TEXT = (SPEC / DERIVE.DERIVED_FILE).read_text(encoding="utf-8")
DOCUMENT: dict[str, Any] = json.loads(DERIVED_TEXT)


def _walk(node: Any) -> Iterator[tuple[str, Any, dict[str, Any]]]:
    """(key, value, the mapping holding it) for every key of every mapping under ``node``."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield key, value, node
            yield from _walk(value)
    elif isinstance(node, list):
        for item in node:
            yield from _walk(item)


def test_the_sources_ship_with_their_licenses() -> None:
    assert DERIVE.SOURCE_FILE == "slack_web_openapi_v2.without_examples.json"
    assert (SPEC / DERIVE.SOURCE_FILE).exists()
    assert (SPEC / "LICENSE-slack-api-specs.txt").read_text().startswith("MIT License")
    assert "MIT" in (SPEC / "observed" / "LICENSE-python-slack-sdk.txt").read_text()
    assert len(list((SPEC / "observed").glob("web_response_*.json"))) == 20
    for path in (SPEC / "observed").glob("*.json"):
        json.loads(path.read_text(encoding="utf-8"))
    assert "bc08db4" in (SPEC / "SOURCE.md").read_text()
    assert (SPEC / "catalog.toml").exists()


def test_nothing_in_the_package_reads_the_shared_folder_or_slacks_own_description() -> None:
    for path in PACKAGE.rglob("*"):
        if (
            path.suffix in (".py", ".toml", ".json")
            and path.name != "derive.py"
            and "observed" not in path.parts
        ):
            text = path.read_text(encoding="utf-8")
            assert "/work/shared" not in text and "shared/specs" not in text, path
            assert DERIVE.SOURCE_FILE not in text or path.name == DERIVE.DERIVED_FILE, path


def test_the_derived_document_is_what_derive_py_makes_of_the_source() -> None:
    assert DERIVE.derive_file(SPEC) == DERIVED_TEXT
    assert DERIVE.main(["--check"], SPEC) == 0


def test_the_derived_document_is_openapi_3_with_its_license_and_origin() -> None:
    assert DOCUMENT["openapi"].startswith("3.0")
    assert DOCUMENT["info"]["version"] == "1.7.0"
    assert DOCUMENT["info"]["license"]["name"] == "MIT"
    assert DOCUMENT["servers"] == [{"url": "https://slack.com/api"}]
    origin = DOCUMENT["x-derived-from"]
    assert origin["source"] == DERIVE.SOURCE_FILE and origin["commit"] == "bc08db4"
    assert origin["operations"] == len(DERIVE.OPERATIONS) == 38
    assert "definitions" not in DOCUMENT and "swagger" not in DOCUMENT
    scheme = DOCUMENT["components"]["securitySchemes"]["slackAuth"]
    assert scheme["type"] == "oauth2" and "authorizationCode" in scheme["flows"]


def test_every_reference_resolves_inside_the_document() -> None:
    refs = {value for key, value, _ in _walk(DOCUMENT) if key == "$ref"}
    assert refs
    for ref in refs:
        assert ref.startswith("#/components/schemas/"), ref
        node: Any = DOCUMENT
        for part in ref[2:].split("/"):
            node = node[part]
    assert "#/definitions/" not in DERIVED_TEXT
    scopes = DOCUMENT["components"]["securitySchemes"]["slackAuth"]["flows"]["authorizationCode"]["scopes"]
    for path, item in DOCUMENT["paths"].items():
        for operation in item.values():
            for requirement in operation["security"]:
                assert set(requirement) == {"slackAuth"} and set(requirement["slackAuth"]) <= set(scopes), (
                    path
                )


def test_no_swagger_2_form_remains() -> None:
    """No list under ``items``, no list of types, no example, no formData or body parameter."""
    for key, value, holder in _walk(DOCUMENT):
        if key == "items":
            assert isinstance(value, dict), holder
        if key == "type" and not isinstance(value, dict):  # a property called "type" is a dict
            assert isinstance(value, str) and value != "null", holder
        assert key not in ("example", "examples", "x-examples", "consumes", "produces") or isinstance(
            value, dict
        ) and "type" in value, holder  # fmt: skip
    for item in DOCUMENT["paths"].values():
        for operation in item.values():
            assert all(parameter["in"] == "query" for parameter in operation.get("parameters", ()))


def _error_enum(operation: dict[str, Any]) -> list[str] | None:
    schema = operation["responses"]["default"]["content"]["application/json"]["schema"]
    return schema["properties"]["error"].get("enum")


def test_every_served_method_is_there_with_its_error_codes() -> None:
    assert set(DOCUMENT["paths"]) == {f"/{method}" for method in DERIVE.OPERATIONS}
    operation_ids = set()
    for method in DERIVE.OPERATIONS:
        item = DOCUMENT["paths"][f"/{method}"]
        assert len(item) == 1 and set(item) <= {"get", "post"}, method
        (operation,) = item.values()
        assert operation["operationId"] == method.replace(".", "_")
        operation_ids.add(operation["operationId"])
        assert operation["externalDocs"]["url"] == f"https://api.slack.com/methods/{method}"
        assert operation["tags"] and operation["description"] and operation["security"]
        success = operation["responses"]["200"]["content"]["application/json"]["schema"]
        assert success.get("properties", {}).get("ok") or success.get("anyOf"), method
        codes = _error_enum(operation)
        if method == "api.test":  # it answers with whatever error the caller names
            assert codes is None
            continue
        assert codes and len(codes) == len(set(codes)), method
        assert "invalid_auth" in codes and "not_authed" in codes, method
    assert len(operation_ids) == len(DERIVE.OPERATIONS)


def test_error_codes_the_mock_relies_on_are_documented() -> None:
    codes = {method: set(_error_enum(next(iter(DOCUMENT["paths"][f"/{method}"].values()))) or ())
             for method in DERIVE.OPERATIONS}  # fmt: skip
    assert {"channel_not_found", "not_in_channel", "is_archived", "msg_too_long", "no_text"} <= codes[
        "chat.postMessage"
    ]
    assert {"message_not_found", "cant_update_message", "edit_window_closed"} <= codes["chat.update"]
    assert {"name_taken", "invalid_name"} <= codes["conversations.create"]
    assert {"already_reacted", "too_many_reactions"} <= codes["reactions.add"]
    assert "no_reaction" in codes["reactions.remove"]
    assert {"already_in_channel", "cant_invite_self", "user_not_found"} <= codes["conversations.invite"]
    assert {"cant_kick_self", "cant_kick_from_general", "not_in_channel"} <= codes["conversations.kick"]
    assert {"already_archived", "cant_archive_general"} <= codes["conversations.archive"]
    assert "not_archived" in codes["conversations.unarchive"]
    assert "thread_not_found" in codes["conversations.replies"]
    assert "users_not_found" in codes["users.lookupByEmail"]
    assert "user_not_found" in codes["users.info"]
    # Slack's 1.7.0 description documents only these for user groups (its usergroups.update,
    # .enable, .list and .users.* spell one code "upgrade_require"): no name_taken among them.
    assert codes["usergroups.create"] >= {"permission_denied", "user_is_restricted"}
    assert "name_taken" not in codes["usergroups.create"]
    assert "upgrade_require" in codes["usergroups.update"]


def test_arguments_are_openapi_3_parameters_and_request_bodies() -> None:
    post = DOCUMENT["paths"]["/chat.postMessage"]["post"]
    assert "parameters" not in post  # the token header is the transport's
    body = post["requestBody"]
    assert body["required"] is True
    assert set(body["content"]) == {"application/x-www-form-urlencoded", "application/json"}
    schema = body["content"]["application/json"]["schema"]
    assert schema["type"] == "object" and schema["required"] == ["channel"]
    assert schema["properties"]["thread_ts"]["type"] == "string"
    assert schema["properties"]["reply_broadcast"]["type"] == "boolean"
    assert "description" in schema["properties"]["text"] and "token" not in schema["properties"]
    history = DOCUMENT["paths"]["/conversations.history"]["get"]
    assert "requestBody" not in history
    by_name = {parameter["name"]: parameter for parameter in history["parameters"]}
    assert set(by_name) == {"channel", "latest", "oldest", "inclusive", "limit", "cursor"}
    assert (
        by_name["limit"]["schema"] == {"type": "integer"} and by_name["latest"]["schema"]["type"] == "number"
    )
    assert by_name["cursor"]["in"] == "query" and "description" in by_name["cursor"]
    lookup = DOCUMENT["paths"]["/users.lookupByEmail"]["get"]
    assert [(p["name"], p.get("required")) for p in lookup["parameters"]] == [("email", True)]


def test_the_table_schemas_are_kept_and_normalised() -> None:
    schemas = DOCUMENT["components"]["schemas"]
    assert set(DERIVE.TABLE_SCHEMAS) <= set(schemas)
    user = schemas["objs_user"]
    assert list(user) == ["anyOf"] and len(user["anyOf"]) == 2  # workspace and Enterprise Grid user
    assert user["anyOf"][0]["properties"]["tz"] == {"type": "string", "nullable": True}
    assert user["anyOf"][0]["properties"]["profile"] == {"$ref": "#/components/schemas/objs_user_profile"}
    conversation = schemas["objs_conversation"]
    assert [alt["title"] for alt in conversation["anyOf"]][:2] == [
        "Conversation object",
        "Conversation MPIM Object",
    ]
    assert len(conversation["anyOf"]) == 3
    assert conversation["anyOf"][1]["properties"]["is_mpim"] == {"type": "boolean", "enum": [True]}
    subteam = schemas["objs_subteam"]["properties"]
    assert subteam["deleted_by"] == {"$ref": "#/components/schemas/defs_user_id", "nullable": True}
    assert subteam["auto_type"] == {"type": "string", "enum": ["owner", "admin"], "nullable": True}
    profile = schemas["objs_user_profile"]["properties"]
    assert profile["email"] == {"type": "string", "format": "email", "nullable": True}
    assert schemas["defs_ts"]["pattern"] == r"^\d{10}\.\d{6}$"
    assert schemas["defs_user_id"]["pattern"] == "^[UW][A-Z0-9]{2,}$"


def test_normalise_schema_turns_item_lists_and_type_lists_into_openapi_3() -> None:
    normalise = DERIVE.normalise_schema
    assert normalise({"items": [{"type": "null"}, {"type": "string"}]}) == {
        "type": "string",
        "nullable": True,
    }
    assert normalise({"description": "d", "items": [{"$ref": "#/definitions/A"}, {"type": "null"}]}) == {
        "$ref": "#/components/schemas/A",
        "description": "d",
        "nullable": True,
    }
    assert normalise({"items": [{"$ref": "#/definitions/A"}, {"$ref": "#/definitions/B"}]}) == {
        "anyOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]
    }
    # Under an array, the list describes its items.
    assert normalise({"type": "array", "items": [{"type": "integer"}, {"type": "string"}]}) == {
        "type": "array",
        "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    }
    assert normalise({"type": ["null", "boolean"]}) == {"type": "boolean", "nullable": True}
    assert normalise({"type": ["object", "null", "array"], "items": {"type": "object"}}) == {
        "anyOf": [{"type": "object"}, {"type": "array", "items": {"type": "object"}}],
        "nullable": True,
    }
    # Names are never keywords: a property called "items" or "example" stays.
    assert normalise(
        {"properties": {"items": {"type": "string"}, "example": {"type": "string", "example": "x"}}}
    ) == {"properties": {"items": {"type": "string"}, "example": {"type": "string"}}}
    with pytest.raises(ValueError, match="only null"):
        normalise({"items": [{"type": "null"}]})
    with pytest.raises(ValueError, match="unexpected reference"):
        normalise({"$ref": "other.json#/A"})


def test_derive_refuses_what_it_cannot_derive() -> None:
    with pytest.raises(ValueError, match="operations missing"):
        DERIVE.selected_paths({"paths": {"/api.test": {"get": {"responses": {}}}}})
    with pytest.raises(ValueError, match="points at nothing"):
        DERIVE.used_schemas({"A": {"$ref": "#/components/schemas/B"}}, [{"$ref": "#/components/schemas/A"}])
    with pytest.raises(ValueError, match="unexpected parameter"):
        DERIVE.convert_parameters([{"name": "file", "in": "body"}])
    with pytest.raises(ValueError, match="not the MIT license"):
        DERIVE.license_name("Apache License\nVersion 2.0")


def test_derive_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The script's plumbing (the derivation itself is checked above): write, then compare."""
    monkeypatch.setattr(DERIVE, "derive_file", lambda folder: f"derived in {folder.name}\n")
    assert DERIVE.main(["--check"], tmp_path) == 1  # nothing derived yet
    assert DERIVE.main([], tmp_path) == 0
    assert DERIVE.main(["--check"], tmp_path) == 0
    written = tmp_path / DERIVE.DERIVED_FILE
    assert written.read_text() == f"derived in {tmp_path.name}\n"
    written.write_text("stale\n")
    assert DERIVE.main(["--check"], tmp_path) == 1
