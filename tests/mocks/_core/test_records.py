"""The generic record engine on a made-up shop: its own key fields, ids, times, errors, no journal.

Nothing here is ServiceNow's: tables are keyed ``cid`` and ``oid``, keys look like ``s-1a2b3c4d``,
times are written day-first, errors have the shop's own wording, and the audit fields are called
``created_at``, ``edited_at``, ``edited_by`` and ``revision``.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import pytest

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.backend import Backend, CallContext
from enterprise_envs.mocks._core.conventions import Conventions, Formats, Numbering
from enterprise_envs.mocks._core.errors import ErrorKind, ToolError
from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.records import (
    AuditFields,
    Journal,
    RecordEngine,
    TableRules,
    datetime_shape,
)
from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec
from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, Tool, ToolKind, obj, string

# -- the shop --------------------------------------------------------------------------------------


def _shop_id(rng: random.Random, table: str = "") -> str:
    return f"s-{rng.getrandbits(32):08x}"


SHOP_CONVENTIONS = Conventions(
    id_pattern=r"s-[0-9a-f]{8}",
    numbering=Numbering(digits=4, first=1, number_field="ref"),
    formats=Formats(datetime="%d/%m/%Y %H:%M", date="%d/%m/%Y"),
    new_id=_shop_id,
)
_AUDIT = (
    FieldSpec("created_at", "datetime", read_only=True, derived=True),
    FieldSpec("edited_at", "datetime", read_only=True, derived=True),
    FieldSpec("edited_by", read_only=True, derived=True),
    FieldSpec("revision", "integer", read_only=True, derived=True),
)
SHOP_CATALOG = Catalog(
    "shop",
    [
        TableSpec(
            "customer",
            (
                FieldSpec("cid"),
                FieldSpec("login", max_length=12),
                FieldSpec("name"),
                FieldSpec("vip", "boolean"),
                FieldSpec("visits", "integer"),
                FieldSpec("tier", "choice", choices={"gold": "Gold", "silver": "Silver"}),
                FieldSpec("joined", "datetime"),
                FieldSpec("referrer", "reference", reference="customer"),
                FieldSpec("account", "reference", reference="crm_account"),  # not modelled here
                FieldSpec("source", read_only=True, settable_on_insert=True),
                *_AUDIT,
            ),
            label="Customer",
            display_field="name",
        ),
        TableSpec(
            "order",
            (
                FieldSpec("oid"),
                FieldSpec("ref", read_only=True),
                FieldSpec("customer", "reference", reference="customer"),
                FieldSpec("status", "choice", choices={"open": "Open", "shipped": "Shipped"}),
                FieldSpec("qty", "integer"),
                *_AUDIT,
            ),
            label="Order",
            number_prefix="ORD",
        ),
    ],
)
SHOP_METADATA, _ = build_models(SHOP_CATALOG)
EPOCH = datetime(2026, 5, 4, 8, 30, tzinfo=UTC)


class ShopErrors:
    """The shop's own error shapes: nothing like the Table API's."""

    def bad_request(self, message: str, detail: str | None = None) -> ToolError:
        return ToolError(ErrorKind.INVALID_ARGUMENT, f"shop says no: {message}", detail)

    def read_only_fields(self, labels: Iterable[str]) -> ToolError:
        return ToolError(ErrorKind.CONFLICT, "locked", "; ".join(labels))

    def record_not_found(self, what: str = "") -> ToolError:
        return ToolError(ErrorKind.NOT_FOUND, "gone", what or None)


class OrderRules(TableRules):
    """New orders start open; a shipped order cannot be deleted; nobody orders more than 100."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        return {"status": "open", "qty": "1"}

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        if int(new["qty"] or 0) > 100:
            raise ToolError(ErrorKind.INVALID_ARGUMENT, "too many", new["qty"])

    def before_delete(self, ctx: CallContext, old: Row) -> None:
        if old["status"] == "shipped":
            raise ToolError(ErrorKind.CONFLICT, "already shipped", old["ref"])


