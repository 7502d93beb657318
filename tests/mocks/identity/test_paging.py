"""Cursor pagination and rate-limit headers on the ``rest`` surface.

Pagination: following the ``Link`` header's ``rel="next"`` until there is none reads the same
rows, in the same order, as one page big enough for all; the last page has no next link; the
cursor of a key-ordered list is ``0`` and the last id, as captured. Rate limits: every response
carries ``X-Rate-Limit-Limit/-Remaining/-Reset``; under an injected rate limit they count the
injector's window down to a 429 in Okta's shape.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.faults import FaultConfig, RateLimit
from enterprise_envs.mocks.identity.surfaces.ratelimit import BUCKET_LIMITS
from tests.mocks.identity.helpers import as_setup, fresh, group_named, ordinary_user, rest

_LINK = re.compile(r'<([^>]*)>; rel="(\w+)"')


def links(result: CallResult) -> dict[str, str]:
    """The Link header's URLs by relation."""
    return {rel: url for url, rel in _LINK.findall(result.headers.get("Link", ""))}


def _pages(backend: Backend, tool: str, arguments: dict[str, Any]) -> Iterator[CallResult]:
    result = rest(backend, tool, **arguments)
    while True:
        assert result.ok, result.body
        yield result
        following = links(result).get("next")
        if following is None:
            return
        query = parse_qs(urlsplit(following).query)
        assert query["limit"] == [str(arguments["limit"])]
        result = rest(backend, tool, **{**arguments, "after": query["after"][0]})


def _key(item: dict[str, Any]) -> str:
    return item.get("id") or item["uuid"]


LISTS = [
    ("listUsers", {}, 7),
    ("listUsers", {"filter": 'status eq "ACTIVE" or status eq "DEPROVISIONED"'}, 6),
    # Many users share a department: the cursor breaks ties by id.
    ("listUsers", {"search": "status pr", "sortBy": "profile.department"}, 4),
    ("listUsers", {"search": "profile.email pr", "sortBy": "created", "sortOrder": "desc"}, 9),
    ("listGroups", {}, 5),
    ("listGroups", {"search": 'type eq "OKTA_GROUP"'}, 4),
    ("listLogEvents", {"since": "2025-01-01T00:00:00.000Z"}, 10),
    ("listLogEvents", {"since": "2025-01-01T00:00:00.000Z", "sortOrder": "DESCENDING"}, 10),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "limit"), LISTS, ids=[f"{t}-{i}" for i, (t, _, _) in enumerate(LISTS)]
)
def test_following_next_reads_the_same_rows_as_one_big_page(
    okta: Backend, tool: str, arguments: dict[str, Any], limit: int
) -> None:
    whole = rest(okta, tool, **arguments, limit=1000 if tool == "listLogEvents" else 200)
    assert whole.ok and "next" not in links(whole) and "self" in links(whole)
    pages = list(_pages(okta, tool, {**arguments, "limit": limit}))
    assert len(pages) > 1
    assert all(len(page.body) == limit for page in pages[:-1]) and 0 < len(pages[-1].body) <= limit
    assert [_key(item) for page in pages for item in page.body] == [_key(item) for item in whole.body]
    for page in pages:
        assert "self" in links(page)


def test_member_and_app_user_lists_page_too(okta: Backend) -> None:
    everyone = group_named(okta, "Everyone")
    pages = list(_pages(okta, "listGroupUsers", {"groupId": everyone["id"], "limit": 10}))
    members = okta.store.column_values("group_member", "userId", '"groupId" = ?', (everyone["id"],))
    assert [item["id"] for page in pages for item in page.body] == sorted(members)
    app = okta.store.select("app", "label = 'Slack'")[0]
    pages = list(_pages(okta, "listApplicationUsers", {"appId": app["id"], "limit": 7}))
    holders = okta.store.column_values("app_user", "userId", '"appId" = ?', (app["id"],))
    assert [item["id"] for page in pages for item in page.body] == sorted(holders)


def test_the_cursor_and_links_look_like_the_captures(okta: Backend) -> None:
    first = rest(okta, "listUsers", limit=1)
    url = links(first)["next"]
    assert url.startswith("https://example.okta.com/api/v1/users?after=0") and url.endswith("&limit=1")
    assert parse_qs(urlsplit(url).query)["after"] == ["0" + first.body[0]["id"]]
    assert links(first)["self"] == "https://example.okta.com/api/v1/users?limit=1"
    filtered = rest(okta, "listUsers", filter='status eq "ACTIVE"')
    assert (
        links(filtered)["self"]
        == "https://example.okta.com/api/v1/users?limit=200&filter=status+eq+%22ACTIVE%22"
    )
    # Collections carry only the self link of each user (as Okta's description says).
    assert set(first.body[0]["_links"]) == {"self"}


