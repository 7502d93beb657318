"""The identity system's writer for the audit: a generic row write as one of Okta's operations.

Okta has no generic record API: a user's status changes by a lifecycle operation, a membership
is made and ended by the group's own calls, a factor is reset by unenrolling it. The audit's
probes that damage rows (an edit nobody asked for, a write of a table the task never touches,
an attempt the agent's role may not make) ask :data:`IDENTITY_WRITER` for the call of the ``rest``
surface that makes their write; a write no operation makes is None, and the probe reports that
part skipped (see ``AuditHints.writer`` in ``mocks/_core/conventions.py``).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

#: The surface whose tools (named by Okta's ``operationId``) the writer calls.
SURFACE = "rest"

#: Target status -> the lifecycle operation reaching it from any status it allows.
_TO_STATUS = {
    "SUSPENDED": "suspendUser",
    "DEPROVISIONED": "deactivateUser",
    "PASSWORD_EXPIRED": "expirePassword",
    "RECOVERY": "resetPassword",
}
#: Back to ACTIVE (or on to PROVISIONED): the operation depends on where the user is.
_FROM_STATUS = {
    "SUSPENDED": "unsuspendUser",
    "LOCKED_OUT": "unlockUser",
    "STAGED": "activateUser",
    "DEPROVISIONED": "activateUser",
}
#: The writer's tools whose arguments name fields of the table they write (by the table's own
#: field names: a user's ``id``, a membership's ``groupId`` and ``userId``, a profile's properties)
#: -> that table. ``assignUserToApplication`` names the user ``id`` (not the assignment's key)
#: and is left out, as is every tool the writer never calls (``resetFactors``).
_TABLES = {
    "createUser": "user",
    "updateUser": "user",
    "deleteUser": "user",
    "activateUser": "user",
    "reactivateUser": "user",
    "deactivateUser": "user",
    "suspendUser": "user",
    "unsuspendUser": "user",
    "unlockUser": "user",
    "expirePassword": "user",
    "resetPassword": "user",
    "unenrollFactor": "factor",
    "assignUserToGroup": "group_member",
    "unassignUserFromGroup": "group_member",
    "unassignUserFromApplication": "app_user",
    "assignRoleToUser": "role_assignment",
    "unassignRoleFromUser": "role_assignment",
}
#: A factor's status once unenrolled.
_UNENROLLED = "NOT_SETUP"

Made = tuple[str, str, dict[str, Any]]


def _role_id(role_type: str) -> str:
    """A standard role assignment's id as ``rest`` shows it: the type in base32, unpadded."""
    return base64.b32encode(role_type.encode("ascii")).decode("ascii").rstrip("=")


def _user(key: str, fields: Mapping[str, str], row: Mapping[str, str] | None) -> str | None:
    """The operation for an update of a user: a lifecycle one for ``status``, else a profile update."""
    if "status" not in fields:
        return "updateUser" if fields else None
    if len(fields) != 1:
        return None  # a status and profile properties at once: no single operation
    target = fields["status"]
    if target in _TO_STATUS:
        return _TO_STATUS[target]
    if target in ("ACTIVE", "PROVISIONED") and row is not None:
        return _FROM_STATUS.get(row.get("status", ""))
    return None  # nothing locks a user out or stages one


class IdentityWriter:
    """Okta's operations for the audit's generic writes (``AuditHints.writer``)."""

    def write(
        self, operation: str, table: str, key: str, fields: Mapping[str, str], row: Mapping[str, str] | None
    ) -> Made | None:
        """The ``rest`` call making a generic write, or None when no operation makes it.

        - ``user``: create by ``createUser`` with the fields as the profile (activated unless
          the row is to be ``STAGED``); ``status`` by the lifecycle operation reaching it
          (suspend, unsuspend, unlock, deactivate, activate, expire or reset the password);
          other fields by ``updateUser`` with them as the profile; delete by ``deleteUser``.
        - ``group_member``: create by ``assignUserToGroup``, delete by ``unassignUserFromGroup``.
        - ``factor``: ``status`` to ``NOT_SETUP``, or delete, by ``unenrollFactor``.
        - ``app_user``: create by ``assignUserToApplication``, delete by
          ``unassignUserFromApplication``.
        - ``role_assignment`` of a user: create by ``assignRoleToUser``, delete by
          ``unassignRoleFromUser``.

        Anything else (a group's or an app's properties, a role held through a group, the System
        Log) has no operation: None.
        """
        row = row or None
        if table == "user":
            if operation == "delete":
                return (SURFACE, "deleteUser", {"id": key})
            if operation == "create":
                profile = {name: value for name, value in fields.items() if name != "status"}
                staged = fields.get("status") == "STAGED"
                return (SURFACE, "createUser", {"profile": profile, "activate": not staged})
            if operation != "update":
                return None
            tool = _user(key, fields, row)
            if tool is None:
                return None
            if tool == "updateUser":
                return (SURFACE, tool, {"id": key, "profile": dict(fields)})
            return (SURFACE, tool, {"id": key})
        if table == "group_member":
            pair = fields if operation == "create" else (row or {})
            group, user = pair.get("groupId", ""), pair.get("userId", "")
            if not (group and user) or operation == "update":
                return None
            if operation == "create" and set(fields) - {"groupId", "userId"}:
                return None
            tool = "assignUserToGroup" if operation == "create" else "unassignUserFromGroup"
            return (SURFACE, tool, {"groupId": group, "userId": user})
        if table == "factor":
            unenroll = operation == "delete" or (operation == "update" and fields == {"status": _UNENROLLED})
            if not unenroll or row is None or not row.get("userId"):
                return None
            return (SURFACE, "unenrollFactor", {"userId": row["userId"], "factorId": key})
        if table == "app_user":
            if operation == "create":
                if not (fields.get("appId") and fields.get("userId")):
                    return None
                if set(fields) - {"appId", "userId", "scope", "userName"}:
                    return None
                arguments: dict[str, Any] = {"appId": fields["appId"], "id": fields["userId"]}
                if fields.get("scope"):
                    arguments["scope"] = fields["scope"]
                if fields.get("userName"):
                    arguments["credentials"] = {"userName": fields["userName"]}
                return (SURFACE, "assignUserToApplication", arguments)
            if operation == "delete" and row is not None and row.get("appId") and row.get("userId"):
                return (
                    SURFACE,
                    "unassignUserFromApplication",
                    {"appId": row["appId"], "userId": row["userId"]},
                )
            return None
        if table == "role_assignment":
            if operation == "create":
                if not (fields.get("userId") and fields.get("type")):
                    return None
                if fields.get("assignmentType", "USER") != "USER" or fields.get("groupId"):
                    return None
                if set(fields) - {"userId", "type", "assignmentType", "status"}:
                    return None
                return (SURFACE, "assignRoleToUser", {"userId": fields["userId"], "type": fields["type"]})
            if operation == "delete" and row is not None and row.get("assignmentType") == "USER":
                return (
                    SURFACE,
                    "unassignRoleFromUser",
                    {"userId": row["userId"], "roleAssignmentId": _role_id(row["type"])},
                )
            return None
        return None

    def table_of(self, surface: str, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """The table whose fields a call of one of the writer's ``rest`` tools names (else None)."""
        return _TABLES.get(tool) if surface == SURFACE else None


#: The identity system's writer, declared in its conventions.
IDENTITY_WRITER = IdentityWriter()
