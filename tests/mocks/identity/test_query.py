"""Okta's list query syntax on users, groups, apps and the System Log: ``q``, ``filter``, ``search``.

What each supports is the description's (see ``mocks/identity/query.py``); everything else is
refused with 400 E0000031 ``Invalid search criteria.`` (two queries at once: E0000001). Results
are checked against plain SQL over the same world.
"""

from __future__ import annotations

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity.query import MAX_DEPTH, MAX_TERMS, normalize_time
from tests.mocks.identity.helpers import ordinary_user, rest


def _ids(result) -> list[str]:  # noqa: ANN001
    assert result.ok, result.body
    return [item["id"] for item in result.body]


def _sql_ids(backend: Backend, table: str, where: str, params: tuple = ()) -> list[str]:
    return backend.store.column_values(table, "id", where, params)


def _refused(result, code: str = "E0000031") -> str:  # noqa: ANN001
    assert result.status == 400, result.body
    assert result.body["errorCode"] == code, result.body
    if code == "E0000031":
        assert result.body["errorSummary"] == "Invalid search criteria."
    return result.body["errorCauses"][0]["errorSummary"]


def test_q_matches_the_start_of_names_and_email_and_leaves_out_deactivated_users(okta: Backend) -> None:
    user = ordinary_user(okta)
    prefix = user["lastName"][:3].lower()
    found = rest(okta, "listUsers", q=prefix, limit=200)
    expected = _sql_ids(
        okta,
        "user",
        "(lower(firstName) LIKE ? OR lower(lastName) LIKE ? OR lower(email) LIKE ?)"
        " AND status != 'DEPROVISIONED'",
        (prefix + "%",) * 3,
    )
    assert _ids(found) == expected and user["id"] in expected
    assert "Link" not in found.headers  # q is not paged
    assert len(rest(okta, "listUsers", q="a").body) <= 10  # the default limit of q
    leaver = okta.store.select("user", "status = 'DEPROVISIONED'", limit=1)[0]
    assert leaver["id"] not in _ids(rest(okta, "listUsers", q=leaver["firstName"], limit=200))
    # q matches the start only, not the middle.
    middle = user["email"][1:]
    assert user["id"] not in _ids(rest(okta, "listUsers", q=middle, limit=200))


def test_a_list_without_a_query_leaves_out_deactivated_users(okta: Backend) -> None:
    assert _ids(rest(okta, "listUsers")) == _sql_ids(okta, "user", "status != 'DEPROVISIONED'")


@pytest.mark.parametrize(
    ("expression", "where"),
    [
        ('status eq "LOCKED_OUT"', "status = 'LOCKED_OUT'"),
        ('STATUS eq "LOCKED_OUT"', None),  # property names are case-sensitive
        ('status EQ "LOCKED_OUT"', "status = 'LOCKED_OUT'"),  # operators are not
        ('status eq "locked_out"', "0"),  # values are case-sensitive
        ('status eq "DEPROVISIONED"', "status = 'DEPROVISIONED'"),  # filter includes them
        (
            'lastUpdated gt "2026-02-01T00:00:00.000Z" and (status eq "LOCKED_OUT" or status eq "RECOVERY")',
            "lastUpdated > '2026-02-01T00:00:00.000Z' AND status IN ('LOCKED_OUT', 'RECOVERY')",
        ),
        ('lastUpdated ge "2026-02-01T00:00:00Z"', "lastUpdated >= '2026-02-01T00:00:00.000Z'"),
        (
            'status eq "STAGED" or status eq "PROVISIONED" and lastUpdated lt "2000-01-01T00:00:00.000Z"',
            "status = 'STAGED'",  # and binds tighter than or
        ),
    ],
)
def test_filter_on_users(okta: Backend, expression: str, where: str | None) -> None:
    result = rest(okta, "listUsers", filter=expression)
    if where is None:
        assert "not a property it supports" in _refused(result)
    else:
        assert _ids(result) == _sql_ids(okta, "user", where)


