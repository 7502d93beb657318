"""The same goal reached through the typed and the rest surface leaves the same rows.

Each goal runs from the same reset on both surfaces; the changed rows are compared field by
field, leaving out what legitimately differs between two runs (clock-derived date-times and
bookkeeping, and the sys_ids/numbers of rows each run inserted, matched by position).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from enterprise_envs.mocks._core.backend import Backend


def canonical(backend: Backend) -> list[tuple]:
    catalog = backend.store.catalog
    inserted: dict[str, str] = {}
    out = []
    for table, sys_id, before in backend.store.changed_rows():
        if before is None:
            inserted[sys_id] = f"<new {table} {len(inserted)}>"
    for table, sys_id, before in backend.store.changed_rows():
        after = backend.store.get(table, sys_id) or {}
        spec = catalog[table]
        kept = {}
        for field in spec.fields:
            if field.kind == "datetime" or field.derived or field.name in ("sys_id", "number"):
                continue
            value = after.get(field.name, "")
            kept[field.name] = inserted.get(value, value)
        out.append(
            (
                table,
                "insert" if before is None else "update",
                inserted.get(sys_id, sys_id),
                tuple(sorted(kept.items())),
            )
        )
    return sorted(out)


def run(backend: Backend, steps: Callable[[Backend], None]) -> list[tuple]:
    backend.reset(episode_seed=7)
    backend.mark_start()
    steps(backend)
    assert not backend.internal_errors
    return canonical(backend)


def rest(backend: Backend, tool: str, **arguments) -> dict:
    result = backend.call(tool, arguments, surface="rest")
    assert result.ok, result.body
    return result.body


def typed(backend: Backend, tool: str, **arguments) -> dict:
    result = backend.call(tool, arguments, surface="typed")
    assert result.ok, result.body
    return result.body


def _caller(backend: Backend) -> dict:
    return backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0]


def _open_incident(backend: Backend) -> dict:
    return backend.store.select("incident", "state = '2' AND assigned_to != ''", limit=1)[0]


def _group(backend: Backend, name: str) -> dict:
    return backend.store.find_one("sys_user_group", "name", name)


def report_typed(b: Backend) -> None:
    typed(
        b,
        "create_incident",
        caller=_caller(b)["user_name"],
        short_description="Laptop will not boot",
        category="hardware",
        impact="2",
        urgency="1",
        assignment_group="Hardware",
    )


def report_rest(b: Backend) -> None:
    fields = {
        "caller_id": _caller(b)["sys_id"],
        "short_description": "Laptop will not boot",
        "category": "hardware",
        "impact": "2",
        "urgency": "1",
        "assignment_group": _group(b, "Hardware")["sys_id"],
    }
    rest(b, "table_create", table="incident", fields=fields)


def resolve_typed(b: Backend) -> None:
    number = _open_incident(b)["number"]
    typed(
        b,
        "resolve_incident",
        number=number,
        close_code="Solution provided",
        close_notes="Replaced the cable.",
    )


def resolve_rest(b: Backend) -> None:
    fields = {"state": "6", "close_code": "Solution provided", "close_notes": "Replaced the cable."}
    rest(b, "table_update", table="incident", sys_id=_open_incident(b)["sys_id"], fields=fields)


def escalate_typed(b: Backend) -> None:
    number = _open_incident(b)["number"]
    typed(b, "update_incident", number=number, urgency="1")
    typed(b, "add_comment", number=number, kind="work_note", text="VIP affected, raising.")
    typed(b, "assign_incident", number=number, assignment_group="Network")


def escalate_rest(b: Backend) -> None:
    fields = {
        "urgency": "1",
        "work_notes": "VIP affected, raising.",
        "assignment_group": _group(b, "Network")["sys_id"],
    }
    rest(b, "table_update", table="incident", sys_id=_open_incident(b)["sys_id"], fields=fields)


def hold_typed(b: Backend) -> None:
    typed(b, "hold_incident", number=_open_incident(b)["number"], hold_reason="Awaiting Vendor")


def hold_rest(b: Backend) -> None:
    rest(
        b,
        "table_update",
        table="incident",
        sys_id=_open_incident(b)["sys_id"],
        fields={"state": "3", "hold_reason": "4"},
    )


GOALS = {
    "report an incident": (report_typed, report_rest),
    "resolve with notes": (resolve_typed, resolve_rest),
    "escalate with a work note and reassign": (escalate_typed, escalate_rest),
    "put on hold awaiting the vendor": (hold_typed, hold_rest),
}


@pytest.mark.parametrize("goal", sorted(GOALS))
def test_same_goal_same_rows(itsm: Backend, goal: str) -> None:
    via_typed, via_rest = GOALS[goal]
    typed_rows = run(itsm, via_typed)
    rest_rows = run(itsm, via_rest)
    assert typed_rows, "the goal changed nothing"
    assert typed_rows == rest_rows
