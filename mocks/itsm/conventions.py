"""ITSM's conventions, as the generic layers ask for them (ServiceNow's shapes).

Facts from the Table API samples in ``spec/``: 32-hex ``sys_id`` keys, record numbers as a
prefix and seven digits from 0010001 on a fresh instance, ``YYYY-MM-DD HH:MM:SS`` date-times
in UTC, a Table API for any table's rows. What the bench times is in ``workload.py``.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.conventions import (
    AuditHints,
    Conventions,
    Formats,
    Numbering,
    RecordApi,
    Vocabulary,
)
from enterprise_envs.mocks._core.people import Person
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks.itsm.workload import ITSM_WORKLOAD

#: How ServiceNow stores and returns a date-time (UTC), for ITSM code that writes or parses one.
DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"

#: Words a caller would not use: the Table API's and the admin screens' own (a simulated user
#: saying one coaches the agent). Those with an underscore are code: the LLM user's guard reads
#: them as tool syntax. ``sysparm_`` matches every query parameter (``sysparm_query``, ...).
_API_TERMS = (
    "sys_id",
    "sysparm",
    "sysparm_",
    "work_notes",
    "work note",
    "work notes",
    "short_description",
    "short description field",
    "category field",
    "table api",
    "close code",
    "close_code",
    "close notes",
    "close_notes",
    "assignment group",
    "assignment_group",
    "assigned to field",
    "assigned_to",
    "caller_id",
    "contact_type",
    "business_service",
)

ITSM_CONVENTIONS = Conventions(
    id_pattern=r"[0-9a-f]{32}",
    numbering=Numbering(digits=7, first=10001),
    formats=Formats(datetime=DATETIME_FORMAT, date="%Y-%m-%d"),
    vocabulary=Vocabulary(
        record="ticket",
        terms=_API_TERMS,
        nouns={
            "incident": "ticket",
            "sc_request": "request",
            "sc_req_item": "request",
            "change_request": "change",
            "problem": "problem",
            "kb_knowledge": "article",
        },
    ),
    audit=AuditHints(
        record_api=RecordApi(
            surface="rest",
            create="table_create",
            update="table_update",
            delete="table_delete",
            table_argument="table",
            key_argument="sys_id",
            fields_argument="fields",
        ),
        login_fields=("user_name", "email"),
        lifecycle_fields=("state", "active", "workflow_state"),
        roles_field="roles",
        privileged_role="admin",
    ),
    workload=ITSM_WORKLOAD,
)


def itsm_directory(store: Store) -> tuple[Person, ...]:
    """The world's employees from its ``sys_user`` rows (active people in a department, by login).

    Each carries their employee number and, as their teams, the assignment groups they are in.
    """
    rows = store.conn.execute(
        """
        SELECT u.user_name, u.first_name, u.last_name, u.email, COALESCE(m.user_name, ''),
               COALESCE(d.name, ''), u.title, u.employee_number,
               (SELECT group_concat(name, char(31)) FROM (
                   SELECT g.name FROM sys_user_grmember gm JOIN sys_user_group g ON g.sys_id = gm."group"
                   WHERE gm.user = u.sys_id ORDER BY g.name))
        FROM sys_user u
        LEFT JOIN sys_user m ON m.sys_id = u.manager
        LEFT JOIN cmn_department d ON d.sys_id = u.department
        WHERE u.active = 'true' AND u.department != ''
        ORDER BY u.user_name
        """
    ).fetchall()
    return tuple(
        Person(*row[:7], employee_number=row[7], teams=tuple(row[8].split("\x1f")) if row[8] else ())
        for row in rows
    )
