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


class _TextSlots:
    """The observations of an ``AsyncVectorEnv`` for an :class:`AnyText` field: one string per env.

    Gymnasium's shared memory for ``Text`` is a fixed array of ``max_length`` characters per env,
    read once at start (16 M characters per env here, and stale after). Text of any length lives
    instead in a dict served by a multiprocessing manager that the workers write and the main
    process reads; a deep copy (what ``AsyncVectorEnv`` returns by default) is a tuple of the
    current strings, as the synchronous vector env gives.
    """

    def __init__(self, store: Any, n: int) -> None:
        self.store, self.n = store, n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> str:
        return self.store.get(index, "")

    def __iter__(self) -> Any:
        return iter(self.snapshot())

    def snapshot(self) -> tuple[str, ...]:
        """The current strings, in env order."""
        values = dict(self.store)
        return tuple(values.get(index, "") for index in range(self.n))

    def __deepcopy__(self, memo: dict) -> tuple[str, ...]:
        return self.snapshot()


def _register_vector_memory() -> None:
    """Teach Gymnasium's vector shared memory to hold :class:`AnyText` (so ``AsyncVectorEnv`` works as is)."""
    from gymnasium.vector.utils import shared_memory

    managers: list[Any] = []  # kept alive as long as the process: the vector env holds only proxies

    @shared_memory.create_shared_memory.register(AnyText)
    def _create(space: AnyText, n: int = 1, ctx: Any = None) -> Any:
        import multiprocessing

        manager = (ctx or multiprocessing).Manager()
        managers.append(manager)
        return manager.dict()

    @shared_memory.read_from_shared_memory.register(AnyText)
    def _read(space: AnyText, store: Any, n: int = 1) -> _TextSlots:
        return _TextSlots(store, n)

    @shared_memory.write_to_shared_memory.register(AnyText)
    def _write(space: AnyText, index: int, value: str, store: Any) -> None:
        store[index] = value


_register_vector_memory()
