"""Seeded chat world: a Slack workspace's people, channels, messages, reactions and user groups.

:func:`build_chat_world` fills every catalog table for a (size, seed). With a people source in
the World (``WorldBuild.people``, ITSM's employees) every person is a member with the same name,
e-mail and title and the handle of their login; alone, the workspace makes its own people with
Faker (:data:`SIZES`). Around them: a few former employees (deactivated, ``deleted``), the IT
bot the agent is and the workspace owner scenario setup acts as.

Channels come from the bank (``bank.json``): company-wide public channels, one team channel per
department (``team-<department>``), private channels (leadership, IT admins, HR, finance), a few
archived ones, and direct messages between the bot and some people. The bot is in the IT
channels only: to post in a team channel it must join it first. History is messages (some
threaded, some with reactions) from members, spread over the bank's ``history_days`` before the
epoch. User groups (on-call rotations, the service desk, major-incident managers) take members
from a team of the people source (ITSM's assignment groups, when the World has them), a
department, or the managers.

Everything is planned first and written with one bulk insert per table. All randomness comes
from the build's seeded streams, so a (size, seed, people) gives a byte-identical database in
any process.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.snapshot import WorldBuild
from enterprise_envs.mocks.chat.conventions import (
    BOT_HANDLE,
    DM_PREFIX,
    OWNER_HANDLE,
    TEAM_PREFIX,
    bot_id_of,
    handle_of,
    slack_id,
    ts_text,
)

__all__ = ["SIZES", "build_chat_world", "bank", "team_channel_name"]

DAY = 86_400
#: Per world size: people when the workspace makes its own (with a people source, the source's),
#: messages per channel (a range), and direct-message conversations of the bot.
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"people": 40, "messages_min": 3, "messages_max": 8, "bot_dms": 4},
    "default": {"people": 200, "messages_min": 6, "messages_max": 20, "bot_dms": 12},
    "large": {"people": 5000, "messages_min": 10, "messages_max": 40, "bot_dms": 60},
}
#: Time zones members are in, with Slack's label and offset.
_ZONES = (
    ("America/New_York", "Eastern Standard Time", -18000),
    ("America/Chicago", "Central Standard Time", -21600),
    ("America/Los_Angeles", "Pacific Standard Time", -28800),
    ("Europe/London", "Greenwich Mean Time", 0),
)


@cache
def bank() -> dict[str, Any]:
    """The workspace's text bank (``bank.json``), parsed once."""
    return json.loads(resources.files(__package__).joinpath("bank.json").read_text(encoding="utf-8"))


def team_channel_name(department: str) -> str:
    """The team channel of a department (``Human Resources`` -> ``team-human-resources``)."""
    plain = unicodedata.normalize("NFKD", department).encode("ascii", "ignore").decode("ascii").lower()
    return "team-" + re.sub(r"[^a-z0-9]+", "-", plain).strip("-")


@dataclass(eq=False)
class _Member:
    id: str
    handle: str
    first: str
    last: str
    email: str
    title: str = ""
    department: str = ""
    manager: str = ""
    kind: str = "person"  # person, leaver, bot, owner
    teams: tuple[str, ...] = ()

    @property
    def real_name(self) -> str:
        return f"{self.first} {self.last}".strip()


@dataclass(eq=False)
class _Channel:
    row: dict[str, str]
    members: list[_Member] = field(default_factory=list)


class _Plan:
    def __init__(self, build: WorldBuild) -> None:
        self.build = build
        self.rng = build.rng
        self.faker = build.faker
        self.sizes = SIZES[build.size]
        self.now = build.clock.timestamp()
        self.start = self.now - bank()["history_days"] * DAY
        self.team_id = slack_id(self.rng, TEAM_PREFIX)
        self.members: list[_Member] = []
        self.channels: list[_Channel] = []
        self.rows: dict[str, list[dict[str, str]]] = {}
        self._stamps: set[int] = set()

    def key(self, table: str) -> str:
        return self.build.ids.new(table)

    def add(self, table: str, rows: list[dict[str, str]]) -> None:
        self.rows.setdefault(table, []).extend(rows)

    def moment(self, after: int | None = None) -> int:
        """A past second in the history window (after ``after`` if given), each used once."""
        low = max(self.start, after + 1) if after is not None else self.start
        while True:
            second = self.rng.randint(low, max(low, self.now - 60))
            if second not in self._stamps:
                self._stamps.add(second)
                return second
            low = min(low + 1, self.now - 61)

    @property
    def people(self) -> list[_Member]:
        return [member for member in self.members if member.kind == "person"]


