"""The record service: every read and write of an ITSM row goes through these functions.

Both tool surfaces call them, so a rule (field validation, access, data policy, business
rule, audit fields, journal) is enforced once, whichever surface the agent uses. The machinery
is the generic :class:`~enterprise_envs.mocks._core.records.RecordEngine`; this module is ITSM's
instance of it with ServiceNow's hooks: its ``sys_*`` audit fields, its journal table
``sys_journal_field``, its class and domain fields, its choice fields that are never empty and
its error messages. Table-specific behaviour lives in :class:`TableRules` subclasses registered
per table.

The module-level names (``create``, ``update``, ``find``, ``register``, ...) are the engine's
bound methods, so ITSM's services and surfaces call ``records.create(ctx, ...)`` as before.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from enterprise_envs.mocks._core.records import AuditFields, Journal, RecordEngine, TableRules
from enterprise_envs.mocks._core.schema import TableSpec
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm import errors
from enterprise_envs.mocks.itsm.conventions import ITSM_CONVENTIONS

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "ENGINE",
    "JOURNAL_TABLE",
    "RULES",
    "TableRules",
    "add_journal",
    "clean_values",
    "create",
    "delete",
    "find",
    "get",
    "is_sys_id",
    "query",
    "register",
    "rules_for",
    "system_insert",
    "system_update",
    "update",
]

# ITSM's surfaces and rendering keep their own key test beside the engine's (a full match of
# ITSM_CONVENTIONS.id_pattern): its ``$`` lets a trailing newline through, and a reference to a
# table not modelled here renders by it, so answers stay byte-identical.
_SYS_ID = re.compile(r"^[0-9a-f]{32}$")

#: Where journal entries go: one row per entry, pointing at its record.
JOURNAL_TABLE = "sys_journal_field"


def is_sys_id(text: str) -> bool:
    """True for a 32-hex-digit sys_id."""
    return bool(_SYS_ID.match(text))


def add_journal(ctx: CallContext, table: str, sys_id: str, element: str, text: str) -> Row:
    """Append a comment or work note to a record's journal (sys_journal_field)."""
    entry = {
        "sys_id": ctx.ids.new(),
        "element": element,
        "element_id": sys_id,
        "name": table,
        "value": text,
        "sys_created_on": ctx.clock.now_text(),
        "sys_created_by": ctx.identity.user_name,
        "sys_updated_on": ctx.clock.now_text(),
        "sys_updated_by": ctx.identity.user_name,
        "sys_mod_count": "0",
    }
    # The client chose the record, the kind (element) and the text; the rest is the service's.
    ctx.store.record_new_defaults(
        JOURNAL_TABLE, entry["sys_id"], {"name": table}, ("element", "element_id", "value")
    )
    return ctx.store.insert(JOURNAL_TABLE, entry)


def _class_and_domain(spec: TableSpec, row: Row) -> None:
    """A record a caller creates is of its own table's class, in the global domain."""
    for name, value in (("sys_class_name", spec.name), ("sys_domain", "global"), ("sys_domain_path", "/")):
        if name in spec:
            row[name] = value


#: ITSM's record engine: ServiceNow's hooks on the generic machinery.
ENGINE = RecordEngine(
    conventions=ITSM_CONVENTIONS,
    errors=errors,
    audit=AuditFields(
        created_on="sys_created_on",
        created_by="sys_created_by",
        updated_on="sys_updated_on",
        updated_by="sys_updated_by",
        mod_count="sys_mod_count",
    ),
    # The combined field posts a work note; applied after work_notes, so when both are sent its
    # text is the one entry (what this service has always done).
    journal=Journal(write=add_journal, aliases={"comments_and_work_notes": "work_notes"}),
    always_set=("state", "impact", "urgency", "type"),
    on_create=_class_and_domain,
    # A person is told apart by address, a task record by its number.
    describe_fields=("email", "number"),
)

#: Table -> its business rules (the engine's registry).
RULES = ENGINE.rules
register = ENGINE.register
rules_for = ENGINE.rules_for
clean_values = ENGINE.clean_values
create = ENGINE.create
update = ENGINE.update
delete = ENGINE.delete
system_update = ENGINE.system_update
system_insert = ENGINE.system_insert
get = ENGINE.get
query = ENGINE.query
find = ENGINE.find
