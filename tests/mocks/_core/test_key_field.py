"""A system's own key field, id format, numbering and date-time format, end to end.

Nothing generic assumes ServiceNow's ``sys_id``, 32-hex ids, seven-digit numbers from 10001 or
its date-time text: these tables are keyed ``key`` and ``id``, and the toy system below numbers
from 1 in four digits, makes ``k-`` ids and writes day-first times.
"""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime

import pytest
from sqlalchemy import inspect as sa_inspect

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallContext
from enterprise_envs.mocks._core.clock import SimClock, parse_datetime
from enterprise_envs.mocks._core.conventions import Conventions, Formats, Numbering
from enterprise_envs.mocks._core.ids import IdFactory, hex_id, seeded_rng
from enterprise_envs.mocks._core.models import build_models, create_schema
from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec
from enterprise_envs.mocks._core.snapshot import WorldBuild, build_snapshot, next_number
from enterprise_envs.mocks._core.store import ROW_KEY, Store, change_log_key, connect, install_change_log
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind, obj, string
from enterprise_envs.verifiers.diff import compute_diff
from enterprise_envs.verifiers.expectations import load_expectation
from enterprise_envs.verifiers.verdict import verify

A, B, C = "a" * 8, "b" * 8, "c" * 8


def _catalog(member_key: str = "id") -> Catalog:
    # ``key`` is an SQL keyword: it has to be quoted everywhere, triggers included.
    setting = TableSpec(
        "setting",
        (FieldSpec("key"), FieldSpec("value"), FieldSpec("revision", derived=True)),
        label="Setting",
    )
    member = TableSpec("member", (FieldSpec(member_key), FieldSpec("login")), label="Member")
    return Catalog("unit", [setting, member])


def _database(catalog: Catalog) -> bytes:
    """A world: schema, three settings and a member, then the change log (as build_snapshot does)."""
    conn = connect()
    metadata, _ = build_models(catalog)
    create_schema(conn, metadata, catalog)
    store = Store(conn, catalog)
    for key, value in ((A, "one"), (B, "two"), (C, "three")):
        store.insert("setting", {"key": key, "value": value, "revision": "0"})
    store.insert("member", {catalog["member"].key_field: "m1", "login": "ada"})
    install_change_log(conn, catalog)
    data = conn.serialize()
    conn.close()
    return data


@pytest.fixture
def store() -> Store:
    catalog = _catalog()
    data = _database(catalog)
    store = Store(connect(), catalog)
    store.restore(("unit", 0), lambda: data)
    return store


def test_the_first_field_is_the_key_whatever_its_name() -> None:
    catalog = _catalog()
    assert catalog["setting"].key_field == "key" and catalog["member"].key_field == "id"
    assert catalog["setting"].display_field == "key"  # the default display is the key
    with pytest.raises(ValueError):
        TableSpec("empty", (), label="Empty")
    metadata, models = build_models(catalog)
    assert [column.name for column in sa_inspect(models["setting"]).primary_key] == ["key"]
    assert [column.name for column in metadata.tables["member"].primary_key] == ["id"]


def test_rows_are_read_written_and_deleted_by_their_key(store: Store) -> None:
    assert store.get("setting", A) == {"key": A, "value": "one", "revision": "0"}
    assert store.get("setting", "missing") is None
    store.update("setting", B, {"value": "deux", "revision": "1"})
    assert store.get("setting", B)["value"] == "deux"
    store.insert("setting", {"key": "d" * 8, "value": "four"})
    store.delete("setting", A)
    assert store.get("setting", A) is None
    # The default order is the key's.
    assert store.column_values("setting", "key") == [B, C, "d" * 8]
    assert [row["key"] for row in store.select("setting", order_by="value DESC")] == [C, "d" * 8, B]
    assert store.find_one("setting", "value", "three") == {"key": C, "value": "three", "revision": "0"}


