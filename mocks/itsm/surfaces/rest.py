"""Surface ``rest``: the ServiceNow Table API, one tool per operation.

Faithful to the vendor: ``sysparm_*`` parameters, string-typed values, ``{"result": ...}``
bodies, X-Total-Count and Link headers, and the vendor's error envelope. Agents see the full
response (status, headers, body).
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import urlencode

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.http import public_url
from enterprise_envs.mocks._core.tools import (
    Response,
    Surface,
    Tool,
    ToolKind,
    full_response,
    obj,
    string,
    wait_tool,
)
from enterprise_envs.mocks.itsm.errors import bad_request, record_not_found
from enterprise_envs.mocks.itsm.query import FieldInfo, QueryError, compile_query
from enterprise_envs.mocks.itsm.render import RecordRenderer
from enterprise_envs.mocks.itsm.services import records
from enterprise_envs.mocks.itsm.tables import itsm_catalog, json_schema_defs

DEFAULT_LIMIT = 10000  # the Table API's default sysparm_limit


class CatalogResolver:
    """Resolves query field names against the catalog for the encoded-query compiler."""

    def __init__(self) -> None:
        self.catalog = itsm_catalog()
        self._cache: dict[tuple[str, str], FieldInfo | None] = {}

    def field(self, table: str, name: str) -> FieldInfo | None:
        """Field info for the compiler, or None for an unknown field."""
        key = (table, name)
        if key not in self._cache:
            self._cache[key] = self._resolve(table, name)
        return self._cache[key]

    def _resolve(self, table: str, name: str) -> FieldInfo | None:
        if table not in self.catalog:
            return None
        spec = self.catalog[table].field(name)
        if spec is None:
            return None
        kind = spec.kind
        if kind == "choice" and spec.choices and all(_is_int(value) for value in spec.choices if value):
            kind = "integer"
        elif kind == "journal":
            kind = "string"
        elif kind == "reference":
            target = spec.reference if self.catalog.is_local(spec.reference or "") else None
            return FieldInfo(name, "reference", target)
        return FieldInfo(name, kind)


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit()


_RESOLVER = CatalogResolver()

# -- schemas ----------------------------------------------------------------------------------

_TABLE = {
    "type": "string",
    "enum": sorted(itsm_catalog()),
    "description": "Table name, e.g. incident, problem, change_request, sys_user, kb_knowledge.",
}
_SYS_ID = string("The record's sys_id (32 hex characters).", 64)
_DISPLAY = {
    "type": "string",
    "enum": ["true", "false", "all"],
    "description": "false: stored values (default); true: display values; all: both.",
}
_EXCLUDE = {"type": "boolean", "description": "true: reference fields are plain sys_id strings, no links."}
_FIELDS = string("Comma-separated field names to return (default: all).", 2000)
_VALUES = {
    "type": "object",
    "description": "Field name -> value, all values as strings (references take a sys_id).",
    "additionalProperties": {"type": "string", "maxLength": 65536},
    "maxProperties": 120,
}


@cache
def _response_schema(body_ref: str) -> dict[str, Any]:
    """Output schema: the full response with a body from the spec's components."""
    body = {"$ref": f"#/$defs/{body_ref}"} if body_ref else None
    return {**full_response(body), "$defs": json_schema_defs()}


# -- handlers ---------------------------------------------------------------------------------


def _renderer(ctx: CallContext, args: dict[str, Any]) -> RecordRenderer:
    return RecordRenderer(
        ctx, args.get("sysparm_display_value", "false"), args.get("sysparm_exclude_reference_link", False)
    )


def _field_list(args: dict[str, Any]) -> list[str] | None:
    text = args.get("sysparm_fields", "")
    names = [name.strip() for name in text.split(",") if name.strip()]
    return names or None


