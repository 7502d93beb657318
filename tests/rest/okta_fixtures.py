"""Okta helpers: the identity mock served as Okta's Management API, and Okta's own SDK pointed at it.

The SDK (``okta`` 3.x) is async (aiohttp) and refuses an ``http://`` org URL unless its testing
switch is on; a Client reads that switch from the environment (or an ``okta.yaml``) when it is
made, not from the dict it is given, so tests set :data:`HTTPS_CHECK_OFF` first (the lead serves
TLS separately).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from okta.client import Client as OktaClient

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks.identity.access import roles_of
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKENS

#: The environment variable that lets the SDK talk to an ``http://`` org URL.
HTTPS_CHECK_OFF = "OKTA_TESTING_TESTINGDISABLEHTTPSCHECK"

T = TypeVar("T")


@contextmanager
def serve_identity(tokens: dict[str, str] | None = None) -> Iterator[RestServer]:
    """Tiny identity worlds served as Okta's API (tokens alice and bob by default); stopped at the end."""
    with RestServer(
        "identity", tokens=tokens or TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))
    ) as server:
        yield server
    server.hub.close()


@contextmanager
def acting_as_super_admin(backend: Backend) -> Iterator[Identity]:
    """Calls to a served world act as its super administrator (the setup account) inside the block.

    A served token acts as the org's help-desk administrator; a test of what only a super
    administrator may do (create users) sets the world's identity, as the conformance replay over
    HTTP does, and gives it back to the agent afterwards.
    """
    system = backend.system
    with backend.lock:
        admin = system.user_identity(backend.store, system.setup_user)
        assert admin is not None, "the identity world has no setup administrator"
        backend.identity = admin
    try:
        yield admin
    finally:
        with backend.lock:
            backend.identity = system.agent_identity(backend.store)


def okta_client(org_url: str, token: str = TOKEN_A, **config: Any) -> OktaClient:
    """Okta's own SDK client on ``org_url`` (its ``orgUrl``), every request bounded by TIMEOUT.

    Args:
        org_url: The served API's base URL (``RestServer.api_url`` or an env's ``api_url``).
        token: A served token (the SDK sends it as ``SSWS``).
        **config: More of the SDK's client config (``rateLimit``, ``authorizationMode``, ...).
    """
    return OktaClient({"orgUrl": org_url, "token": token, "requestTimeout": int(TIMEOUT), **config})


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run one of the SDK's coroutines to the end, bounded by TIMEOUT."""
    return asyncio.run(asyncio.wait_for(coroutine, TIMEOUT))


def plain_users(store: Store, status: str) -> list[dict[str, str]]:
    """Users of a status who hold no admin role: the help-desk administrator may act on them."""
    rows = store.select("user", "status = ?", (status,), order_by="id")
    return [row for row in rows if not roles_of(store, row["id"])]


def plain_groups(store: Store) -> list[dict[str, str]]:
    """``OKTA_GROUP``s that hold no admin role: the help desk may change their members."""
    roles = {row["groupId"] for row in store.select("role_assignment", "\"groupId\" != ''")}
    rows = store.select("group", "type = 'OKTA_GROUP'", order_by="id")
    return [row for row in rows if row["id"] not in roles]
