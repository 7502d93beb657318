"""Store and change log over a real in-memory SQLite database."""

import pytest
from sqlalchemy import create_engine
from sqlalchemy.pool import StaticPool

from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec
from enterprise_envs.mocks._core.store import ReadOnlyViolation, Store, connect, install_change_log

WIDE = 130  # wider than SQLite's 100-argument function limit: exercises chunked before-images


def _catalog() -> Catalog:
    ticket = TableSpec(
        "ticket",
        (
            FieldSpec("sys_id"),
            FieldSpec("number"),
            FieldSpec("state"),
            FieldSpec("sys_mod_count", derived=True),
        ),
        label="Ticket",
        display_field="number",
    )
    wide = TableSpec("wide", (FieldSpec("sys_id"), *(FieldSpec(f"f{i}") for i in range(WIDE))), label="Wide")
    return Catalog("unit", [ticket, wide])


@pytest.fixture
def store() -> Store:
    catalog = _catalog()
    conn = connect()
    metadata, _ = build_models(catalog)
    metadata.create_all(create_engine("sqlite://", creator=lambda: conn, poolclass=StaticPool))
    store = Store(conn, catalog)
    store.insert("ticket", {"sys_id": "a" * 32, "number": "T1", "state": "1"})
    store.insert("ticket", {"sys_id": "b" * 32, "number": "T2", "state": "1"})
    store.insert("wide", {"sys_id": "c" * 32, **{f"f{i}": str(i) for i in range(WIDE)}})
    install_change_log(conn, catalog)
    return store


def test_change_log_records_first_before_image_per_row(store: Store) -> None:
    store.update("ticket", "a" * 32, {"state": "2"})
    store.update("ticket", "a" * 32, {"state": "3"})
    store.insert("ticket", {"sys_id": "d" * 32, "number": "T3"})
    store.delete("ticket", "b" * 32)
    changed = store.changed_rows()
    assert [(table, sys_id) for table, sys_id, _ in changed] == [
        ("ticket", "a" * 32),
        ("ticket", "d" * 32),
        ("ticket", "b" * 32),
    ]
    assert changed[0][2]["state"] == "1"  # the value before the first change, not the second
    assert changed[1][2] is None  # inserted
    assert changed[2][2]["number"] == "T2"  # deleted row's before-image


def test_wide_rows_round_trip_through_the_change_log(store: Store) -> None:
    store.update("wide", "c" * 32, {"f120": "changed"})
    [(_, _, before)] = store.changed_rows()
    assert before == {"sys_id": "c" * 32, **{f"f{i}": str(i) for i in range(WIDE)}}


def test_rolled_back_transaction_leaves_no_trace(store: Store) -> None:
    before = store.serialize()
    with pytest.raises(RuntimeError), store.transaction():
        store.update("ticket", "a" * 32, {"state": "9"})
        store.insert("ticket", {"sys_id": "e" * 32})
        raise RuntimeError("handler failed")
    assert store.serialize() == before
    assert store.changed_rows() == []


def test_read_only_mode_rejects_writes(store: Store) -> None:
    with pytest.raises(ReadOnlyViolation), store.read_only():
        store.update("ticket", "a" * 32, {"state": "2"})
    assert store.get("ticket", "a" * 32)["state"] == "1"
    store.update("ticket", "a" * 32, {"state": "2"})  # writable again afterwards
    assert store.get("ticket", "a" * 32)["state"] == "2"


def test_unknown_columns_are_rejected_before_sql(store: Store) -> None:
    with pytest.raises(KeyError):
        store.insert("ticket", {"sys_id": "f" * 32, "bogus": "x"})
    with pytest.raises(KeyError):
        store.update("ticket", "a" * 32, {'state" = 1; --': "x"})


def test_clear_change_log_makes_current_state_the_baseline(store: Store) -> None:
    store.update("ticket", "a" * 32, {"state": "2"})
    store.clear_change_log()
    assert store.changed_rows() == []
    store.update("ticket", "a" * 32, {"state": "3"})
    assert store.changed_rows()[0][2]["state"] == "2"
