"""The user lifecycle: every operation from every status, from one table of Okta's transitions.

:data:`TRANSITIONS` is written from Okta's description (each lifecycle operation says which
statuses it takes) and the captures (reactivating a STAGED user: 403 E0000038; unlocking a user
who is not locked out: 403 E0000032). Every (operation, status) pair is played through the
``rest`` surface as the super administrator, so access plays no part: an allowed move reaches its
status and writes its System Log event, any other is refused with the vendor's code and changes
nothing. The service layer's own table (``MOVES``) must say the same.
"""

from __future__ import annotations

import json

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity.services.lifecycle import ACTIVATED, MOVES, STATUSES, allowed_moves
from tests.mocks.identity.helpers import as_setup, events, fresh, group_named, ordinary_user, rest

DELETED = "<deleted>"
_ALL = frozenset(STATUSES)
#: Operation -> {status it may start from: the status it leads to}; every other status is refused.
TRANSITIONS: dict[str, dict[str, str]] = {
    "activate": {"STAGED": ACTIVATED, "DEPROVISIONED": ACTIVATED},
    "reactivate": {"PROVISIONED": "PROVISIONED", "RECOVERY": "RECOVERY"},
    "deactivate": {status: "DEPROVISIONED" for status in _ALL - {"DEPROVISIONED"}},
    "suspend": {"ACTIVE": "SUSPENDED"},
    "unsuspend": {"SUSPENDED": "ACTIVE"},
    "unlock": {"LOCKED_OUT": "ACTIVE"},
    "reset_factors": {status: status for status in _ALL - {"DEPROVISIONED"}},
    "expire_password": {"ACTIVE": "PASSWORD_EXPIRED", "PASSWORD_EXPIRED": "PASSWORD_EXPIRED"},
    "reset_password": {
        status: "RECOVERY"
        for status in ("ACTIVE", "PASSWORD_EXPIRED", "LOCKED_OUT", "RECOVERY", "PROVISIONED")
    },
    # A first DELETE deactivates; a DELETE of a deactivated user deletes it.
    "delete": {**{status: "DEPROVISIONED" for status in _ALL - {"DEPROVISIONED"}}, "DEPROVISIONED": DELETED},
}
#: The error code of a refused move (Okta's captured codes).
REFUSAL = {"unlock": "E0000032"}
#: The rest tool of each operation, by its operationId.
TOOLS = {
    "activate": "activateUser",
    "reactivate": "reactivateUser",
    "deactivate": "deactivateUser",
    "suspend": "suspendUser",
    "unsuspend": "unsuspendUser",
    "unlock": "unlockUser",
    "reset_factors": "resetFactors",
    "expire_password": "expirePassword",
    "reset_password": "resetPassword",
    "delete": "deleteUser",
}
#: The System Log event each allowed move writes.
EVENTS = {name: move.event for name, move in MOVES.items()}
EVENTS_OF_FIRST_DELETE = "user.lifecycle.deactivate"


def test_the_service_table_is_oktas() -> None:
    assert set(MOVES) == set(TRANSITIONS) == set(TOOLS)
    for name, move in MOVES.items():
        assert move.starts == frozenset(TRANSITIONS[name]) if name != "delete" else {"DEPROVISIONED"}
    assert EVENTS["unlock"] == "user.account.unlock" and EVENTS["suspend"] == "user.lifecycle.suspend"
    assert EVENTS["reset_factors"] == "user.mfa.factor.reset_all"
    # The links a user shows are the moves their status allows.
    assert {move.name for move in allowed_moves("SUSPENDED")} == {"deactivate", "unsuspend", "reset_factors"}


def _subject(backend: Backend, status: str, *, password: bool = True) -> dict[str, str]:
    """An ordinary ACTIVE employee with factors and apps, put into ``status`` as the test's start."""
    user = ordinary_user(
        backend, "ACTIVE", 'id IN (SELECT "userId" FROM factor) AND id IN (SELECT "userId" FROM app_user)'
    )
    changes = {"status": status} if password else {"status": status, "passwordChanged": ""}
    backend.store.update("user", user["id"], changes)
    backend.mark_start()
    return {**user, **changes}


