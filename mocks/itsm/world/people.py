"""Organisation: locations, departments, people, assignment groups and the ``sys_user`` rows.

People get managers, VIP flags, look-alike names and leavers before their rows are written.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.world.common import (
    ADMIN_USER_NAME,
    AGENT_USER_NAME,
    CAB_GROUP,
    DAY,
    HOUR,
    SERVICE_DESK,
    YEAR,
    Person,
    World,
    fmt,
    stamps,
)

MAIL_DOMAIN = "example.com"
IT_DEPARTMENT = "IT"

#: Look-alike names scenarios need: first or last names one letter apart.
LOOKALIKE_FIRST_NAMES = (("Jon", "John"), ("Sara", "Sarah"))
LOOKALIKE_LAST_NAMES = (("Reid", "Reed"),)

#: IANA time zone per office city (users get their office's zone).
CITY_TIME_ZONES = {
    "New York": "America/New_York", "San Francisco": "America/Los_Angeles", "Chicago": "America/Chicago",
    "Austin": "America/Chicago", "Toronto": "America/Toronto", "London": "Europe/London",
    "Dublin": "Europe/Dublin", "Berlin": "Europe/Berlin", "Singapore": "Asia/Singapore",
    "Sydney": "Australia/Sydney",
}  # fmt: skip
#: Word in an IT job title that fits each group's staff.
_STAFF_TITLE_HINTS = {
    "Service Desk": "Service Desk", "Network": "Network", "Database": "Database",
    "Hardware": "Desktop", "Applications": "Systems", "Email": "Systems",
    "Identity and Access": "Systems",
}  # fmt: skip
#: Words that mark a senior title, most senior first (department heads take the first match).
_SENIOR_WORDS = ("Chief", "VP", "Head", "Director", "General Counsel", "Controller", "Manager", "Lead")


def _ascii_lower(text: str) -> str:
    """Lowercase ASCII letters only (for user names built from personal names)."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z]", "", plain.lower())


def org_created(world: World) -> int:
    """When the instance's reference data was loaded: well before any task history."""
    return world.now - world.history() - 3 * YEAR


def build_locations(world: World) -> None:
    """cmn_location: one row per office in the bank."""
    created = org_created(world)
    for spec in bank.LOCATIONS:
        row = {key: spec[key] for key in ("name", "street", "city", "zip", "country")}  # type: ignore[literal-required]
        world.locations.append({"sys_id": world.sys_id(), **row, **stamps(created, ADMIN_USER_NAME)})
    world.add("cmn_location", world.locations)


def _department_code(name: str, taken: set[str]) -> str:
    """A short department id (``HR``, ``FIN``), unique within the world."""
    words = name.split()
    code = "".join(word[0] for word in words).upper() if len(words) > 1 else name[:3].upper()
    base, n = code, 2
    while code in taken:
        code, n = f"{base}{n}", n + 1
    taken.add(code)
    return code


def build_departments(world: World) -> None:
    """cmn_department rows (heads are filled in once people exist)."""
    created = org_created(world)
    taken: set[str] = set()
    for name in bank.DEPARTMENTS:
        world.departments[name] = {
            "sys_id": world.sys_id(),
            "name": name,
            "id": _department_code(name, taken),
            "head": "",
            "description": f"{name} department",
            **stamps(created, ADMIN_USER_NAME),
        }
    world.add("cmn_department", list(world.departments.values()))


def _pick_location(world: World) -> int:
    """An office index; the first offices (headquarters) hold more people."""
    n = len(world.locations)
    weights = [4 if i == 0 else 2 if i == 1 else 1 for i in range(n)]
    return world.rng.choices(range(n), weights=weights)[0]


def _new_person(world: World, department: str) -> Person:
    """A person with a Faker name, an office and a hire date (before any task they appear in)."""
    faker, rng = world.build.faker, world.rng
    person = Person(world.sys_id(), faker.first_name(), faker.last_name(), department, _pick_location(world))
    person.hired = world.now - world.history() - rng.randint(30 * DAY, 8 * YEAR)
    return person


