"""Okta's rate-limit headers on every ``rest`` response: ``X-Rate-Limit-Limit/-Remaining/-Reset``.

Okta limits each endpoint family per minute and says where a caller stands in three headers on
every response (captured on all of them): the bucket's limit, the calls left in it, and when it
resets (UNIX seconds). The mock reports:

- when the episode's fault injector enforces a rate limit (a scenario's ``[faults]``), that
  limit: the injector's own window and count, so the headers count down to the 429 it answers
  (``mocks/_core/faults.py``; the 429 itself gets Okta's headers in ``errors.render_error``);
- otherwise Okta's own bucket for the endpoint (:data:`BUCKET_LIMITS`, the limits captured from a
  production org in ``spec/observed/``), counted over the episode's calls on the simulated clock,
  per minute. It is reported, never enforced.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = ["BUCKET_LIMITS", "WINDOW_SECONDS", "rate_headers"]

#: Okta's per-minute limit of each endpoint family, as the 2020 captures report them (users 600,
#: a user by id 2000, groups 500, a group by id 1000, apps 100). The System Log's is not captured:
#: 120, Okta's published figure for ``/api/v1/logs``.
BUCKET_LIMITS: dict[str, int] = {
    "users": 600,
    "user": 2000,
    "groups": 500,
    "group": 1000,
    "apps": 100,
    "logs": 120,
}
WINDOW_SECONDS = 60


@dataclass
class _Counts:
    """One backend's calls per bucket in the current minute, for its current fault injector."""

    injector: Any
    buckets: dict[str, tuple[int, int]] = field(default_factory=dict)


_COUNTS: weakref.WeakKeyDictionary[Any, _Counts] = weakref.WeakKeyDictionary()


def rate_headers(ctx: CallContext, bucket: str) -> dict[str, str]:
    """The ``X-Rate-Limit-*`` headers of a call to an endpoint of ``bucket`` (counting this call)."""
    now = ctx.clock.timestamp()
    faults = ctx.faults
    enforced = faults.config.rate_limit
    if enforced is not None:
        # The injector counted this call already (it runs before the handler).
        used = int(getattr(faults, "_window_calls", 0))
        reset = (now // enforced.window_seconds + 1) * enforced.window_seconds
        return _headers(enforced.calls, enforced.calls - used, reset)
    counts = _COUNTS.get(ctx.backend)
    if counts is None or counts.injector is not faults:
        counts = _COUNTS[ctx.backend] = _Counts(faults)
    window = now // WINDOW_SECONDS
    seen_window, used = counts.buckets.get(bucket, (window, 0))
    used = (used if seen_window == window else 0) + 1
    counts.buckets[bucket] = (window, used)
    limit = BUCKET_LIMITS[bucket]
    return _headers(limit, limit - used, (window + 1) * WINDOW_SECONDS)


def _headers(limit: int, remaining: int, reset: int) -> dict[str, str]:
    return {
        "X-Rate-Limit-Limit": str(limit),
        "X-Rate-Limit-Remaining": str(max(0, remaining)),
        "X-Rate-Limit-Reset": str(reset),
    }
