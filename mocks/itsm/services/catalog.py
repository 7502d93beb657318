"""Service catalog business rules: requests (sc_request) and requested items (sc_req_item).

Source: spec/itsm_behavior_rules.json (``sc_req_item``). Ordering a catalog item creates a
request (REQ) and one requested item (RITM) for it. Catalog items here need no approval, so both
start approved: the request ``requested``, the item Open at stage ``request_approved``. An item's
price is its catalog item's unit price; a request's price is the total of its items (price x
quantity), kept up to date whenever an item is added or changed, from either surface.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import bad_request, read_only_fields
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.common import refuse_frozen, require
from enterprise_envs.mocks.itsm.services.problem import TASK_DEFAULTS
from enterprise_envs.mocks.itsm.tables import behaviour_rules

_RULES = behaviour_rules()["sc_req_item"]
ITEM_STATE_LABELS: dict[str, str] = dict(_RULES["states"])
PENDING, OPEN, WORK_IN_PROGRESS = "-5", "1", "2"
CLOSED_COMPLETE, CLOSED_INCOMPLETE, CLOSED_SKIPPED = "3", "4", "7"
CLOSED_STATES = frozenset({CLOSED_COMPLETE, CLOSED_INCOMPLETE, CLOSED_SKIPPED})
MIN_QUANTITY, MAX_QUANTITY = 1, 10
_CENT = Decimal("0.01")
_NOT_AMOUNT = re.compile(r"[^0-9.]")
#: The workflow stage an item reaches when it is closed in each closed state.
CLOSED_STAGES = {
    CLOSED_COMPLETE: "complete",
    CLOSED_INCOMPLETE: "complete",
    CLOSED_SKIPPED: "Request Cancelled",
}


def money(value: Decimal) -> str:
    """A price as the catalog stores it ("1299.00")."""
    return str(value.quantize(_CENT))


def parse_price(text: str) -> Decimal:
    """A stored price as a number ("1299.00", "$1,299.00"; "" or anything unreadable counts as 0)."""
    try:
        return Decimal(_NOT_AMOUNT.sub("", text) or "0")
    except InvalidOperation:
        return Decimal(0)


def request_total(ctx: CallContext, request_sys_id: str) -> str:
    """A request's price: the sum of its items' price x quantity."""
    total = Decimal(0)
    for item in ctx.store.select("sc_req_item", "request = ?", (request_sys_id,)):
        total += parse_price(item["price"]) * int(item["quantity"] or 1)
    return money(total)


def order_item(
    ctx: CallContext,
    item: Row,
    *,
    requested_for: str,
    quantity: int = 1,
    opened_by: str | None = None,
    special_instructions: str = "",
) -> tuple[Row, Row]:
    """Order a catalog item: a request for ``requested_for`` and one requested item in it.

    Args:
        ctx: Call context.
        item: The sc_cat_item row.
        requested_for: sys_id of the user the item is for.
        quantity: How many (1 to 10).
        opened_by: sys_id of the user placing the order on someone's behalf (trusted: the caller
            has checked they may); default the caller.
        special_instructions: Free text for the fulfiller.

    Returns:
        The request and the requested item, as stored.
    """
    values = {"requested_for": requested_for}
    if special_instructions:
        values["special_instructions"] = special_instructions
    # The titles come from the item: the service's doing, not the client's choice.
    trusted = {"short_description": item["name"], "description": f"Order: {quantity} x {item['name']}"}
    if opened_by:
        trusted["opened_by"] = opened_by
    request = records.create(ctx, "sc_request", values, trusted=trusted)
    requested = records.create(
        ctx,
        "sc_req_item",
        {"request": request["sys_id"], "cat_item": item["sys_id"], "quantity": str(quantity)},
    )
    return ctx.store.get("sc_request", request["sys_id"]) or request, requested


class RequestRules(records.TableRules):
    """sc_request: a new request is approved at once; its price is its items' total."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """A new request: requested for and opened by the caller, approved, no items yet."""
        return {
            **TASK_DEFAULTS,
            "state": "1",  # the task's base state, Open
            "request_state": "requested",
            "stage": "requested",
            "approval": "approved",
            "active": "true",
            "price": money(Decimal(0)),
            "opened_at": ctx.clock.now_text(),
            "opened_by": ctx.identity.user_sys_id,
            "requested_for": ctx.identity.user_sys_id,
            "requested_date": ctx.clock.now_text()[:10],
        }

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """A request is for someone; it has no items yet, so no price."""
        require(ctx, "sc_request", new, ("requested_for",))
        _derived_price(new, supplied, money(Decimal(0)), None)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """The price follows the items; the request stays for someone."""
        require(ctx, "sc_request", new, ("requested_for",))
        _derived_price(new, supplied, request_total(ctx, old["sys_id"]), old)