def build_people(world: World) -> None:
    """Plan every user: the admin, the agent, IT staff and the business's employees."""
    counts = world.counts
    hired = org_created(world)
    world.admin = Person(world.sys_id(), "System", "Administrator", "", 0, user_name=ADMIN_USER_NAME)
    world.admin.roles, world.admin.hired = "admin", hired
    world.agent = Person(world.sys_id(), "Service Desk", "Agent", IT_DEPARTMENT, 0, user_name=AGENT_USER_NAME)
    world.agent.roles, world.agent.hired = "itil", world.now - world.history() - 30 * DAY
    world.staff = [_new_person(world, IT_DEPARTMENT) for _ in range(counts["it_staff"])]
    business = [name for name in bank.DEPARTMENTS if name != IT_DEPARTMENT]
    n_employees = counts["users"] - counts["it_staff"] - 2
    # Every department gets someone before the rest are spread at random.
    spread = [business[i] if i < len(business) else world.rng.choice(business) for i in range(n_employees)]
    world.employees = [_new_person(world, name) for name in spread]
    for index, person in enumerate([world.agent, *world.staff, *world.employees]):
        person.employee_number = f"{100101 + index}"
    for name in business:
        _place_in_hierarchy(
            world, [p for p in world.employees if p.department == name], bank.JOB_TITLES[name]
        )
    _mark_vips(world)
    _make_lookalikes(world)
    _mark_departed(world)


def _is_senior(title: str) -> bool:
    return any(word in title for word in _SENIOR_WORDS)


def _senior_title(titles: Sequence[str]) -> str:
    """The most senior title of a department (its head's)."""
    for word in _SENIOR_WORDS:
        for title in titles:
            if word in title:
                return title
    return titles[-1]


def _place_in_hierarchy(world: World, members: list[Person], titles: Sequence[str]) -> None:
    """Titles and managers within a department: a head, leads reporting to them, the rest below."""
    if not members:
        return
    head, rest = members[0], members[1:]
    head.title = _senior_title(titles)
    world.departments[head.department]["head"] = head.sys_id
    others = [title for title in titles if title != head.title] or list(titles)
    for person in rest:
        person.title = world.rng.choice(others)
    leads = [person for person in rest if _is_senior(person.title)]
    for person in rest:
        person.manager = head if _is_senior(person.title) else world.rng.choice([head, *leads])


def _mark_vips(world: World) -> None:
    """About 3% of employees are VIPs, executives first."""
    n = max(2, round(0.03 * len(world.employees)))
    heads = [p for p in world.employees if p.manager is None]
    seniors = [p for p in world.employees if p.manager is not None and _is_senior(p.title)]
    world.rng.shuffle(heads)
    world.rng.shuffle(seniors)
    for person in [*heads, *seniors, *world.employees][:n]:
        person.vip = True


def _make_lookalikes(world: World) -> None:
    """Rename a few employees so scenarios have confusable people.

    Two people share a full name (in different departments), and pairs have first or last
    names one letter apart (Jon/John Baker, Ana Reid/Reed).
    """
    pool = [p for p in world.employees if p.manager is not None and not p.vip]
    world.rng.shuffle(pool)
    first = pool.pop()
    twin = next((p for p in pool if p.department != first.department), pool[0])
    pool.remove(twin)
    twin.first_name, twin.last_name = first.first_name, first.last_name
    world.lookalikes += [first, twin]
    for pair in LOOKALIKE_FIRST_NAMES:
        a, b = pool.pop(), pool.pop()
        a.first_name, b.first_name = pair
        a.last_name = b.last_name = world.build.faker.last_name()
        world.lookalikes += [a, b]
    for pair in LOOKALIKE_LAST_NAMES:
        a, b = pool.pop(), pool.pop()
        a.last_name, b.last_name = pair
        a.first_name = b.first_name = world.build.faker.first_name()
        world.lookalikes += [a, b]


