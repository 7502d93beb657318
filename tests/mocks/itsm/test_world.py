"""The seeded ITSM world: determinism, state-model consistency, referential integrity, sizes.

Every test queries a real built database (the serialized snapshot, deserialized into SQLite).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from string import Formatter

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.snapshot import WorldSnapshot, build_snapshot
from enterprise_envs.mocks.itsm import ITSM, ITSM_EPOCH, identity_of
from enterprise_envs.mocks.itsm.services.catalog import (
    CLOSED_STAGES,
    MAX_QUANTITY,
    MIN_QUANTITY,
    money,
    parse_price,
)
from enterprise_envs.mocks.itsm.tables import behaviour_rules, itsm_catalog
from enterprise_envs.mocks.itsm.world import ADMIN_USER_NAME, AGENT_USER_NAME, PLANNED_FIELDS, SIZES
from enterprise_envs.mocks.itsm.world_data import CALLER_REPLY_TEMPLATES, COMMENT_TEMPLATES
from tests.mocks.helpers import digest, digest_in_another_process, open_snapshot

SYS_ID = re.compile(r"^[0-9a-f]{32}$")
NUMBER = re.compile(r"^(INC|PRB|CHG|REQ|RITM|KB)\d{7}$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
FORMAT = "%Y-%m-%d %H:%M:%S"
EPOCH = ITSM_EPOCH.strftime(FORMAT)
RULES = behaviour_rules()
CATALOG = itsm_catalog()
CAB = "Change Advisory Board"


@pytest.fixture(scope="module")
def tiny() -> WorldSnapshot:
    return build_snapshot(ITSM, "tiny", 0)


@pytest.fixture
def db(tiny: WorldSnapshot) -> Iterator[sqlite3.Connection]:
    conn = open_snapshot(tiny)
    yield conn
    conn.close()


def rows(db: sqlite3.Connection, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
    return db.execute(sql, params).fetchall()


def column(db: sqlite3.Connection, sql: str, params: tuple = ()) -> list[str]:
    return [found[0] for found in db.execute(sql, params)]


def count(db: sqlite3.Connection, sql: str, params: tuple = ()) -> int:
    return db.execute(sql, params).fetchone()[0]


MEMBERSHIP = 'SELECT {} FROM sys_user_grmember m JOIN sys_user_group g ON g.sys_id = m."group" WHERE {} = ?'


def members_of(db: sqlite3.Connection, group: str) -> set[str]:
    return set(column(db, MEMBERSHIP.format("m.user", "g.name"), (group,)))


# -- determinism ----------------------------------------------------------------------------------


def test_same_seed_gives_identical_bytes(tiny: WorldSnapshot) -> None:
    assert build_snapshot(ITSM, "tiny", 0).data == tiny.data


@pytest.mark.parametrize("hash_seed", ["1", "12345"])
def test_world_bytes_do_not_depend_on_the_process(tiny: WorldSnapshot, hash_seed: str) -> None:
    # Another process with another PYTHONHASHSEED must build the same database, byte for byte
    # (no set-order leaks in rows, schema or index order).
    there = digest_in_another_process("enterprise_envs.mocks.itsm", "ITSM", "tiny", 0, hash_seed)
    assert there == digest(tiny)


def test_different_seeds_give_different_worlds(tiny: WorldSnapshot) -> None:
    mine, other = open_snapshot(tiny), open_snapshot(build_snapshot(ITSM, "tiny", 1))
    for sql in (
        "SELECT name FROM sys_user ORDER BY user_name",
        "SELECT sys_id FROM incident ORDER BY number",
    ):
        assert column(mine, sql) != column(other, sql)


# -- shape and formats ----------------------------------------------------------------------------


def test_every_catalog_table_is_filled(db: sqlite3.Connection) -> None:
    assert not [name for name in CATALOG if count(db, f'SELECT COUNT(*) FROM "{name}"') == 0]


def test_tiny_counts_follow_the_size_table(db: sqlite3.Connection) -> None:
    sizes = SIZES["tiny"]
    for table, key in (
        ("sys_user", "users"), ("incident", "incidents"), ("problem", "problems"),
        ("change_request", "changes"), ("sc_request", "requests"), ("cmdb_ci", "cis"),
    ):  # fmt: skip
        assert count(db, f"SELECT COUNT(*) FROM {table}") == sizes[key], table
    assert count(db, "SELECT COUNT(*) FROM sys_user_group") == 8


def test_sys_ids_and_numbers_have_the_vendor_format(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        assert all(SYS_ID.match(value) for value in column(db, f'SELECT sys_id FROM "{name}"')), name
        if table.number_prefix:
            numbers = column(db, f'SELECT number FROM "{name}"')
            assert all(NUMBER.match(n) and n.startswith(table.number_prefix) for n in numbers), name
            assert len(set(numbers)) == len(numbers), f"{name}: duplicate numbers"


def test_numbers_follow_opening_order(db: sqlite3.Connection) -> None:
    for table in ("incident", "problem", "change_request", "sc_request"):
        opened = column(db, f"SELECT opened_at FROM {table} ORDER BY number")
        assert opened == sorted(opened), table


def test_date_times_are_well_formed_and_history_is_in_the_past(db: sqlite3.Connection) -> None:
    horizon = (ITSM_EPOCH + timedelta(days=60)).strftime(FORMAT)
    for name, table in CATALOG.items():
        for spec in table.fields:
            values = column(db, f'SELECT "{spec.name}" FROM "{name}" WHERE "{spec.name}" != \'\'')
            if spec.kind == "datetime":
                bad = [value for value in values if not DATETIME.match(value)]
                assert not bad, f"{name}.{spec.name}: {bad[:3]}"
            # Any column holding date-times (some are typed as plain strings) records history,
            # except planned times, which stay within a plausible horizon.
            limit = horizon if spec.name in PLANNED_FIELDS else EPOCH
            late = [value for value in values if DATETIME.match(value) and value >= limit]
            assert not late, f"{name}.{spec.name} after {limit}: {late[:3]}"


def test_created_before_updated(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        created, updated = (
            ("created_on", "updated_on") if "created_on" in table else ("sys_created_on", "sys_updated_on")
        )
        assert count(db, f'SELECT COUNT(*) FROM "{name}" WHERE "{updated}" < "{created}"') == 0, name


def test_every_reference_points_at_an_existing_row(db: sqlite3.Connection) -> None:
    checked = 0
    for name, table in CATALOG.items():
        for spec in table.fields:
            if spec.kind != "reference" or not CATALOG.is_local(spec.reference or ""):
                continue
            dangling = column(
                db,
                f'SELECT "{spec.name}" FROM "{name}" WHERE "{spec.name}" != \'\' '
                f'AND "{spec.name}" NOT IN (SELECT sys_id FROM "{spec.reference}")',
            )
            # "global" is the vendor's global domain, not a group row.
            dangling = [value for value in dangling if not (spec.name == "sys_domain" and value == "global")]
            assert not dangling, f"{name}.{spec.name} -> {spec.reference}: {dangling[:3]}"
            checked += count(db, f'SELECT COUNT(*) FROM "{name}" WHERE "{spec.name}" != \'\'')
    assert checked > 500


def test_string_typed_references_also_resolve(db: sqlite3.Connection) -> None:
    # Columns the captured schema types as plain strings but that hold sys_ids.
    checks = (
        ("problem", "assignment_group", "sys_user_group"), ("problem", "closed_by", "sys_user"),
        ("incident", "rfc", "change_request"), ("incident", "reopened_by", "sys_user"),
        ("sc_req_item", "assignment_group", "sys_user_group"), ("sc_req_item", "assigned_to", "sys_user"),
        ("sys_user_group", "manager", "sys_user"), ("cmn_department", "head", "sys_user"),
        ("change_request", "assignment_group", "sys_user_group"), ("sc_request", "closed_by", "sys_user"),
    )  # fmt: skip
    for table, name, target in checks:
        sql = f'SELECT COUNT(*) FROM "{table}" WHERE "{name}" != \'\' AND "{name}" '
        sql += f"NOT IN (SELECT sys_id FROM {target})"
        assert count(db, sql) == 0, f"{table}.{name}"


# -- people and groups ----------------------------------------------------------------------------


def test_exactly_one_agent_with_itil_in_the_service_desk(db: sqlite3.Connection) -> None:
    agents = rows(db, "SELECT * FROM sys_user WHERE user_name = ?", (AGENT_USER_NAME,))
    assert len(agents) == 1
    agent = agents[0]
    assert agent["roles"] == "itil" and agent["active"] == "true" and agent["name"] == "Service Desk Agent"
    assert (agent["first_name"], agent["last_name"]) == ("Service Desk", "Agent")
    assert column(db, MEMBERSHIP.format("g.name", "m.user"), (agent["sys_id"],)) == ["Service Desk"]
    admins = rows(db, "SELECT * FROM sys_user WHERE user_name = ?", (ADMIN_USER_NAME,))
    assert len(admins) == 1 and admins[0]["roles"] == "admin" and admins[0]["name"] == "System Administrator"


def test_users_are_unique_and_use_example_com(db: sqlite3.Connection) -> None:
    users = rows(db, "SELECT * FROM sys_user")
    names = [user["user_name"] for user in users]
    assert len(set(names)) == len(names)
    for user in users:
        assert user["email"] == f"{user['user_name']}@example.com"
        assert user["user_password"] == "" and user["locked_out"] == "false" and user["sys_mod_count"] == "0"
        if user["user_name"] not in (AGENT_USER_NAME, ADMIN_USER_NAME):
            assert re.fullmatch(r"[a-z]+\.[a-z]+\d*", user["user_name"]), user["user_name"]
    assert any(user["active"] == "false" for user in users), "no departed staff"
    assert any(user["vip"] == "true" for user in users), "no VIPs"


def test_managers_share_the_department_and_heads_have_none(db: sqlite3.Connection) -> None:
    users = {user["sys_id"]: user for user in rows(db, "SELECT * FROM sys_user")}
    for user in users.values():
        if user["manager"]:
            assert users[user["manager"]]["department"] == user["department"], user["user_name"]
    for dept in rows(db, "SELECT * FROM cmn_department"):
        head = users[dept["head"]]
        assert head["manager"] == "" and head["department"] == dept["sys_id"] and head["active"] == "true"


def test_group_membership_rules(db: sqlite3.Connection) -> None:
    per_group = Counter(column(db, 'SELECT "group" FROM sys_user_grmember'))
    groups = rows(db, "SELECT * FROM sys_user_group")
    assert all(per_group[group["sys_id"]] >= 3 for group in groups)
    per_user = Counter(column(db, "SELECT user FROM sys_user_grmember"))
    for user in rows(db, "SELECT * FROM sys_user WHERE roles LIKE '%itil%'"):
        assert 1 <= per_user[user["sys_id"]] <= 2, user["user_name"]
    assert all(per_user[user] == 0 for user in column(db, "SELECT sys_id FROM sys_user WHERE roles = ''"))
    roles = dict(db.execute("SELECT sys_id, roles FROM sys_user").fetchall())
    assert all("approver" in roles[user].split(",") for user in members_of(db, CAB))
    for group in groups:
        assert group["manager"] in members_of(db, group["name"]), (
            f"manager of {group['name']} is not a member"
        )


def _one_letter_apart(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def test_look_alike_users_exist(db: sqlite3.Connection) -> None:
    by_name: dict[str, list[sqlite3.Row]] = {}
    for user in rows(db, "SELECT * FROM sys_user WHERE active = 'true'"):
        by_name.setdefault(user["name"], []).append(user)
    twins = [group for group in by_name.values() if len(group) > 1]
    assert any(len({u["department"] for u in g}) == len({u["email"] for u in g}) == len(g) for g in twins)
    names = sorted(by_name)
    close = [(a, b) for i, a in enumerate(names) for b in names[i + 1 :] if _one_letter_apart(a, b)]
    assert len(close) >= 2, close


# -- incidents ------------------------------------------------------------------------------------


def test_priority_follows_the_matrix(db: sqlite3.Connection) -> None:
    matrix = RULES["incident"]["priority"]["matrix"]
    for row in rows(db, "SELECT number, impact, urgency, priority FROM incident"):
        assert row["priority"] == matrix[f"{row['impact']},{row['urgency']}"], row["number"]


def test_incident_state_active_and_mirror_agree(db: sqlite3.Connection) -> None:
    active = set(RULES["incident"]["active"]["true_states"])
    states: Counter[str] = Counter()
    for row in rows(db, "SELECT * FROM incident"):
        states[row["state"]] += 1
        assert row["incident_state"] == row["state"]
        assert row["active"] == ("true" if row["state"] in active else "false"), row["number"]
        assert row["sys_created_on"] == row["opened_at"] <= row["sys_updated_on"]
        assert int(row["sys_mod_count"]) >= 1 and row["sys_class_name"] == "incident"
        assert (row["sys_domain"], row["sys_domain_path"], row["approval"]) == (
            "global",
            "/",
            "not requested",
        )
        assert (row["sla_due"] != "") == (row["active"] == "true"), row["number"]
        assert row["made_sla"] in ("true", "false") and row["reopen_count"] in ("", "0", "1")
        if row["reopen_count"] == "1":
            assert row["reopened_by"] == row["caller_id"] and row["opened_at"] < row["reopened_time"]
    assert set(states) == set(RULES["incident"]["states"])


def test_resolved_and_closed_incidents_carry_their_resolution(db: sqlite3.Connection) -> None:
    codes = set(RULES["incident"]["close_code_current"])
    done = rows(db, "SELECT * FROM incident WHERE state IN ('6', '7')")
    assert done
    for row in done:
        assert row["close_code"] in codes and row["close_notes"].strip(), row["number"]
        assert row["resolved_at"] and row["resolved_by"] == row["assigned_to"] != ""
        assert row["opened_at"] <= row["resolved_at"] <= row["sys_updated_on"]
        if row["state"] == "7":
            assert row["closed_at"] >= row["resolved_at"] and row["closed_by"], row["number"]
        else:
            assert row["closed_at"] == ""
    for row in rows(db, "SELECT * FROM incident WHERE state NOT IN ('6', '7')"):
        assert row["close_code"] == row["close_notes"] == row["resolved_at"] == row["closed_at"] == ""


def test_on_hold_incidents_have_a_valid_reason(db: sqlite3.Connection) -> None:
    held = rows(db, "SELECT * FROM incident WHERE state = '3'")
    assert held
    assert all(row["hold_reason"] in {"1", "3", "4", "5"} for row in held)
    assert count(db, "SELECT COUNT(*) FROM incident WHERE state != '3' AND hold_reason != ''") == 0
    for row in held:
        if row["hold_reason"] == "3":
            assert row["problem_id"], row["number"]
        if row["hold_reason"] == "5":
            assert row["rfc"], row["number"]


def test_assignees_belong_to_the_assignment_group(db: sqlite3.Connection) -> None:
    members = {(r[0], r[1]) for r in db.execute('SELECT user, "group" FROM sys_user_grmember')}
    for table in ("incident", "problem", "change_request", "sc_req_item"):
        for row in rows(
            db, f"SELECT number, assigned_to, assignment_group FROM {table} WHERE assigned_to != ''"
        ):
            assert (row["assigned_to"], row["assignment_group"]) in members, row["number"]
    assert count(db, "SELECT COUNT(*) FROM incident WHERE state != '1' AND assigned_to = ''") == 0
    assert count(db, "SELECT COUNT(*) FROM incident WHERE assignment_group = ''") == 0


def test_callers_are_active_employees_and_some_hold_several_open_incidents(db: sqlite3.Connection) -> None:
    callers = rows(db, "SELECT DISTINCT u.* FROM incident i JOIN sys_user u ON u.sys_id = i.caller_id")
    assert all(user["roles"] == "" and user["active"] == "true" for user in callers)
    assert any(user["vip"] == "true" for user in callers)
    open_per_caller = Counter(column(db, "SELECT caller_id FROM incident WHERE state IN ('1', '2', '3')"))
    assert max(open_per_caller.values()) >= 2
    desk = members_of(db, "Service Desk")
    for row in rows(db, "SELECT * FROM incident"):
        if row["contact_type"] == "self-service":
            assert row["opened_by"] == row["caller_id"]
        else:
            assert row["contact_type"] in ("phone", "email", "walk-in") and row["opened_by"] in desk


def test_duplicates_and_problem_links_are_counted(db: sqlite3.Connection) -> None:
    children = Counter(column(db, "SELECT parent_incident FROM incident WHERE parent_incident != ''"))
    assert children
    for row in rows(db, "SELECT sys_id, number, child_incidents FROM incident"):
        assert int(row["child_incidents"]) == children.get(row["sys_id"], 0), row["number"]
    for row in rows(db, "SELECT c.* FROM incident c WHERE c.parent_incident != '' AND c.state IN ('6', '7')"):
        assert row["close_code"] == "Duplicate"
    linked = Counter(column(db, "SELECT problem_id FROM incident WHERE problem_id != ''"))
    for row in rows(db, "SELECT sys_id, related_incidents FROM problem"):
        assert int(row["related_incidents"]) == linked.get(row["sys_id"], 0)
    faults = Counter(column(db, "SELECT cmdb_ci FROM incident WHERE cmdb_ci != ''"))
    for row in rows(db, "SELECT sys_id, fault_count FROM cmdb_ci"):
        assert int(row["fault_count"]) == faults.get(row["sys_id"], 0)


def test_journal_entries_follow_their_incident(db: sqlite3.Connection) -> None:
    entries = rows(
        db,
        "SELECT j.*, i.opened_at, i.sys_updated_on AS touched, i.caller_id FROM sys_journal_field j "
        "JOIN incident i ON i.sys_id = j.element_id",
    )
    assert len(entries) == count(db, "SELECT COUNT(*) FROM sys_journal_field") > 0
    users = dict(db.execute("SELECT user_name, sys_id FROM sys_user").fetchall())
    staff = set(column(db, "SELECT user FROM sys_user_grmember"))
    for entry in entries:
        assert entry["name"] == "incident" and entry["element"] in ("work_notes", "comments")
        assert entry["value"].strip() and "{" not in entry["value"]
        assert entry["opened_at"] < entry["sys_created_on"] <= entry["touched"]
        author = users[entry["sys_created_by"]]
        # Work notes are internal (staff only); a caller only ever adds comments.
        assert author in staff or (author == entry["caller_id"] and entry["element"] == "comments")


def test_template_placeholders_are_filled(db: sqlite3.Connection) -> None:
    checks = {
        "incident": ("short_description", "description", "close_notes"),
        "change_request": ("short_description", "description", "implementation_plan", "backout_plan"),
    }
    for table, columns in checks.items():
        for name in columns:
            assert count(db, f"SELECT COUNT(*) FROM {table} WHERE {name} LIKE '%{{%'") == 0, f"{table}.{name}"


# -- problems, changes, requests, knowledge, CMDB ------------------------------------------------


def test_problems_follow_their_state_model(db: sqlite3.Connection) -> None:
    requirements = RULES["problem"]["resolution_code_requirements"]
    for row in rows(db, "SELECT * FROM problem"):
        assert row["problem_state"] == row["state"] in RULES["problem"]["states"]
        assert (row["assigned_to"] != "") == (row["state"] != "101"), row["number"]
        assert row["active"] == ("false" if row["state"] == "107" else "true")
        assert (row["closed_at"] != "") == (row["state"] == "107")
        if row["state"] in ("106", "107"):
            assert row["resolution_code"] in ("fix_applied", "risk_accepted"), row["number"]
            assert all(row[name].strip() for name in requirements[row["resolution_code"]]), row["number"]
        else:
            assert row["resolution_code"] == ""
        if row["known_error"] == "true":
            assert row["work_around"].strip()


def test_changes_follow_their_flow_and_approvals(db: sqlite3.Connection) -> None:
    flows = RULES["change_request"]["flows"]
    votes: dict[str, list[str]] = {}
    for change, state in db.execute("SELECT sysapproval, state FROM sysapproval_approver"):
        votes.setdefault(change, []).append(state)
    # Approvers: the CAB, and the managers of the groups changes are assigned to (technical approval).
    managers = set(column(db, "SELECT manager FROM sys_user_group"))
    assert set(column(db, "SELECT approver FROM sysapproval_approver")) <= members_of(db, CAB) | managers
    for row in rows(db, "SELECT * FROM change_request"):
        state, approval, mine = row["state"], row["approval"], set(votes.get(row["sys_id"], []))
        assert state in flows[row["type"]] or state == "4", row["number"]
        assert row["opened_at"] < row["start_date"] < row["end_date"]
        if state != "-5":
            assert row["assignment_group"] and row["assigned_to"], row["number"]
        if state in ("-4", "-3"):
            assert approval == "requested" and "requested" in mine, row["number"]
        if state in ("-2", "-1", "0", "3"):
            assert approval == "approved", row["number"]
            if row["type"] == "standard":
                assert not mine, row["number"]
            else:
                assert "approved" in mine and mine <= {"approved", "not_required"}, row["number"]
        if approval == "rejected":
            assert state == "-5" and row["assignment_group"], row["number"]
            assert "rejected" in mine and mine <= {"rejected", "approved", "not_required"}
        if approval == "not requested":
            assert not mine
        if state == "3":
            assert (
                row["close_code"] in RULES["change_request"]["required"]["close_code"] and row["close_notes"]
            )
            assert row["start_date"] <= row["work_start"] <= row["work_end"] <= row["closed_at"]
        assert row["active"] == ("false" if state in ("3", "4") else "true")


def test_requests_roll_up_their_items(db: sqlite3.Connection) -> None:
    states = set(RULES["sc_req_item"]["states"])
    items: dict[str, list[sqlite3.Row]] = {}
    for item in rows(db, "SELECT * FROM sc_req_item"):
        assert item["state"] in states and item["cat_item"] and int(item["quantity"]) >= 1
        assert item["active"] == ("true" if item["state"] in ("-5", "1", "2") else "false")
        assert (item["closed_at"] != "") == (item["active"] == "false")
        items.setdefault(item["request"], []).append(item)
    employees = set(column(db, "SELECT sys_id FROM sys_user WHERE roles = '' AND active = 'true'"))
    managers = dict(db.execute("SELECT sys_id, manager FROM sys_user").fetchall())
    for request in rows(db, "SELECT * FROM sc_request"):
        lines = items[request["sys_id"]]
        assert request["requested_for"] in employees
        assert request["opened_by"] in (request["requested_for"], managers[request["requested_for"]])
        total = sum(float(line["price"]) * int(line["quantity"]) for line in lines)
        assert float(request["price"]) == pytest.approx(total)
        closed = all(line["active"] == "false" for line in lines)
        assert request["active"] == ("false" if closed else "true")
        assert all(line["opened_at"] == request["opened_at"] for line in lines)


def test_knowledge_base_is_complete(db: sqlite3.Connection) -> None:
    articles = rows(db, "SELECT * FROM kb_knowledge")
    live = [a for a in articles if a["workflow_state"] in ("published", "retired") and a["text"].strip()]
    assert len(live) >= 110
    states = Counter(article["workflow_state"] for article in articles)
    assert states["retired"] >= 1 and states["draft"] >= 1
    for article in articles:
        assert article["active"] == ("false" if article["workflow_state"] == "retired" else "true")
        assert article["valid_to"] == "2100-01-01" and article["article_type"] == "text"
        assert bool(article["published"]) == (article["workflow_state"] != "draft")
        assert article["meta"] and article["short_description"] and article["category"]
    itil = set(column(db, "SELECT sys_id FROM sys_user WHERE roles LIKE '%itil%'"))
    assert {article["author"] for article in articles} <= itil


def test_cmdb_names_are_unique_and_addresses_private(db: sqlite3.Connection) -> None:
    names = column(db, "SELECT name FROM cmdb_ci")
    assert len(set(names)) == len(names)
    hosts = rows(db, "SELECT * FROM cmdb_ci WHERE fqdn != ''")
    assert hosts
    for row in hosts:
        assert row["fqdn"].endswith(".corp.example.com") and row["ip_address"].startswith("10.")
    addresses = column(db, "SELECT ip_address FROM cmdb_ci WHERE ip_address != ''")
    assert len(set(addresses)) == len(addresses)


def test_emails_stay_on_example_com(db: sqlite3.Connection) -> None:
    for table, name in (("sys_user", "email"), ("sys_user_group", "email")):
        assert all(value.endswith("@example.com") for value in column(db, f"SELECT {name} FROM {table}"))


# -- the default size -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def default() -> WorldSnapshot:
    return build_snapshot(ITSM, "default", 0)


def test_default_world_stays_small_and_consistent(default: WorldSnapshot) -> None:
    assert default.nbytes < 1_500_000
    conn = open_snapshot(default)
    assert count(conn, "SELECT COUNT(*) FROM incident") == SIZES["default"]["incidents"]
    assert count(conn, "SELECT COUNT(*) FROM sys_journal_field") > SIZES["default"]["incidents"] // 2
    matrix = RULES["incident"]["priority"]["matrix"]
    found = conn.execute("SELECT impact, urgency, priority FROM incident").fetchall()
    assert all(priority == matrix[f"{impact},{urgency}"] for impact, urgency, priority in found)
    assert count(conn, "SELECT COUNT(*) FROM sys_user WHERE user_name = ?", (AGENT_USER_NAME,)) == 1


def test_default_world_follows_the_service_rules(default: WorldSnapshot) -> None:
    conn = open_snapshot(default)
    seen = check_change_approvals(conn)
    assert {shape for _, _, shape in seen} >= {("approved", "approved"), (None, "approved")}
    assert any(kind == "standard" and state not in ("-5", "4") for kind, state, _ in seen)
    assert {"1", "2", "3"} <= set(check_requested_items(conn))
    check_link_counts(conn)
    authors = check_comment_authors(conn)
    assert authors["caller"] and authors["staff"]


# -- agreement with the service layer -------------------------------------------------------------
# Seeded records must look like what the services (mocks/itsm/services) make, so an agent acting on
# them meets the same behaviour as on records it creates.

#: (technical approval state, CAB outcome) of a change's approvals; see approval_shape.
Shape = tuple[str | None, str | None]


def cab_approvers(db: sqlite3.Connection) -> list[str]:
    """Whom the engine asks at Authorize: active CAB members with the approver role."""
    members = members_of(db, CAB)
    return sorted(
        user["sys_id"]
        for user in rows(db, "SELECT sys_id, active, roles FROM sys_user")
        if user["sys_id"] in members and user["active"] != "false" and "approver" in user["roles"].split(",")
    )


def approval_shape(db: sqlite3.Connection, change: sqlite3.Row) -> Shape:
    """A change's approvals as (technical approval state, CAB outcome), checked row by row.

    The CAB outcome is "requested" or "cancelled" (every CAB approver, all in that state),
    "approved" or "rejected" (one approver decided, the others no longer required), or None.
    """
    number = change["number"]
    user_names = dict(db.execute("SELECT sys_id, user_name FROM sys_user").fetchall())
    cab_group = db.execute("SELECT sys_id FROM sys_user_group WHERE name = ?", (CAB,)).fetchone()[0]
    found = rows(db, "SELECT * FROM sysapproval_approver WHERE sysapproval = ?", (change["sys_id"],))
    for row in found:
        assert row["source_table"] == "change_request", number
        assert bool(row["comments"].strip()) == (row["state"] == "rejected"), number
        assert row["sys_created_on"] <= row["sys_updated_on"] <= change["sys_updated_on"], number
        assert row["sys_mod_count"] == ("0" if row["state"] == "requested" else "1"), number
        if row["state"] in ("approved", "rejected"):
            assert row["sys_updated_by"] == user_names[row["approver"]], number
    technical = [row for row in found if row["group"] != cab_group]
    board = [row for row in found if row["group"] == cab_group]
    tech_state = None
    if technical:
        assert len(technical) == 1, number
        (tech,) = technical
        manager = db.execute(
            "SELECT manager FROM sys_user_group WHERE sys_id = ?", (change["assignment_group"],)
        ).fetchone()[0]
        assert (tech["approver"], tech["group"]) == (manager, change["assignment_group"]), number
        tech_state = tech["state"]
        for row in board:  # the technical approval asked the CAB, there and then
            asked = (row["sys_created_on"], row["sys_created_by"])
            assert asked == (tech["sys_updated_on"], user_names[manager]), number
    if not board:
        return tech_state, None
    assert sorted(row["approver"] for row in board) == cab_approvers(db), number
    assert len({(row["sys_created_on"], row["sys_created_by"]) for row in board}) == 1, number
    states = Counter(row["state"] for row in board)
    if set(states) in ({"requested"}, {"cancelled"}):
        return tech_state, next(iter(states))
    decided = [state for state in states if state != "not_required"]
    assert len(decided) == 1 and states[decided[0]] == 1, (number, states)
    # The deciding approver made the other approvals no longer required, in the same write.
    assert len({(row["sys_updated_by"], row["sys_updated_on"]) for row in board}) == 1, number
    return tech_state, decided[0]


def engine_shapes(kind: str, state: str, approval: str) -> set[Shape]:
    """The approvals services/change.py can leave on a change of this type, state and approval."""
    if kind == "standard" or approval == "not requested":
        return {(None, None)}
    tech = "approved" if kind == "normal" else None
    assess = kind == "normal"
    if state == "-5" and approval == "rejected":  # rejected at Assess or at Authorize
        return ({("rejected", None)} if assess else set()) | {(tech, "rejected")}
    if state == "-4":
        return {("requested", None)} if assess else set()
    if state == "-3":
        return {(tech, "requested")}
    if state == "4" and approval == "requested":  # canceled while waiting for an approval
        return ({("cancelled", None)} if assess else set()) | {(tech, "cancelled")}
    if state in ("-2", "-1", "0", "3", "4") and approval == "approved":
        return {(tech, "approved")}
    return set()


def check_change_approvals(db: sqlite3.Connection) -> Counter[tuple[str, str, Shape]]:
    """Check every change's approvals against the engine; count the (type, state, shape) seen."""
    seen: Counter[tuple[str, str, Shape]] = Counter()
    for change in rows(db, "SELECT * FROM change_request"):
        shape = approval_shape(db, change)
        kind, state, approval = change["type"], change["state"], change["approval"]
        assert shape in engine_shapes(kind, state, approval), (change["number"], kind, state, approval, shape)
        found = rows(db, "SELECT * FROM sysapproval_approver WHERE sysapproval = ?", (change["sys_id"],))
        events = [moment for row in found for moment in (row["sys_created_on"], row["sys_updated_on"])]
        if events and (state in ("-4", "-3", "-2") or approval == "rejected"):
            # Submitted, approved or rejected: the approval engine's write was the last update.
            assert max(events) == change["sys_updated_on"], change["number"]
        if events and state in ("-1", "0", "3"):
            assert max(events) < change["start_date"], change["number"]
        seen[(kind, state, shape)] += 1
    return seen