def table_list(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/now/table/{tableName}."""
    table = args["table"]
    try:
        compiled = compile_query(
            table,
            args.get("sysparm_query", ""),
            _RESOLVER,
            invalid_returns_no_rows=ctx.settings["invalid_query_returns_no_rows"],
        )
    except QueryError as error:
        raise bad_request("Invalid query", str(error)) from None
    limit = ctx.faults.cap_page(args.get("sysparm_limit", DEFAULT_LIMIT))
    offset = args.get("sysparm_offset", 0)
    rows, total = records.query(
        ctx, table, compiled.where, compiled.params, order_by=compiled.order_by, limit=limit, offset=offset
    )
    renderer = _renderer(ctx, args)
    fields = _field_list(args)
    headers: dict[str, str] = {}
    if not args.get("sysparm_no_count", False):
        headers["X-Total-Count"] = str(total)
    headers["Link"] = _link_header(ctx, table, args, limit, offset, total)
    return Response({"result": [renderer.record(table, row, fields) for row in rows]}, 200, headers)


def _link_header(
    ctx: CallContext, table: str, args: dict[str, Any], limit: int, offset: int, total: int
) -> str:
    base = f"{public_url(ctx.settings['instance_url'])}/api/now/table/{table}"
    keep = {
        key: args[key]
        for key in ("sysparm_query", "sysparm_fields", "sysparm_display_value")
        if args.get(key)
    }

    def url(at: int) -> str:
        return f"{base}?{urlencode({**keep, 'sysparm_limit': limit, 'sysparm_offset': at})}"

    last = max(0, ((total - 1) // limit) * limit) if total else 0
    links = [f'<{url(0)}>;rel="first"']
    if offset > 0:
        links.append(f'<{url(max(0, offset - limit))}>;rel="prev"')
    if offset + limit < total:
        links.append(f'<{url(offset + limit)}>;rel="next"')
    links.append(f'<{url(last)}>;rel="last"')
    return ",".join(links)


def table_get(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """GET /api/now/table/{tableName}/{sys_id}."""
    row = records.get(ctx, args["table"], args["sys_id"])
    return {"result": _renderer(ctx, args).record(args["table"], row, _field_list(args))}


def table_create(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /api/now/table/{tableName}."""
    table = args["table"]
    row = records.create(ctx, table, args.get("fields", {}))
    renderer = _renderer(ctx, args)
    return Response(
        {"result": renderer.record(table, row, _field_list(args))},
        201,
        {"Location": renderer.link(table, row["sys_id"])},
    )


def table_update(ctx: CallContext, args: dict[str, Any]) -> dict[str, Any]:
    """PATCH /api/now/table/{tableName}/{sys_id}: only the given fields change."""
    table = args["table"]
    row = records.get(ctx, table, args["sys_id"])
    row = records.update(ctx, table, row, args.get("fields", {}))
    return {"result": _renderer(ctx, args).record(table, row, _field_list(args))}


def table_delete(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/now/table/{tableName}/{sys_id}."""
    table = args["table"]
    row = ctx.store.get(table, args["sys_id"]) if records.is_sys_id(args["sys_id"]) else None
    if row is None:
        raise record_not_found()
    records.delete(ctx, table, row)
    return Response(None, 204)


def build_rest_surface() -> Surface:
    """The Table API tools."""
    list_response = _response_schema("ListResponse")
    record_response = _response_schema("RecordResponse")
    return Surface(
        "rest",
        [
            Tool(
                "table_list",
                "Retrieve records from a table (GET /api/now/table/{table}). Filter with sysparm_query, "
                "an encoded query: field=value terms joined by ^ (AND) or ^OR (OR); operators =, !=, "
                "LIKE, STARTSWITH, ENDSWITH, IN, NOT IN, ISEMPTY, ISNOTEMPTY, <, <=, >, >=; dot-walk "
                "one reference (caller_id.user_name=abel.tuter); sort with ORDERBY<field> or "
                "ORDERBYDESC<field>. Page with sysparm_limit and sysparm_offset; the X-Total-Count "
                "header gives the total and the Link header the next page. Values are strings.",
                obj(
                    {
                        "table": _TABLE,
                        "sysparm_query": string("Encoded query, e.g. active=true^caller_id=<sys_id>.", 4000),
                        "sysparm_fields": _FIELDS,
                        "sysparm_limit": {"type": "integer", "minimum": 1, "maximum": 10000},
                        "sysparm_offset": {"type": "integer", "minimum": 0, "maximum": 1000000},
                        "sysparm_display_value": _DISPLAY,
                        "sysparm_exclude_reference_link": _EXCLUDE,
                        "sysparm_no_count": {"type": "boolean", "description": "true: skip X-Total-Count."},
                    },
                    required=["table"],
                ),
                list_response,
                ToolKind.READ,
                table_list,
            ),
            Tool(
                "table_get",
                "Retrieve one record by sys_id (GET /api/now/table/{table}/{sys_id}). 404 if it does "
                "not exist or you may not read it.",
                obj(
                    {
                        "table": _TABLE,
                        "sys_id": _SYS_ID,
                        "sysparm_fields": _FIELDS,
                        "sysparm_display_value": _DISPLAY,
                        "sysparm_exclude_reference_link": _EXCLUDE,
                    },
                    required=["table", "sys_id"],
                ),
                record_response,
                ToolKind.READ,
                table_get,
            ),
            Tool(
                "table_create",
                "Create a record (POST /api/now/table/{table}). Give field values as strings; "
                "reference fields take a sys_id. Returns 201 with the new record, including its number.",
                obj(
                    {
                        "table": _TABLE,
                        "fields": _VALUES,
                        "sysparm_fields": _FIELDS,
                        "sysparm_display_value": _DISPLAY,
                        "sysparm_exclude_reference_link": _EXCLUDE,
                    },
                    required=["table", "fields"],
                ),
                record_response,
                ToolKind.WRITE,
                table_create,
            ),
            Tool(
                "table_update",
                "Update fields of a record (PATCH /api/now/table/{table}/{sys_id}); fields not given stay "
                "as they are. Setting comments or work_notes adds a journal entry. Business rules and "
                "data policies apply: e.g. resolving an incident (state 6) needs close_code and "
                "close_notes; priority follows impact and urgency.",
                obj(
                    {
                        "table": _TABLE,
                        "sys_id": _SYS_ID,
                        "fields": _VALUES,
                        "sysparm_fields": _FIELDS,
                        "sysparm_display_value": _DISPLAY,
                        "sysparm_exclude_reference_link": _EXCLUDE,
                    },
                    required=["table", "sys_id", "fields"],
                ),
                record_response,
                ToolKind.WRITE,
                table_update,
            ),
            Tool(
                "table_delete",
                "Delete a record (DELETE /api/now/table/{table}/{sys_id}). Returns 204 with no body.",
                obj({"table": _TABLE, "sys_id": _SYS_ID}, required=["table", "sys_id"]),
                _response_schema(""),
                ToolKind.WRITE,
                table_delete,
            ),
            wait_tool(),
        ],
        full_response=True,
    )
