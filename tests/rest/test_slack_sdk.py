"""Slack's own Python SDK (``slack_sdk.WebClient``) against the chat mock served as Slack's Web API.

The SDK was written by people who never saw this project: what it sends (form bodies, JSON for
``chat.postMessage``, ``Authorization: Bearer``, cursors) and what it expects back (HTTP 200 with
``ok``, 429 with ``Retry-After``) is the conformance check.
"""

from __future__ import annotations

import time

import pytest
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.chat import CHAT
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TIMEOUT, TOKEN_A, TOKEN_B, control
from tests.rest.helpers import changed_state, world_of


def _channel(backend: Backend, name: str) -> str:
    row = backend.store.find_one("channel", "name", name)
    assert row is not None, name
    return row["id"]


def _outsiders(backend: Backend, channel: str, count: int) -> list[str]:
    """Active people (not bots) who are not in ``channel``."""
    inside = {row["user"] for row in backend.store.select("channel_member", "channel = ?", (channel,))}
    people = backend.store.select("user", "deleted = 'false' AND is_bot = 'false'")
    return [row["id"] for row in people if row["id"] not in inside][:count]


def test_auth_test_says_the_token_is_the_it_bot(slack: WebClient) -> None:
    answer = slack.auth_test()
    assert answer.status_code == 200
    assert answer["ok"] is True
    assert answer["user"] == "it-bot"
    assert answer["user_id"].startswith("U")


def test_the_sdks_paginator_visits_every_channel_once(slack: WebClient) -> None:
    # The SDK's response is its own iterator: each page replaces its data, so read it in the loop.
    sizes, seen = [], []
    for page in slack.conversations_list(limit=4):
        sizes.append(len(page["channels"]))
        seen += [channel["id"] for channel in page["channels"]]
    assert len(sizes) > 2 and max(sizes) == 4
    assert len(seen) == len(set(seen))
    whole = slack.conversations_list(limit=1000)
    assert whole["response_metadata"]["next_cursor"] == ""
    assert seen == [channel["id"] for channel in whole["channels"]]


def test_a_posted_message_is_in_the_channels_history(slack: WebClient, slack_server: RestServer) -> None:
    channel = _channel(world_of(slack_server, "alice"), "it-status")
    posted = slack.chat_postMessage(channel=channel, text="VPN is back up (INC0010042)")  # a JSON body
    assert posted["ok"] and posted["channel"] == channel
    history = slack.conversations_history(channel=channel, limit=1)  # a form body
    assert [(m["ts"], m["text"]) for m in history["messages"]] == [
        (posted["ts"], "VPN is back up (INC0010042)")
    ]


def test_invite_after_joining_and_the_members_list_shows_them(
    slack: WebClient, slack_server: RestServer
) -> None:
    backend = world_of(slack_server, "alice")
    channel = _channel(backend, "team-finance")
    people = _outsiders(backend, channel, 2)
    with pytest.raises(SlackApiError) as refused:
        slack.conversations_invite(channel=channel, users=people)  # the bot is not in it yet
    assert refused.value.response["error"] == "not_in_channel"
    slack.conversations_join(channel=channel)
    invited = slack.conversations_invite(channel=channel, users=people)  # sent as "U1,U2"
    assert invited["channel"]["id"] == channel
    members = [m for page in slack.conversations_members(channel=channel, limit=5) for m in page["members"]]
    assert set(people) <= set(members)
    with pytest.raises(SlackApiError) as again:
        slack.conversations_invite(channel=channel, users=people[:1])
    assert again.value.response["error"] == "already_in_channel"


def test_errors_are_http_200_with_ok_false_and_raise_slack_api_error(slack: WebClient) -> None:
    with pytest.raises(SlackApiError) as raised:
        slack.conversations_history(channel="C0NOSUCH000")
    assert raised.value.response.status_code == 200
    assert raised.value.response.data == {"ok": False, "error": "channel_not_found"}
    with pytest.raises(SlackApiError) as invalid:
        slack.chat_postMessage(channel="C0NOSUCH000", text="x", blocks=[{"type": "divider"}])
    assert (
        invalid.value.response["error"] == "invalid_arguments"
    )  # blocks are not served: refused, not ignored
    assert invalid.value.response["response_metadata"]["messages"]


def test_no_token_is_not_authed_and_a_wrong_one_invalid_auth(slack_server: RestServer) -> None:
    for token, code in ((None, "not_authed"), ("xoxb-not-a-served-token", "invalid_auth")):
        with pytest.raises(SlackApiError) as raised:
            WebClient(token=token, base_url=slack_server.api_url, timeout=int(TIMEOUT)).auth_test()
        assert raised.value.response.status_code == 200
        assert raised.value.response.data == {"ok": False, "error": code}


def test_each_token_acts_on_its_own_world(slack_server: RestServer, slack: WebClient) -> None:
    channel = _channel(world_of(slack_server, "alice"), "it-status")
    slack.chat_postMessage(channel=channel, text="for alice's world only")
    bob = WebClient(token=TOKEN_B, base_url=slack_server.api_url, timeout=int(TIMEOUT))
    latest = bob.conversations_history(channel=channel, limit=1)["messages"][0]
    assert latest["text"] != "for alice's world only"
    assert world_of(slack_server, "bob").store.changed_rows() == []


