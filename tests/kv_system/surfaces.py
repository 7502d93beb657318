"""Keyval's two tool surfaces: ``rest`` (its record API, by collection and id) and ``typed``.

Both go through the generic record engine (``mocks/_core/records.py``): validation by field
kind, the access check, audit fields and rollback come from there, not from this file.
"""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.errors import invalid, not_found
from enterprise_envs.mocks._core.tools import Response, Surface, Tool, ToolKind, obj, string, wait_tool
from tests.kv_system.records import ENGINE

_COLLECTION = {"type": "string", "enum": ["member", "entry"], "description": "member or entry."}
_ID = string("The record's id (kv_ and twelve characters).", 15)
_DATA = {
    "type": "object",
    "description": "Field values as strings.",
    "additionalProperties": {"type": "string", "maxLength": 500},
    "maxProperties": 20,
}
_ANY = {"type": "object"}
_SPACE = string("The space, e.g. team-notes.", 40)
_NAME = string("The entry's name within its space.", 80)


def _matching(
    ctx: CallContext, table: str, where: dict[str, str], limit: int
) -> tuple[list[dict[str, str]], int]:
    """Rows whose fields equal every given value (unknown fields: a 400), key order."""
    spec = ctx.store.catalog[table]
    unknown = sorted(name for name in where if name not in spec)
    if unknown:
        raise invalid("Unknown field", f"{table} has no field '{unknown[0]}'")
    condition = " AND ".join(f'"{name}" = ?' for name in sorted(where)) or "1"
    return ENGINE.query(ctx, table, condition, tuple(where[name] for name in sorted(where)), limit=limit)


def list_records(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /v1/{collection}?field=value...: records matching every given field, key order."""
    rows, total = _matching(ctx, args["collection"], args.get("where", {}), args.get("limit", 50))
    return Response({"data": rows, "count": total}, 200, {"X-Total-Count": str(total)})


def get_record(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /v1/{collection}/{id}."""
    return Response({"data": ENGINE.get(ctx, args["collection"], args["id"])}, 200)


def create_record(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /v1/{collection}."""
    return Response({"data": ENGINE.create(ctx, args["collection"], args["data"])}, 201)


def update_record(ctx: CallContext, args: dict[str, Any]) -> Response:
    """PATCH /v1/{collection}/{id}."""
    table = args["collection"]
    row = ENGINE.get(ctx, table, args["id"])
    return Response({"data": ENGINE.update(ctx, table, row, args["data"])}, 200)


def delete_record(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /v1/{collection}/{id}."""
    table = args["collection"]
    ENGINE.delete(ctx, table, ENGINE.get(ctx, table, args["id"]))
    return Response(None, 204)


def rest_surface() -> Surface:
    """Keyval's record API."""
    return Surface(
        "rest",
        [
            Tool(
                "list_records",
                "List records of a collection (GET /v1/{collection}). Filter with where: field -> exact "
                "value, all must match. Returns data (the records) and count.",
                obj(
                    {
                        "collection": _COLLECTION,
                        "where": {**_DATA, "description": "Field -> exact value; every one must match."},
                        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
                    },
                    required=["collection"],
                ),
                _ANY,
                ToolKind.READ,
                list_records,
            ),
            Tool(
                "get_record",
                "Get one record by id (GET /v1/{collection}/{id}); 404 if there is none.",
                obj({"collection": _COLLECTION, "id": _ID}, required=["collection", "id"]),
                _ANY,
                ToolKind.READ,
                get_record,
            ),
            Tool(
                "create_record",
                "Create a record (POST /v1/{collection}) from data (field values as strings). Returns it "
                "with its id and, for an entry, its reference (KV and five digits).",
                obj({"collection": _COLLECTION, "data": _DATA}, required=["collection", "data"]),
                _ANY,
                ToolKind.WRITE,
                create_record,
            ),
            Tool(
                "update_record",
                "Change fields of a record (PATCH /v1/{collection}/{id}); fields not given stay.",
                obj(
                    {"collection": _COLLECTION, "id": _ID, "data": _DATA},
                    required=["collection", "id", "data"],
                ),
                _ANY,
                ToolKind.WRITE,
                update_record,
            ),
            Tool(
                "delete_record",
                "Delete a record (DELETE /v1/{collection}/{id}). Returns 204.",
                obj({"collection": _COLLECTION, "id": _ID}, required=["collection", "id"]),
                _ANY,
                ToolKind.WRITE,
                delete_record,
            ),
            wait_tool(),
        ],
        full_response=True,
    )


def _entry(ctx: CallContext, space: str, name: str) -> dict[str, str] | None:
    found, _ = _matching(ctx, "entry", {"space": space, "name": name}, 1)
    return found[0] if found else None


def find_member(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Members whose login, e-mail or name contains the query."""
    query = args["query"].casefold()
    rows, _ = ENGINE.query(ctx, "member")
    hits = [
        {name: row[name] for name in ("id", "login", "display_name", "email")}
        for row in rows
        if any(query in row[name].casefold() for name in ("login", "email", "display_name"))
    ]
    return {"members": hits[:20]}


def get_entry(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """One entry by space and name."""
    row = _entry(ctx, args["space"], args["name"])
    if row is None:
        raise not_found("No such entry", f"No entry '{args['name']}' in space '{args['space']}'")
    return {"entry": row}


def put_entry(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """Create or overwrite an entry's value, as the bot."""
    values = {"space": args["space"], "name": args["name"], "value": args["value"]}
    row = _entry(ctx, args["space"], args["name"])
    if row is None:
        owner = ctx.identity.user_sys_id
        return {"entry": ENGINE.create(ctx, "entry", {**values, "owner": owner}), "created": True}
    return {"entry": ENGINE.update(ctx, "entry", row, {"value": args["value"]}), "created": False}


def typed_surface() -> Surface:
    """Keyval's task-level tools."""
    return Surface(
        "typed",
        [
            Tool(
                "find_member",
                "Find Keyval members by part of their login, e-mail address or name.",
                obj({"query": string("Text to look for.", 200)}, required=["query"]),
                _ANY,
                ToolKind.READ,
                find_member,
            ),
            Tool(
                "get_entry",
                "Read an entry by space and name.",
                obj({"space": _SPACE, "name": _NAME}, required=["space", "name"]),
                _ANY,
                ToolKind.READ,
                get_entry,
            ),
            Tool(
                "put_entry",
                "Store a value under a name in a space (creates the entry or replaces its value). Returns "
                "the entry with its reference (KV and five digits).",
                obj(
                    {"space": _SPACE, "name": _NAME, "value": string("The value to store.", 500)},
                    required=["space", "name", "value"],
                ),
                _ANY,
                ToolKind.WRITE,
                put_entry,
            ),
            wait_tool(),
        ],
    )