def test_change_approvals_are_what_the_engine_makes(db: sqlite3.Connection) -> None:
    seen = check_change_approvals(db)
    # Every world holds a change waiting at each approval step, and a rejected one.
    assert seen[("normal", "-4", ("requested", None))]
    assert seen[("normal", "-3", ("approved", "requested"))]
    assert seen[("emergency", "-3", (None, "requested"))]
    assert any(state == "-5" and "rejected" in shape for _, state, shape in seen)


def _live_db(backend: Backend) -> sqlite3.Connection:
    """A copy of a backend's database, for the checks that query the built world."""
    conn = sqlite3.connect(":memory:")
    conn.deserialize(backend.serialize())
    conn.row_factory = sqlite3.Row
    return conn


def _decide(backend: Backend, tool: str, number: str, user_id: str, **extra: str) -> dict[str, str]:
    """Approve or reject a change as a user through the typed tool; the change afterwards."""
    user = backend.store.get("sys_user", user_id)
    assert user is not None
    result = backend.call(tool, {"number": number, **extra}, identity=identity_of(user))
    assert result.ok, result.body
    change = backend.store.find_one("change_request", "number", number)
    assert change is not None
    return change


def _change_row(conn: sqlite3.Connection, sys_id: str) -> sqlite3.Row:
    return rows(conn, "SELECT * FROM change_request WHERE sys_id = ?", (sys_id,))[0]


