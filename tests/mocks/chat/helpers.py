"""Shared by the chat tests: live backends and who acts, calls on each surface, snapshots."""

from __future__ import annotations

from typing import Any

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks.chat import CHAT, identity_of


def fresh(backend: Backend, episode_seed: int = 0) -> Backend:
    """The backend reset to its world, the change log cleared (a test's starting point)."""
    backend.reset(episode_seed=episode_seed)
    backend.mark_start()
    return backend


def as_handle(backend: Backend, handle: str) -> Identity:
    """The identity of the member with this handle, e-mail address or id."""
    identity = CHAT.user_identity(backend.store, handle)
    assert identity is not None, handle
    return identity


def as_setup(backend: Backend) -> Identity:
    """The workspace owner scenario setup acts as."""
    return as_handle(backend, CHAT.setup_user)


def as_user_row(backend: Backend, row: dict[str, str]) -> Identity:
    """The identity a user row acts as."""
    return identity_of(backend.store, row)


def rest(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``rest`` surface (as the IT bot unless ``identity``)."""
    return backend.call(tool, arguments, surface="rest", identity=identity)


def typed(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``typed`` surface (as the IT bot unless ``identity``)."""
    return backend.call(tool, arguments, surface="typed", identity=identity)


def changed(backend: Backend) -> list[tuple[str, str, dict[str, str] | None]]:
    """The rows the episode changed so far, in write order: (table, key, the row now, None if deleted)."""
    return [(table, key, backend.store.get(table, key)) for table, key, _ in backend.store.changed_keys()]


def dump(backend: Backend) -> bytes:
    """The whole database as bytes (this episode's writes included), for before/after comparisons."""
    return backend.serialize()