# -- people ------------------------------------------------------------------------------------


def _ascii_lower(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z]", "", plain.lower())


def _plan_people(plan: _Plan) -> None:
    people = plan.build.people
    if people:
        for person in people:
            plan.members.append(
                _Member(
                    plan.key("user"), handle_of(person.login), person.first_name, person.last_name,
                    person.email, person.title, person.department, handle_of(person.manager),
                    teams=person.teams,
                )
            )  # fmt: skip
    else:
        departments = bank()["departments"]
        domain = bank()["mail_domain"]
        taken: set[str] = set()
        heads: dict[str, str] = {}
        for index in range(plan.sizes["people"]):
            department = departments[index % len(departments)]
            first, last = plan.faker.first_name(), plan.faker.last_name()
            base = handle = f"{_ascii_lower(first)}.{_ascii_lower(last)}"
            suffix = 2
            while handle in taken:
                handle, suffix = f"{base}{suffix}", suffix + 1
            taken.add(handle)
            head = heads.setdefault(department["name"], handle)
            plan.members.append(
                _Member(
                    plan.key("user"), handle, first, last, f"{handle}@{domain}",
                    f"Head of {department['name']}" if head == handle
                    else plan.rng.choice(department["titles"]),
                    department["name"], "" if head == handle else head,
                )
            )  # fmt: skip
    leavers = max(2, round(len(plan.members) * bank()["leaver_share"]))
    domain = bank()["mail_domain"]
    for _ in range(leavers):
        first, last = plan.faker.first_name(), plan.faker.last_name()
        handle = f"{_ascii_lower(first)}.{_ascii_lower(last)}.old"
        plan.members.append(
            _Member(plan.key("user"), handle, first, last, f"{handle}@{domain}", kind="leaver")
        )
    plan.members.append(
        _Member(plan.key("user"), BOT_HANDLE, "IT", "Bot", "", "Service desk assistant", "IT", kind="bot")
    )
    plan.members.append(
        _Member(
            plan.key("user"), OWNER_HANDLE, "Workspace", "Owner", f"{OWNER_HANDLE}@{domain}", kind="owner"
        )
    )


def _user_rows(plan: _Plan) -> list[dict[str, str]]:
    rows = []
    for member in plan.members:
        zone, label, offset = plan.rng.choice(_ZONES)
        bot = member.kind == "bot"
        display = member.first if member.kind == "person" else member.real_name
        rows.append({
            "id": member.id, "team_id": plan.team_id, "name": member.handle,
            "deleted": "true" if member.kind == "leaver" else "false",
            "real_name": member.real_name, "tz": zone, "tz_label": label, "tz_offset": str(offset),
            "is_admin": "true" if member.kind == "owner" else "false",
            "is_owner": "true" if member.kind == "owner" else "false",
            "is_primary_owner": "true" if member.kind == "owner" else "false",
            "is_restricted": "false", "is_ultra_restricted": "false",
            "is_bot": "true" if bot else "false", "is_app_user": "false",
            "updated": str(plan.moment()), "color": f"{plan.rng.randrange(0x1000000):06x}",
            "email": member.email, "display_name": display, "display_name_normalized": display,
            "real_name_normalized": member.real_name,
            "first_name": member.first, "last_name": member.last, "title": member.title,
            "phone": plan.faker.numerify("+1 ###-555-####") if member.kind == "person" else "",
            "status_text": "", "status_emoji": "",
        })  # fmt: skip
    return rows


# -- channels ----------------------------------------------------------------------------------


def _channel(plan: _Plan, name: str, purpose: str, creator: _Member, *, private: bool = False,
             archived: bool = False, general: bool = False) -> _Channel:  # fmt: skip
    created = plan.moment() - 30 * DAY if name != "general" else plan.start - 365 * DAY
    row = {
        "id": plan.key("channel"), "name": name, "name_normalized": name,
        "is_channel": "true", "is_group": "false", "is_im": "false", "is_mpim": "false",
        "is_private": "true" if private else "false", "is_archived": "true" if archived else "false",
        "is_general": "true" if general else "false", "is_shared": "false", "is_ext_shared": "false",
        "is_org_shared": "false", "created": str(created), "creator": creator.id, "user": "",
        "topic_value": "", "topic_creator": "", "topic_last_set": "0",
        "purpose_value": purpose, "purpose_creator": creator.id, "purpose_last_set": str(created),
    }  # fmt: skip
    channel = _Channel(row)
    plan.channels.append(channel)
    return channel


