"""Conformance with the cassettes (issue 16, item 5): the replay finds exactly the known differences.

The shipped cassettes are replayed against the mock of each release
(``mocks/identity/conformance.py``); every difference found must be a row of the "Known
differences" table of ``docs/systems/identity.md`` (a new difference fails), every row must still
be found (a fixed one is taken out of the table), and most interactions must reach the mock. The
comparison itself is checked on made-up responses: a wrong enum value, type, key, status or
``Link`` header is caught.
"""

from __future__ import annotations

import copy
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks.identity.tables import CURRENT_VERSION, SPEC_VERSIONS, spec_document

pytest.importorskip("yaml")

from enterprise_envs.mocks.identity import conformance  # noqa: E402  (needs PyYAML for the cassettes)
from enterprise_envs.mocks.identity.surfaces.rest import operations  # noqa: E402

DOC = Path(__file__).resolve().parents[3] / "docs" / "systems" / "identity.md"
RATE = {"X-Rate-Limit-Limit": "600", "X-Rate-Limit-Remaining": "599", "X-Rate-Limit-Reset": "1"}

#: What the report says of the shipped cassettes (docs/systems/identity.md, "Figures").
INTERACTIONS = 342
REACHING_THE_MOCK = 0.80
REPLAYED_THROUGH_A_TOOL = 0.60


@cache
def report(version: str) -> conformance.ConformanceReport:
    return conformance.replay(version)


