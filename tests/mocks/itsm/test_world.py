"""The seeded ITSM world: determinism, state-model consistency, referential integrity, sizes.

Every test queries a real built database (the serialized snapshot, deserialized into SQLite).
"""

from __future__ import annotations

import hashlib
import os
import re
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import pytest
from enterprise_envs.mocks._core.snapshot import WorldSnapshot, build_snapshot
from enterprise_envs.mocks.itsm import ITSM, ITSM_EPOCH
from enterprise_envs.mocks.itsm.tables import behaviour_rules, itsm_catalog
from enterprise_envs.mocks.itsm.world import ADMIN_USER_NAME, AGENT_USER_NAME, PLANNED_FIELDS, SIZES

SYS_ID = re.compile(r"^[0-9a-f]{32}$")
NUMBER = re.compile(r"^(INC|PRB|CHG|REQ|RITM|KB)\d{7}$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
FORMAT = "%Y-%m-%d %H:%M:%S"
EPOCH = ITSM_EPOCH.strftime(FORMAT)
RULES = behaviour_rules()
CATALOG = itsm_catalog()
CAB = "Change Advisory Board"


def _open(snapshot: WorldSnapshot) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.deserialize(snapshot.data)
    conn.row_factory = sqlite3.Row
    return conn


@pytest.fixture(scope="module")
def tiny() -> WorldSnapshot:
    return build_snapshot(ITSM, "tiny", 0)


@pytest.fixture
def db(tiny: WorldSnapshot) -> Iterator[sqlite3.Connection]:
    conn = _open(tiny)
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


_DIGEST_SCRIPT = """
import hashlib, sys
from enterprise_envs.mocks._core.snapshot import build_snapshot
from enterprise_envs.mocks.itsm import ITSM
sys.stdout.write(hashlib.sha256(build_snapshot(ITSM, "tiny", 0).data).hexdigest())
"""


@pytest.mark.parametrize("hash_seed", ["1", "12345"])
def test_world_bytes_do_not_depend_on_the_process(tiny: WorldSnapshot, hash_seed: str) -> None:
    # Another process with another PYTHONHASHSEED must build the same database, byte for byte
    # (no set-order leaks in rows, schema or index order).
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    result = subprocess.run(
        [sys.executable, "-c", _DIGEST_SCRIPT], cwd=root, env=env, capture_output=True, text=True, check=True
    )
    assert result.stdout == hashlib.sha256(tiny.data).hexdigest()


def test_different_seeds_give_different_worlds(tiny: WorldSnapshot) -> None:
    mine, other = _open(tiny), _open(build_snapshot(ITSM, "tiny", 1))
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
    assert set(column(db, "SELECT approver FROM sysapproval_approver")) <= members_of(db, CAB)
    for row in rows(db, "SELECT * FROM change_request"):
        state, approval, mine = row["state"], row["approval"], set(votes.get(row["sys_id"], []))
        assert state in flows[row["type"]] or state == "4", row["number"]
        assert row["opened_at"] < row["start_date"] < row["end_date"]
        if state != "-5":
            assert row["assignment_group"] and row["assigned_to"], row["number"]
        if state in ("-4", "-3"):
            assert approval == "requested" and mine == {"requested"}, row["number"]
        if state in ("-2", "-1", "0", "3"):
            assert approval == "approved", row["number"]
            assert mine == (set() if row["type"] == "standard" else {"approved"}), row["number"]
        if approval == "rejected":
            assert state == "-5" and "rejected" in mine and mine <= {"rejected", "not_required"}
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


def test_default_world_stays_small_and_consistent() -> None:
    snapshot = build_snapshot(ITSM, "default", 0)
    assert snapshot.nbytes < 1_500_000
    conn = _open(snapshot)
    assert count(conn, "SELECT COUNT(*) FROM incident") == SIZES["default"]["incidents"]
    assert count(conn, "SELECT COUNT(*) FROM sys_journal_field") > SIZES["default"]["incidents"] // 2
    matrix = RULES["incident"]["priority"]["matrix"]
    found = conn.execute("SELECT impact, urgency, priority FROM incident").fetchall()
    assert all(priority == matrix[f"{impact},{urgency}"] for impact, urgency, priority in found)
    assert count(conn, "SELECT COUNT(*) FROM sys_user WHERE user_name = ?", (AGENT_USER_NAME,)) == 1