def test_the_change_log_keeps_first_images_by_key(store: Store) -> None:
    mark = store.change_log_size()
    store.update("setting", A, {"value": "uno"})
    store.update("setting", A, {"value": "eins"})
    store.insert("setting", {"key": "d" * 8, "value": "four"})
    store.delete("setting", B)
    store.update("member", "m1", {"login": "ada.l"})
    assert store.changed_keys() == [
        ("setting", A, False),
        ("setting", "d" * 8, True),
        ("setting", B, False),
        ("member", "m1", False),
    ]
    assert store.changed_since(mark + 1) == [("setting", "d" * 8), ("setting", B), ("member", "m1")]
    changed = store.changed_rows()
    assert changed[0] == ("setting", A, {"key": A, "value": "one", "revision": "0"})  # the first image
    assert changed[1] == ("setting", "d" * 8, None)
    assert store.first_image("member", "m1") == {"id": "m1", "login": "ada"}
    # Values at the start: this episode's writes undone, its new rows left out.
    assert store.start_values("setting", "value") == {"one", "two", "three"}
    store.record_new_defaults("setting", "d" * 8, {"revision": "0"}, ["value"])
    store.note_supplied("setting", "d" * 8, ["revision"])
    assert store.new_defaults("setting", "d" * 8) == ({"revision": "0"}, frozenset({"value", "revision"}))


def test_the_verifier_reads_rows_by_their_key(store: Store) -> None:
    store.update("setting", A, {"value": "uno", "revision": "1"})
    store.update("setting", C, {"revision": "1"})  # bookkeeping only
    diff = compute_diff(store)
    [change] = diff.changes
    assert change.row_key == A and change.key == ("setting", A) and change.sys_id == A  # the alias
    assert change.to_dict()["key"] == A and change.label() == f"setting {A}"
    assert [only.row_key for only in diff.derived_only] == [C]
    expectation = load_expectation(
        {"change": [{"label": "renamed", "table": "setting", "op": "update", "where": {"key": A}}]},
        {},
        store.catalog,
    )
    assert verify(store, expectation).requirements[0].rows == (("setting", A),)


def test_restore_rolls_back_or_deserializes_by_key() -> None:
    catalog = _catalog()
    data = _database(catalog)
    store = Store(connect(), catalog)
    store.restore(("unit", 0), lambda: data)
    assert store.last_restore == "deserialize"
    store.update("setting", A, {"value": "uno"})
    store.delete("member", "m1")
    store.restore(("unit", 0), lambda: data)
    assert store.last_restore == "rollback"
    assert store.get("setting", A)["value"] == "one" and store.get("member", "m1") is not None
    assert store.changed_rows() == []
    store.update("setting", B, {"value": "deux"})
    store.serialize()  # commits: the next restore deserializes
    store.restore(("unit", 0), lambda: data)
    assert store.last_restore == "deserialize" and store.get("setting", B)["value"] == "two"
    assert store.serialize() == data


def test_the_change_log_column_follows_a_shared_key_name() -> None:
    assert change_log_key(_catalog()) == ROW_KEY  # "key" and "id" disagree
    shared = _catalog(member_key="key")
    assert change_log_key(shared) == "key"
    store = Store(connect(), shared)
    data = _database(shared)
    store.restore(("shared", 0), lambda: data)
    store.update("member", "m1", {"login": "ada.l"})
    assert store.changed_rows() == [("member", "m1", {"key": "m1", "login": "ada"})]
    # A key named like one of the log's own columns falls back to the neutral name.
    clash = Catalog("clash", [TableSpec("t", (FieldSpec("seq"),), label="T")])
    assert change_log_key(clash) == ROW_KEY


# -- a toy system: its own ids, numbers and times ----------------------------------------------------


def _toy_id(rng: random.Random, table: str = "") -> str:
    return f"k-{rng.getrandbits(32):08x}"


TOY_CONVENTIONS = Conventions(
    id_pattern=r"k-[0-9a-f]{8}",
    numbering=Numbering(digits=4, first=1),
    formats=Formats(datetime="%d/%m/%Y %H:%M", date="%d/%m/%Y"),
    new_id=_toy_id,
)
TOY_CATALOG = Catalog(
    "toykeys",
    [
        TableSpec(
            "note",
            (FieldSpec("uid"), FieldSpec("number"), FieldSpec("text"), FieldSpec("created", "datetime")),
            label="Note",
            display_field="number",
            number_prefix="NOTE",
        )
    ],
)
TOY_METADATA, _ = build_models(TOY_CATALOG)


def _build_toy(build: WorldBuild) -> None:
    for text in ("first", "second"):
        build.store.insert(
            "note",
            {
                "uid": build.ids.new(),
                "number": build.number("note"),
                "text": text,
                "created": build.clock.now_text(),
            },
        )


