"""ServiceNow's error envelope and the messages its Table API answers with.

One place for the vendor's wording, so every rule that fails speaks the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from enterprise_envs.mocks._core.errors import ErrorKind, ToolError, denied, not_found


def render_error(error: ToolError) -> dict[str, Any]:
    """The Table API's error body: ``{"error": {"message", "detail"}, "status": "failure"}``."""
    return {"error": {"message": error.message, "detail": error.detail}, "status": "failure"}


def record_not_found(what: str = "") -> ToolError:
    """404 for a record that does not exist or may not be read (the vendor does not say which)."""
    detail = "Record doesn't exist or ACL restricts the record retrieval"
    return not_found("No Record found", f"{detail}: {what}" if what else detail)


def acl_denied(operation: str) -> ToolError:
    """403 from an access control rule (``operation`` is Insert, Update, Delete)."""
    return denied("Operation Failed", f"ACL Exception {operation} Failed due to security constraints")


def mandatory_fields(labels: Iterable[str]) -> ToolError:
    """403 from a data policy: fields required in the target state are empty."""
    return denied(
        "Operation Failed",
        "Data Policy Exception: The following fields are mandatory: " + ", ".join(labels),
    )


def read_only_fields(labels: Iterable[str]) -> ToolError:
    """403 from a data policy: the client tried to set a system-maintained field."""
    return denied(
        "Operation Failed",
        "Data Policy Exception: The following fields are read only: " + ", ".join(labels),
    )


def business_rule(detail: str) -> ToolError:
    """403 from a business rule that aborted the action (invalid transition, terminal record)."""
    return denied("Operation Failed", detail)


def bad_request(message: str, detail: str | None = None) -> ToolError:
    """400 for a malformed request (unknown field, invalid choice, broken reference)."""
    return ToolError(ErrorKind.INVALID_ARGUMENT, message, detail)
