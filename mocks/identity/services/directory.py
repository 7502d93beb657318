"""Directory reads and writes: user and group lists, memberships, profiles and admin roles.

Listing users and groups (``q``, ``filter``, ``search``), a user's groups and a group's members,
profile updates and admin role assignments.

Lists as Okta's description has them:

- ``GET /users``: without a query, every user but the ``DEPROVISIONED`` ones, 200 a page; ``q``
  matches the start of ``firstName``, ``lastName`` or ``email`` (any case), omits deprovisioned
  users, is not paged (10 by default); ``filter`` and ``search`` (:mod:`..query`) include
  deprovisioned users and are paged; ``sortBy``/``sortOrder`` apply to ``search`` only. Pages hold
  at most 200 users.
- ``GET /groups``: ``q`` matches the start of the group's name (not paged, 300 by default);
  ``filter`` and ``search`` are paged (10,000 a page at most).

One of ``q``, ``filter`` and ``search`` at a time: the mock refuses a request giving two (400
E0000001), where Okta's description says nothing of their combination.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from enterprise_envs.mocks._core.access import Operation
from enterprise_envs.mocks._core.records import TableRules
from enterprise_envs.mocks._core.store import Row, like_clause, like_literal
from enterprise_envs.mocks.identity.errors import invalid_parameter, invalid_search, validation_failed
from enterprise_envs.mocks.identity.query import (
    GROUP_FILTER,
    GROUP_SEARCH,
    USER_FILTER,
    USER_SEARCH,
    Dialect,
    compile_expression,
)
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.events import log_event
from enterprise_envs.mocks.identity.services.listing import Page, read_page

if TYPE_CHECKING:
    from enterprise_envs.mocks._core.backend import CallContext

__all__ = [
    "GROUPS",
    "GROUP_PAGE_MAX",
    "GROUP_QUERY_DEFAULT",
    "USERS",
    "USER_PAGE_MAX",
    "USER_QUERY_DEFAULT",
    "Listing",
    "UserRules",
    "assign_role",
    "group_members",
    "list_rows",
    "roles_assigned",
    "unassign_role",
    "update_profile",
    "user_groups",
]

#: The most users one page holds, and the default page of ``q``.
USER_PAGE_MAX = 200
USER_QUERY_DEFAULT = 10
#: The most groups one page holds, and the default result count of a group ``q``.
GROUP_PAGE_MAX = 10000
GROUP_QUERY_DEFAULT = 300


def _one_query(q: str | None, filter_: str | None, search: str | None) -> str:
    given = [name for name, value in (("q", q), ("filter", filter_), ("search", search)) if value]
    if len(given) > 1:
        raise invalid_parameter(given[1], f"use one of q, filter and search, not {' and '.join(given)}")
    return given[0] if given else ""


def _sort_column(dialect: Dialect, sort_by: str | None) -> str:
    if not sort_by:
        return ""
    attribute = dialect.attributes.get(sort_by)
    if attribute is None or attribute.json:
        raise invalid_search(f"Invalid sortBy: '{sort_by[:40]}' is not a property search supports")
    return attribute.column


@dataclass(frozen=True)
class Listing:
    """How one of Okta's top-level lists (``GET /users``, ``GET /groups``) reads its table.

    Attributes:
        table: The table listed.
        q_columns: The properties whose start ``q`` matches (any case).
        current: The condition a plain or ``q`` list adds (``""``: every row); ``filter`` and
            ``search`` do without it.
        query_default: The result count of a ``q`` without ``limit``.
        page_max: The most rows one page, or one ``q`` answer, holds.
        filter: The ``filter`` dialect.
        search: The ``search`` dialect (its attributes are what ``sortBy`` may name).
    """

    table: str
    q_columns: tuple[str, ...]
    current: str
    query_default: int
    page_max: int
    filter: Dialect
    search: Dialect


USERS = Listing(
    "user", ("firstName", "lastName", "email"), "status != 'DEPROVISIONED'",
    USER_QUERY_DEFAULT, USER_PAGE_MAX, USER_FILTER, USER_SEARCH,
)  # fmt: skip
GROUPS = Listing("group", ("name",), "", GROUP_QUERY_DEFAULT, GROUP_PAGE_MAX, GROUP_FILTER, GROUP_SEARCH)


def _q_rows(ctx: CallContext, listing: Listing, q: str, limit: int) -> list[Row]:
    """The rows ``q`` names: one of ``q_columns`` starts with it (not paged, in key order)."""
    clauses = [like_clause(f'"{name}"') for name in listing.q_columns]
    where = clauses[0] if len(clauses) == 1 else "(" + " OR ".join(clauses) + ")"
    if listing.current:
        where = f"{where} AND {listing.current}"
    rows, _ = ENGINE.query(ctx, listing.table, where, (like_literal(q) + "%",) * len(clauses), limit=limit)
    return rows


def list_rows(
    ctx: CallContext,
    listing: Listing,
    *,
    q: str | None = None,
    filter_: str | None = None,
    search: str | None = None,
    limit: int | None = None,
    after: str | None = None,
    sort_by: str | None = None,
    sort_order: str = "asc",
) -> Page:
    """A page of users (``listing``: :data:`USERS`) or groups (:data:`GROUPS`); see the module docstring.

    Raises:
        OktaError: 400 E0000031 for an expression Okta does not support; 400 E0000001 for two
            queries at once or a foreign cursor.
    """
    kind = _one_query(q, filter_, search)
    if kind == "q":
        rows = _q_rows(ctx, listing, q or "", min(limit or listing.query_default, listing.page_max))
        return Page(rows, None)
    size = min(limit or listing.page_max, listing.page_max)
    if kind == "filter":
        compiled = compile_expression(filter_ or "", listing.filter)
        return read_page(ctx, listing.table, compiled.where, compiled.params, limit=size, after=after)
    if kind == "search":
        compiled = compile_expression(search or "", listing.search)
        return read_page(
            ctx, listing.table, compiled.where, compiled.params, limit=size, after=after,
            sort_by=_sort_column(listing.search, sort_by), descending=sort_order.lower() == "desc",
        )  # fmt: skip
    return read_page(ctx, listing.table, listing.current or "1", (), limit=size, after=after)


def user_groups(ctx: CallContext, user: Row) -> list[Row]:
    """The groups ``user`` is a member of, in id order."""
    rows, _ = ENGINE.query(
        ctx, "group", 'id IN (SELECT "groupId" FROM group_member WHERE "userId" = ?)', (user["id"],)
    )
    return rows


def group_members(ctx: CallContext, group: Row, *, limit: int, after: str | None = None) -> Page:
    """A page of ``group``'s members, in id order (deprovisioned members included, as Okta lists them)."""
    return read_page(
        ctx,
        "user",
        'id IN (SELECT "userId" FROM group_member WHERE "groupId" = ?)',
        (group["id"],),
        limit=limit,
        after=after,
    )


