"""Deterministic identifiers: record keys from a seeded RNG, never uuid4, wall time or hash()."""

from __future__ import annotations

import random
from collections.abc import Callable


def seeded_rng(*parts: object) -> random.Random:
    """A ``random.Random`` seeded from a string, so seeds are stable across processes.

    ``random.Random(str)`` hashes the string with SHA-512 (not the salted ``hash()``), so the
    same parts give the same stream whatever ``PYTHONHASHSEED`` is.
    """
    return random.Random(":".join(str(part) for part in parts))


def hex_id(rng: random.Random, table: str = "") -> str:
    """A 32-character lowercase hex id from 128 random bits (the default record key).

    Args:
        rng: The stream to draw from.
        table: The table the key is for; every table's keys have this one shape, so it is unused.
    """
    return f"{rng.getrandbits(128):032x}"


#: A system's key maker: ``(stream, table) -> key``; ``table`` is ``""`` when the caller names none.
NewId = Callable[[random.Random, str], str]


class IdFactory:
    """Makes record keys from a seeded stream, in the shape the system declares.

    Args:
        rng: The stream to draw from; the world builder and each episode pass their own.
        new_id: Draws one key from the stream for a table (``Conventions.new_id``; default
            :func:`hex_id`). A system whose keys differ by table (Okta's ``00u`` users, ``00g``
            groups) reads the table; one with a single key shape ignores it.
    """

    __slots__ = ("_new_id", "_rng", "_saved", "_watching")

    def __init__(self, rng: random.Random, new_id: NewId = hex_id) -> None:
        self._rng = rng
        self._new_id = new_id
        self._watching = False
        self._saved: object = None

    def new(self, table: str = "") -> str:
        """A new record key for a row of ``table`` (``""``: the caller names no table)."""
        if self._watching and self._saved is None:
            # The stream as it was before the call's first key: what a failed call returns to.
            self._saved = self._rng.getstate()
        return self._new_id(self._rng, table)

    def watch(self) -> None:
        """Start one call: remember the stream's state when it first draws a key."""
        self._watching, self._saved = True, None

    def settle(self, failed: bool) -> None:
        """End the call; a failed one gives back the keys it drew.

        A failed call changes nothing, the key stream included: otherwise every key after a
        refused write would differ from the same episode without it.
        """
        if failed and self._saved is not None:
            self._rng.setstate(self._saved)  # type: ignore[arg-type]
        self._watching, self._saved = False, None
