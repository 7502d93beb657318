"""Keyval's seeded world: a member per person of the World's directory, and their entries.

When Keyval is the only system of a world it has no people source, so it makes a few people
with Faker; in a world with ITSM every ITSM employee is a member with the same login, name,
e-mail and manager.
"""

from __future__ import annotations

from enterprise_envs.mocks._core.people import Person
from enterprise_envs.mocks._core.snapshot import WorldBuild
from tests.kv_system import BOT_LOGIN, LOCKED_SPACE

SPACES = ("team-notes", "runbooks", LOCKED_SPACE)
_ENTRIES_PER_SIZE = {"tiny": 12, "default": 60, "large": 600}


def _own_people(build: WorldBuild) -> tuple[Person, ...]:
    people = []
    for _ in range(8):
        first, last = build.faker.first_name(), build.faker.last_name()
        login = f"{first}.{last}".lower()
        people.append(Person(login, first, last, f"{login}@keyval.example"))
    return tuple(people)


def build_keyval_world(build: WorldBuild) -> None:
    """Fill an empty Keyval database for (size, seed), from the World's people if it has any."""
    people = build.people or _own_people(build)
    now = build.clock.now_text()
    ids = {person.login: build.ids.new() for person in people}
    members = [
        {
            "id": ids[person.login],
            "login": person.login,
            "display_name": person.name,
            "email": person.email,
            "manager": ids.get(person.manager, ""),
            "active": "true",
            "role": "member",
            "created_at": now,
            "updated_at": now,
        }
        for person in people
    ]
    bot = build.ids.new()
    members.append(
        {
            "id": bot,
            "login": BOT_LOGIN,
            "display_name": "IT bot",
            "email": f"{BOT_LOGIN}@keyval.example",
            "active": "true",
            "role": "writer",
            "created_at": now,
            "updated_at": now,
        }
    )
    build.insert_many("member", members)
    owners = sorted(ids.values())
    entries = []
    for index in range(_ENTRIES_PER_SIZE[build.size]):
        space = build.rng.choice(SPACES)
        entries.append(
            {
                "id": build.ids.new(),
                "ref": build.number("entry"),
                "space": space,
                "name": f"{build.faker.word()}-{index}",
                "value": build.faker.sentence(),
                "owner": build.rng.choice(owners),
                "created_at": now,
                "updated_at": now,
            }
        )
    build.insert_many("entry", entries)
