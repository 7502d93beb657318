"""Surface ``rest``: Okta's Management API, one tool per operation, named by its ``operationId``.

Faithful to a dated release of the description (2026.06.3 unless built for another:
``build_rest_surface("2024.06.1")`` names the tools and their path parameters as that release
does, ``generateResetPasswordToken`` and ``/api/v1/users/{userId}``, and takes the enums of its
schemas from it) and the captures: path and query parameters by their names (``id``,
``userId``, ``groupId``, ``q``, ``filter``, ``search``, ``limit``, ``after``, ``sendEmail``,
``activate``), request bodies' properties as arguments (``profile``, ``credentials``,
``groupIds``, ``type``), responses as
Okta shapes them (:mod:`..render`), the ``Link`` header (``rel="self"``, and
``rel="next"`` while there are more pages) and the ``X-Rate-Limit-*`` headers on every response,
errors in Okta's envelope. Agents see the full response (status, headers, body).

Every handler calls the service layer (``mocks/identity/services``); nothing here decides a rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Any
from urllib.parse import urlencode

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.errors import ToolError
from enterprise_envs.mocks._core.http import public_url
from enterprise_envs.mocks._core.store import Row, like_clause, like_literal
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
from enterprise_envs.mocks.identity import render
from enterprise_envs.mocks.identity.access import ROLE_LABELS
from enterprise_envs.mocks.identity.errors import invalid_parameter
from enterprise_envs.mocks.identity.query import APP_FILTER, LOG_FILTER, compile_expression, normalize_time
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services import apps as app_service
from enterprise_envs.mocks.identity.services import directory, factors, lifecycle, membership
from enterprise_envs.mocks.identity.services.common import find_app, find_group, find_user, get_row, not_found
from enterprise_envs.mocks.identity.services.listing import Page, read_page
from enterprise_envs.mocks.identity.surfaces.ratelimit import rate_headers
from enterprise_envs.mocks.identity.tables import CURRENT_VERSION, spec_document

__all__ = [
    "BASE_VERSION",
    "SpecOperation",
    "build_rest_surface",
    "group_schema",
    "new_user_schema",
    "operations",
    "release_names",
    "role_types",
    "user_schema",
]

Handler = Callable[[CallContext, dict[str, Any]], Response]

# -- argument schemas ----------------------------------------------------------------------------

_USER_ID = string("The user: their id (00u...), login, or login short name if unambiguous.", 200, minLength=1)
_PATH_USER_ID = string("The user's id (00u..., 20 characters).", 64, minLength=1)
_GROUP_ID = string("The group's id (00g..., 20 characters).", 64, minLength=1)
_APP_ID = string("The app's id (0oa..., 20 characters).", 64, minLength=1)
_FACTOR_ID = string("The factor's id (20 characters).", 64, minLength=1)
_AFTER = string('The pagination cursor from the previous page\'s Link header (rel="next").', 512)
_EXPRESSION = 2000
_SEND_EMAIL = {
    "type": "boolean",
    "description": "Send the e-mail to the user (true) or return the link (false).",
}
_SORT_ORDER = {
    "type": "string",
    "enum": ["asc", "desc"],
    "description": "Sort order of a search (default asc).",
}


def _limit(default: int, maximum: int, minimum: int = 1) -> dict[str, Any]:
    return {
        "type": "integer",
        "minimum": minimum,
        "maximum": maximum,
        "description": f"Results per page (default {default}, at most {maximum}).",
    }


_PROFILE = {
    "type": "object",
    "description": "Profile properties to change (login, email, firstName, lastName, title, ...); "
    "properties not given stay. null clears one.",
    "maxProperties": 40,
    "additionalProperties": {"type": ["string", "null"], "maxLength": 4096},
}

# -- output schemas -------------------------------------------------------------------------------

_STR = {"type": "string"}
_NULLABLE = {"type": ["string", "null"]}
_LINKS = {"type": "object"}


def _spec_enum(version: str, schema: str) -> list[str]:
    """The values of an enum schema of a release's description (``UserStatus``, ``GroupType``)."""
    return list(spec_document(version)["components"]["schemas"][schema]["enum"])


def user_schema(version: str = CURRENT_VERSION) -> dict[str, Any]:
    """A User as a release describes it (its ``status`` values from that release's ``UserStatus``)."""
    return {
        "type": "object",
        "required": ["id", "status", "created", "lastUpdated", "profile", "credentials", "_links"],
        "properties": {
            "id": _STR,
            "status": {"type": "string", "enum": _spec_enum(version, "UserStatus")},
            "created": _STR,
            "activated": _NULLABLE,
            "statusChanged": _NULLABLE,
            "lastLogin": _NULLABLE,
            "lastUpdated": _STR,
            "passwordChanged": _NULLABLE,
            "type": {"type": "object"},
            "profile": {"type": "object", "required": ["login", "email"]},
            "credentials": {"type": "object", "required": ["provider"]},
            "_links": _LINKS,
        },
    }


def group_schema(version: str = CURRENT_VERSION) -> dict[str, Any]:
    """A Group as a release describes it (its ``type`` values from that release's ``GroupType``)."""
    return {
        "type": "object",
        "required": ["id", "type", "profile", "_links"],
        "properties": {
            "id": _STR,
            "type": {"type": "string", "enum": _spec_enum(version, "GroupType")},
            "profile": {"type": "object", "required": ["name"]},
            "objectClass": {"type": "array", "items": _STR},
            "_links": _LINKS,
        },
    }


#: The profile properties a new user must have, and what the tool says of them.
_NEW_USER_PROPERTIES = {
    "login": "Required: the user's unique name, an e-mail address (ana.lopez@example.com).",
    "email": "Required: the primary e-mail address.",
    "firstName": "Required: the given name.",
    "lastName": "Required: the family name.",
}


