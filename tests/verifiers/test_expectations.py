"""The expectation language: param binding, load-time validation, counts and the published schema."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

import enterprise_envs.verifiers as verifiers_package
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers import Expectation, ExpectationError, bind_params, expectation_json_schema
from enterprise_envs.verifiers.expectations import AllowEntry, ChangeEntry, Count
from tests.verifiers.helpers import expect

SCHEMA_FILE = Path(verifiers_package.__file__).parent / "schema" / "expectation.schema.json"

CALLER = {"sys_id": "0123456789abcdef0123456789abcdef", "name": "Ada Lovelace", "user_name": "ada.l"}
PARAMS = {
    "caller": CALLER,
    "urgency": 2,
    "vip": True,
    "incidents": [{"number": "INC0010001"}, {"number": "INC0010002"}],
    "tags": ["a", "b"],
}

SAMPLE: dict[str, Any] = {
    "change": [
        {
            "id": "ticket",
            "label": "an incident for the caller about the VPN",
            "op": "insert",
            "table": "incident",
            "where": {"caller_id": "{{caller.sys_id}}"},
            "fields": {
                "short_description": {"contains": "vpn"},
                "urgency": {"one_of": [1, 2]},
                "opened_at": {"gte": "2026-03-02 09:00:00"},
            },
        },
        {
            "label": "two incidents reassigned",
            "op": "update",
            "table": "incident",
            "fields": {"assignment_group": {"changed": True, "before": {"nonempty": True}}},
            "count": {"min": 1, "max": 2},
        },
    ],
    "allow": [
        {
            "label": "notes on it",
            "op": ["insert", "update"],
            "table": "sys_journal_field",
            "where": {"element_id": {"references": "$ticket"}},
        }
    ],
    "forbid": [{"label": "no deletes", "op": "delete", "table": "incident"}],
    "communicate": [
        {"label": "told the number", "value": "$ticket.number"},
        {"label": "told the caller's name", "value": "{{caller.name}}"},
    ],
}


def change_entry(**overrides: Any) -> dict[str, Any]:
    return {"label": "an update", "op": "update", "table": "incident", **overrides}


# -- params -------------------------------------------------------------------------------------


def test_whole_string_reference_is_replaced_by_the_value() -> None:
    assert bind_params("{{caller.sys_id}}", PARAMS) == CALLER["sys_id"]
    assert bind_params("  {{ caller.user_name }}  ", PARAMS) == "ada.l"
    assert bind_params("{{urgency}}", PARAMS) == "2"  # as the vendor's string
    assert bind_params("{{vip}}", PARAMS) == "true"


def test_embedded_references_are_substituted_in_place() -> None:
    text = "Ticket for {{caller.name}} ({{ caller.user_name }}), urgency {{urgency}}, vip={{vip}}"
    assert bind_params(text, PARAMS) == "Ticket for Ada Lovelace (ada.l), urgency 2, vip=true"


def test_list_indexes() -> None:
    assert bind_params("{{incidents.1.number}}", PARAMS) == "INC0010002"
    assert bind_params("first {{incidents.0.number}}", PARAMS) == "first INC0010001"
    assert bind_params("{{tags.0}}", PARAMS) == "a"


def test_binding_recurses_and_leaves_other_values_alone() -> None:
    data = {"a": ["{{caller.name}}", {"b": "{{urgency}}"}], "n": 3, "flag": False, "plain": "no params"}
    assert bind_params(data, PARAMS) == {
        "a": ["Ada Lovelace", {"b": "2"}],
        "n": 3,
        "flag": False,
        "plain": "no params",
    }
    assert bind_params(SAMPLE, PARAMS)["change"][0]["where"] == {"caller_id": CALLER["sys_id"]}


def test_a_template_may_end_with_a_filter() -> None:
    assert bind_params("inc-{{incidents.0.number|lower}}-vpn", PARAMS) == "inc-inc0010001-vpn"
    assert bind_params("{{ caller.name | upper }}", PARAMS) == "ADA LOVELACE"
    # An unknown filter is no template at all: the text stays as written.
    assert bind_params("{{caller.name|title}}", PARAMS) == "{{caller.name|title}}"


def test_left_names_stay_for_a_later_stage() -> None:
    text = "Hi {{persona.name}}, ticket for {{caller.name}}"
    assert bind_params(text, PARAMS, leave=("persona",)) == "Hi {{persona.name}}, ticket for Ada Lovelace"
    assert bind_params(["{{ persona.age }}"], PARAMS, leave=("persona",)) == ["{{ persona.age }}"]
    with pytest.raises(ExpectationError, match="unresolved param"):
        bind_params(text, PARAMS)


@pytest.mark.parametrize(
    "reference",
    ["{{missing}}", "{{caller.email}}", "{{incidents.2.number}}", "{{incidents.x}}", "{{urgency.a}}"],
)
def test_unresolved_param_is_a_load_time_error(reference: str) -> None:
    with pytest.raises(ExpectationError, match="unresolved param"):
        bind_params({"x": f"text {reference}"}, PARAMS)
    data = {"change": [change_entry(where={"caller_id": reference})]}
    with pytest.raises(ExpectationError, match="unresolved param"):
        expect(data, PARAMS)


@pytest.mark.parametrize("reference", ["{{caller}}", "{{incidents}}", "{{tags}}", "{{incidents.0}}"])
def test_non_scalar_param_is_an_error(reference: str) -> None:
    with pytest.raises(ExpectationError, match="not a single value"):
        bind_params(reference, PARAMS)
    with pytest.raises(ExpectationError, match="not a single value"):
        bind_params(f"embedded {reference}", PARAMS)


def test_none_param_is_a_load_time_error() -> None:
    with pytest.raises(ExpectationError):
        expect(
            {"change": [change_entry(where={"caller_id": "{{caller.manager}}"})]},
            {"caller": {"manager": None}},
        )


# -- load-time checks ----------------------------------------------------------------------------


def test_sample_loads() -> None:
    expectation = expect(SAMPLE, PARAMS)
    ticket = expectation.change[0]
    assert ticket.where["caller_id"].equals == CALLER["sys_id"]
    assert ticket.fields["urgency"].one_of == ["1", "2"]
    assert ticket.bounds() == (1, 1)
    assert expectation.change[1].bounds() == (1, 2)
    assert expectation.allow[0].ops() == ("insert", "update")
    assert expectation.communicate[1].value == "Ada Lovelace"
    assert expectation.communicate[0].entry_ref() == ("ticket", "number")
    assert expectation.communicate[1].entry_ref() is None


@pytest.mark.parametrize("kind", ["change", "allow", "forbid"])
def test_unknown_table_is_rejected(kind: str) -> None:
    with pytest.raises(ExpectationError, match="unknown table 'incidents'"):
        expect({kind: [change_entry(table="incidents")]})


@pytest.mark.parametrize("part", ["where", "fields"])
@pytest.mark.parametrize("kind", ["change", "allow", "forbid"])
def test_unknown_field_is_rejected(kind: str, part: str) -> None:
    with pytest.raises(ExpectationError, match="has no field 'urgencyy'"):
        expect({kind: [change_entry(**{part: {"urgencyy": "1"}})]})


def test_check_catalog_on_a_validated_expectation() -> None:
    expectation = Expectation.model_validate({"change": [change_entry(table="nope")]})
    with pytest.raises(ExpectationError, match="unknown table 'nope'"):
        expectation.check_catalog(ITSM.catalog)
    Expectation.model_validate(SAMPLE).check_catalog(ITSM.catalog)  # fields from every table are known


def test_duplicate_ids_are_rejected() -> None:
    with pytest.raises(ExpectationError, match="duplicate change entry ids"):
        expect({"change": [change_entry(id="a"), change_entry(id="a", label="other")]})


@pytest.mark.parametrize("kind", ["change", "allow", "forbid"])
def test_references_to_unknown_entries_are_rejected(kind: str) -> None:
    entry = change_entry(table="sys_journal_field", where={"element_id": {"references": "$ticket"}})
    with pytest.raises(ExpectationError, match=r"references unknown entries: \['ticket'\]"):
        expect({"change": [change_entry(id="other", label="other")], kind: [entry]})


def test_reference_inside_before_must_resolve() -> None:
    with pytest.raises(ExpectationError, match="unknown entries"):
        expect({"change": [change_entry(fields={"parent_incident": {"before": {"references": "$gone"}}})]})


def test_references_may_point_forward_and_to_allow_only_ids() -> None:
    expectation = expect(
        {
            "change": [
                change_entry(
                    label="note",
                    op="insert",
                    table="sys_journal_field",
                    where={"element_id": {"references": "$t"}},
                ),
                change_entry(id="t", label="ticket", op="insert"),
            ]
        }
    )
    assert expectation.change[0].entry_refs() == {"t"}


def test_reference_with_a_field_suffix_is_rejected_at_load() -> None:
    with pytest.raises(ExpectationError):
        expect(
            {
                "change": [
                    change_entry(id="t", op="insert"),
                    change_entry(
                        label="note",
                        op="insert",
                        table="sys_journal_field",
                        where={"element_id": {"references": "$t.number"}},
                    ),
                ]
            }
        )


def test_communicate_on_unknown_entry_is_rejected() -> None:
    with pytest.raises(ExpectationError, match=r"references unknown entry \$ticket"):
        expect(
            {"change": [change_entry(id="other")], "communicate": [{"label": "n", "value": "$ticket.number"}]}
        )


def test_communicate_on_unknown_field_is_rejected() -> None:
    with pytest.raises(ExpectationError, match="incident has no field 'numbr'"):
        expect({"change": [change_entry(id="t")], "communicate": [{"label": "n", "value": "$t.numbr"}]})


@pytest.mark.parametrize("value", ["", "   "])
def test_communicate_empty_value_is_rejected(value: str) -> None:
    with pytest.raises(ExpectationError, match="empty value"):
        expect({"communicate": [{"label": "n", "value": value}]})


@pytest.mark.parametrize(
    ("check", "error"),
    [
        ({"value": "On Hold", "act": "refusal"}, "give one of value, any_of or act"),
        ({"act": "refusal", "rivals": ["New"]}, "an act has none"),
        ({"act": "agree"}, "refusal"),
        (
            {"value": "On Hold", "exclusive": True},
            "exclusive",
        ),  # the old flag: every value check reads answers now
        ({"value": "INC0010041"}, None),  # a record number has its own rivals
        ({"value": "On Hold", "rivals": ["New", "Resolved"]}, None),
        ({"act": "refusal"}, None),
    ],
)
def test_communicate_forms(check: dict, error: str | None) -> None:
    data = {"communicate": [{"label": "n", **check}]}
    if error is None:
        loaded = expect(data).communicate[0]
        assert (loaded.value, loaded.act, loaded.rivals) == (
            check.get("value"),
            check.get("act"),
            check.get("rivals"),
        )
    else:
        with pytest.raises(ExpectationError, match=error):
            expect(data)


def test_communicate_literal_values_are_text() -> None:
    expectation = expect({"communicate": [{"label": "n", "value": 42}, {"label": "b", "value": True}]})
    assert [check.value for check in expectation.communicate] == ["42", "true"]


@pytest.mark.parametrize(
    "entry",
    [
        change_entry(op="upsert"),
        change_entry(id="Bad-Id"),
        change_entry(requires="x"),  # unknown key
        {"op": "update", "table": "incident"},  # no label
        change_entry(where={"state": {"equalz": "2"}}),
    ],
)
def test_malformed_entries_are_rejected(entry: dict[str, Any]) -> None:
    with pytest.raises(ExpectationError):
        expect({"change": [entry]})


def test_unknown_top_level_list_is_rejected() -> None:
    with pytest.raises(ExpectationError):
        expect({"require": []})


def test_load_error_messages_are_not_pydantic_exceptions() -> None:
    with pytest.raises(ExpectationError) as caught:
        expect({"change": [change_entry(op="upsert")]})
    assert not isinstance(caught.value, ValidationError)
    assert "op" in str(caught.value)


def test_allow_ops_default_to_any() -> None:
    entry = AllowEntry.model_validate({"label": "a", "table": "incident"})
    assert entry.ops() == ("insert", "update", "delete")
    assert AllowEntry.model_validate({"label": "a", "table": "incident", "op": "delete"}).ops() == ("delete",)


# -- counts -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "bounds"),
    [
        (None, (1, 1)),
        (0, (0, 0)),
        (3, (3, 3)),
        ({"exact": 2}, (2, 2)),
        ({"min": 2}, (2, None)),
        ({"max": 2}, (0, 2)),
        ({"min": 1, "max": 3}, (1, 3)),
        ({"min": 2, "max": 2}, (2, 2)),
        ({"min": 0}, (0, None)),
    ],
)
def test_count_bounds(count: Any, bounds: tuple[int, int | None]) -> None:
    entry = change_entry() if count is None else change_entry(count=count)
    assert expect({"change": [entry]}).change[0].bounds() == bounds


@pytest.mark.parametrize(
    ("count", "message"),
    [
        ({"exact": 1, "min": 1}, "give exact, or min and/or max"),
        ({"exact": 1, "max": 3}, "give exact, or min and/or max"),
        ({}, "give exact, min or max"),
        ({"min": 3, "max": 2}, "min is greater than max"),
        ({"min": -1}, "greater than or equal to 0"),
        ({"exact": -2}, "greater than or equal to 0"),
        ({"most": 2}, "most"),
    ],
)
def test_invalid_counts_are_rejected(count: dict[str, Any], message: str) -> None:
    with pytest.raises(ExpectationError, match=message):
        expect({"change": [change_entry(count=count)]})
    with pytest.raises(ValidationError):
        Count.model_validate(count)


def test_negative_integer_count_is_rejected() -> None:
    with pytest.raises(ExpectationError):
        expect({"change": [change_entry(count=-1)]})


def test_change_entry_bounds_from_model() -> None:
    assert ChangeEntry.model_validate(change_entry(count=Count(min=2))).bounds() == (2, None)


# -- published schema ---------------------------------------------------------------------------


def test_published_schema_equals_the_models() -> None:
    published = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert published == expectation_json_schema(), (
        f"{SCHEMA_FILE} is stale: regenerate it with `python -m enterprise_envs.schemas` "
        '(or: python -c "import json; from enterprise_envs.verifiers import expectation_json_schema as s; '
        'print(json.dumps(s(), indent=2, sort_keys=True))" > verifiers/schema/expectation.schema.json)'
    )
    assert published["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def canonical(data: Any) -> Any:
    """The sample with every shorthand spelled out: predicates as objects, values as strings."""
    data = copy.deepcopy(bind_params(data, PARAMS))
    for kind in ("change", "allow", "forbid"):
        for entry in data.get(kind, []):
            for part in ("where", "fields"):
                for name, predicate in entry.get(part, {}).items():
                    if not isinstance(predicate, dict):
                        predicate = {"equals": predicate}
                    if "one_of" in predicate:
                        predicate["one_of"] = [str(item) for item in predicate["one_of"]]
                    entry[part][name] = predicate
    return data


def test_published_schema_validates_a_sample() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    validator = Draft202012Validator(schema)
    sample = canonical(SAMPLE)
    errors = sorted(validator.iter_errors(sample), key=str)
    assert errors == [], [error.message for error in errors]
    assert Expectation.model_validate(sample) == Expectation.model_validate(bind_params(SAMPLE, PARAMS))


@pytest.mark.parametrize(
    "data",
    [
        {"change": [{"label": "x", "op": "update", "table": "incident", "where": {"sys_id": "abc"}}]},
        {"change": [{"label": "x", "op": "update", "table": "incident", "fields": {"urgency": 1}}]},
        {
            "change": [
                {"label": "x", "op": "update", "table": "incident", "fields": {"urgency": {"one_of": [1, 2]}}}
            ]
        },
        {"communicate": [{"label": "x", "value": 42}]},
    ],
)
def test_published_schema_accepts_the_documented_shorthand(data: dict[str, Any]) -> None:
    Expectation.model_validate(data)  # the loader accepts it
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    errors = [error.message for error in Draft202012Validator(schema).iter_errors(data)]
    assert errors == []


@pytest.mark.parametrize(
    "mutate",
    [
        lambda data: data["change"][0].update(op="upsert"),
        lambda data: data["change"][0].update(surprise=1),
        lambda data: data["change"][0].pop("label"),
        lambda data: data["change"][1].update(count={"min": -1}),
        lambda data: data["change"][0]["fields"].update(urgency={"one_of": "1"}),
        lambda data: data.update(requires=[]),
    ],
)
def test_published_schema_rejects_what_the_models_reject(mutate) -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    data = canonical(SAMPLE)
    mutate(data)
    assert list(Draft202012Validator(schema).iter_errors(data)), "the schema accepted an invalid expectation"
    with pytest.raises(ValidationError):
        Expectation.model_validate(data)
