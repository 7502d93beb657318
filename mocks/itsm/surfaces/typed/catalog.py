"""Typed service catalog tools: browse the catalog, order an item for someone, follow the order."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row, like_clause
from enterprise_envs.mocks._core.tools import Tool, ToolKind, obj, string
from enterprise_envs.mocks.itsm.access import STAFF_ROLES
from enterprise_envs.mocks.itsm.errors import acl_denied
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.services.catalog import (
    ITEM_STATE_LABELS,
    MAX_QUANTITY,
    MIN_QUANTITY,
    order_item,
)
from enterprise_envs.mocks.itsm.surfaces.typed.common import NUMBER, USER, View, find_user, like

_STR = {"type": "string"}
ITEM_SCHEMA: dict[str, Any] = obj(
    {name: _STR for name in ("sys_id", "name", "short_description", "category", "price")},
    required=["sys_id", "name", "price"],
)
ORDER_SCHEMA: dict[str, Any] = obj(
    {
        **{
            name: _STR
            for name in (
                "request",
                "requested_item",
                "item",
                "requested_for",
                "opened_by",
                "price",
                "state",
                "stage",
            )
        },
        "quantity": {"type": "integer"},
    },
    required=["request", "requested_item", "item", "requested_for", "quantity", "state"],
)
RITM_SCHEMA: dict[str, Any] = obj(
    {
        **{
            name: _STR
            for name in (
                "number", "sys_id", "state", "stage", "approval", "item", "short_description",
                "requested_for", "opened_by", "request", "price", "assignment_group", "opened_at",
                "closed_at",
            )
        },
        "quantity": {"type": "integer"},
    },
    required=["number", "sys_id", "state", "stage", "item", "requested_for", "request", "quantity"],
)  # fmt: skip


def _item_view(row: Row) -> dict[str, Any]:
    return {
        "sys_id": row["sys_id"],
        "name": row["name"],
        "short_description": row["short_description"],
        "category": row["category"],
        "price": row["price"],
    }


def list_catalog_items(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Active catalog items, optionally filtered by words in their name, description or category."""
    where, params = "active != 'false'", ()
    text = args.get("query", "").strip()
    if text:
        where += (
            " AND ("
            + " OR ".join(like_clause(column) for column in ("name", "short_description", "category"))
            + ")"
        )
        params = (like(text),) * 3
    rows, _ = records.query(ctx, "sc_cat_item", where, params, order_by="name, sys_id")
    return {"items": [_item_view(row) for row in rows]}


def order_catalog_item(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Order an item for someone: one request (REQ) with one requested item (RITM)."""
    item = records.find(ctx, "sc_cat_item", args["item"], by=("name",))
    requested_for = find_user(ctx, args["requested_for"])
    opened_by = find_user(ctx, args["on_behalf_of"])["sys_id"] if args.get("on_behalf_of") else None
    if opened_by not in (None, ctx.identity.user_sys_id) and not ctx.identity.has_role(*STAFF_ROLES):
        raise acl_denied("Insert")  # only service-desk staff place orders in another user's name
    request, requested = order_item(
        ctx,
        item,
        requested_for=requested_for["sys_id"],
        quantity=args.get("quantity", 1),
        opened_by=opened_by,
        special_instructions=args.get("special_instructions", ""),
    )
    view = View(ctx)
    return {
        "request": request["number"],
        "requested_item": requested["number"],
        "item": item["name"],
        "requested_for": view.user(request["requested_for"]),
        "opened_by": view.user(request["opened_by"]),
        "quantity": int(requested["quantity"]),
        "price": request["price"],
        "state": ITEM_STATE_LABELS.get(requested["state"], requested["state"]),
        "stage": requested["stage"],
    }


def get_requested_item(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One requested item and the request it belongs to."""
    row = records.find(ctx, "sc_req_item", args["number"])
    request = ctx.store.get("sc_request", row["request"]) if row["request"] else None
    view = View(ctx)
    return {
        "number": row["number"],
        "sys_id": row["sys_id"],
        "state": ITEM_STATE_LABELS.get(row["state"], row["state"]),
        "stage": row["stage"],
        "approval": view.label("sc_req_item", "approval", row["approval"]),
        "item": view.ref("sc_cat_item", row["cat_item"]),
        "short_description": row["short_description"],
        "requested_for": view.user(request["requested_for"]) if request else "",
        "opened_by": view.user(row["opened_by"]),
        "request": request["number"] if request else "",
        "quantity": int(row["quantity"] or 1),
        "price": row["price"],
        "assignment_group": view.ref("sys_user_group", row["assignment_group"]),
        "opened_at": row["opened_at"],
        "closed_at": row["closed_at"],
    }


def catalog_tools() -> list[Tool]:
    """The typed service catalog tools."""
    return [
        Tool(
            "list_catalog_items",
            "List the service catalog items that can be ordered (hardware, software, access...), with "
            "their prices. Filter with words from the name, description or category.",
            obj({"query": string("Words in the item's name, description or category, e.g. 'laptop'.", 200)}),
            obj({"items": {"type": "array", "items": ITEM_SCHEMA}}, required=["items"]),
            ToolKind.READ,
            list_catalog_items,
        ),
        Tool(
            "order_catalog_item",
            "Order a catalog item for a user. Creates a request (REQ) holding one requested item (RITM); "
            "give both numbers to the user. on_behalf_of is the person placing the order (default: you).",
            obj(
                {
                    "item": string("Catalog item: its exact name or sys_id.", 200),
                    "requested_for": USER,
                    "quantity": {
                        "type": "integer",
                        "minimum": MIN_QUANTITY,
                        "maximum": MAX_QUANTITY,
                        "description": f"How many ({MIN_QUANTITY}-{MAX_QUANTITY}, default 1).",
                    },
                    "on_behalf_of": USER,
                    "special_instructions": string("Notes for the fulfilment team.", 4000),
                },
                required=["item", "requested_for"],
            ),
            ORDER_SCHEMA,
            ToolKind.WRITE,
            order_catalog_item,
        ),
        Tool(
            "get_requested_item",
            "Follow an order: one requested item (RITM...) with its state, stage, item, quantity, who it "
            "is for and its request number.",
            obj({"number": NUMBER}, required=["number"]),
            RITM_SCHEMA,
            ToolKind.READ,
            get_requested_item,
        ),
    ]
