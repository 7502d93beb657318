"""The shared conformance vocabulary on a toy description: shapes, known differences, figures."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from enterprise_envs.mocks._core import conformance
from enterprise_envs.mocks._core.openapi import dereference

DOCUMENT = {
    "components": {
        "schemas": {
            "Item": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "note": {"type": "string", "nullable": True}},
            },
            "List": {"type": "object", "properties": {"items": {"type": "array", "items": {"$ref": "#/x"}}}},
            "Alias": {"$ref": "#/components/schemas/Item"},
            "Loop": {"$ref": "#/components/schemas/Loop"},
        }
    },
    "x": {"$ref": "#/components/schemas/Alias"},
}
LIST = conformance.Schemas(DOCUMENT, [{"$ref": "#/components/schemas/List"}])


def _found(recorded: object, mock: object) -> set[tuple[str, str]]:
    return {(d.kind, d.where) for d in conformance.shape_differences("listItems", recorded, mock, LIST)}


def test_the_same_shape_matches_whatever_the_values() -> None:
    assert _found({"items": [{"id": "a"}]}, {"items": [{"id": "b"}, {"id": "c"}]}) == set()


def test_a_type_a_missing_and_an_extra_key_are_found() -> None:
    recorded = {"items": [{"id": "a"}], "total": 1, "cursor": "x"}
    mock = {"items": [{"id": 1}], "total": "1", "more": True}
    assert _found(recorded, mock) == {
        ("type", "body.items[].id"),
        ("type", "body.total"),
        ("missing key", "body.cursor"),
        ("extra key", "body.more"),
    }


def test_inside_a_list_the_description_speaks_for_the_mocks_rows() -> None:
    # A declared key the recording's items lack, and null where the description allows it.
    recorded = {"items": [{"id": "a", "note": "x"}]}
    assert _found(recorded, {"items": [{"id": "b", "note": None}]}) == set()
    assert _found({"items": [{"id": "a"}]}, {"items": [{"id": "b", "note": "y"}]}) == set()
    # Outside a list, or undeclared, an added key is a difference.
    assert _found({"items": []}, {"items": [], "note": "y"}) == {("extra key", "body.note")}
    assert _found({"items": [{"id": "a"}]}, {"items": [{"id": "b", "colour": "red"}]}) == {
        ("extra key", "body.items[].colour")
    }


def test_details_say_how_the_recording_is_named_and_keep_the_sample() -> None:
    (found,) = conformance.shape_differences(
        "op", {"a": 1}, {}, conformance.Schemas(DOCUMENT, []), recorded_as="in the sample", sample="s"
    )
    assert found == conformance.Difference(
        "op", "missing key", "body.a", "in the sample, absent from the mock", "s"
    )
    assert found.signature == ("op", "missing key", "body.a")


def test_known_differences_and_the_figures() -> None:
    @dataclass
    class Report(conformance.Tally):
        samples: list[conformance.SampleReport] = field(default_factory=list)

        def outcomes(self) -> list[conformance.SampleReport]:
            return self.samples

    kept = conformance.Difference("op", "extra key", "body.x")
    new = conformance.Difference("op", "type", "body.y")
    report = Report(
        [
            conformance.SampleReport("a", "op", conformance.verdict([]), ""),
            conformance.SampleReport("b", "op", conformance.verdict([kept, new]), "", (kept, new)),
            conformance.SampleReport("c", "", conformance.SKIPPED, "not served"),
        ]
    )
    assert [sample.outcome for sample in report.samples] == [
        conformance.MATCHED,
        conformance.DIFFERING,
        conformance.SKIPPED,
    ]
    assert report.replayed == 2 and report.count(conformance.SKIPPED) == 1
    assert report.signatures() == {kept.signature, new.signature}
    assert conformance.unknown_differences(report.differences, {kept.signature: "why"}) == [new]


def test_dereference_follows_a_chain_and_refuses_a_loop() -> None:
    assert dereference(DOCUMENT, {"$ref": "#/x"}) is DOCUMENT["components"]["schemas"]["Item"]
    with pytest.raises(ValueError, match="circular"):
        dereference(DOCUMENT, {"$ref": "#/components/schemas/Loop"})
    with pytest.raises(ValueError, match="only local"):
        dereference(DOCUMENT, {"$ref": "other.json#/A"})
