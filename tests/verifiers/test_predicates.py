"""Field predicates, evaluated on hand-built RowChanges (a plain dataclass)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from enterprise_envs.verifiers import ExpectationError
from enterprise_envs.verifiers.expectations import ChangeEntry, FieldPredicate
from enterprise_envs.verifiers.predicates import failure, row_failure
from tests.verifiers.helpers import expect, row_change

SYS_ID = "0123456789abcdef0123456789abcdef"
OTHER_ID = "fedcba9876543210fedcba9876543210"


def holds(spec: Any, after: str, before: str | None = None, *, claims=None, name: str = "f") -> bool:
    """Does the predicate hold on an update of field ``name`` from ``before`` to ``after``?"""
    predicate = FieldPredicate.model_validate(spec)
    change = row_change(before={name: after if before is None else before}, after={name: after})
    return failure(predicate, change, name, claims=claims) is None


CASES = [
    # (predicate, value after, value before, holds)
    ({"equals": "2"}, "2", None, True),
    ({"equals": "2"}, "3", None, False),
    ({"equals": "2"}, "2 ", None, False),  # exact: no trimming
    ({"not_equals": "2"}, "3", None, True),
    ({"not_equals": "2"}, "2", None, False),
    ({"one_of": ["1", "2"]}, "2", None, True),
    ({"one_of": ["1", "2"]}, "3", None, False),
    ({"contains": "VPN"}, "my vpn drops", None, True),
    ({"contains": "vpn"}, "GlobalProtect VPN", None, True),
    ({"contains": "Straße"}, "STRASSE closed", None, True),  # casefold, not lower
    ({"contains": "vpn"}, "wifi", None, False),
    ({"matches": r"^INC\d{7}$"}, "INC0010041", None, True),
    ({"matches": r"\d{3}"}, "error 404 page", None, True),  # searched anywhere
    ({"matches": r"^\d{3}$"}, "error 404 page", None, False),
    ({"matches": "vpn"}, "VPN", None, False),  # regexes are case-sensitive
    ({"nonempty": True}, "x", None, True),
    ({"nonempty": True}, "", None, False),
    ({"nonempty": True}, "   ", None, False),  # blank is empty
    ({"empty": True}, "", None, True),
    ({"empty": True}, " \t", None, True),
    ({"empty": True}, "x", None, False),
    ({"changed": True}, "2", "1", True),
    ({"changed": True}, "1", "1", False),
    ({"unchanged": True}, "1", "1", True),
    ({"unchanged": True}, "2", "1", False),
    # numbers compare numerically ("10" > "9" although "10" < "9" as text)
    ({"gt": "9"}, "10", None, True),
    ({"gt": "10"}, "9", None, False),
    ({"gt": "10"}, "10", None, False),
    ({"gte": "10"}, "10", None, True),
    ({"gte": "10"}, "9.5", None, False),
    ({"lt": "10"}, "9", None, True),
    ({"lt": "9"}, "10", None, False),
    ({"lte": "2.5"}, "2.5", None, True),
    ({"lte": "2.5"}, "-3", None, True),
    ({"lte": "2"}, "2.5", None, False),
    # date-times compare as text, which orders YYYY-MM-DD HH:MM:SS correctly
    ({"gt": "2026-02-28 23:59:59"}, "2026-03-02 09:00:00", None, True),
    ({"gt": "2026-03-02 09:00:00"}, "2026-03-02 09:00:00", None, False),
    ({"gte": "2026-03-02 09:00:00"}, "2026-03-02 09:00:00", None, True),
    ({"lt": "2026-03-02 10:00:00"}, "2026-03-02 09:59:59", None, True),
    ({"lt": "2026-03-02 10:00:00"}, "2026-12-01 00:00:00", None, False),
    ({"lte": "2026-01-01 00:00:00"}, "2025-12-31 23:59:59", None, True),
    # an empty value never satisfies a bound
    ({"gt": "0"}, "", None, False),
    ({"lt": "9"}, "", None, False),
    ({"lte": "2026-01-01 00:00:00"}, "", None, False),
    ({"same_as": "$ticket.number"}, "INC0010041", None, True),  # decided once claims are known
    ({"mentions": "$ticket.number"}, "see INC0010041", None, True),  # likewise
    ({"references": SYS_ID}, SYS_ID, None, True),
    ({"references": SYS_ID}, OTHER_ID, None, False),
    ({"references": SYS_ID}, "", None, False),
    ({"before": {"equals": "1"}}, "2", "1", True),
    ({"before": {"equals": "1"}}, "2", "3", False),
    ({"before": "1"}, "2", "1", True),  # nested shorthand
    ({"before": {"before": {"empty": True}}}, "2", "", True),
    ({"carries": ["Friday at noon"]}, "Client deliverable due Friday noon.", None, True),
    ({"carries": ["Friday at noon", "four of us"]}, "Due Friday noon.", None, False),
    ({"carries": ["Friday at noon"]}, "Updated as discussed.", None, False),
    ({"carries_any": ["Friday at noon", "four of us"]}, "Four people are blocked.", None, True),
    ({"carries_any": ["Friday at noon", "four of us"]}, "The deadline matters.", None, False),
    # several keys: all must hold
    ({"contains": "vpn", "not_equals": "vpn"}, "vpn drops", None, True),
    ({"contains": "vpn", "not_equals": "vpn"}, "vpn", None, False),
    ({"one_of": ["1", "2"], "changed": True}, "1", "1", False),
    ({"equals": "1", "before": {"one_of": ["2", "3"]}}, "1", "3", True),
    ({"gte": "1", "lte": "3"}, "2", None, True),
    ({"gte": "1", "lte": "3"}, "4", None, False),
]


@pytest.mark.parametrize(("spec", "after", "before", "expected"), CASES)
def test_predicate(spec: dict[str, Any], after: str, before: str | None, expected: bool) -> None:
    assert holds(spec, after, before) is expected


def test_every_predicate_key_is_covered() -> None:
    used = {key for spec, *_ in CASES for key in spec}
    assert used == set(FieldPredicate.model_fields)


def test_references_to_an_entry_wait_for_claims() -> None:
    spec = {"references": "$ticket"}
    assert holds(spec, SYS_ID, claims=None)  # deferred while candidates are computed
    assert holds(spec, SYS_ID, claims={"ticket": frozenset({SYS_ID})})
    assert holds(spec, SYS_ID, claims={"ticket": frozenset({OTHER_ID, SYS_ID})})
    assert not holds(spec, SYS_ID, claims={"ticket": frozenset({OTHER_ID})})
    assert not holds(spec, SYS_ID, claims={"other": frozenset({SYS_ID})})
    assert not holds(spec, SYS_ID, claims={})
    predicate = FieldPredicate.model_validate(spec)
    change = row_change(after={"element_id": SYS_ID}, op="insert", table="sys_journal_field")
    message = failure(predicate, change, "element_id", claims={"ticket": frozenset({OTHER_ID})})
    assert message is not None and "element_id" in message and SYS_ID in message and "$ticket" in message


def test_references_inside_before_are_collected() -> None:
    predicate = FieldPredicate.model_validate({"before": {"references": "$old"}, "references": "$new"})
    assert predicate.entry_refs() == {"old", "new"}
    assert FieldPredicate.model_validate({"references": SYS_ID}).entry_refs() == set()


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2", {"equals": "2"}),
        (3, {"equals": "3"}),
        (2.5, {"equals": "2.5"}),
        (True, {"equals": "true"}),
        (False, {"equals": "false"}),
        ({"one_of": [1, 2, True]}, {"one_of": ["1", "2", "true"]}),
        ({"gt": 5, "lte": 7}, {"gt": "5", "lte": "7"}),
        ({"not_equals": False}, {"not_equals": "false"}),
        ({"before": 3}, {"before": {"equals": "3"}}),
        ({"nonempty": True}, {"nonempty": True}),
    ],
)
def test_scalar_shorthand_and_coercion(raw: Any, expected: dict[str, Any]) -> None:
    predicate = FieldPredicate.model_validate(raw)
    assert predicate.model_dump(exclude_none=True) == expected


def test_coerced_values_match_the_vendor_strings() -> None:
    entry = ChangeEntry.model_validate(
        {
            "label": "x",
            "op": "update",
            "table": "incident",
            "where": {"urgency": 1},
            "fields": {"active": False},
        }
    )
    change = row_change(before={"urgency": "3", "active": "true"}, after={"urgency": "1", "active": "false"})
    assert row_failure(entry.predicates(), change) is None
    change = row_change(before={"urgency": "1", "active": "true"}, after={"urgency": "1", "active": "true"})
    assert row_failure(entry.predicates(), change) == "active='true', expected 'false'"


@pytest.mark.parametrize("pattern", ["(", "[a-", "*x", "(?P<n>a)(?P<n>b)"])
def test_invalid_regex_is_rejected_at_load(pattern: str) -> None:
    with pytest.raises(ValidationError, match="invalid regular expression"):
        FieldPredicate.model_validate({"matches": pattern})
    with pytest.raises(ExpectationError, match="invalid regular expression"):
        expect(
            {
                "change": [
                    {
                        "label": "bad",
                        "op": "update",
                        "table": "incident",
                        "fields": {"short_description": {"matches": pattern}},
                    }
                ]
            }
        )


def test_empty_predicate_is_rejected() -> None:
    with pytest.raises(ValidationError, match="at least one condition"):
        FieldPredicate.model_validate({})
    with pytest.raises(ExpectationError, match="at least one condition"):
        expect({"change": [{"label": "x", "op": "update", "table": "incident", "where": {"state": {}}}]})


def test_unknown_predicate_key_is_rejected() -> None:
    with pytest.raises(ValidationError):
        FieldPredicate.model_validate({"startswith": "INC"})


@pytest.mark.parametrize("raw", [None, {"equals": None}])
def test_null_predicate_is_rejected(raw: Any) -> None:
    with pytest.raises(ValidationError):
        FieldPredicate.model_validate(raw)


@pytest.mark.parametrize(
    ("spec", "after", "before", "fragments"),
    [
        ({"equals": "1"}, "3", None, ["urgency='3'", "expected '1'"]),
        ({"not_equals": "3"}, "3", None, ["urgency='3'", "anything else"]),
        ({"one_of": ["1", "2"]}, "3", None, ["urgency='3'", "one of ['1', '2']"]),
        ({"contains": "vpn"}, "wifi", None, ["urgency='wifi'", "contain 'vpn'"]),
        ({"matches": "^x"}, "y", None, ["urgency='y'", "/^x/"]),
        ({"nonempty": True}, "", None, ["urgency=''", "expected a value"]),
        ({"empty": True}, "3", None, ["urgency='3'", "expected it empty"]),
        ({"changed": True}, "3", "3", ["urgency unchanged ('3')"]),
        ({"unchanged": True}, "1", "3", ["urgency changed '3' -> '1'"]),
        ({"gt": "5"}, "3", None, ["urgency='3'", "> '5'"]),
        ({"gte": "5"}, "3", None, ["urgency='3'", ">= '5'"]),
        ({"lt": "2"}, "3", None, ["urgency='3'", "< '2'"]),
        ({"lte": "2"}, "3", None, ["urgency='3'", "<= '2'"]),
        ({"references": SYS_ID}, "3", None, ["urgency='3'", SYS_ID]),
        ({"before": {"equals": "2"}}, "1", "3", ["before:", "urgency='3'", "expected '2'"]),
    ],
)
def test_failure_message_names_field_and_value(
    spec: dict[str, Any], after: str, before: str | None, fragments: list[str]
) -> None:
    predicate = FieldPredicate.model_validate(spec)
    change = row_change(before={"urgency": after if before is None else before}, after={"urgency": after})
    message = failure(predicate, change, "urgency")
    assert message is not None
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_insert_reads_an_empty_before_image() -> None:
    change = row_change(op="insert", after={"state": "1"})
    assert change.value("state", "before") == ""
    assert holds_on(change, "state", {"changed": True, "before": {"empty": True}})
    assert not holds_on(change, "state", {"unchanged": True})


def test_delete_where_reads_the_before_image() -> None:
    change = row_change(op="delete", before={"state": "2", "number": "INC0010014"})
    entry = ChangeEntry.model_validate(
        {"label": "x", "op": "delete", "table": "incident", "where": {"number": "INC0010014", "state": "2"}}
    )
    assert row_failure(entry.predicates(), change) is None
    wrong = ChangeEntry.model_validate(
        {"label": "x", "op": "delete", "table": "incident", "where": {"state": "7"}}
    )
    assert row_failure(wrong.predicates(), change) == "state='2', expected '7'"
    # read on the after side explicitly, a deleted row has no values
    assert change.value("state") == ""


def test_row_failure_reports_the_first_failing_predicate_in_order() -> None:
    entry = ChangeEntry.model_validate(
        {
            "label": "x",
            "op": "update",
            "table": "incident",
            "where": {"number": "INC1"},
            "fields": {"state": "6", "close_notes": {"nonempty": True}},
        }
    )
    change = row_change(before={"number": "INC1", "state": "2"}, after={"number": "INC1", "state": "3"})
    assert row_failure(entry.predicates(), change) == "state='3', expected '6'"
    change = row_change(before={"number": "INC1", "state": "2"}, after={"number": "INC1", "state": "6"})
    assert row_failure(entry.predicates(), change) == "close_notes='', expected a value"
    change = row_change(
        before={"number": "INC1", "state": "2"}, after={"number": "INC1", "state": "6", "close_notes": "ok"}
    )
    assert row_failure(entry.predicates(), change) is None


def holds_on(change, name: str, spec: Any) -> bool:
    return failure(FieldPredicate.model_validate(spec), change, name) is None


def test_same_as_compares_with_the_claimed_rows_values() -> None:
    """``same_as`` carries an earlier step's output: the value of a field of a row another entry claimed."""
    claims = {"ticket": frozenset({SYS_ID}), "ticket.number": frozenset({"INC0010041"})}
    assert holds({"same_as": "$ticket.number"}, "INC0010041", claims=claims)
    assert not holds({"same_as": "$ticket.number"}, "INC0010042", claims=claims)
    assert not holds({"same_as": "$ticket.number"}, "INC0010041", claims={"ticket": frozenset()})
    with pytest.raises(ValidationError, match="same_as takes"):
        FieldPredicate.model_validate({"same_as": "$ticket"})


def test_mentions_reads_a_claimed_rows_value_in_free_text() -> None:
    """``mentions`` carries an earlier step's output into text: the chat post must state the number."""
    claims = {"ticket": frozenset({SYS_ID}), "ticket.number": frozenset({"INC0010041"})}
    assert holds({"mentions": "$ticket.number"}, "Outage: VPN down, tracked as INC0010041.", claims=claims)
    assert holds({"mentions": "$ticket.number"}, "see inc0010041 for updates", claims=claims)
    assert not holds({"mentions": "$ticket.number"}, "VPN down, tracked as INC0010042.", claims=claims)
    assert not holds({"mentions": "$ticket.number"}, "Outage: VPN down, see INC00100411", claims=claims)
    assert not holds({"mentions": "$ticket.number"}, "INC0010041", claims={"ticket": frozenset()})
    assert holds({"mentions": "$ticket.number"}, "anything", claims=None)  # decided once claims are known
    with pytest.raises(ValidationError, match="mentions takes"):
        FieldPredicate.model_validate({"mentions": "$ticket"})
