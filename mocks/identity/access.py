r"""Who may do what in the identity mock: Okta's admin roles, as one policy.

- ``SUPER_ADMIN`` may do everything (scenario setup acts as one).
- ``HELP_DESK_ADMIN`` (the agent's role) reads everything and may:

  - run the lifecycle operations of users who hold no admin role: unlock, reset factors (or
    unenroll one), reset and expire passwords, suspend and unsuspend, deactivate, and bring back a
    deactivated or half-activated user (activate a ``DEPROVISIONED`` one, reactivate a
    ``PROVISIONED`` or ``RECOVERY`` one); activating a ``STAGED`` (new) account is onboarding,
    not the help desk's;
  - add and remove members of ``OKTA_GROUP``s that hold no admin role, when the member holds
    none either.

  It may not touch a user holding an admin role (directly or through a group), a ``BUILT_IN``
  group or one holding an admin role, create users (``createUser``), edit a profile, assign apps
  or roles, or delete users.
- Any other admin role reads everything and writes nothing (those roles' own rights are not
  modelled).
- A user without an admin role sees the org's groups and apps, their own account and what hangs
  off it (factors, memberships, assignments, roles), and writes nothing.

Refusals are Okta's: 403 E0000006 ``You do not have permission to perform the requested
action`` for a write, 404 E0000007 for a row the caller may not see. Whether a target holds an
admin role is read from the org the caller belongs to: identities are :class:`OrgIdentity`\\ s,
built with their org's store (``identity_of``), so the policy can read roles at check time.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.store import Row, Store
from enterprise_envs.mocks.identity.errors import access_denied, resource_not_found

#: The role holding every right.
SUPER_ADMIN = "SUPER_ADMIN"
#: The help-desk administrator's role (the agent's).
HELP_DESK_ADMIN = "HELP_DESK_ADMIN"
#: A role assignment's ``label`` by role type, as the 2026.06.3 description's role table names them
#: (``USER_ADMIN`` and ``APP_ADMIN`` as the captured assignments do).
ROLE_LABELS = {
    "SUPER_ADMIN": "Super Administrator",
    "ORG_ADMIN": "Organizational Administrator",
    "APP_ADMIN": "Application Administrator",
    "USER_ADMIN": "User Administrator",
    "HELP_DESK_ADMIN": "Help Desk Administrator",
    "GROUP_MEMBERSHIP_ADMIN": "Group Membership Administrator",
    "READ_ONLY_ADMIN": "Read-Only Administrator",
    "REPORT_ADMIN": "Report Administrator",
    "MOBILE_ADMIN": "Mobile Administrator",
    "API_ACCESS_MANAGEMENT_ADMIN": "Access Management Administrator",
}
#: Okta's name for the object a table's rows are, in a 404's summary.
_RESOURCE_KINDS = {"user": "User", "group": "UserGroup", "app": "AppInstance", "factor": "UserFactor"}
#: Every admin role type an identity may hold (Okta's standard roles).
ADMIN_ROLES = tuple(ROLE_LABELS)
#: Tables anyone may read (the org's groups and apps).
_PUBLIC_TABLES = frozenset({"group", "app"})
#: Tables whose rows belong to one user through ``userId``.
_OWNED_BY_USER = frozenset({"factor", "app_user", "group_member", "role_assignment"})
#: User fields the lifecycle operations set: the only ones a help-desk administrator changes.
LIFECYCLE_FIELDS = frozenset({"status", "statusChanged", "activated", "passwordChanged", "lastLogin"})
#: Statuses an activation leads to (refused from STAGED to the help desk: onboarding).
_ACTIVATED = frozenset({"ACTIVE", "PROVISIONED"})


@dataclass(frozen=True)
class OrgIdentity(Identity):
    """An identity that knows its org, so the policy can read the roles of what it acts on.

    Attributes:
        org: The store of the org the identity belongs to (None: unknown, no scoped right holds).
    """

    org: Store | None = field(default=None, compare=False, hash=False, repr=False)


def roles_of(store: Store, user_id: str) -> list[str]:
    """The admin role types a user holds: assigned to them, or to a group they are a member of."""
    rows = store.conn.execute(
        """
        SELECT DISTINCT r.type FROM role_assignment r
        WHERE r.status = 'ACTIVE' AND (
            r."userId" = ?
            OR r."groupId" IN (SELECT m."groupId" FROM group_member m WHERE m."userId" = ?)
        )
        ORDER BY r.type
        """,
        (user_id, user_id),
    ).fetchall()
    return [row[0] for row in rows]


def group_roles(store: Store, group_id: str) -> list[str]:
    """The admin role types assigned to a group (its members hold them)."""
    rows = store.conn.execute(
        "SELECT DISTINCT type FROM role_assignment WHERE status = 'ACTIVE' AND \"groupId\" = ? ORDER BY type",
        (group_id,),
    ).fetchall()
    return [row[0] for row in rows]


def _is_admin(identity: Identity) -> bool:
    return identity.has_role(*ADMIN_ROLES)


def _own(identity: Identity, table: str, row: Row) -> bool:
    if table == "user":
        return row.get("id") == identity.user_sys_id
    return table in _OWNED_BY_USER and row.get("userId") == identity.user_sys_id


class IdentityAccessPolicy:
    """The identity access rules (see the module docstring)."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        """Allow, or raise Okta's 404 (not visible) / 403 (visible, not allowed)."""
        if row is not None and not self._can_read(identity, table, row):
            key = row.get("id") or row.get("uuid") or ""
            raise resource_not_found(key, _RESOURCE_KINDS.get(table, table))
        if operation is Operation.READ or identity.has_role(SUPER_ADMIN):
            return
        if identity.has_role(HELP_DESK_ADMIN) and self._help_desk_may(
            identity, operation, table, row, changes or {}
        ):
            return
        raise access_denied()

    def _can_read(self, identity: Identity, table: str, row: Row) -> bool:
        return _is_admin(identity) or table in _PUBLIC_TABLES or _own(identity, table, row)

    def _help_desk_may(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str],
    ) -> bool:
        org = getattr(identity, "org", None)
        if org is None:
            return False
        facts = {**(row or {}), **changes}
        if table == "user":
            # Only lifecycle writes of an existing user: creating one is not the help desk's.
            return (
                operation is Operation.WRITE
                and row is not None
                and not roles_of(org, row["id"])
                and set(changes) <= LIFECYCLE_FIELDS
                and not (row["status"] == "STAGED" and changes.get("status") in _ACTIVATED)
            )
        if table == "factor":
            owner = facts.get("userId", "")
            return (
                operation in (Operation.WRITE, Operation.DELETE)
                and bool(owner)
                and set(changes) <= {"status"}
                and not roles_of(org, owner)
            )
        if table == "group_member":
            if operation not in (Operation.CREATE, Operation.DELETE):
                return False
            group = org.get("group", facts.get("groupId", ""))
            user_id = facts.get("userId", "")
            return (
                group is not None
                and group["type"] == "OKTA_GROUP"
                and not group_roles(org, group["id"])
                and bool(user_id)
                and not roles_of(org, user_id)
            )
        return False

    def row_filter(self, identity: Identity, table: str) -> tuple[str, tuple[str, ...]] | None:
        """Admins list every row; anyone else only their own."""
        if _is_admin(identity):
            return None
        me = identity.user_sys_id
        if table == "user":
            return "id = ?", (me,)
        if table in _OWNED_BY_USER:
            return '"userId" = ?', (me,)
        if table in _PUBLIC_TABLES:
            return None
        return "0", ()
