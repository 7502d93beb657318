"""Okta's own Python SDK (``okta`` 3.x, async) against the identity mock served as Okta's Management API.

The SDK was written by people who never saw this project: what it sends (``SSWS<token>`` glued,
JSON bodies, ``limit``/``after`` queries, the retry headers) and what it expects back (Okta's
statuses, the error envelope it parses into ``OktaAPIError``, ``Link`` pagination, the
``X-Rate-Limit-*`` headers its retry reads against ``Date``) is the conformance check.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
from okta.errors.okta_api_error import OktaAPIError
from okta.models import (
    CreateUserRequest,
    PasswordCredential,
    UserCredentialsWritable,
    UserProfile,
    UserStatus,
)
from okta.pagination import paginate_all, paginate_pages

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity import IDENTITY
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TOKEN_A, TOKEN_B, control
from tests.rest.helpers import changed_state, request, world_of
from tests.rest.okta_fixtures import (
    HTTPS_CHECK_OFF,
    acting_as_super_admin,
    okta_client,
    plain_groups,
    plain_users,
    run,
    serve_identity,
)

NO_SUCH_USER = "00unosuchuser0000000"


@pytest.fixture
def okta_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[RestServer]:
    """Tiny identity worlds served as Okta's API (tokens alice and bob), the SDK allowed http."""
    monkeypatch.setenv(HTTPS_CHECK_OFF, "true")
    with serve_identity() as server:
        yield server


def _error(found: object) -> OktaAPIError:
    assert isinstance(found, OktaAPIError), found
    return found


def test_the_sdk_pages_through_every_user_once_as_in_process(okta_server: RestServer) -> None:
    async def main():
        async with okta_client(okta_server.base_url) as client:
            sizes = [len(page) async for page, _, _ in paginate_pages(client.list_users, limit=5)]
            users = [user async for user in paginate_all(client.list_users, limit=5)]
            _, first, _ = await client.list_users(limit=5)
            return sizes, users, first.headers  # a plain dict: names as the server wrote them

    sizes, users, headers = run(main())
    local = Backend(IDENTITY, size="tiny", surface="rest")
    whole = local.call("listUsers", {"limit": 200})
    local.close()
    assert whole.ok and "next" not in whole.headers["Link"]  # one page holds the tiny world
    assert len(sizes) > 2 and max(sizes) == 5 and sum(sizes) == len(whole.body)
    assert [user.id for user in users] == [user["id"] for user in whole.body]
    # The Link header's URLs are the served API's, so a client following them stays on the mock.
    assert headers["Link"].startswith(f"<{okta_server.base_url}/api/v1/users?limit=5>")
    assert f"<{okta_server.base_url}/api/v1/users?after=" in headers["Link"]
    names = {name.lower() for name in headers}
    assert {"x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"} <= names


def test_a_user_that_does_not_exist_is_okta_404_e0000007(okta_server: RestServer) -> None:
    async def main():
        async with okta_client(okta_server.base_url) as client:
            return await client.get_user(NO_SUCH_USER)

    user, _, error = run(main())
    error = _error(error)
    assert user is None and error.status == 404
    assert (error.error_code, error.error_link) == ("E0000007", "E0000007")
    assert error.error_summary == f"Not found: Resource not found: {NO_SUCH_USER} (User)"
    assert error.error_id.startswith("oae") and error.error_causes == []
    assert error.headers["X-Rate-Limit-Limit"] == "2000"  # the user-by-id bucket


