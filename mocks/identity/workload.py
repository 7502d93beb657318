"""Identity's bench workload: the calls ``enterprise-envs bench`` times on this system.

Sample rows are active ordinary users: employees (not the service accounts) who hold no admin
role, directly or through a group, so the help-desk administrator the agent acts as may run
their lifecycle operations and change their memberships; every world size has many. The
task-level surface finds one by login, the Management API by id.

The help desk edits no profile field (its role runs lifecycle operations and memberships only),
so there is no free text to write: the timed write is a lifecycle operation that succeeds on the
same user again and again, expiring the password. The first after a reset moves the user from
ACTIVE to PASSWORD_EXPIRED; later ones are allowed from there and run the whole path (lookup,
access check, status check, System Log event, answer) but leave the user row as it is. The
bench's text argument is not used.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.conventions import Call, SurfaceCalls, Workload
from enterprise_envs.mocks._core.store import Store

_TABLE = "user"
#: Active employees holding no admin role (the ones the agent may act on).
_ORDINARY_ACTIVE = """status = 'ACTIVE' AND "userType" = 'Employee'
  AND id NOT IN (SELECT "userId" FROM role_assignment WHERE "userId" != '')
  AND id NOT IN (SELECT m."userId" FROM group_member m JOIN role_assignment r ON r."groupId" = m."groupId")"""
#: Groups the help desk may add an ordinary user to (Okta-managed, holding no admin role) that
#: the user (the parameter) is not in yet.
_ACCESS_GROUP = """type = 'OKTA_GROUP'
  AND id NOT IN (SELECT "groupId" FROM role_assignment WHERE "groupId" != '')
  AND id NOT IN (SELECT "groupId" FROM group_member WHERE "userId" = ?)"""


def _typed_read(row: Mapping[str, Any]) -> Call:
    return "get_user", {"user": row["login"]}


def _typed_write(row: Mapping[str, Any], text: str) -> Call:
    return "expire_password", {"user": row["login"]}


def _rest_read(row: Mapping[str, Any]) -> Call:
    return "getUser", {"id": row["id"]}


def _rest_write(row: Mapping[str, Any], text: str) -> Call:
    return "expirePassword", {"id": row["id"]}


def _episode_writes(store: Store, row: Mapping[str, Any]) -> tuple[Call, ...]:
    """The sample user added to an access group they are not in, and their password expired."""
    group = store.select("group", _ACCESS_GROUP, (row["id"],), limit=1)[0]
    return (
        ("add_user_to_group", {"user": row["login"], "group": group["id"]}),
        ("expire_password", {"user": row["login"]}),
    )


IDENTITY_WORKLOAD = Workload(
    table=_TABLE,
    where=_ORDINARY_ACTIVE,
    surfaces={
        "typed": SurfaceCalls(read=_typed_read, write=_typed_write),
        "rest": SurfaceCalls(read=_rest_read, write=_rest_write),
    },
    episode_writes=_episode_writes,
    message="Could you give me your work e-mail address, please?",
    scenario="identity.unlock_account",
    call_scenario="identity.group_access",
)
