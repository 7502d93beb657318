"""The cassettes replayed over HTTP (issue 18): the same report as in process, less what the wire fixes.

``conformance.replay`` sends each recorded request through a transport: in process, matched
against Okta's HttpApi routes and called with ``Backend.call``; here, over HTTP to the identity
mock served as Okta's Management API (``RestServer("identity")``), with ``RestClient``. The comparisons
are the same, so the two reports must agree interaction by interaction, except that the wire
sets ``Content-Type`` (the in-process answer is a JSON value with no media type: the known ``*``
``Content-Type`` difference of ``docs/systems/identity.md``).
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.conformance import verdict
from enterprise_envs.mocks._core.http import InProcess, WireRequest
from enterprise_envs.mocks.identity import IDENTITY
from enterprise_envs.rest.client import RestClient

pytest.importorskip("yaml")

from enterprise_envs.mocks.identity import conformance  # noqa: E402  (needs PyYAML for the cassettes)
from tests.mocks.identity.test_conformance import report  # noqa: E402
from tests.rest.helpers import world_of  # noqa: E402
from tests.rest.okta_fixtures import serve_identity  # noqa: E402

TOKEN = "00-replayer-token"
CONTENT_TYPE = ("header", "Content-Type")


def _without_content_type(result: conformance.ConformanceReport) -> list[tuple[object, ...]]:
    """Each interaction's outcome and differences, the ``Content-Type`` header's left out."""
    found = []
    for cassette in result.cassettes:
        for step in cassette.steps:
            kept = tuple(d for d in step.differences if (d.kind, d.where) != CONTENT_TYPE)
            replayed = step.outcome in (conformance.MATCHED, conformance.DIFFERING)
            outcome = verdict(kept) if replayed else step.outcome
            found.append((cassette.name, step.index, step.path, step.operation, outcome, step.reason, kept))
    return found


def _content_type_differences(result: conformance.ConformanceReport) -> int:
    return sum(1 for d in result.differences if (d.kind, d.where) == CONTENT_TYPE)


def test_the_replay_over_http_gets_the_in_process_report() -> None:
    with serve_identity({TOKEN: "replayer"}) as server:
        served = world_of(server, "replayer")
        with RestClient(server.base_url, server.apis, TOKEN) as client:
            over_http = conformance.replay(backend=served, transport=client)
    in_process = report(IDENTITY.settings["spec_version"])
    assert _without_content_type(over_http) == _without_content_type(in_process)
    assert over_http.replayed == in_process.replayed >= 150
    assert (over_http.count(conformance.SETUP), over_http.count(conformance.SKIPPED)) == (
        in_process.count(conformance.SETUP),
        in_process.count(conformance.SKIPPED),
    )
    # The served answers carry Content-Type: application/json, as Okta's do.
    assert _content_type_differences(in_process) > 50 and _content_type_differences(over_http) == 0
    assert over_http.count(conformance.MATCHED) > in_process.count(conformance.MATCHED)


def test_in_process_requests_are_routed_by_the_http_api() -> None:
    backend = Backend(IDENTITY, size="tiny", surface="rest")
    transport = InProcess(backend, IDENTITY.http_api())
    try:
        user = backend.store.select("user", "status = 'ACTIVE'", order_by="id")[0]
        by_login = quote(user["login"], safe="")  # ana%40example.com, as a client sends it
        found = transport.send(WireRequest("GET", f"/api/v1/users/{by_login}", ()))
        assert (found.tool, found.status, found.body["id"]) == ("getUser", 200, user["id"])
        page = transport.send(WireRequest("GET", "/api/v1/users", (("limit", "2"),)))
        assert page.status == 200 and len(page.body) == 2 and 'rel="next"' in page.headers["Link"]
        refused = transport.send(WireRequest("PUT", f"/api/v1/users/{user['id']}/groups", ()))
        assert (refused.status, refused.body["errorCode"]) == (405, "E0000022")
        assert refused.headers["Allow"] == "GET"
        unserved = transport.send(WireRequest("PUT", f"/api/v1/users/{user['id']}", (), {"profile": {}}))
        assert (unserved.status, unserved.body["errorCode"]) == (501, "E0000052")  # replaceUser
        # createUser is routed to its tool: the backend acts as the help desk, who may not create.
        refused = transport.send(
            WireRequest("POST", "/api/v1/users", (("activate", "false"),), {"profile": {}})
        )
        assert (refused.tool, refused.status, refused.body["errorCode"]) == ("createUser", 403, "E0000006")
        assert backend.store.changed_rows() == []
    finally:
        backend.close()
