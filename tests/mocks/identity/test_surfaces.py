"""The two surfaces: the same goal through ``typed`` or ``rest`` leaves the same rows; responses
match their output schemas and the captured shapes; the notifications a person gets."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.observables import notifications_for
from enterprise_envs.mocks.identity import IDENTITY
from enterprise_envs.mocks.identity.render import USER_PROFILE
from tests.mocks.identity.helpers import (
    captured_exchanges,
    changed,
    fresh,
    group_named,
    ordinary_user,
    rest,
    typed,
)

Pick = Callable[[Backend], dict[str, str]]
_HAS_APPS = (
    'id IN (SELECT "userId" FROM app_user) AND id IN (SELECT "userId" FROM factor WHERE status = \'ACTIVE\')'
)


def _vpn_outsider(backend: Backend) -> dict[str, str]:
    vpn = group_named(backend, "VPN Users")["id"]
    return ordinary_user(
        backend, "ACTIVE", f'id NOT IN (SELECT "userId" FROM group_member WHERE "groupId" = \'{vpn}\')'
    )


def _vpn_member(backend: Backend) -> dict[str, str]:
    vpn = group_named(backend, "VPN Users")["id"]
    return ordinary_user(
        backend, "ACTIVE", f'id IN (SELECT "userId" FROM group_member WHERE "groupId" = \'{vpn}\')'
    )


#: goal -> (who, the typed call, the rest call) for the same user.
GOALS: dict[
    str, tuple[Pick, Callable[[dict], tuple[str, dict]], Callable[[dict, Backend], tuple[str, dict]]]
] = {
    "unlock": (
        lambda b: ordinary_user(b, "LOCKED_OUT"),
        lambda u: ("unlock_user", {"user": u["email"]}),
        lambda u, b: ("unlockUser", {"id": u["id"]}),
    ),
    "reset mfa": (
        lambda b: ordinary_user(b, "ACTIVE", _HAS_APPS),
        lambda u: ("reset_mfa", {"user": u["login"]}),
        lambda u, b: ("resetFactors", {"id": u["id"]}),
    ),
    "expire password": (
        lambda b: ordinary_user(b),
        lambda u: ("expire_password", {"user": u["login"].partition("@")[0]}),
        lambda u, b: ("expirePassword", {"id": u["login"]}),
    ),
    "reset password": (
        lambda b: ordinary_user(b, "PASSWORD_EXPIRED"),
        lambda u: ("reset_password", {"user": u["id"]}),
        lambda u, b: ("resetPassword", {"id": u["id"], "sendEmail": True}),
    ),
    "suspend": (
        lambda b: ordinary_user(b),
        lambda u: ("suspend_user", {"user": u["login"]}),
        lambda u, b: ("suspendUser", {"id": u["id"]}),
    ),
    "unsuspend": (
        lambda b: ordinary_user(b, "SUSPENDED"),
        lambda u: ("unsuspend_user", {"user": u["login"]}),
        lambda u, b: ("unsuspendUser", {"id": u["id"]}),
    ),
    "deactivate": (
        lambda b: ordinary_user(b, "ACTIVE", _HAS_APPS),
        lambda u: ("deactivate_user", {"user": u["login"]}),
        lambda u, b: ("deactivateUser", {"id": u["id"]}),
    ),
    "bring a leaver back": (
        lambda b: b.store.select("user", "status = 'DEPROVISIONED'", limit=1)[0],
        lambda u: ("reactivate_user", {"user": u["login"]}),
        lambda u, b: ("activateUser", {"id": u["id"]}),
    ),
    "resend an activation": (
        lambda b: ordinary_user(b, "PROVISIONED"),
        lambda u: ("reactivate_user", {"user": u["login"]}),
        lambda u, b: ("reactivateUser", {"id": u["id"], "sendEmail": True}),
    ),
    "add to a group": (
        _vpn_outsider,
        lambda u: ("add_user_to_group", {"user": u["login"], "group": "vpn users"}),
        lambda u, b: ("assignUserToGroup", {"groupId": group_named(b, "VPN Users")["id"], "userId": u["id"]}),
    ),
    "remove from a group": (
        _vpn_member,
        lambda u: ("remove_user_from_group", {"user": u["email"], "group": group_named_id_or_name()}),
        lambda u, b: (
            "unassignUserFromGroup",
            {"groupId": group_named(b, "VPN Users")["id"], "userId": u["id"]},
        ),
    ),
}


def group_named_id_or_name() -> str:
    """The typed surface takes a group by name (any case)."""
    return "VPN USERS"


def _play(backend: Backend, surface: str, tool: str, arguments: dict[str, Any]) -> list:
    fresh(backend, episode_seed=3)
    result = backend.call(tool, arguments, surface=surface)
    assert result.ok, (surface, tool, result.body)
    assert backend.internal_errors == []
    return changed(backend)


@pytest.mark.parametrize("goal", list(GOALS))
def test_the_same_goal_through_either_surface_leaves_the_same_rows(okta: Backend, goal: str) -> None:
    pick, typed_call, rest_call = GOALS[goal]
    user = pick(okta)
    through_typed = _play(okta, "typed", *typed_call(user))
    through_rest = _play(okta, "rest", *rest_call(user, okta))
    assert through_typed, goal
    assert through_typed == through_rest


def _validate(tool_schema: dict, result: CallResult, full: bool) -> None:
    payload = result.to_dict() if full else result.body
    errors = sorted(Draft202012Validator(tool_schema).iter_errors(payload), key=str)
    assert not errors, (result.tool, errors[0].message)


def test_responses_match_the_output_schemas(okta: Backend) -> None:
    user, locked = ordinary_user(okta, "ACTIVE", _HAS_APPS), ordinary_user(okta, "LOCKED_OUT")
    group, app = group_named(okta, "VPN Users"), okta.store.select("app", "label = 'Slack'")[0]
    factor = okta.store.select("factor", "\"userId\" = ? AND status = 'ACTIVE'", (user["id"],))[0]
    rest_calls = [
        ("listUsers", {"limit": 3}),
        ("getUser", {"id": user["id"]}),
        ("listUserGroups", {"id": user["id"]}),
        ("listAppLinks", {"id": user["id"]}),
        ("listFactors", {"userId": user["id"]}),
        ("getFactor", {"userId": user["id"], "factorId": factor["id"]}),
        ("listAssignedRolesForUser", {"userId": okta.identity.user_sys_id}),
        ("listGroups", {"limit": 3}),
        ("getGroup", {"groupId": group["id"]}),
        ("listGroupUsers", {"groupId": group["id"], "limit": 3}),
        ("listAssignedApplicationsForGroup", {"groupId": group["id"]}),
        ("listGroupAssignedRoles", {"groupId": group_named(okta, "IT Super Admins")["id"]}),
        ("listApplications", {}),
        ("getApplication", {"appId": app["id"]}),
        ("listApplicationUsers", {"appId": app["id"], "limit": 3}),
        ("getApplicationUser", {"appId": app["id"], "userId": user["id"]}),
        ("listApplicationGroupAssignments", {"appId": app["id"]}),
        ("listLogEvents", {"limit": 3}),
        ("unlockUser", {"id": locked["id"]}),
        ("expirePassword", {"id": user["id"]}),
        ("resetPassword", {"id": user["id"], "sendEmail": False}),
        ("unenrollFactor", {"userId": user["id"], "factorId": factor["id"]}),
        ("assignUserToGroup", {"groupId": group["id"], "userId": user["id"]}),
        ("suspendUser", {"id": locked["id"]}),
    ]
    surface = IDENTITY.surface("rest")
    for tool, arguments in rest_calls:
        result = rest(okta, tool, **arguments)
        assert result.ok, (tool, result.body)
        _validate(dict(surface[tool].output_schema), result, True)
    fresh(okta)
    typed_surface = IDENTITY.surface("typed")
    typed_calls = [
        ("find_users", {"query": user["lastName"]}),
        ("get_user", {"user": user["email"]}),
        ("list_factors", {"user": user["login"]}),
        ("find_groups", {"query": "users"}),
        ("list_user_groups", {"user": user["login"]}),
        ("list_group_members", {"group": "VPN Users", "limit": 3}),
        ("list_user_apps", {"user": user["login"]}),
        ("unlock_user", {"user": locked["login"]}),
        ("reset_mfa", {"user": user["login"]}),
        ("add_user_to_group", {"user": user["login"], "group": "Jira Users"}),
    ]
    for tool, arguments in typed_calls:
        result = typed(okta, tool, **arguments)
        assert result.ok, (tool, result.body)
        _validate(dict(typed_surface[tool].output_schema), result, False)


def test_rendered_objects_have_the_captured_keys(okta: Backend) -> None:
    """A User, Group and AppUser carry the keys the captured ones do."""
    shapes: dict[str, set[str]] = {}
    for exchange in captured_exchanges():
        body = exchange.body
        for item in body if isinstance(body, list) else [body]:
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                continue
            if "scope" in item and "syncState" in item:  # an AppUser's id is its user's
                shapes.setdefault("app_user", set()).update(item)
            elif item["id"].startswith("00u") and "profile" in item:
                shapes.setdefault("user", set()).update(set(item) - {"realmId", "transitioningToStatus"})
            elif item["id"].startswith("00g") and "objectClass" in item:
                shapes.setdefault("group", set()).update(item)
    user = ordinary_user(okta, "ACTIVE", _HAS_APPS)
    app_user = okta.store.select("app_user", '"userId" = ?', (user["id"],))[0]
    assert set(rest(okta, "getUser", id=user["id"]).body) == shapes["user"]
    assert set(rest(okta, "getGroup", groupId=group_named(okta, "VPN Users")["id"]).body) == shapes["group"]
    got = rest(okta, "getApplicationUser", appId=app_user["appId"], userId=user["id"]).body
    assert shapes["app_user"] <= set(got)
    # Profile properties come from the description; the captured ones are among them.
    assert {"login", "email", "firstName", "lastName", "mobilePhone", "secondEmail"} <= set(USER_PROFILE)


def test_notifications_tell_the_person_what_they_can_see(okta: Backend) -> None:
    locked = ordinary_user(okta, "LOCKED_OUT")
    rules = IDENTITY.notifications
    assert notifications_for(okta.store, rules, locked["id"]) == ()
    typed(okta, "unlock_user", user=locked["login"])
    (notice,) = notifications_for(okta.store, rules, locked["id"])
    assert notice.event == "user.account.unlock" and notice.record == locked["login"]
    assert dict(notice.content) == {"login": locked["login"], "status": "ACTIVE"}
    typed(okta, "reset_mfa", user=locked["login"])
    factor_notices = [
        n for n in notifications_for(okta.store, rules, locked["id"]) if n.event == "user.mfa.factor.reset"
    ]
    enrolled = okta.store.count("factor", "\"userId\" = ? AND status = 'NOT_SETUP'", (locked["id"],))
    assert len(factor_notices) == enrolled
    other = _vpn_outsider(okta)
    typed(okta, "add_user_to_group", user=other["login"], group="VPN Users")
    seen = {n.event: n for n in notifications_for(okta.store, rules, other["id"])}
    assert dict(seen["group_member.added"].content) == {"groupId": "VPN Users"}
    assert "app_user.added" in seen  # the VPN app tile appears
    # Nobody else heard of it.
    assert notifications_for(okta.store, rules, okta.identity.user_sys_id) == ()


def test_typed_lookups_take_what_people_say(okta: Backend) -> None:
    user = ordinary_user(okta)
    for key in (
        user["id"],
        user["login"],
        user["login"].upper(),
        user["email"],
        user["login"].partition("@")[0],
    ):
        assert typed(okta, "get_user", user=key).body["id"] == user["id"], key
    missing = typed(okta, "get_user", user="nobody@example.com")
    assert missing.status == 404 and missing.body["errorSummary"].endswith("(User)")
    found = typed(okta, "find_users", query=f"{user['firstName']} {user['lastName']}").body
    assert user["id"] in [item["id"] for item in found["users"]]
    if user["employeeNumber"]:
        assert [
            item["id"] for item in typed(okta, "find_users", query=user["employeeNumber"]).body["users"]
        ] == [user["id"]]
    detail = typed(okta, "get_user", user=user["login"]).body
    assert detail["admin_roles"] == [] and "suspend" in detail["lifecycle_actions"]
    agent = typed(okta, "get_user", user="it-helpdesk").body
    assert agent["admin_roles"] == ["HELP_DESK_ADMIN"]
    group = typed(okta, "list_group_members", group="help desk admins").body
    assert group["type"] == "OKTA_GROUP" and group["total"] >= 1
    assert typed(okta, "list_group_members", group="No Such Group").status == 404
