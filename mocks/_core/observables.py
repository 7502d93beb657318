"""What a person can see of a system on their own: the notifications it sends them.

A simulated user must know only what a person could know (docs/users.md, "Observational
closure"). The one path from a back-end's state to a user is here: each system declares the
notifications it sends (:class:`NotificationRule`: which change sends one, to whom, showing which
fields), and :func:`notifications_for` turns the episode's changes into the messages one person
received, with the declared fields only. Every other field of every row is hidden from the user:
:func:`observable_fields` says which fields a rule reads, so tests can change everything else
and check that nobody noticed.

Notifications follow each record's net change since the episode's start (its first before-image
against its current values), in write order: a record created and then resolved in one episode
sends the creation notice only, and one changed back to how it was sends nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from enterprise_envs.mocks._core.schema import Catalog
from enterprise_envs.mocks._core.store import Row, Store

__all__ = ["Notification", "NotificationRule", "notifications_for", "observable_fields"]


@dataclass(frozen=True)
class NotificationRule:
    """One notification a system sends, declared with its content.

    Attributes:
        event: Its name (``incident.opened``); scenarios refer to it.
        table: The table whose change sends it.
        on: ``insert`` (a row created) or ``update`` (a row changed).
        recipients: Reference fields of the record holding the people notified.
        content: Fields of the changed row the message shows (as display values).
        when: Field -> values the changed row must now hold.
        was: Field -> values it held before the change (``update`` only).
        changed: Fields of which at least one must differ from before (``update`` only).
        about: ``(table_field, key_field)`` when the changed row is about another record (a
            journal entry about its ticket): the recipients and the record's label are read from
            the row of table ``row[table_field]`` with key ``row[key_field]``.
        about_table: The table of the record the row is about when it is always the same (a
            chat message is about its conversation): ``about``'s ``table_field`` is then unused.
    """

    event: str
    table: str
    on: Literal["insert", "update"]
    recipients: tuple[str, ...]
    content: tuple[str, ...] = ()
    when: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    was: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    changed: tuple[str, ...] = ()
    about: tuple[str, str] | None = None
    about_table: str = ""

    def __post_init__(self) -> None:
        if self.on == "insert" and (self.was or self.changed):
            raise ValueError(f"{self.event}: an insert has no before-values (was, changed)")
        object.__setattr__(self, "when", MappingProxyType({k: tuple(v) for k, v in self.when.items()}))
        object.__setattr__(self, "was", MappingProxyType({k: tuple(v) for k, v in self.was.items()}))

    def fields(self) -> dict[str, set[str]]:
        """Table -> the fields this rule reads (what a person may notice a change of)."""
        own = {*self.content, *self.when, *self.was, *self.changed}
        if self.about is None:
            return {self.table: own | set(self.recipients)}
        if self.about_table:
            return {self.table: own | {self.about[1]}, self.about_table: set(self.recipients)}
        # The record it is about is any table named by the row; its recipients are read there.
        return {self.table: own | set(self.about), "*": set(self.recipients)}

    def matches(self, before: Row | None, after: Row) -> bool:
        """Whether a change from ``before`` (None: inserted) to ``after`` sends this notification."""
        if (before is None) != (self.on == "insert"):
            return False
        if any(after.get(name) not in values for name, values in self.when.items()):
            return False
        if before is None:
            return True
        if any(before.get(name) not in values for name, values in self.was.items()):
            return False
        return not self.changed or any(before.get(name) != after.get(name) for name in self.changed)


@dataclass(frozen=True)
class Notification:
    """One message a person received.

    Attributes:
        event: The rule's event name.
        record: The record it is about, as its display field names it (a ticket's number).
        content: (field, display value) pairs, in the rule's order.
    """

    event: str
    record: str
    content: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, object]:
        """A JSON-ready dictionary."""
        return {"event": self.event, "record": self.record, "content": dict(self.content)}


def observable_fields(rules: tuple[NotificationRule, ...]) -> dict[str, frozenset[str]]:
    """Table -> fields some notification reads (``"*"``: read on any table a row is about)."""
    out: dict[str, set[str]] = {}
    for rule in rules:
        for table, names in rule.fields().items():
            out.setdefault(table, set()).update(names)
    return {table: frozenset(names) for table, names in out.items()}


def _label(catalog: Catalog, table: str, row: Row) -> str:
    """How a person names a record: its display field (a numbered table's is its number)."""
    return str(row.get(catalog[table].display_field, ""))


def _display(catalog: Catalog, store: Store, table: str, row: Row, name: str) -> str:
    """A field as a person reads it: a choice's label, a reference's display value."""
    value = row.get(name, "")
    spec = catalog[table].field(name)
    if spec is None or not value:
        return value
    if spec.choices:
        return spec.choices.get(value, value)
    if spec.reference:
        target = store.get(spec.reference, value)
        return value if target is None else _label(catalog, spec.reference, target)
    return value


def notifications_for(
    store: Store, rules: tuple[NotificationRule, ...], person: str
) -> tuple[Notification, ...]:
    """The notifications ``person`` (a key of the people table) received since the episode began.

    Cost grows with the rows changed in the episode, not with the world.
    """
    if not rules or not person:
        return ()
    by_table: dict[str, list[NotificationRule]] = {}
    for rule in rules:
        by_table.setdefault(rule.table, []).append(rule)
    catalog = store.catalog
    out: list[Notification] = []
    for table, key, inserted in store.changed_keys():
        table_rules = by_table.get(table)
        if not table_rules:
            continue
        after = store.get(table, key)
        if after is None:
            continue
        before: Row | None = None
        for rule in table_rules:
            if (rule.on == "insert") != inserted:
                continue
            subject_table, subject = table, after
            if rule.about is not None:
                subject_table = rule.about_table or after.get(rule.about[0], "")
                if subject_table not in catalog:
                    continue
                found = store.get(subject_table, after.get(rule.about[1], ""))
                if found is None:
                    continue
                subject = found
            # Who is told first: it needs no read, and most changes concern somebody else.
            if person not in (subject.get(name) for name in rule.recipients):
                continue
            if not inserted and before is None:
                before = store.first_image(table, key)
            if not rule.matches(before, after):
                continue
            content = tuple((name, _display(catalog, store, table, after, name)) for name in rule.content)
            out.append(Notification(rule.event, _label(catalog, subject_table, subject), content))
    return tuple(out)