def _engine() -> RecordEngine:
    engine = RecordEngine(
        conventions=SHOP_CONVENTIONS,
        errors=ShopErrors(),
        audit=AuditFields(
            created_on="created_at", updated_on="edited_at", updated_by="edited_by", mod_count="revision"
        ),
        always_set=("status",),
        describe_fields=("login",),
    )
    engine.register("order", OrderRules())
    return engine


ENGINE = _engine()


class ShopAccess:
    """Anyone reads and writes; only a ``manager`` deletes a customer."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        if operation is Operation.DELETE and table == "customer" and not identity.has_role("manager"):
            raise ToolError(ErrorKind.PERMISSION_DENIED, "managers only")

    def row_filter(self, identity: Identity, table: str) -> None:
        return None


def _build_shop(build: WorldBuild) -> None:
    now = build.clock.now_text()
    audit = {"created_at": now, "edited_at": now, "edited_by": "system", "revision": "0"}
    people = []
    for login, name in (("ada", "Ada L"), ("bob", "Bob M"), ("bob2", "Bob M")):
        people.append({"cid": build.ids.new(), "login": login, "name": name, "tier": "gold", **audit})
        build.store.insert("customer", people[-1])
    for status in ("open", "shipped"):
        row = {"oid": build.ids.new(), "ref": build.number("order"), "customer": people[0]["cid"]}
        build.store.insert("order", {**row, "status": status, "qty": "2", **audit})


def _order_twice(ctx: CallContext, arguments: dict[str, Any]) -> dict[str, str]:
    """A write tool: create a customer, then set an order's quantity (which the rules may refuse)."""
    ENGINE.create(ctx, "customer", {"login": arguments["login"]})
    order = ENGINE.find(ctx, "order", arguments["order"])
    return ENGINE.update(ctx, "order", order, {"qty": arguments["qty"]})


SHOP = System(
    name="shop-records",
    catalog=SHOP_CATALOG,
    metadata=SHOP_METADATA,
    build_world=_build_shop,
    epoch=EPOCH,
    surfaces={
        "typed": lambda: Surface(
            "typed",
            [
                Tool(
                    "order_twice",
                    "Create a customer and change an order.",
                    obj(
                        {"login": string("Login"), "order": string("Order"), "qty": string("Qty")}, ["login"]
                    ),
                    {},
                    ToolKind.WRITE,
                    _order_twice,
                )
            ],
        )
    },
    render_error=lambda error: {"oops": error.message, "why": error.detail},
    access=ShopAccess(),
    agent_identity=lambda store: Identity("s-00000000", "clerk", frozenset()),
    user_identity=lambda store, name: None,
    conventions=SHOP_CONVENTIONS,
)


@pytest.fixture
def shop() -> Iterator[Backend]:
    backend = Backend(SHOP, size="tiny")
    backend.mark_start()
    yield backend
    backend.close()


@pytest.fixture
def ctx(shop: Backend) -> CallContext:
    return shop.context()


def _refused(call: Any, *args: Any, **kwargs: Any) -> ToolError:
    with pytest.raises(ToolError) as raised:
        call(*args, **kwargs)
    return raised.value


def _customer(shop: Backend, login: str) -> Row:
    row = shop.store.find_one("customer", "login", login)
    assert row is not None
    return row


# -- writes ----------------------------------------------------------------------------------------


