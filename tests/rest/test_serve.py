"""``serve SYSTEM --transport rest``: the command, in a subprocess, with Slack's SDK as its client."""

from __future__ import annotations

import pytest
from slack_sdk import WebClient

from enterprise_envs.mcp.commands import main as serve_main
from tests.mcp.helpers import TIMEOUT, control, serve_subprocess


def test_serve_chat_over_rest_answers_slacks_sdk_and_shuts_down_cleanly() -> None:
    with serve_subprocess(
        "chat", "--size", "tiny", "--token", "alice=s3cret-a", transport="rest", banner="API:"
    ) as base_url:
        client = WebClient(token="s3cret-a", base_url=f"{base_url}/api/", timeout=int(TIMEOUT))
        assert client.auth_test()["user"] == "it-bot"
        status, health = control(base_url, "GET", "/control/health", token=None)
        assert (status, health["transport"], health["system"]) == (200, "rest", "chat")
        status, envs = control(base_url, "GET", "/control/envs", token="s3cret-a")
        assert status == 200 and [env["env_id"] for env in envs["envs"]] == ["default"]


def test_serve_a_scenario_over_rest_plays_an_episode_to_its_verdict() -> None:
    token = "s3cret-a"
    with serve_subprocess(
        "--scenario", "chat.thread_reply", "--seed", "2", "--token", f"alice={token}",
        transport="rest", banner="control plane:",
    ) as base_url:  # fmt: skip
        status, episode = control(base_url, "GET", "/control/episodes/default", token=token)
        assert status == 200 and episode["scenario"] == "chat.thread_reply" and episode["seed"] == 2
        assert episode["opening_message"] and episode["api_url"] == f"{base_url}/envs/default/api/"
        client = WebClient(token=token, base_url=episode["api_url"], timeout=int(TIMEOUT))
        assert client.auth_test()["user"] == "it-bot"  # a step of the episode
        path = "/control/episodes/default"
        status, answer = control(base_url, "POST", f"{path}/messages", {"text": "Which thread?"}, token=token)
        assert status == 200 and answer["accepted"] and answer["reply"]
        status, verdict = control(base_url, "POST", f"{path}/verify", token=token)
        assert status == 200 and verdict["tool_calls"] == 1
        assert verdict["messages"][-2]["content"] == "Which thread?"
        assert verdict["outcome"]["kind"] == "failure"  # nothing was answered in the thread


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", "chat", "--transport", "rest", "--surface", "typed"], "rest surface"),
        (["serve", "--suite", "Workplace-v0", "--transport", "rest", "--surface", "typed"], "rest surface"),
        (["serve", "chat", "--tls"], "--tls is for HTTP transports"),
        (["serve", "chat+itsm", "--transport", "rest"], "unknown system"),
    ],
)
def test_what_rest_cannot_serve_is_refused_before_listening(
    argv: list[str], says: str, capsys: pytest.CaptureFixture
) -> None:
    assert serve_main(argv) == 2
    assert says in capsys.readouterr().err
