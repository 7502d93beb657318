"""The large world (benchmark size): built, consistent, and as cheap to act on as the default.

Marked slow: building it takes seconds. Run with ``pytest -m slow``.
"""

from __future__ import annotations

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.mocks.itsm.services.common import PRIORITY_MATRIX

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def large() -> Backend:
    return Backend(ITSM, size="large")


def test_large_world_has_at_least_50000_rows(large: Backend) -> None:
    total = sum(large.store.count(table) for table in ITSM.catalog)
    assert total >= 50_000


def test_large_world_keeps_the_rules(large: Backend) -> None:
    for impact_urgency, priority in PRIORITY_MATRIX.items():
        impact, urgency = impact_urgency.split(",")
        where = "impact = ? AND urgency = ? AND priority != ?"
        assert large.store.count("incident", where, (impact, urgency, priority)) == 0
    assert large.store.count("incident", "state IN ('6', '7') AND (close_code = '' OR close_notes = '')") == 0
    dangling = "caller_id != '' AND caller_id NOT IN (SELECT sys_id FROM sys_user)"
    assert large.store.count("incident", dangling) == 0


def test_change_log_is_proportional_to_changes_not_world_size(large: Backend) -> None:
    large.reset()
    large.mark_start()
    row = large.store.select("incident", "state = '2'", limit=1)[0]
    result = large.call("add_comment", {"number": row["number"], "text": "Checked on the large world."})
    assert result.ok, result.body
    changed = large.store.changed_rows()
    assert {table for table, _, _ in changed} == {"incident", "sys_journal_field"}
    assert len(changed) == 2