def new_user_schema(version: str = CURRENT_VERSION) -> dict[str, Any]:
    """The arguments of ``createUser`` as a release describes ``POST /api/v1/users``.

    ``profile`` takes the release's ``UserProfile`` properties (types, nullability, bounds);
    ``credentials`` a password, a recovery question and a provider (its types the release's
    ``AuthenticationProviderType``); the query's ``nextLogin`` the release's ``UserNextLogin``.
    Which profile properties are required is checked by the service, so a missing one is
    Okta's own 400 naming it.
    """
    schemas = spec_document(version)["components"]["schemas"]
    profile = {}
    for name, described in schemas["UserProfile"]["properties"].items():
        kind = ["string", "null"] if described.get("nullable") else "string"
        entry: dict[str, Any] = {"type": kind, "maxLength": described.get("maxLength", 1000)}
        if name in _NEW_USER_PROPERTIES:
            entry["description"] = _NEW_USER_PROPERTIES[name]
        profile[name] = entry
    return {
        "activate": {
            "type": "boolean",
            "description": "Activate the user now (default true); false: STAGED.",
        },
        "provider": {
            "type": "boolean",
            "description": "Create the user with the authentication provider in credentials.provider "
            "(default false).",
        },
        "nextLogin": {
            "type": "string",
            "enum": _spec_enum(version, "UserNextLogin"),
            "description": "changePassword (with activate=true): the password is expired, changed at the "
            "first sign-in.",
        },
        "profile": {
            "type": "object",
            "description": "The user's profile: login, email, firstName and lastName are required; "
            "department, title, mobilePhone, manager, employeeNumber, ... are optional.",
            "properties": profile,
            "maxProperties": 40,
            "additionalProperties": {"type": ["string", "null"], "maxLength": 1000},
        },
        "credentials": obj(
            {
                "password": obj({"value": string("The password (the org's password policy applies).", 256)}),
                "recovery_question": obj(
                    {
                        "question": string("The recovery question.", 100),
                        "answer": string("Its answer.", 100),
                    }
                ),
                "provider": obj(
                    {
                        "type": {"type": "string", "enum": _spec_enum(version, "AuthenticationProviderType")},
                        "name": string("The provider's name (default: its type).", 100),
                    }
                ),
            },
            description="Optional: a password and a recovery question, or (with provider=true) the "
            "authentication provider.",
        ),
        "groupIds": {
            "type": "array",
            "items": string("A group's id (00g...).", 64, minLength=1),
            "maxItems": 20,
            "description": "Groups (OKTA_GROUP) the user is added to at creation.",
        },
        "type": obj({"id": string("The user type's id (oty...).", 64)}, description="The user type."),
    }


def role_types(version: str = CURRENT_VERSION) -> list[str]:
    """The standard admin roles a release lets a client assign: its ``RoleType`` values the org knows."""
    described = set(_spec_enum(version, "RoleType"))
    return [role for role in sorted(ROLE_LABELS) if role in described]


USER = user_schema()
GROUP = group_schema()
APP = {
    "type": "object",
    "required": ["id", "name", "label", "status", "signOnMode"],
    "properties": {"id": _STR},
}
APP_USER = {"type": "object", "required": ["id", "scope", "status", "credentials", "_links"]}
APP_GROUP = {"type": "object", "required": ["id", "priority", "_links"]}
APP_LINK = {"type": "object", "required": ["appInstanceId", "label", "linkUrl"]}
FACTOR = {"type": "object", "required": ["id", "factorType", "provider", "status", "_links"]}
ROLE = {"type": "object", "required": ["id", "type", "label", "status", "assignmentType"]}
LOG_EVENT = {"type": "object", "required": ["uuid", "published", "eventType", "actor", "target", "outcome"]}
TOKEN = {"type": "object", "properties": {"activationUrl": _STR, "activationToken": _STR}}
RESET = {"type": "object", "properties": {"resetPasswordUrl": _STR}}
EMPTY = {"type": "object", "maxProperties": 0}


def _list(item: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "array", "items": dict(item)}


# -- helpers -------------------------------------------------------------------------------------


def _org(ctx: CallContext) -> str:
    return public_url(ctx.settings["org_url"])


def _text(value: Any) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def _link_header(
    ctx: CallContext,
    path: str,
    args: Mapping[str, Any],
    limit: int,
    page: Page | None,
    keep: Sequence[str] = (),
) -> str:
    """Okta's ``Link`` header: ``rel="self"`` for this page, ``rel="next"`` while more remain.

    The captures show the self link with the page size first and the query after it
    (``?limit=200&filter=...``) and the next link with the cursor first (``?after=...&limit=1``).
    """
    org = _org(ctx)
    extra = [(name, _text(args[name])) for name in keep if args.get(name) not in (None, "")]
    mine = [("after", args["after"])] if args.get("after") else []
    links = [f'<{org}{path}?{urlencode([*mine, ("limit", limit), *extra])}>; rel="self"']
    if page is not None and page.after:
        links.append(
            f'<{org}{path}?{urlencode([("after", page.after), ("limit", limit), *extra])}>; rel="next"'
        )
    return ", ".join(links)


def _listed(
    ctx: CallContext,
    path: str,
    args: Mapping[str, Any],
    size: int,
    page: Page,
    render_row: Callable[[str, Row], Any],
    keep: Sequence[str] = (),
) -> Response:
    """A page of a list as Okta answers it: its rows rendered, and the ``Link`` header."""
    org = _org(ctx)
    return _ok(
        [render_row(org, row) for row in page.rows],
        headers={"Link": _link_header(ctx, path, args, size, page, keep)},
    )


def _with_rate_headers(bucket: str, handler: Handler) -> Callable[[CallContext, dict[str, Any]], Response]:
    """The handler, its response (or its error) carrying the ``X-Rate-Limit-*`` headers."""

    def handle(ctx: CallContext, args: dict[str, Any]) -> Response:
        headers = rate_headers(ctx, bucket)
        try:
            response = handler(ctx, args)
        except ToolError as error:
            error.headers = {**headers, **error.headers}
            raise
        return Response(response.body, response.status, {**headers, **response.headers})

    return handle


def _tool(
    name: str,
    description: str,
    properties: Mapping[str, Any],
    required: Sequence[str],
    body: Mapping[str, Any] | None,
    kind: ToolKind,
    bucket: str,
    handler: Handler,
) -> Tool:
    return Tool(
        name,
        description,
        obj(properties, required=required),
        full_response(body),
        kind,
        _with_rate_headers(bucket, handler),
    )


def _ok(body: Any, status: int = 200, headers: Mapping[str, str] | None = None) -> Response:
    return Response(body, status, dict(headers or {}))


