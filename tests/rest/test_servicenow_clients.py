"""ServiceNow's own Python clients (``pysnc``, ``pysnow``) against the ITSM mock served as the Table API.

Neither client was written with this project in mind: what they send (``sysparm_*`` in the
query string, Basic credentials, ``sysparm_display_value=all`` or ``False``, JSON bodies with
``PATCH`` and ``PUT``) and what they need back (``{"result": ...}``, ``X-Total-Count`` for
paging, ServiceNow's error body and statuses) is the conformance check. ``pysnc`` refuses an
``http://`` instance, so it talks to a server with TLS (a certificate made at start);
``pysnow`` is given the plain HTTP one with ``use_ssl=False``.
"""

from __future__ import annotations

import gc
import json
import math
import time
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from typing import Any

import pysnow
import pytest
import requests
from pysnc import ServiceNowClient
from pysnc.exceptions import AuthenticationException, NotFoundException, RequestException, RoleException
from requests.adapters import HTTPAdapter

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.conformance import Schemas, shape_differences, unknown_differences
from enterprise_envs.mocks.itsm import ITSM, ITSM_SETTINGS, identity_of
from enterprise_envs.mocks.itsm.http import CHALLENGE, IGNORED_WHERE_UNUSED
from enterprise_envs.mocks.itsm.tables import spec_document
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKEN_B, TOKENS
from tests.rest.helpers import changed_state, world_of

TINY = WorldDefaults(size="tiny")
UNAUTHENTICATED = {
    "error": {"message": "User Not Authenticated", "detail": "Required to provide Auth information"},
    "status": "failure",
}
OPEN_QUERY = "active=true^priority<=4"


# -- servers and clients -----------------------------------------------------------------------


@pytest.fixture
def sn_server() -> Iterator[RestServer]:
    """Tiny ITSM worlds served as ServiceNow's Table API over plain HTTP (tokens alice and bob)."""
    with RestServer("itsm", tokens=TOKENS, hub=Hub(world_defaults=TINY)) as server:
        yield server
    server.hub.close()


@pytest.fixture
def sn_tls_server() -> Iterator[RestServer]:
    """The same over HTTPS, with a self-signed certificate made at start (pysnc wants https)."""
    with RestServer("itsm", tokens=TOKENS, hub=Hub(world_defaults=TINY), tls=True) as server:
        yield server
        # A response kept alive by a caught exception's traceback cycle keeps its TLS connection
        # open, and the server's stop would wait out its graceful timeout for it: collect them.
        gc.collect()
    server.hub.close()


class TimeoutAdapter(HTTPAdapter):
    """requests' own adapter with a default timeout: pysnc sends without one."""

    def send(self, request: Any, **kwargs: Any) -> requests.Response:  # noqa: D102
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = TIMEOUT
        return super().send(request, **kwargs)


@contextmanager
def open_pysnc(
    server: RestServer, token: str = TOKEN_A, instance: str | None = None, **options: Any
) -> Iterator[ServiceNowClient]:
    """pysnc's client on the TLS server as ``token`` (any user name), its session closed at the end.

    ``trust_env`` is off so that ``verify=`` wins over a ``REQUESTS_CA_BUNDLE`` in the
    environment (requests lets the variable override a session's ``verify``). The adapter
    pysnc mounts for its instance (its urllib3 ``Retry``) is mounted again with the same
    ``Retry`` and a timeout, so every request is bounded and retried as pysnc retries it.
    """
    client = ServiceNowClient(
        instance or server.base_url, ("sd.agent", token), verify=server.certificate, **options
    )
    client.session.trust_env = False
    retry = client.session.get_adapter(client.instance + "/").max_retries
    client.session.mount(client.instance, TimeoutAdapter(max_retries=retry))
    try:
        yield client
    finally:
        client.session.close()  # an open keep-alive connection would hold up the server's stop


@pytest.fixture
def snc(sn_tls_server: RestServer) -> Iterator[ServiceNowClient]:
    """pysnc as alice, on her default world."""
    with open_pysnc(sn_tls_server) as client:
        yield client


@contextmanager
def open_pysnow(server: RestServer, token: str = TOKEN_A) -> Iterator[pysnow.Client]:
    """pysnow's client on the plain HTTP server (``host`` and ``use_ssl=False``), closed at the end."""
    host = urllib.parse.urlsplit(server.base_url).netloc
    client = pysnow.Client(host=host, use_ssl=False, user="sd.agent", password=token)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def snow(sn_server: RestServer) -> Iterator[pysnow.Client]:
    """pysnow as alice, on her default world."""
    with open_pysnow(sn_server) as client:
        yield client