def known_differences() -> list[tuple[frozenset[str], str, str]]:
    """The rows of the doc's "Known differences" table, one per place: (operations, kind, where)."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Known differences", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("operations", "") or set(cells[0]) <= {"-"}:
            continue
        operations_cell, kind, where_cell, _why = cells
        names = frozenset(name.strip(" `") for name in operations_cell.split(","))
        for where in where_cell.split("`, `"):
            rows.append((names, kind, where.strip(" `")))
    assert rows, "no Known differences table in docs/systems/identity.md"
    return rows


def listed(signature: tuple[str, str, str], rows: list[tuple[frozenset[str], str, str]]) -> bool:
    operation, kind, where = signature
    return any((operation in names or "*" in names) and kind == k and where == w for names, k, w in rows)


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_every_difference_found_is_a_known_one(version: str) -> None:
    rows = known_differences()
    found = report(version).signatures()
    new = sorted(signature for signature in found if not listed(signature, rows))
    assert not new, f"differences not in the Known differences table of {DOC.name}: {new}"


def test_every_known_difference_is_still_found() -> None:
    found = report(CURRENT_VERSION).signatures()
    stale = []
    for names, kind, where in known_differences():
        for name in names:
            hits = [s for s in found if s[1:] == (kind, where) and (name == "*" or s[0] == name)]
            if not hits:
                stale.append((name, kind, where))
    assert not stale, f"rows of the Known differences table the replay no longer finds: {stale}"


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_most_interactions_reach_the_mock(version: str) -> None:
    result = report(version)
    total = result.interactions
    assert total == INTERACTIONS and len(result.cassettes) == 47
    reached = result.replayed + result.count(conformance.SETUP)
    assert reached >= REACHING_THE_MOCK * total, result.text(verbose=False)
    assert result.replayed >= REPLAYED_THROUGH_A_TOOL * total, result.text(verbose=False)
    for cassette in result.cassettes:
        assert len(cassette.steps) == len(
            next(c for c in conformance.load_cassettes() if c.name == cassette.name).interactions
        )
        for step in cassette.steps:
            if step.outcome in (conformance.SETUP, conformance.SKIPPED):
                assert step.reason, (cassette.name, step)
            # Every recorded request is classified: none falls through as an unknown operation.
            assert step.operation, (cassette.name, step)


def test_the_report_gives_per_cassette_figures_and_each_difference() -> None:
    text = report(CURRENT_VERSION).text()
    assert "test_users_it/TestUsersResource.test_suspend_user: 7 interactions, replayed 7" in text
    assert "deactivateUser: status at 204 -> 200" in text
    assert "skipped (forgotPassword)" in text


def test_the_replay_maps_the_cassettes_ids_and_cursors_onto_the_mock() -> None:
    by_name = {cassette.name.rsplit(".", 1)[1]: cassette for cassette in report(CURRENT_VERSION).cassettes}
    # A user created through createUser is found by the id the mock gave it and by login, deleted
    # in two steps, then gone (the recorded 404).
    steps = by_name["test_create_get_user"].steps
    assert steps[0].operation == "createUser" and steps[0].outcome == conformance.DIFFERING
    assert [step.operation for step in (*steps[1:3], steps[-1])] == ["getUser"] * 3
    assert all(not [d for d in step.differences if d.kind == "status"] for step in (*steps[:3], steps[-1]))
    # The second page is read with the cursor the mock's own first page handed out.
    pages = [step for step in by_name["test_user_pagination"].steps if step.operation == "listUsers"]
    assert len(pages) == 2 and all(not [d for d in p.differences if d.kind == "status"] for p in pages)
    # The recorded refusals are the mock's: unlock of an ACTIVE user, reactivate of a STAGED one.
    for name, operation in (("test_unlock_user", "unlockUser"), ("test_reactivate_user", "reactivateUser")):
        refusals = [step for step in by_name[name].steps if step.operation == operation]
        assert refusals and all(step.outcome == conformance.DIFFERING for step in refusals)
        assert all({d.kind for d in step.differences} == {"header"} for step in refusals)


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_every_recorded_creation_is_replayed_and_leaves_the_recorded_status(version: str) -> None:
    created = [
        (cassette.name, step)
        for cassette in report(version).cassettes
        for step in cassette.steps
        if step.operation == "createUser"
    ]
    replayed = [(name, step) for name, step in created if step.outcome != conformance.SKIPPED]
    # 47 recorded creations: one answered by a proxy's page (no Okta envelope) is skipped.
    assert len(created) == 47 and len(replayed) == 46
    skipped = [step for _, step in created if step.outcome == conformance.SKIPPED]
    assert skipped[0].reason == conformance.NOT_OKTAS
    for name, step in replayed:
        kinds = {d.kind for d in step.differences}
        # The same status code, and the same user status (STAGED, ACTIVE): no value difference.
        assert not kinds & {"status", "value", "enum", "error code"}, (name, step)
    assert not any(step.outcome == conformance.SETUP for _, step in created)


def test_a_rebuilt_creation_sets_a_password_only_when_the_recorded_user_has_one() -> None:
    recorded = _recorded("test_create_get_user", 0)
    assert recorded.body is None and recorded.response["credentials"]["password"] == {}
    body = conformance.rebuilt_body("createUser", recorded.response)
    assert body["profile"]["login"] == "John.Doe-Get@example.com"
    assert body["credentials"] == {"password": {"value": conformance.REPLAYED_PASSWORD}}
    without = {**recorded.response, "credentials": {"provider": {"type": "OKTA", "name": "OKTA"}}}
    assert "credentials" not in conformance.rebuilt_body("createUser", without)


def test_the_module_prints_the_report() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "enterprise_envs.mocks.identity.conformance", "--brief"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert completed.stdout.startswith(
        f"Identity mock (Okta {CURRENT_VERSION}), 47 cassettes, 342 interactions"
    )
    assert re.search(r"replayed through a rest tool and compared \d+", completed.stdout)


# -- the comparison catches what it should --------------------------------------------------------


def _recorded(cassette: str, index: int) -> conformance.Interaction:
    found = next(c for c in conformance.load_cassettes() if c.name.endswith(cassette))
    return found.interactions[index]


def _compare(
    operation: str, interaction: conformance.Interaction, result: CallResult, limit: int | None = None
):
    found = conformance.compare(spec_document(), operations()[operation], interaction, result, limit)
    return {(d.kind, d.where) for d in found if d.where != "Content-Type"}


def test_the_recorded_response_itself_matches() -> None:
    interaction = _recorded("test_create_get_user", 1)
    headers = {"Content-Type": "application/json;charset=UTF-8", **RATE}
    assert (
        _compare("getUser", interaction, CallResult("getUser", 200, interaction.response, headers)) == set()
    )


def test_a_wrong_enum_value_type_or_key_is_caught() -> None:
    interaction = _recorded("test_create_get_user", 1)
    body = copy.deepcopy(interaction.response)
    body["status"] = "DORMANT"
    body["lastLogin"] = 5
    del body["profile"]["email"]
    body["nickname"] = "x"
    found = _compare("getUser", interaction, CallResult("getUser", 200, body, RATE))
    assert found == {
        ("enum", "body.status"),
        ("value", "body.status"),
        ("type", "body.lastLogin"),
        ("missing key", "body.profile.email"),
        ("extra key", "body.nickname"),
    }


def test_a_valid_status_other_than_recorded_is_a_value_difference() -> None:
    interaction = _recorded("test_create_get_user", 1)
    body = {**interaction.response, "status": "ACTIVE"}
    assert _compare("getUser", interaction, CallResult("getUser", 200, body, RATE)) == {
        ("value", "body.status")
    }


def test_an_enum_inside_a_list_and_the_link_header_are_checked() -> None:
    interaction = _recorded("test_list_groups", 1)
    body = copy.deepcopy(interaction.response)
    body[0]["type"] = "SMART_GROUP"
    link = '<https://example.okta.com/api/v1/groups?limit=200>; rel="self", <x?after=1&limit=200>; rel="next"'
    found = _compare("listGroups", interaction, CallResult("listGroups", 200, body, {**RATE, "Link": link}))
    assert found == {("enum", "body[].type"), ("header", 'Link rel="next"')}
    found = _compare(
        "listGroups", interaction, CallResult("listGroups", 200, interaction.response, dict(RATE))
    )
    assert found == {("header", 'Link rel="self"')}


def test_a_status_or_error_code_other_than_recorded_is_caught() -> None:
    interaction = _recorded("test_unlock_user", 1)
    assert interaction.status == 403 and interaction.response["errorCode"] == "E0000032"
    wrong = {**interaction.response, "errorCode": "E0000038"}
    assert _compare("unlockUser", interaction, CallResult("unlockUser", 403, wrong, RATE)) == {
        ("error code", "body.errorCode")
    }
    assert _compare("unlockUser", interaction, CallResult("unlockUser", 200, {}, RATE)) == {
        ("status", "403 -> 200")
    }
    headers = {"X-Rate-Limit-Limit": "600"}
    assert _compare(
        "unlockUser", interaction, CallResult("unlockUser", 403, interaction.response, headers)
    ) == {
        ("header", "X-Rate-Limit-Remaining"),
        ("header", "X-Rate-Limit-Reset"),
    }