# -- users ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Collection:
    """One of the top-level lists, ``GET /api/v1/users`` and ``GET /api/v1/groups``.

    Attributes:
        listing: What the service reads (table, queries, page sizes).
        path: The list's path (its ``Link`` header's).
        render: A listed row as the body shows it.
        q_default: The ``limit`` a ``q`` without one asks the service for. Users: Okta's 10;
            groups: a whole page (so a group ``q`` answers up to 10,000 groups here, not the
            service's own default of 300).
    """

    listing: directory.Listing
    path: str
    render: Callable[[str, Row], dict[str, Any]]
    q_default: int


_USERS = _Collection(
    directory.USERS, "/api/v1/users", lambda org, row: render.user(org, row, collection=True),
    directory.USER_QUERY_DEFAULT,
)  # fmt: skip
_GROUPS = _Collection(directory.GROUPS, "/api/v1/groups", render.group, directory.GROUP_PAGE_MAX)
#: The query parameters the Link header of a top-level list keeps.
_COLLECTION_KEPT = ("filter", "search", "sortBy", "sortOrder")


def _list_collection(collection: _Collection) -> Handler:
    """The handler of ``GET`` on a top-level list: ``q`` answers unpaged (no Link header), the rest paged."""
    listing = collection.listing

    def handle(ctx: CallContext, args: dict[str, Any]) -> Response:
        limit = args.get("limit")
        if args.get("q"):
            size = ctx.faults.cap_page(limit or collection.q_default)
        else:
            size = min(ctx.faults.cap_page(limit or listing.page_max), listing.page_max)
        page = directory.list_rows(
            ctx,
            listing,
            q=args.get("q"),
            filter_=args.get("filter"),
            search=args.get("search"),
            limit=size,
            after=args.get("after"),
            sort_by=args.get("sortBy"),
            sort_order=args.get("sortOrder", "asc"),
        )
        if args.get("q"):
            org = _org(ctx)
            return _ok([collection.render(org, row) for row in page.rows])
        return _listed(ctx, collection.path, args, size, page, collection.render, _COLLECTION_KEPT)

    handle.__doc__ = f"GET {collection.path}."
    return handle


list_users = _list_collection(_USERS)


