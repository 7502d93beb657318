"""Surface ``typed``: curated, task-level ITSM tools, the way vendor MCP servers expose them.

Each domain module contributes its tools; all of them call the same service layer as the
``rest`` surface, so the same goal reached through either surface leaves the same state.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks.itsm.surfaces.typed.catalog import catalog_tools
from enterprise_envs.mocks.itsm.surfaces.typed.changes import change_tools
from enterprise_envs.mocks.itsm.surfaces.typed.incidents import incident_tools
from enterprise_envs.mocks.itsm.surfaces.typed.knowledge import knowledge_tools
from enterprise_envs.mocks.itsm.surfaces.typed.people import people_tools
from enterprise_envs.mocks.itsm.surfaces.typed.problems import problem_tools


def build_typed_surface() -> Surface:
    """All typed tools."""
    return Surface(
        "typed",
        [
            *incident_tools(),
            *people_tools(),
            *knowledge_tools(),
            *problem_tools(),
            *change_tools(),
            *catalog_tools(),
            wait_tool(),
        ],
    )
