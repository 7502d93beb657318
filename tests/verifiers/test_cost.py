"""Verifying costs the same work whatever the world's size.

Work is counted, not timed: SQLite's progress handler is called once per virtual-machine
instruction, so the count is exact and repeatable. The same logical episode verified on worlds
of different sizes must execute the same number of instructions (the diff reads the change log
and two rows per changed row, by key).
"""

from __future__ import annotations

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers import load_expectation, verify


def instructions_to_verify(size: str) -> tuple[bool, int]:
    backend = Backend(ITSM, size=size)
    backend.mark_start()
    incident = backend.store.select("incident", "state = '2'", limit=1)[0]
    result = backend.call(
        "resolve_incident",
        {"number": incident["number"], "close_code": "Solution provided", "close_notes": "Fixed."},
    )
    assert result.ok, result.body
    backend.call(
        "add_comment", {"number": incident["number"], "text": "Resolved, please confirm.", "kind": "comment"}
    )
    expectation = load_expectation(
        {
            "change": [
                {
                    "id": "resolved",
                    "label": "incident resolved",
                    "op": "update",
                    "table": "incident",
                    "where": {"sys_id": incident["sys_id"]},
                    "fields": {"state": "6", "close_notes": {"nonempty": True}},
                }
            ],
            "allow": [
                {
                    "label": "comment",
                    "op": "insert",
                    "table": "sys_journal_field",
                    "where": {"element_id": {"references": "$resolved"}},
                }
            ],
        },
        {},
        ITSM.catalog,
    )
    steps = [0]

    def count() -> int:
        steps[0] += 1
        return 0

    backend.conn.set_progress_handler(count, 1)
    try:
        verdict = verify(backend.store, expectation)
    finally:
        backend.conn.set_progress_handler(None, 1)
    return verdict.passed, steps[0]


def test_verify_does_the_same_work_on_tiny_and_default_worlds() -> None:
    tiny, default = instructions_to_verify("tiny"), instructions_to_verify("default")
    assert tiny[0] and default[0]
    assert tiny[1] == default[1] > 0


@pytest.mark.slow
def test_verify_does_the_same_work_on_the_large_world() -> None:
    assert instructions_to_verify("large") == instructions_to_verify("tiny")
