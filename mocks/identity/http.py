"""Okta's Management API on the wire: the description's operations routed to the ``rest`` tools.

What the generic transport (``mocks/_core/http.py``, served by ``enterprise_envs/rest/``) needs
to speak Okta, as Okta's documentation and its own clients describe the Management API:

- **Routes.** One per operation of the release's derived description that the ``rest`` surface
  serves: its method and path template (``POST /api/v1/users/{id}/lifecycle/suspend``) call the
  tool named by its ``operationId`` (``suspendUser``), built from
  :func:`~enterprise_envs.mocks.identity.surfaces.rest.operations`, never by hand. Path
  parameters, the query string (``limit``, ``after``, ``q``, ``filter``, ``search``,
  ``sendEmail``, ... read as the tool's schema types them) and a JSON body's properties
  (``profile``, ``credentials``, ``type``, ``scope``) are the tool's arguments by the names the
  description gives them, which are the tool's. A client is given the org's URL (the SDK's
  ``orgUrl``): the base path is ``/``.
- **Credentials.** ``Authorization: SSWS <token>`` (an API token) or ``Bearer <token>`` (how
  Okta takes an OAuth access token; the SDK's ``authorizationMode: Bearer``), also with no space
  after the scheme: Okta's own Python SDK (3.x) sends ``SSWS<token>`` (:class:`OktaAuth`).
- **Answers before any tool runs**, in Okta's error envelope (``errors.render_error``):

  ====================================  ======  ==========================================
  request                               status  ``errorCode``: ``errorSummary``
  ====================================  ======  ==========================================
  no ``Authorization`` Okta reads       403     E0000005: Invalid session
  a token that is not served            401     E0000011: Invalid token provided
  a path no operation has               404     E0000008: The requested path was not found
  a served path by another method       405     E0000022 (with ``Allow``)
  an operation the mock does not serve  501     E0000052: Endpoint not implemented
  a body that is not a JSON object      400     E0000003: The request body was not well-formed
  a body of another ``Content-Type``    400     E0000021
  ====================================  ======  ==========================================

  The transport routes before it reads credentials, so a request to a path that is not served
  is answered 404/405/501 whatever its credentials. Repeated slashes in a path are one (the
  transport reads them so: ``//api/v1/users``, which the SDK sends when its org URL ends in ``/``).
  Okta reads JSON bodies only: a form is a body of another ``Content-Type``.
- **Statuses** are the tools' own (Okta's: 200, 201, 204, 400, 403, 404, 429, ...).
- **Rate limits.** Every tool answer carries ``X-Rate-Limit-Limit/-Remaining/-Reset``
  (``surfaces/ratelimit.py``); an injected rate limit is 429 E0000047 with them and
  ``Retry-After``. ``X-Rate-Limit-Reset`` is UNIX seconds of the world's simulated clock, but
  clients wait ``X-Rate-Limit-Reset`` minus the response's ``Date`` (Okta's advice; the SDK's
  retry does), and ``Date`` is the server's wall clock: on a 429 the reset goes out rebased
  onto the wall clock (now plus ``Retry-After``, the simulated seconds left in the window), so
  a client waits what the world asks (:meth:`OktaHttpApi.reply`). An injected 503 or 504 gets
  the headers too (the users bucket, a fresh window): Okta sends them on every answer, and the
  SDK's retry of a 503 needs them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.http import JSON_TYPE, Auth, HttpApi, Problem, Rejection, Reply, Route
from enterprise_envs.mocks._core.inputs import echo
from enterprise_envs.mocks.identity.errors import okta_error, render_error
from enterprise_envs.mocks.identity.surfaces.ratelimit import BUCKET_LIMITS, WINDOW_SECONDS
from enterprise_envs.mocks.identity.surfaces.rest import SpecOperation, operations
from enterprise_envs.mocks.identity.tables import CURRENT_VERSION

__all__ = [
    "BASE_PATH",
    "REJECTIONS",
    "OktaAuth",
    "OktaHttpApi",
    "build_http_api",
    "described_operation",
    "wire_rate_headers",
]

#: What a client's base URL ends with: the SDK is given the org's URL and appends ``/api/v1/...``.
BASE_PATH = "/"

_MEDIA_TYPE = "Bad request. Accept and/or Content-Type headers likely do not match supported values."
#: Okta's answer to each refusal before a tool runs: (status, errorCode, errorSummary).
REJECTIONS: dict[Problem, tuple[int, str, str]] = {
    Problem.NO_CREDENTIALS: (403, "E0000005", "Invalid session"),
    Problem.BAD_CREDENTIALS: (401, "E0000011", "Invalid token provided"),
    Problem.NO_ROUTE: (404, "E0000008", "The requested path was not found"),
    Problem.WRONG_METHOD: (405, "E0000022", "The endpoint does not support the provided HTTP method"),
    Problem.BAD_JSON: (400, "E0000003", "The request body was not well-formed."),
    Problem.NOT_AN_OBJECT: (400, "E0000003", "The request body was not well-formed."),
    Problem.BAD_FORM: (400, "E0000003", "The request body was not well-formed."),
    Problem.BAD_CONTENT_TYPE: (400, "E0000021", _MEDIA_TYPE),
}
#: An operation of the description the ``rest`` surface has no tool for (``replaceUser``, ...).
NOT_IMPLEMENTED = (501, "E0000052", "Endpoint not implemented.")

_KINDS = {400: ErrorKind.INVALID_ARGUMENT, 404: ErrorKind.NOT_FOUND}
#: The statuses Okta's clients retry besides 429 (an injected ``service_unavailable``, ``timeout``).
_RETRYABLE = frozenset({503, 504})


def _error_body(status: int, code: str, summary: str, causes: tuple[str, ...] = ()) -> dict[str, object]:
    kind = _KINDS.get(status, ErrorKind.PERMISSION_DENIED)
    return render_error(okta_error(kind, code, summary, causes, status))


@cache
def _described(version: str) -> tuple[tuple[Route, SpecOperation], ...]:
    """Every operation of the release's description as a route (with or without a tool)."""
    return tuple((Route(op.method, op.path, op.operation_id), op) for op in operations(version).values())


