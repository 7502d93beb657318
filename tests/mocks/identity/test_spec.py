"""The shipped Okta sources and the derived documents made from them by spec/derive.py."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from enterprise_envs.mocks.identity.tables import SPEC_VERSIONS, spec_document, spec_file
from tests.mocks.helpers import load_script
from tests.mocks.identity.helpers import SPEC

PACKAGE = SPEC.parent
DERIVE = load_script(SPEC / "derive.py", "identity_spec_derive")


def test_the_sources_ship_with_their_licenses() -> None:
    assert sorted(DERIVE.sources()) == list(SPEC_VERSIONS)
    assert (SPEC / "LICENSE-Apache-2.0.txt").read_text().lstrip().startswith("Apache License")
    assert "Okta" in (SPEC / "observed" / "LICENSE-okta-sdk-python.md").read_text()
    assert len(list((SPEC / "observed").rglob("*.yaml"))) == 47
    for version in SPEC_VERSIONS:
        assert (SPEC / spec_file(version)).exists()
        assert spec_document(version)["info"]["license"]["name"] == "Apache-2.0"


def test_nothing_in_the_package_reads_the_shared_folder_or_the_yaml() -> None:
    for path in PACKAGE.rglob("*"):
        if path.suffix in (".py", ".toml", ".json") and path.name != "derive.py":
            text = path.read_text(encoding="utf-8")
            assert "/work/shared" not in text and "shared/specs" not in text, path
            assert ".noExamples.yaml" not in text or path.suffix == ".json", path


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_the_derived_documents_are_what_derive_py_makes_of_the_yaml(version: str) -> None:
    pytest.importorskip("yaml")
    source = DERIVE.sources()[version]
    assert DERIVE.derive_file(source) == (SPEC / spec_file(version)).read_text(encoding="utf-8")


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_every_reference_in_a_derived_document_resolves_inside_it(version: str) -> None:
    document = spec_document(version)
    text = json.dumps(document)
    refs = set(re.findall(r'"\$ref": "([^"]+)"', text))
    assert refs
    for ref in refs:
        node = document
        for part in ref[2:].split("/"):
            node = node[part]
    assert '"example"' not in text and '"examples"' not in text and "x-codeSamples" not in text
    assert document["x-derived-from"]["source"] == f"okta-management-{version}.noExamples.yaml"
    assert document["x-derived-from"]["operations"] == sum(len(m) for m in DERIVE.OPERATIONS.values())


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_the_derived_documents_keep_the_enums_and_schemas_the_mock_reads(version: str) -> None:
    schemas = spec_document(version)["components"]["schemas"]
    assert set(DERIVE.SCHEMAS) <= set(schemas)
    assert schemas["UserStatus"]["enum"] == [
        "ACTIVE", "DEPROVISIONED", "LOCKED_OUT", "PASSWORD_EXPIRED", "PROVISIONED", "RECOVERY", "STAGED",
        "SUSPENDED",
    ]  # fmt: skip
    assert schemas["GroupType"]["enum"] == ["APP_GROUP", "BUILT_IN", "OKTA_GROUP"]
    assert set(schemas["Error"]["properties"]) == {
        "errorCauses",
        "errorCode",
        "errorId",
        "errorLink",
        "errorSummary",
    }
    assert "password" in schemas["UserCredentials"]["properties"]  # the schema as Okta wrote it


def test_the_releases_name_the_user_path_differently() -> None:
    """Real drift the derivation keeps: the user id parameter was renamed."""
    old, new = (set(spec_document(version)["paths"]) for version in SPEC_VERSIONS)
    assert "/api/v1/users/{userId}/lifecycle/unlock" in old
    assert "/api/v1/users/{id}/lifecycle/unlock" in new


def test_derive_cuts_example_keywords_but_never_names() -> None:
    document = {
        "example": 1,
        "properties": {"example": {"type": "string", "example": "x"}, "examples": {"examples": {}}},
        "responses": {"200": {"content": {"application/json": {"examples": {"a": 1}, "schema": {}}}}},
        "parameters": [{"name": "q", "example": "x"}],
    }
    assert DERIVE.without_examples(document) == {
        "properties": {"example": {"type": "string"}, "examples": {}},
        "responses": {"200": {"content": {"application/json": {"schema": {}}}}},
        "parameters": [{"name": "q"}],
    }


def test_derive_refuses_a_document_missing_an_operation_or_a_reference_target() -> None:
    with pytest.raises(ValueError, match="operations missing"):
        DERIVE.selected_paths({"paths": {"/api/v1/users": {"get": {}}}})
    document = {"components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}}}}
    with pytest.raises(ValueError, match="points at nothing"):
        DERIVE.used_components(document, [{"$ref": "#/components/schemas/A"}])


def test_derive_check_mode_reports_a_stale_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The script's plumbing (the derivation itself is checked above): write, then compare."""
    source = DERIVE.sources()[SPEC_VERSIONS[0]]
    (tmp_path / source.name).write_bytes(b"")
    monkeypatch.setattr(DERIVE, "derive_file", lambda path: f"derived from {path.name}\n")
    assert DERIVE.main(["--check"], tmp_path) == 1  # nothing derived yet
    assert DERIVE.main([], tmp_path) == 0
    assert DERIVE.main(["--check"], tmp_path) == 0
    written = tmp_path / spec_file(SPEC_VERSIONS[0])
    assert written.read_text() == f"derived from {source.name}\n"
    written.write_text("stale\n")
    assert DERIVE.main(["--check"], tmp_path) == 1
