"""Shared pieces of the typed surface: argument schemas, lookups and compact record views.

Typed tools answer with compact JSON an agent can read: labels instead of codes
("In Progress", "2 - High"), people as "Name (user_name)", references as numbers.
"""

from __future__ import annotations

import re
from typing import Any

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row, like_literal
from enterprise_envs.mocks._core.tools import string
from enterprise_envs.mocks.itsm.access import sees_work_notes
from enterprise_envs.mocks.itsm.render import RecordRenderer
from enterprise_envs.mocks.itsm.services import records

USER_KEYS = ("user_name", "email", "name")
GROUP_KEYS = ("name",)
CI_KEYS = ("name",)

NUMBER = string("Record number (e.g. INC0010001) or sys_id.", 64)
USER = string("A user: user_name, email, full name, or sys_id.", 200)
GROUP = string("An assignment group: its name (e.g. Network) or sys_id.", 200)
LIMIT = {"type": "integer", "minimum": 1, "maximum": 50, "description": "Maximum results (default 10)."}
OFFSET = {"type": "integer", "minimum": 0, "maximum": 100000, "description": "Results to skip, for paging."}
LEVEL = {
    "type": "string",
    "enum": ["1", "2", "3"],
    "description": "1 = High, 2 = Medium, 3 = Low.",
}
TEXT = string("Free text.", 4000)

_TAGS = re.compile(r"<[^>]+>")
_SPACES = re.compile(r"[ \t]+")


class View:
    """Compact views of records for one call (display lookups cached)."""

    def __init__(self, ctx: CallContext) -> None:
        self.ctx = ctx
        self.renderer = RecordRenderer(ctx)
        self._users: dict[str, str] = {}

    def label(self, table: str, field: str, value: str) -> str:
        """A choice value's label ("2" -> "In Progress")."""
        spec = self.ctx.store.catalog[table].field(field)
        choices = spec.choices if spec and spec.choices else {}
        return choices.get(value, value)

    def user(self, sys_id: str) -> str:
        """A user as "Name (user_name)", or "" if empty."""
        if not sys_id:
            return ""
        label = self._users.get(sys_id)
        if label is None:
            row = self.ctx.store.get("sys_user", sys_id)
            label = self._users[sys_id] = f"{row['name']} ({row['user_name']})" if row else sys_id
        return label

    def ref(self, table: str, sys_id: str) -> str:
        """A referenced record's display value (name or number), or ""."""
        return self.renderer.display_name(table, sys_id) if sys_id else ""

    def journal(self, table: str, sys_id: str) -> list[dict[str, str]]:
        """A record's comments and work notes, oldest first."""
        where = "element_id = ? AND name = ?"
        if not sees_work_notes(self.ctx.identity):
            where += " AND element = 'comments'"
        entries = self.ctx.store.select(
            "sys_journal_field", where, (sys_id, table), order_by="sys_created_on, sys_id"
        )
        return [
            {
                "type": "work_note" if entry["element"] == "work_notes" else "comment",
                "by": entry["sys_created_by"],
                "at": entry["sys_created_on"],
                "text": entry["value"],
            }
            for entry in entries
        ]


def find_user(ctx: CallContext, key: str) -> Row:
    """A user by user_name, email, full name or sys_id."""
    return records.find(ctx, "sys_user", key, by=USER_KEYS)


def find_group(ctx: CallContext, key: str) -> Row:
    """An assignment group by name or sys_id."""
    return records.find(ctx, "sys_user_group", key, by=GROUP_KEYS)


def find_ci(ctx: CallContext, key: str) -> Row:
    """A configuration item by name or sys_id."""
    return records.find(ctx, "cmdb_ci", key, by=CI_KEYS)


def plain_text(html: str) -> str:
    """Article HTML as readable text (list items on their own lines)."""
    text = html.replace("<li>", "\n- ").replace("</p>", "\n").replace("<br>", "\n")
    text = _TAGS.sub("", text)
    lines = [_SPACES.sub(" ", line).strip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line)


def page(total: int, offset: int, count: int) -> dict[str, Any]:
    """Paging facts for a list result."""
    following = offset + count
    return {"total": total, "offset": offset, "next_offset": following if following < total else None}


def like(text: str) -> str:
    """A LIKE pattern matching ``text`` anywhere, with wildcards in it escaped."""
    return f"%{like_literal(text)}%"
