"""Okta's error envelope and the errors its Management API answers with.

Every error body is ``{errorCode, errorSummary, errorLink, errorId, errorCauses}``, as the
captured 404s and 403s show (``spec/observed/``)::

    {"errorCode": "E0000007", "errorSummary": "Not found: Resource not found: 00usfhrjbkppPBkoY4x6 (User)",
     "errorLink": "E0000007", "errorId": "oaeMzddieo5QvW8lOZVv0uV6w", "errorCauses": []}

``errorLink`` repeats the code (it does in every capture). Codes and summaries: E0000007,
E0000015, E0000032 and E0000038 are captured; E0000001, E0000006, E0000009, E0000010,
E0000031 and E0000047 are from Okta's published error-code reference.

A 429 that the call pipeline's fault injector answers (before any identity code runs) is made
Okta's here too: the body E0000047 without causes, and its rate-limit headers renamed to Okta's
``X-Rate-Limit-Limit``/``-Remaining``/``-Reset`` (``Retry-After`` is kept: the shared ``wait``
tool and the oracle read it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from enterprise_envs.mocks._core.errors import ErrorKind, ToolError
from enterprise_envs.mocks.identity.conventions import error_id


@dataclass
class OktaError(ToolError):
    """A ToolError carrying Okta's own code and causes.

    ``message`` is the ``errorSummary``; ``detail`` joins the causes (for logs and the
    generic layers that read it).

    Attributes:
        code: The ``errorCode`` (``E0000007``).
        causes: Each ``errorCauses`` entry's ``errorSummary``.
    """

    code: str = ""
    causes: tuple[str, ...] = ()


#: Okta's summary of E0000006 (a refused action), also the generic layers' 403.
_NO_PERMISSION = "You do not have permission to perform the requested action"

#: The code an error the generic layers raise (schema validation, an injected fault) gets, and
#: the summary of the kinds whose summary Okta fixes.
_KIND_CODES: dict[ErrorKind, tuple[str, str | None]] = {
    ErrorKind.INVALID_ARGUMENT: ("E0000001", None),
    ErrorKind.NOT_FOUND: ("E0000007", None),
    ErrorKind.PERMISSION_DENIED: ("E0000006", _NO_PERMISSION),
    ErrorKind.CONFLICT: ("E0000001", None),
    ErrorKind.RATE_LIMITED: ("E0000047", "API call exceeded rate limit due to too many requests."),
    ErrorKind.UNAVAILABLE: ("E0000010", "Service is in read only mode"),
    ErrorKind.TIMEOUT: ("E0000009", "Internal Server Error"),
    ErrorKind.INTERNAL: ("E0000009", "Internal Server Error"),
}


def render_error(error: ToolError) -> dict[str, Any]:
    """Okta's error body for any failed call.

    An :class:`OktaError` says its code and causes; another ToolError (from the call pipeline:
    a malformed argument, an injected 429) takes its kind's code, the kind's fixed summary or
    its own message, and its detail as the one cause.
    """
    if isinstance(error, OktaError):
        code, summary, causes = error.code, error.message, list(error.causes)
    else:
        code, fixed = _KIND_CODES[error.kind]
        summary = fixed or error.message
        causes = [error.detail] if error.detail else []
        if error.kind is ErrorKind.RATE_LIMITED:
            # Okta's 429 names no cause; the injector's detail is another vendor's sentence.
            causes = []
            _okta_rate_headers(error.headers)
    return {
        "errorCode": code,
        "errorSummary": summary,
        "errorLink": code,
        "errorId": error_id(code, summary, *causes),
        "errorCauses": [{"errorSummary": cause} for cause in causes],
    }


#: The generic fault injector's rate-limit headers and Okta's names for them.
_RATE_HEADER_NAMES = {"X-RateLimit-Limit": "X-Rate-Limit-Limit", "X-RateLimit-Reset": "X-Rate-Limit-Reset"}


def _okta_rate_headers(headers: dict[str, str]) -> None:
    """Rename an injected 429's rate-limit headers to Okta's, in place (none remain: ``Remaining`` 0).

    The call pipeline answers an injected fault with the error's own headers, after rendering its
    body, so this is the one place an identity 429 gets Okta's headers. Headers Okta does not send
    (the other vendor's rule id) are dropped; ``Retry-After`` stays for the shared ``wait`` tool.
    """
    if not any(name in headers for name in _RATE_HEADER_NAMES):
        return
    for generic, okta in _RATE_HEADER_NAMES.items():
        if generic in headers:
            headers[okta] = headers.pop(generic)
    headers["X-Rate-Limit-Remaining"] = "0"
    for name in [name for name in headers if name.startswith("X-RateLimit-")]:
        del headers[name]


def okta_error(
    kind: ErrorKind, code: str, summary: str, causes: tuple[str, ...] = (), status: int = 0
) -> OktaError:
    """An error in Okta's words."""
    return OktaError(kind, summary, "; ".join(causes) or None, status=status, code=code, causes=causes)


def resource_not_found(key: str, kind: str) -> OktaError:
    """404 E0000007 for an id that names nothing (``kind`` as Okta names it: ``User``, ``UserGroup``)."""
    return okta_error(ErrorKind.NOT_FOUND, "E0000007", f"Not found: Resource not found: {key} ({kind})")


def _refused(code: str, summary: str, causes: tuple[str, ...] = (), status: int = 0) -> OktaError:
    """A refusal (PERMISSION_DENIED: 403 unless ``status`` says otherwise) in Okta's words."""
    return okta_error(ErrorKind.PERMISSION_DENIED, code, summary, causes, status)


def access_denied(*causes: str) -> OktaError:
    """403 E0000006: the caller's admin role does not allow this (``causes``: why, when Okta says)."""
    return _refused("E0000006", _NO_PERMISSION, causes)


def feature_not_permitted() -> OktaError:
    """401 E0000015 (captured for a feature the org's admin may not use)."""
    return _refused(
        "E0000015", "You do not have permission to access the feature you are requesting", status=401
    )


def not_allowed_in_status() -> OktaError:
    """403 E0000038: a lifecycle operation the user's current status does not allow."""
    return _refused("E0000038", "This operation is not allowed in the user's current status.")


def unlock_not_allowed() -> OktaError:
    """403 E0000032: unlocking a user who is not locked out."""
    return _refused("E0000032", "Unlock is not allowed for this user.", ("The user is not locked out.",))


def validation_failed(field: str, cause: str) -> OktaError:
    """400 E0000001: a value Okta's validation refuses (``Api validation failed: login``)."""
    return okta_error(ErrorKind.INVALID_ARGUMENT, "E0000001", f"Api validation failed: {field}", (cause,))


def invalid_search(cause: str) -> OktaError:
    """400 E0000031: a ``filter`` or ``search`` expression Okta does not support (the reason as cause)."""
    return okta_error(ErrorKind.INVALID_ARGUMENT, "E0000031", "Invalid search criteria.", (cause,))


def invalid_parameter(name: str, cause: str) -> OktaError:
    """400 E0000001 for a query parameter Okta refuses (a cursor it did not hand out)."""
    return validation_failed(name, f"{name}: {cause}")


def group_not_modifiable(group_type: str) -> OktaError:
    """403 E0000006: membership of a group that is not an ``OKTA_GROUP`` cannot be changed.

    Okta's description says memberships of ``APP_GROUP``s are the app import's to manage and
    ``BUILT_IN`` groups are Okta's; the code and summary are Okta's refusal of an action.
    """
    return access_denied(
        f"You can only modify memberships for groups of the OKTA_GROUP type, not {group_type}."
    )