def test_create_gives_key_number_defaults_and_audit_fields(shop: Backend, ctx: CallContext) -> None:
    ada = _customer(shop, "ada")
    order = ENGINE.create(ctx, "order", {"customer": ada["cid"]})
    assert SHOP_CONVENTIONS.is_id(order["oid"]) and ENGINE.is_key(order["oid"])
    assert order["ref"] == "ORD0003"  # after the world's two orders, in the shop's numbering
    assert order["status"] == "open" and order["qty"] == "1"  # the rules' defaults
    now = ctx.clock.now_text()
    assert now == EPOCH.strftime("%d/%m/%Y %H:%M")
    assert (order["created_at"], order["edited_at"], order["edited_by"], order["revision"]) == (
        now,
        now,
        "clerk",
        "0",
    )
    assert shop.store.get("order", order["oid"]) == order
    # The verifier's yardstick: what the service gave the row before the client's values.
    assert shop.store.new_defaults("order", order["oid"]) == (
        {"status": "open", "qty": "1"},
        frozenset({"customer"}),
    )
    # A read-only field settable on insert is taken when creating, refused afterwards.
    customer = ENGINE.create(ctx, "customer", {"login": "cy", "source": "web"})
    assert customer["source"] == "web" and customer["created_at"] == now
    refused = _refused(ENGINE.update, ctx, "customer", customer, {"source": "phone"})
    assert (refused.message, refused.detail) == ("locked", "Source")


def test_update_writes_the_given_fields_and_counts_revisions(shop: Backend, ctx: CallContext) -> None:
    ada = _customer(shop, "ada")
    shop.clock.advance(120)
    new = ENGINE.update(ctx, "customer", ada, {"name": "Ada Lovelace", "visits": "007", "vip": "TRUE"})
    assert (new["name"], new["visits"], new["vip"]) == ("Ada Lovelace", "7", "true")
    assert new["revision"] == "1" and new["edited_at"] == ctx.clock.now_text() != ada["edited_at"]
    assert new["created_at"] == ada["created_at"] and shop.store.get("customer", ada["cid"]) == new
    # Nothing changes, nothing is written (no revision, no change-log entry).
    logged = shop.store.change_log_size()
    assert ENGINE.update(ctx, "customer", new, {"name": "Ada Lovelace"}) == new
    assert shop.store.change_log_size() == logged and shop.store.get("customer", ada["cid"]) == new
    # A system write stamps too, without an access check.
    order = shop.store.find_one("order", "ref", "ORD0001")
    changed = ENGINE.system_update(ctx, "order", order, {"qty": "3"})
    assert changed["qty"] == "3" and changed["revision"] == "1"
    inserted = ENGINE.system_insert(ctx, "order", {"customer": ada["cid"], "status": "open"})
    assert inserted["ref"] == "ORD0003" and inserted["revision"] == "0"
    assert shop.store.new_defaults("order", inserted["oid"])[0]["status"] == "open"


def test_delete_asks_access_and_the_tables_rules(shop: Backend, ctx: CallContext) -> None:
    shipped = shop.store.find_one("order", "status", "shipped")
    refused = _refused(ENGINE.delete, ctx, "order", shipped)
    assert (refused.message, refused.detail) == ("already shipped", shipped["ref"])
    opened = shop.store.find_one("order", "status", "open")
    ENGINE.delete(ctx, "order", opened)
    assert shop.store.get("order", opened["oid"]) is None
    gone = _refused(ENGINE.get, ctx, "order", opened["oid"])
    assert (gone.kind, gone.message) == (ErrorKind.NOT_FOUND, "gone")
    # The access check runs through the context: a denial names its target.
    bob = _customer(shop, "bob")
    denied = _refused(ENGINE.delete, ctx, "customer", bob)
    assert denied.message == "managers only" and denied.target == ("delete", "customer", bob["cid"])
    ENGINE.delete(shop.context(Identity("s-00000001", "boss", frozenset({"manager"}))), "customer", bob)
    assert shop.store.get("customer", bob["cid"]) is None