def test_a_seeded_normal_change_at_assess_goes_through_the_real_engine_to_scheduled() -> None:
    backend = Backend(ITSM, size="tiny")
    try:
        store = backend.store
        change = store.select("change_request", "type = 'normal' AND state = '-4'", order_by="number")[0]
        number, sys_id = change["number"], change["sys_id"]
        group = store.get("sys_user_group", change["assignment_group"])
        assert group is not None
        (technical,) = store.select("sysapproval_approver", "sysapproval = ?", (sys_id,))
        assert (technical["state"], technical["approver"]) == ("requested", group["manager"])

        # Technical approval by the group's manager: to Authorize, where the CAB is asked.
        change = _decide(backend, "approve_change", number, group["manager"])
        assert (change["state"], change["approval"]) == ("-3", "requested")
        pending = store.select("sysapproval_approver", "sysapproval = ? AND state = 'requested'", (sys_id,))
        conn = _live_db(backend)
        assert sorted(row["approver"] for row in pending) == cab_approvers(conn)
        assert approval_shape(conn, _change_row(conn, sys_id)) == ("approved", "requested")

        # One CAB approval schedules it; the other CAB approvals are no longer required.
        change = _decide(backend, "approve_change", number, pending[-1]["approver"])
        assert (change["state"], change["approval"]) == ("-2", "approved")
        assert not backend.internal_errors
        conn = _live_db(backend)
        assert approval_shape(conn, _change_row(conn, sys_id)) == ("approved", "approved")
        # The engine's rows pass the checks the seeded ones pass.
        assert check_change_approvals(conn)[("normal", "-2", ("approved", "approved"))] >= 1
    finally:
        backend.close()


