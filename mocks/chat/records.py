"""The chat system's record engine: the generic engine with Slack's errors and times.

Every read and write of a chat row goes through :data:`ENGINE`, an instance of
:class:`~enterprise_envs.mocks._core.records.RecordEngine` with Slack's hooks:

- keys from :func:`~enterprise_envs.mocks.chat.conventions.new_id`, per table (``U`` users,
  ``C`` channels, ``S`` user groups, internal keys for the rest);
- times as UNIX seconds: ``created``/``date_create`` set once, ``updated``/``date_update`` on
  every write, on the tables that have them (:class:`SlackTimes`); Slack keeps no revision count;
- errors in Slack's envelope: ``invalid_arguments`` with the reason, ``not_found``.
"""

from __future__ import annotations

from collections.abc import Iterable

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.records import RecordEngine
from enterprise_envs.mocks._core.schema import TableSpec
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.chat.conventions import CHAT_CONVENTIONS
from enterprise_envs.mocks.chat.errors import SlackError, invalid_arguments, not_found

__all__ = ["ENGINE", "SlackRecordErrors", "SlackTimes"]


class SlackRecordErrors:
    """The errors the generic engine raises, in Slack's words."""

    @staticmethod
    def bad_request(message: str, detail: str | None = None) -> SlackError:
        """``invalid_arguments`` with the engine's message and detail as the reason."""
        return invalid_arguments(f"{message}: {detail}" if detail else message)

    @staticmethod
    def read_only_fields(labels: Iterable[str]) -> SlackError:
        """``invalid_arguments`` naming the fields Slack sets itself."""
        return invalid_arguments(f"{', '.join(labels)}: set by Slack, not by a client")

    @staticmethod
    def record_not_found(what: str = "") -> SlackError:
        """``not_found`` (``what`` names the object, when known)."""
        return not_found("not_found", what or None)


class SlackTimes:
    """Stamps Slack's times, UNIX seconds of the simulated clock, on every write."""

    #: (field set when a row is made, field set on every write), per naming of the tables.
    _FIELDS = (("created", "updated"), ("date_create", "date_update"))

    def stamp(self, ctx: CallContext, spec: TableSpec, row: Row, created: bool) -> None:
        """Stamp ``row`` (mutated) as written now; ``created`` for a new row."""
        now = str(ctx.clock.timestamp())
        for made, changed in self._FIELDS:
            if changed in spec:
                row[changed] = now
            if created and made in spec:
                row[made] = now


#: The chat system's record engine.
ENGINE = RecordEngine(
    conventions=CHAT_CONVENTIONS,
    errors=SlackRecordErrors(),
    audit=SlackTimes(),
    # People sharing a name are told apart by their e-mail address.
    describe_fields=("email", "name"),
)