# -- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "message", "detail"),
    [
        (
            {"nickname": "x"},
            "shop says no: Invalid field",
            "Field 'nickname' does not exist on table customer",
        ),
        ({"visits": 3}, "shop says no: Invalid value for visits", "Field values are strings"),
        ({"login": "a" * 13}, "shop says no: Value too long for login", "Maximum length is 12 characters"),
        ({"vip": "maybe"}, "shop says no: Invalid value for vip", "'maybe' is not true or false"),
        ({"visits": "1e3"}, "shop says no: Invalid value for visits", "'1e3' is not an integer"),
        (
            {"joined": "2026-05-04 08:30:00"},
            "shop says no: Invalid value for joined",
            "'2026-05-04 08:30:00' is not a date-time DD/MM/YYYY HH:MM",
        ),
        (
            {"tier": "platinum"},
            "shop says no: Invalid value for tier",
            "'platinum' is not a valid choice. Choices: gold (Gold), silver (Silver)",
        ),
        (
            {"referrer": "ada"},
            "shop says no: Invalid reference for referrer",
            "'ada' is not the cid of a customer record",
        ),
        (
            {"referrer": "s-ffffffff"},
            "shop says no: Invalid reference for referrer",
            "'s-ffffffff' is not the cid of a customer record",
        ),
    ],
)
def test_values_are_checked_by_field_kind(
    shop: Backend, ctx: CallContext, values: dict[str, Any], message: str, detail: str
) -> None:
    for row in (None, _customer(shop, "ada")):
        refused = _refused(ENGINE.clean_values, ctx, "customer", values, row)
        assert (refused.kind, refused.message, refused.detail) == (
            ErrorKind.INVALID_ARGUMENT,
            message,
            detail,
        )


def test_valid_values_are_normalized(shop: Backend, ctx: CallContext) -> None:
    bob = _customer(shop, "bob")
    values = {
        "vip": "0",
        "visits": "-05",
        "joined": "04/05/2026 08:30",
        "tier": "",  # may be emptied: not an always-set field
        "referrer": bob["cid"],
        "account": "anything",  # a reference to a table not modelled here is kept as given
    }
    assert ENGINE.clean_values(ctx, "customer", values, None) == {**values, "vip": "false", "visits": "-5"}
    # An always-set choice field cannot be emptied.
    refused = _refused(ENGINE.clean_values, ctx, "order", {"status": ""}, None)
    assert refused.detail == "status cannot be empty"


def test_read_only_fields_are_refused_together_after_every_value_passed(
    shop: Backend, ctx: CallContext
) -> None:
    ada = _customer(shop, "ada")
    changes = {"created_at": "01/01/2020 00:00", "name": "A", "revision": "9"}
    refused = _refused(ENGINE.update, ctx, "customer", ada, changes)
    assert (refused.kind, refused.message, refused.detail) == (
        ErrorKind.CONFLICT,
        "locked",
        "Created at; Revision",
    )
    # The same value again is no change: dropped, not refused.
    same = {"created_at": ada["created_at"], "name": "A"}
    assert ENGINE.clean_values(ctx, "customer", same, ada) == {"name": "A"}
    # A malformed value is reported before a read-only one.
    refused = _refused(ENGINE.clean_values, ctx, "customer", {"revision": "9", "vip": "maybe"}, ada)
    assert refused.message == "shop says no: Invalid value for vip"


def test_a_tables_rules_refuse_and_nothing_else_is_written(shop: Backend) -> None:
    order = shop.store.find_one("order", "status", "open")
    result = shop.call("order_twice", {"login": "dee", "order": order["ref"], "qty": "500"})
    assert (result.status, result.body) == (400, {"oops": "too many", "why": "500"})
    assert shop.store.changed_keys() == [] and shop.store.find_one("customer", "login", "dee") is None
    assert [refusal.operation for refusal in shop.refusals] == ["write"]
    result = shop.call("order_twice", {"login": "dee", "order": order["ref"].lower(), "qty": "5"})
    assert result.ok and result.body["qty"] == "5" and result.body["revision"] == "1"
    assert shop.store.find_one("customer", "login", "dee") is not None


# -- reads -----------------------------------------------------------------------------------------