def control_plane(server: RestServer, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    """A control-plane request as alice (``Authorization: Bearer``), trusting a TLS server's certificate."""
    with requests.Session() as session:
        session.trust_env = False
        response = session.request(
            method,
            f"{server.base_url}{path}",
            json=body,
            headers={"Authorization": f"Bearer {TOKEN_A}"},
            verify=server.certificate if server.tls else True,
            timeout=TIMEOUT,
        )
        return response.status_code, response.json()


def get(url: str, token: str | None = TOKEN_A, **params: Any) -> requests.Response:
    """A plain GET with Basic credentials (none if ``token`` is None)."""
    auth = None if token is None else ("sd.agent", token)
    return requests.get(url, params=params, auth=auth, timeout=TIMEOUT)


@pytest.fixture(scope="module")
def local() -> Iterator[Backend]:
    """A same-seed world in process: the answers the served ones must equal (read only here)."""
    backend = Backend(ITSM, size="tiny", surface="rest")
    yield backend
    backend.close()


def listed(backend: Backend, table: str, query: str, **options: Any) -> list[dict[str, Any]]:
    """Every record ``table_list`` answers in process for ``query``."""
    result = backend.call("table_list", {"table": table, "sysparm_query": query, **options})
    assert result.status == 200, result.body
    return result.body["result"]


def served_links(answer: Any, server: RestServer) -> Any:
    """An in-process answer with its links where ``server`` serves the API (as it answers them)."""
    text = json.dumps(answer).replace(ITSM_SETTINGS["instance_url"], server.base_url)
    return json.loads(text)


def a_caller(backend: Backend) -> str:
    """The sys_id of a requester (a user with no roles) to raise incidents for."""
    rows = backend.store.select("sys_user", "roles = '' AND active = 'true'", limit=1)
    assert rows, "the tiny world has no requester"
    return rows[0]["sys_id"]


def an_open_incident(backend: Backend, state: str = "2") -> dict[str, str]:
    """The first incident in ``state`` (In Progress by default)."""
    row = backend.store.find_one("incident", "state", state)
    assert row is not None, f"the tiny world has no incident in state {state}"
    return row


# -- the routes --------------------------------------------------------------------------------


def test_each_table_api_operation_is_routed_to_its_rest_tool() -> None:
    api = ITSM.http_api()
    routed = {(route.method, route.path): route.tool for route in api.routes}
    assert routed == {
        ("GET", "/api/now/table/{table}"): "table_list",
        ("POST", "/api/now/table/{table}"): "table_create",
        ("GET", "/api/now/table/{table}/{sys_id}"): "table_get",
        ("PATCH", "/api/now/table/{table}/{sys_id}"): "table_update",
        ("PUT", "/api/now/table/{table}/{sys_id}"): "table_update",
        ("DELETE", "/api/now/table/{table}/{sys_id}"): "table_delete",
    }
    assert set(routed.values()) == {tool.name for tool in ITSM.surface("rest")} - {"wait"}
    assert api.base_path == "/" and api.path_prefix == "/api/now/table/"  # clients get the root
    # What it ignores where a tool does not take it is what the description documents.
    documented = {
        parameter["name"]
        for operations in spec_document()["paths"].values()
        for operation in operations.values()
        for parameter in operation.get("parameters", ())
        if parameter.get("name", "").startswith("sysparm_")
    }
    assert documented >= IGNORED_WHERE_UNUSED


# -- pysnc -------------------------------------------------------------------------------------


def test_pysnc_iterates_every_matching_record_once_over_small_pages(
    snc: ServiceNowClient, sn_tls_server: RestServer, local: Backend
) -> None:
    expected = listed(local, "incident", f"{OPEN_QUERY}^ORDERBYsys_id", sysparm_fields="sys_id,number")
    assert len(expected) > 6
    world = world_of(sn_tls_server, "alice")
    calls_before = world.call_index
    record = snc.GlideRecord("incident", batch_size=3)
    record.add_encoded_query(OPEN_QUERY)
    record.query()
    assert record.get_row_count() == len(expected)  # read from X-Total-Count
    seen = [(item.sys_id.get_value(), item.number.get_value()) for item in record]
    assert seen == [(row["sys_id"], row["number"]) for row in expected]
    assert world.call_index - calls_before == math.ceil(len(expected) / 3)  # one request a page


def test_pysnc_reads_one_record_and_a_missing_one_is_not_found(snc: ServiceNowClient, local: Backend) -> None:
    row = an_open_incident(local)
    record = snc.GlideRecord("incident")
    assert record.get(row["sys_id"]) is True  # pysnc adds sysparm_query and sysparm_limit: ignored
    assert record.number.get_value() == row["number"]
    assert record.state.get_value() == "2" and record.state.get_display_value() == "In Progress"
    assert record.caller_id.get_value() == row["caller_id"]  # display_value=all: value and name

    missing = snc.GlideRecord("incident")
    assert missing.get("0" * 32) is False  # pysnc turns the 404 into False
    with pytest.raises(NotFoundException) as raised:
        snc.table_api.get(missing, "0" * 32)
    (body,) = raised.value.args
    assert body["status"] == "failure" and body["error"]["message"] == "No Record found"


def test_pysnc_creates_an_incident_and_the_rules_fill_in_number_and_priority(
    snc: ServiceNowClient, sn_tls_server: RestServer, local: Backend
) -> None:
    new = snc.GlideRecord("incident")
    new.initialize()
    new.short_description = "Printer on fire"
    new.caller_id = a_caller(local)
    new.impact = 2  # JSON numbers: ServiceNow takes them as the field's text
    new.urgency = 1
    sys_id = new.insert()
    assert sys_id is not None
    assert new.number.get_value().startswith("INC")
    assert new.priority.get_value() == "2"  # impact 2 x urgency 1 -> 2 - High
    stored = world_of(sn_tls_server, "alice").store.get("incident", sys_id.get_value())
    assert stored is not None
    assert (stored["number"], stored["impact"], stored["priority"]) == (new.number.get_value(), "2", "2")

    refused = snc.GlideRecord("incident")
    refused.initialize()
    refused.short_description = "no caller"
    with pytest.raises(RoleException) as raised:  # a data policy: 403, as pysnc raises it
        refused.insert()
    (body,) = raised.value.args
    assert body["error"]["message"] == "Operation Failed"
    assert body["error"]["detail"].startswith("Data Policy Exception: The following fields are mandatory")


def test_pysnc_resolving_needs_close_code_and_notes_and_priority_follows_impact_and_urgency(
    snc: ServiceNowClient, sn_tls_server: RestServer, local: Backend
) -> None:
    row = an_open_incident(local)
    record = snc.GlideRecord("incident")
    assert record.get(row["sys_id"])
    record.state = "6"
    with pytest.raises(RoleException) as raised:
        record.update()
    (body,) = raised.value.args
    assert "Data Policy Exception: The following fields are mandatory" in body["error"]["detail"]
    world = world_of(sn_tls_server, "alice")
    assert world.store.get("incident", row["sys_id"])["state"] == "2"  # refused: nothing changed

    record.close_code = "Solution provided"
    record.close_notes = "Replaced the toner."
    record.impact = "1"
    record.urgency = "1"
    assert record.update() is not None
    assert record.state.get_value() == "6" and record.state.get_display_value() == "Resolved"
    assert record.priority.get_value() == "1"
    assert record.resolved_at.get_value() != ""
    stored = world.store.get("incident", row["sys_id"])
    assert (stored["state"], stored["close_code"], stored["priority"]) == ("6", "Solution provided", "1")


def test_pysnc_delete_is_forbidden_to_the_itil_agent_and_allowed_to_an_itil_admin(
    snc: ServiceNowClient, sn_tls_server: RestServer
) -> None:
    world = world_of(sn_tls_server, "alice")
    record = snc.GlideRecord("incident")
    record.add_encoded_query("state=7")
    record.query()
    assert record.next()
    sys_id = record.sys_id.get_value()
    with pytest.raises(RoleException) as raised:  # ACL: 403
        record.delete()
    (body,) = raised.value.args
    assert body["error"]["detail"] == "ACL Exception Delete Failed due to security constraints"
    assert world.store.get("incident", sys_id) is not None

    # The served token acts as the world's agent; make it an itil_admin (what a scenario could do).
    admin = world.store.select("sys_user", "roles LIKE '%itil_admin%'", limit=1)[0]
    with world.lock:
        world.identity = identity_of(admin)
    assert record.delete() is True  # 204
    assert world.store.get("incident", sys_id) is None
    with pytest.raises(NotFoundException):
        record.delete()  # it is gone: 404


def test_pysnc_with_a_wrong_password_is_refused_with_servicenows_401(sn_tls_server: RestServer) -> None:
    with open_pysnc(sn_tls_server, token="not-a-served-token") as client:
        record = client.GlideRecord("incident")
        with pytest.raises(AuthenticationException) as raised:
            record.query()
    assert raised.value.args == (UNAUTHENTICATED,)


def test_pysnc_on_a_world_made_on_the_control_plane(sn_tls_server: RestServer) -> None:
    status, made = control_plane(sn_tls_server, "POST", "/control/envs", {"size": "tiny", "seed": 3})
    assert status == 201
    assert made["api_url"] == sn_tls_server.env_url(made["env_id"])
    instance = made["api_url"].rstrip("/")  # pysnc takes the instance's root
    with open_pysnc(sn_tls_server, instance=instance) as client:
        record = client.GlideRecord("sys_user_group")
        record.query()
        names = sorted(item.name.get_value() for item in record)
    world = world_of(sn_tls_server, "alice", made["env_id"])
    assert names == sorted(row["name"] for row in world.store.select("sys_user_group"))
    assert sn_tls_server.hub.find("alice", "default") is None  # the default world was never made


# -- pysnow ------------------------------------------------------------------------------------


def test_pysnow_pages_with_limit_and_offset_and_all_returns_a_page(
    snow: pysnow.Client, sn_server: RestServer, local: Backend
) -> None:
    expected = served_links(listed(local, "incident", f"{OPEN_QUERY}^ORDERBYnumber"), sn_server)
    incidents = snow.resource(api_path="/table/incident")
    pages, offset = [], 0
    while True:
        page = incidents.get(query=f"{OPEN_QUERY}^ORDERBYnumber", limit=4, offset=offset).all()
        if not page:
            break
        pages.append(page)
        offset += len(page)
    assert max(len(page) for page in pages) == 4 and len(pages) == math.ceil(len(expected) / 4)
    assert [record for page in pages for record in page] == expected  # the same records, the same values

    response = incidents.get(query={"number": expected[0]["number"]}, limit=1)
    assert response.one()["sys_id"] == expected[0]["sys_id"]
    assert int(response.headers["X-Total-Count"]) == 1
    streamed = incidents.get(query=f"{OPEN_QUERY}^ORDERBYnumber", limit=2, stream=True)
    assert streamed.first()["number"] == expected[0]["number"]
    with pytest.raises(pysnow.exceptions.NoResults):
        incidents.get(query="number=INC9999999").one()  # an empty list is 200, no error


def test_pysnow_creates_updates_and_is_refused_in_servicenows_shape(
    snow: pysnow.Client, sn_server: RestServer, local: Backend
) -> None:
    incidents = snow.resource(api_path="/table/incident")
    created = incidents.create(
        {"short_description": "VPN drops every hour", "caller_id": a_caller(local), "impact": 3, "urgency": 2}
    ).one()
    assert created["number"].startswith("INC") and created["priority"] == "4"
    assert isinstance(created["caller_id"], dict) and created["caller_id"]["link"].startswith(
        f"{sn_server.base_url}/api/now/table/sys_user/"
    )  # links point where the API is served

    # pysnow's update is a GET by query, then a PUT to the record found.
    with pytest.raises(requests.HTTPError) as refused:
        incidents.update({"number": created["number"]}, {"state": "6"}).one()
    assert refused.value.response.status_code == 403
    assert refused.value.response.json()["error"]["message"] == "Operation Failed"
    resolved = incidents.update(
        {"number": created["number"]},
        {"state": "6", "close_code": "Workaround provided", "close_notes": "Reconnect script."},
    ).one()
    assert (resolved["state"], resolved["incident_state"], resolved["active"]) == ("6", "6", "true")

    with pytest.raises(requests.HTTPError) as forbidden:  # the itil agent may not delete
        incidents.delete({"number": created["number"]})
    assert forbidden.value.response.status_code == 403
    assert "ACL Exception Delete Failed" in forbidden.value.response.json()["error"]["detail"]
    with pytest.raises(requests.HTTPError) as missing:
        incidents.request("GET", path_append="/" + "0" * 32).one()
    assert missing.value.response.status_code == 404
    assert missing.value.response.json() == {
        "error": {
            "message": "No Record found",
            "detail": "Record doesn't exist or ACL restricts the record retrieval",
        },
        "status": "failure",
    }


def test_pysnow_reaches_a_control_plane_world_by_its_base_path(
    snow: pysnow.Client, sn_server: RestServer
) -> None:
    status, made = control_plane(sn_server, "POST", "/control/envs", {"size": "tiny", "seed": 5})
    assert status == 201
    base_path = urllib.parse.urlsplit(made["api_url"]).path + "api/now"  # /envs/<id>/api/now
    groups = (
        snow.resource(api_path="/table/sys_user_group", base_path=base_path).get(query="ORDERBYname").all()
    )
    world = world_of(sn_server, "alice", made["env_id"])
    assert [group["sys_id"] for group in groups] == [
        row["sys_id"] for row in world.store.select("sys_user_group", order_by="name")
    ]
    assert sn_server.hub.find("alice", "default") is None


def test_pysnow_with_a_wrong_password_gets_the_401_and_the_challenge(sn_server: RestServer) -> None:
    with (
        open_pysnow(sn_server, token="not-a-served-token") as client,
        pytest.raises(requests.HTTPError) as raised,
    ):
        client.resource(api_path="/table/incident").get(query="active=true").all()
    response = raised.value.response
    assert (response.status_code, response.json()) == (401, UNAUTHENTICATED)
    assert response.headers["WWW-Authenticate"] == CHALLENGE


# -- the wire ----------------------------------------------------------------------------------


def test_total_count_and_link_headers_and_the_next_link_stays_on_the_mock(
    sn_server: RestServer, local: Backend
) -> None:
    status, made = control_plane(sn_server, "POST", "/control/envs", {"size": "tiny"})
    assert status == 201
    expected = listed(local, "incident", f"{OPEN_QUERY}^ORDERBYnumber", sysparm_fields="number")
    for root in (sn_server.base_url, made["api_url"].rstrip("/")):
        url = f"{root}/api/now/table/incident"
        response = get(
            url, sysparm_query=f"{OPEN_QUERY}^ORDERBYnumber", sysparm_fields="number", sysparm_limit=5
        )
        assert response.status_code == 200
        assert int(response.headers["X-Total-Count"]) == len(expected)
        assert set(response.links) == {"first", "next", "last"}
        numbers = [record["number"] for record in response.json()["result"]]
        while "next" in response.links:  # plain HTTP, as any client following Link would
            assert response.links["next"]["url"].startswith(f"{url}?")
            response = get(response.links["next"]["url"])
            assert response.status_code == 200
            numbers += [record["number"] for record in response.json()["result"]]
        assert "prev" in response.links
        assert numbers == [row["number"] for row in expected]


def test_query_string_text_is_read_as_the_tools_types(sn_server: RestServer, local: Backend) -> None:
    url = f"{sn_server.base_url}/api/now/table/incident"
    row = an_open_incident(local)
    linked = get(url, sysparm_limit="2", sysparm_fields="caller_id")
    assert len(linked.json()["result"]) == 2 and "link" in linked.json()["result"][0]["caller_id"]
    bare = get(url, sysparm_limit="2", sysparm_fields="caller_id", sysparm_exclude_reference_link="true")
    assert isinstance(bare.json()["result"][0]["caller_id"], str)
    answers = {
        flag: get(f"{url}/{row['sys_id']}", sysparm_fields="state", sysparm_display_value=flag).json()[
            "result"
        ]
        for flag in ("true", "false", "all", "True", "False")  # pysnow sends Python's True and False
    }
    assert answers["true"] == answers["True"] == {"state": "In Progress"}
    assert answers["false"] == answers["False"] == {"state": "2"}
    assert answers["all"] == {"state": {"display_value": "In Progress", "value": "2"}}
    uncounted = get(url, sysparm_limit="1", sysparm_no_count="true")
    assert uncounted.status_code == 200 and "X-Total-Count" not in uncounted.headers
    # Documented parameters the mock does not model are ignored, as ServiceNow ignores them.
    viewed = get(
        url,
        sysparm_limit="1",
        sysparm_view="mobile",
        sysparm_suppress_pagination_header="true",
        sysparm_input_display_value="false",
    )
    assert viewed.status_code == 200
    for refused in (
        {"sysparm_limit": "twenty"},
        {"sysparm_display_value": "maybe"},
        {"sysparm_input_display_value": "true"},  # would change what is written: not modelled
        {"sysparm_bogus": "1"},
    ):
        answer = get(url, **refused)
        assert answer.status_code == 400 and answer.json()["status"] == "failure", refused


def test_credentials_the_servicenow_way(sn_server: RestServer) -> None:
    url = f"{sn_server.base_url}/api/now/table/sys_user_group"
    assert get(url, token=TOKEN_B, sysparm_limit=1).status_code == 200  # Basic, any user name
    bearer = requests.get(url, headers={"Authorization": f"Bearer {TOKEN_A}"}, timeout=TIMEOUT)
    assert bearer.status_code == 200
    for response in (
        get(url, token=None),
        get(url, token="wrong"),
        requests.get(url, headers={"Authorization": "Bearer wrong"}, timeout=TIMEOUT),
        requests.get(url, headers={"Authorization": "Basic not-base64"}, timeout=TIMEOUT),
    ):
        assert (response.status_code, response.json()) == (401, UNAUTHENTICATED)
        assert response.headers["WWW-Authenticate"] == CHALLENGE
    # Credentials come first: a stranger learns nothing of the instance's tables or paths.
    for path in ("/api/now/table/u_no_such_table", "/api/now/nothing"):
        assert get(f"{sn_server.base_url}{path}", token=None).status_code == 401, path


def test_unknown_tables_paths_and_methods_and_unreadable_bodies(sn_server: RestServer) -> None:
    root = sn_server.base_url
    auth = ("sd.agent", TOKEN_A)
    invalid = get(f"{root}/api/now/table/u_no_such_table")
    assert (invalid.status_code, invalid.json()) == (
        400,
        {"error": {"message": "Invalid table u_no_such_table", "detail": None}, "status": "failure"},
    )
    assert get(f"{root}/api/now/table/u_no_such_table/{'0' * 32}").json()["error"]["message"] == (
        "Invalid table u_no_such_table"
    )
    for path in ("/api/now/v1/batch", "/api/now/nothing", "/api/now/table/incident/a/b"):
        answer = get(root + path)
        assert answer.status_code == 400, path
        assert answer.json()["error"]["message"] == "Requested URI does not represent any resource"
    wrong = requests.delete(f"{root}/api/now/table/incident", auth=auth, timeout=TIMEOUT)
    assert wrong.status_code == 405 and wrong.headers["Allow"] == "GET, POST"
    post = f"{root}/api/now/table/incident"
    for data, media, status in (
        (b"{not json", "application/json", 400),
        (b"[1, 2]", "application/json", 400),
        (b"short_description=x", "text/plain", 415),
        (b"short_description=x", "application/x-www-form-urlencoded", 415),  # the Table API reads JSON
    ):
        answer = requests.post(post, data=data, headers={"Content-Type": media}, auth=auth, timeout=TIMEOUT)
        assert answer.status_code == status and answer.json()["status"] == "failure"
    assert world_of(sn_server, "alice").store.changed_rows() == []  # nothing was written
    assert get(post, sysparm_limit=1).status_code == 200  # and the server still answers


# -- the same calls in process -----------------------------------------------------------------


def test_pysnc_calls_over_http_and_in_process_reach_the_same_state(
    snc: ServiceNowClient, sn_tls_server: RestServer
) -> None:
    local = Backend(ITSM, size="tiny", surface="rest")
    local.mark_start()
    caller, incident = a_caller(local), an_open_incident(local)["sys_id"]
    shown = {"sysparm_display_value": "all", "sysparm_exclude_reference_link": True}

    new = snc.GlideRecord("incident")
    new.initialize()
    new.short_description, new.caller_id, new.impact, new.urgency = "Disk full", caller, 1, 2
    created = new.insert().get_value()
    record = snc.GlideRecord("incident")
    assert record.get(incident)
    record.state = "6"
    with pytest.raises(RoleException):
        record.update()
    record.close_code, record.close_notes = "Solution provided", "Freed space."
    record.update()
    new.work_notes = "Watching it."
    new.update()

    calls = [
        ("table_create", {"table": "incident", "fields": {
            "short_description": "Disk full", "caller_id": caller, "impact": "1", "urgency": "2"}}),
        ("table_get", {"table": "incident", "sys_id": incident}),
        ("table_update", {"table": "incident", "sys_id": incident, "fields": {"state": "6"}}),
        ("table_update", {"table": "incident", "sys_id": incident, "fields": {
            "state": "6", "close_code": "Solution provided", "close_notes": "Freed space."}}),
        ("table_update", {"table": "incident", "sys_id": created, "fields": {"work_notes": "Watching it."}}),
    ]  # fmt: skip
    results = [local.call(tool, {**arguments, **shown}) for tool, arguments in calls]
    assert [result.status for result in results] == [201, 200, 403, 200, 200]
    over_http = changed_state(world_of(sn_tls_server, "alice"))
    assert len(over_http) >= 3  # two incidents and a journal entry at least
    assert over_http == changed_state(local)
    local.close()


def test_pysnow_calls_over_http_and_in_process_reach_the_same_state(
    snow: pysnow.Client, sn_server: RestServer
) -> None:
    local = Backend(ITSM, size="tiny", surface="rest")
    local.mark_start()
    caller, incident = a_caller(local), an_open_incident(local)

    incidents = snow.resource(api_path="/table/incident")
    created = incidents.create({"short_description": "Badge reader offline", "caller_id": caller}).one()
    incidents.update({"number": incident["number"]}, {"impact": "1", "urgency": "1", "comments": "On it."})
    with pytest.raises(requests.HTTPError):
        incidents.delete({"number": created["number"]})

    by_number = {"table": "incident", "sysparm_query": f"number={incident['number']}", "sysparm_limit": 10000}
    calls = [
        ("table_create", {"table": "incident", "fields": {
            "short_description": "Badge reader offline", "caller_id": caller}}),
        ("table_list", {**by_number, "sysparm_offset": 0}),
        ("table_update", {"table": "incident", "sys_id": incident["sys_id"], "fields": {
            "impact": "1", "urgency": "1", "comments": "On it."}}),
        ("table_list", {**by_number, "sysparm_query": f"number={created['number']}", "sysparm_offset": 0}),
        ("table_delete", {"table": "incident", "sys_id": created["sys_id"]}),
    ]  # fmt: skip
    results = [local.call(tool, arguments) for tool, arguments in calls]
    assert [result.status for result in results] == [201, 200, 200, 200, 403]
    over_http = changed_state(world_of(sn_server, "alice"))
    assert over_http == changed_state(local)
    assert local.store.get("incident", incident["sys_id"])["priority"] == "1"
    local.close()


# -- the captured samples, replayed over HTTP --------------------------------------------------

#: Known differences between the captured samples and the mock's answers: signature -> why.
KNOWN_SAMPLE_DIFFERENCES: dict[tuple[str, str, str], str] = {
    **{
        ("incident_list", "type", f"body.result[].{field}"): (
            "the capture has incidents without it (empty string); every incident of the mock's "
            "world has one (a reference object)"
        )
        for field in ("assignment_group", "caller_id", "location")
    },
    **{
        ("incident_list", "type", f"body.result[].{field}"): (
            "the mock does not model business services or companies: always empty"
        )
        for field in ("business_service", "company")
    },
    **{
        ("incident_list", "type", f"body.result[].{field}"): (
            "the mock's world holds child and reopened incidents, the captured sample none"
        )
        for field in ("parent_incident", "reopened_by")
    },
    **{
        ("change_request_list", "type", f"body.result[].{field}.value"): (
            "the capture is the Change Management API's (sn_chg_rest), which types values "
            "(numbers, booleans); the Table API the mock serves sends every value as text"
        )
        for field in (
            "active",
            "cab_required",
            "escalation",
            "impact",
            "knowledge",
            "made_sla",
            "on_hold",
            "outside_maintenance_schedule",
            "priority",
            "production_system",
            "risk",
            "scope",
            "state",
            "urgency",
        )
    },  # fmt: skip
    **{
        ("change_request_list", "missing key", f"body.result[].{field}.display_value_internal"): (
            "the Change Management API adds display_value_internal to dates; the Table API does not"
        )
        for field in (
            "activity_due",
            "approval_set",
            "cab_date",
            "closed_at",
            "conflict_last_run",
            "due_date",
            "end_date",
            "expected_start",
            "follow_up",
            "opened_at",
            "requested_by_date",
            "review_date",
            "sla_due",
            "start_date",
            "sys_created_on",
            "sys_updated_on",
            "work_end",
            "work_start",
        )
    },  # fmt: skip
    ("change_request_list", "type", "body.result[].sys_id"): (
        "the Change Management API sends sys_id as a value/display_value pair; the Table API, "
        "even with sysparm_display_value=all, as text"
    ),
}

#: Sample -> (operation, table, query the Table API is asked with besides the sample's fields).
SAMPLES = {
    "incident_list.table_api.sample.json": ("incident_list", "incident", {}),
    "change_request_list.sn_chg_rest.sample.json": (
        "change_request_list",
        "change_request",
        {"sysparm_display_value": "all", "sysparm_exclude_reference_link": "true"},
    ),
}


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_the_captured_samples_replayed_over_http_have_the_mocks_shape(
    sample: str, sn_server: RestServer
) -> None:
    operation, table, options = SAMPLES[sample]
    path = resources.files("enterprise_envs.mocks.itsm").joinpath("spec", "observed", sample)
    recorded = json.loads(path.read_text(encoding="utf-8"))
    fields = sorted(set().union(*(record.keys() for record in recorded["result"])))
    response = get(f"{sn_server.base_url}/api/now/table/{table}", sysparm_fields=",".join(fields), **options)
    assert response.status_code == 200
    served = response.json()
    assert len(served["result"]) == int(response.headers["X-Total-Count"]) > 0
    document = spec_document()
    schemas = Schemas(document, [{"$ref": "#/components/schemas/ListResponse"}])
    found = shape_differences(operation, recorded, served, schemas, sample=sample)
    unknown = unknown_differences(found, KNOWN_SAMPLE_DIFFERENCES)
    assert not unknown, "\n".join(f"{d.kind} {d.where}: {d.detail}" for d in unknown)


# -- faults and the clients' retries -----------------------------------------------------------


def test_pysnc_retries_a_rate_limited_read_after_retry_after_but_not_a_write(
    sn_tls_server: RestServer, snc: ServiceNowClient, local: Backend
) -> None:
    # One call per 6 simulated seconds; each call moves the world's clock 5 s: of 7 reads one
    # is a 429 with Retry-After: 1, which pysnc's urllib3 Retry sleeps and sends again.
    faults = {"rate_limit": {"calls": 1, "window_seconds": 6}}
    status, _ = control_plane(sn_tls_server, "POST", "/control/envs/default/faults", faults)
    assert status == 200
    started = time.monotonic()
    for _ in range(7):
        record = snc.GlideRecord("sys_user_group", batch_size=1)
        record.query()
        assert record.get_row_count() > 0
    assert time.monotonic() - started >= 1.0  # it slept Retry-After
    _, state = control_plane(sn_tls_server, "GET", "/control/envs/default/faults")
    assert [(event["status"], event["retry_after"]) for event in state["log"]] == [(429, 1)]

    # A write is not retried (urllib3 retries idempotent methods only): pysnc raises the 429.
    # (No read from here on: its retry would sleep the hour's Retry-After.)
    hourly = {"rate_limit": {"calls": 1, "window_seconds": 3600}}
    assert control_plane(sn_tls_server, "POST", "/control/envs/default/faults", hourly)[0] == 200
    caller, numbers = a_caller(local), []
    for attempt in range(2):  # the hour's one call, then a 429
        new = snc.GlideRecord("incident")
        new.initialize()
        new.short_description, new.caller_id = f"Rate limited {attempt}", caller
        try:
            numbers.append(new.insert() and new.number.get_value())
        except RequestException as refused:
            (body,) = refused.args
            numbers.append(body["error"]["message"])
    assert numbers[0].startswith("INC") and numbers[1] == "Rate limit exceeded"
    _, state = control_plane(sn_tls_server, "GET", "/control/envs/default/faults")
    assert state["log"][-1]["status"] == 429 and state["log"][-1]["retry_after"] > 60


def test_pysnc_gives_up_on_503_after_four_retries_and_pysnow_does_not_retry(
    sn_tls_server: RestServer, snc: ServiceNowClient, sn_server: RestServer, snow: pysnow.Client
) -> None:
    for server in (sn_tls_server, sn_server):
        status, _ = control_plane(server, "POST", "/control/envs/default/faults", {"unavailable_p": 1.0})
        assert status == 200
    with pytest.raises(requests.exceptions.RetryError):
        snc.GlideRecord("sys_user_group").query()
    _, state = control_plane(sn_tls_server, "GET", "/control/envs/default/faults")
    assert [event["status"] for event in state["log"]] == [503] * 5  # the call and 4 retries

    with pytest.raises(requests.HTTPError) as raised:
        snow.resource(api_path="/table/sys_user_group").get(query="").all()
    assert raised.value.response.status_code == 503
    assert raised.value.response.json()["error"]["message"] == "Service Unavailable"
    _, state = control_plane(sn_server, "GET", "/control/envs/default/faults")
    assert [event["status"] for event in state["log"]] == [503]
