"""Shared by the tests of every mocked system: live backends and who acts, calls, built worlds, scripts.

A system's own ``helpers.py`` adds what only it has (its rows by status, its captures) and
re-exports these.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.snapshot import WorldSnapshot

#: The checkout's root (where ``python -c`` runs in another process).
ROOT = Path(__file__).resolve().parents[2]


def fresh(backend: Backend, episode_seed: int = 0) -> Backend:
    """The backend reset to its world, the change log cleared (a test's starting point)."""
    backend.reset(episode_seed=episode_seed)
    backend.mark_start()
    return backend


def as_named(backend: Backend, name: str) -> Identity:
    """The identity of the world's user with this login name (handle, e-mail address or id)."""
    identity = backend.system.user_identity(backend.store, name)
    assert identity is not None, name
    return identity


def as_setup(backend: Backend) -> Identity:
    """The user scenario setup acts as (the system's ``setup_user``)."""
    return as_named(backend, backend.system.setup_user)


def rest(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``rest`` surface (as the agent unless ``identity``)."""
    return backend.call(tool, arguments, surface="rest", identity=identity)


def typed(backend: Backend, tool: str, identity: Identity | None = None, **arguments: Any) -> CallResult:
    """A call on the ``typed`` surface (as the agent unless ``identity``)."""
    return backend.call(tool, arguments, surface="typed", identity=identity)


def changed(backend: Backend) -> list[tuple[str, str, dict[str, str] | None]]:
    """The rows the episode changed so far, in write order: (table, key, the row now, None if deleted)."""
    return [(table, key, backend.store.get(table, key)) for table, key, _ in backend.store.changed_keys()]


def dump(backend: Backend) -> bytes:
    """The whole database as bytes (this episode's writes included), for before/after comparisons."""
    return backend.serialize()


def open_snapshot(snapshot: WorldSnapshot) -> sqlite3.Connection:
    """A built world as a connection of its own, rows readable by column name."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(snapshot.data)
    conn.row_factory = sqlite3.Row
    return conn


def digest(snapshot: WorldSnapshot) -> str:
    """The SHA-256 of a built world's bytes, in hex."""
    return hashlib.sha256(snapshot.data).hexdigest()


def digest_in_another_process(
    package: str, system: str, size: str, seed: int, hash_seed: str | None = None
) -> str:
    """:func:`digest` of the world another Python process builds (``PYTHONHASHSEED`` set if given).

    Args:
        package: The system's package (``enterprise_envs.mocks.chat``).
        system: The :class:`~enterprise_envs.mocks._core.system.System` it exports (``CHAT``).
        size: The world's size.
        seed: The world's seed.
        hash_seed: ``PYTHONHASHSEED`` of the other process (None: this one's environment).
    """
    script = (
        "import hashlib, sys\n"
        "from enterprise_envs.mocks._core.snapshot import build_snapshot\n"
        f"from {package} import {system}\n"
        f"sys.stdout.write(hashlib.sha256(build_snapshot({system}, {size!r}, {seed}).data).hexdigest())\n"
    )
    env = dict(os.environ) if hash_seed is None else {**os.environ, "PYTHONHASHSEED": hash_seed}
    command = [sys.executable, "-c", script]
    return subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, check=True, timeout=120
    ).stdout


def load_script(path: Path, name: str) -> ModuleType:
    """A script that is not part of a package (``spec/derive.py``), loaded as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
