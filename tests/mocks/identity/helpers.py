"""Shared by the identity tests: live backends and who acts, rows by status, snapshots, the captures."""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import enterprise_envs.mocks.identity as identity_package
from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.snapshot import WorldSnapshot
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks.identity import IDENTITY, identity_of

#: The identity package's sources, where the package is (a checkout or an install).
SPEC = Path(identity_package.__file__).parent / "spec"
OBSERVED = SPEC / "observed"


def with_wait_surface(system: System = IDENTITY) -> System:
    """The identity system with a ``typed`` surface holding only ``wait``.

    For tests of worlds, people and identities, which do not depend on the surfaces (a World
    makes a backend per system on one surface name).
    """
    return dataclasses.replace(system, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})


def open_snapshot(snapshot: WorldSnapshot) -> sqlite3.Connection:
    """A built world as a connection of its own, rows readable by column name."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(snapshot.data)
    conn.row_factory = sqlite3.Row
    return conn


@dataclass(frozen=True)
class Exchange:
    """One captured request and its response (body parsed when it is JSON)."""

    method: str
    uri: str
    status: int
    body: Any


@cache
def captured_exchanges() -> tuple[Exchange, ...]:
    """Every request and response of the shipped cassettes (``spec/observed/``), in file order."""
    yaml = pytest.importorskip("yaml")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    found = []
    for path in sorted(OBSERVED.rglob("*.yaml")):
        for interaction in yaml.load(path.read_text(encoding="utf-8"), Loader=loader)["interactions"]:
            text = interaction["response"]["body"]["string"]
            try:
                body = json.loads(text) if text else None
            except json.JSONDecodeError:
                body = None
            request = interaction["request"]
            found.append(
                Exchange(request["method"], request["uri"], interaction["response"]["status"]["code"], body)
            )
    return tuple(found)


#: An ordinary employee: no admin role, directly or through a group.
ORDINARY = """userType = 'Employee'
    AND id NOT IN (SELECT "userId" FROM role_assignment WHERE "userId" != '')
    AND id NOT IN (
        SELECT m."userId" FROM group_member m JOIN role_assignment r ON r."groupId" = m."groupId"
    )"""


def fresh(backend: Backend, episode_seed: int = 0) -> Backend:
    """The backend reset to its world, the change log cleared (a test's starting point)."""
    backend.reset(episode_seed=episode_seed)
    backend.mark_start()
    return backend


def user_where(backend: Backend, where: str, params: tuple = ()) -> dict[str, str]:
    """The first user (in id order) matching ``where``."""
    rows = backend.store.select("user", where, params, limit=1)
    assert rows, f"no user matches {where}"
    return rows[0]


def ordinary_user(backend: Backend, status: str = "ACTIVE", extra: str = "1") -> dict[str, str]:
    """An employee without an admin role, of ``status``."""
    return user_where(backend, f"status = ? AND {ORDINARY} AND {extra}", (status,))


def admin_user(backend: Backend, extra: str = "1") -> dict[str, str]:
    """An ACTIVE person holding an admin role (directly or through a group), not the agent."""
    rows = backend.store.select(
        "user", f"status = 'ACTIVE' AND userType = 'Employee' AND NOT ({ORDINARY}) AND {extra}"
    )
    assert rows, "no employee holds an admin role"
    return rows[0]


def group_named(backend: Backend, name: str) -> dict[str, str]:
    """The group with this name."""
    found = backend.store.find_one("group", "name", name)
    assert found is not None, name
    return found


def as_login(backend: Backend, login: str) -> Identity:
    """The identity of the user with this login (or short name)."""
    identity = IDENTITY.user_identity(backend.store, login)
    assert identity is not None, login
    return identity


def as_setup(backend: Backend) -> Identity:
    """The super administrator scenario setup acts as."""
    return as_login(backend, IDENTITY.setup_user)


def as_user_row(backend: Backend, row: dict[str, str]) -> Identity:
    """The identity a user row acts as."""
    return identity_of(backend.store, row)


def rest(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``rest`` surface (as the agent unless ``identity``)."""
    return backend.call(tool, arguments, surface="rest", identity=identity)


def typed(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``typed`` surface (as the agent unless ``identity``)."""
    return backend.call(tool, arguments, surface="typed", identity=identity)


def changed(backend: Backend) -> list[tuple[str, str, dict[str, str] | None]]:
    """The rows the episode changed so far, in write order: (table, key, the row now, None if deleted)."""
    return [(table, key, backend.store.get(table, key)) for table, key, _ in backend.store.changed_keys()]


def events(backend: Backend) -> list[dict[str, str]]:
    """The System Log events the episode wrote, in order."""
    return [row for table, _, row in changed(backend) if table == "log_event" and row is not None]