def test_filter_by_login_and_id(okta: Backend) -> None:
    user = ordinary_user(okta)
    assert _ids(rest(okta, "listUsers", filter=f'profile.login eq "{user["login"]}"')) == [user["id"]]
    assert _ids(rest(okta, "listUsers", filter=f'id eq "{user["id"]}"')) == [user["id"]]
    both = f'profile.firstName eq "{user["firstName"]}" and profile.lastName eq "{user["lastName"]}"'
    assert user["id"] in _ids(rest(okta, "listUsers", filter=both))


@pytest.mark.parametrize(
    ("expression", "cause"),
    [
        ('profile.title eq "Engineer"', "not a property it supports"),
        ('status sw "LOCK"', "'sw' operator is not supported on status"),
        ('profile.login co "a"', "'co' operator is not supported"),
        ('status ne "ACTIVE"', "'ne' operator is not supported"),
        ('not status eq "ACTIVE"', "'not' operator is not supported"),
        ("status eq ACTIVE", "must be a quoted string"),
        ('status eq "ACTIVE', "quoted value is not closed"),
        ('(status eq "ACTIVE"', "ends too early"),
        ('status eq "ACTIVE")', "unexpected"),
        ('lastUpdated gt "yesterday"', "is not a date-time"),
        ('lastUpdated gt "2026-02-30T00:00:00.000Z"', "is not a date-time"),
        ("status", "ends too early"),
        ('status foo "x"', "expected an operator"),
        ("", None),
        ("   ", "it is empty"),
        ("(" * (MAX_DEPTH + 1) + 'status eq "ACTIVE"' + ")" * (MAX_DEPTH + 1), "nest deeper"),
        (" or ".join(['status eq "ACTIVE"'] * (MAX_TERMS + 1)), "more than"),
    ],
)
def test_filter_refusals(okta: Backend, expression: str, cause: str | None) -> None:
    result = rest(okta, "listUsers", filter=expression)
    if cause is None:  # an empty filter is no filter
        assert result.ok
        return
    assert cause in _refused(result)


@pytest.mark.parametrize(
    ("expression", "where"),
    [
        ('profile.department eq "finance"', "lower(department) = 'finance'"),  # values fold case
        ('profile.lastName sw "b"', "lower(lastName) LIKE 'b%'"),
        ('profile.firstName co "an"', "lower(firstName) LIKE '%an%'"),
        ('profile.email co "EXAMPLE"', "lower(email) LIKE '%example%'"),
        ('profile.mobilePhone pr', "mobilePhone != ''"),
        ('status lt "STAGED" or status gt "STAGED"', "status != 'STAGED'"),  # Okta's "not equal"
        ('profile.department eq "IT" and status eq "active"', "department = 'IT' AND status = 'ACTIVE'"),
        ('created lt "2024-01-01T00:00:00.000Z"', "created < '2024-01-01T00:00:00.000Z'"),
        ('profile.title sw "sales" or (profile.department eq "Engineering" and status eq "SUSPENDED")',
         "lower(title) LIKE 'sales%' OR (department = 'Engineering' AND status = 'SUSPENDED')"),
    ],
)  # fmt: skip
def test_search_on_users(okta: Backend, expression: str, where: str) -> None:
    expected = _sql_ids(okta, "user", where)
    assert expected and _ids(rest(okta, "listUsers", search=expression)) == expected


@pytest.mark.parametrize(
    ("expression", "cause"),
    [
        ('profile.department co "Fin"', "'co' operator is not supported on profile.department"),
        ('status ne "ACTIVE"', "'ne' operator is not supported"),
        ('profile.nonexistent eq "x"', "not a property it supports"),
        ('target.id eq "x"', "not a property it supports"),
        ('status eq "ACTIVE" and', "ends too early"),
    ],
)
def test_search_refusals(okta: Backend, expression: str, cause: str) -> None:
    assert cause in _refused(rest(okta, "listUsers", search=expression))