def _events(backend: Backend) -> list[str]:
    return [row["eventType"] for row in events(backend)]


CASES = [(name, status) for name in TRANSITIONS for status in STATUSES]


@pytest.mark.parametrize(("name", "status"), CASES, ids=[f"{name}-{status}" for name, status in CASES])
def test_every_operation_from_every_status(okta: Backend, name: str, status: str) -> None:
    user = _subject(okta, status)
    setup = as_setup(okta)
    result = rest(okta, TOOLS[name], setup, id=user["id"])
    after = okta.store.get("user", user["id"])
    expected = TRANSITIONS[name].get(status)
    if expected is None:
        assert result.status == 403, result.body
        assert result.body["errorCode"] == REFUSAL.get(name, "E0000038")
        if name != "unlock":
            assert (
                result.body["errorSummary"] == "This operation is not allowed in the user's current status."
            )
        assert okta.store.changed_rows() == [] and after == okta.store.get("user", user["id"])
        assert okta.refusals[-1].table == "user" and okta.refusals[-1].sys_id == user["id"]
        return
    assert result.ok, result.body
    assert result.status == (204 if name == "delete" else 200)
    if expected == DELETED:
        assert after is None
        assert _events(okta) == [EVENTS["delete"]]
        return
    wanted = ("ACTIVE" if user["passwordChanged"] else "PROVISIONED") if expected == ACTIVATED else expected
    assert after is not None and after["status"] == wanted
    assert (after["statusChanged"] != user["statusChanged"]) == (wanted != status)
    event = EVENTS_OF_FIRST_DELETE if name == "delete" else EVENTS[name]
    assert event in _events(okta)
    log = events(okta)[-1]
    assert json.loads(log["target"])[0]["id"] == user["id"] and log["actorAlternateId"].startswith(
        "okta-admin"
    )


def test_activation_without_a_password_provisions(okta: Backend) -> None:
    for status in ("STAGED", "DEPROVISIONED"):
        user = _subject(fresh(okta), status, password=False)
        result = rest(okta, "activateUser", as_setup(okta), id=user["id"], sendEmail=False)
        after = okta.store.get("user", user["id"])
        assert after["status"] == "PROVISIONED" and after["activated"] == okta.clock.now_text()
        # sendEmail false: the activation link comes back instead of an e-mail.
        token = result.body["activationToken"]
        assert len(token) == 20 and result.body["activationUrl"].endswith(f"/tokens/{token}/verify")


def test_operations_answer_as_the_captures_show(okta: Backend) -> None:
    setup = as_setup(okta)
    user = _subject(okta, "ACTIVE")
    assert rest(okta, "suspendUser", setup, id=user["id"]).body == {}
    assert rest(okta, "unsuspendUser", setup, id=user["id"]).body == {}
    assert rest(okta, "resetFactors", setup, id=user["id"]).body == {}
    expired = rest(okta, "expirePassword", setup, id=user["id"])
    assert expired.body["status"] == "PASSWORD_EXPIRED" and expired.body["id"] == user["id"]
    reset = rest(okta, "resetPassword", setup, id=user["id"], sendEmail=False)
    assert reset.body["resetPasswordUrl"].startswith("https://example.okta.com/reset_password/")
    assert rest(okta, "resetPassword", setup, id=user["id"]).body == {}  # e-mailed by default
    assert rest(okta, "deactivateUser", setup, id=user["id"]).body == {}
    assert rest(okta, "deleteUser", setup, id=user["id"]).status == 204
    gone = rest(okta, "getUser", setup, id=user["id"])
    assert (
        gone.status == 404
        and gone.body["errorSummary"] == f"Not found: Resource not found: {user['id']} (User)"
    )


