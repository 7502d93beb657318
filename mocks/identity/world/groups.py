"""Groups, memberships and admin role assignments.

- ``Everyone`` (``BUILT_IN``, every user) and ``Okta Administrators`` (``BUILT_IN``, every
  holder of an admin role), as every Okta org has them;
- admin groups (``OKTA_GROUP`` holding a role): ``IT Super Admins`` (``SUPER_ADMIN``) and
  ``Help Desk Admins`` (``HELP_DESK_ADMIN``), filled from the IT department;
- a department group per department (``<department> Department``);
- access groups (``Jira Users``, ``Salesforce Users``, ...) that apps are assigned to, filled by
  per-department shares;
- groups imported from Google Workspace (``APP_GROUP``, named by their address): their
  members are managed in that app, not in Okta.

Roles: the setup administrator holds ``SUPER_ADMIN`` and the agent ``HELP_DESK_ADMIN``
directly; an IT person holds ``APP_ADMIN`` directly and, if the org has a Finance department,
someone there ``READ_ONLY_ADMIN``.

Deprovisioned users stay only in ``Everyone``.
"""

from __future__ import annotations

from enterprise_envs.mocks.identity.access import ROLE_LABELS
from enterprise_envs.mocks.identity.world.common import DAY, YEAR, GroupPlan, Plan, UserPlan, bank, share

EVERYONE = "Everyone"
ADMINISTRATORS = "Okta Administrators"
#: Okta's own words for its built-in groups (``Everyone``'s as captured).
_BUILT_IN_DESCRIPTIONS = {
    EVERYONE: "All users in your organization",
    ADMINISTRATORS: "Okta manages this group, which contains all administrators in your organization.",
}
#: The department whose people run the org's identity administration.
_AUDIT_DEPARTMENT = "Finance"


def department_group_name(department: str) -> str:
    """The name of a department's group."""
    return f"{department} Department"


def choose_admins(plan: Plan) -> None:
    """Pick the people who hold admin roles, before statuses are drawn (admins stay ACTIVE)."""
    it = bank()["it_department"]
    staff = [user for user in plan.people if user.department == it] or list(plan.people)
    staff = sorted(staff, key=lambda user: user.short)
    plan.rng.shuffle(staff)
    super_group, help_group = (group["name"] for group in bank()["admin_groups"])
    desk = max(2, round(0.01 * len(plan.people)))
    if staff:
        staff[0].admin_groups.append(super_group)
    for user in staff[1 : 1 + desk]:
        user.admin_groups.append(help_group)
    if len(staff) > 1 + desk:
        staff[1 + desk].roles.append("APP_ADMIN")
    auditors = sorted((u for u in plan.people if u.department == _AUDIT_DEPARTMENT), key=lambda u: u.short)
    if auditors:
        plan.rng.choice(auditors).roles.append("READ_ONLY_ADMIN")


def _group(plan: Plan, name: str, kind: str, description: str, created: int) -> GroupPlan:
    group = GroupPlan(
        {"id": plan.key("group"), "type": kind, "name": name, "description": description},
        created=created,
    )
    plan.groups[name] = group
    return group


def _later_group(plan: Plan, name: str, kind: str, description: str) -> GroupPlan:
    return _group(
        plan, name, kind, description, plan.between(plan.org_created + DAY, plan.org_created + YEAR)
    )


def _members_by_rule(plan: Plan, rule: dict, people: list[UserPlan]) -> list[UserPlan]:
    if rule.get("managers"):
        managers = {user.manager.id for user in plan.users if user.manager}
        return [user for user in people if user.id in managers]
    if "shares" in rule:
        return [user for user in people if share(plan.rng, rule["shares"], user.department)]
    return [user for user in people if plan.rng.random() < rule.get("share", 0.0)]


def build_groups(plan: Plan) -> None:
    """Plan every group and its members (see the module docstring)."""
    live = plan.live_users
    staff = [user for user in live if user.kind == "person"]
    everyone = _group(plan, EVERYONE, "BUILT_IN", _BUILT_IN_DESCRIPTIONS[EVERYONE], plan.org_created)
    everyone.members = list(plan.users)
    administrators = _group(
        plan, ADMINISTRATORS, "BUILT_IN", _BUILT_IN_DESCRIPTIONS[ADMINISTRATORS], plan.org_created
    )
    administrators.members = [user for user in live if user.roles or user.admin_groups]
    for spec in bank()["admin_groups"]:
        group = _later_group(plan, spec["name"], "OKTA_GROUP", spec["description"])
        group.members = [user for user in live if spec["name"] in user.admin_groups]
    for department in sorted({user.department for user in staff if user.department}):
        group = _later_group(
            plan, department_group_name(department), "OKTA_GROUP", f"Everyone in the {department} department"
        )
        group.members = [user for user in staff if user.department == department]
    for spec in bank()["access_groups"]:
        group = _later_group(plan, spec["name"], "OKTA_GROUP", spec["description"])
        group.members = _members_by_rule(plan, spec, staff)
    for spec in bank()["imported_groups"]:
        group = _later_group(plan, f"{spec['name']}@{plan.domain}", "APP_GROUP", spec["description"])
        group.members = _members_by_rule(plan, spec, staff)


def group_rows(plan: Plan) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """The ``group`` and ``group_member`` rows."""
    groups, members = [], []
    for group in plan.groups.values():
        joined = [max(user.activated, user.created) for user in group.members]
        row = dict(group.row)
        row["created"] = row["lastUpdated"] = plan.fmt(group.created)
        row["lastMembershipUpdated"] = plan.fmt(max([group.created, *joined]))
        groups.append(row)
        members += [
            {"id": plan.key("group_member"), "groupId": group.id, "userId": user.id} for user in group.members
        ]
    return groups, members


def role_rows(plan: Plan) -> list[dict[str, str]]:
    """The ``role_assignment`` rows: roles held directly, then roles held by admin groups."""
    rows = []

    def assignment(role: str, created: int, *, user: str = "", group: str = "") -> dict[str, str]:
        when = plan.fmt(created)
        return {
            "id": plan.key("role_assignment"),
            "type": role,
            "label": ROLE_LABELS[role],
            "status": "ACTIVE",
            "assignmentType": "USER" if user else "GROUP",
            "userId": user,
            "groupId": group,
            "created": when,
            "lastUpdated": when,
        }

    for user in plan.users:
        for role in user.roles:
            rows.append(assignment(role, max(user.activated, user.created), user=user.id))
    for spec in bank()["admin_groups"]:
        group = plan.groups[spec["name"]]
        rows.append(assignment(spec["role"], group.created, group=group.id))
    return rows