def get_user(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{id}."""
    return _ok(render.user(_org(ctx), find_user(ctx, args["id"])))


def create_user(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /api/v1/users: the user created, 200 (Okta's status for a creation)."""
    credentials = args.get("credentials") or {}
    provider = credentials.get("provider") or {}
    user_type = (args.get("type") or {}).get("id")
    if user_type not in (None, render.USER_TYPE_ID):
        raise invalid_parameter("type", f"the org's one user type is {render.USER_TYPE_ID}")
    request = lifecycle.NewUser(
        profile=args.get("profile") or {},
        activate=args.get("activate", True),
        password=(credentials.get("password") or {}).get("value"),
        recovery_question=credentials.get("recovery_question"),
        provider=args.get("provider", False),
        provider_type=provider.get("type", ""),
        provider_name=provider.get("name", ""),
        next_login=args.get("nextLogin", ""),
        group_ids=args.get("groupIds") or (),
    )
    return _ok(render.user(_org(ctx), lifecycle.create_user(ctx, request)))


def update_user(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /api/v1/users/{id}: partial profile update."""
    user = find_user(ctx, args["id"])
    if args.get("credentials"):
        raise invalid_parameter("credentials", "this org keeps no credentials an administrator may set")
    return _ok(render.user(_org(ctx), directory.update_profile(ctx, user, args.get("profile") or {})))


def delete_user(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/v1/users/{id}: deactivates first, deletes a deactivated user."""
    lifecycle.delete_user(ctx, find_user(ctx, args["id"]))
    return _ok(None, 204)


def list_user_groups(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{id}/groups."""
    user = find_user(ctx, args["id"])
    org = _org(ctx)
    body = [render.group(org, row) for row in directory.user_groups(ctx, user)]
    return _ok(body, headers={"Link": _link_header(ctx, f"/api/v1/users/{user['id']}/groups", {}, 200, None)})


def list_app_links(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{id}/appLinks: the apps the user holds, directly or through groups."""
    user = find_user(ctx, args["id"])
    rows, _ = ENGINE.query(ctx, "app_user", '"userId" = ?', (user["id"],), order_by='"appId"')
    org, body = _org(ctx), []
    for order, row in enumerate(rows):
        app = ctx.store.get("app", row["appId"])
        if app is not None and app["status"] == "ACTIVE":
            body.append(render.app_link(org, app, row, order))
    return _ok(body)


def _lifecycle(name: str) -> Handler:
    """A handler for ``POST /api/v1/users/{id}/lifecycle/{name}``."""

    def handle(ctx: CallContext, args: dict[str, Any]) -> Response:
        outcome = lifecycle.apply(ctx, name, find_user(ctx, args["id"]))
        org = _org(ctx)
        if name == "expire_password":
            return _ok(render.user(org, outcome.user or {}))
        if name in ("activate", "reactivate"):
            send = args.get("sendEmail", name == "activate")
            if send:
                return _ok({})
            return _ok(
                {"activationUrl": f"{org}/tokens/{outcome.token}/verify", "activationToken": outcome.token}
            )
        if name == "reset_password":
            if args.get("sendEmail", True):
                return _ok({})
            return _ok({"resetPasswordUrl": f"{org}/reset_password/{outcome.token}"})
        return _ok({})

    handle.__doc__ = f"POST /api/v1/users/{{id}}/lifecycle/{name}."
    return handle


def list_factors(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{userId}/factors."""
    user = get_row(ctx, "user", args["userId"])
    org = _org(ctx)
    return _ok([render.factor(org, row, user) for row in factors.enrolled_factors(ctx, user)])


def get_factor(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{userId}/factors/{factorId}."""
    user = get_row(ctx, "user", args["userId"])
    return _ok(render.factor(_org(ctx), factors.find_factor(ctx, user, args["factorId"]), user))


def unenroll_factor(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/v1/users/{userId}/factors/{factorId}."""
    user = get_row(ctx, "user", args["userId"])
    factors.unenroll_factor(ctx, user, factors.find_factor(ctx, user, args["factorId"]))
    return _ok(None, 204)


def list_user_roles(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/users/{userId}/roles."""
    user = get_row(ctx, "user", args["userId"])
    org = _org(ctx)
    return _ok([render.role(org, row) for row in directory.roles_assigned(ctx, user_id=user["id"])])


def assign_role(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /api/v1/users/{userId}/roles."""
    user = get_row(ctx, "user", args["userId"])
    role_type = args["type"]
    row = directory.assign_role(ctx, user, role_type, ROLE_LABELS.get(role_type, role_type))
    return _ok(render.role(_org(ctx), row), 201)


def unassign_role(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/v1/users/{userId}/roles/{roleAssignmentId}."""
    user = get_row(ctx, "user", args["userId"])
    wanted = args["roleAssignmentId"]
    for row in directory.roles_assigned(ctx, user_id=user["id"]):
        if render.role(_org(ctx), row)["id"] == wanted:
            directory.unassign_role(ctx, user, row)
            return _ok(None, 204)
    raise not_found("role_assignment", wanted)


# -- groups --------------------------------------------------------------------------------------


list_groups = _list_collection(_GROUPS)


def get_group(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/groups/{groupId}."""
    return _ok(render.group(_org(ctx), find_group(ctx, args["groupId"])))


def list_group_users(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/groups/{groupId}/users."""
    group = find_group(ctx, args["groupId"])
    size = ctx.faults.cap_page(args.get("limit") or 1000)
    page = directory.group_members(ctx, group, limit=size, after=args.get("after"))
    return _listed(ctx, f"/api/v1/groups/{group['id']}/users", args, size, page, _USERS.render)


def assign_user_to_group(ctx: CallContext, args: dict[str, Any]) -> Response:
    """PUT /api/v1/groups/{groupId}/users/{userId}: 204, whether or not they were a member."""
    membership.add_member(ctx, find_group(ctx, args["groupId"]), get_row(ctx, "user", args["userId"]))
    return _ok(None, 204)


def unassign_user_from_group(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/v1/groups/{groupId}/users/{userId}: 204, whether or not they were a member."""
    membership.remove_member(ctx, find_group(ctx, args["groupId"]), get_row(ctx, "user", args["userId"]))
    return _ok(None, 204)


def list_group_apps(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/groups/{groupId}/apps."""
    group = find_group(ctx, args["groupId"])
    size = ctx.faults.cap_page(args.get("limit") or 20)
    page = read_page(
        ctx, "app", 'id IN (SELECT "appId" FROM app_group WHERE "groupId" = ?)', (group["id"],),
        limit=size, after=args.get("after"),
    )  # fmt: skip
    return _listed(ctx, f"/api/v1/groups/{group['id']}/apps", args, size, page, render.app)


def list_group_roles(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/groups/{groupId}/roles."""
    group = find_group(ctx, args["groupId"])
    org = _org(ctx)
    return _ok([render.role(org, row) for row in directory.roles_assigned(ctx, group_id=group["id"])])


# -- apps ----------------------------------------------------------------------------------------


def list_applications(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/apps: active apps (every app but deleted ones with includeNonDeleted)."""
    conditions, params = ["1" if args.get("includeNonDeleted") else "status = 'ACTIVE'"], []
    if args.get("q"):
        conditions.append(f"({like_clause('name')} OR {like_clause('label')})")
        params += [like_literal(args["q"]) + "%"] * 2
    if args.get("filter"):
        compiled = compile_expression(args["filter"], APP_FILTER)
        conditions.append(compiled.where)
        params += compiled.params
    size = ctx.faults.cap_page(args.get("limit") or 200)
    page = read_page(ctx, "app", " AND ".join(conditions), tuple(params), limit=size, after=args.get("after"))
    return _listed(ctx, "/api/v1/apps", args, size, page, render.app, ("q", "filter", "includeNonDeleted"))


def get_application(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/apps/{appId}."""
    return _ok(render.app(_org(ctx), find_app(ctx, args["appId"])))


def list_application_users(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/apps/{appId}/users."""
    app = find_app(ctx, args["appId"])
    where, params = '"appId" = ?', [app["id"]]
    if args.get("q"):
        pattern = like_literal(args["q"]) + "%"
        names = " OR ".join(like_clause(f'u."{name}"') for name in ("firstName", "lastName", "email"))
        user_name = like_clause('"userName"')
        where += f' AND ({user_name} OR "userId" IN (SELECT u.id FROM user u WHERE {names}))'
        params += [pattern] * 4
    size = ctx.faults.cap_page(args.get("limit") or 50)
    page = read_page(
        ctx, "app_user", where, tuple(params), limit=size, after=args.get("after"), sort_by="userId"
    )
    return _listed(ctx, f"/api/v1/apps/{app['id']}/users", args, size, page, render.app_user, ("q",))


def assign_user_to_application(ctx: CallContext, args: dict[str, Any]) -> Response:
    """POST /api/v1/apps/{appId}/users."""
    app = find_app(ctx, args["appId"])
    user = get_row(ctx, "user", args["id"])
    values = {
        "scope": args.get("scope", "USER"),
        "userName": (args.get("credentials") or {}).get("userName", ""),
    }
    row, _ = app_service.assign_user(ctx, app, user, values)
    return _ok(render.app_user(_org(ctx), row))


def get_application_user(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/apps/{appId}/users/{userId}."""
    app = find_app(ctx, args["appId"])
    row = app_service.app_user_of(ctx, app["id"], args["userId"])
    if row is None:
        raise not_found("app_user", args["userId"])
    return _ok(render.app_user(_org(ctx), get_row(ctx, "app_user", row["id"])))


def unassign_user_from_application(ctx: CallContext, args: dict[str, Any]) -> Response:
    """DELETE /api/v1/apps/{appId}/users/{userId}."""
    app_service.unassign_user(ctx, find_app(ctx, args["appId"]), args["userId"])
    return _ok(None, 204)


def list_application_groups(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/apps/{appId}/groups."""
    app = find_app(ctx, args["appId"])
    where, params = '"appId" = ?', [app["id"]]
    if args.get("q"):
        where += f' AND "groupId" IN (SELECT g.id FROM "group" g WHERE {like_clause("g.name")})'
        params.append(like_literal(args["q"]) + "%")
    size = ctx.faults.cap_page(args.get("limit") or 20)
    page = read_page(
        ctx, "app_group", where, tuple(params), limit=size, after=args.get("after"), sort_by="groupId"
    )
    return _listed(ctx, f"/api/v1/apps/{app['id']}/groups", args, size, page, render.app_group, ("q",))


# -- the System Log ------------------------------------------------------------------------------

_LOG_KEYWORDS = 10
_LOG_KEYWORD_LENGTH = 40


def list_log_events(ctx: CallContext, args: dict[str, Any]) -> Response:
    """GET /api/v1/logs: events published in [since, until], oldest first unless DESCENDING."""
    until = ctx.clock.now_text()
    if args.get("until"):
        until = normalize_time(args["until"]) or ""
        if not until:
            raise invalid_parameter("until", "not an ISO 8601 time like 2026-03-01T00:00:00.000Z")
    if args.get("since"):
        since = normalize_time(args["since"]) or ""
        if not since:
            raise invalid_parameter("since", "not an ISO 8601 time like 2026-03-01T00:00:00.000Z")
    else:
        latest = datetime.strptime(until[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
        since = (latest - timedelta(days=7)).strftime(ctx.clock.datetime_format)
    conditions, params = ["published >= ? AND published <= ?"], [since, until]
    if args.get("filter"):
        compiled = compile_expression(args["filter"], LOG_FILTER)
        conditions.append(compiled.where)
        params += compiled.params
    if args.get("q"):
        words = args["q"].split()
        if len(words) > _LOG_KEYWORDS or any(len(word) > _LOG_KEYWORD_LENGTH for word in words):
            raise invalid_parameter(
                "q", f"at most {_LOG_KEYWORDS} keywords of {_LOG_KEYWORD_LENGTH} characters"
            )
        text = " || ' ' || ".join(
            ("eventType", "displayMessage", "actorAlternateId", "actorDisplayName", "target")
        )
        text = f"({text})"
        for word in words:
            conditions.append(like_clause(text))
            params.append(f"%{like_literal(word)}%")
    size = ctx.faults.cap_page(args.get("limit") or 100)
    descending = args.get("sortOrder", "ASCENDING") == "DESCENDING"
    page = read_page(
        ctx, "log_event", " AND ".join(conditions), tuple(params), limit=size, after=args.get("after"),
        sort_by="published", descending=descending,
    )  # fmt: skip
    keep = ("since", "until", "filter", "q", "sortOrder")
    return _listed(ctx, "/api/v1/logs", args, size, page, lambda _, row: render.log_event(row), keep)


# -- the surface ---------------------------------------------------------------------------------

_READ, _WRITE = ToolKind.READ, ToolKind.WRITE


def _user_tools(version: str) -> list[Tool]:
    user, group = user_schema(version), group_schema(version)
    lifecycle_tools = []
    descriptions = {
        "activate": (
            "activateUser",
            "Activate a STAGED (new) or DEPROVISIONED (deactivated) user (POST "
            "/api/v1/users/{id}/lifecycle/activate). A user with a password becomes ACTIVE; one without "
            "becomes PROVISIONED and finishes from the activation e-mail. sendEmail (default true) e-mails "
            "the link; false returns activationUrl and activationToken instead. Other statuses: 403 "
            "E0000038.",
            {"sendEmail": _SEND_EMAIL},
        ),
        "reactivate": (
            "reactivateUser",
            "Restart the activation of a PROVISIONED or RECOVERY user who did not finish it (POST "
            "/api/v1/users/{id}/lifecycle/reactivate); the status stays. sendEmail (default false) e-mails "
            "a new link; false returns activationUrl and activationToken. Other statuses: 403 E0000038.",
            {"sendEmail": _SEND_EMAIL},
        ),
        "deactivate": (
            "deactivateUser",
            "Deactivate a user (POST /api/v1/users/{id}/lifecycle/deactivate): status DEPROVISIONED, "
            "removed from every assigned app (group memberships stay). Any status but DEPROVISIONED. "
            "Returns 200 with an empty body.",
            {"sendEmail": {"type": "boolean", "description": "E-mail the administrator (default false)."}},
        ),
        "suspend": (
            "suspendUser",
            "Suspend an ACTIVE user (POST /api/v1/users/{id}/lifecycle/suspend): status SUSPENDED, cannot "
            "sign in; groups and apps are kept. Other statuses: 403 E0000038.",
            {},
        ),
        "unsuspend": (
            "unsuspendUser",
            "Unsuspend a SUSPENDED user (POST /api/v1/users/{id}/lifecycle/unsuspend): back to ACTIVE. "
            "Other statuses: 403 E0000038.",
            {},
        ),
        "unlock": (
            "unlockUser",
            "Unlock a LOCKED_OUT user (POST /api/v1/users/{id}/lifecycle/unlock): back to ACTIVE, they "
            "sign in with their current password. A user who is not locked out: 403 E0000032.",
            {},
        ),
        "reset_factors": (
            "resetFactors",
            "Reset all of a user's MFA factors (POST /api/v1/users/{id}/lifecycle/reset_factors): every "
            "enrolled factor returns to the unenrolled state and the user enrolls again at next sign-in. "
            "The status does not change. Not for a DEPROVISIONED user (403 E0000038).",
            {},
        ),
        "expire_password": (
            "expirePassword",
            "Expire a user's password (POST /api/v1/users/{id}/lifecycle/expire_password): status "
            "PASSWORD_EXPIRED, they must change it at next sign-in. ACTIVE or PASSWORD_EXPIRED users only "
            "(else 403 E0000038). Returns the user.",
            {},
        ),
        "reset_password": (
            "resetPassword",
            "Start a password reset (POST /api/v1/users/{id}/lifecycle/reset_password): status RECOVERY "
            "until the user completes it. sendEmail (default true) e-mails the user the reset link; false "
            "returns resetPasswordUrl instead. For ACTIVE, PASSWORD_EXPIRED, LOCKED_OUT, RECOVERY or "
            "PROVISIONED users (else 403 E0000038).",
            {
                "sendEmail": _SEND_EMAIL,
                "revokeSessions": {"type": "boolean", "description": "Also end the user's sessions."},
            },
        ),
    }
    for name, (operation_id, description, extra) in descriptions.items():
        output = {
            "expire_password": user,
            "activate": TOKEN,
            "reactivate": TOKEN,
            "reset_password": RESET,
        }.get(name, EMPTY)
        lifecycle_tools.append(
            _tool(
                operation_id,
                description,
                {"id": _USER_ID, **extra},
                ["id"],
                output,
                _WRITE,
                "users",
                _lifecycle(name),
            )
        )
    return [
        _tool(
            "listUsers",
            "List users (GET /api/v1/users). Without a query: every user but DEPROVISIONED ones. q: the "
            "start of a first name, last name or e-mail (not paged, 10 by default). filter: status, "
            "lastUpdated, id, profile.login, profile.email, profile.firstName, profile.lastName with eq "
            '(lastUpdated also gt/ge/lt/le), joined by and/or, e.g. status eq "LOCKED_OUT". search: any '
            "profile.* property, id, status, created, activated, statusChanged, lastUpdated with eq, sw, "
            'co (names and e-mail only), gt/ge/lt/le, pr, e.g. profile.department eq "Finance" and status '
            'eq "ACTIVE"; sortBy/sortOrder sort a search. filter and search include deactivated users. '
            'Values are quoted. Pages of limit users (at most 200): follow the Link header\'s rel="next" '
            "URL's after cursor.",
            {
                "q": string("Start of a first name, last name or e-mail.", 200),
                "filter": string('A filter expression, e.g. status eq "LOCKED_OUT".', _EXPRESSION),
                "search": string(
                    'A search expression, e.g. profile.email eq "ana@example.com".', _EXPRESSION
                ),
                "limit": _limit(200, 10000),
                "after": _AFTER,
                "sortBy": string("A property to sort a search by, e.g. profile.lastName.", 100),
                "sortOrder": _SORT_ORDER,
            },
            [],
            _list(user),
            _READ,
            "users",
            list_users,
        ),
        _tool(
            "getUser",
            "Get one user by id, login or login short name (GET /api/v1/users/{id}): status, profile "
            "(login, email, names, department, title, manager, employeeNumber, ...), lifecycle times and "
            "the lifecycle operations their status allows (_links). 404 E0000007 if there is none.",
            {"id": _USER_ID},
            ["id"],
            user,
            _READ,
            "user",
            get_user,
        ),
        _tool(
            "createUser",
            "Create a user (POST /api/v1/users). profile needs login (an e-mail address no other user has), "
            "email, firstName and lastName. activate (default true) activates the user: with "
            "credentials.password.value they are ACTIVE, without a password PROVISIONED (they set one from "
            "the activation e-mail); activate=false creates them STAGED, to activate later (activateUser). "
            "nextLogin=changePassword makes them change the password at the first sign-in. groupIds adds "
            "them to OKTA_GROUPs; every user is also in Everyone and gets the apps of their groups. "
            "Returns 200 with the user. 400 E0000001 names a missing or invalid property, or a login "
            "already in use.",
            new_user_schema(version),
            ["profile"],
            user,
            _WRITE,
            "users",
            create_user,
        ),
        _tool(
            "updateUser",
            "Update profile properties of a user (POST /api/v1/users/{id}, partial update): only the given "
            "properties change. Needs a role allowed to edit profiles.",
            {
                "id": _USER_ID,
                "profile": _PROFILE,
                "credentials": {
                    "type": "object",
                    "maxProperties": 5,
                    "description": "Not supported by this org (400).",
                },
                "strict": {"type": "boolean"},
            },
            ["id", "profile"],
            user,
            _WRITE,
            "users",
            update_user,
        ),  # fmt: skip
        _tool(
            "deleteUser",
            "Delete a user (DELETE /api/v1/users/{id}). On a user who is not DEPROVISIONED it deactivates "
            "them; a second call deletes them for good. Returns 204.",
            {"id": _USER_ID, "sendEmail": {"type": "boolean", "description": "E-mail the administrator."}},
            ["id"],
            None,
            _WRITE,
            "users",
            delete_user,
        ),
        *lifecycle_tools,
        _tool(
            "listUserGroups",
            "List the groups a user is a member of (GET /api/v1/users/{id}/groups).",
            {"id": _USER_ID},
            ["id"],
            _list(group),
            _READ,
            "users",
            list_user_groups,
        ),
        _tool(
            "listAppLinks",
            "List the app tiles a user sees: every active app they hold, directly or through a group (GET "
            "/api/v1/users/{id}/appLinks).",
            {"id": _USER_ID},
            ["id"],
            _list(APP_LINK),
            _READ,
            "users",
            list_app_links,
        ),
        _tool(
            "listFactors",
            "List a user's enrolled MFA factors (GET /api/v1/users/{userId}/factors): type (push, sms, "
            "token:software:totp, ...), provider, status.",
            {"userId": _PATH_USER_ID},
            ["userId"],
            _list(FACTOR),
            _READ,
            "users",
            list_factors,
        ),
        _tool(
            "getFactor",
            "Get one enrolled factor of a user (GET /api/v1/users/{userId}/factors/{factorId}).",
            {"userId": _PATH_USER_ID, "factorId": _FACTOR_ID},
            ["userId", "factorId"],
            FACTOR,
            _READ,
            "users",
            get_factor,
        ),
        _tool(
            "unenrollFactor",
            "Unenroll one MFA factor of a user (DELETE /api/v1/users/{userId}/factors/{factorId}); they can "
            "enroll a new one. Not for a DEPROVISIONED user. Returns 204.",
            {
                "userId": _PATH_USER_ID,
                "factorId": _FACTOR_ID,
                "removeRecoveryEnrollment": {"type": "boolean", "description": "sms/call: also as recovery."},
            },
            ["userId", "factorId"],
            None,
            _WRITE,
            "users",
            unenroll_factor,
        ),
        _tool(
            "listAssignedRolesForUser",
            "List the admin roles assigned to a user directly (GET /api/v1/users/{userId}/roles); roles "
            "held through a group are listed by listGroupAssignedRoles.",
            {"userId": _PATH_USER_ID},
            ["userId"],
            _list(ROLE),
            _READ,
            "users",
            list_user_roles,
        ),
        _tool(
            "assignRoleToUser",
            "Assign a standard admin role to a user (POST /api/v1/users/{userId}/roles). Only a super "
            "administrator may. Returns 201 with the role assignment.",
            {
                "userId": _PATH_USER_ID,
                "type": {"type": "string", "enum": role_types(version), "description": "The role type."},
                "disableNotifications": {"type": "boolean"},
            },
            ["userId", "type"],
            ROLE,
            _WRITE,
            "users",
            assign_role,
        ),
        _tool(
            "unassignRoleFromUser",
            "Remove an admin role from a user (DELETE /api/v1/users/{userId}/roles/{roleAssignmentId}). "
            "Returns 204.",
            {
                "userId": _PATH_USER_ID,
                "roleAssignmentId": string("The role assignment's id.", 64, minLength=1),
            },
            ["userId", "roleAssignmentId"],
            None,
            _WRITE,
            "users",
            unassign_role,
        ),
    ]


def _group_tools(version: str) -> list[Tool]:
    user, group = user_schema(version), group_schema(version)
    return [
        _tool(
            "listGroups",
            "List groups (GET /api/v1/groups). q: the start of a group name (not paged). filter: id, type, "
            "lastUpdated, lastMembershipUpdated with eq (the times also gt/ge/lt/le), e.g. type eq "
            '"OKTA_GROUP". search: id, type, created, lastUpdated, lastMembershipUpdated, profile.name, '
            "profile.description with eq, sw, co (name and description only), gt/ge/lt/le, pr. Types: "
            "OKTA_GROUP (managed here), APP_GROUP (imported from an app), BUILT_IN (Everyone, Okta "
            "Administrators). Paged by limit and the Link header's next cursor.",
            {
                "q": string("Start of a group name.", 200),
                "filter": string('A filter expression, e.g. type eq "OKTA_GROUP".', _EXPRESSION),
                "search": string('A search expression, e.g. profile.name sw "Sales".', _EXPRESSION),
                "limit": _limit(10000, 10000),
                "after": _AFTER,
                "sortBy": string("A property to sort a search by, e.g. profile.name.", 100),
                "sortOrder": _SORT_ORDER,
                "expand": string("Not supported by this org; ignored.", 20),
            },
            [],
            _list(group),
            _READ,
            "groups",
            list_groups,
        ),
        _tool(
            "getGroup",
            "Get one group by id (GET /api/v1/groups/{groupId}): name, description, type.",
            {"groupId": _GROUP_ID},
            ["groupId"],
            group,
            _READ,
            "group",
            get_group,
        ),
        _tool(
            "listGroupUsers",
            "List the members of a group (GET /api/v1/groups/{groupId}/users), paged by limit (default "
            "1000) and the Link header's next cursor.",
            {"groupId": _GROUP_ID, "limit": _limit(1000, 10000), "after": _AFTER},
            ["groupId"],
            _list(user),
            _READ,
            "groups",
            list_group_users,
        ),
        _tool(
            "assignUserToGroup",
            "Add a user to a group (PUT /api/v1/groups/{groupId}/users/{userId}). Only OKTA_GROUP "
            "memberships can be changed. The user gets the apps assigned to the group. Returns 204, also "
            "when they were a member already.",
            {"groupId": _GROUP_ID, "userId": _PATH_USER_ID},
            ["groupId", "userId"],
            None,
            _WRITE,
            "groups",
            assign_user_to_group,
        ),
        _tool(
            "unassignUserFromGroup",
            "Remove a user from a group (DELETE /api/v1/groups/{groupId}/users/{userId}). Only OKTA_GROUP "
            "memberships can be changed; apps held only through the group are removed. Returns 204, also "
            "when they were not a member.",
            {"groupId": _GROUP_ID, "userId": _PATH_USER_ID},
            ["groupId", "userId"],
            None,
            _WRITE,
            "groups",
            unassign_user_from_group,
        ),
        _tool(
            "listAssignedApplicationsForGroup",
            "List the apps assigned to a group (GET /api/v1/groups/{groupId}/apps).",
            {"groupId": _GROUP_ID, "limit": _limit(20, 200), "after": _AFTER},
            ["groupId"],
            _list(APP),
            _READ,
            "groups",
            list_group_apps,
        ),
        _tool(
            "listGroupAssignedRoles",
            "List the admin roles assigned to a group (GET /api/v1/groups/{groupId}/roles): its members "
            "hold them.",
            {"groupId": _GROUP_ID},
            ["groupId"],
            _list(ROLE),
            _READ,
            "groups",
            list_group_roles,
        ),
    ]


def _app_tools() -> list[Tool]:
    return [
        _tool(
            "listApplications",
            "List apps (GET /api/v1/apps): active ones, or every app with includeNonDeleted. q: the start "
            'of a name or label. filter: id, status or name with eq, e.g. status eq "ACTIVE".',
            {
                "q": string("Start of an app name or label.", 200),
                "filter": string('A filter expression, e.g. name eq "google".', _EXPRESSION),
                "limit": _limit(200, 200),
                "after": _AFTER,
                "includeNonDeleted": {"type": "boolean", "description": "Also inactive apps."},
            },
            [],
            _list(APP),
            _READ,
            "apps",
            list_applications,
        ),
        _tool(
            "getApplication",
            "Get one app by id (GET /api/v1/apps/{appId}).",
            {"appId": _APP_ID},
            ["appId"],
            APP,
            _READ,
            "apps",
            get_application,
        ),
        _tool(
            "listApplicationUsers",
            "List who holds an app (GET /api/v1/apps/{appId}/users): scope USER (assigned directly) or "
            "GROUP (through a group). q: the start of a user name, first or last name or e-mail.",
            {
                "appId": _APP_ID,
                "q": string("Start of a user name, name or e-mail.", 200),
                "limit": _limit(50, 500),
                "after": _AFTER,
                "expand": string("Not supported by this org; ignored.", 20),
            },
            ["appId"],
            _list(APP_USER),
            _READ,
            "apps",
            list_application_users,
        ),
        _tool(
            "assignUserToApplication",
            "Assign an app to a user directly (POST /api/v1/apps/{appId}/users, body {id, scope, "
            "credentials}). Not for a DEPROVISIONED user. Returns the app user.",
            {
                "appId": _APP_ID,
                "id": _PATH_USER_ID,
                "scope": {"type": "string", "enum": ["USER", "GROUP"], "description": "USER (direct)."},
                "credentials": obj({"userName": string("The user's name in the app (default: login).", 100)}),
            },
            ["appId", "id"],
            APP_USER,
            _WRITE,
            "apps",
            assign_user_to_application,
        ),
        _tool(
            "getApplicationUser",
            "Get one user's assignment to an app (GET /api/v1/apps/{appId}/users/{userId}).",
            {"appId": _APP_ID, "userId": _PATH_USER_ID},
            ["appId", "userId"],
            APP_USER,
            _READ,
            "apps",
            get_application_user,
        ),
        _tool(
            "unassignUserFromApplication",
            "Remove a user's direct assignment to an app (DELETE /api/v1/apps/{appId}/users/{userId}). An "
            "app held through a group is removed by leaving the group (403). Returns 204.",
            {"appId": _APP_ID, "userId": _PATH_USER_ID, "sendEmail": {"type": "boolean"}},
            ["appId", "userId"],
            None,
            _WRITE,
            "apps",
            unassign_user_from_application,
        ),
        _tool(
            "listApplicationGroupAssignments",
            "List the groups an app is assigned to (GET /api/v1/apps/{appId}/groups). q: the start of a "
            "group name.",
            {
                "appId": _APP_ID,
                "q": string("Start of a group name.", 200),
                "limit": _limit(20, 200, 20),
                "after": _AFTER,
            },
            ["appId"],
            _list(APP_GROUP),
            _READ,
            "apps",
            list_application_groups,
        ),
    ]


def _log_tools() -> list[Tool]:
    return [
        _tool(
            "listLogEvents",
            "Read the System Log (GET /api/v1/logs): events published between since (default: 7 days "
            "before until) and until (default: now), oldest first unless sortOrder is DESCENDING. filter: "
            'e.g. eventType eq "user.account.lock" and target.id eq "00u..."; q: keywords. Paged by limit '
            "(default 100) and the Link header's next cursor.",
            {
                "since": string("Earliest published time, ISO 8601 (2026-03-01T00:00:00.000Z).", 40),
                "until": string("Latest published time, ISO 8601.", 40),
                "after": _AFTER,
                "filter": string(
                    'A filter expression, e.g. eventType eq "user.lifecycle.suspend".', _EXPRESSION
                ),
                "q": string("Keywords (at most 10 of 40 characters).", 450),
                "limit": _limit(100, 1000),
                "sortOrder": {"type": "string", "enum": ["ASCENDING", "DESCENDING"]},
            },
            [],
            _list(LOG_EVENT),
            _READ,
            "logs",
            list_log_events,
        ),
    ]


#: The release the tools above are written against: their names are its ``operationId``s and their
#: path parameters its names. Another release's surface renames them (:func:`_for_release`).
BASE_VERSION = "2026.06.3"
_METHODS = ("get", "post", "put", "delete")
_PARAMETER = re.compile(r"\{([^}]+)\}")


@dataclass(frozen=True)
class SpecOperation:
    """One operation of a release's description.

    Attributes:
        operation_id: Its ``operationId`` (the ``rest`` tool's name).
        method: The HTTP method, upper case.
        path: The path as the release writes it (``/api/v1/users/{userId}``).
        path_parameters: The path's parameter names, in order.
    """

    operation_id: str
    method: str
    path: str
    path_parameters: tuple[str, ...]

    @property
    def template(self) -> str:
        """The path with every parameter written ``{}``: what stays when a release renames them."""
        return _PARAMETER.sub("{}", self.path)


@cache
def operations(version: str = CURRENT_VERSION) -> dict[str, SpecOperation]:
    """The operations of a release's derived description, by ``operationId``."""
    found = {}
    for path, item in spec_document(version)["paths"].items():
        for method in _METHODS:
            if method in item:
                operation_id = item[method]["operationId"]
                found[operation_id] = SpecOperation(
                    operation_id, method.upper(), path, tuple(_PARAMETER.findall(path))
                )
    return found


def _renamed_arguments(handler: Handler, names: Mapping[str, str]) -> Handler:
    """The handler, taking arguments by a release's names (``names``: release name -> base name)."""

    def handle(ctx: CallContext, args: dict[str, Any]) -> Response:
        return handler(ctx, {names.get(name, name): value for name, value in args.items()})

    return handle


def release_names(tool: str, version: str) -> tuple[str, dict[str, str]]:
    """A base tool's name and renamed arguments in another release: (operationId, {base: release}).

    The operation is found by method and path template: a release may rename a path's parameters
    (``/api/v1/users/{id}/lifecycle/unlock`` is ``/api/v1/users/{userId}/lifecycle/unlock`` in
    2024.06.1) and an operation (``resetPassword`` is ``generateResetPasswordToken``). A tool that
    is no operation (``wait``) keeps its name.

    Raises:
        ValueError: The release does not describe the tool's operation.
    """
    base = operations(BASE_VERSION).get(tool)
    if base is None:
        return tool, {}
    by_template = {(op.method, op.template): op for op in operations(version).values()}
    release = by_template.get((base.method, base.template))
    if release is None:
        raise ValueError(f"{base.method} {base.path} ({tool}) is not in the {version} description")
    pairs = zip(base.path_parameters, release.path_parameters, strict=True)
    return release.operation_id, {old: new for old, new in pairs if old != new}


def _for_release(tool: Tool, version: str) -> Tool:
    """A base tool as another release names it (:func:`release_names`), with the same handler."""
    name, renames = release_names(tool.name, version)
    if name == tool.name and not renames:
        return tool
    schema = dict(tool.input_schema)
    schema["properties"] = {renames.get(arg, arg): spec for arg, spec in schema["properties"].items()}
    if "required" in schema:
        schema["required"] = [renames.get(arg, arg) for arg in schema["required"]]
    description = tool.description
    for old, new in renames.items():
        description = description.replace(f"{{{old}}}", f"{{{new}}}")
    handler = _renamed_arguments(tool.handler, {new: old for old, new in renames.items()})
    return Tool(name, description, schema, tool.output_schema, tool.kind, handler)


def build_rest_surface(version: str = CURRENT_VERSION) -> Surface:
    """Okta's Management API as tools (see the module docstring), as a release describes it.

    Args:
        version: The dated release of Okta's description (``tables.SPEC_VERSIONS``): tool names
            are its ``operationId``s, path parameters its names, and the enums of the schemas
            (user statuses, group types, assignable role types) its values.
    """
    tools = [*_user_tools(version), *_group_tools(version), *_app_tools(), *_log_tools(), wait_tool()]
    if version != BASE_VERSION:
        tools = [_for_release(tool, version) for tool in tools]
    return Surface("rest", tools, full_response=True)