def test_find_resolves_keys_numbers_and_names(shop: Backend, ctx: CallContext) -> None:
    ada = _customer(shop, "ada")
    assert ENGINE.find(ctx, "customer", f" {ada['cid']} ") == ada
    assert ENGINE.find(ctx, "customer", "ADA", by=("login",)) == ada
    assert ENGINE.find(ctx, "order", "ord0002")["ref"] == "ORD0002"
    ambiguous = _refused(ENGINE.find, ctx, "customer", "bob m", by=("name",))
    assert ambiguous.message == "shop says no: Ambiguous customer: 'bob m'"
    bob, bob2 = _customer(shop, "bob"), _customer(shop, "bob2")
    assert (
        f"Bob M <bob> cid={bob['cid']}" in ambiguous.detail
        and f"<bob2> cid={bob2['cid']}" in ambiguous.detail
    )
    assert ambiguous.detail.endswith("Use the cid or a unique identifier.")
    missing = _refused(ENGINE.find, ctx, "order", "ORD0099")
    assert (missing.message, missing.detail) == ("gone", "Order 'ORD0099'")
    # A key of the wrong shape is not looked up at all.
    assert _refused(ENGINE.get, ctx, "customer", "0" * 32).detail is None
    rows, total = ENGINE.query(ctx, "customer", "tier = ?", ("gold",), limit=2)
    assert total == 3 and [row["cid"] for row in rows] == sorted(row["cid"] for row in rows)


# -- the engine itself -----------------------------------------------------------------------------


def test_each_engine_has_its_own_rules_registry() -> None:
    other = RecordEngine(conventions=SHOP_CONVENTIONS, errors=ShopErrors())
    assert type(other.rules_for("order")) is TableRules and isinstance(ENGINE.rules_for("order"), OrderRules)
    other.register("order", TableRules())
    with pytest.raises(ValueError, match="registered twice"):
        other.register("order", TableRules())
    assert isinstance(ENGINE.rules_for("order"), OrderRules)


def test_journal_fields_come_from_the_catalog_and_go_where_the_hook_says(shop: Backend) -> None:
    noted = TableSpec(
        "ticket",
        (
            FieldSpec("tid"),
            FieldSpec("both", "journal"),
            FieldSpec("note", "journal"),
            FieldSpec("reply", "journal"),
        ),
        label="Ticket",
    )
    # A system without a journal cannot have journal fields.
    with pytest.raises(ValueError, match="journal"):
        ENGINE._split_journal(noted, {"note": "x"})
    written: list[tuple[str, str, str, str]] = []

    def write(ctx: CallContext, table: str, key: str, element: str, text: str) -> Row:
        written.append((table, key, element, text))
        return {}

    engine = RecordEngine(
        conventions=SHOP_CONVENTIONS, errors=ShopErrors(), journal=Journal(write, {"both": "note"})
    )
    values = {"both": "combined", "note": "plain", "reply": "  ", "other": "kept"}
    # Plain fields first, then the aliased one (its text wins); blank text is no entry.
    assert engine._split_journal(noted, values) == {"note": "combined"}
    assert values == {"other": "kept"}
    engine._write_journal(shop.context(), "ticket", "t1", {"note": "combined"})
    assert written == [("ticket", "t1", "note", "combined")]


def test_the_date_time_check_follows_the_format() -> None:
    pattern, human = datetime_shape("%Y-%m-%d %H:%M:%S")
    assert human == "YYYY-MM-DD HH:MM:SS" and pattern.match("2026-03-02 09:00:00")
    assert not pattern.match("2026-03-02T09:00:00Z")
    pattern, human = datetime_shape("%Y-%m-%dT%H:%M:%SZ")
    assert human == "YYYY-MM-DDTHH:MM:SSZ" and pattern.match("2026-03-02T09:00:00Z")
    with pytest.raises(ValueError, match="%b"):
        datetime_shape("%d %b %Y")
