"""The people directory a World shares between its systems: the same employee in each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Person:
    """One employee as every system of a world knows them.

    Attributes:
        login: Their login name (unique in the world; the key systems match people by).
        first_name: Given name.
        last_name: Family name.
        email: Work e-mail address.
        manager: The manager's login, or "".
        department: Department name, or "".
        title: Job title, or "".
        teams: The working groups the person is in at the people source (ITSM's assignment
            groups: ``Network``, ``Service Desk``), sorted: another system of the world builds
            its own groups of the same people from them (chat's on-call user groups).
        employee_number: Their employee number at the people source, or "" (a help desk checks
            it in every system that keeps one).
    """

    login: str
    first_name: str
    last_name: str
    email: str
    manager: str = ""
    department: str = ""
    title: str = ""
    teams: tuple[str, ...] = ()
    employee_number: str = ""

    @property
    def name(self) -> str:
        """Full display name."""
        return f"{self.first_name} {self.last_name}".strip()


@dataclass(frozen=True)
class Directory:
    """The people of a world, as its people source built them.

    Attributes:
        source: The system whose world the people come from (part of the other systems'
            snapshot keys: their worlds are built from it).
        people: The employees, by login order.
    """

    source: str
    people: tuple[Person, ...]

    def by_login(self) -> dict[str, Person]:
        """Each person by login name."""
        return {person.login: person for person in self.people}
