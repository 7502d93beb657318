"""The seeded chat world: determinism, people, channels, memberships, threads and user groups.

Every test reads a real built database (the serialized snapshot, deserialized into SQLite).
"""

from __future__ import annotations

import dataclasses
import re
import sqlite3
from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.snapshot import WorldSnapshot, build_snapshot
from enterprise_envs.mocks._core.tools import Surface, wait_tool
from enterprise_envs.mocks._core.world import World
from enterprise_envs.mocks.chat import CHAT, CHAT_EPOCH
from enterprise_envs.mocks.chat.conventions import BOT_HANDLE, ID_PATTERN, OWNER_HANDLE, TS_PATTERN, handle_of
from enterprise_envs.mocks.chat.world import SIZES, bank, team_channel_name
from enterprise_envs.mocks.itsm import ITSM
from tests.mocks.helpers import digest, digest_in_another_process, open_snapshot


@pytest.fixture(scope="module")
def tiny() -> WorldSnapshot:
    return build_snapshot(CHAT, "tiny", 3)


@pytest.fixture
def db(tiny: WorldSnapshot) -> Iterator[sqlite3.Connection]:
    conn = open_snapshot(tiny)
    yield conn
    conn.close()


def test_same_seed_same_bytes_in_another_process(tiny: WorldSnapshot) -> None:
    here = digest(tiny)
    assert digest_in_another_process("enterprise_envs.mocks.chat", "CHAT", "tiny", 3) == here
    assert digest(build_snapshot(CHAT, "tiny", 4)) != here


def test_people_bot_owner_and_leavers(db: sqlite3.Connection) -> None:
    users = db.execute("SELECT * FROM user").fetchall()
    people = [
        u for u in users if u["is_bot"] == "false" and u["name"] != OWNER_HANDLE and u["deleted"] == "false"
    ]
    assert len(people) == SIZES["tiny"]["people"]
    (bot,) = [u for u in users if u["name"] == BOT_HANDLE]
    assert bot["is_bot"] == "true" and bot["is_admin"] == "false" and bot["deleted"] == "false"
    (owner,) = [u for u in users if u["name"] == OWNER_HANDLE]
    assert owner["is_owner"] == owner["is_admin"] == "true"
    assert sum(u["deleted"] == "true" for u in users) >= 2
    assert all(re.fullmatch(ID_PATTERN, u["id"]) and u["id"].startswith("U") for u in users)
    assert len({u["name"] for u in users}) == len(users)
    assert len({u["team_id"] for u in users}) == 1


def test_channels_and_memberships(db: sqlite3.Connection) -> None:
    channels = {row["name"]: row for row in db.execute("SELECT * FROM channel WHERE is_im = 'false'")}
    for spec in bank()["public_channels"]:
        assert channels[spec["name"]]["is_private"] == "false"
    assert channels["general"]["is_general"] == "true"
    for spec in bank()["private_channels"]:
        assert channels[spec["name"]]["is_private"] == "true"
    for spec in bank()["archived_channels"]:
        assert channels[spec["name"]]["is_archived"] == "true"
    members = db.execute('SELECT channel, "user" FROM channel_member').fetchall()
    assert len(members) == len({(m["channel"], m["user"]) for m in members})
    bot = db.execute("SELECT id FROM user WHERE name = ?", (BOT_HANDLE,)).fetchone()["id"]
    bot_in = {row["name"] for row in db.execute(
        "SELECT c.name FROM channel c JOIN channel_member m ON m.channel = c.id"
        " WHERE m.\"user\" = ? AND c.is_im = 'false'",
        (bot,),
    )}  # fmt: skip
    # The bot is in the IT channels only: posting in a team channel means joining it first.
    assert {"general", "it-status", "it-help", "it-admins"} <= bot_in
    assert not any(name.startswith("team-") for name in bot_in)
    assert "leadership" not in bot_in
    # Nobody deactivated is a member of anything.
    assert not db.execute(
        "SELECT 1 FROM channel_member m JOIN user u ON u.id = m.\"user\" WHERE u.deleted = 'true'"
    ).fetchone()
    # Direct conversations: the bot and one person each.
    for dm in db.execute("SELECT * FROM channel WHERE is_im = 'true'"):
        assert dm["id"].startswith("D") and dm["name"] == ""
        pair = {
            m["user"] for m in db.execute('SELECT "user" FROM channel_member WHERE channel = ?', (dm["id"],))
        }
        assert pair == {bot, dm["user"]}