def test_deactivation_removes_active_apps_and_keeps_groups(okta: Backend) -> None:
    user = _subject(okta, "ACTIVE")
    groups = okta.store.count("group_member", '"userId" = ?', (user["id"],))
    assert okta.store.count("app_user", '"userId" = ?', (user["id"],))
    rest(okta, "deactivateUser", as_setup(okta), id=user["id"])
    assert okta.store.count("app_user", '"userId" = ?', (user["id"],)) == 0
    assert okta.store.count("group_member", '"userId" = ?', (user["id"],)) == groups
    # Reactivation reconciles the group apps (a direct assignment does not come back).
    rest(okta, "activateUser", as_setup(okta), id=user["id"])
    held = okta.store.select("app_user", '"userId" = ?', (user["id"],))
    assert held and {row["scope"] for row in held} == {"GROUP"}
    # A deactivated user cannot be assigned an app.
    rest(okta, "deactivateUser", as_setup(okta), id=user["id"])
    app = okta.store.select("app", "status = 'ACTIVE'", limit=1)[0]
    refused = rest(okta, "assignUserToApplication", as_setup(okta), appId=app["id"], id=user["id"])
    assert refused.status == 403 and refused.body["errorCode"] == "E0000038"


def test_resetting_factors_unenrolls_every_one(okta: Backend) -> None:
    user = _subject(okta, "ACTIVE")
    enrolled = rest(okta, "listFactors", as_setup(okta), userId=user["id"]).body
    assert enrolled
    rest(okta, "resetFactors", as_setup(okta), id=user["id"])
    assert rest(okta, "listFactors", as_setup(okta), userId=user["id"]).body == []
    statuses = okta.store.column_values("factor", "status", '"userId" = ?', (user["id"],))
    assert set(statuses) == {"NOT_SETUP"}
    gone = rest(okta, "getFactor", as_setup(okta), userId=user["id"], factorId=enrolled[0]["id"])
    assert gone.status == 404 and gone.body["errorSummary"].endswith("(UserFactor)")


def test_unenrolling_one_factor(okta: Backend) -> None:
    user = _subject(okta, "ACTIVE")
    factor = rest(okta, "listFactors", as_setup(okta), userId=user["id"]).body[0]
    assert (
        rest(okta, "unenrollFactor", as_setup(okta), userId=user["id"], factorId=factor["id"]).status == 204
    )
    assert factor["id"] not in {
        row["id"] for row in rest(okta, "listFactors", as_setup(okta), userId=user["id"]).body
    }
    assert "user.mfa.factor.deactivate" in _events(okta)
    other = rest(okta, "listFactors", as_setup(okta), userId=user["id"]).body
    if other:
        rest(okta, "deactivateUser", as_setup(okta), id=user["id"])
        refused = rest(okta, "unenrollFactor", as_setup(okta), userId=user["id"], factorId=other[0]["id"])
        assert refused.status == 403 and refused.body["errorCode"] == "E0000038"


def test_deleting_a_deactivated_user_removes_what_hangs_off_it(okta: Backend) -> None:
    user = _subject(okta, "DEPROVISIONED")
    assert okta.store.count("group_member", '"userId" = ?', (user["id"],))
    assert rest(okta, "deleteUser", as_setup(okta), id=user["id"]).status == 204
    for table in ("group_member", "factor", "app_user", "role_assignment"):
        assert okta.store.count(table, '"userId" = ?', (user["id"],)) == 0, table


def test_membership_is_idempotent_and_okta_groups_only(okta: Backend) -> None:
    setup = as_setup(okta)
    user = _subject(okta, "ACTIVE")
    vpn = group_named(okta, "VPN Users")
    okta.store.conn.execute(
        'DELETE FROM group_member WHERE "groupId" = ? AND "userId" = ?', (vpn["id"], user["id"])
    )
    okta.mark_start()
    assert rest(okta, "assignUserToGroup", setup, groupId=vpn["id"], userId=user["id"]).status == 204
    joined = okta.clock.now_text()
    # Again: 204, and nothing changes (Okta's PUT is idempotent).
    assert rest(okta, "assignUserToGroup", setup, groupId=vpn["id"], userId=user["id"]).status == 204
    assert okta.store.count("group_member", '"groupId" = ? AND "userId" = ?', (vpn["id"], user["id"])) == 1
    assert _events(okta).count("group.user_membership.add") == 1
    stamped = okta.store.get("group", vpn["id"])
    assert stamped["lastMembershipUpdated"] == joined and stamped["lastUpdated"] == vpn["lastUpdated"]
    for _ in range(2):
        assert rest(okta, "unassignUserFromGroup", setup, groupId=vpn["id"], userId=user["id"]).status == 204
    assert okta.store.count("group_member", '"groupId" = ? AND "userId" = ?', (vpn["id"], user["id"])) == 0
    for name in ("Everyone",):
        built_in = group_named(okta, name)
        before = okta.store.changed_rows()
        refused = rest(okta, "unassignUserFromGroup", setup, groupId=built_in["id"], userId=user["id"])
        assert refused.status == 403 and refused.body["errorCode"] == "E0000006"
        assert okta.store.changed_rows() == before
    app_group = okta.store.select("group", "type = 'APP_GROUP'", limit=1)[0]
    refused = rest(okta, "assignUserToGroup", setup, groupId=app_group["id"], userId=user["id"])
    assert refused.status == 403 and "OKTA_GROUP" in refused.body["errorCauses"][0]["errorSummary"]


