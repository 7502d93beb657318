"""REST test helpers: raw HTTP requests (for what Slack's SDK never sends) and world access."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from enterprise_envs.mcp.hub import DEFAULT_ID, World
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TIMEOUT


def request(
    url: str, *, method: str = "POST", body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    """One raw HTTP request: (status, headers by lower-case name, decoded JSON body or None)."""
    sent = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(sent, timeout=TIMEOUT) as response:
            status, found, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, found, raw = error.code, dict(error.headers), error.read()
    return status, {name.lower(): value for name, value in found.items()}, json.loads(raw) if raw else None


def world_of(server: RestServer, owner: str, env_id: str = DEFAULT_ID) -> Backend:
    """The backend of an owner's world on a running server (its default one, made if need be)."""
    entry = server.hub.resolve(owner, env_id, system=server.system, kind="world")
    assert isinstance(entry, World), f"{owner} has no world {env_id!r}"
    return entry.backend


def changed_state(backend: Backend) -> list[tuple[str, str, dict[str, str] | None]]:
    """Every row the episode changed, as it is now (None: deleted), in write order."""
    store = backend.store
    return [(table, key, store.get(table, key)) for table, key, _ in store.changed_rows()]
