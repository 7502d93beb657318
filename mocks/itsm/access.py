"""Who may do what in the ITSM mock: the roles of a ServiceNow instance, as one policy.

Roles: ``itil`` (service-desk agent: read everything, create and update tasks, resolve; no
close, no delete), ``itil_admin`` (itil plus close and delete of tasks), ``approver`` (acts
on its own approval records), ``admin`` (everything). A user with none of these is a
requester: sees and comments on its own records only.
"""

from __future__ import annotations

from collections.abc import Mapping

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import acl_denied, record_not_found

TASK_TABLES = frozenset({"incident", "problem", "change_request", "sc_request", "sc_req_item"})
#: Reference data only administrators change.
ADMIN_TABLES = frozenset(
    {"sys_user", "sys_user_group", "sys_user_grmember", "cmdb_ci", "kb_knowledge", "sc_cat_item",
     "cmn_location", "cmn_department"}
)  # fmt: skip
STAFF_ROLES = ("itil", "itil_admin")
_VERB = {Operation.CREATE: "Insert", Operation.WRITE: "Update", Operation.DELETE: "Delete"}


def _owns(identity: Identity, table: str, row: Row) -> bool:
    """A requester's own record: they are its caller, requester or opener."""
    me = identity.user_sys_id
    if table == "incident":
        return me in (row.get("caller_id"), row.get("opened_by"))
    if table == "sc_request":
        return me in (row.get("requested_for"), row.get("opened_by"))
    if table == "sc_req_item":
        return me in (row.get("opened_by"), row.get("requested_for"))
    if table == "sys_user":
        return me == row.get("sys_id")
    return False


def sees_work_notes(identity: Identity) -> bool:
    """Work notes are internal to IT staff; requesters see only customer-visible comments."""
    return identity.has_role(*STAFF_ROLES, "approver")


class ItsmAccessPolicy:
    """The ITSM access rules (see the module docstring)."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        """Allow or raise the vendor's 404 (not visible) / 403 (visible, not allowed)."""
        staff = identity.has_role(*STAFF_ROLES)
        if operation is Operation.READ:
            if not self._can_read(identity, staff, table, row):
                raise record_not_found()
            return
        if row is not None and not self._can_read(identity, staff, table, row):
            raise record_not_found()
        if not self._can_write(identity, staff, operation, table, row, changes or {}):
            raise acl_denied(_VERB[operation])

    def _can_read(self, identity: Identity, staff: bool, table: str, row: Row | None) -> bool:
        if staff or identity.has_role("approver"):
            return True
        if table in ("sc_cat_item", "cmn_location", "cmn_department", "sys_user_group"):
            return True
        if table == "kb_knowledge":
            return row is None or row.get("workflow_state") == "published"
        if row is None:
            return table in TASK_TABLES or table == "sys_user"
        return _owns(identity, table, row)

    def _can_write(
        self,
        identity: Identity,
        staff: bool,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str],
    ) -> bool:
        if identity.has_role("admin"):
            return True
        if table in ADMIN_TABLES:
            return False
        if operation is Operation.DELETE:
            return table in TASK_TABLES and identity.has_role("itil_admin")
        if table == "sysapproval_approver":
            # Approvals are acted on by their approver; creating them is the workflow's job.
            return (
                operation is Operation.WRITE and row is not None and row["approver"] == identity.user_sys_id
            )
        if table == "incident" and changes.get("state") == "7" and not identity.has_role("itil_admin"):
            return False  # closing is itil_admin's (the vendor's role split)
        if staff:
            return table in TASK_TABLES or table == "sys_journal_field"
        # Requesters: raise incidents and requests for themselves, comment on their own.
        if (
            operation is Operation.CREATE
            and changes.get("opened_by", identity.user_sys_id) != identity.user_sys_id
        ):
            return False  # only staff record something as opened by someone else
        if operation is Operation.CREATE:
            if table == "incident":
                return changes.get("caller_id", identity.user_sys_id) == identity.user_sys_id
            return table in ("sc_request", "sc_req_item")
        if table == "sys_journal_field":
            return False
        return row is not None and _owns(identity, table, row) and set(changes) <= {"comments"}

    def row_filter(self, identity: Identity, table: str) -> tuple[str, tuple[str, ...]] | None:
        """Requesters list only their own records; staff see everything."""
        if identity.has_role(*STAFF_ROLES, "approver"):
            return None
        me = identity.user_sys_id
        if table == "incident":
            return "(caller_id = ? OR opened_by = ?)", (me, me)
        if table == "sc_request":
            return "(requested_for = ? OR opened_by = ?)", (me, me)
        if table == "sc_req_item":
            return "(opened_by = ? OR requested_for = ?)", (me, me)
        if table == "sys_user":
            return "sys_id = ?", (me,)
        if table == "kb_knowledge":
            return "workflow_state = 'published'", ()
        if table in ("sc_cat_item", "cmn_location", "cmn_department", "sys_user_group"):
            return None
        return "0", ()
