"""ServiceNow's Table API on the wire: ``/api/now/table/{table}[/{sys_id}]`` routed to the ``rest`` tools.

What the generic transport (``mocks/_core/http.py``, served by ``enterprise_envs/rest/``) needs
to speak ServiceNow, as ServiceNow documents its Table API (``c_TableAPI.md``, the description in
``spec/``) and as its clients (``pysnc``, ``pysnow``) use it:

- ``GET /api/now/table/{table}`` lists (``table_list``), ``POST`` creates (``table_create``, the
  JSON body is the record's fields), ``GET``/``PATCH``/``PUT``/``DELETE
  /api/now/table/{table}/{sys_id}`` read, update and delete one record. ``PUT`` updates the
  fields given, as ``PATCH`` does (ServiceNow's ``PUT`` replaces nothing else either).
  ``sysparm_*`` parameters come in the query string. Clients are given the instance's root
  (``https://<instance>.service-now.com``) and add ``/api/now/...`` themselves.
- Credentials: ``Authorization: Basic`` (any user name, the served token as the password) or
  ``Bearer <token>`` (ServiceNow's OAuth access tokens). Without them, or with a wrong one,
  ServiceNow's 401 ``User Not Authenticated`` / ``Required to provide Auth information`` with
  ``WWW-Authenticate: BASIC realm="Service-now"``, checked before anything else (an unknown
  table without credentials is a 401, as an instance answers a stranger).
- A table the instance lacks is ServiceNow's 400 ``Invalid table <name>`` (``detail`` null); a
  path no API serves its 400 ``Requested URI does not represent any resource``; a body it cannot
  read its 400 ``Exception while reading request``; another ``Content-Type`` (a form too: the
  Table API reads JSON) 415. A method the
  path does not take is 405 with ``Allow``.
- Wire text: ServiceNow reads its flags without case (``pysnow`` sends Python's ``True`` and
  ``False``), ignores the documented ``sysparm_*`` parameters an operation does not use (``pysnc``
  sends ``sysparm_query`` and ``sysparm_limit`` when it reads one record, ``pysnow`` every list
  parameter with its updates and deletes) and takes JSON numbers and booleans as field values
  (``{"impact": 2}``). The tools take strings; this module says so before they run. Any other
  parameter still reaches the tool, whose validation answers it (400 in ServiceNow's shape).

Errors a tool answers keep their status on the wire (201 with ``Location``, 204, 400, 403, 404,
429 with ``Retry-After``, an injected 503 or 504), in ServiceNow's body (``errors.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from enterprise_envs.mocks._core.http import (
    BASIC,
    JSON_TYPE,
    Auth,
    Body,
    HttpApi,
    Problem,
    Rejection,
    Reply,
    Route,
)
from enterprise_envs.mocks._core.inputs import echo

#: Where the Table API lives under the instance's root.
TABLE_ROOT = "/api/now/table"
TABLE_PATH = TABLE_ROOT + "/{table}"
RECORD_PATH = TABLE_ROOT + "/{table}/{sys_id}"

#: The challenge ServiceNow sends with a 401 (its realm, its upper-case scheme).
CHALLENGE = 'BASIC realm="Service-now"'
_UNAUTHENTICATED = ("User Not Authenticated", "Required to provide Auth information")
_UNREADABLE = (
    "Exception while reading request",
    "Verify Request body and Content-type headers. Not able to parse request",
)
_UNKNOWN_URI = "Requested URI does not represent any resource"

#: The Table API's documented query parameters (every operation's, from ``spec/``'s description).
#: Where a route's tool does not take one, ServiceNow ignores it and so does the mock:
#: ``sysparm_suppress_pagination_header`` (the Link header is sent anyway), ``sysparm_view``
#: (every field is returned), ``sysparm_query_category`` and ``sysparm_query_no_domain`` (the
#: mock has one domain), and the list parameters sent to a single record.
IGNORED_WHERE_UNUSED = frozenset(
    {
        "sysparm_display_value",
        "sysparm_exclude_reference_link",
        "sysparm_fields",
        "sysparm_limit",
        "sysparm_no_count",
        "sysparm_offset",
        "sysparm_query",
        "sysparm_query_category",
        "sysparm_query_no_domain",
        "sysparm_suppress_pagination_header",
        "sysparm_view",
    }
)
#: Documented parameters that would change what is written; ignored only at their default
#: (``false``). Set, they reach the tool, which refuses them: the mock does not model them.
IGNORED_AT_DEFAULT = frozenset({"sysparm_input_display_value", "sysparm_suppress_auto_sys_field"})
#: Parameters whose values ServiceNow reads without case (``true``, ``false``, ``all``).
_CASELESS = frozenset({"sysparm_display_value"})

_TABLE_PATH = re.compile(re.escape(TABLE_ROOT) + r"/(?P<table>[^/]+)(/[^/]+)?/?")


def _error(
    status: int, message: str, detail: str | None = None, headers: Mapping[str, str] | None = None
) -> Reply:
    body = {"error": {"message": message, "detail": detail}, "status": "failure"}
    return Reply(status, body, dict(headers or {}))


def reject(rejection: Rejection) -> Reply:
    """ServiceNow's answer to a request refused before a tool ran."""
    problem = rejection.problem
    if problem in (Problem.NO_CREDENTIALS, Problem.BAD_CREDENTIALS):
        return _error(401, *_UNAUTHENTICATED, headers={"WWW-Authenticate": CHALLENGE})
    if problem is Problem.NO_ROUTE:
        found = _TABLE_PATH.fullmatch(rejection.path)
        if found is not None:
            return _error(400, f"Invalid table {echo(found.group('table'), 80)}")
        return _error(400, _UNKNOWN_URI)
    if problem is Problem.WRONG_METHOD:
        allowed = ", ".join(rejection.allowed)
        return _error(405, "Method not allowed", rejection.detail, {"Allow": allowed})
    if problem is Problem.BAD_CONTENT_TYPE:
        return _error(415, "Unsupported Media Type", rejection.detail)
    return _error(400, *_UNREADABLE)  # bad JSON, JSON that is not an object, a bad form


