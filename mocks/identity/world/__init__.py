"""Seeded identity world: an Okta org's users, groups, apps, factors, admin roles and System Log.

:func:`build_identity_world` fills every catalog table for a (size, seed). With a people source
in the World (``WorldBuild.people``, ITSM's employees) every person is a user with the same
login (as the short name of an e-mail-shaped Okta login), name, e-mail, department, title and
manager; alone, the org makes its own people with Faker (``SIZES``). Around them it adds former
employees (deprovisioned), the setup administrator's and the help-desk agent's accounts.

Everything is planned first and written with one bulk insert per table at the end. All
randomness comes from the build's seeded streams (``build.rng``, ``build.faker``, and an id
stream seeded from the same (size, seed)), so a (size, seed, people) gives a byte-identical
database in any process. The families are planned in a fixed order (they share one stream):

- :mod:`.people`: users, their statuses and lifecycle times;
- :mod:`.groups`: groups, memberships and admin role assignments;
- :mod:`.apps`: apps, their group assignments and their users;
- :mod:`.factors`: enrolled MFA factors;
- :mod:`.events`: the System Log.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.identity.world.apps import build_apps
from enterprise_envs.mocks.identity.world.common import ADMIN_SHORT_NAME, AGENT_SHORT_NAME, SIZES, Plan
from enterprise_envs.mocks.identity.world.events import build_events
from enterprise_envs.mocks.identity.world.factors import build_factors
from enterprise_envs.mocks.identity.world.groups import build_groups, choose_admins, group_rows, role_rows
from enterprise_envs.mocks.identity.world.people import assign_statuses, assign_times, build_users, user_rows

__all__ = ["ADMIN_SHORT_NAME", "AGENT_SHORT_NAME", "SIZES", "build_identity_world"]


def build_identity_world(build: WorldBuild) -> None:
    """Fill every identity table for ``build.size`` and ``build.seed`` (and the World's people).

    Args:
        build: The empty database and the seeded sources.
    """
    plan = Plan(build)
    build_users(plan)
    choose_admins(plan)
    assign_statuses(plan)
    assign_times(plan)
    build_groups(plan)
    plan.add("user", user_rows(plan))
    groups, members = group_rows(plan)
    plan.add("group", groups)
    plan.add("group_member", members)
    plan.add("role_assignment", role_rows(plan))
    build_apps(plan)
    build_factors(plan)
    build_events(plan)
    build.insert_planned(plan.rows)
