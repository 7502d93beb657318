"""Seeded ITSM world: the people, groups, CIs, knowledge and task history a fresh instance holds.

:func:`build_itsm_world` fills every catalog table for a (size, seed) from the text bank in
:mod:`world_data`. Everything is planned in Python first (people, then the records that point
at them) and written with one bulk insert per table at the end, so even the large world builds
in seconds. All randomness comes from the build's seeded streams (``build.rng``,
``build.faker``, ``build.ids``), so a (size, seed) always gives a byte-identical database.

Times are integer UNIX seconds while planning and are formatted once when a row is written.
Every recorded event (opened, resolved, closed, journal entries, ``sys_*`` stamps) lies before
the world's epoch; only the planned times in :data:`PLANNED_FIELDS` (an active incident's SLA
due time, a change's planned window) may lie after it, as they would on a live instance.

The builder is split by table family; each module plans its tables and queues their rows:

- :mod:`.common`: sizes, the agent and admin accounts, time and sampling helpers, and the
  planning state (:class:`~.common.World`, :class:`~.common.Person`, :class:`~.common.Task`).
- :mod:`.people`: locations, departments, users, groups and memberships.
- :mod:`.cmdb`: configuration items and knowledge articles.
- :mod:`.catalog`: catalog items, requests and requested items.
- :mod:`.changes`: change requests and their approvals.
- :mod:`.problems`: problems.
- :mod:`.incidents`: incidents, their SLAs, duplicates and links.
- :mod:`.journals`: incident work notes, comments, caller replies and close notes.

Families are built in a fixed order (see :func:`build_itsm_world`) because they share one
seeded stream: moving a call changes every later draw, and so the whole world.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.itsm.world.catalog import build_catalog_items, build_requests
from enterprise_envs.mocks.itsm.world.changes import build_changes
from enterprise_envs.mocks.itsm.world.cmdb import build_cis, build_knowledge
from enterprise_envs.mocks.itsm.world.common import (
    ADMIN_USER_NAME,
    AGENT_USER_NAME,
    PLANNED_FIELDS,
    SIZES,
    World,
)
from enterprise_envs.mocks.itsm.world.incidents import build_incidents
from enterprise_envs.mocks.itsm.world.people import (
    build_departments,
    build_groups,
    build_locations,
    build_people,
    build_user_rows,
)
from enterprise_envs.mocks.itsm.world.problems import build_problems

__all__ = ["ADMIN_USER_NAME", "AGENT_USER_NAME", "PLANNED_FIELDS", "SIZES", "build_itsm_world"]


def build_itsm_world(build: WorldBuild) -> None:
    """Fill every ITSM table for ``build.size`` and ``build.seed``.

    Args:
        build: The empty database and the seeded sources (rng, faker, ids, clock).
    """
    world = World(build, SIZES[build.size], int(build.clock.now().timestamp()))
    build_locations(world)
    build_departments(world)
    build_people(world)
    build_groups(world)
    build_user_rows(world)
    build_cis(world)
    build_knowledge(world)
    build_catalog_items(world)
    build_changes(world)
    build_problems(world)
    build_incidents(world)
    build_requests(world)
    world.build.insert_planned(world.rows)
