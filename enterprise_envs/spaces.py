"""Gymnasium spaces for text: observations and actions are arbitrary Unicode strings."""

from __future__ import annotations

from typing import Any

from gymnasium import spaces

#: Long enough for any tool result; the real limit is memory.
MAX_TEXT = 1 << 24
#: Longest ``name`` (a tool name is at most 128 characters; see ``actions.TOOL_NAME``).
MAX_NAME = 256
#: Samples stay short: they exist for checkers and random agents, not realism.
SAMPLE_LENGTH = 64


class AnyText(spaces.Text):
    """A Text space that accepts any Unicode string (the stock one accepts only its charset).

    Sampling still draws from a small charset with a short length, so ``check_env`` and random
    agents work.
    """

    def __init__(self, max_length: int = MAX_TEXT, *, min_length: int = 0, seed: Any = None) -> None:
        super().__init__(max_length, min_length=min_length, seed=seed)

    def contains(self, x: Any) -> bool:
        """Any string within the length bounds."""
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """A short random string (length at most SAMPLE_LENGTH)."""
        if mask is None and probability is None:
            length = int(self.np_random.integers(max(self.min_length, 1), SAMPLE_LENGTH + 1))
            mask = (length, None)
        return super().sample(mask=mask, probability=probability)

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyText) and (self.min_length, self.max_length) == (
            other.min_length,
            other.max_length,
        )


def observation_space() -> spaces.Dict:
    """``{"role": "user" | "tool" | "error", "name": str, "content": str}``."""
    return spaces.Dict({"role": AnyText(16, min_length=1), "name": AnyText(MAX_NAME), "content": AnyText()})


def action_space() -> AnyText:
    """A JSON string (a dict is accepted by step() too; see the env docstring)."""
    return AnyText()