def test_joining_a_group_grants_its_apps_and_leaving_revokes_them(okta: Backend) -> None:
    setup = as_setup(okta)
    user = _subject(okta, "ACTIVE")
    github = group_named(okta, "GitHub Users")
    app_ids = okta.store.column_values("app_group", "appId", '"groupId" = ?', (github["id"],))
    okta.store.conn.execute(
        'DELETE FROM group_member WHERE "groupId" = ? AND "userId" = ?', (github["id"], user["id"])
    )
    okta.store.conn.execute(
        f'DELETE FROM app_user WHERE "userId" = ? AND "appId" IN ({", ".join("?" * len(app_ids))})',
        (user["id"], *app_ids),
    )
    okta.mark_start()
    rest(okta, "assignUserToGroup", setup, groupId=github["id"], userId=user["id"])
    held = {row["appId"]: row for row in okta.store.select("app_user", '"userId" = ?', (user["id"],))}
    assert set(app_ids) <= set(held) and all(held[app]["scope"] == "GROUP" for app in app_ids)
    rest(okta, "unassignUserFromGroup", setup, groupId=github["id"], userId=user["id"])
    still = {row["appId"] for row in okta.store.select("app_user", '"userId" = ?', (user["id"],))}
    assert not set(app_ids) & still


def test_profile_updates_and_roles_as_a_super_administrator(okta: Backend) -> None:
    setup = as_setup(okta)
    user, other = ordinary_user(okta), ordinary_user(okta, "LOCKED_OUT")
    updated = rest(okta, "updateUser", setup, id=user["id"], profile={"title": "Team Lead", "nickName": None})
    assert updated.ok and updated.body["profile"]["title"] == "Team Lead"
    assert "user.account.update_profile" in _events(okta)
    taken = rest(okta, "updateUser", setup, id=user["id"], profile={"login": other["login"].upper()})
    assert taken.status == 400 and taken.body["errorCode"] == "E0000001"
    assert "already exists" in taken.body["errorCauses"][0]["errorSummary"]
    unknown = rest(okta, "updateUser", setup, id=user["id"], profile={"favouriteColour": "blue"})
    assert unknown.status == 400 and unknown.body["errorCode"] == "E0000001"
    granted = rest(okta, "assignRoleToUser", setup, userId=user["id"], type="USER_ADMIN")
    assert granted.status == 201 and granted.body["id"] == "KVJUKUS7IFCE2SKO"  # the captured role id
    assert granted.body["label"] == "User Administrator" and granted.body["assignmentType"] == "USER"
    again = rest(okta, "assignRoleToUser", setup, userId=user["id"], type="USER_ADMIN")
    assert again.status == 400 and again.body["errorCode"] == "E0000001"
    listed = rest(okta, "listAssignedRolesForUser", setup, userId=user["id"]).body
    assert [role["type"] for role in listed] == ["USER_ADMIN"]
    assert (
        rest(
            okta, "unassignRoleFromUser", setup, userId=user["id"], roleAssignmentId="KVJUKUS7IFCE2SKO"
        ).status
        == 204
    )
    assert rest(okta, "listAssignedRolesForUser", setup, userId=user["id"]).body == []
    gone = rest(okta, "unassignRoleFromUser", setup, userId=user["id"], roleAssignmentId="KVJUKUS7IFCE2SKO")
    assert gone.status == 404
