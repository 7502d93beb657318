"""Conformance with the observed ServiceNow schema and captured records.

- every rest-surface response validates against the spec's schemas (the tool's output schema,
  and each record against its table's record schema);
- the captured records validate against the same record schemas;
- generated records have the captured records' field set and formats (sys_id and number
  patterns, date-time format, reference shape and link targets).
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import resources

import pytest
from jsonschema import Draft202012Validator

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm.tables import SPEC_SCHEMAS, json_schema_defs

SYS_ID = re.compile(r"^[0-9a-f]{32}$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
NUMBER = re.compile(r"^(INC|PRB|CHG|REQ|RITM|KB)\d{7}$")
LINK = re.compile(r"^https://[^/]+/api/now/table/([a-z_]+)/([0-9a-z_.]+)$")  # captured data has "glide.maint"


@cache
def record_validator(table: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{SPEC_SCHEMAS[table]}", "$defs": json_schema_defs()})


def observed(name: str) -> list[dict]:
    path = resources.files("enterprise_envs.mocks.itsm").joinpath("spec", "observed", name)
    return json.loads(path.read_text(encoding="utf-8"))["result"]


def errors_of(validator: Draft202012Validator, instance) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(instance)][
        :5
    ]


@pytest.mark.parametrize("table", sorted(SPEC_SCHEMAS))
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"sysparm_exclude_reference_link": True},
        {"sysparm_display_value": "true"},
        {"sysparm_display_value": "all"},
    ],
)
def test_rest_list_responses_validate_against_the_spec(itsm: Backend, table: str, options: dict) -> None:
    result = itsm.call("table_list", {"table": table, "sysparm_limit": 5, **options}, surface="rest")
    assert result.status == 200, result.body
    tool = itsm.system.surface("rest")["table_list"]
    assert not errors_of(Draft202012Validator(tool.output_schema), result.to_dict())
    assert result.body["result"], f"tiny world has no {table} rows"
    if not options.get("sysparm_display_value"):
        for record in result.body["result"]:
            assert not errors_of(record_validator(table), record)


def test_rest_single_record_and_error_responses_validate(itsm: Backend) -> None:
    surface = itsm.system.surface("rest")
    row = itsm.store.select("incident", limit=1)[0]
    got = itsm.call("table_get", {"table": "incident", "sys_id": row["sys_id"]}, surface="rest")
    assert not errors_of(Draft202012Validator(surface["table_get"].output_schema), got.to_dict())
    assert not errors_of(record_validator("incident"), got.body["result"])
    missing = itsm.call("table_get", {"table": "incident", "sys_id": "0" * 32}, surface="rest")
    assert missing.status == 404
    error_schema = Draft202012Validator({"$ref": "#/$defs/ErrorResponse", "$defs": json_schema_defs()})
    assert not errors_of(error_schema, missing.body)
    assert missing.body["error"]["message"] == "No Record found"


@pytest.mark.parametrize("name", ["incident_list.table_api.full.json"])
def test_captured_records_validate_against_our_record_schema(name: str) -> None:
    records = observed(name)
    assert len(records) == 77
    for record in records:
        assert not errors_of(record_validator("incident"), record)


def test_generated_incidents_match_the_captured_field_set_and_formats(itsm: Backend) -> None:
    captured = observed("incident_list.table_api.full.json")
    captured_fields = set().union(*(record.keys() for record in captured))
    captured_links: dict[str, set[str]] = {}
    for record in captured:
        for field, value in record.items():
            if isinstance(value, dict):
                captured_links.setdefault(field, set()).add(LINK.match(value["link"]).group(1))

    result = itsm.call("table_list", {"table": "incident", "sysparm_limit": 50}, surface="rest")
    ours = result.body["result"]
    assert {frozenset(record) for record in ours} == {frozenset(captured_fields)}
    datetime_fields = {"opened_at", "sys_created_on", "sys_updated_on", "resolved_at", "closed_at", "sla_due"}
    seen_links: dict[str, set[str]] = {}
    for record in ours:
        assert SYS_ID.match(record["sys_id"]) and NUMBER.match(record["number"])
        for field in datetime_fields:
            assert record[field] == "" or DATETIME.match(record[field]), (field, record[field])
        for field, value in record.items():
            assert isinstance(value, str | dict), field
            if isinstance(value, dict):
                assert set(value) == {"link", "value"}
                match = LINK.match(value["link"])
                assert match and match.group(2) == value["value"]
                seen_links.setdefault(field, set()).add(match.group(1))
    for field, tables in seen_links.items():
        if field in captured_links:
            assert tables == captured_links[field], (
                f"{field} links to {tables}, captured {captured_links[field]}"
            )


def test_sysparm_fields_and_pagination_headers(itsm: Backend) -> None:
    total = itsm.store.count("incident")
    first = itsm.call(
        "table_list",
        {
            "table": "incident",
            "sysparm_fields": "number,state",
            "sysparm_limit": 3,
            "sysparm_query": "ORDERBYnumber",
        },
        surface="rest",
    )
    assert [set(record) for record in first.body["result"]] == [{"number", "state"}] * 3
    assert first.headers["X-Total-Count"] == str(total)
    assert 'rel="next"' in first.headers["Link"] and 'rel="prev"' not in first.headers["Link"]
    second = itsm.call(
        "table_list",
        {
            "table": "incident",
            "sysparm_fields": "number",
            "sysparm_limit": 3,
            "sysparm_offset": 3,
            "sysparm_query": "ORDERBYnumber",
        },
        surface="rest",
    )
    numbers = [r["number"] for r in first.body["result"] + second.body["result"]]
    assert numbers == sorted(numbers) and len(set(numbers)) == 6
    assert 'rel="prev"' in second.headers["Link"]