def test_seeded_changes_at_authorize_are_decided_by_the_real_engine() -> None:
    backend = Backend(ITSM, size="tiny")
    try:
        store = backend.store
        normal = store.select("change_request", "type = 'normal' AND state = '-3'", order_by="number")[0]
        emergency = store.select("change_request", "type = 'emergency' AND state = '-3'", order_by="number")[
            0
        ]
        waiting = "sysapproval = ? AND state = 'requested'"
        voter = store.select("sysapproval_approver", waiting, (normal["sys_id"],))[0]["approver"]
        rejected = _decide(backend, "reject_change", normal["number"], voter, comments="Backout is untested.")
        assert (rejected["state"], rejected["approval"]) == ("-5", "rejected")
        voter = store.select("sysapproval_approver", waiting, (emergency["sys_id"],))[0]["approver"]
        approved = _decide(backend, "approve_change", emergency["number"], voter)
        assert (approved["state"], approved["approval"]) == ("-2", "approved")
        assert not backend.internal_errors
        conn = _live_db(backend)
        seen = check_change_approvals(conn)
        assert approval_shape(conn, _change_row(conn, normal["sys_id"])) == ("approved", "rejected")
        assert approval_shape(conn, _change_row(conn, emergency["sys_id"])) == (None, "approved")
        assert seen[("emergency", "-2", (None, "approved"))] >= 1
    finally:
        backend.close()


