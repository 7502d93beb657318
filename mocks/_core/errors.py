"""Typed errors: every failed tool call ends as one of these, rendered in the vendor's shape.

Errors are results, not exceptions, at the tool boundary: handlers raise :class:`ToolError`, the
backend catches it, rolls the call back and returns the system's error envelope.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class ErrorKind(enum.Enum):
    """What went wrong, independent of any vendor; each kind has one HTTP-like status."""

    INVALID_ARGUMENT = "invalid_argument"
    NOT_FOUND = "not_found"
    PERMISSION_DENIED = "permission_denied"
    CONFLICT = "conflict"
    RATE_LIMITED = "rate_limited"
    UNAVAILABLE = "unavailable"
    TIMEOUT = "timeout"
    INTERNAL = "internal"

    @property
    def status(self) -> int:
        """The HTTP status a vendor API answers with for this kind."""
        return _STATUS[self]


_STATUS = {
    ErrorKind.INVALID_ARGUMENT: 400,
    ErrorKind.NOT_FOUND: 404,
    ErrorKind.PERMISSION_DENIED: 403,
    ErrorKind.CONFLICT: 409,
    ErrorKind.RATE_LIMITED: 429,
    ErrorKind.UNAVAILABLE: 503,
    ErrorKind.TIMEOUT: 504,
    ErrorKind.INTERNAL: 500,
}


@dataclass
class ToolError(Exception):
    """A failed call: raised by handlers and the access check, caught by the backend.

    Attributes:
        kind: The error class.
        message: Short vendor-style message ("No Record found").
        detail: Longer explanation naming the field or record at fault.
        headers: Extra response headers (Retry-After on 429, ...).
        status: HTTP-like status; defaults to the kind's status (a data policy failure is 403
            although the request was well-formed, as on the vendor's instance).
    """

    kind: ErrorKind
    message: str
    detail: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    status: int = 0
    #: For access denials: the operation, table and row refused (logged by the backend).
    target: tuple[str, str, str] | None = None

    def __post_init__(self) -> None:
        if not self.status:
            self.status = self.kind.status
        super().__init__(f"{self.status} {self.message}: {self.detail}")


def invalid(message: str, detail: str | None = None) -> ToolError:
    """Shorthand for a 400 invalid-argument error."""
    return ToolError(ErrorKind.INVALID_ARGUMENT, message, detail)


def not_found(message: str, detail: str | None = None) -> ToolError:
    """Shorthand for a 404 error."""
    return ToolError(ErrorKind.NOT_FOUND, message, detail)


def denied(message: str, detail: str | None = None) -> ToolError:
    """Shorthand for a 403 error (access control, data policy, business rule)."""
    return ToolError(ErrorKind.PERMISSION_DENIED, message, detail)
