"""Tests for the sysparm_query compiler, run against a real in-memory SQLite database."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mocks.itsm.query import CompiledQuery, FieldInfo, QueryError, compile_query
from tests.strategies import examples


def sid(i: int) -> str:
    return f"{i:032x}"


def uid(i: int) -> str:
    return f"{0xABC000 + i:032x}"


DANGLING = "f" * 32

USERS = [
    (uid(1), "Abel Tuter", uid(2)),
    (uid(2), "Beth Anglin", ""),
    (uid(3), "", ""),
    (uid(4), "Charlie Whitherspoon", uid(1)),
]

# (n, state, priority, short_description, active, opened_at, caller_id)
INCIDENTS = [
    (1, "1", "1", "Email server down", "true", "2024-01-05 08:00:00", uid(1)),
    (2, "2", "2", "Printer jam on floor 3", "true", "2024-01-10 09:30:00", uid(2)),
    (3, "9", "3", "100% CPU on db_host", "false", "2024-02-01 12:00:00", uid(1)),
    (4, "10", "4", "VPN not working", "false", "2024-02-15 17:45:00", uid(3)),
    (5, "", "5", "", "true", "", ""),
    (6, "6", "1", "email quota exceeded", "true", "2024-01-20 11:00:00", uid(2)),
    (7, "7", "3", "Password reset for user_a", "true", "2024-03-01 00:00:00", uid(2)),
    (8, "3", "2", "it's broken; DROP TABLE", "false", "2023-12-31 23:59:59", DANGLING),
    (9, "1", "5", "backslash \\ path C:\\temp", "true", "2024-01-05 08:00:00", uid(1)),
    (10, "2", "4", "Email client crash", "false", "2024-04-01 10:00:00", ""),
]
ALL = set(range(1, 11))

FIELDS = {
    "incident": [
        FieldInfo("sys_id", "string"),
        FieldInfo("number", "string"),
        FieldInfo("state", "integer"),
        FieldInfo("priority", "integer"),
        FieldInfo("short_description", "string"),
        FieldInfo("active", "boolean"),
        FieldInfo("opened_at", "datetime"),
        FieldInfo("caller_id", "reference", "sys_user"),
    ],
    "sys_user": [
        FieldInfo("sys_id", "string"),
        FieldInfo("name", "string"),
        FieldInfo("manager", "reference", "sys_user"),
    ],
}


class Resolver:
    def __init__(self) -> None:
        self.tables = {t: {f.name: f for f in fs} for t, fs in FIELDS.items()}

    def field(self, table: str, name: str) -> FieldInfo | None:
        return self.tables.get(table, {}).get(name)


RESOLVER = Resolver()


@pytest.fixture(scope="module")
def db() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    for table, fields in FIELDS.items():
        cols = ", ".join(f'"{f.name}" TEXT' for f in fields)
        conn.execute(f'CREATE TABLE "{table}" ({cols})')
    conn.executemany("INSERT INTO sys_user VALUES (?, ?, ?)", USERS)
    conn.executemany(
        "INSERT INTO incident VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(sid(n), f"INC{n:07d}", *rest) for n, *rest in INCIDENTS],
    )
    return conn


def run(conn: sqlite3.Connection, cq: CompiledQuery) -> list[int]:
    sql = f'SELECT sys_id FROM "incident" WHERE {cq.where} ORDER BY {cq.order_by}'
    return [int(r[0], 16) for r in conn.execute(sql, cq.params)]


def rows(conn: sqlite3.Connection, query: str, **kw: bool) -> list[int]:
    return run(conn, compile_query("incident", query, RESOLVER, **kw))


def table_intact(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT COUNT(*) FROM incident").fetchone()[0] == 10


# -- operators --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        # = : exact text, numeric for integers, case-insensitive for booleans
        ("short_description=VPN not working", {4}),
        ("short_description=vpn not working", set()),
        ("short_description=VPN not working ", set()),  # values are not trimmed
        ("state=1", {1, 9}),
        ("state=01", {1, 9}),
        ("state=0", set()),  # "" must not cast to 0
        ("state=", {5}),
        ("active=TRUE", {1, 2, 5, 6, 7, 9}),
        ("active=false", {3, 4, 8, 10}),
        ("caller_id=" + uid(1), {1, 3, 9}),
        ("opened_at=2024-01-05 08:00:00", {1, 9}),
        # != also matches empty values
        ("short_description!=VPN not working", ALL - {4}),
        ("state!=1", ALL - {1, 9}),
        ("state!=", ALL - {5}),
        ("active!=TRUE", {3, 4, 8, 10}),
        # LIKE family: case-insensitive
        ("short_descriptionLIKEemail", {1, 6, 10}),
        ("short_descriptionNOT LIKEemail", ALL - {1, 6, 10}),
        ("short_descriptionSTARTSWITHemail", {1, 6, 10}),
        ("short_descriptionSTARTSWITHserver", set()),
        ("short_descriptionENDSWITHDOWN", {1}),
        ("short_descriptionLIKE", ALL),
        # IN / NOT IN
        ("numberININC0000001,INC0000003", {1, 3}),
        ("stateIN1,10", {1, 4, 9}),
        ("stateIN1,", {1, 5, 9}),
        ("stateNOT IN1,10", ALL - {1, 4, 9}),
        ("activeINTRUE", {1, 2, 5, 6, 7, 9}),
        ("short_descriptionINVPN not working,", {4, 5}),
        # emptiness
        ("stateISEMPTY", {5}),
        ("caller_idISEMPTY", {5, 10}),
        ("caller_idISNOTEMPTY", ALL - {5, 10}),
        ("opened_atISNOTEMPTY", ALL - {5}),
        ("numberANYTHING", ALL),
        # ranges: integers numeric (9 < 10), empties never in range
        ("state<3", {1, 2, 9, 10}),
        ("state<=3", {1, 2, 8, 9, 10}),
        ("state>=9", {3, 4}),
        ("state>6", {3, 4, 7}),
        ("opened_at>=2024-02-01 00:00:00", {3, 4, 7, 10}),
        ("opened_at<2024-01-06", {1, 8, 9}),
        ("numberBETWEENINC0000002@INC0000004", {2, 3, 4}),
        ("stateBETWEEN2@9", {2, 3, 6, 7, 8, 10}),
        ("stateBETWEEN9@2", set()),
        ("opened_atBETWEEN2024-01-01 00:00:00@2024-01-31 23:59:59", {1, 2, 6, 9}),
        (
            "opened_atBETWEENjavascript:gs.dateGenerate('2024-01-01','start')"
            "@javascript:gs.dateGenerate('2024-01-10','end')",
            {1, 2, 9},
        ),
        ("opened_at>javascript:gs.dateGenerate('2024-03-01','00:00:00')", {10}),
        # SAMEAS / NSAMEAS
        ("stateSAMEASpriority", {1, 2}),
        ("stateNSAMEASpriority", ALL - {1, 2}),
        ("numberSAMEASshort_description", set()),
    ],
)
def test_operators(db: sqlite3.Connection, query: str, expected: set[int]) -> None:
    assert set(rows(db, query)) == expected


def test_like_escaping(db: sqlite3.Connection) -> None:
    assert set(rows(db, "short_descriptionLIKE%")) == {3}
    assert set(rows(db, "short_descriptionLIKE100%")) == {3}
    assert set(rows(db, "short_descriptionSTARTSWITH%")) == set()
    assert set(rows(db, "short_descriptionLIKE_")) == {3, 7}
    assert set(rows(db, "short_descriptionLIKEdb_h")) == {3}
    assert set(rows(db, "short_descriptionLIKEdb%h")) == set()
    assert set(rows(db, "short_descriptionLIKE\\")) == {9}
    assert set(rows(db, "short_descriptionLIKEC:\\temp")) == {9}
    assert set(rows(db, "short_descriptionENDSWITH\\")) == set()


# -- structure --------------------------------------------------------------------------------


def test_or_binds_tighter_than_and(db: sqlite3.Connection) -> None:
    assert set(rows(db, "state=1^ORstate=2^active=false")) == {10}
    assert set(rows(db, "active=false^state=1^ORstate=2")) == {10}
    assert set(rows(db, "active=true^state=1^ORstate=6^ORstate=7")) == {1, 6, 7, 9}


def test_new_query(db: sqlite3.Connection) -> None:
    assert set(rows(db, "state=1^active=true^NQpriority=4")) == {1, 4, 9, 10}
    assert set(rows(db, "state=1^NQstate=2^ORstate=3^NQpriority=5")) == {1, 2, 5, 8, 9, 10}
    assert set(rows(db, "^NQstate=1^NQ")) == {1, 9}


def test_empty_segments_and_empty_queries(db: sqlite3.Connection) -> None:
    assert set(rows(db, "state=1^^active=true^")) == {1, 9}
    for q in ("", "^", "^^", "ORDERBYnumber", "^EQ", "^OR^NQ^ORDERBYDESCstate"):
        cq = compile_query("incident", q, RESOLVER)
        assert cq.where == "1"
        assert cq.params == ()
    assert set(rows(db, "state=1^EQ")) == {1, 9}


def test_order_by(db: sqlite3.Connection) -> None:
    assert rows(db, "") == list(range(1, 11))
    assert compile_query("incident", "", RESOLVER).order_by == '"sys_id" ASC'
    # integers numerically ("10" after "9"), empties first ascending and last descending
    assert rows(db, "ORDERBYstate") == [5, 1, 9, 2, 10, 8, 6, 7, 3, 4]
    assert rows(db, "ORDERBYDESCstate") == [4, 3, 7, 6, 8, 2, 10, 1, 9, 5]
    # text ordering is plain binary text
    assert rows(db, "ORDERBYshort_description") == [5, 3, 10, 1, 7, 2, 4, 9, 6, 8]
    assert rows(db, "ORDERBYDESCnumber") == list(range(10, 0, -1))
    assert rows(db, "ORDERBYactive^ORDERBYDESCpriority") == [4, 10, 3, 8, 5, 9, 7, 2, 1, 6]
    # ORDERBY anywhere; ^OR still attaches to the preceding condition
    assert rows(db, "state=1^ORDERBYDESCnumber^ORstate=2") == [10, 9, 2, 1]
    # fields whose names start with "desc" are not confused with ORDERBYDESC
    cq = compile_query("incident", "ORDERBYdescription", RESOLVER)
    assert cq.order_by == '"sys_id" ASC'
    assert cq.invalid_fields == ()


def test_order_by_invalid_is_ignored(db: sqlite3.Connection) -> None:
    cq = compile_query(
        "incident", "ORDERBYbogus^ORDERBYDESCcaller_id.bogus^ORDERBYshort_description.x", RESOLVER
    )
    assert cq.order_by == '"sys_id" ASC'
    assert cq.invalid_fields == ()
    assert cq.where == "1"


def test_order_by_dot_walk(db: sqlite3.Connection) -> None:
    # no/dangling caller -> NULL first; then "" (uid 3), Abel, Beth
    assert rows(db, "ORDERBYcaller_id.name") == [5, 8, 10, 4, 1, 3, 9, 2, 6, 7]
    assert rows(db, "ORDERBYDESCcaller_id.name")[:3] == [2, 6, 7]


# -- dot-walking ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("caller_id.name=Abel Tuter", {1, 3, 9}),
        ("caller_id.nameSTARTSWITHbeth", {2, 6, 7}),
        ("caller_id.nameINAbel Tuter,Beth Anglin", {1, 2, 3, 6, 7, 9}),
        # rows without a (resolvable) caller have an empty dot-walked value
        ("caller_id.nameISEMPTY", {4, 5, 8, 10}),
        ("caller_id.nameISNOTEMPTY", {1, 2, 3, 6, 7, 9}),
        ("caller_id.name!=Abel Tuter", {2, 4, 5, 6, 7, 8, 10}),
        ("caller_id.manager=" + uid(2), {1, 3, 9}),
        ("caller_id.name=Abel Tuter^ORcaller_id.name=Beth Anglin^state<3", {1, 2, 9}),
    ],
)
def test_dot_walk(db: sqlite3.Connection, query: str, expected: set[int]) -> None:
    assert set(rows(db, query)) == expected


def test_dot_walk_errors_and_invalid(db: sqlite3.Connection) -> None:
    with pytest.raises(QueryError, match="one level"):
        compile_query("incident", "caller_id.manager.name=Abel Tuter", RESOLVER)
    with pytest.raises(QueryError, match="one level"):
        compile_query("incident", "ORDERBYcaller_id.manager.name", RESOLVER)
    with pytest.raises(QueryError, match="SAMEAS"):
        compile_query("incident", "caller_id.nameSAMEASnumber", RESOLVER)
    for name in ("short_description.foo", "caller_id.bogus", "caller_id.", ".name", "bogus.name"):
        cq = compile_query("incident", f"{name}=x", RESOLVER)
        assert cq.where == "0"
        assert cq.invalid_fields == (name,)


# -- invalid fields ---------------------------------------------------------------------------


def test_invalid_field_returns_no_rows_by_default(db: sqlite3.Connection) -> None:
    cq = compile_query("incident", "state=1^bogus=1^ORnope=2^ORDERBYnumber", RESOLVER)
    assert (cq.where, cq.params, cq.invalid_fields) == ("0", (), ("bogus", "nope"))
    assert run(db, cq) == []
    cq = compile_query("incident", "stateSAMEASbogus", RESOLVER)
    assert cq.invalid_fields == ("bogus",)
    assert run(db, cq) == []


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("bogus=1", ALL),
        ("state=1^ORbogus=2", {1, 9}),
        ("bogus=2^ORstate=1", {1, 9}),
        # the dropped term keeps its place: ^OR attaches to it, not to active=true
        ("active=true^bogus=1^ORstate=2", {2}),
        ("state=1^NQbogus=1", {1, 9}),
        ("stateSAMEASbogus^state=2", {2, 10}),
    ],
)
def test_invalid_field_dropped_when_allowed(db: sqlite3.Connection, query: str, expected: set[int]) -> None:
    cq = compile_query("incident", query, RESOLVER, invalid_returns_no_rows=False)
    assert cq.invalid_fields == ("bogus",)
    assert set(run(db, cq)) == expected


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "fragment"),
    [
        ("garbage", "'garbage'"),
        ("state=1^garbage", "'garbage'"),
        ("=5", "field name"),
        ("State=1", "field name"),
        ("stateEQUALS1", "operator"),
        ("stateISEMPTYx", "takes no value"),
        ("state<abc", "not an integer"),
        ("state= 1", "not an integer"),
        ("state=١", "not an integer"),  # non-ASCII digit
        ("stateINa,b", "not an integer"),
        ("stateBETWEEN1", "low@high"),
        ("stateBETWEEN1@2@3", "low@high"),
        ("stateBETWEEN1@x", "not an integer"),
        ("caller_id=javascript:gs.getUserID()", "javascript"),
        ("opened_at>javascript:gs.daysAgoStart(7)", "javascript"),
    ],
)
def test_query_errors(query: str, fragment: str) -> None:
    with pytest.raises(QueryError) as exc:
        compile_query("incident", query, RESOLVER)
    assert fragment in str(exc.value)


def test_query_error_reports_offset() -> None:
    with pytest.raises(QueryError, match="offset 8"):
        compile_query("incident", "state=1^garbage", RESOLVER)


def test_errors_raised_even_when_query_already_invalid() -> None:
    with pytest.raises(QueryError):
        compile_query("incident", "bogus=1^garbage", RESOLVER)


# -- hostile input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("short_description=x' OR 1=1 --", set()),
        ('short_description=x" OR "1"="1', set()),
        ("short_descriptionLIKE'); DROP TABLE incident; --", set()),
        ("short_description=it's broken; DROP TABLE", {8}),
        ("short_descriptionIN') OR 1=1 --,x", set()),
        ("opened_atBETWEEN' OR ''='@z", ALL - {5}),  # a literal text range: every date is inside
        ("caller_id.name=' OR 1=1) --", set()),
        ('ORDERBYsys_id" DESC; DROP TABLE incident; --', ALL),
        ("ORDERBYDESCstate); DROP TABLE incident", ALL),
        ("1=1) OR (1=1", set()),  # field "1" does not exist
    ],
)
def test_injection_values(db: sqlite3.Connection, query: str, expected: set[int]) -> None:
    cq = compile_query("incident", query, RESOLVER)
    assert "DROP" not in cq.where and "DROP" not in cq.order_by
    assert set(run(db, cq)) == expected
    assert table_intact(db)


@pytest.mark.parametrize(
    "query",
    [
        "state=1); DROP TABLE incident; --",
        'sys_id" OR "1"="1',
        'sys_id"="x" OR 1=1 --=1',
        "state<1 OR 1=1",
        "stateIN1) OR (1=1",
    ],
)
def test_injection_rejected(db: sqlite3.Connection, query: str) -> None:
    with pytest.raises(QueryError):
        compile_query("incident", query, RESOLVER)
    assert table_intact(db)


def test_injection_in_field_names_is_invalid(db: sqlite3.Connection) -> None:
    for query in ('stateSAMEASpriority" OR 1=1 --', "stateNSAMEASsys_id OR 1"):
        cq = compile_query("incident", query, RESOLVER, invalid_returns_no_rows=False)
        assert len(cq.invalid_fields) == 1
        assert set(run(db, cq)) == ALL
    assert table_intact(db)


def test_hostile_table_and_column_names_are_quoted(db: sqlite3.Connection) -> None:
    class Weird:
        def field(self, table: str, name: str) -> FieldInfo | None:
            return FieldInfo('x" OR 1=1 --', "string") if name == "x" else None

    cq = compile_query("incident", "x=1^ORDERBYx", Weird())
    assert cq.where == '"x"" OR 1=1 --" = ?'
    assert cq.order_by == '"x"" OR 1=1 --" ASC, "sys_id" ASC'
    # SQLite reads an unknown quoted identifier as a string literal: no rows, no injection
    assert run(db, cq) == []
    assert table_intact(db)


# -- scale ------------------------------------------------------------------------------------


def test_long_queries_stay_within_sqlite_limits(db: sqlite3.Connection) -> None:
    many_or = "^OR".join(f"state={i}" for i in range(1500))
    assert set(rows(db, many_or)) == ALL - {5}
    many_and = "^".join(["stateISNOTEMPTY"] * 1500)
    assert set(rows(db, many_and)) == ALL - {5}
    many_nq = "^NQ".join(f"number=INC{i:07d}" for i in range(1200))
    assert set(rows(db, many_nq)) == ALL
    big_in = "stateIN" + ",".join(str(i) for i in range(2000))
    assert set(rows(db, big_in)) == ALL - {5}
    with pytest.raises(QueryError, match="at most"):
        compile_query("incident", "numberIN" + "," * 40000, RESOLVER)


# -- properties -------------------------------------------------------------------------------

TOKENS = [
    "state", "priority", "short_description", "active", "opened_at", "caller_id", "caller_id.name",
    "caller_id.manager", "bogus", "number", "sys_id", ".", "=", "!=", "LIKE", "NOT LIKE", "IN", "NOT IN",
    "ISEMPTY", "ISNOTEMPTY", "<", "<=", ">", ">=", "BETWEEN", "@", "ANYTHING", "SAMEAS", "NSAMEAS",
    "STARTSWITH", "ENDSWITH", "^", "^OR", "^NQ", "ORDERBY", "ORDERBYDESC", "^EQ", ",", "1", "10", "-3",
    "true", "'", '"', ";", "--", "%", "_", "\\", " ", "(", ")", "javascript:", "2024-01-05 08:00:00",
]  # fmt: skip

FIELD_NAMES = ["state", "priority", "short_description", "active", "opened_at", "caller_id", "number",
               "caller_id.name", "caller_id.manager", "bogus", "caller_id.bogus"]  # fmt: skip
OPERATORS = ["=", "!=", "LIKE", "NOT LIKE", "STARTSWITH", "ENDSWITH", "IN", "NOT IN", "ISEMPTY", "ISNOTEMPTY",
             "<", "<=", ">", ">=", "ANYTHING", "SAMEAS", "NSAMEAS", "BETWEEN"]  # fmt: skip
VALUES = ["", "1", "10", "-3", "true", "FALSE", "x' OR 1=1 --", "%", "_", "\\", "2024-01-05 08:00:00",
          "1@9", "a@z", "1,2,", "priority", "Abel Tuter",
          "javascript:gs.dateGenerate('2024-01-01','end')"]  # fmt: skip

terms = st.one_of(
    st.tuples(st.sampled_from(FIELD_NAMES), st.sampled_from(OPERATORS),
              st.one_of(st.sampled_from(VALUES), st.text(max_size=5))).map("".join),
    st.tuples(st.sampled_from(["ORDERBY", "ORDERBYDESC"]), st.sampled_from(FIELD_NAMES)).map("".join),
)  # fmt: skip
structured = st.lists(st.tuples(st.sampled_from(["^", "^OR", "^NQ"]), terms), max_size=6).map(
    lambda parts: "".join(joiner + term for joiner, term in parts)
)
queries = st.one_of(
    structured,
    st.lists(st.one_of(st.sampled_from(TOKENS), st.text(max_size=3)), max_size=12).map("".join),
    st.text(max_size=40),
)


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=queries)
def test_random_queries_compile_safely(db: sqlite3.Connection, query: str) -> None:
    for no_rows in (True, False):
        try:
            cq = compile_query("incident", query, RESOLVER, invalid_returns_no_rows=no_rows)
        except QueryError:
            return
        assert cq.where.count("?") == len(cq.params)
        assert all(isinstance(p, str) for p in cq.params)
        found = run(db, cq)  # any sqlite3.Error fails the test
        assert set(found) <= ALL
        assert len(found) == len(set(found))
        if cq.invalid_fields and no_rows:
            assert found == []
    assert table_intact(db)
