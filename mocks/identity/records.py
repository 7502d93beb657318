"""The identity system's record engine: the generic engine with Okta's errors and audit fields.

Every read and write of an identity row goes through :data:`ENGINE`, an instance of
:class:`~enterprise_envs.mocks._core.records.RecordEngine` with Okta's hooks:

- keys from :func:`~enterprise_envs.mocks.identity.conventions.new_id`, per table (``00u`` users,
  ``00g`` groups, a System Log event's uuid, ...);
- audit fields ``created`` (set once) and ``lastUpdated`` (every write), on the tables that have
  them; Okta keeps no "created by" or revision count;
- errors in Okta's envelope: 400 E0000001 ``Api validation failed: ...``, 404 E0000007
  ``Not found: Resource not found: ...``.

No journal: Okta has none (the System Log is written by the services, :mod:`.services.events`).
"""

from __future__ import annotations

from collections.abc import Iterable

from enterprise_envs.mocks._core.errors import ErrorKind
from enterprise_envs.mocks._core.records import AuditFields, RecordEngine
from enterprise_envs.mocks.identity.conventions import IDENTITY_CONVENTIONS
from enterprise_envs.mocks.identity.errors import OktaError, okta_error

__all__ = ["ENGINE", "OktaRecordErrors"]


class OktaRecordErrors:
    """The errors the generic engine raises, in Okta's words."""

    @staticmethod
    def bad_request(message: str, detail: str | None = None) -> OktaError:
        """400 E0000001: a value the validation refuses (the engine's message and detail as cause)."""
        cause = f"{message}: {detail}" if detail else message
        return okta_error(
            ErrorKind.INVALID_ARGUMENT, "E0000001", f"Api validation failed: {message}", (cause,)
        )

    @staticmethod
    def read_only_fields(labels: Iterable[str]) -> OktaError:
        """400 E0000001 naming the read-only properties a client tried to set."""
        names = ", ".join(labels)
        return okta_error(
            ErrorKind.INVALID_ARGUMENT,
            "E0000001",
            f"Api validation failed: {names}",
            (f"{names}: read-only, set by Okta",),
        )

    @staticmethod
    def record_not_found(what: str = "") -> OktaError:
        """404 E0000007 (``what`` names the object, when known)."""
        summary = f"Not found: Resource not found: {what}" if what else "Not found: Resource not found"
        return okta_error(ErrorKind.NOT_FOUND, "E0000007", summary)


#: The identity system's record engine.
ENGINE = RecordEngine(
    conventions=IDENTITY_CONVENTIONS,
    errors=OktaRecordErrors(),
    audit=AuditFields(created_on="created", updated_on="lastUpdated"),
    # People sharing a name are told apart by their e-mail address.
    describe_fields=("email", "login"),
)