def test_search_sorts_by_a_property(okta: Backend) -> None:
    found = rest(okta, "listUsers", search='status eq "ACTIVE"', sortBy="profile.lastName", sortOrder="desc")
    expected = okta.store.column_values(
        "user", "id", "status = 'ACTIVE'", order_by='"lastName" DESC, id DESC'
    )
    assert _ids(found) == expected
    assert "not a property" in _refused(
        rest(okta, "listUsers", search='status eq "ACTIVE"', sortBy="password")
    )


def test_one_query_at_a_time(okta: Backend) -> None:
    result = rest(okta, "listUsers", q="a", filter='status eq "ACTIVE"')
    assert "use one of q, filter and search" in _refused(result, "E0000001")


def test_groups_by_q_filter_and_search(okta: Backend) -> None:
    assert _ids(rest(okta, "listGroups", q="help")) == _sql_ids(okta, "group", "lower(name) LIKE 'help%'")
    assert _ids(rest(okta, "listGroups", filter='type eq "BUILT_IN"')) == _sql_ids(
        okta, "group", "type = 'BUILT_IN'"
    )
    assert _ids(rest(okta, "listGroups", search='profile.name co "admin"')) == _sql_ids(
        okta, "group", "lower(name) LIKE '%admin%'"
    )
    assert _ids(
        rest(okta, "listGroups", search='type eq "okta_group" and profile.description sw "access"')
    ) == (_sql_ids(okta, "group", "type = 'OKTA_GROUP' AND lower(description) LIKE 'access%'"))
    assert "not a property" in _refused(rest(okta, "listGroups", filter='profile.name eq "VPN Users"'))
    assert "'co' operator is not supported" in _refused(rest(okta, "listGroups", search='type co "GROUP"'))


def test_apps_by_q_and_filter(okta: Backend) -> None:
    every = _ids(rest(okta, "listApplications", includeNonDeleted=True))
    assert every == _sql_ids(okta, "app", "1")
    assert _ids(rest(okta, "listApplications")) == _sql_ids(okta, "app", "status = 'ACTIVE'")
    assert _ids(rest(okta, "listApplications", filter='name eq "google"')) == _sql_ids(
        okta, "app", "name = 'google'"
    )
    assert _ids(rest(okta, "listApplications", q="sla")) == _sql_ids(
        okta, "app", "status = 'ACTIVE' AND (lower(name) LIKE 'sla%' OR lower(label) LIKE 'sla%')"
    )


def test_the_system_log_by_filter_and_keywords(okta: Backend) -> None:
    since = "2025-01-01T00:00:00.000Z"
    locks = rest(
        okta, "listLogEvents", since=since, filter='eventType eq "user.account.lock"', limit=1000
    ).body
    expected = okta.store.column_values("log_event", "uuid", "eventType = 'user.account.lock'")
    assert sorted(event["uuid"] for event in locks) == sorted(expected)
    target = locks[0]["target"][0]["id"]
    about = rest(okta, "listLogEvents", since=since, filter=f'target.id eq "{target}"', limit=1000).body
    assert about and all(any(t["id"] == target for t in event["target"]) for event in about)
    words = rest(okta, "listLogEvents", since=since, q="lock", limit=1000).body
    assert {event["uuid"] for event in locks} <= {event["uuid"] for event in words}
    # The default window is the last 7 days before until.
    recent = rest(okta, "listLogEvents", limit=1000).body
    assert all(event["published"] >= "2026-02-23T09:00" for event in recent)
    assert "since" in _refused(rest(okta, "listLogEvents", since="yesterday"), "E0000001")
    assert "not a property" in _refused(rest(okta, "listLogEvents", filter='client.ip eq "1.2.3.4"'))


def test_times_are_normalized_to_the_stored_shape() -> None:
    assert normalize_time("2026-03-01T09:00:00Z") == "2026-03-01T09:00:00.000Z"
    assert normalize_time("2026-03-01T09:00:00.5Z") == "2026-03-01T09:00:00.500Z"
    assert normalize_time("2026-03-01T09:00:00+00:00") == "2026-03-01T09:00:00.000Z"
    assert normalize_time("2026-03-01 09:00:00") is None and normalize_time("2026-13-01T09:00:00Z") is None