def test_unlock_suspend_unsuspend_deactivate_and_activate_again(okta_server: RestServer) -> None:
    store = world_of(okta_server, "alice").store
    locked = plain_users(store, "LOCKED_OUT")[0]["id"]
    active = plain_users(store, "ACTIVE")[0]["id"]

    async def main():
        async with okta_client(okta_server.base_url) as client:

            async def status(user_id: str) -> UserStatus:
                user, _, error = await client.get_user(user_id)
                assert error is None, error
                return user.status

            seen = {}
            _, _, error = await client.unlock_user(locked)
            seen["unlocked"] = (error, await status(locked))
            seen["unlock again"] = (await client.unlock_user(locked))[-1]
            _, _, error = await client.suspend_user(active)
            seen["suspended"] = (error, await status(active))
            _, _, error = await client.unsuspend_user(active)
            seen["unsuspended"] = (error, await status(active))
            _, _, error = await client.deactivate_user(active)
            seen["deactivated"] = (error, await status(active))
            token, _, error = await client.activate_user(active, send_email=False)
            seen["activated"] = (error, token, await status(active))
            return seen

    seen = run(main())
    assert seen["unlocked"] == (None, UserStatus.ACTIVE)
    refused = _error(seen["unlock again"])  # not locked out any more
    assert (refused.status, refused.error_code) == (403, "E0000032")
    assert seen["suspended"] == (None, UserStatus.SUSPENDED)
    assert seen["unsuspended"] == (None, UserStatus.ACTIVE)
    assert seen["deactivated"] == (None, UserStatus.DEPROVISIONED)
    error, token, status = seen["activated"]
    assert error is None and status in (UserStatus.ACTIVE, UserStatus.PROVISIONED)
    assert token.activation_url == f"{okta_server.base_url}/tokens/{token.activation_token}/verify"


def _new_user(
    login: str, password: str | None = None, group_ids: list[str] | None = None
) -> CreateUserRequest:
    profile = UserProfile(firstName="Ada", lastName="Lovelace", email=login, login=login)
    credentials = UserCredentialsWritable(password=PasswordCredential(value=password)) if password else None
    return CreateUserRequest(profile=profile, credentials=credentials, groupIds=group_ids)


def test_the_help_desk_may_not_create_users_nor_activate_a_staged_one(okta_server: RestServer) -> None:
    backend = world_of(okta_server, "alice")
    staged = backend.store.select("user", "status = 'STAGED'")[0]["id"]
    login = "ada.lovelace@example.com"

    async def main():
        async with okta_client(okta_server.base_url) as client:
            created = await client.create_user(_new_user(login), activate=False)
            activated = await client.activate_user(staged, send_email=False)
            return created, activated[-1]

    (user, _, created), activated = run(main())
    # The token acts as the org's help-desk administrator: creating a user is not theirs (403
    # E0000006, before any validation), nor is activating a new (STAGED) account.
    created, activated = _error(created), _error(activated)
    assert user is None and (created.status, created.error_code) == (403, "E0000006")
    assert created.error_summary == "You do not have permission to perform the requested action"
    assert (activated.status, activated.error_code) == (403, "E0000006")
    assert backend.store.changed_rows() == [] and backend.store.find_one("user", "login", login) is None
    assert [(denial.tool, denial.operation) for denial in backend.denials] == [
        ("createUser", "create"),
        ("activateUser", "write"),
    ]


def test_a_super_administrator_creates_a_staged_user_and_activates_it(okta_server: RestServer) -> None:
    backend = world_of(okta_server, "alice")
    group = plain_groups(backend.store)[0]["id"]
    taken = plain_users(backend.store, "ACTIVE")[0]["login"]
    login = "ada.lovelace@example.com"

    async def main():
        async with okta_client(okta_server.base_url) as client:
            staged, _, error = await client.create_user(
                _new_user(login, "Analytical-Engine-1843", [group]), activate=False
            )
            assert error is None, error
            again = (await client.create_user(_new_user(login), activate=False))[-1]
            in_use = (await client.create_user(_new_user(taken.upper()), activate=True))[-1]
            token, _, error = await client.activate_user(staged.id, send_email=False)
            assert error is None, error
            active, _, _ = await client.get_user(login)
            groups, _, _ = await client.list_user_groups(staged.id)
            return staged, again, in_use, active, [found.id for found in groups]

    with acting_as_super_admin(backend):
        staged, again, in_use, active, groups = run(main())
    assert staged.status == UserStatus.STAGED and staged.activated is None
    assert staged.profile.login == login and staged.credentials.password is not None
    # Its links say what comes next, on the served API: activation.
    assert staged.links.activate.href == f"{okta_server.base_url}/api/v1/users/{staged.id}/lifecycle/activate"
    # Okta's 400 for a login in use, any case, parsed by the SDK into its error.
    for refused in (_error(again), _error(in_use)):
        assert (refused.status, refused.error_code) == (400, "E0000001")
        assert refused.error_summary == "Api validation failed: login"
        assert refused.error_causes == [
            {"errorSummary": "login: An object with this field already exists in the current organization"}
        ]
    # Activated with its password: ACTIVE, found by login; a member of the group named at creation.
    assert active.id == staged.id and active.status == UserStatus.ACTIVE and active.activated is not None
    assert group in groups
    stored = backend.store.get("user", staged.id)
    assert stored is not None and stored["status"] == "ACTIVE"
    logged = [
        row["eventType"] for row in backend.store.select("log_event", "target LIKE ?", (f"%{staged.id}%",))
    ]
    assert {"user.lifecycle.create", "group.user_membership.add", "user.lifecycle.activate"} <= set(logged)
    assert backend.identity.user_name != "okta-admin"  # the token acts as the help desk again


