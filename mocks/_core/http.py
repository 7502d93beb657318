"""A system's own HTTP API, described as data: routes to tools, credentials, the vendor's answers.

A mocked system that can be served as its vendor's REST API (``serve SYSTEM --transport rest``)
declares an :class:`HttpApi` (``System.http``). The transport (``enterprise_envs/rest/``) reads
only this description, so nothing in it names a vendor:

- :class:`Route`: an HTTP method and a path template (``/things/{id}``) naming a tool of the
  API's surface, and how the request becomes the tool's arguments: path parameters, the query
  string and the body (JSON or form fields spread as arguments, or the whole body under one
  argument).
- :class:`Auth`: how a request carries the served token: ``Authorization`` schemes (``Bearer``,
  ``Basic`` with the token as the password, any other ``<scheme> <token>``) and, for APIs that
  accept it, a form field.
- ``reject``: the vendor's answer to a request refused before any tool runs
  (:class:`Rejection`: no or bad credentials, no such route, a body it cannot read).
- ``status``: the HTTP status a tool's :class:`CallResult` goes out with (an API may answer its
  errors with 200 and the error in the body).

Every tool call still goes through ``Backend.call`` (validation, access, faults, one
transaction), so a call over HTTP and the same call in process reach the same state.

URLs in answers. A vendor's answers carry URLs a client follows (Okta's and ServiceNow's ``Link``
pagination, ``Location``, a record's links), built from an instance setting
(``instance_url``, ``org_url``). Handlers build them with :func:`public_url`, which the HTTP
transport points at where the API is served for the duration of a call (:func:`served_at`), so
a client following a link stays on the mock; in process the setting is used as configured.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any, Protocol
from urllib.parse import parse_qsl, quote, unquote, urlencode

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.inputs import InputError, echo, loads

__all__ = [
    "BASIC",
    "JSON_TYPE",
    "FORM_TYPE",
    "Auth",
    "Body",
    "HttpApi",
    "InProcess",
    "Problem",
    "Rejection",
    "Reply",
    "Route",
    "Transport",
    "WireRequest",
    "coerce",
    "parse_body",
    "public_url",
    "served_at",
    "wire_text",
]

#: The ``Authorization`` scheme whose credentials are ``user:password`` in base64; the token is
#: the password (any user name).
BASIC = "Basic"
JSON_TYPE = "application/json"
FORM_TYPE = "application/x-www-form-urlencoded"
#: Form fields one request may carry (a bound on parsing work; a 1 MiB body is the other).
MAX_FORM_FIELDS = 1_000

_PARAMETER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

#: Where the API answering the current call is served (``http://127.0.0.1:8766`` or with an
#: ``/envs/<id>`` prefix); None in process. A context variable: a call runs in one thread.
_SERVED_ORIGIN: ContextVar[str | None] = ContextVar("served_origin", default=None)


@contextmanager
def served_at(origin: str) -> Iterator[None]:
    """Within the block, :func:`public_url` is ``origin`` (the HTTP transport wraps each call)."""
    token = _SERVED_ORIGIN.set(origin.rstrip("/"))
    try:
        yield
    finally:
        _SERVED_ORIGIN.reset(token)


def public_url(configured: Any) -> str:
    """The base URL a vendor's URLs start with: where the API is served now, else ``configured``.

    Args:
        configured: The instance setting naming the vendor's host (``https://example.okta.com``).
    """
    served = _SERVED_ORIGIN.get()
    return str(configured) if served is None else served


class Problem(StrEnum):
    """Why a request was refused before any tool ran (the vendor says it in its own words)."""

    NO_CREDENTIALS = "no_credentials"
    BAD_CREDENTIALS = "bad_credentials"
    NO_ROUTE = "no_route"
    WRONG_METHOD = "wrong_method"
    BAD_JSON = "bad_json"
    NOT_AN_OBJECT = "not_an_object"
    BAD_FORM = "bad_form"
    BAD_CONTENT_TYPE = "bad_content_type"


@dataclass(frozen=True)
class Rejection:
    """A request refused before any tool ran.

    Attributes:
        problem: What is wrong.
        method: The request's HTTP method.
        path: The request's path (the API's own: without the serving layer's env prefix).
        detail: A sentence for people (never echoes a credential).
        allowed: With :attr:`Problem.WRONG_METHOD`, the methods the path takes.
    """

    problem: Problem
    method: str
    path: str
    detail: str = ""
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Reply:
    """An HTTP answer: status, JSON body (None: no body) and headers."""

    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Auth:
    """How a request presents the served token.

    Attributes:
        schemes: ``Authorization`` schemes accepted, compared without case: ``Bearer <token>``,
            :data:`BASIC` (the token as the password of any user), or any other
            ``<scheme> <token>``.
        form_field: A form-body field that may carry the token when no header does (form bodies
            only: an API that takes it reads JSON bodies' credentials from the header). The
            field is never passed to a tool.
    """

    schemes: tuple[str, ...] = ("Bearer",)
    form_field: str | None = None

    def header(self, token: str, user: str = "enterprise-envs") -> str:
        """The ``Authorization`` value presenting ``token`` by the first accepted scheme."""
        scheme = self.schemes[0]
        if scheme == BASIC:
            return f"{BASIC} {base64.b64encode(f'{user}:{token}'.encode()).decode('ascii')}"
        return f"{scheme} {token}"

    def credential(self, authorization: str | None, form: Mapping[str, Any] | None = None) -> str | None:
        """The token a request presents, or None if it presents none in an accepted way.

        A header of an accepted scheme wins; a malformed one (Basic that is not base64
        ``user:password``) presents the empty token, which no served token equals, so the
        vendor answers it as bad credentials rather than missing ones.
        """
        if authorization:
            scheme, _, value = authorization.strip().partition(" ")
            accepted = {name.lower(): name for name in self.schemes}
            found = accepted.get(scheme.lower())
            if found is not None:
                value = value.strip()
                return _basic_password(value) if found == BASIC else value
        if self.form_field and form is not None:
            value = form.get(self.form_field)
            if isinstance(value, str) and value:
                return value
        return None


def _basic_password(value: str) -> str:
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return ""
    user, colon, password = decoded.partition(":")
    return password if colon else ""


@dataclass(frozen=True)
class Route:
    """One HTTP method and path template served by one tool.

    Attributes:
        method: ``GET``, ``POST``, ``PUT``, ``PATCH`` or ``DELETE``.
        path: The template: literal text and ``{name}`` parameters, each one path segment
            (``/api/now/table/{table}/{sys_id}``).
        tool: The tool of the API's surface the route calls.
        body: None: a JSON object's or a form's fields are arguments of their own. A name: the
            whole JSON body is that one argument (a record's fields under ``fields``).
        path_args: Path parameter -> argument name, where they differ (default: the same name).
    """

    method: str
    path: str
    tool: str
    body: str | None = None
    path_args: Mapping[str, str] = field(default_factory=dict)
    pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts, last = [], 0
        for found in _PARAMETER.finditer(self.path):
            parts.append(re.escape(self.path[last : found.start()]))
            parts.append(f"(?P<{found.group(1)}>[^/]+)")
            last = found.end()
        parts.append(re.escape(self.path[last:]))
        object.__setattr__(self, "pattern", re.compile("".join(parts)))

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters if ``path`` is this route's, else None."""
        found = self.pattern.fullmatch(path)
        return None if found is None else found.groupdict()


@dataclass(frozen=True)
class WireRequest:
    """A tool call as the HTTP request a vendor's client sends for it (:meth:`HttpApi.request_for`).

    Attributes:
        method: The HTTP method.
        path: The path under the server root (path parameters filled in, percent-encoded).
        query: The query string's fields, as text.
        body: The JSON body's value (None: no body).
    """

    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    body: Any = None

    def target(self) -> str:
        """The request target: the path and, if any, the query string."""
        return f"{self.path}?{urlencode(self.query)}" if self.query else self.path

    def payload(self) -> bytes | None:
        """The body as sent (UTF-8 JSON), or None."""
        return None if self.body is None else json.dumps(self.body, ensure_ascii=False).encode("utf-8")


class Transport(Protocol):
    """Where a vendor's requests go: in process (:class:`InProcess`) or over HTTP.

    Over HTTP is the REST transport's ``RestClient``; a replay of recorded requests or a harness
    written against this runs either way.
    """

    def send(self, request: WireRequest) -> CallResult:
        """Send one request; an error answer is a result, never an exception."""
        ...


#: Methods whose arguments all travel in the query string (they take no body).
_QUERY_METHODS = frozenset({"GET", "HEAD", "DELETE"})


def wire_text(value: Any) -> str:
    """An argument as query-string text, what :func:`coerce` reads back by the tool's schema.

    Booleans are ``true``/``false``, numbers as written, the rest (objects, lists, null) JSON.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class Body:
    """A request body as read: its fields (None: no body) and whether they came from a form."""

    values: dict[str, Any] | None
    form: bool = False


def _keep_status(result: CallResult) -> int:
    return result.status


@dataclass(frozen=True)
class HttpApi:
    """A system's HTTP API (see the module docstring).

    Attributes:
        name: What the API is called (logs, the server's banner).
        routes: The routes, tried in order.
        auth: How a request carries the token.
        reject: The vendor's answer to a request refused before any tool ran.
        surface: The tool surface the routes call (its tools' schemas read the arguments).
        base_path: What a client's base URL ends with, after the server root (``/api/`` when
            clients are given ``https://host/api/``; ``/`` when they are given the host).
        status: The HTTP status a tool's result goes out with (default: the result's own).
        bodies: The body media types the API reads; a body of another is refused
            (:attr:`Problem.BAD_CONTENT_TYPE`) before anything reads it.
        authenticate_first: Check the ``Authorization`` header before the route, so a request
            without valid credentials is refused as such whatever its path (False: an unknown
            route is answered first, as Slack's ``unknown_method`` is, and a form field may carry
            the token).
    """

    name: str
    routes: tuple[Route, ...]
    auth: Auth
    reject: Callable[[Rejection], Reply]
    surface: str = "rest"
    base_path: str = "/"
    status: Callable[[CallResult], int] = _keep_status
    bodies: tuple[str, ...] = (JSON_TYPE, FORM_TYPE)
    authenticate_first: bool = False

    @cached_property
    def path_prefix(self) -> str:
        """What every route's path starts with, to its last ``/`` (``/api/v1/``).

        The paths the API claims when a server serves several APIs side by side.
        """
        literals = [route.path.split("{", 1)[0] for route in self.routes] or ["/"]
        common = os.path.commonprefix(literals)
        return common[: common.rfind("/") + 1] or "/"

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]] | Rejection:
        """The route serving ``method path`` and its path parameters, or why there is none."""
        allowed: list[str] = []
        for route in self.routes:
            params = route.match(path)
            if params is None:
                continue
            if route.method == method:
                return route, params
            allowed.append(route.method)
        if allowed:
            methods = tuple(dict.fromkeys(allowed))
            detail = f"{echo(path, 200)} takes {', '.join(methods)}, not {echo(method, 20)}"
            return Rejection(Problem.WRONG_METHOD, method, path, detail, methods)
        return Rejection(Problem.NO_ROUTE, method, path, f"no such resource: {echo(path, 200)}")

    def arguments(
        self,
        route: Route,
        params: Mapping[str, str],
        query: Iterable[tuple[str, str]],
        body: Body,
        schema: Mapping[str, Any],
    ) -> dict[str, Any]:
        """The tool's arguments: the query's fields, then the body's, then the path's.

        Values that came as text (the query, a form) are read as the tool's schema types them
        (:func:`coerce`); a JSON body's are passed as sent. The credential field never reaches
        a tool.
        """
        properties = schema.get("properties") or {}
        arguments: dict[str, Any] = {}
        for name, value in _fields(query).items():
            arguments[name] = coerce(value, properties.get(name))
        if body.values is not None:
            if route.body is not None and not body.form:
                arguments[route.body] = body.values
            else:
                for name, value in body.values.items():
                    arguments[name] = coerce(value, properties.get(name)) if body.form else value
        for name, value in params.items():
            argument = route.path_args.get(name, name)
            arguments[argument] = coerce(value, properties.get(argument))
        if self.auth.form_field:
            arguments.pop(self.auth.form_field, None)
        return arguments

    def request_for(self, tool: str, arguments: Mapping[str, Any]) -> WireRequest:
        """The request a client sends to call ``tool`` with ``arguments``.

        The inverse of :meth:`arguments`: the tool's first route, path parameters filled in, a
        JSON body (the route's ``body`` argument, or every other argument) for methods that
        take one, and the rest in the query string as text.

        Raises:
            KeyError: No route serves ``tool``, or an argument its path needs is missing.
        """
        route = next((route for route in self.routes if route.tool == tool), None)
        if route is None:
            raise KeyError(f"{self.name}: no route serves {tool!r}")
        rest = dict(arguments)
        path = route.path
        for name in _PARAMETER.findall(route.path):
            argument = route.path_args.get(name, name)
            if argument not in rest:
                raise KeyError(f"{route.method} {route.path} needs {argument!r}")
            path = path.replace(f"{{{name}}}", quote(wire_text(rest.pop(argument)), safe=""))
        body: Any = None
        if route.method not in _QUERY_METHODS:
            if route.body is not None:
                body = rest.pop(route.body, None)
            else:
                body, rest = rest, {}
        query = tuple((name, wire_text(value)) for name, value in rest.items())
        return WireRequest(route.method, path, query, body)

    def reply(self, result: CallResult) -> Reply:
        """A tool's result as the API answers it."""
        return Reply(self.status(result), result.body, dict(result.headers))


class InProcess:
    """Requests of an :class:`HttpApi` answered on a backend with no socket: a :class:`Transport`.

    What the HTTP transport does with a request short of the network: route it, read its query
    and JSON body as the tool's schema types them, call the tool with ``Backend.call`` (as the
    backend's identity), and answer as the API does (:meth:`HttpApi.reply`). Credentials are
    not checked: the caller holds the backend.

    Args:
        backend: The world the tools run on.
        api: The system's HTTP API.
    """

    def __init__(self, backend: Backend, api: HttpApi) -> None:
        self.backend = backend
        self.api = api

    def send(self, request: WireRequest) -> CallResult:
        """Route and call one request (its path percent-decoded, as a server reads it)."""
        api = self.api
        found = api.match(request.method, unquote(request.path))
        if isinstance(found, Rejection):
            reply = api.reject(found)
            return CallResult("", reply.status, reply.body, dict(reply.headers))
        route, params = found
        schema = self.backend.system.surface(api.surface)[route.tool].input_schema
        body = Body(request.body if isinstance(request.body, dict) else None)
        arguments = api.arguments(route, params, request.query, body, schema)
        reply = api.reply(self.backend.call(route.tool, arguments, surface=api.surface))
        return CallResult(route.tool, reply.status, reply.body, dict(reply.headers))


def _fields(pairs: Iterable[tuple[str, str]]) -> dict[str, Any]:
    """Name -> value, or the list of values of a name given more than once."""
    fields: dict[str, Any] = {}
    for name, value in pairs:
        if name in fields:
            held = fields[name]
            fields[name] = [*held, value] if isinstance(held, list) else [held, value]
        else:
            fields[name] = value
    return fields


_INTEGER = re.compile(r"-?[0-9]{1,18}")
_NUMBER = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?")
_BOOLEANS = {"true": True, "false": False}


def coerce(value: Any, schema: Mapping[str, Any] | None) -> Any:
    """A value sent as text, read as the schema types it where the schema does not take text.

    A query string or a form carries only text; a tool whose schema wants an integer, a number
    or a boolean (and not a string) gets ``"20"`` as 20 and ``"true"`` as True. Anything else
    is passed as sent, so the tool's own validation answers it in the vendor's words.
    """
    if not isinstance(value, str) or not schema:
        return value
    kinds = schema.get("type")
    kinds = {kinds} if isinstance(kinds, str) else set(kinds or ())
    if not kinds or "string" in kinds:
        return value
    text = value.strip()
    if "integer" in kinds and _INTEGER.fullmatch(text):
        return int(text)
    if "number" in kinds and _NUMBER.fullmatch(text):
        return float(text)
    if "boolean" in kinds and text.lower() in _BOOLEANS:
        return _BOOLEANS[text.lower()]
    return value


def parse_body(
    method: str,
    path: str,
    content_type: str | None,
    raw: bytes,
    accepted: tuple[str, ...] = (JSON_TYPE, FORM_TYPE),
) -> Body | Rejection:
    """A request body as fields: a JSON object or a URL-encoded form (empty: no body).

    Args:
        method: The request's method (for the rejection).
        path: The request's path (for the rejection).
        content_type: Its ``Content-Type`` header (parameters such as ``charset`` ignored).
        raw: The body, already bounded by the serving layer.
        accepted: The media types read (``HttpApi.bodies``); another is refused.
    """
    if not raw.strip():
        return Body(None)
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media not in accepted or media not in (JSON_TYPE, FORM_TYPE):  # the two this module reads
        what = f"Content-Type {echo(media, 60)}" if media else "no Content-Type"
        return Rejection(
            Problem.BAD_CONTENT_TYPE, method, path, f"a body with {what}: send {' or '.join(accepted)}"
        )
    if media == JSON_TYPE:
        try:
            value = loads(raw)
        except InputError as error:
            return Rejection(Problem.BAD_JSON, method, path, f"the body is not JSON: {error.reason}")
        if not isinstance(value, dict):
            return Rejection(Problem.NOT_AN_OBJECT, method, path, "the JSON body is not an object")
        return Body(value)
    try:
        pairs = parse_qsl(
            raw.decode("utf-8"),
            keep_blank_values=True,
            strict_parsing=False,
            errors="strict",
            max_num_fields=MAX_FORM_FIELDS,
        )
    except (UnicodeDecodeError, ValueError):
        return Rejection(Problem.BAD_FORM, method, path, "the form body is not UTF-8 URL-encoded fields")
    return Body(_fields(pairs), form=True)