def _add_note(ctx: CallContext, arguments: dict[str, str]) -> dict[str, str]:
    row = {
        "uid": ctx.ids.new(),
        "number": ctx.next_number("note"),
        "text": arguments["text"],
        "created": ctx.clock.now_text(),
    }
    ctx.store.insert("note", row)
    return row


class _OpenAccess:
    def check(
        self, identity: Identity, operation: object, table: str, row: object, changes: object = None
    ) -> None:
        return None

    def row_filter(self, identity: Identity, table: str) -> None:
        return None


TOY = System(
    name="toykeys",
    catalog=TOY_CATALOG,
    metadata=TOY_METADATA,
    build_world=_build_toy,
    epoch=datetime(2026, 5, 4, 8, 30, tzinfo=UTC),
    surfaces={
        "typed": lambda: Surface(
            "typed",
            [
                Tool(
                    "add_note",
                    "Add a note.",
                    obj({"text": string("Text")}, ["text"]),
                    {},
                    ToolKind.WRITE,
                    _add_note,
                )
            ],
        )
    },
    render_error=lambda error: {"error": error.message},
    access=_OpenAccess(),
    agent_identity=lambda store: Identity("agent", "agent", frozenset()),
    user_identity=lambda store, name: None,
    conventions=TOY_CONVENTIONS,
)


def test_numbers_ids_and_times_come_from_the_system() -> None:
    backend = Backend(TOY, size="tiny")
    world = backend.store.select("note", order_by="number")
    assert [row["number"] for row in world] == ["NOTE0001", "NOTE0002"]
    assert all(TOY_CONVENTIONS.is_id(row["uid"]) for row in world)
    assert {row["created"] for row in world} == {"04/05/2026 08:30"}
    backend.mark_start()
    result = backend.call("add_note", {"text": "third"})
    assert result.ok, result.body
    assert result.body["number"] == "NOTE0003" and re.fullmatch(r"k-[0-9a-f]{8}", result.body["uid"])
    assert result.body["created"] == "04/05/2026 08:30"  # the call's 5 simulated seconds
    [write] = backend.writes
    assert write.rows == (("note", result.body["uid"], result.body),)
    [change] = compute_diff(backend.store).changes
    # The diff names the row's key by the table's key field, as the row does.
    assert change.to_dict()["uid"] == result.body["uid"] and "key" not in change.to_dict()
    assert change.label() == "note NOTE0003"
    # The world is the same bytes in every build (ids and numbers are seeded, not drawn anew).
    assert build_snapshot(TOY, "tiny", 0).data == build_snapshot(TOY, "tiny", 0).data
    backend.close()


def test_numbering_ids_and_clock_take_any_convention() -> None:
    conn = connect()
    conn.execute("CREATE TABLE _number_counter (tbl TEXT PRIMARY KEY, next INTEGER NOT NULL)")
    numbering = Numbering(digits=3, first=42)
    assert [next_number(conn, "t", "T", numbering) for _ in range(2)] == ["T042", "T043"]
    assert Numbering(digits=7, first=10001).format("INC", 10001) == "INC0010001"  # ITSM's shape
    # The default id maker is the one ITSM's worlds were built with: 32 hex digits from 128 bits.
    assert IdFactory(seeded_rng("x")).new() == f"{seeded_rng('x').getrandbits(128):032x}"
    assert Conventions().new_id is hex_id and IdFactory(seeded_rng("x")).new() == hex_id(seeded_rng("x"))
    assert IdFactory(seeded_rng("x"), _toy_id).new() == _toy_id(seeded_rng("x"))
    # The id maker is told the table (a system may shape keys per table); "" when none is named.
    asked: list[str] = []

    def per_table(rng: random.Random, table: str) -> str:
        asked.append(table)
        return f"{table or 'any'}-{rng.getrandbits(8)}"

    ids = IdFactory(seeded_rng("x"), per_table)
    assert ids.new("note").startswith("note-") and ids.new().startswith("any-") and asked == ["note", ""]
    clock = SimClock(datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), datetime_format="%Y%m%d%H%M%S")
    assert clock.now_text() == "20260102030405" and clock.parse("20260102030405") == clock.now()
    assert SimClock(clock.now()).now_text() == "2026-01-02T03:04:05Z"  # the neutral default
    assert parse_datetime("02/01/2026 03:04", "%d/%m/%Y %H:%M") == datetime(2026, 1, 2, 3, 4, tzinfo=UTC)
