"""The seeded identity world: determinism, sizes, statuses, references, times, and one people directory.

Every test reads a real built database (the serialized snapshot, deserialized into SQLite).
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.snapshot import WorldSnapshot, build_snapshot
from enterprise_envs.mocks._core.world import World
from enterprise_envs.mocks.identity import (
    AGENT_LOGIN,
    IDENTITY,
    IDENTITY_EPOCH,
    SETUP_LOGIN,
    find_user,
    roles_of,
)
from enterprise_envs.mocks.identity.conventions import (
    DATETIME_FORMAT,
    FACTOR_ID_PREFIXES,
    ID_PREFIXES,
    INTERNAL_ID_PREFIXES,
    ORG_ID_SUFFIX,
    SERVICE_USER_TYPE,
    short_name,
)
from enterprise_envs.mocks.identity.world import SIZES
from enterprise_envs.mocks.itsm import ITSM
from tests.mocks.helpers import digest, digest_in_another_process, open_snapshot
from tests.mocks.identity.helpers import with_wait_surface

STATUSES = (
    "ACTIVE",
    "LOCKED_OUT",
    "PASSWORD_EXPIRED",
    "SUSPENDED",
    "RECOVERY",
    "PROVISIONED",
    "STAGED",
    "DEPROVISIONED",
)


@pytest.fixture(scope="module")
def tiny() -> WorldSnapshot:
    return build_snapshot(IDENTITY, "tiny", 0)


@pytest.fixture(scope="module")
def default() -> WorldSnapshot:
    return build_snapshot(IDENTITY, "default", 0)


@pytest.fixture
def db(tiny: WorldSnapshot) -> Iterator[sqlite3.Connection]:
    conn = open_snapshot(tiny)
    yield conn
    conn.close()


@pytest.fixture(scope="module")
def itsm_world() -> Iterator[World]:
    world = World([ITSM, with_wait_surface()], size="tiny")
    yield world
    world.close()


def rows(db: sqlite3.Connection, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
    return db.execute(sql, params).fetchall()


def counts(snapshot: WorldSnapshot) -> dict[str, int]:
    conn = open_snapshot(snapshot)
    try:
        return {
            table: conn.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0] for table in IDENTITY.catalog
        }
    finally:
        conn.close()


# -- determinism ------------------------------------------------------------------------------


def test_a_seed_gives_the_same_bytes_in_this_process(tiny: WorldSnapshot) -> None:
    assert build_snapshot(IDENTITY, "tiny", 0).data == tiny.data
    assert build_snapshot(IDENTITY, "tiny", 1).data != tiny.data


@pytest.mark.parametrize("hash_seed", ["0", "4242"])
def test_world_bytes_do_not_depend_on_the_process(tiny: WorldSnapshot, hash_seed: str) -> None:
    there = digest_in_another_process("enterprise_envs.mocks.identity", "IDENTITY", "tiny", 0, hash_seed)
    assert there == digest(tiny)


# -- sizes and spread -------------------------------------------------------------------------


def test_counts_per_size(tiny: WorldSnapshot, default: WorldSnapshot) -> None:
    for size, snapshot in (("tiny", tiny), ("default", default)):
        found = counts(snapshot)
        people = SIZES[size]["people"]
        leavers = max(2, round(0.03 * people))
        assert found["user"] == people + 2 + leavers, size  # the people, two service accounts, leavers
        assert found["app"] == 16 and found["group"] >= 20, size
        assert found["group_member"] > found["user"] and found["app_user"] > 4 * people, size
        assert people <= found["factor"] <= 3 * people, size
        assert found["role_assignment"] >= 5 and found["log_event"] > people, size
    assert counts(default)["user"] > counts(tiny)["user"]


@pytest.mark.slow
def test_the_large_world() -> None:
    found = counts(build_snapshot(IDENTITY, "large", 0))
    assert found["user"] == 5000 + 2 + 150
    assert found["app_user"] > 25_000 and found["group_member"] > 15_000 and found["factor"] > 5000


@pytest.mark.parametrize("size", ["tiny", "default"])
def test_statuses_are_spread_with_most_people_active(
    size: str, tiny: WorldSnapshot, default: WorldSnapshot
) -> None:
    conn = open_snapshot(tiny if size == "tiny" else default)
    spread = Counter(row[0] for row in conn.execute("SELECT status FROM user"))
    assert set(spread) == set(STATUSES), spread
    assert spread["ACTIVE"] > 0.75 * sum(spread.values())
    # Admins and managers stay ACTIVE: someone can approve and someone can act.
    admins = conn.execute(
        "SELECT COUNT(*) FROM user u WHERE u.status != 'ACTIVE' AND (u.id IN (SELECT \"userId\" FROM "
        "role_assignment) OR u.id IN (SELECT \"managerId\" FROM user WHERE status != 'DEPROVISIONED'))"
    ).fetchone()[0]
    assert admins == 0


# -- integrity --------------------------------------------------------------------------------


def test_every_reference_resolves(db: sqlite3.Connection) -> None:
    for table in IDENTITY.catalog.values():
        for field in table.fields:
            if field.kind != "reference":
                continue
            target = IDENTITY.catalog[field.reference]
            dangling = rows(
                db,
                f'SELECT "{field.name}" FROM "{table.name}" WHERE "{field.name}" != \'\' '
                f'AND "{field.name}" NOT IN (SELECT "{target.key_field}" FROM "{target.name}")',
            )
            assert not dangling, (table.name, field.name)
    users = {row[0] for row in rows(db, "SELECT id FROM user")}
    for row in rows(db, "SELECT actorId, target FROM log_event"):
        assert row["actorId"] in users
        assert {entry["id"] for entry in json.loads(row["target"])} <= users
    # A role is assigned to exactly one of a user and a group, as its assignment type says.
    for row in rows(db, "SELECT assignmentType, userId, groupId FROM role_assignment"):
        assert (row["assignmentType"] == "USER") == bool(row["userId"]) != bool(row["groupId"])
    assert not rows(db, 'SELECT "groupId", "userId" FROM group_member GROUP BY 1, 2 HAVING COUNT(*) > 1')
    assert not rows(db, 'SELECT "appId", "userId" FROM app_user GROUP BY 1, 2 HAVING COUNT(*) > 1')


def test_every_value_fits_its_field(db: sqlite3.Connection) -> None:
    for table in IDENTITY.catalog.values():
        for field in table.fields:
            values = [row[0] for row in rows(db, f'SELECT DISTINCT "{field.name}" FROM "{table.name}"')]
            if field.kind == "choice":
                assert set(values) - {""} <= set(field.choices), (table.name, field.name)
            if field.kind == "datetime":
                for value in values:
                    if value:
                        moment = datetime.strptime(value, DATETIME_FORMAT).replace(tzinfo=UTC)
                        assert moment <= IDENTITY_EPOCH, (table.name, field.name, value)
            if field.kind == "integer":
                assert all(re.fullmatch(r"-?\d+", value) for value in values if value)
            if field.max_length:
                assert all(len(value) <= field.max_length for value in values), (table.name, field.name)


def test_ids_have_their_tables_prefixes(db: sqlite3.Connection) -> None:
    prefixes = {**ID_PREFIXES, **INTERNAL_ID_PREFIXES}
    for table, prefix in prefixes.items():
        for (key,) in rows(db, f'SELECT id FROM "{table}"'):
            assert key.startswith(prefix) and key.endswith(ORG_ID_SUFFIX) and len(key) == 20, (table, key)
    for row in rows(db, "SELECT id, factorType, provider FROM factor"):
        assert row["id"].startswith(FACTOR_ID_PREFIXES[(row["factorType"], row["provider"])])
    for (key,) in rows(db, "SELECT uuid FROM log_event"):
        assert IDENTITY.conventions.is_id(key)
    keys = [
        key
        for name, table in IDENTITY.catalog.items()
        for (key,) in rows(db, f'SELECT "{table.key_field}" FROM "{name}"')
    ]
    assert len(keys) == len(set(keys))


def test_lifecycle_times_agree_with_the_status(db: sqlite3.Connection) -> None:
    for user in rows(db, "SELECT * FROM user"):
        status = user["status"]
        assert user["created"] and user["lastUpdated"] >= user["created"]
        if status == "STAGED":
            assert not (
                user["activated"] or user["statusChanged"] or user["lastLogin"] or user["passwordChanged"]
            )
            continue
        assert user["created"] <= user["activated"] <= user["statusChanged"]
        if status == "PROVISIONED":
            assert not user["lastLogin"] and not user["passwordChanged"]
            continue
        assert user["activated"] <= user["passwordChanged"] <= user["lastLogin"]
        if status != "ACTIVE":
            assert user["lastLogin"] < user["statusChanged"], dict(user)
    # A password expired by policy is older than 90 days, unless the account is younger.
    for user in rows(db, "SELECT * FROM user WHERE status = 'PASSWORD_EXPIRED'"):
        assert user["passwordChanged"] < user["statusChanged"]


def test_groups_memberships_apps_and_factors_follow_the_users(db: sqlite3.Connection) -> None:
    types = Counter(row[0] for row in rows(db, 'SELECT type FROM "group"'))
    assert set(types) == {"BUILT_IN", "OKTA_GROUP", "APP_GROUP"} and types["BUILT_IN"] == 2
    everyone = db.execute(
        "SELECT id FROM \"group\" WHERE name = 'Everyone' AND type = 'BUILT_IN'"
    ).fetchone()[0]
    members = rows(db, 'SELECT "userId" FROM group_member WHERE "groupId" = ?', (everyone,))
    assert len(members) == db.execute("SELECT COUNT(*) FROM user").fetchone()[0]
    admins = db.execute("SELECT id FROM \"group\" WHERE name = 'Okta Administrators'").fetchone()[0]
    admin_members = {
        row[0] for row in rows(db, 'SELECT "userId" FROM group_member WHERE "groupId" = ?', (admins,))
    }
    holders = {user for (user,) in rows(db, "SELECT id FROM user") if roles_of_db(db, user)}
    assert admin_members == holders and len(holders) >= 4
    # Leavers keep only Everyone, and hold no app and no factor.
    leavers = [row[0] for row in rows(db, "SELECT id FROM user WHERE status = 'DEPROVISIONED'")]
    for user in leavers:
        groups = rows(db, 'SELECT "groupId" FROM group_member WHERE "userId" = ?', (user,))
        assert [row[0] for row in groups] == [everyone]
        assert not rows(db, 'SELECT 1 FROM app_user WHERE "userId" = ?', (user,))
        assert not rows(db, 'SELECT 1 FROM factor WHERE "userId" = ?', (user,))
    # Users who never signed in enrolled nothing; most who did enrolled a push factor.
    assert not rows(
        db,
        "SELECT 1 FROM factor f JOIN user u ON u.id = f.userId WHERE u.status IN ('STAGED', 'PROVISIONED')",
    )
    signed_in = db.execute("SELECT COUNT(*) FROM user WHERE lastLogin != ''").fetchone()[0]
    pushing = db.execute("SELECT COUNT(DISTINCT userId) FROM factor WHERE factorType = 'push'").fetchone()[0]
    assert pushing > 0.6 * signed_in
    # App access through a group matches the group's members; an inactive app has no users.
    inactive = rows(
        db, "SELECT a.id FROM app a JOIN app_user au ON au.appId = a.id WHERE a.status != 'ACTIVE'"
    )
    assert not inactive
    scopes = Counter(row[0] for row in rows(db, "SELECT scope FROM app_user"))
    assert scopes["GROUP"] > scopes["USER"] > 0


def roles_of_db(db: sqlite3.Connection, user: str) -> list[str]:
    found = db.execute(
        'SELECT DISTINCT type FROM role_assignment WHERE "userId" = ? OR "groupId" IN '
        '(SELECT "groupId" FROM group_member WHERE "userId" = ?)',
        (user, user),
    ).fetchall()
    return [row[0] for row in found]


# -- identities and people --------------------------------------------------------------------


def test_the_agent_is_a_help_desk_admin_and_setup_acts_as_a_super_admin() -> None:
    backend = Backend(with_wait_surface(), size="tiny")
    try:
        agent = backend.identity
        assert agent.user_name == f"{AGENT_LOGIN}@example.com" and agent.roles == {"HELP_DESK_ADMIN"}
        assert not agent.superuser
        setup = IDENTITY.user_identity(backend.store, SETUP_LOGIN)
        assert setup is not None and setup.superuser and "SUPER_ADMIN" in setup.roles
        # A login or its short name finds the user; an unknown one nobody.
        user = backend.store.select("user", "status = 'ACTIVE' AND userType = 'Employee'", limit=1)[0]
        assert find_user(backend.store, user["login"]) == find_user(backend.store, short_name(user["login"]))
        assert IDENTITY.user_identity(backend.store, "nobody.here") is None
        assert roles_of(backend.store, user["id"]) == roles_of_db(backend.store.conn, user["id"])
    finally:
        backend.close()


def test_alone_the_org_makes_its_own_people_and_lists_them(db: sqlite3.Connection) -> None:
    backend = Backend(with_wait_surface(), size="tiny")
    try:
        people = IDENTITY.directory(backend.store)
    finally:
        backend.close()
    assert len(people) == SIZES["tiny"]["people"]
    assert len({person.login for person in people}) == len(people)
    heads = [person for person in people if not person.manager]
    assert len(heads) == 10 and all(person.department for person in people)
    for person in people:
        assert person.email == f"{person.login}@example.com"
    assert {
        row[0]
        for row in rows(
            db, "SELECT employeeNumber FROM user WHERE userType = 'Employee' AND status != 'DEPROVISIONED'"
        )
    } >= {"100001"}


def test_a_world_with_itsm_has_itsms_people_in_every_field(itsm_world: World) -> None:
    directory = itsm_world.directory
    assert directory is not None and directory.source == "itsm" and len(directory.people) > 20
    users = {row["login"]: row for row in itsm_world.store.select("identity.user", "1")}
    by_id = {row["id"]: row for row in users.values()}
    for person in directory.people:
        user = users[person.email]  # ITSM's e-mail is <login>@example.com: the Okta login
        assert short_name(user["login"]) == person.login
        itsm_user = itsm_world.store.find_one("itsm.sys_user", "user_name", person.login)
        assert itsm_user is not None and user["email"] == itsm_user["email"] == person.email
        assert (user["firstName"], user["lastName"]) == (person.first_name, person.last_name)
        assert user["displayName"] == person.name and user["title"] == person.title
        assert user["department"] == person.department
        if person.manager:
            manager = by_id[user["managerId"]]
            assert short_name(manager["login"]) == person.manager
            assert user["manager"] == manager["displayName"]
        else:
            assert user["managerId"] == "" and user["manager"] == ""
        assert user["status"] != "DEPROVISIONED"
    # Nobody else but former employees and the two service accounts.
    others = [row for login, row in users.items() if short_name(login) not in directory.by_login()]
    assert {row["status"] for row in others if row["userType"] != SERVICE_USER_TYPE} == {"DEPROVISIONED"}
    assert sorted(
        short_name(row["login"]) for row in others if row["userType"] == SERVICE_USER_TYPE
    ) == sorted([AGENT_LOGIN, SETUP_LOGIN])
    # The identity system lists the same people back (it could be the people source itself),
    # all but their ITSM teams: an Okta group is not a working team.
    without_teams = tuple(dataclasses.replace(person, teams=()) for person in directory.people)
    assert IDENTITY.directory(itsm_world.backends["identity"].store) == without_teams


def test_a_world_with_itsm_is_built_from_its_people_once_and_the_same_way(itsm_world: World) -> None:
    again = World([ITSM, with_wait_surface()], size="tiny")
    try:
        first = itsm_world.backends["identity"].store.conn.serialize()
        second = again.backends["identity"].store.conn.serialize()
        assert first == second
        assert itsm_world.backends["identity"].identity.roles == {"HELP_DESK_ADMIN"}
    finally:
        again.close()