def _wire_text(value: Any) -> Any:
    """A JSON scalar as the Table API stores it: text (``2`` -> ``"2"``, ``true`` -> ``"true"``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return value


@dataclass(frozen=True)
class TableApi(HttpApi):
    """ServiceNow's Table API: :class:`HttpApi` plus its tables and its reading of wire text.

    Attributes:
        tables: The instance's tables: a path naming another is ServiceNow's ``Invalid table``.
    """

    tables: frozenset[str] = frozenset()

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | Rejection:
        """The route for ``method path``; a table the instance lacks is no route (400 Invalid table)."""
        found = super().match(method, path)
        if isinstance(found, tuple) and found[1].get("table") not in self.tables:
            table = echo(found[1].get("table", ""), 80)
            return Rejection(Problem.NO_ROUTE, method, path, f"Invalid table {table}")
        return found

    def arguments(
        self,
        route: Route,
        params: Mapping[str, str],
        query: Iterable[tuple[str, str]],
        body: Body,
        schema: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The tool's arguments, the query read as ServiceNow reads it (see the module docstring)."""
        properties = schema.get("properties") or {}
        kept: list[tuple[str, str]] = []
        for name, value in query:
            if name not in properties:
                if name in IGNORED_WHERE_UNUSED:
                    continue
                if name in IGNORED_AT_DEFAULT and value.strip().lower() == "false":
                    continue
            kept.append((name, value.strip().lower() if name in _CASELESS else value))
        if route.body is not None and body.values is not None and not body.form:
            body = Body({name: _wire_text(value) for name, value in body.values.items()})
        return super().arguments(route, params, kept, body, schema)


def build_http_api() -> TableApi:
    """ServiceNow's Table API over the ``rest`` surface."""
    from enterprise_envs.mocks.itsm.tables import itsm_catalog

    routes = (
        Route("GET", TABLE_PATH, "table_list"),
        Route("POST", TABLE_PATH, "table_create", body="fields"),
        Route("GET", RECORD_PATH, "table_get"),
        Route("PATCH", RECORD_PATH, "table_update", body="fields"),
        Route("PUT", RECORD_PATH, "table_update", body="fields"),
        Route("DELETE", RECORD_PATH, "table_delete"),
    )
    return TableApi(
        name="ServiceNow Table API",
        routes=routes,
        auth=Auth(schemes=(BASIC, "Bearer")),
        reject=reject,
        surface="rest",
        base_path="/",  # clients are given the instance's root
        bodies=(JSON_TYPE,),
        authenticate_first=True,
        tables=frozenset(itsm_catalog()),
    )
