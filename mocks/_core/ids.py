"""Deterministic identifiers: sys_ids from a seeded RNG, never uuid4, wall time or hash()."""

from __future__ import annotations

import random


def seeded_rng(*parts: object) -> random.Random:
    """A ``random.Random`` seeded from a string, so seeds are stable across processes.

    ``random.Random(str)`` hashes the string with SHA-512 (not the salted ``hash()``), so the
    same parts give the same stream whatever ``PYTHONHASHSEED`` is.
    """
    return random.Random(":".join(str(part) for part in parts))


class IdFactory:
    """Makes 32-hex-digit sys_ids from a seeded stream.

    Args:
        rng: The stream to draw from; the world builder and each episode pass their own.
    """

    __slots__ = ("_rng",)

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def sys_id(self) -> str:
        """A new 32-character lowercase hex id."""
        return f"{self._rng.getrandbits(128):032x}"


def format_number(prefix: str, value: int, digits: int = 7) -> str:
    """Format a record number the vendor's way: prefix plus zero-padded digits (INC0010001)."""
    return f"{prefix}{value:0{digits}d}"
