"""Cursor pagination, as Okta pages its lists: ``limit`` rows, then an opaque ``after`` cursor.

A list is read in a stable order (the key, or a property then the key) and each page ends with
the cursor of its last row, which the ``next`` link of the ``Link`` header carries. Okta's
cursors are opaque; the captured ones for users read ``0`` followed by the last user's id
(``after=000usfdsyqnIjEmHNm4x6`` after ``00usfdsyqnIjEmHNm4x6``), which is what the mock hands
out for lists in key order. For a list sorted by a property (``sortBy``, the System Log by
``published``) the cursor is ``1`` and the URL-safe base64 of the last row's value and key.
A cursor the mock did not hand out is Okta's 400 E0000001 naming ``after``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.errors import invalid_parameter
from enterprise_envs.mocks.identity.records import ENGINE

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = ["Page", "read_page"]

_KEY_CURSOR = "0"
_SORTED_CURSOR = "1"
_SEPARATOR = "\x1f"


@dataclass(frozen=True)
class Page:
    """One page of a list.

    Attributes:
        rows: The page's rows, in order.
        after: The cursor of the next page, or None on the last one.
    """

    rows: list[Row]
    after: str | None


def _encode(value: str, key: str) -> str:
    return _SORTED_CURSOR + base64.urlsafe_b64encode(f"{value}{_SEPARATOR}{key}".encode()).decode("ascii")


def _decode(cursor: str) -> tuple[str, str]:
    try:
        text = base64.urlsafe_b64decode(cursor[1:].encode("ascii")).decode("utf-8")
    except (binascii.Error, UnicodeError, ValueError):
        raise invalid_parameter("after", "not a cursor this list handed out") from None
    value, separator, key = text.partition(_SEPARATOR)
    if not separator:
        raise invalid_parameter("after", "not a cursor this list handed out")
    return value, key


def read_page(
    ctx: CallContext,
    table: str,
    where: str,
    params: tuple[Any, ...],
    *,
    limit: int,
    after: str | None = None,
    sort_by: str = "",
    descending: bool = False,
) -> Page:
    """A page of the rows the caller may see matching ``where``.

    Args:
        ctx: Call context.
        table: The table.
        where: A trusted SQL condition (columns qualified or plain).
        params: Its bound values.
        limit: Rows per page (at least 1).
        after: The cursor from the previous page's ``next`` link (None: the first page).
        sort_by: A column to order by before the key (``""``: the key alone).
        descending: Order from the largest.

    Raises:
        OktaError: 400 E0000001 for a cursor the list did not hand out.
    """
    key = ctx.store.catalog[table].key_field
    direction, compare = ("DESC", "<") if descending else ("ASC", ">")
    qualified_key = f'"{table}"."{key}"'
    if sort_by:
        column = f'"{table}"."{sort_by}"'
        order_by = f"{column} {direction}, {qualified_key} {direction}"
    else:
        order_by = f"{qualified_key} {direction}"
    conditions, values = [f"({where})"], list(params)
    if after:
        if sort_by:
            if not after.startswith(_SORTED_CURSOR):
                raise invalid_parameter("after", "not a cursor this list handed out")
            value, last = _decode(after)
            conditions.append(f"({column} {compare} ? OR ({column} = ? AND {qualified_key} {compare} ?))")
            values += [value, value, last]
        else:
            if not after.startswith(_KEY_CURSOR) or not ENGINE.is_key(after[1:]):
                raise invalid_parameter("after", "not a cursor this list handed out")
            conditions.append(f"{qualified_key} {compare} ?")
            values.append(after[1:])
    rows, _ = ENGINE.query(
        ctx, table, " AND ".join(conditions), tuple(values), order_by=order_by, limit=limit + 1
    )
    if len(rows) <= limit:
        return Page(rows, None)
    rows = rows[:limit]
    last_row = rows[-1]
    cursor = _encode(last_row[sort_by], last_row[key]) if sort_by else _KEY_CURSOR + last_row[key]
    return Page(rows, cursor)