def _sample(plan: _Plan, members: list[_Member], share: float) -> list[_Member]:
    return [member for member in members if plan.rng.random() < share]


def _plan_channels(plan: _Plan) -> None:
    by_handle = {member.handle: member for member in plan.members}
    owner, bot = by_handle[OWNER_HANDLE], by_handle[BOT_HANDLE]
    people = plan.people
    managers = {member.manager for member in people if member.manager}
    it_people = [member for member in people if member.department == "IT"]
    for spec in bank()["public_channels"]:
        channel = _channel(plan, spec["name"], spec["purpose"], owner, general=spec.get("general", False))
        if spec.get("general") or spec["name"] in ("announcements", "it-status"):
            channel.members = [*people, owner]
        else:
            channel.members = [*_sample(plan, people, 0.4), owner]
            channel.members += [
                member for member in it_people if spec.get("it") and member not in channel.members
            ]
        if spec.get("general") or spec.get("it"):
            channel.members.append(bot)
    departments = sorted({member.department for member in people if member.department})
    for department in departments:
        channel = _channel(plan, team_channel_name(department), f"The {department} team", owner)
        channel.members = [member for member in people if member.department == department]
    for spec in bank()["private_channels"]:
        who = spec["who"]
        if who == "managers":
            members = [member for member in people if member.handle in managers]
        elif who == "it":
            members = [*it_people, bot]
        else:
            members = [member for member in people if member.department == who]
        creator = members[0] if members and members[0].kind == "person" else owner
        channel = _channel(plan, spec["name"], spec["purpose"], creator, private=True)
        channel.members = members or [owner]
    for spec in bank()["archived_channels"]:
        channel = _channel(plan, spec["name"], spec["purpose"], owner, archived=True)
        channel.members = plan.rng.sample(people, min(8, len(people)))
        if spec["name"].startswith("inc-"):
            channel.members.append(bot)
    for person in plan.rng.sample(people, min(plan.sizes["bot_dms"], len(people))):
        created = plan.moment()
        row = {
            "id": slack_id(plan.rng, DM_PREFIX), "name": "", "name_normalized": "",
            "is_channel": "false", "is_group": "false", "is_im": "true", "is_mpim": "false",
            "is_private": "true", "is_archived": "false", "is_general": "false", "is_shared": "false",
            "is_ext_shared": "false", "is_org_shared": "false", "created": str(created), "creator": bot.id,
            "user": person.id, "topic_value": "", "topic_creator": "", "topic_last_set": "0",
            "purpose_value": "", "purpose_creator": "", "purpose_last_set": "0",
        }  # fmt: skip
        plan.channels.append(_Channel(row, [bot, person]))


def _membership_rows(plan: _Plan) -> list[dict[str, str]]:
    rows = []
    for channel in plan.channels:
        seen: set[str] = set()
        for member in channel.members:
            if member.id not in seen:
                seen.add(member.id)
                rows.append(
                    {"id": plan.key("channel_member"), "channel": channel.row["id"], "user": member.id}
                )
    return rows


# -- messages ----------------------------------------------------------------------------------


def _texts(channel: _Channel) -> list[str]:
    texts = bank()["messages"]
    name = channel.row["name"]
    if name in texts:
        return texts[name]
    return texts["team"] if name.startswith("team-") else texts["default"]


