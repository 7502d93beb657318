"""Identities, roles and the access-check protocol every service call goes through."""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from enterprise_envs.mocks._core.store import Row


@dataclass(frozen=True)
class Identity:
    """Who is calling.

    Attributes:
        user_sys_id: The caller's user record.
        user_name: Login name (written to the records' audit fields).
        roles: Role names.
        superuser: Holds every role: the system's own rule, set by the system when it builds
            the identity (ServiceNow's ``admin`` does; another vendor may have none).
    """

    user_sys_id: str
    user_name: str
    roles: frozenset[str]
    superuser: bool = False

    @classmethod
    def of(cls, user_sys_id: str, user_name: str, roles: Iterable[str], superuser: bool = False) -> Identity:
        """Build an identity from any iterable of role names."""
        return cls(user_sys_id, user_name, frozenset(roles), superuser)

    def has_role(self, *roles: str) -> bool:
        """True if the identity holds any of ``roles`` (a superuser holds them all)."""
        return self.superuser or any(role in self.roles for role in roles)


class Operation(enum.Enum):
    """What a call does to a row."""

    READ = "read"
    CREATE = "create"
    WRITE = "write"
    DELETE = "delete"


class AccessPolicy(Protocol):
    """A system's access rules. Implementations raise a vendor-shaped ToolError to deny."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        """Allow silently or raise (404 when the row may not even be seen, 403 otherwise)."""
        ...

    def row_filter(self, identity: Identity, table: str) -> tuple[str, tuple[str, ...]] | None:
        """A SQL condition limiting which rows the identity sees in lists, or None for all."""
        ...