def test_a_cursor_the_list_did_not_hand_out_is_refused(okta: Backend) -> None:
    for cursor in ("garbage", "0not-an-id", "1@@@", "1" + "QUJD"):
        result = rest(okta, "listUsers", after=cursor, search="profile.email pr", sortBy="profile.email")
        assert result.status == 400 and result.body["errorCode"] == "E0000001", cursor
    assert rest(okta, "listUsers", after="zzz").body["errorCauses"][0]["errorSummary"].startswith("after:")


def test_a_page_size_cap_shortens_pages(okta: Backend) -> None:
    okta.set_faults(FaultConfig(page_size_cap=5))
    result = rest(okta, "listUsers", limit=200)
    assert len(result.body) == 5 and "limit=5" in links(result)["next"]


# -- rate limits -------------------------------------------------------------------------------

_RATE = ("X-Rate-Limit-Limit", "X-Rate-Limit-Remaining", "X-Rate-Limit-Reset")


def test_every_response_carries_the_rate_limit_headers(okta: Backend) -> None:
    user = ordinary_user(okta)
    calls = [
        ("listUsers", {}),
        ("getUser", {"id": user["id"]}),
        ("getUser", {"id": "00uNobodyAtAll000000"}),  # a 404
        ("suspendUser", {"id": "okta-admin"}),  # a 403
        ("listUsers", {"filter": "bad"}),  # a 400
        ("listGroups", {}),
        ("listLogEvents", {}),
        ("listApplications", {}),
    ]
    for tool, arguments in calls:
        result = rest(okta, tool, **arguments)
        assert all(name in result.headers for name in _RATE), (tool, result.headers)
        assert int(result.headers["X-Rate-Limit-Reset"]) > okta.clock.timestamp() - 60


def test_the_remaining_count_goes_down_per_bucket_and_resets_each_minute(okta: Backend) -> None:
    remaining = [int(rest(okta, "listUsers").headers["X-Rate-Limit-Remaining"]) for _ in range(3)]
    limit = BUCKET_LIMITS["users"]
    assert remaining == [limit - 1, limit - 2, limit - 3]
    # Another endpoint family has its own bucket.
    assert rest(okta, "listGroups").headers["X-Rate-Limit-Remaining"] == str(BUCKET_LIMITS["groups"] - 1)
    reset = int(rest(okta, "listUsers").headers["X-Rate-Limit-Reset"])
    okta.call("wait", {"seconds": reset - okta.clock.timestamp() + 1}, surface="rest")
    assert rest(okta, "listUsers").headers["X-Rate-Limit-Remaining"] == str(limit - 1)
    # A new episode starts with full buckets.
    fresh(okta)
    assert rest(okta, "listUsers").headers["X-Rate-Limit-Remaining"] == str(limit - 1)


def test_an_injected_rate_limit_counts_down_to_oktas_429(okta: Backend) -> None:
    okta.set_faults(FaultConfig(rate_limit=RateLimit(calls=3, window_seconds=60)))
    user = ordinary_user(okta, "LOCKED_OUT")
    seen = [rest(okta, "getUser", id=user["id"]).headers for _ in range(3)]
    assert [headers["X-Rate-Limit-Remaining"] for headers in seen] == ["2", "1", "0"]
    assert {headers["X-Rate-Limit-Limit"] for headers in seen} == {"3"}
    refused = rest(okta, "unlockUser", id=user["id"])
    assert refused.status == 429 and refused.injected
    assert refused.body["errorCode"] == "E0000047" and refused.body["errorCauses"] == []
    assert refused.body["errorSummary"] == "API call exceeded rate limit due to too many requests."
    headers = refused.headers
    assert headers["X-Rate-Limit-Limit"] == "3" and headers["X-Rate-Limit-Remaining"] == "0"
    assert headers["X-Rate-Limit-Reset"] == seen[-1]["X-Rate-Limit-Reset"]
    assert not any(name.startswith("X-RateLimit-") for name in headers)
    assert okta.store.get("user", user["id"])["status"] == "LOCKED_OUT"
    okta.call("wait", {"seconds": int(headers["Retry-After"])}, surface="rest")
    assert rest(okta, "unlockUser", id=user["id"]).ok
    assert okta.store.get("user", user["id"])["status"] == "ACTIVE"


def test_setup_acts_are_counted_like_any_other_call(okta: Backend) -> None:
    headers = rest(okta, "getUser", as_setup(okta), id="okta-admin").headers
    assert headers["X-Rate-Limit-Limit"] == str(BUCKET_LIMITS["user"])