class UserRules(TableRules):
    """Rules on ``user`` rows: a login names one user only."""

    def before_insert(self, ctx: CallContext, new: Row, supplied: Mapping[str, str]) -> None:
        """Refuse a new user whose login is blank or another user's (any case)."""
        _unique_login(ctx, new["login"], new["id"])

    def before_update(self, ctx: CallContext, old: Row, new: Row, supplied: Mapping[str, str]) -> None:
        """Refuse a login another user has (Okta: ``An object with this field already exists``)."""
        if new["login"] != old["login"]:
            _unique_login(ctx, new["login"], old["id"])


def _unique_login(ctx: CallContext, login: str, user_id: str) -> None:
    if not login.strip():
        raise validation_failed("login", "login: The field cannot be left blank")
    if ctx.store.count("user", "login = ? COLLATE NOCASE AND id != ?", (login, user_id)):
        raise validation_failed(
            "login", "login: An object with this field already exists in the current organization"
        )


def update_profile(ctx: CallContext, user: Row, profile: Mapping[str, Any]) -> Row:
    """Partial profile update (``POST /users/{id}``): the given profile properties change.

    Raises:
        OktaError: 400 E0000001 for a property the profile lacks or a value its schema refuses;
            403 E0000006 if the caller may not edit profiles.
    """
    values = {name: "" if value is None else value for name, value in profile.items()}
    updated = ENGINE.update(ctx, "user", user, values)
    if updated != user:
        log_event(ctx, "user.account.update_profile", [("user", updated)])
    return updated


def roles_assigned(ctx: CallContext, *, user_id: str = "", group_id: str = "") -> list[Row]:
    """The admin role assignments held directly by a user, or by a group."""
    column, key = ("userId", user_id) if user_id else ("groupId", group_id)
    rows, _ = ENGINE.query(ctx, "role_assignment", f'"{column}" = ?', (key,), order_by="created, id")
    return rows


def assign_role(ctx: CallContext, user: Row, role_type: str, label: str) -> Row:
    """Assign a standard admin role to a user (``POST /users/{userId}/roles``).

    Raises:
        OktaError: 403 E0000006 unless the caller may grant roles (a super administrator); 400
            E0000001 for a role type Okta does not have, or one the user holds already.
    """
    values = {"type": role_type, "userId": user["id"], "assignmentType": "USER", "status": "ACTIVE"}
    ctx.intend(Operation.CREATE, "role_assignment", None, values)
    ctx.authorize(Operation.CREATE, "role_assignment", None, values)
    if ctx.store.count("role_assignment", '"userId" = ? AND type = ?', (user["id"], role_type)):
        raise invalid_parameter("type", f"the user already holds the role {role_type}")
    row = ENGINE.create(ctx, "role_assignment", values, trusted={"label": label})
    log_event(ctx, "user.account.privilege.grant", [("user", user)])
    return row


def unassign_role(ctx: CallContext, user: Row, assignment: Row) -> None:
    """Remove an admin role assignment from a user (``DELETE /users/{userId}/roles/{id}``)."""
    ENGINE.delete(ctx, "role_assignment", assignment)
    log_event(ctx, "user.account.privilege.revoke", [("user", user)])
