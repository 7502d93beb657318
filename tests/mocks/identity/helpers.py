"""Shared by the identity tests: the system with a stand-in surface, snapshots, the captured exchanges."""

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
from enterprise_envs.mocks._core.snapshot import WorldSnapshot
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks.identity import IDENTITY

#: The identity package's sources, where the package is (a checkout or an install).
SPEC = Path(identity_package.__file__).parent / "spec"
OBSERVED = SPEC / "observed"


def with_wait_surface(system: System = IDENTITY) -> System:
    """The identity system with a ``typed`` surface holding only ``wait``.

    A World makes a backend per system on one surface name, and the identity surfaces are not
    built yet; the worlds, people and identities under test do not depend on them.
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