def described_operation(
    method: str, path: str, version: str = CURRENT_VERSION
) -> tuple[SpecOperation, dict[str, str]] | None:
    """The operation of the release's description at ``method path`` and its path values, if any.

    Every operation counts, served or not (``replaceUser`` has no ``rest`` tool).
    """
    for route, operation in _described(version):
        if route.method == method:
            values = route.match(path)
            if values is not None:
                return operation, values
    return None


def _rejecter(version: str, tools: frozenset[str]):  # noqa: ANN202
    def reject(rejection: Rejection) -> Reply:
        """Okta's answer to a request refused before a tool ran."""
        problem = rejection.problem
        if problem in (Problem.NO_ROUTE, Problem.WRONG_METHOD):
            described = described_operation(rejection.method, rejection.path, version)
            if described is not None and described[0].operation_id not in tools:
                operation = described[0]
                status, code, summary = NOT_IMPLEMENTED
                what = f"{operation.operation_id} ({operation.method} {operation.path})"
                cause = f"{what} is not served by this mock"
                return Reply(status, _error_body(status, code, summary, (cause,)))
        status, code, summary = REJECTIONS[problem]
        said = problem in (Problem.BAD_JSON, Problem.BAD_CONTENT_TYPE)
        causes = (echo(rejection.detail, 300),) if said else ()
        headers = {"Allow": ", ".join(rejection.allowed)} if problem is Problem.WRONG_METHOD else {}
        return Reply(status, _error_body(status, code, summary, causes), headers)

    return reject


@dataclass(frozen=True)
class OktaAuth(Auth):
    """Okta's credentials: ``<scheme> <token>``, or the scheme and the token with nothing between.

    The generated clients of Okta's Python SDK (3.x) join the scheme and the token without a
    space (``SSWS00abc...``, ``Bearereyj...``), and Okta's own integration tests of that SDK pass
    against real orgs, so Okta reads the token after the scheme either way.
    """

    def credential(self, authorization: str | None, form: Mapping[str, Any] | None = None) -> str | None:
        """The token a request presents (see :meth:`Auth.credential`), the scheme maybe glued to it."""
        found = super().credential(authorization, form)
        if found is not None or not authorization:
            return found
        text = authorization.strip()
        for scheme in self.schemes:
            if len(text) > len(scheme) and text[: len(scheme)].lower() == scheme.lower():
                return text[len(scheme) :].strip()
        return None


def wire_rate_headers(headers: Mapping[str, str], now: float | None = None) -> dict[str, str]:
    """A 429's ``X-Rate-Limit-Reset`` rebased onto the wall clock: ``now`` plus ``Retry-After``.

    The world's clock is simulated (5 seconds a call) and the ``Date`` header a client compares
    the reset with is the server's wall clock, so a reset in world time would make a client
    wait months, or not at all. Other answers keep the world's reset (no client waits on them).

    Args:
        headers: A tool answer's headers.
        now: The wall clock (default: ``time.time()``).
    """
    found = dict(headers)
    retry_after = found.get("Retry-After")
    if retry_after is None or "X-Rate-Limit-Reset" not in found or not retry_after.isdigit():
        return found
    found["X-Rate-Limit-Reset"] = str(int(time.time() if now is None else now) + int(retry_after))
    return found


@dataclass(frozen=True)
class OktaHttpApi(HttpApi):
    """Okta's HttpApi: a 429's reset on the wall clock, rate-limit headers on every answer."""

    def reply(self, result: CallResult) -> Reply:
        """A tool's result as Okta answers it."""
        headers = wire_rate_headers(result.headers)
        if result.status in _RETRYABLE and "X-Rate-Limit-Reset" not in headers:
            # An injected 503/504 is answered before any endpoint counted the call, so it has
            # no bucket; Okta sends the headers on every answer and its SDK cannot retry
            # without them (it reads X-Rate-Limit-Reset against Date): the users bucket, a
            # fresh window on the wall clock.
            limit = BUCKET_LIMITS["users"]
            headers.update(
                {
                    "X-Rate-Limit-Limit": str(limit),
                    "X-Rate-Limit-Remaining": str(limit - 1),
                    "X-Rate-Limit-Reset": str(int(time.time()) + WINDOW_SECONDS),
                }
            )
        return Reply(self.status(result), result.body, headers)


def build_http_api(version: str = CURRENT_VERSION) -> OktaHttpApi:
    """Okta's Management API over the ``rest`` surface of a release: one route per served operation."""
    from enterprise_envs.mocks.identity import identity_system

    tools = frozenset(tool.name for tool in identity_system(version).surface("rest"))
    routes = tuple(route for route, operation in _described(version) if operation.operation_id in tools)
    return OktaHttpApi(
        name=f"Okta Management API ({version})",
        routes=routes,
        auth=OktaAuth(schemes=("SSWS", "Bearer")),
        reject=_rejecter(version, tools),
        surface="rest",
        base_path=BASE_PATH,
        bodies=(JSON_TYPE,),
    )
