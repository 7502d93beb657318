"""Who may do what in the identity mock: Okta's admin roles, as one policy (a placeholder).

Today: a ``SUPER_ADMIN`` may do everything (scenario setup acts as one); any other admin role
(``HELP_DESK_ADMIN``, the agent's, ``READ_ONLY_ADMIN``, ...) reads everything and writes
nothing; a user without an admin role sees the org's groups and apps, their own account and
what hangs off it (factors, memberships, assignments, roles), and writes nothing. Refusals are
Okta's: 403 E0000006 for a write, 404 E0000007 for a row the caller may not see.

The help-desk administrator's writes (unlock, reset factors, membership of non-admin groups;
never admin roles or admin groups) come with the service layer, which will replace
:meth:`IdentityAccessPolicy._can_write`.
"""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.store import Row
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
        if operation is Operation.READ:
            return
        if not self._can_write(identity, operation, table, row, changes or {}):
            raise access_denied()

    def _can_read(self, identity: Identity, table: str, row: Row) -> bool:
        return _is_admin(identity) or table in _PUBLIC_TABLES or _own(identity, table, row)

    def _can_write(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str],
    ) -> bool:
        # The placeholder: only a super administrator writes until the service layer's rules land.
        return identity.has_role(SUPER_ADMIN)

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
