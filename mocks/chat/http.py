"""Slack's Web API on the wire: ``/api/<method>`` routed to the ``rest`` surface's tools.

What the generic transport (``mocks/_core/http.py``, served by ``enterprise_envs/rest/``) needs
to speak Slack, as Slack's documentation describes its Web API:

- Every method is ``POST /api/<method>`` (``chat.postMessage``), its tool the method's
  ``operationId`` (``chat_postMessage``: the name with ``_`` for ``.``). The methods the
  description declares ``GET`` (the reads: ``conversations.list``, ``users.info``, ...) are
  also served by ``GET`` with the arguments in the query string. Arguments come as a
  ``application/x-www-form-urlencoded`` body, a JSON body, the query string, or a mix; the
  ``rest`` tools take Slack's text encodings (``"true"``, ``"1"``, comma-separated lists).
- The token is ``Authorization: Bearer <token>``, or a ``token`` field of a form body (Slack
  reads JSON bodies' tokens from the header only).
- Slack answers every error with HTTP 200 and ``{"ok": false, "error": "<code>"}``: a missing
  token is ``not_authed``, an unknown one ``invalid_auth``, a body it cannot read
  ``invalid_json``, ``json_not_object``, ``invalid_form_data`` or ``invalid_post_type``. Only a
  rate limit changes the status: 429 with ``Retry-After``. In process the same errors keep their
  class's status (404, 403, ...; ``errors.py``); this module maps them to 200 on the wire.
- An unknown method is ``unknown_method`` with ``req_method`` (HTTP 404). A write method asked
  for with ``GET`` (or any method with another verb) is refused with 405 and ``Allow``; Slack
  has no code of its own for it, the mock says ``method_not_allowed``.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.backend import CallResult
from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.http import Auth, HttpApi, Problem, Rejection, Reply, Route
from enterprise_envs.mocks._core.inputs import echo

#: Where the methods live: a client's base URL is ``http://host:port/api/``.
API_PREFIX = "/api/"
#: Slack's code for each refusal before a method runs.
REJECTION_CODES: dict[Problem, str] = {
    Problem.NO_CREDENTIALS: "not_authed",
    Problem.BAD_CREDENTIALS: "invalid_auth",
    Problem.NO_ROUTE: "unknown_method",
    Problem.WRONG_METHOD: "method_not_allowed",
    Problem.BAD_JSON: "invalid_json",
    Problem.NOT_AN_OBJECT: "json_not_object",
    Problem.BAD_FORM: "invalid_form_data",
    Problem.BAD_CONTENT_TYPE: "invalid_post_type",
}
#: The HTTP status of a refusal: 200, as for every Slack error, but for the two the mock cannot
#: answer as a method would (no method there, or not by this verb).
_REJECTION_STATUS = {Problem.NO_ROUTE: 404, Problem.WRONG_METHOD: 405}
_RATE_LIMITED = ErrorKind.RATE_LIMITED.status


def wire_status(result: CallResult) -> int:
    """The HTTP status a method's result goes out with: 429 for a rate limit, else 200."""
    return _RATE_LIMITED if result.status == _RATE_LIMITED else 200


def reject(rejection: Rejection) -> Reply:
    """Slack's answer to a request refused before its method ran."""
    body: dict[str, object] = {"ok": False, "error": REJECTION_CODES[rejection.problem]}
    headers: dict[str, str] = {}
    if rejection.problem is Problem.NO_ROUTE:
        body["req_method"] = echo(rejection.path.removeprefix(API_PREFIX), 200)
    elif rejection.problem is Problem.WRONG_METHOD:
        headers["Allow"] = ", ".join(rejection.allowed)
    return Reply(_REJECTION_STATUS.get(rejection.problem, 200), body, headers)


def build_http_api() -> HttpApi:
    """Slack's Web API over the ``rest`` surface: one route per method and verb."""
    from enterprise_envs.mocks.chat.surfaces.rest import methods

    routes: list[Route] = []
    for method in methods().values():
        path = f"{API_PREFIX}{method.name}"
        routes.append(Route("POST", path, method.operation_id))
        if method.http_method == "GET":
            routes.append(Route("GET", path, method.operation_id))
    return HttpApi(
        name="Slack Web API",
        routes=tuple(routes),
        auth=Auth(schemes=("Bearer",), form_field="token"),
        reject=reject,
        surface="rest",
        base_path=API_PREFIX,
        status=wire_status,
    )