def test_adding_and_removing_a_group_member(okta_server: RestServer) -> None:
    store = world_of(okta_server, "alice").store
    group = plain_groups(store)[0]["id"]
    members = {row["userId"] for row in store.select("group_member", '"groupId" = ?', (group,))}
    user = next(row["id"] for row in plain_users(store, "ACTIVE") if row["id"] not in members)

    async def main():
        async with okta_client(okta_server.base_url) as client:

            async def member_ids() -> set[str]:
                pages = paginate_all(client.list_group_users, limit=2, group_id=group)
                return {member.id async for member in pages}

            before = await member_ids()
            _, added, _ = await client.assign_user_to_group(group, user)
            during = await member_ids()
            groups, _, _ = await client.list_user_groups(user)
            _, removed, _ = await client.unassign_user_from_group(group, user)
            statuses = (added.status_code, removed.status_code)
            return before, during, {found.id for found in groups}, statuses, await member_ids()

    before, during, groups, statuses, after = run(main())
    assert before == members and len(before) >= 2  # read through pages of 2
    assert statuses == (204, 204)
    assert during == before | {user} and group in groups
    assert after == before


def test_a_wrong_token_is_401_and_none_is_okta_403_invalid_session(okta_server: RestServer) -> None:
    async def main():
        async with okta_client(okta_server.base_url, token="00-not-a-served-token") as client:
            return await client.list_users(limit=1)

    users, _, error = run(main())
    error = _error(error)
    assert users is None and (error.status, error.error_code) == (401, "E0000011")
    assert error.error_summary == "Invalid token provided"
    status, _, body = request(f"{okta_server.base_url}/api/v1/users", method="GET")
    assert status == 403 and (body["errorCode"], body["errorSummary"]) == ("E0000005", "Invalid session")
    # Okta's documented form, "SSWS <token>", and an OAuth access token as Bearer, both work.
    for authorization in (f"SSWS {TOKEN_A}", f"Bearer {TOKEN_A}"):
        headers = {"Authorization": authorization}
        status, _, body = request(
            f"{okta_server.base_url}/api/v1/users?limit=1", method="GET", headers=headers
        )
        assert status == 200 and len(body) == 1

    async def bearer():
        async with okta_client(okta_server.base_url, authorizationMode="Bearer") as client:
            return await client.list_users(limit=1)

    assert run(bearer())[-1] is None


def test_routes_methods_and_bodies_get_okta_errors(okta_server: RestServer) -> None:
    base, auth = okta_server.base_url, {"Authorization": f"SSWS {TOKEN_A}"}
    user = plain_users(world_of(okta_server, "alice").store, "ACTIVE")[0]["id"]
    status, _, body = request(f"{base}/api/v1/nothing/here", method="GET", headers=auth)
    assert (status, body["errorCode"]) == (404, "E0000008")
    assert body["errorSummary"] == "The requested path was not found"
    status, headers, body = request(f"{base}/api/v1/users/{user}/groups", method="DELETE", headers=auth)
    assert (status, body["errorCode"], headers["allow"]) == (405, "E0000022", "GET")
    status, _, body = request(f"{base}/api/v1/users/{user}", method="PUT", headers=auth, body=b"{}")
    assert (status, body["errorCode"]) == (501, "E0000052")  # replaceUser: described, not served
    status, _, body = request(
        f"{base}/api/v1/users/{user}", body=b"{not json", headers={**auth, "Content-Type": "application/json"}
    )
    assert (status, body["errorCode"]) == (400, "E0000003")
    status, _, body = request(
        f"{base}/api/v1/users/{user}", body=b"<user/>", headers={**auth, "Content-Type": "application/xml"}
    )
    assert (status, body["errorCode"]) == (400, "E0000021")
    # A JSON body reaches the tool as its schema names it: a profile gets as far as the access
    # check (the help desk edits no profile), a property updateUser does not take is refused by
    # its schema; a doubled slash is one, as on Okta.
    status, _, body = request(
        f"{base}//api/v1/users/{user}",
        body=json.dumps({"profile": {"title": "Staff Engineer"}}).encode(),
        headers={**auth, "Content-Type": "application/json"},
    )
    assert (status, body["errorCode"]) == (403, "E0000006")
    status, _, body = request(
        f"{base}/api/v1/users/{user}",
        body=json.dumps({"profile": {"title": "x"}, "nickname": "x"}).encode(),
        headers={**auth, "Content-Type": "application/json"},
    )
    assert (status, body["errorCode"]) == (400, "E0000001")
    assert world_of(okta_server, "alice").store.changed_rows() == []


