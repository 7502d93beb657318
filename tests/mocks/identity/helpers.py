"""Shared by the identity tests: who acts, rows by status, the captures.

The helpers of every system's tests (live backends, calls, snapshots) are ``tests/mocks/helpers.py``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import enterprise_envs.mocks.identity as identity_package
from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks.identity import IDENTITY, identity_of
from tests.mocks.helpers import as_named as as_login
from tests.mocks.helpers import as_setup, changed, fresh, rest, typed

__all__ = [
    "OBSERVED",
    "ORDINARY",
    "SPEC",
    "Exchange",
    "admin_user",
    "as_login",
    "as_setup",
    "as_user_row",
    "captured_exchanges",
    "changed",
    "events",
    "fresh",
    "group_named",
    "ordinary_user",
    "rest",
    "typed",
    "user_where",
    "with_wait_surface",
]

#: The identity package's sources, where the package is (a checkout or an install).
SPEC = Path(identity_package.__file__).parent / "spec"
OBSERVED = SPEC / "observed"


def with_wait_surface(system: System = IDENTITY) -> System:
    """The identity system with a ``typed`` surface holding only ``wait``.

    For tests of worlds, people and identities, which do not depend on the surfaces (a World
    makes a backend per system on one surface name).
    """
    return dataclasses.replace(system, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})


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


def as_user_row(backend: Backend, row: dict[str, str]) -> Identity:
    """The identity a user row acts as."""
    return identity_of(backend.store, row)


def events(backend: Backend) -> list[dict[str, str]]:
    """The System Log events the episode wrote, in order."""
    return [row for table, _, row in changed(backend) if table == "log_event" and row is not None]
