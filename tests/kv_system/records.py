"""Keyval's instance of the generic record engine: its errors and audit fields, no journal."""

from __future__ import annotations

from collections.abc import Iterable

from enterprise_envs.mocks._core.errors import ErrorKind, ToolError, invalid
from enterprise_envs.mocks._core.records import AuditFields, RecordEngine
from tests.kv_system import CONVENTIONS


class KeyvalErrors:
    """Keyval's messages (the envelope is ``render_error``'s)."""

    @staticmethod
    def bad_request(message: str, detail: str | None = None) -> ToolError:
        """A 400."""
        return invalid(message, detail)

    @staticmethod
    def read_only_fields(labels: Iterable[str]) -> ToolError:
        """A 400 naming fields only Keyval sets."""
        return invalid("Read-only fields", ", ".join(labels))

    @staticmethod
    def record_not_found(what: str = "") -> ToolError:
        """A 404."""
        return ToolError(ErrorKind.NOT_FOUND, "Not found", what or None)


ENGINE = RecordEngine(
    conventions=CONVENTIONS,
    errors=KeyvalErrors(),
    audit=AuditFields(created_on="created_at", updated_on="updated_at"),
)