def _plan_messages(plan: _Plan) -> None:
    texts = bank()["messages"]
    messages: list[dict[str, str]] = []
    reactions: list[dict[str, str]] = []
    for channel in plan.channels:
        authors = [member for member in channel.members if member.kind in ("person", "owner")]
        if channel.row["is_im"] == "true":
            count, pool = (
                plan.rng.randint(1, 3),
                texts["dm"],
            )
            authors = channel.members
        else:
            count, pool = (
                plan.rng.randint(plan.sizes["messages_min"], plan.sizes["messages_max"]),
                _texts(channel),
            )
        if not authors:
            continue
        created = int(channel.row["created"])
        for _ in range(count):
            author = plan.rng.choice(authors)
            second = plan.moment(after=created)
            message = _message(plan, channel, author, second, _fill(plan, plan.rng.choice(pool), channel))
            messages.append(message)
            if plan.rng.random() < 0.2:
                replies = plan.rng.randint(1, 3)
                repliers: list[str] = []
                last = second
                for _ in range(replies):
                    replier = plan.rng.choice(authors)
                    last = plan.moment(after=last)
                    reply = _message(plan, channel, replier, last, plan.rng.choice(texts["replies"]))
                    reply["thread_ts"] = message["ts"]
                    messages.append(reply)
                    repliers.append(replier.id)
                message.update(
                    thread_ts=message["ts"], reply_count=str(replies),
                    reply_users_count=str(len(set(repliers))), latest_reply=reply["ts"],
                )  # fmt: skip
            if plan.rng.random() < 0.25:
                for reactor in plan.rng.sample(authors, min(len(authors), plan.rng.randint(1, 3))):
                    reactions.append({
                        "id": plan.key("reaction"), "message": message["id"],
                        "name": plan.rng.choice(texts["reactions"]), "user": reactor.id,
                    })  # fmt: skip
    messages.sort(key=lambda row: (row["channel"], row["ts"]))
    plan.add("message", messages)
    # One reaction of a name per person and message, as Slack keeps them.
    unique = {(row["message"], row["name"], row["user"]): row for row in reactions}
    plan.add("reaction", list(unique.values()))


_SLOT = re.compile(r"\{(\w+)\}")


def _fill(plan: _Plan, template: str, channel: _Channel) -> str:
    """A bank message with its slots drawn (a colleague's first name, a day, a time, a project...).

    Real messages rarely repeat word for word; filled slots keep each person's messages their own,
    so the runbook's check that the agent reads out nobody else's messages can tell them apart.
    """
    slots = bank()["messages"]["slots"]
    people = [member for member in channel.members if member.kind == "person"] or plan.people

    def value(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == "person":
            return plan.rng.choice(people).first
        return plan.rng.choice(slots[name])

    return _SLOT.sub(value, template)


def _message(plan: _Plan, channel: _Channel, author: _Member, second: int, text: str) -> dict[str, str]:
    return {
        "id": plan.key("message"), "channel": channel.row["id"],
        "ts": ts_text(second, plan.rng.randrange(1_000_000)),
        "thread_ts": "", "type": "message", "subtype": "", "user": author.id,
        "bot_id": bot_id_of(author.id) if author.kind == "bot" else "", "text": text,
        "reply_count": "", "reply_users_count": "", "latest_reply": "", "username": "",
        "client_msg_id": "", "edited_ts": "", "edited_user": "",
    }  # fmt: skip


# -- user groups -------------------------------------------------------------------------------


def _plan_usergroups(plan: _Plan) -> None:
    owner = next(member for member in plan.members if member.kind == "owner")
    people = plan.people
    managers = {member.manager for member in people if member.manager}
    groups, members = [], []
    # With a people source that has teams (ITSM's assignment groups), a team's user group holds
    # members of that team, so chat's on-call engineers are the ones ITSM can assign work to.
    with_teams = any(member.teams for member in people)
    for spec in bank()["usergroups"]:
        source = spec["from"]
        if with_teams and spec.get("team"):
            pool = [member for member in people if spec["team"] in member.teams]
        elif source == "managers":
            pool = [member for member in people if member.handle in managers]
        else:
            pool = [member for member in people if member.department == source]
        pool = pool or people
        chosen = plan.rng.sample(pool, min(spec["size"], len(pool)))
        created = plan.moment()
        groups.append({
            "id": plan.key("usergroup"), "team_id": plan.team_id, "name": spec["name"],
            "handle": spec["handle"], "description": spec["description"], "is_usergroup": "true",
            "is_external": "false", "date_create": str(created), "date_update": str(created),
            "date_delete": "0", "created_by": owner.id, "updated_by": owner.id, "deleted_by": "",
            "auto_type": "", "user_count": str(len(chosen)),
        })  # fmt: skip
        members += [
            {"id": plan.key("usergroup_member"), "usergroup": groups[-1]["id"], "user": m.id} for m in chosen
        ]
    plan.add("usergroup", groups)
    plan.add("usergroup_member", members)


def build_chat_world(build: WorldBuild) -> None:
    """Fill every chat table for ``build.size`` and ``build.seed`` (and the World's people).

    Args:
        build: The empty database and the seeded sources.
    """
    plan = _Plan(build)
    _plan_people(plan)
    plan.add("user", _user_rows(plan))
    _plan_channels(plan)
    plan.add("channel", [channel.row for channel in plan.channels])
    plan.add("channel_member", _membership_rows(plan))
    _plan_messages(plan)
    _plan_usergroups(plan)
    build.insert_planned(plan.rows)