def test_a_world_made_on_the_control_plane_is_reached_by_its_url_or_header(slack_server: RestServer) -> None:
    status, made = control(slack_server.base_url, "POST", "/control/envs", {"size": "tiny", "seed": 1})
    assert status == 201
    assert made["api_url"] == slack_server.env_url(made["env_id"])
    by_url = WebClient(token=TOKEN_A, base_url=made["api_url"], timeout=int(TIMEOUT))
    by_header = WebClient(
        token=TOKEN_A,
        base_url=slack_server.api_url,
        headers={"X-Env-Id": made["env_id"]},
        timeout=int(TIMEOUT),
    )
    channel = _channel(world_of(slack_server, "alice", made["env_id"]), "it-status")
    by_url.chat_postMessage(channel=channel, text="one")
    by_header.chat_postMessage(channel=channel, text="two")
    assert len(world_of(slack_server, "alice", made["env_id"]).writes) == 2
    assert slack_server.hub.find("alice", "default") is None  # the default world was never made
    # Another token's env id is unknown to it: the serving layer's 404, not a Slack answer.
    with pytest.raises(SlackApiError) as foreign:
        WebClient(token=TOKEN_B, base_url=made["api_url"], timeout=int(TIMEOUT)).auth_test()
    assert foreign.value.response.status_code == 404
    assert "unknown env id" in foreign.value.response["error"]


def test_an_injected_rate_limit_is_a_429_with_retry_after_that_the_sdk_retries_through(
    slack_server: RestServer, slack: WebClient
) -> None:
    # One call per 6 simulated seconds. Each call moves the world's clock 5 s (the wall clock
    # never does), so every 30 s one call lands in the window its predecessor used: of 7 calls
    # after the faults are set exactly one gets a 429 with Retry-After: 1. A retry is one more
    # call, 5 s later in simulated time: in the next window, so it passes.
    faults = {"rate_limit": {"calls": 1, "window_seconds": 6}}
    status, state = control(slack_server.base_url, "POST", "/control/envs/default/faults", faults)
    assert status == 200 and state["faults"]["rate_limit"] == {"calls": 1, "window_seconds": 6}
    limited = []
    for _ in range(7):  # the SDK's default handlers retry connection errors only
        try:
            slack.auth_test()
        except SlackApiError as error:
            limited.append(error.response)
    assert len(limited) == 1
    assert limited[0].status_code == 429
    assert limited[0].headers["Retry-After"] == "1"
    assert limited[0].data == {"ok": False, "error": "ratelimited"}

    patient = WebClient(
        token=TOKEN_A,
        base_url=slack_server.api_url,
        timeout=int(TIMEOUT),
        retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)],
    )
    started = time.monotonic()
    answers = [patient.auth_test() for _ in range(7)]
    assert all(answer["ok"] for answer in answers)
    assert time.monotonic() - started >= 1.0  # it slept Retry-After before retrying
    status, state = control(slack_server.base_url, "GET", "/control/envs/default/faults")
    assert len(state["log"]) >= 2 and {event["retry_after"] for event in state["log"]} == {1}
    assert {event["kind"] for event in state["log"]} == {"rate_limited"}


def test_the_same_calls_over_http_and_in_process_reach_the_same_state(
    slack_server: RestServer, slack: WebClient
) -> None:
    local = Backend(CHAT, size="tiny", surface="rest")
    local.mark_start()
    status_id, team = _channel(local, "it-status"), _channel(local, "team-sales")
    people = _outsiders(local, team, 2)

    posted = slack.chat_postMessage(channel=status_id, text="Email is degraded; updates here.")
    slack.conversations_join(channel=team)
    slack.conversations_invite(channel=team, users=people)
    slack.conversations_setTopic(channel=team, topic="Quarter close")
    slack.chat_postMessage(channel=status_id, text="Fixed.", thread_ts=posted["ts"])
    slack.reactions_add(channel=status_id, name="white_check_mark", timestamp=posted["ts"])
    created = slack.conversations_create(name="inc-email-degraded", is_private=False)
    slack.conversations_archive(channel=created["channel"]["id"])
    with pytest.raises(SlackApiError):
        slack.conversations_join(channel="C0NOSUCH000")  # a failed call changes nothing

    calls = [
        ("chat_postMessage", {"channel": status_id, "text": "Email is degraded; updates here."}),
        ("conversations_join", {"channel": team}),
        ("conversations_invite", {"channel": team, "users": ",".join(people)}),
        ("conversations_setTopic", {"channel": team, "topic": "Quarter close"}),
        ("chat_postMessage", {"channel": status_id, "text": "Fixed.", "thread_ts": posted["ts"]}),
        ("reactions_add", {"channel": status_id, "name": "white_check_mark", "timestamp": posted["ts"]}),
        ("conversations_create", {"name": "inc-email-degraded", "is_private": "0"}),
        ("conversations_archive", {"channel": created["channel"]["id"]}),
        ("conversations_join", {"channel": "C0NOSUCH000"}),
    ]
    results = [local.call(tool, arguments) for tool, arguments in calls]
    assert [result.ok for result in results] == [True] * 8 + [False]
    over_http = changed_state(world_of(slack_server, "alice"))
    assert len(over_http) >= 8
    assert over_http == changed_state(local)
    local.close()