def test_an_injected_rate_limit_is_a_429_the_sdks_retry_sleeps_through(okta_server: RestServer) -> None:
    # One call per 6 simulated seconds; each call moves the world's clock 5 s, so of 7 calls after
    # the faults are set exactly one is a 429 with Retry-After: 1 (as for Slack, docs/rest.md).
    faults = {"rate_limit": {"calls": 1, "window_seconds": 6}}

    async def calls(max_retries: int) -> tuple[list[object], float]:
        async with okta_client(okta_server.base_url, rateLimit={"maxRetries": max_retries}) as client:
            started, errors = time.monotonic(), []
            for _ in range(7):
                errors.append((await client.list_users(limit=1))[-1])
            return errors, time.monotonic() - started

    assert control(okta_server.base_url, "POST", "/control/envs/default/faults", faults)[0] == 200
    errors, _ = run(calls(0))
    limited = [_error(error) for error in errors if error is not None]
    assert len(limited) == 1
    error = limited[0]
    assert (error.status, error.error_code, error.error_causes) == (429, "E0000047", [])
    assert error.error_summary == "API call exceeded rate limit due to too many requests."
    headers = error.headers
    assert (headers["X-Rate-Limit-Limit"], headers["X-Rate-Limit-Remaining"]) == ("1", "0")
    assert headers["Retry-After"] == "1"
    # The reset is on the server's wall clock (what Date says), Retry-After seconds ahead, so the
    # SDK's wait, reset - Date + 1, is the world's wait plus its second.
    assert abs(int(headers["X-Rate-Limit-Reset"]) - (time.time() + 1)) <= 2

    # With a retry allowed, the SDK sleeps reset - Date + 1 (2 s or 3) and sends the call again,
    # 5 simulated seconds later: in the next window, so every call succeeds.
    assert control(okta_server.base_url, "POST", "/control/envs/default/faults", faults)[0] == 200
    errors, elapsed = run(calls(1))
    assert errors == [None] * 7
    assert elapsed >= 1.9
    log = control(okta_server.base_url, "GET", "/control/envs/default/faults")[1]["log"]
    assert [(event["status"], event["retry_after"]) for event in log] == [(429, 1)]


def test_an_injected_503_is_okta_e0000010_and_the_sdk_retries_it(okta_server: RestServer) -> None:
    faults = {"unavailable_p": 1.0}
    assert control(okta_server.base_url, "POST", "/control/envs/default/faults", faults)[0] == 200

    async def main(max_retries: int):
        async with okta_client(okta_server.base_url, rateLimit={"maxRetries": max_retries}) as client:
            return await client.list_users(limit=1)

    error = _error(run(main(0))[-1])
    assert (error.status, error.error_code) == (503, "E0000010")
    # Okta sends its rate-limit headers on every answer, and the SDK's retry of a 503 reads
    # X-Rate-Limit-Reset against Date (without them 3.4.6's executor hands back no response).
    sent = {name.lower() for name in error.headers}
    assert {"x-rate-limit-limit", "x-rate-limit-remaining", "x-rate-limit-reset"} <= sent
    status, before = control(okta_server.base_url, "GET", "/control/envs/default/faults")
    retried = _error(run(main(2))[-1])  # every call is a 503: the first and two retries
    assert (retried.status, retried.error_code) == (503, "E0000010")
    status, after = control(okta_server.base_url, "GET", "/control/envs/default/faults")
    assert len(after["log"]) - len(before["log"]) == 3