class RequestedItemRules(records.TableRules):
    """sc_req_item: one catalog item in a request, Open until fulfilled; closed items are final."""

    def defaults(self, ctx: CallContext) -> dict[str, str]:
        """A new item: Open, approved, one of it, opened now by the caller."""
        return {
            **TASK_DEFAULTS,
            "state": OPEN,
            "stage": "request_approved",
            "approval": "approved",
            "quantity": "1",
            "active": "true",
            "opened_at": ctx.clock.now_text(),
            "opened_by": ctx.identity.user_sys_id,
        }

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """An item belongs to a request and orders an active catalog item."""
        require(ctx, "sc_req_item", new, ("request", "cat_item"))
        item = _orderable(ctx, new["cat_item"])
        request = ctx.store.get("sc_request", new["request"])
        if request is not None:
            new["opened_by"] = request["opened_by"] or new["opened_by"]
            new["requested_for"] = request["requested_for"]
        new["short_description"] = new["short_description"] or item["name"]
        new["assignment_group"] = new["assignment_group"] or item["group"]
        self._apply(ctx, None, new, supplied, item)

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Closed items are frozen; the price follows the catalog item."""
        refuse_frozen("Requested item", old, CLOSED_STATES, ITEM_STATE_LABELS)
        if new["request"] != old["request"]:
            raise read_only_fields([_label(ctx, "request")])
        require(ctx, "sc_req_item", new, ("cat_item",))
        if new["cat_item"] != old["cat_item"]:
            item = _orderable(ctx, new["cat_item"])
        else:
            item = ctx.store.get("sc_cat_item", new["cat_item"]) or {"price": old["price"]}
        self._apply(ctx, old, new, supplied, item)

    def after_write(self, ctx: CallContext, old: Row | None, new: Row | None) -> None:
        """Keep the request's total price true."""
        for request_id in {old["request"] if old else "", new["request"] if new else ""} - {""}:
            request = ctx.store.get("sc_request", request_id)
            if request is not None:
                records.system_update(ctx, "sc_request", request, {"price": request_total(ctx, request_id)})

    def _apply(
        self,
        ctx: CallContext,
        old: Row | None,
        new: Row,
        supplied: Mapping[str, str],
        item: Mapping[str, str],
    ) -> None:
        if (old is None or "quantity" in supplied) and not MIN_QUANTITY <= int(
            new["quantity"] or 0
        ) <= MAX_QUANTITY:
            raise bad_request(
                "Invalid value for quantity", f"Quantity must be between {MIN_QUANTITY} and {MAX_QUANTITY}"
            )
        _derived_price(new, supplied, money(parse_price(item["price"])), old)
        if new["state"] in CLOSED_STATES:
            new["active"] = "false"
            if old is None or old["state"] not in CLOSED_STATES:
                new["closed_at"], new["closed_by"] = ctx.clock.now_text(), ctx.identity.user_sys_id
                if "stage" not in supplied:
                    new["stage"] = CLOSED_STAGES[new["state"]]
        else:
            new["active"] = "true"


def _orderable(ctx: CallContext, cat_item: str) -> Row:
    item = ctx.store.get("sc_cat_item", cat_item)
    if item is None:  # the reference was checked; only a vanished row gets here
        raise bad_request(
            "Invalid reference for cat_item", f"'{cat_item}' is not the sys_id of a sc_cat_item record"
        )
    if item["active"] == "false":
        raise bad_request(
            "Catalog item not available", f"'{item['name']}' is inactive and can no longer be ordered"
        )
    return item


def _derived_price(new: Row, supplied: Mapping[str, str], derived: str, old: Row | None) -> None:
    """Set a derived price; a client may send the same value, not another one."""
    asked = supplied.get("price")
    if (
        asked is not None
        and parse_price(asked) != parse_price(derived)
        and (old is None or asked != old["price"])
    ):
        raise read_only_fields(["Price"])
    new["price"] = derived


def _label(ctx: CallContext, name: str) -> str:
    return ctx.store.catalog["sc_req_item"].field(name).label  # type: ignore[union-attr]