def check_requested_items(db: sqlite3.Connection) -> Counter[str]:
    """Check every RITM and request against services/catalog.py; count the item states."""
    products = {row["sys_id"]: row for row in rows(db, "SELECT * FROM sc_cat_item")}
    requests = {row["sys_id"]: row for row in rows(db, "SELECT * FROM sc_request")}
    members = {(r[0], r[1]) for r in db.execute('SELECT user, "group" FROM sys_user_grmember')}
    totals: Counter[str] = Counter()
    states: Counter[str] = Counter()
    for item in rows(db, "SELECT * FROM sc_req_item"):
        request, product, number = requests[item["request"]], products[item["cat_item"]], item["number"]
        # What RequestedItemRules derives on insert.
        assert item["requested_for"] == request["requested_for"] != "", number
        assert (item["opened_by"], item["opened_at"]) == (request["opened_by"], request["opened_at"]), number
        assert item["short_description"] == product["name"], number
        assert item["price"] == money(parse_price(product["price"])), number
        assert item["assignment_group"] == product["group"], number
        assert item["approval"] == "approved", number
        assert MIN_QUANTITY <= int(item["quantity"]) <= MAX_QUANTITY, number
        totals[request["sys_id"]] += parse_price(item["price"]) * int(item["quantity"])
        if item["state"] in CLOSED_STAGES:
            assert (item["active"], item["stage"]) == ("false", CLOSED_STAGES[item["state"]]), number
            assert (item["closed_by"], item["assignment_group"]) in members, number
            assert item["opened_at"] < item["closed_at"] == item["sys_updated_on"], number
        else:
            # Catalog items need no approval (nothing is Pending); open items keep the insert stage.
            assert item["state"] in ("1", "2"), number
            open_fields = (item["stage"], item["active"], item["closed_at"], item["closed_by"])
            assert open_fields == ("request_approved", "true", "", ""), number
        states[item["state"]] += 1
    for request in requests.values():
        # request_total: the sum of price x quantity over the request's items.
        assert request["price"] == money(Decimal(totals[request["sys_id"]])), request["number"]
        assert request["approval"] == "approved", request["number"]
    return states