def test_each_token_acts_on_its_own_world_and_an_env_by_its_url(okta_server: RestServer) -> None:
    status, made = control(okta_server.base_url, "POST", "/control/envs", {"size": "tiny", "seed": 0})
    assert status == 201 and made["api_url"] == okta_server.env_url(made["env_id"])
    locked = plain_users(world_of(okta_server, "alice", made["env_id"]).store, "LOCKED_OUT")[0]["id"]

    async def main():
        # The env's URL ends in "/", so the SDK sends //api/v1/...: Okta reads it as one slash.
        async with okta_client(made["api_url"]) as in_env, okta_client(okta_server.base_url, TOKEN_B) as bob:
            unlocked = (await in_env.unlock_user(locked))[-1]
            _, page, _ = await in_env.list_users(limit=2)
            bobs, _, _ = await bob.get_user(locked)
            return unlocked, page.headers["Link"], bobs.status

    unlocked, link, bobs = run(main())
    assert unlocked is None and bobs == UserStatus.LOCKED_OUT
    assert len(world_of(okta_server, "alice", made["env_id"]).writes) == 1
    assert okta_server.hub.find("alice", "default") is None  # alice's default world was never made
    assert f"<{okta_server.base_url}/envs/{made['env_id']}/api/v1/users?after=" in link


def test_the_same_calls_over_http_and_in_process_reach_the_same_state(okta_server: RestServer) -> None:
    local = Backend(IDENTITY, size="tiny", surface="rest")
    local.mark_start()
    locked = plain_users(local.store, "LOCKED_OUT")[0]["id"]
    active = [row["id"] for row in plain_users(local.store, "ACTIVE")[:3]]
    group = plain_groups(local.store)[0]["id"]
    members = {row["userId"] for row in local.store.select("group_member", '"groupId" = ?', (group,))}
    joiner = next(user for user in active if user not in members)
    login, password = "ada.lovelace@example.com", "Analytical-Engine-1843"
    new_user = _new_user(login, password, [group])
    arguments = {  # what the SDK sends for new_user
        "profile": {"firstName": "Ada", "lastName": "Lovelace", "email": login, "login": login},
        "credentials": {"password": {"value": password}},
        "groupIds": [group],
    }

    async def as_help_desk():
        async with okta_client(okta_server.base_url) as client:
            await client.unlock_user(locked)
            await client.suspend_user(active[0])
            await client.reset_factors(active[1])
            await client.deactivate_user(active[2])
            await client.activate_user(active[2], send_email=False)
            await client.assign_user_to_group(group, joiner)
            await client.expire_password(active[1])
            refused = (await client.create_user(new_user))[-1]  # not the help desk's: changes nothing
            return refused, (await client.unsuspend_user(NO_SUCH_USER))[-1]  # nor does a failed call

    async def as_super_admin():
        async with okta_client(okta_server.base_url) as client:
            return await client.create_user(new_user)

    refused, missing = map(_error, run(as_help_desk()))
    assert (refused.status, missing.status) == (403, 404)
    served = world_of(okta_server, "alice")
    with acting_as_super_admin(served):
        created, _, error = run(as_super_admin())
    assert error is None and created.status == UserStatus.ACTIVE
    calls = [
        ("unlockUser", {"id": locked}),
        ("suspendUser", {"id": active[0]}),
        ("resetFactors", {"id": active[1]}),
        ("deactivateUser", {"id": active[2]}),
        ("activateUser", {"id": active[2], "sendEmail": False}),
        ("assignUserToGroup", {"groupId": group, "userId": joiner}),
        ("expirePassword", {"id": active[1]}),
        ("createUser", arguments),
        ("unsuspendUser", {"id": NO_SUCH_USER}),
    ]
    results = [local.call(tool, arguments) for tool, arguments in calls]
    admin = IDENTITY.user_identity(local.store, IDENTITY.setup_user)
    results.append(local.call("createUser", arguments, identity=admin))
    assert [result.status for result in results] == [200, 200, 200, 200, 200, 204, 200, 403, 404, 200]
    # The same rows, to the new user's id, times and System Log events (ids from the same stream).
    over_http = changed_state(served)
    assert results[-1].body["id"] == created.id
    assert len(over_http) >= 12 and ("user", created.id, served.store.get("user", created.id)) in over_http
    assert over_http == changed_state(local)
    local.close()
