"""Rules shared by several ITSM tables: derived priority, assignment, mandatory fields."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from enterprise_envs.mocks._core.backend import CallContext
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.itsm.errors import bad_request, business_rule, mandatory_fields, read_only_fields
from enterprise_envs.mocks.itsm.tables import behaviour_rules

PRIORITY_MATRIX: dict[str, str] = dict(behaviour_rules()["incident"]["priority"]["matrix"])


def priority_for(impact: str, urgency: str) -> str:
    """Priority from impact x urgency (the vendor's priority lookup rules)."""
    return PRIORITY_MATRIX[f"{impact},{urgency}"]


def derive_priority(old: Row | None, new: Row, supplied: Mapping[str, str]) -> None:
    """Set priority from impact and urgency; a client may not set a different one.

    A supplied priority that equals the derived value (or the stored one) is accepted as a
    no-op; any other value is the data policy's read-only error, as on the vendor instance.
    """
    derived = priority_for(new["impact"], new["urgency"])
    asked = supplied.get("priority")
    if asked is not None and asked not in (derived, old["priority"] if old else derived):
        raise read_only_fields(["Priority"])
    new["priority"] = derived


def missing_labels(ctx: CallContext, table: str, row: Row, fields: Iterable[str]) -> list[str]:
    """Labels of the given fields that are blank in ``row`` (for a mandatory-fields error)."""
    spec = ctx.store.catalog[table]
    return [spec.field(name).label for name in fields if not row.get(name, "").strip()]  # type: ignore[union-attr]


def require(ctx: CallContext, table: str, row: Row, fields: Iterable[str]) -> None:
    """The data policy: raise the vendor's mandatory-fields error if any field is blank."""
    missing = missing_labels(ctx, table, row, fields)
    if missing:
        raise mandatory_fields(missing)


def refuse_frozen(record: str, row: Row, terminal: Iterable[str], state_labels: Mapping[str, str]) -> None:
    """Records in a terminal state can no longer be updated (a business rule abort)."""
    if row["state"] in terminal:
        raise business_rule(
            f"{record} {row['number']} is {state_labels[row['state']]} and can no longer be updated"
        )


def track_reassignment(old: Row | None, new: Row, supplied: Mapping[str, str]) -> None:
    """Count group changes; moving to another group drops an assignee the client did not set."""
    if old is None or new["assignment_group"] == old["assignment_group"]:
        return
    new["reassignment_count"] = str(int(old["reassignment_count"] or 0) + 1)
    if "assigned_to" not in supplied:
        new["assigned_to"] = ""


def check_assignee_in_group(ctx: CallContext, row: Row) -> None:
    """The assignee must be a member of the assignment group (an instance switch)."""
    user, group = row.get("assigned_to", ""), row.get("assignment_group", "")
    if not user or not group:
        return
    if not is_member(ctx, user, group):
        raise bad_request(
            "Invalid reference for assigned_to",
            "The assigned user is not a member of the assignment group",
        )


def is_member(ctx: CallContext, user: str, group: str) -> bool:
    """True if the user belongs to the group."""
    return bool(ctx.store.count("sys_user_grmember", '"user" = ? AND "group" = ?', (user, group)))