def test_requested_items_are_what_the_catalog_service_makes(db: sqlite3.Connection) -> None:
    assert {"1", "2", "3"} <= set(check_requested_items(db))


def test_a_seeded_open_order_looks_like_a_new_order() -> None:
    backend = Backend(ITSM, size="tiny")
    try:
        store = backend.store
        single = "request IN (SELECT request FROM sc_req_item GROUP BY request HAVING COUNT(*) = 1)"
        seeded = store.select(
            "sc_req_item", f"state = '1' AND quantity = '1' AND {single}", order_by="number"
        )[0]
        seeded_request = store.get("sc_request", seeded["request"])
        product = store.get("sc_cat_item", seeded["cat_item"])
        customer = store.get("sys_user", seeded["requested_for"])
        assert seeded_request is not None and product is not None and customer is not None
        args = {"item": product["name"], "requested_for": customer["email"]}
        result = backend.call("order_catalog_item", args)
        assert result.ok, result.body
        body = result.body
        ordered = store.find_one("sc_req_item", "number", body["requested_item"])
        ordered_request = store.find_one("sc_request", "number", body["request"])
        assert ordered is not None and ordered_request is not None

        def filled(row: dict[str, str]) -> set[str]:
            return {name for name, value in row.items() if value}

        # The same columns are set, and the derived ones to the same values.
        assert filled(seeded) == filled(ordered)
        assert filled(seeded_request) == filled(ordered_request)
        same = ("state", "stage", "approval", "active", "short_description", "price", "assignment_group")
        assert {name: seeded[name] for name in same} == {name: ordered[name] for name in same}
        assert ordered["requested_for"] == seeded["requested_for"]
        same = ("state", "request_state", "stage", "approval", "active", "short_description", "price")
        assert {name: seeded_request[name] for name in same} == {name: ordered_request[name] for name in same}
    finally:
        backend.close()


