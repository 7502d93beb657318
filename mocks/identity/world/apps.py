"""Apps, their group assignments and their users.

Each app in the bank is assigned to groups (``app_group``): ``Everyone`` for what the whole
company uses, an access group, or department groups. A user holds an app (``app_user``) through
each group they are in that the app is assigned to (``scope`` ``GROUP``), or directly (``USER``:
a few DocuSign seats, the expense portal for people managers); a direct assignment wins, as in
Okta. Deprovisioned users hold no apps; an inactive app keeps no assignments.
"""

from __future__ import annotations

from enterprise_envs.mocks.identity.world.common import DAY, HOUR, YEAR, Plan, UserPlan, bank
from enterprise_envs.mocks.identity.world.groups import department_group_name


def _app_name(spec: dict) -> str:
    """The integration's name: Okta's for a catalogue app, ``<org>_<app>_1`` for a custom one."""
    return spec.get("name") or f"{bank()['org_name']}_{spec['slug']}_1"


def build_apps(plan: Plan) -> None:
    """Plan the apps and queue ``app``, ``app_group`` and ``app_user`` rows."""
    apps, app_groups, app_users = [], [], []
    managers = {user.manager.id for user in plan.users if user.manager}
    live_people = [user for user in plan.live_users if user.kind == "person"]
    for spec in bank()["apps"]:
        created = plan.between(plan.org_created, plan.org_created + YEAR)
        app = {
            "id": plan.key("app"),
            "name": _app_name(spec),
            "label": spec["label"],
            "status": spec.get("status", "ACTIVE"),
            "signOnMode": spec["signOnMode"],
            "created": plan.fmt(created),
            "lastUpdated": plan.fmt(created),
        }
        apps.append(app)
        if app["status"] != "ACTIVE":
            continue
        group_names = [*spec.get("groups", ()), *map(department_group_name, spec.get("departments", ()))]
        held: dict[str, tuple[UserPlan, str]] = {}
        for priority, name in enumerate(group_names):
            group = plan.groups.get(name)
            if group is None:
                continue
            app_groups.append(
                {
                    "id": plan.key("app_group"),
                    "appId": app["id"],
                    "groupId": group.id,
                    "priority": str(priority),
                    "lastUpdated": plan.fmt(max(created, group.created)),
                }
            )
            for user in group.members:
                if user.status != "DEPROVISIONED":
                    held.setdefault(user.id, (user, "GROUP"))
        direct = [user for user in live_people if spec.get("managers") and user.id in managers]
        direct += [user for user in live_people if plan.rng.random() < spec.get("direct_share", 0.0)]
        for user in direct:
            held[user.id] = (user, "USER")
        for user, scope in held.values():
            since = plan.between(max(created, user.created), max(created, user.created) + 2 * DAY) + HOUR
            when = plan.fmt(since)
            app_users.append(
                {
                    "id": plan.key("app_user"),
                    "appId": app["id"],
                    "userId": user.id,
                    "scope": scope,
                    "status": "ACTIVE",
                    "syncState": "DISABLED",
                    "userName": user.login,
                    "created": when,
                    "lastUpdated": when,
                    "statusChanged": when,
                }
            )
    plan.apps = apps
    plan.add("app", apps)
    plan.add("app_group", app_groups)
    plan.add("app_user", app_users)
