"""Creating a user (``createUser``, ``POST /api/v1/users``): Okta's status rules, validation and log.

Played through the ``rest`` surface, as the super administrator (who may create users) and as
the agent, the org's help-desk administrator (who may not: 403 E0000006, nothing written, the
attempt recorded as a denial). The statuses are Okta's creation scenarios: STAGED unless
activated; activated, ACTIVE with a password, PROVISIONED without one, PASSWORD_EXPIRED with
``nextLogin=changePassword``, ACTIVE for a user another provider signs in.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity import identity_system
from enterprise_envs.mocks.identity.conventions import ORG_ID_SUFFIX
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.tables import SPEC_VERSIONS
from tests.mocks.identity.helpers import as_setup, changed, events, group_named, ordinary_user, rest

LOGIN = "ada.lovelace@example.com"
PROFILE = {"firstName": "Ada", "lastName": "Lovelace", "email": LOGIN, "login": LOGIN}
PASSWORD = {"password": {"value": "Analytical-Engine-1843"}}
#: What Okta's base user schema requires of a new user.
REQUIRED = ("firstName", "lastName", "email", "login")


def _create(okta: Backend, admin: bool = True, **arguments: Any):  # noqa: ANN202
    arguments.setdefault("profile", PROFILE)
    return rest(okta, "createUser", as_setup(okta) if admin else None, **arguments)


def _error(result) -> tuple[int, str, list[str]]:  # noqa: ANN001
    body = result.body
    return result.status, body["errorCode"], [cause["errorSummary"] for cause in body["errorCauses"]]


@pytest.mark.parametrize(
    ("arguments", "status", "with_password"),
    [
        ({"activate": False}, "STAGED", False),
        ({"activate": False, "credentials": PASSWORD}, "STAGED", True),
        ({"credentials": PASSWORD}, "ACTIVE", True),  # activate defaults to true
        ({"activate": True}, "PROVISIONED", False),
        ({"credentials": PASSWORD, "nextLogin": "changePassword"}, "PASSWORD_EXPIRED", True),
        ({"provider": True, "credentials": {"provider": {"type": "FEDERATION", "name": "FEDERATION"}}},
         "ACTIVE", False),
    ],
)  # fmt: skip
def test_the_status_and_times_of_a_new_user(
    okta: Backend, arguments: dict[str, Any], status: str, with_password: bool
) -> None:
    result = _create(okta, **arguments)
    assert result.status == 200, result.body
    user = result.body
    now = okta.clock.now_text()
    assert user["status"] == status and user["profile"]["login"] == LOGIN
    assert user["created"] == user["lastUpdated"] == user["statusChanged"] == now
    assert user["activated"] == (None if status == "STAGED" else now)
    assert user["passwordChanged"] == (now if with_password else None)
    assert ("password" in user["credentials"]) is with_password
    # An id of the world's id stream: Okta's user shape, the org's ending.
    assert ENGINE.is_key(user["id"]) and user["id"].startswith("00u") and user["id"].endswith(ORG_ID_SUFFIX)
    stored = okta.store.get("user", user["id"])
    assert stored is not None and stored["status"] == status
    provider = arguments.get("credentials", {}).get("provider", {}).get("type", "OKTA")
    assert (stored["providerType"], user["credentials"]["provider"]["type"]) == (provider, provider)
    # Only what its status allows is linked: a STAGED user offers activation.
    assert ("activate" in user["_links"]) is (status == "STAGED")


def test_the_system_log_and_everyone(okta: Backend) -> None:
    setup = as_setup(okta)
    staged = _create(okta, activate=False).body
    types = [event["eventType"] for event in events(okta)]
    # Created, not activated; then the apps Everyone holds (below).
    assert types[0] == "user.lifecycle.create" and "user.lifecycle.activate" not in types
    assert set(types[1:]) == {"application.user_membership.add"}
    created = events(okta)[0]
    assert created["actorId"] == setup.user_sys_id
    assert json.loads(created["target"]) == [
        {"id": staged["id"], "type": "User", "alternateId": LOGIN, "displayName": "Ada Lovelace"}
    ]
    everyone = group_named(okta, "Everyone")
    members = okta.store.select("group_member", '"userId" = ?', (staged["id"],))
    assert [row["groupId"] for row in members] == [everyone["id"]]
    # Everyone's apps come with the membership, as a group join gives them.
    held = {row["appId"] for row in okta.store.select("app_user", '"userId" = ?', (staged["id"],))}
    assert held and held == {row["appId"] for row in okta.store.select("app_group", '"groupId" = ?',
                                                                       (everyone["id"],))}  # fmt: skip

    activated = _create(okta, profile={**PROFILE, "login": "grace.hopper@example.com"}, credentials=PASSWORD)
    logged = [e["eventType"] for e in events(okta) if activated.body["id"] in e["target"]]
    assert logged[0] == "user.lifecycle.create" and logged[-1] == "user.lifecycle.activate"
    assert logged.count("user.lifecycle.activate") == 1


def test_groups_named_at_creation(okta: Backend) -> None:
    github = group_named(okta, "GitHub Users")
    result = _create(okta, groupIds=[github["id"], github["id"]], credentials=PASSWORD)
    assert result.status == 200
    user_id = result.body["id"]
    groups = {row["groupId"] for row in okta.store.select("group_member", '"userId" = ?', (user_id,))}
    assert groups == {github["id"], group_named(okta, "Everyone")["id"]}
    assert "group.user_membership.add" in [event["eventType"] for event in events(okta)]
    apps = {row["appId"] for row in okta.store.select("app_group", '"groupId" = ?', (github["id"],))}
    held = {row["appId"]: row["scope"] for row in okta.store.select("app_user", '"userId" = ?', (user_id,))}
    assert apps and all(held.get(app) == "GROUP" for app in apps)
    listed = rest(okta, "listUserGroups", as_setup(okta), id=user_id).body
    assert github["id"] in {group["id"] for group in listed}


@pytest.mark.parametrize(
    ("group_ids", "expected"),
    [
        (["00gnosuchgroup0000x7"], (404, "E0000007")),
        (["not a group"], (400, "E0000001")),
    ],
)
def test_a_group_that_is_not_there_creates_nothing(
    okta: Backend, group_ids: list[str], expected: tuple[int, str]
) -> None:
    result = _create(okta, groupIds=group_ids)
    assert (result.status, result.body["errorCode"]) == expected
    if expected[0] == 404:
        assert result.body["errorSummary"] == f"Not found: Resource not found: {group_ids[0]} (UserGroup)"
    assert changed(okta) == []


def test_a_group_whose_members_okta_manages_creates_nothing(okta: Backend) -> None:
    built_in = group_named(okta, "Okta Administrators")
    status, code, causes = _error(_create(okta, groupIds=[built_in["id"]]))
    assert (status, code) == (403, "E0000006") and "OKTA_GROUP" in causes[0]
    assert changed(okta) == []


@pytest.mark.parametrize(
    ("profile", "credentials", "causes"),
    [
        ({}, None, [f"{name}: The field cannot be left blank" for name in REQUIRED]),
        ({**PROFILE, "lastName": None}, None, ["lastName: The field cannot be left blank"]),
        ({**PROFILE, "firstName": "  "}, None, ["firstName: The field cannot be left blank"]),
        ({**PROFILE, "email": "ada at example"}, None, ["email: Does not match required pattern"]),
        ({**PROFILE, "login": "ada"}, None, ["login: Username must be in the form of an email address"]),
        (PROFILE, {"password": {"value": "short1A"}}, None),
        (PROFILE, {"password": {"value": "alllowercase1"}}, None),
        (PROFILE, {"password": {"value": "Ada.Lovelace-2024"}}, None),  # the login's name in it
        (PROFILE, {"recovery_question": {"question": "First pet?", "answer": ""}},
         ["recovery_question.answer: The field cannot be left blank"]),
    ],
)  # fmt: skip
def test_okta_validation_names_each_field_and_writes_nothing(
    okta: Backend, profile: dict[str, Any], credentials: dict[str, Any] | None, causes: list[str] | None
) -> None:
    arguments: dict[str, Any] = {"profile": profile}
    if credentials is not None:
        arguments["credentials"] = credentials
    status, code, found = _error(_create(okta, **arguments))
    assert (status, code) == (400, "E0000001")
    if causes is None:  # the password policy
        causes = [found[0]]
        assert found[0].startswith("password: Password requirements were not met.")
    assert found == causes
    first = causes[0].split(":")[0]
    assert _create(okta, **arguments).body["errorSummary"] == f"Api validation failed: {first}"
    assert changed(okta) == [] and okta.denials == []


def test_a_login_in_use_any_case_is_refused(okta: Backend) -> None:
    taken = ordinary_user(okta)["login"].upper()
    status, code, causes = _error(_create(okta, profile={**PROFILE, "login": taken}))
    assert (status, code) == (400, "E0000001")
    assert causes == ["login: An object with this field already exists in the current organization"]
    assert (
        _create(okta, profile={**PROFILE, "login": taken}).body["errorSummary"]
        == "Api validation failed: login"
    )
    # Creating twice: the second is the duplicate.
    assert _create(okta).status == 200
    assert _error(_create(okta))[2] == causes
    assert [table for table, _, _ in changed(okta)].count("user") == 1


@pytest.mark.parametrize(
    ("arguments", "name"),
    [
        ({"activate": False, "nextLogin": "changePassword"}, "nextLogin"),
        ({"credentials": {"provider": {"type": "FEDERATION"}}}, "credentials.provider"),
        ({"provider": True}, "credentials.provider"),
        ({"type": {"id": "otynosuchtype00000x7"}}, "type"),
    ],
)
def test_query_and_credentials_that_do_not_fit_are_refused(
    okta: Backend, arguments: dict[str, Any], name: str
) -> None:
    result = _create(okta, **arguments)
    assert (result.status, result.body["errorSummary"]) == (400, f"Api validation failed: {name}")
    assert changed(okta) == []


def test_a_password_for_a_federated_user_is_refused(okta: Backend) -> None:
    credentials = {**PASSWORD, "provider": {"type": "FEDERATION"}}
    status, _, causes = _error(_create(okta, provider=True, credentials=credentials))
    assert status == 400 and causes == ["password: A user of the FEDERATION provider takes no password"]


def test_the_help_desk_may_not_create_users_and_nothing_is_written(okta: Backend) -> None:
    for arguments in ({"activate": False}, {"credentials": PASSWORD}, {"profile": {}}):
        result = _create(okta, admin=False, **arguments)
        # Refused before any validation: the same answer whatever the body says.
        assert _error(result) == (403, "E0000006", [])
        assert result.body["errorSummary"] == "You do not have permission to perform the requested action"
    assert changed(okta) == [] and events(okta) == []
    assert [(d.tool, d.operation, d.table) for d in okta.denials] == [("createUser", "create", "user")] * 3
    assert okta.writes == []


def test_a_staged_user_is_activated_by_the_super_administrator(okta: Backend) -> None:
    staged = _create(okta, activate=False, credentials=PASSWORD).body
    # Activating a new account is onboarding: not the help desk's either.
    assert rest(okta, "activateUser", id=staged["id"], sendEmail=False).status == 403
    activated = rest(okta, "activateUser", as_setup(okta), id=staged["id"], sendEmail=False)
    assert activated.status == 200 and activated.body["activationToken"]
    assert okta.store.get("user", staged["id"])["status"] == "ACTIVE"  # it has a password


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_both_releases_serve_create_user(version: str) -> None:
    tool = identity_system(version).surface("rest")["createUser"]
    schema = tool.input_schema
    assert schema["required"] == ["profile"]
    assert {"activate", "provider", "nextLogin", "profile", "credentials", "groupIds"} <= set(
        schema["properties"]
    )
    profile = schema["properties"]["profile"]["properties"]
    # The release's UserProfile properties, with its bounds.
    assert {"login", "email", "firstName", "lastName", "department", "title"} <= set(profile)
    assert profile["login"]["maxLength"] == 100 and profile["firstName"]["type"] == ["string", "null"]
    assert schema["properties"]["nextLogin"]["enum"] == ["changePassword"]
    assert tool.output_schema["properties"]["body"]["properties"]["status"]["enum"]
    backend = Backend(identity_system(version), size="tiny", surface="rest")
    try:
        made = rest(backend, "createUser", as_setup(backend), profile=PROFILE, activate=False)
        assert (made.status, made.body["status"]) == (200, "STAGED")
    finally:
        backend.close()


def test_the_audit_writer_creates_a_user_by_create_user(okta: Backend) -> None:
    # The audit's probes that insert a user row reach Okta by its own operation: the agent's
    # attempt is refused (a privilege attempt), the super administrator's makes the row.
    from enterprise_envs.mocks.identity.audit_writes import IDENTITY_WRITER

    made = IDENTITY_WRITER.write("create", "user", "", {**PROFILE, "status": "STAGED"}, None)
    assert made == ("rest", "createUser", {"profile": PROFILE, "activate": False})
    surface, tool, arguments = made
    assert IDENTITY_WRITER.table_of(surface, tool, arguments) == "user"
    refused = okta.call(tool, arguments, surface=surface)
    assert _error(refused)[:2] == (403, "E0000006") and changed(okta) == []
    created = okta.call(tool, arguments, surface=surface, identity=as_setup(okta))
    assert created.status == 200
    row = okta.store.get("user", created.body["id"])
    assert (row["login"], row["status"]) == (LOGIN, "STAGED")
