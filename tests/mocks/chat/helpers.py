"""Shared by the chat tests: who acts (the helpers of every system's tests are ``tests/mocks/helpers.py``)."""

from __future__ import annotations

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.chat import identity_of
from tests.mocks.helpers import as_named as as_handle
from tests.mocks.helpers import as_setup, changed, dump, fresh, rest, typed

__all__ = ["as_handle", "as_setup", "as_user_row", "changed", "dump", "fresh", "rest", "typed"]


def as_user_row(backend: Backend, row: dict[str, str]) -> Identity:
    """The identity a user row acts as."""
    return identity_of(backend.store, row)