def check_link_counts(db: sqlite3.Connection) -> None:
    """problem.related_incidents and incident.child_incidents are the live counts."""
    linked = Counter(column(db, "SELECT problem_id FROM incident WHERE problem_id != ''"))
    assert linked
    for row in rows(db, "SELECT sys_id, number, related_incidents FROM problem"):
        assert row["related_incidents"] == str(linked.get(row["sys_id"], 0)), row["number"]
    children = Counter(column(db, "SELECT parent_incident FROM incident WHERE parent_incident != ''"))
    assert children
    for row in rows(db, "SELECT sys_id, number, child_incidents FROM incident"):
        assert row["child_incidents"] == str(children.get(row["sys_id"], 0)), row["number"]


def test_problem_and_parent_counts_are_the_live_counts(db: sqlite3.Connection) -> None:
    check_link_counts(db)


def _bank_pattern(templates: tuple[str, ...]) -> re.Pattern[str]:
    """A regex matching any line of a journal bank once its placeholders are filled."""
    alternatives = [
        "".join(
            re.escape(literal) + (".+?" if name is not None else "")
            for literal, name, _, _ in Formatter().parse(text)
        )
        for text in templates
    ]
    return re.compile("|".join(f"(?:{alternative})" for alternative in alternatives))


def check_comment_authors(db: sqlite3.Connection) -> Counter[str]:
    """A caller's comments come from the caller-reply bank, IT staff's from the service-desk bank."""
    replies, desk = _bank_pattern(CALLER_REPLY_TEMPLATES), _bank_pattern(COMMENT_TEMPLATES)
    staff = set(
        column(db, "SELECT u.user_name FROM sys_user_grmember m JOIN sys_user u ON u.sys_id = m.user")
    )
    authors: Counter[str] = Counter()
    for entry in rows(
        db,
        "SELECT j.value, j.sys_created_by AS author, u.user_name AS caller FROM sys_journal_field j "
        "JOIN incident i ON i.sys_id = j.element_id JOIN sys_user u ON u.sys_id = i.caller_id "
        "WHERE j.element = 'comments'",
    ):
        if entry["author"] == entry["caller"]:
            assert replies.fullmatch(entry["value"]), entry["value"]
            authors["caller"] += 1
        else:
            assert entry["author"] in staff, entry["author"]
            assert desk.fullmatch(entry["value"]), entry["value"]
            authors["staff"] += 1
    return authors


def test_comments_come_from_the_bank_that_fits_their_author(db: sqlite3.Connection) -> None:
    authors = check_comment_authors(db)
    assert authors["caller"] and authors["staff"]
