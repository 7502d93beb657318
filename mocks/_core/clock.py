"""Simulated clock: the world's time, advanced deterministically by calls, never by the wall clock."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

#: The text format ServiceNow-like systems store and return date-times in (UTC).
DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"


class SimClock:
    """A clock that moves only when told to.

    Args:
        epoch: The world's "now" at reset, timezone-aware UTC.
        seconds_per_call: How far each tool call moves time; fixed so that episodes replay
            identically.
    """

    __slots__ = ("_now", "seconds_per_call")

    def __init__(self, epoch: datetime, seconds_per_call: int = 5) -> None:
        self._now = epoch
        self.seconds_per_call = seconds_per_call

    def now(self) -> datetime:
        """Current simulated time."""
        return self._now

    def now_text(self) -> str:
        """Current simulated time in the stored date-time format."""
        return self._now.strftime(DATETIME_FORMAT)

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


def parse_datetime(text: str) -> datetime:
    """Parse a stored date-time string as UTC."""
    return datetime.strptime(text, DATETIME_FORMAT).replace(tzinfo=UTC)