def test_messages_threads_and_reactions(db: sqlite3.Connection) -> None:
    messages = db.execute("SELECT * FROM message").fetchall()
    assert all(re.fullmatch(TS_PATTERN, m["ts"]) for m in messages)
    assert len({(m["channel"], m["ts"]) for m in messages}) == len(messages)
    epoch = int(CHAT_EPOCH.timestamp())
    assert all(int(m["ts"].split(".")[0]) < epoch for m in messages)
    parents = [m for m in messages if m["thread_ts"] and m["thread_ts"] == m["ts"]]
    assert parents
    for parent in parents:
        replies = [m for m in messages if m["channel"] == parent["channel"] and m["thread_ts"] == parent["ts"]
                   and m["ts"] != parent["ts"]]  # fmt: skip
        assert int(parent["reply_count"]) == len(replies)
        assert parent["latest_reply"] == max(reply["ts"] for reply in replies)
        assert all(reply["ts"] > parent["ts"] for reply in replies)
    reactions = db.execute("SELECT * FROM reaction").fetchall()
    assert len(reactions) == len({(r["message"], r["name"], r["user"]) for r in reactions})


def test_user_groups(db: sqlite3.Connection) -> None:
    groups = {row["handle"]: row for row in db.execute("SELECT * FROM usergroup")}
    assert set(groups) == {spec["handle"] for spec in bank()["usergroups"]}
    for spec in bank()["usergroups"]:
        group = groups[spec["handle"]]
        count = db.execute(
            "SELECT count(*) FROM usergroup_member WHERE usergroup = ?", (group["id"],)
        ).fetchone()[0]
        assert int(group["user_count"]) == count == spec["size"]


def test_people_come_from_the_world_directory() -> None:
    """In a World with ITSM, every ITSM employee is a chat member with the same handle, name and e-mail."""

    def bare(system):  # noqa: ANN001, ANN202
        return dataclasses.replace(system, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})

    world = World([bare(ITSM), bare(CHAT)], size="tiny", world_seed=0)
    try:
        directory = world.directory.people
        chat = world.backends["chat"].store
        for person in directory:
            member = chat.find_one("user", "name", handle_of(person.login))
            assert member is not None, person.login
            assert (member["email"], member["first_name"], member["last_name"]) == (
                person.email, person.first_name, person.last_name,
            )  # fmt: skip
        departments = {person.department for person in directory if person.department}
        for department in departments:
            assert chat.find_one("channel", "name", team_channel_name(department)) is not None
        # A team's user group holds members of that ITSM assignment group (who can be assigned work).
        teams = {handle_of(person.login): person.teams for person in directory}
        for spec in bank()["usergroups"]:
            if "team" not in spec:
                continue
            group = chat.find_one("usergroup", "handle", spec["handle"])
            handles = chat.conn.execute(
                'SELECT u.name FROM usergroup_member m JOIN user u ON u.id = m."user" WHERE m.usergroup = ?',
                (group["id"],),
            ).fetchall()
            assert handles and all(spec["team"] in teams[handle] for (handle,) in handles)
    finally:
        world.close()


def test_one_person_in_every_system_of_a_world() -> None:
    """``World.person_keys``: the person an ITSM key names, found in identity and chat by their login."""
    from enterprise_envs.mocks.identity import IDENTITY

    def bare(system):  # noqa: ANN001, ANN202
        return dataclasses.replace(system, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})

    world = World([bare(ITSM), bare(IDENTITY), bare(CHAT)], size="tiny", world_seed=0)
    try:
        itsm = world.backends["itsm"].store
        for user in itsm.select("sys_user", "active = 'true' AND department != ''", (), limit=5):
            keys = world.person_keys(user["sys_id"])
            assert set(keys) == {"itsm", "identity", "chat"}
            assert world.backends["identity"].store.get("user", keys["identity"])["email"] == user["email"]
            assert world.backends["chat"].store.get("user", keys["chat"])["email"] == user["email"]
        assert world.person_keys("no-such-key") == {"itsm": "no-such-key"}
    finally:
        world.close()


def test_the_people_come_from_the_fullest_record_whatever_the_order() -> None:
    """``System.people_rank``: ITSM's employees seed a world that names chat or identity first."""
    from enterprise_envs.mocks.identity import IDENTITY

    def bare(system):  # noqa: ANN001, ANN202
        return dataclasses.replace(system, surfaces={"typed": lambda: Surface("typed", [wait_tool()])})

    for order, source in (
        ((CHAT, ITSM), "itsm"),
        ((IDENTITY, CHAT, ITSM), "itsm"),
        ((CHAT, IDENTITY), "identity"),
    ):
        world = World([bare(system) for system in order], size="tiny", world_seed=0)
        try:
            assert world.directory is not None and world.directory.source == source
            emails = {
                name: set(backend.store.column_values("user" if name != "itsm" else "sys_user", "email"))
                for name, backend in world.backends.items()
            }
            everyone = set.intersection(*emails.values())
            assert {person.email for person in world.directory.people} <= everyone
        finally:
            world.close()
