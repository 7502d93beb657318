"""The REST transport itself: TLS, an in-process ASGI transport, several APIs on one server, wait.

The vendors' clients are tested in their own files; here the serving layer's own promises.
"""

from __future__ import annotations

import asyncio
import ssl
import urllib.error
import urllib.request
from pathlib import Path

import httpx2
import pytest

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.rest import RestServer, create_rest_app, served_apis
from enterprise_envs.rest.client import RestClient
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKENS, control
from tests.rest.helpers import world_of


def test_tls_serves_https_that_a_client_trusts_only_with_the_certificate() -> None:
    with RestServer(
        "chat", tokens=TOKENS, tls=True, hub=Hub(world_defaults=WorldDefaults(size="tiny"))
    ) as server:
        assert server.base_url.startswith("https://127.0.0.1:")
        with RestClient(server.base_url, server.apis, TOKEN_A, certificate=server.certificate) as client:
            assert client.call("auth_test", {}).body["user"] == "it-bot"
        with pytest.raises(urllib.error.URLError) as refused:  # the system's trust store does not know it
            urllib.request.urlopen(f"{server.base_url}/control/health", timeout=TIMEOUT)
        assert isinstance(refused.value.reason, ssl.SSLCertVerificationError)
        certificate = Path(server.certificate)
        assert certificate.exists() and (certificate.parent / "key.pem").stat().st_mode & 0o077 == 0
    assert not certificate.parent.exists()  # the key and certificate are gone with the server
    server.hub.close()


def test_an_asgi_client_reaches_the_api_in_process_without_a_socket() -> None:
    # For tests where the client allows it (httpx's ASGI transport): the same app, no network.
    hub = Hub(world_defaults=WorldDefaults(size="tiny"))
    app = create_rest_app(hub, system="itsm", tokens=TOKENS)

    async def main() -> httpx2.Response:
        transport = httpx2.ASGITransport(app=app)
        async with httpx2.AsyncClient(transport=transport, base_url="http://instance.test") as client:
            return await client.get(
                "/api/now/table/incident",
                params={"sysparm_query": "active=true^ORDERBYnumber", "sysparm_limit": "2"},
                auth=("integration.user", TOKEN_A),
            )

    try:
        response = asyncio.run(asyncio.wait_for(main(), TIMEOUT))
        assert response.status_code == 200 and len(response.json()["result"]) == 2
        assert int(response.headers["X-Total-Count"]) > 2
        assert (
            "http://instance.test/api/now/table/incident?" in response.headers["Link"]
        )  # where it is served
    finally:
        hub.close()


def test_one_server_serves_every_api_of_a_suite_side_by_side() -> None:
    apis = served_apis(["itsm", "identity", "chat"])
    assert [served.api.path_prefix for served in apis] == ["/api/now/table/", "/api/v1/", "/api/"]
    with pytest.raises(ValueError, match="path prefix"):
        served_apis(["chat", "chat"])
    with RestServer(suite="Workplace-v0", tokens=TOKENS) as server:
        status, started = control(
            server.base_url,
            "POST",
            "/control/episodes",
            {"scenario": "itsm.workplace.password_ticket", "seed": 1},
        )
        assert status == 201 and set(started["api_urls"]) == {"itsm", "identity"}  # what the world holds
        with RestClient(server.base_url, server.apis, TOKEN_A, env_id=started["episode_id"]) as client:
            users = client.call("identity_listUsers", {"limit": 2})
            incidents = client.call("itsm_table_list", {"table": "incident", "sysparm_limit": 1})
            slack = client.call("chat_auth_test", {})
            waited = client.call("itsm_wait", {"seconds": 30})
        assert users.status == 200 and len(users.body) == 2
        assert incidents.status == 200 and len(incidents.body["result"]) == 1
        # The episode holds no chat system: the serving layer says so, the vendor is not asked.
        assert slack.status == 404 and "holds no chat system" in slack.body["error"]
        assert waited.status == 200 and waited.body["waited_seconds"] == 30
        status, episode = control(server.base_url, "GET", f"/control/episodes/{started['episode_id']}")
        assert episode["tool_calls"] == 4 - 1  # the refused call is no step; wait is one


def test_wait_moves_the_worlds_clock_and_checks_its_input() -> None:
    with RestServer("chat", tokens=TOKENS, hub=Hub(world_defaults=WorldDefaults(size="tiny"))) as server:
        backend = world_of(server, "alice")
        before = backend.clock.now()
        status, waited = control(server.base_url, "POST", "/control/envs/default/wait", {"seconds": 120})
        assert status == 200 and waited["waited_seconds"] == 120
        assert (backend.clock.now() - before).total_seconds() >= 120
        for body in ({"seconds": 0}, {"seconds": "soon"}, {"minutes": 2}):
            status, refused = control(server.base_url, "POST", "/control/envs/default/wait", body)
            assert status == 400, body
        with RestClient(server.base_url, server.apis, TOKEN_A) as client:
            with pytest.raises(KeyError):
                client.call("no_such_tool", {})
            assert client.call("wait", {"seconds": 5}).status == 200
