"""The seeded ITSM world: determinism, state-model consistency, referential integrity, sizes.

Every test queries a real built database (the serialized snapshot, deserialized into SQLite).
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.snapshot import WorldSnapshot, build_snapshot
from enterprise_envs.mocks.itsm import ITSM, ITSM_EPOCH
from enterprise_envs.mocks.itsm.tables import behaviour_rules, itsm_catalog
from enterprise_envs.mocks.itsm.world import ADMIN_USER_NAME, AGENT_USER_NAME, PLANNED_FIELDS, SIZES

SYS_ID = re.compile(r"^[0-9a-f]{32}$")
NUMBER = re.compile(r"^(INC|PRB|CHG|REQ|RITM|KB)\d{7}$")
DATETIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")
EPOCH = ITSM_EPOCH.strftime("%Y-%m-%d %H:%M:%S")
RULES = behaviour_rules()
CATALOG = itsm_catalog()


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


# -- determinism ----------------------------------------------------------------------------------


def test_same_seed_gives_identical_bytes(tiny: WorldSnapshot) -> None:
    assert build_snapshot(ITSM, "tiny", 0).data == tiny.data


def test_different_seeds_give_different_worlds(tiny: WorldSnapshot) -> None:
    other = _open(build_snapshot(ITSM, "tiny", 1))
    mine = _open(tiny)
    names = lambda conn: [r[0] for r in conn.execute("SELECT name FROM sys_user ORDER BY user_name")]  # noqa: E731
    assert names(other) != names(mine)
    assert other.execute("SELECT sys_id FROM incident").fetchall() != mine.execute("SELECT sys_id FROM incident").fetchall()


# -- shape and formats ----------------------------------------------------------------------------


def test_every_catalog_table_is_filled(db: sqlite3.Connection) -> None:
    empty = [name for name in CATALOG if db.execute(f'SELECT COUNT(*) FROM "{name}"').fetchone()[0] == 0]
    assert not empty


def test_tiny_counts_follow_the_size_table(db: sqlite3.Connection) -> None:
    counts = SIZES["tiny"]
    assert db.execute("SELECT COUNT(*) FROM sys_user").fetchone()[0] == counts["users"]
    assert db.execute("SELECT COUNT(*) FROM incident").fetchone()[0] == counts["incidents"]
    assert db.execute("SELECT COUNT(*) FROM problem").fetchone()[0] == counts["problems"]
    assert db.execute("SELECT COUNT(*) FROM change_request").fetchone()[0] == counts["changes"]
    assert db.execute("SELECT COUNT(*) FROM sc_request").fetchone()[0] == counts["requests"]
    assert db.execute("SELECT COUNT(*) FROM sys_user_group").fetchone()[0] == 8


def test_sys_ids_and_numbers_have_the_vendor_format(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        ids = [r[0] for r in db.execute(f'SELECT sys_id FROM "{name}"')]
        assert all(SYS_ID.match(value) for value in ids), name
        if table.number_prefix:
            numbers = [r[0] for r in db.execute(f'SELECT number FROM "{name}"')]
            assert all(NUMBER.match(value) and value.startswith(table.number_prefix) for value in numbers), name
            assert len(set(numbers)) == len(numbers), f"{name}: duplicate numbers"


def test_numbers_follow_opening_order(db: sqlite3.Connection) -> None:
    for table in ("incident", "problem", "change_request", "sc_request"):
        opened = [r[0] for r in db.execute(f"SELECT opened_at FROM {table} ORDER BY number")]
        assert opened == sorted(opened), table


def test_date_times_are_well_formed_and_in_the_past(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        for spec in table.fields:
            values = [r[0] for r in db.execute(f'SELECT "{spec.name}" FROM "{name}" WHERE "{spec.name}" != \'\'')]
            if spec.kind == "datetime":
                bad = [v for v in values if not DATETIME.match(v)]
                assert not bad, f"{name}.{spec.name}: {bad[:3]}"
            if spec.name in PLANNED_FIELDS:
                continue
            future = [v for v in values if DATETIME.match(v) and v >= EPOCH]
            assert not future, f"{name}.{spec.name} after the epoch: {future[:3]}"


def test_created_before_updated(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        created, updated = ("created_on", "updated_on") if "created_on" in table else ("sys_created_on", "sys_updated_on")
        bad = db.execute(f'SELECT COUNT(*) FROM "{name}" WHERE "{updated}" < "{created}"').fetchone()[0]
        assert bad == 0, name


def test_every_reference_points_at_an_existing_row(db: sqlite3.Connection) -> None:
    for name, table in CATALOG.items():
        for spec in table.fields:
            if spec.kind != "reference" or not CATALOG.is_local(spec.reference or ""):
                continue
            dangling = db.execute(
                f'SELECT "{spec.name}" FROM "{name}" WHERE "{spec.name}" != \'\' '
                f'AND "{spec.name}" NOT IN (SELECT sys_id FROM "{spec.reference}")'
            ).fetchall()
            # "global" is the vendor's global domain, not a group row.
            dangling = [r[0] for r in dangling if not (spec.name == "sys_domain" and r[0] == "global")]
            assert not dangling, f"{name}.{spec.name} -> {spec.reference}: {dangling[:3]}"


def test_string_typed_references_also_resolve(db: sqlite3.Connection) -> None:
    # Columns the captured schema types as plain strings but that hold sys_ids.
    checks = [
        ("problem", "assignment_group", "sys_user_group"), ("problem", "closed_by", "sys_user"),
        ("problem", "rfc", "change_request"), ("incident", "rfc", "change_request"),
        ("incident", "reopened_by", "sys_user"), ("sc_req_item", "assignment_group", "sys_user_group"),
        ("sc_req_item", "assigned_to", "sys_user"), ("sys_user_group", "manager", "sys_user"),
        ("cmn_department", "head", "sys_user"), ("change_request", "assignment_group", "sys_user_group"),
    ]  # fmt: skip
    for table, column, target in checks:
        dangling = db.execute(
            f'SELECT COUNT(*) FROM "{table}" WHERE "{column}" != \'\' AND "{column}" NOT IN (SELECT sys_id FROM {target})'
        ).fetchone()[0]
        assert dangling == 0, f"{table}.{column}"


# -- people and groups ----------------------------------------------------------------------------


def test_exactly_one_agent_with_itil_in_the_service_desk(db: sqlite3.Connection) -> None:
    agents = rows(db, "SELECT * FROM sys_user WHERE user_name = ?", (AGENT_USER_NAME,))
    assert len(agents) == 1
    agent = agents[0]
    assert agent["roles"] == "itil" and agent["active"] == "true" and agent["name"] == "Service Desk Agent"
    groups = [r[0] for r in db.execute(
        'SELECT g.name FROM sys_user_grmember m JOIN sys_user_group g ON g.sys_id = m."group" WHERE m.user = ?',
        (agent["sys_id"],),
    )]  # fmt: skip
    assert groups == ["Service Desk"]
    admins = rows(db, "SELECT * FROM sys_user WHERE user_name = ?", (ADMIN_USER_NAME,))
    assert len(admins) == 1 and admins[0]["roles"] == "admin" and admins[0]["name"] == "System Administrator"


def test_users_are_unique_and_use_example_com(db: sqlite3.Connection) -> None:
    users = rows(db, "SELECT * FROM sys_user")
    names = [u["user_name"] for u in users]
    assert len(set(names)) == len(names)
    for user in users:
        assert user["email"] == f"{user['user_name']}@example.com"
        assert user["user_password"] == "" and user["locked_out"] == "false"
        if user["user_name"] not in (AGENT_USER_NAME, ADMIN_USER_NAME):
            assert re.fullmatch(r"[a-z]+\.[a-z]+\d*", user["user_name"]), user["user_name"]
    assert any(u["active"] == "false" for u in users), "no departed staff"
    assert any(u["vip"] == "true" for u in users), "no VIPs"


def test_managers_share_the_department_and_heads_have_none(db: sqlite3.Connection) -> None:
    users = {u["sys_id"]: u for u in rows(db, "SELECT * FROM sys_user")}
    for user in users.values():
        if user["manager"]:
            assert users[user["manager"]]["department"] == user["department"], user["user_name"]
    for dept in rows(db, "SELECT * FROM cmn_department"):
        assert users[dept["head"]]["manager"] == "" and users[dept["head"]]["department"] == dept["sys_id"]


def test_group_membership_rules(db: sqlite3.Connection) -> None:
    per_group = Counter(r[0] for r in db.execute('SELECT "group" FROM sys_user_grmember'))
    groups = rows(db, "SELECT * FROM sys_user_group")
    assert all(per_group[g["sys_id"]] >= 3 for g in groups)
    per_user = Counter(r[0] for r in db.execute("SELECT user FROM sys_user_grmember"))
    for user in rows(db, "SELECT * FROM sys_user WHERE roles LIKE '%itil%'"):
        assert 1 <= per_user[user["sys_id"]] <= 2, user["user_name"]
    for user in rows(db, "SELECT * FROM sys_user WHERE roles = ''"):
        assert per_user[user["sys_id"]] == 0
    cab = next(g for g in groups if g["name"] == "Change Advisory Board")
    approvers = rows(db, 'SELECT u.roles FROM sys_user_grmember m JOIN sys_user u ON u.sys_id = m.user WHERE m."group" = ?',
                     (cab["sys_id"],))  # fmt: skip
    assert all("approver" in r[0].split(",") for r in approvers)
    for group in groups:
        member = db.execute('SELECT 1 FROM sys_user_grmember WHERE "group" = ? AND user = ?',
                            (group["sys_id"], group["manager"])).fetchone()  # fmt: skip
        assert member, f"manager of {group['name']} is not a member"


def _one_letter_apart(a: str, b: str) -> bool:
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long = sorted((a, b), key=len)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def test_look_alike_users_exist(db: sqlite3.Connection) -> None:
    users = rows(db, "SELECT * FROM sys_user WHERE active = 'true'")
    by_name: dict[str, list[sqlite3.Row]] = {}
    for user in users:
        by_name.setdefault(user["name"], []).append(user)
    twins = [group for group in by_name.values() if len(group) > 1]
    assert any(len({u["department"] for u in g}) > 1 and len({u["email"] for u in g}) == len(g) for g in twins)
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
    states = Counter()
    for row in rows(db, "SELECT * FROM incident"):
        states[row["state"]] += 1
        assert row["incident_state"] == row["state"]
        assert row["active"] == ("true" if row["state"] in active else "false"), row["number"]
        assert row["sys_created_on"] == row["opened_at"] <= row["sys_updated_on"]
        assert int(row["sys_mod_count"]) >= 1 and row["sys_class_name"] == "incident"
        assert row["sys_domain"] == "global" and row["approval"] == "not requested"
        assert (row["sla_due"] != "") == (row["active"] == "true")
    assert set(states) == set(RULES["incident"]["states"]) - {"basis"}


def test_resolved_and_closed_incidents_carry_their_resolution(db: sqlite3.Connection) -> None:
    codes = set(RULES["incident"]["close_code_current"])
    done = rows(db, "SELECT * FROM incident WHERE state IN ('6', '7')")
    assert done
    for row in done:
        assert row["close_code"] in codes and row["close_notes"].strip(), row["number"]
        assert row["resolved_at"] and row["resolved_by"] == row["assigned_to"] != ""
        assert row["opened_at"] <= row["resolved_at"]
        if row["state"] == "7":
            assert row["closed_at"] >= row["resolved_at"] and row["closed_by"], row["number"]
        else:
            assert row["closed_at"] == ""
    for row in rows(db, "SELECT * FROM incident WHERE state NOT IN ('6', '7')"):
        assert row["close_code"] == row["resolved_at"] == row["closed_at"] == "", row["number"]


def test_on_hold_incidents_have_a_valid_reason(db: sqlite3.Connection) -> None:
    held = rows(db, "SELECT * FROM incident WHERE state = '3'")
    assert held
    assert all(row["hold_reason"] in {"1", "3", "4", "5"} for row in held)
    assert db.execute("SELECT COUNT(*) FROM incident WHERE state != '3' AND hold_reason != ''").fetchone()[0] == 0
    for row in held:
        if row["hold_reason"] == "3":
            assert row["problem_id"]
        if row["hold_reason"] == "5":
            assert row["rfc"]


def test_assignees_belong_to_the_assignment_group(db: sqlite3.Connection) -> None:
    members = {(r[0], r[1]) for r in db.execute('SELECT user, "group" FROM sys_user_grmember')}
    for table in ("incident", "problem", "change_request", "sc_req_item"):
        for row in rows(db, f"SELECT number, assigned_to, assignment_group FROM {table} WHERE assigned_to != ''"):
            assert (row["assigned_to"], row["assignment_group"]) in members, row["number"]
    assert db.execute("SELECT COUNT(*) FROM incident WHERE state != '1' AND assigned_to = ''").fetchone()[0] == 0


def test_callers_are_active_employees_and_some_hold_several_open_incidents(db: sqlite3.Connection) -> None:
    callers = rows(db, "SELECT DISTINCT u.* FROM incident i JOIN sys_user u ON u.sys_id = i.caller_id")
    assert all(u["roles"] == "" and u["active"] == "true" for u in callers)
    open_per_caller = Counter(
        r[0] for r in db.execute("SELECT caller_id FROM incident WHERE state IN ('1', '2', '3')")
    )
    assert max(open_per_caller.values()) >= 2
    assert any(u["vip"] == "true" for u in callers)


def test_duplicates_and_problem_links_are_counted(db: sqlite3.Connection) -> None:
    children = Counter(r[0] for r in db.execute("SELECT parent_incident FROM incident WHERE parent_incident != ''"))
    assert children
    for row in rows(db, "SELECT sys_id, number, child_incidents FROM incident"):
        assert int(row["child_incidents"]) == children.get(row["sys_id"], 0), row["number"]
    linked = Counter(r[0] for r in db.execute("SELECT problem_id FROM incident WHERE problem_id != ''"))
    for row in rows(db, "SELECT sys_id, related_incidents FROM problem"):
        assert int(row["related_incidents"]) == linked.get(row["sys_id"], 0)


def test_journal_entries_follow_their_incident(db: sqlite3.Connection) -> None:
    entries = rows(db, "SELECT j.*, i.opened_at FROM sys_journal_field j JOIN incident i ON i.sys_id = j.element_id")
    assert len(entries) == db.execute("SELECT COUNT(*) FROM sys_journal_field").fetchone()[0] > 0
    users = {r[0] for r in db.execute("SELECT user_name FROM sys_user")}
    for entry in entries:
        assert entry["name"] == "incident" and entry["element"] in ("work_notes", "comments")
        assert entry["value"].strip() and "{" not in entry["value"]
        assert entry["sys_created_on"] > entry["opened_at"] and entry["sys_created_by"] in users


def test_template_placeholders_are_filled(db: sqlite3.Connection) -> None:
    for table, columns in (("incident", ("short_description", "description", "close_notes")),
                           ("change_request", ("short_description", "description", "implementation_plan"))):  # fmt: skip
        for column in columns:
            assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE {column} LIKE '%{{%'").fetchone()[0] == 0


# -- problems, changes, requests, knowledge ------------------------------------------------------


def test_problems_follow_their_state_model(db: sqlite3.Connection) -> None:
    requirements = RULES["problem"]["resolution_code_requirements"]
    for row in rows(db, "SELECT * FROM problem"):
        assert row["problem_state"] == row["state"] in RULES["problem"]["states"]
        assert (row["assigned_to"] != "") == (row["state"] != "101"), row["number"]
        assert row["active"] == ("false" if row["state"] == "107" else "true")
        if row["state"] in ("106", "107"):
            assert row["resolution_code"] in ("fix_applied", "risk_accepted"), row["number"]
            assert all(row[name].strip() for name in requirements[row["resolution_code"]]), row["number"]
        else:
            assert row["resolution_code"] == ""


def test_changes_follow_their_flow_and_approvals(db: sqlite3.Connection) -> None:
    flows = RULES["change_request"]["flows"]
    approvals: dict[str, list[str]] = {}
    for r in db.execute("SELECT sysapproval, state FROM sysapproval_approver"):
        approvals.setdefault(r[0], []).append(r[1])
    cab = db.execute("SELECT sys_id FROM sys_user_group WHERE name = 'Change Advisory Board'").fetchone()[0]
    cab_members = {r[0] for r in db.execute('SELECT user FROM sys_user_grmember WHERE "group" = ?', (cab,))}
    assert {r[0] for r in db.execute("SELECT approver FROM sysapproval_approver")} <= cab_members
    for row in rows(db, "SELECT * FROM change_request"):
        state, approval, votes = row["state"], row["approval"], approvals.get(row["sys_id"], [])
        assert state in flows[row["type"]] or state == "4", row["number"]
        assert row["start_date"] and row["end_date"] and row["start_date"] < row["end_date"]
        if state != "-5":
            assert row["assignment_group"] and row["assigned_to"], row["number"]
        if state in ("-4", "-3"):
            assert approval == "requested" and votes and set(votes) == {"requested"}
        if state in ("-2", "-1", "0", "3"):
            assert approval == "approved", row["number"]
            assert row["type"] == "standard" or (votes and set(votes) == {"approved"})
        if approval == "rejected":
            assert state == "-5" and "rejected" in votes
        if approval == "not requested":
            assert not votes
        if state == "3":
            assert row["close_code"] in RULES["change_request"]["required"]["close_code"] and row["close_notes"]
            assert row["closed_at"] >= row["opened_at"]
        assert row["active"] == ("false" if state in ("3", "4") else "true")


def test_requests_roll_up_their_items(db: sqlite3.Connection) -> None:
    states = set(RULES["sc_req_item"]["states"])
    items: dict[str, list[sqlite3.Row]] = {}
    for item in rows(db, "SELECT * FROM sc_req_item"):
        assert item["state"] in states and item["cat_item"] and int(item["quantity"]) >= 1
        assert item["active"] == ("true" if item["state"] in ("-5", "1", "2") else "false")
        items.setdefault(item["request"], []).append(item)
    employees = {r[0] for r in db.execute("SELECT sys_id FROM sys_user WHERE roles = ''")}
    for request in rows(db, "SELECT * FROM sc_request"):
        lines = items[request["sys_id"]]
        assert request["requested_for"] in employees
        total = sum(float(line["price"]) * int(line["quantity"]) for line in lines)
        assert float(request["price"]) == pytest.approx(total)
        closed = all(line["active"] == "false" for line in lines)
        assert request["active"] == ("false" if closed else "true")


def test_knowledge_base_is_complete(db: sqlite3.Connection) -> None:
    articles = rows(db, "SELECT * FROM kb_knowledge")
    live = [a for a in articles if a["workflow_state"] in ("published", "retired") and a["text"].strip()]
    assert len(live) >= 110
    states = Counter(a["workflow_state"] for a in articles)
    assert states["retired"] >= 1 and states["draft"] >= 1
    for article in articles:
        assert article["active"] == ("false" if article["workflow_state"] == "retired" else "true")
        assert article["valid_to"] == "2100-01-01" and article["article_type"] == "text"
        assert bool(article["published"]) == (article["workflow_state"] != "draft")
    authors = {r[0] for r in db.execute("SELECT sys_id FROM sys_user WHERE roles LIKE '%itil%'")}
    assert {a["author"] for a in articles} <= authors


def test_cmdb_names_are_unique(db: sqlite3.Connection) -> None:
    names = [r[0] for r in db.execute("SELECT name FROM cmdb_ci")]
    assert len(set(names)) == len(names)
    for row in rows(db, "SELECT * FROM cmdb_ci WHERE fqdn != ''"):
        assert row["fqdn"].endswith(".corp.example.com") and row["ip_address"].startswith("10.")


# -- the default size -----------------------------------------------------------------------------


def test_default_world_stays_small_and_consistent() -> None:
    snapshot = build_snapshot(ITSM, "default", 0)
    assert snapshot.nbytes < 1_500_000
    conn = _open(snapshot)
    assert conn.execute("SELECT COUNT(*) FROM incident").fetchone()[0] == SIZES["default"]["incidents"]
    assert conn.execute("SELECT COUNT(*) FROM sys_journal_field").fetchone()[0] > SIZES["default"]["incidents"] // 2
    matrix = RULES["incident"]["priority"]["matrix"]
    bad = [r[0] for r in conn.execute("SELECT number, impact, urgency, priority FROM incident")
           if r[3] != matrix[f"{r[1]},{r[2]}"]]  # fmt: skip
    assert not bad
