"""Transcript checks: did the agent tell the user a value?

Matching is deterministic and token-based: text is Unicode-normalized (NFKC), lowercased and
split into runs of letters and digits; a value matches when its tokens appear contiguously in
one message. So "INC0010041" matches "your ticket is inc0010041.", and "10" does not match "100".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


def tokens(text: str) -> list[str]:
    """Normalized tokens of a text."""
    return _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())


def mentions(messages: Iterable[str], value: str) -> bool:
    """True if any message contains the value's tokens contiguously (and the value has tokens)."""
    wanted = tokens(value)
    if not wanted:
        return False
    size = len(wanted)
    for message in messages:
        have = tokens(message)
        for start in range(len(have) - size + 1):
            if have[start : start + size] == wanted:
                return True
    return False
