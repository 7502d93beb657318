"""Small helpers for ITSM tests: identities and row lookups on a live backend."""

from __future__ import annotations

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.itsm import identity_of


def user_where(backend: Backend, where: str, params: tuple = ()) -> dict[str, str]:
    rows = backend.store.select("sys_user", where, params, limit=1)
    assert rows, f"no user matches {where}"
    return rows[0]


def as_user(backend: Backend, user_name: str) -> Identity:
    return identity_of(user_where(backend, "user_name = ?", (user_name,)))


def requester(backend: Backend) -> Identity:
    """An ordinary employee (no roles) who is the caller of at least one active incident."""
    row = backend.store.select(
        "sys_user",
        "roles = '' AND active = 'true' AND sys_id IN (SELECT caller_id FROM incident WHERE active = 'true')",
        limit=1,
    )[0]
    return identity_of(row)


def incident_in_state(backend: Backend, state: str, extra: str = "1") -> dict[str, str]:
    rows = backend.store.select("incident", f"state = ? AND {extra}", (state,), limit=1)
    assert rows, f"tiny world has no incident in state {state} with {extra}"
    return rows[0]


def table_bytes(backend: Backend) -> bytes:
    return backend.serialize()
