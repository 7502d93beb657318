"""Simulated clock: the world's time, advanced deterministically by calls, never by the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from enterprise_envs.mocks._core.conventions import Formats

#: The neutral date-time text format (ISO 8601, UTC), for a clock no system configured.
DEFAULT_DATETIME_FORMAT = Formats.datetime


class SimClock:
    """A clock that moves only when told to.

    Args:
        epoch: The world's "now" at reset, timezone-aware UTC.
        seconds_per_call: How far each tool call moves time; fixed so that episodes replay
            identically.
        datetime_format: How the system writes a date-time (``strftime``, UTC): its
            ``conventions.formats.datetime``.
    """

    __slots__ = ("_now", "datetime_format", "seconds_per_call")

    def __init__(
        self, epoch: datetime, seconds_per_call: int = 5, *, datetime_format: str = DEFAULT_DATETIME_FORMAT
    ) -> None:
        self._now = epoch
        self.seconds_per_call = seconds_per_call
        self.datetime_format = datetime_format

    def now(self) -> datetime:
        """Current simulated time."""
        return self._now

    def now_text(self) -> str:
        """Current simulated time in the system's date-time format."""
        return self._now.strftime(self.datetime_format)

    def timestamp(self) -> int:
        """Current simulated time as UNIX seconds (for X-RateLimit-Reset)."""
        return int(self._now.timestamp())

    def advance(self, seconds: float) -> None:
        """Move time forward; negative values are ignored (time never runs back)."""
        if seconds > 0:
            self._now += timedelta(seconds=seconds)

    def tick(self) -> None:
        """Advance by one call's worth of time."""
        self._now += timedelta(seconds=self.seconds_per_call)

    def reset(self, epoch: datetime) -> None:
        """Set the clock back to a world's epoch."""
        self._now = epoch

    def parse(self, text: str) -> datetime:
        """A date-time written in this clock's format, as UTC."""
        return parse_datetime(text, self.datetime_format)


def parse_datetime(text: str, datetime_format: str) -> datetime:
    """Parse a date-time string written in ``datetime_format`` as UTC."""
    return datetime.strptime(text, datetime_format).replace(tzinfo=UTC)
