"""ITSM's bench workload: the calls ``enterprise-envs bench`` times on this system.

Sample rows are active incidents (every world size has them, and both surfaces read and
update them); the task-level surface finds one by its number, the Table API by its sys_id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.conventions import Call, SurfaceCalls, Workload
from enterprise_envs.mocks._core.store import Store

_TABLE = "incident"


def _typed_read(row: Mapping[str, Any]) -> Call:
    return "get_incident", {"number": row["number"]}


def _typed_write(row: Mapping[str, Any], text: str) -> Call:
    return "update_incident", {"number": row["number"], "short_description": text}


def _rest_read(row: Mapping[str, Any]) -> Call:
    return "table_get", {"table": _TABLE, "sys_id": row["sys_id"]}


def _rest_write(row: Mapping[str, Any], text: str) -> Call:
    return "table_update", {"table": _TABLE, "sys_id": row["sys_id"], "fields": {"short_description": text}}


def _episode_writes(store: Store, row: Mapping[str, Any]) -> tuple[Call, ...]:
    """A ticket opened for a caller without roles, and the sample incident's priority raised."""
    caller = store.select("sys_user", "roles = '' AND active = 'true'", limit=1)[0]["user_name"]
    return (
        ("create_incident", {"caller": caller, "short_description": "bench restore"}),
        ("update_incident", {"number": row["number"], "urgency": "1", "impact": "1"}),
    )


ITSM_WORKLOAD = Workload(
    table=_TABLE,
    where="active = 'true'",
    surfaces={
        "typed": SurfaceCalls(read=_typed_read, write=_typed_write),
        "rest": SurfaceCalls(read=_rest_read, write=_rest_write),
    },
    episode_writes=_episode_writes,
    message="Could you give me your incident number, please?",
    scenario="itsm.add_info",
    call_scenario="itsm.report_incident",
)
