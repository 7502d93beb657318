"""Shared pieces for the verifier tests: loading expectations, direct store writes, RowChanges."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.verifiers import Expectation, RowChange, load_expectation

JOURNAL = "sys_journal_field"
#: What a test's note entry leaves free: a created row must name every field the client chose
#: (verifiers.expectations.ChangeEntry), and these tests check claims, not the notes' contents.
FREE_NOTE = ["element", "element_id", "name", "value"]


def expect(data: Mapping[str, Any], params: Mapping[str, Any] | None = None) -> Expectation:
    """An expectation as the scenario loader builds it (params bound, catalog checked)."""
    return load_expectation(data, params or {}, ITSM.catalog)


def incidents(backend: Backend, count: int, where: str = "state = '2'") -> list[dict[str, str]]:
    """``count`` incidents of the tiny world (In Progress by default), in sys_id order."""
    rows = backend.store.select("incident", where, limit=count)
    assert len(rows) == count, f"tiny world has fewer than {count} incidents with {where}"
    return rows


def update(backend: Backend, table: str, sys_id: str, **values: str) -> None:
    """One direct store update, in its own transaction (the change log sees it like any write)."""
    with backend.store.transaction():
        backend.store.update(table, sys_id, values)


def insert_journal(
    backend: Backend, sys_id: str, element_id: str, value: str, element: str = "comments"
) -> dict[str, str]:
    """A journal entry on an incident, inserted directly; returns the stored row."""
    with backend.store.transaction():
        return backend.store.insert(
            JOURNAL,
            {
                "sys_id": sys_id,
                "element": element,
                "element_id": element_id,
                "name": "incident",
                "value": value,
            },
        )


def delete(backend: Backend, table: str, sys_id: str) -> None:
    """One direct store delete."""
    with backend.store.transaction():
        backend.store.delete(table, sys_id)


def row_change(
    *,
    op: str = "update",
    before: Mapping[str, str] | None = None,
    after: Mapping[str, str] | None = None,
    table: str = "incident",
    sys_id: str = "a" * 32,
    derived: frozenset[str] = frozenset({"sys_updated_on", "sys_mod_count"}),
) -> RowChange:
    """A RowChange built by hand, with ``fields``/``significant`` computed the way the diff does."""
    old = dict(before) if before is not None else None
    new = dict(after) if after is not None else None
    names = sorted(set(old or {}) | set(new or {}))
    fields = {
        name: ((old or {}).get(name, ""), (new or {}).get(name, ""))
        for name in names
        if (old or {}).get(name, "") != (new or {}).get(name, "")
    }
    significant = tuple(name for name in fields if name not in derived)
    return RowChange(table, sys_id, op, old, new, fields, significant)  # type: ignore[arg-type]


def forbidden_attempt(label: str, table: str, sys_id: str) -> dict:
    """A forbid entry on one row that also matches refused attempts on it."""
    return {"label": label, "table": table, "where": {"sys_id": sys_id}, "attempted": True}
