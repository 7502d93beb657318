"""Users: the employees (from the World's people, or made here), leavers, service accounts.

**Logins.** Okta's ``login`` is an e-mail-shaped user name, and Okta lets a user sign in with
its short name (the part before ``@``) while that is unique. A person from the World's
directory keeps their World login as that short name: ``login`` is ``<their login>@<their
e-mail's domain>``, which is their e-mail address whenever the e-mail is ``<login>@...`` (ITSM's
always are). ``email`` is their e-mail, first and last name and title theirs, ``manager`` their
manager's display name (as Okta's profile defines it) and ``managerId`` their manager's user.
The identity directory (``conventions.identity_directory``) reads the short name back as the
person's login.

**Statuses.** Most people are ``ACTIVE``; the shares in ``bank.json`` (at least one each, drawn
among people who manage nobody and hold no admin role) are ``LOCKED_OUT``, ``PASSWORD_EXPIRED``,
``SUSPENDED``, ``RECOVERY``, ``PROVISIONED`` and ``STAGED`` (recent joiners). Former employees
(3%, at least two) are made here, ``DEPROVISIONED``: a World's directory lists only current
employees, so they exist in no other system.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from typing import Any

from enterprise_envs.mocks.identity.conventions import SERVICE_USER_TYPE
from enterprise_envs.mocks.identity.world.common import (
    ADMIN_SHORT_NAME,
    AGENT_SHORT_NAME,
    DAY,
    HOUR,
    MINUTE,
    YEAR,
    Plan,
    UserPlan,
    bank,
)

#: Statuses a current employee may hold besides ACTIVE (the bank gives their shares).
_OTHER_STATUSES = ("LOCKED_OUT", "PASSWORD_EXPIRED", "SUSPENDED", "RECOVERY", "PROVISIONED", "STAGED")


def _ascii_lower(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z]", "", plain.lower())


def _unique_short(first: str, last: str, taken: set[str]) -> str:
    base = f"{_ascii_lower(first)}.{_ascii_lower(last)}"
    short, n = base, 2
    while short in taken:
        short, n = f"{base}{n}", n + 1
    taken.add(short)
    return short


def _phone(plan: Plan) -> str:
    return plan.faker.numerify("+1 ###-555-####")


def _new_user(plan: Plan, short: str, domain: str, first: str, last: str, **fields: Any) -> UserPlan:
    """A user the org makes itself: a new key, and the e-mail ``<short>@<domain>`` (their login)."""
    return UserPlan(
        id=plan.key("user"),
        short=short,
        domain=domain,
        first_name=first,
        last_name=last,
        email=f"{short}@{domain}",
        **fields,
    )


def _from_directory(plan: Plan) -> list[UserPlan]:
    """One user per person of the World's directory, the same person in every field it has."""
    people = plan.build.people
    users = {}
    for person in people:
        domain = person.email.partition("@")[2] or bank()["mail_domain"]
        users[person.login] = UserPlan(
            id=plan.key("user"),
            short=person.login,
            domain=domain,
            first_name=person.first_name,
            last_name=person.last_name,
            email=person.email,
            department=person.department,
            title=person.title,
            employee_number=person.employee_number,
            mobile_phone=_phone(plan),
        )
    for person in people:
        users[person.login].manager = users.get(person.manager)
    return list(users.values())


def _own_people(plan: Plan) -> list[UserPlan]:
    """An organisation of ``SIZES[size]['people']`` people: department heads, then staff under them."""
    departments = bank()["departments"]
    domain = bank()["mail_domain"]
    taken: set[str] = set()
    count = plan.sizes["people"]
    # Every department gets its head before the rest are spread at random.
    placed = [departments[i % len(departments)] if i < len(departments) else plan.rng.choice(departments)
              for i in range(count)]  # fmt: skip
    users: list[UserPlan] = []
    heads: dict[str, UserPlan] = {}
    for department in placed:
        first, last = plan.faker.first_name(), plan.faker.last_name()
        short = _unique_short(first, last, taken)
        is_head = department["name"] not in heads
        user = _new_user(
            plan, short, domain, first, last, department=department["name"],
            title=department["head"] if is_head else plan.rng.choice(department["titles"]),
            manager=None if is_head else heads[department["name"]], mobile_phone=_phone(plan),
        )  # fmt: skip
        if is_head:
            heads[department["name"]] = user
        users.append(user)
    _make_namesakes(plan, users, taken)
    users.sort(key=lambda user: user.short)
    for number, user in enumerate(users, start=100001):
        user.employee_number = str(number)
    return users


def _make_namesakes(plan: Plan, users: list[UserPlan], taken: set[str]) -> None:
    """A few pairs of staff who share a first and last name, in different departments.

    Real directories have them, and a help desk that acts on a name alone picks the wrong
    account; a world built from another system's people has that system's look-alikes instead.
    """
    staff = [user for user in users if user.manager is not None]
    picks = plan.rng.sample(staff, min(len(staff), 2 * plan.sizes["namesakes"]))
    for first, second in zip(picks[::2], picks[1::2], strict=False):
        if first.department == second.department:
            continue
        taken.discard(second.short)
        second.first_name, second.last_name = first.first_name, first.last_name
        second.short = _unique_short(first.first_name, first.last_name, taken)
        second.email = f"{second.short}@{second.domain}"


def _service_accounts(plan: Plan, domain: str) -> list[UserPlan]:
    """The setup administrator's and the help-desk agent's accounts."""
    made = []
    for short, first, last, title in (
        (ADMIN_SHORT_NAME, "Okta", "Administrator", "Identity administration"),
        (AGENT_SHORT_NAME, "IT", "Help Desk", "Service desk"),
    ):
        made.append(
            _new_user(
                plan, short, domain, first, last, department=bank()["it_department"], title=title,
                kind="service",
            )
        )  # fmt: skip
    made[0].roles.append("SUPER_ADMIN")
    made[1].roles.append("HELP_DESK_ADMIN")
    return made