def _mark_departed(world: World) -> None:
    """A few staff have left: inactive accounts that nobody reports to."""
    # Managers, VIPs and look-alikes stay active: others depend on them being there.
    keep = {id(p.manager) for p in world.employees} | {id(p) for p in world.lookalikes}
    candidates = [p for p in world.employees if id(p) not in keep and not p.vip and p.manager is not None]
    for person in world.rng.sample(candidates, min(len(candidates), max(1, len(world.employees) // 50))):
        person.active = False


def _group_names() -> list[str]:
    return [spec["name"] for spec in bank.GROUPS]


def build_groups(world: World) -> None:
    """Assignment groups, memberships, roles and the IT hierarchy.

    Every IT staff member has a primary resolver group (the Service Desk gets a double share);
    a few senior staff also sit on the CAB (roles ``itil,approver``), some work in a second
    group, and small groups are topped up to three members.
    """
    rng, agent = world.rng, world.agent
    assert agent is not None
    names = _group_names()
    resolvers = [name for name in names if name != CAB_GROUP]
    rotation = [SERVICE_DESK, *resolvers] if SERVICE_DESK in resolvers else resolvers
    members: dict[str, list[Person]] = {name: [] for name in names}
    for index, person in enumerate(world.staff):
        members[rotation[index % len(rotation)]].append(person)
        person.groups.append(rotation[index % len(rotation)])
    managers = {name: group[0] for name, group in members.items() if group}
    singles = [p for p in world.staff if p not in managers.values()]
    rng.shuffle(singles)
    cab = [singles.pop() for _ in range(min(8, max(3, len(world.staff) // 10)))]
    members[CAB_GROUP] = cab
    managers[CAB_GROUP] = cab[0]
    for person in cab:
        person.groups.append(CAB_GROUP)
    members[SERVICE_DESK].append(agent)
    agent.groups.append(SERVICE_DESK)
    _top_up_groups(members, [*singles, *managers.values()])
    for person in singles:
        if len(person.groups) == 1 and rng.random() < 0.25:
            second = rng.choice([name for name in resolvers if name != person.groups[0]])
            members[second].append(person)
            person.groups.append(second)
    _staff_roles_and_titles(world, members, managers)
    world.members = members
    _group_rows(world, managers)


def _top_up_groups(members: dict[str, list[Person]], candidates: list[Person]) -> None:
    """Give every group at least three members, from staff who are in only one group."""
    for name, group in members.items():
        for person in candidates:
            if len(group) >= 3:
                break
            if len(person.groups) == 1 and person not in group:
                group.append(person)
                person.groups.append(name)


def _staff_roles_and_titles(
    world: World, members: dict[str, list[Person]], managers: dict[str, Person]
) -> None:
    """Roles, titles and managers of IT staff; the Service Desk's manager heads IT."""
    titles = bank.JOB_TITLES.get(IT_DEPARTMENT, ("IT Manager",))
    boss_title = _senior_title(titles)
    plain_titles = [title for title in titles if title != boss_title] or [boss_title]
    head = managers.get(SERVICE_DESK) or next(iter(managers.values()))
    if IT_DEPARTMENT in world.departments:
        world.departments[IT_DEPARTMENT]["head"] = head.sys_id
    cab = set(map(id, members.get(CAB_GROUP, [])))
    leaders = {id(person) for name, person in managers.items() if name != CAB_GROUP}
    for person in world.staff:
        primary = person.groups[0]
        roles = ["itil"]
        if id(person) in leaders:
            roles.append("itil_admin")
        if id(person) in cab:
            roles.append("approver")
        person.roles = ",".join(roles)
        hint = _STAFF_TITLE_HINTS.get(primary, "")
        fitting = [title for title in plain_titles if hint and hint in title]
        person.title = (
            boss_title if id(person) in leaders else (fitting or [world.rng.choice(plain_titles)])[0]
        )
        person.manager = None if person is head else head if id(person) in leaders else managers[primary]
    agent = world.agent
    assert agent is not None
    agent.manager = managers.get(SERVICE_DESK, head)
    agent.title = next((t for t in plain_titles if "Service Desk" in t), plain_titles[0])


def _group_rows(world: World, managers: dict[str, Person]) -> None:
    """sys_user_group and sys_user_grmember rows."""
    created = org_created(world)
    for spec in bank.GROUPS:
        name = spec["name"]
        world.groups[name] = {
            "sys_id": world.sys_id(),
            "name": name,
            "description": spec["description"],
            "email": f"{spec['email']}@{MAIL_DOMAIN}",
            "manager": managers[name].sys_id,
            "active": "true",
            "type": "",
            "exclude_manager": "false",
            "include_members": "false",
            **stamps(created, ADMIN_USER_NAME),
        }
    world.add("sys_user_group", list(world.groups.values()))
    rows = []
    for name, group in world.members.items():
        for person in group:
            joined = max(person.hired, created)
            row = {"sys_id": world.sys_id(), "user": person.sys_id, "group": world.groups[name]["sys_id"]}
            rows.append({**row, **stamps(joined, ADMIN_USER_NAME)})
    world.add("sys_user_grmember", rows)


def _assign_user_names(people: list[Person]) -> None:
    """``first.last`` in lowercase ASCII; a clash gets a digit (jane.doe2)."""
    taken = {p.user_name for p in people if p.user_name}
    for person in people:
        if person.user_name:
            continue
        base = f"{_ascii_lower(person.first_name) or 'user'}.{_ascii_lower(person.last_name) or 'user'}"
        name, n = base, 2
        while name in taken:
            name, n = f"{base}{n}", n + 1
        taken.add(name)
        person.user_name = name


def build_user_rows(world: World) -> None:
    """sys_user rows for everyone planned."""
    people = world.people()
    _assign_user_names(people)
    faker, rng = world.build.faker, world.rng
    rows = []
    for person in people:
        office = world.locations[person.location] if person.department else None
        department = world.departments.get(person.department)
        rows.append(
            {
                "sys_id": person.sys_id,
                "name": person.name,
                "first_name": person.first_name,
                "last_name": person.last_name,
                "user_name": person.user_name,
                "email": f"{person.user_name}@{MAIL_DOMAIN}",
                "employee_number": person.employee_number,
                "title": person.title,
                "department": department["sys_id"] if department else "",
                "location": office["sys_id"] if office else "",
                "city": office["city"] if office else "",
                "country": office["country"] if office else "",
                "manager": person.manager.sys_id if person.manager else "",
                "phone": faker.phone_number() if office else "",
                "mobile_phone": faker.phone_number() if office else "",
                "vip": "true" if person.vip else "false",
                "active": "true" if person.active else "false",
                "locked_out": "false",
                "roles": person.roles,
                "time_zone": CITY_TIME_ZONES.get(office["city"], "GMT") if office else "GMT",
                "preferred_language": "en",
                "notification": "2",
                "failed_attempts": "0",
                "password_needs_reset": "false",
                "web_service_access_only": "false",
                "internal_integration_user": "false",
                "last_login_time": fmt(world.now - rng.randint(HOUR, 20 * DAY)) if person.active else "",
                "sys_class_name": "sys_user",
                "sys_domain": "global",
                "sys_domain_path": "/",
                "source": "",
                "user_password": "",
                **stamps(person.hired, ADMIN_USER_NAME),
            }
        )
    world.add("sys_user", rows)


def active_callers(world: World) -> list[Person]:
    """Employees who can raise tickets (active, outside IT)."""
    return [p for p in world.employees if p.active]


def group_id(world: World, name: str) -> str:
    """The sys_id of the group called ``name``, or ``""`` if the world has none."""
    return world.groups[name]["sys_id"] if name in world.groups else ""


def member_of(world: World, group: str) -> Person:
    """A random member of a group (the Service Desk if the group is unknown)."""
    return world.rng.choice(world.members.get(group) or world.members[SERVICE_DESK])
