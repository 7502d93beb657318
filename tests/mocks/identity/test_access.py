"""The help-desk administrator's rights (the agent's): each allowed and each refused operation.

Allowed: the lifecycle operations of users without an admin role (unlock, reset factors or
unenroll one, reset and expire passwords, suspend, unsuspend, deactivate, bring a deactivated
or half-activated user back), and membership of ordinary groups (``OKTA_GROUP`` without an admin
role). Refused with Okta's 403 E0000006, changing nothing and logged as a denial: anything on a
user holding an admin role, ``BUILT_IN`` groups and groups holding admin roles, assigning roles
or apps, editing profiles, deleting users, activating a new (``STAGED``) account.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity import IDENTITY
from enterprise_envs.mocks.identity.access import OrgIdentity
from tests.mocks.identity.helpers import (
    admin_user,
    as_user_row,
    group_named,
    ordinary_user,
    rest,
    typed,
    user_where,
)

HAS_FACTORS = "id IN (SELECT \"userId\" FROM factor WHERE status = 'ACTIVE')"


def _not_member(backend: Backend, group: str, status: str = "ACTIVE") -> dict[str, str]:
    gid = group_named(backend, group)["id"]
    return ordinary_user(
        backend, status, f'id NOT IN (SELECT "userId" FROM group_member WHERE "groupId" = \'{gid}\')'
    )


def _member(backend: Backend, group: str) -> dict[str, str]:
    gid = group_named(backend, group)["id"]
    return ordinary_user(
        backend, "ACTIVE", f'id IN (SELECT "userId" FROM group_member WHERE "groupId" = \'{gid}\')'
    )


Call = Callable[[Backend], tuple[str, dict[str, Any]]]

#: name -> (tool, arguments) the help desk may call, on targets it may act on.
ALLOWED: dict[str, Call] = {
    "unlock": lambda b: ("unlockUser", {"id": ordinary_user(b, "LOCKED_OUT")["id"]}),
    "reset factors": lambda b: ("resetFactors", {"id": ordinary_user(b, "ACTIVE", HAS_FACTORS)["id"]}),
    "reset password": lambda b: ("resetPassword", {"id": ordinary_user(b)["id"]}),
    "expire password": lambda b: ("expirePassword", {"id": ordinary_user(b)["id"]}),
    "suspend": lambda b: ("suspendUser", {"id": ordinary_user(b)["id"]}),
    "unsuspend": lambda b: ("unsuspendUser", {"id": ordinary_user(b, "SUSPENDED")["id"]}),
    "deactivate": lambda b: ("deactivateUser", {"id": ordinary_user(b)["id"]}),
    "activate a leaver": lambda b: ("activateUser", {"id": user_where(b, "status = 'DEPROVISIONED'")["id"]}),
    "reactivate": lambda b: ("reactivateUser", {"id": ordinary_user(b, "PROVISIONED")["id"]}),
    "unenroll a factor": lambda b: (
        "unenrollFactor",
        {
            "userId": (owner := ordinary_user(b, "ACTIVE", HAS_FACTORS))["id"],
            "factorId": b.store.select("factor", "\"userId\" = ? AND status = 'ACTIVE'", (owner["id"],))[0][
                "id"
            ],
        },
    ),
    "add to an ordinary group": lambda b: (
        "assignUserToGroup",
        {"groupId": group_named(b, "VPN Users")["id"], "userId": _not_member(b, "VPN Users")["id"]},
    ),
    "remove from an ordinary group": lambda b: (
        "unassignUserFromGroup",
        {"groupId": group_named(b, "VPN Users")["id"], "userId": _member(b, "VPN Users")["id"]},
    ),
}

#: name -> (tool, arguments) the help desk may not call.
REFUSED: dict[str, Call] = {
    "suspend an admin": lambda b: ("suspendUser", {"id": admin_user(b)["id"]}),
    "reset an admin's factors": lambda b: ("resetFactors", {"id": admin_user(b)["id"]}),
    "reset an admin's password": lambda b: ("resetPassword", {"id": admin_user(b)["id"]}),
    "deactivate the super administrator": lambda b: ("deactivateUser", {"id": "okta-admin"}),
    "deactivate itself": lambda b: ("deactivateUser", {"id": "it-helpdesk"}),
    "unenroll an admin's factor": lambda b: (
        "unenrollFactor",
        {
            "userId": (owner := admin_user(b, HAS_FACTORS))["id"],
            "factorId": b.store.select("factor", "\"userId\" = ? AND status = 'ACTIVE'", (owner["id"],))[0][
                "id"
            ],
        },
    ),
    "activate a new account": lambda b: ("activateUser", {"id": ordinary_user(b, "STAGED")["id"]}),
    "delete a user": lambda b: ("deleteUser", {"id": ordinary_user(b)["id"]}),
    "delete a leaver": lambda b: ("deleteUser", {"id": user_where(b, "status = 'DEPROVISIONED'")["id"]}),
    "edit a profile": lambda b: ("updateUser", {"id": ordinary_user(b)["id"], "profile": {"title": "CEO"}}),
    "grant an admin role": lambda b: (
        "assignRoleToUser",
        {"userId": ordinary_user(b)["id"], "type": "SUPER_ADMIN"},
    ),
    "assign an app": lambda b: (
        "assignUserToApplication",
        {"appId": b.store.select("app", "label = 'DocuSign'")[0]["id"], "id": ordinary_user(b)["id"]},
    ),
    "add to the help desk admin group": lambda b: (
        "assignUserToGroup",
        {"groupId": group_named(b, "Help Desk Admins")["id"], "userId": ordinary_user(b)["id"]},
    ),
    "add to the super admin group": lambda b: (
        "assignUserToGroup",
        {"groupId": group_named(b, "IT Super Admins")["id"], "userId": ordinary_user(b)["id"]},
    ),
    "remove from Everyone": lambda b: (
        "unassignUserFromGroup",
        {"groupId": group_named(b, "Everyone")["id"], "userId": ordinary_user(b)["id"]},
    ),
    "add to Okta Administrators": lambda b: (
        "assignUserToGroup",
        {"groupId": group_named(b, "Okta Administrators")["id"], "userId": ordinary_user(b)["id"]},
    ),
    "add an admin to an ordinary group": lambda b: (
        "assignUserToGroup",
        {"groupId": group_named(b, "VPN Users")["id"], "userId": admin_user(b)["id"]},
    ),
    "re-add a member of an admin group (idempotent PUT)": lambda b: (
        "assignUserToGroup",
        {
            "groupId": (group := group_named(b, "Help Desk Admins"))["id"],
            "userId": b.store.select("group_member", '"groupId" = ?', (group["id"],))[0]["userId"],
        },
    ),
}


@pytest.mark.parametrize("name", list(ALLOWED))
def test_the_help_desk_may(okta: Backend, name: str) -> None:
    tool, arguments = ALLOWED[name](okta)
    result = rest(okta, tool, **arguments)
    assert result.ok, (name, result.body)
    assert okta.denials == [] and okta.store.changed_rows()


@pytest.mark.parametrize("name", list(REFUSED))
def test_the_help_desk_may_not(okta: Backend, name: str) -> None:
    tool, arguments = REFUSED[name](okta)
    before = okta.serialize()
    result = rest(okta, tool, **arguments)
    assert result.status == 403, (name, result.body)
    assert result.body["errorCode"] == "E0000006"
    assert result.body["errorSummary"] == "You do not have permission to perform the requested action"
    assert set(result.body) == {"errorCode", "errorSummary", "errorLink", "errorId", "errorCauses"}
    # Refusals change nothing, and the backend logs what was tried.
    assert okta.serialize() == before and okta.store.changed_rows() == []
    assert okta.denials and okta.denials[-1].tool == tool


def test_the_typed_surface_is_refused_alike(okta: Backend) -> None:
    admin = admin_user(okta)
    for tool, arguments in (
        ("suspend_user", {"user": admin["login"]}),
        ("reset_mfa", {"user": admin["email"]}),
        ("unlock_user", {"user": "okta-admin"}),
        ("add_user_to_group", {"user": ordinary_user(okta)["login"], "group": "help desk admins"}),
        ("remove_user_from_group", {"user": ordinary_user(okta)["login"], "group": "Everyone"}),
        ("reactivate_user", {"user": ordinary_user(okta, "STAGED")["login"]}),
    ):
        result = typed(okta, tool, **arguments)
        assert result.status == 403 and result.body["errorCode"] in ("E0000006", "E0000038"), (
            tool,
            result.body,
        )
        assert okta.store.changed_rows() == []


def test_the_help_desk_reads_everything(okta: Backend) -> None:
    admin = admin_user(okta)
    assert rest(okta, "getUser", id=admin["id"]).ok
    assert rest(okta, "listGroupAssignedRoles", groupId=group_named(okta, "IT Super Admins")["id"]).body
    assert rest(okta, "listLogEvents").ok
    for table in IDENTITY.catalog:
        assert IDENTITY.access.row_filter(okta.identity, table) is None


def test_an_employee_sees_their_own_account_only(okta: Backend) -> None:
    me, other = ordinary_user(okta), ordinary_user(okta, "LOCKED_OUT")
    employee = as_user_row(okta, me)
    assert isinstance(employee, OrgIdentity) and not employee.roles
    assert rest(okta, "getUser", employee, id=me["id"]).ok
    hidden = rest(okta, "getUser", employee, id=other["id"])
    assert hidden.status == 404 and hidden.body["errorCode"] == "E0000007"
    assert [row["id"] for row in rest(okta, "listUsers", employee).body] == [me["id"]]
    refused = rest(okta, "suspendUser", employee, id=me["id"])
    assert refused.status == 403 and okta.store.changed_rows() == []


def test_the_policy_decides_from_the_org_the_identity_belongs_to(okta: Backend) -> None:
    """The audit asks the policy directly: the agent's identity carries its org."""
    policy, agent = IDENTITY.access, okta.identity
    assert isinstance(agent, OrgIdentity) and agent.org is okta.store
    plain, admin = ordinary_user(okta), admin_user(okta)
    policy.check(agent, Operation.WRITE, "user", plain, {"status": "SUSPENDED"})
    with pytest.raises(Exception, match="E0000006|permission"):
        policy.check(agent, Operation.WRITE, "user", admin, {"status": "SUSPENDED"})
    with pytest.raises(Exception, match="permission"):
        policy.check(agent, Operation.WRITE, "user", plain, {"title": "x"})
    # Without its org, a help-desk identity holds no scoped right.
    orphan = OrgIdentity(agent.user_sys_id, agent.user_name, agent.roles, agent.superuser)
    with pytest.raises(Exception, match="permission"):
        policy.check(orphan, Operation.WRITE, "user", plain, {"status": "SUSPENDED"})