def _leavers(plan: Plan, people: list[UserPlan], domain: str, taken: set[str]) -> list[UserPlan]:
    """Former employees (deprovisioned), each reporting to a current manager of their department."""
    count = max(2, round(bank()["leaver_share"] * len(people)))
    managers = sorted({user.manager.short: user.manager for user in people if user.manager}.items())
    by_department: dict[str, list[UserPlan]] = {}
    for _, manager in managers:
        by_department.setdefault(manager.department, []).append(manager)
    departments = sorted({user.department for user in people if user.department})
    titles = sorted({user.title for user in people if user.title})
    leavers = []
    for _ in range(count):
        first, last = plan.faker.first_name(), plan.faker.last_name()
        short = _unique_short(first, last, taken)
        department = plan.rng.choice(departments) if departments else ""
        bosses = by_department.get(department, [])
        leavers.append(
            _new_user(
                plan, short, domain, first, last, department=department,
                title=plan.rng.choice(titles) if titles else "", kind="leaver", status="DEPROVISIONED",
                manager=plan.rng.choice(bosses) if bosses else None, mobile_phone=_phone(plan),
            )
        )  # fmt: skip
    return leavers


def build_users(plan: Plan) -> None:
    """Plan every user: the people, the service accounts and the leavers (statuses come later)."""
    people = _from_directory(plan) if plan.build.people else _own_people(plan)
    domains = Counter(user.domain for user in people)
    domain = max(sorted(domains), key=domains.__getitem__) if domains else bank()["mail_domain"]
    plan.domain = domain
    taken = {user.short for user in people}
    services = _service_accounts(plan, domain)
    taken |= {user.short for user in services}
    plan.users = [*people, *services, *_leavers(plan, people, domain, taken)]


def assign_statuses(plan: Plan) -> None:
    """Give current employees their statuses (see the module docstring); admins and managers stay ACTIVE."""
    managers = {user.manager.id for user in plan.users if user.manager}
    eligible = [
        user for user in plan.people if user.id not in managers and not user.roles and not user.admin_groups
    ]
    plan.rng.shuffle(eligible)
    shares = bank()["status_shares"]
    for status in _OTHER_STATUSES:
        for _ in range(max(1, round(shares[status] * len(plan.people)))):
            if eligible:
                eligible.pop().status = status


def assign_times(plan: Plan) -> None:
    """Every user's lifecycle times, consistent with their status (all at or before now)."""
    now = plan.now
    for user in plan.users:
        status = user.status
        if status in ("STAGED", "PROVISIONED"):
            user.created = plan.between(now - 14 * DAY, now - HOUR)
        elif user.kind == "service":
            user.created = plan.between(plan.org_created, plan.org_created + 30 * DAY)
        else:
            user.created = plan.between(plan.org_created, now - 45 * DAY)
        if status == "STAGED":
            continue
        user.activated = plan.between(user.created + MINUTE, user.created + 3 * DAY)
        if status == "PROVISIONED":
            # Activated with an e-mail, the password not set yet: no sign-in, no password.
            user.status_changed = user.activated
            continue
        _after_activation(plan, user)


def _after_activation(plan: Plan, user: UserPlan) -> None:
    now, status = plan.now, user.status
    start = user.activated
    if status == "ACTIVE":
        user.status_changed = user.activated
        user.password_changed = plan.between(max(start, now - 85 * DAY), now - DAY)
        user.last_login = plan.between(max(user.password_changed, now - 7 * DAY), now - 10 * MINUTE)
        return
    window = {
        "LOCKED_OUT": (10 * MINUTE, 2 * DAY),
        "PASSWORD_EXPIRED": (HOUR, 10 * DAY),
        "SUSPENDED": (DAY, 45 * DAY),
        "RECOVERY": (HOUR, 3 * DAY),
        "DEPROVISIONED": (7 * DAY, plan.history),
    }[status]
    user.status_changed = plan.between(max(start + DAY, now - window[1]), now - window[0])
    changed = user.status_changed
    if status == "PASSWORD_EXPIRED":
        # Expired: the password is older than the 90-day policy allows.
        user.password_changed = plan.between(start, max(start, changed - 90 * DAY))
    else:
        user.password_changed = plan.between(max(start, changed - YEAR // 4), changed - HOUR)
    user.last_login = plan.between(max(user.password_changed, changed - 10 * DAY), changed - MINUTE)


def user_rows(plan: Plan) -> list[dict[str, str]]:
    """The ``user`` rows of every planned user."""
    fmt = plan.fmt
    rows = []
    for user in plan.users:
        manager = user.manager
        rows.append(
            {
                "id": user.id,
                "status": user.status,
                "created": fmt(user.created),
                "activated": fmt(user.activated),
                "statusChanged": fmt(user.status_changed),
                "lastLogin": fmt(user.last_login),
                "lastUpdated": fmt(user.last_updated),
                "passwordChanged": fmt(user.password_changed),
                "login": user.login,
                "email": user.email,
                "firstName": user.first_name,
                "lastName": user.last_name,
                "displayName": user.display_name,
                "mobilePhone": user.mobile_phone,
                "department": user.department,
                "title": user.title,
                "manager": manager.display_name if manager else "",
                "managerId": manager.id if manager else "",
                "employeeNumber": user.employee_number,
                "userType": SERVICE_USER_TYPE if user.kind == "service" else "Employee",
                "locale": "en_US",
                "providerType": "OKTA",
                "providerName": "OKTA",
            }
        )
    return rows
