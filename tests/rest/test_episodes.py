"""Episodes over the vendors' own APIs: reset on the control plane, play, verify.

Every scenario of every suite is played by its oracle over HTTP (tool calls as the vendors' wire
requests, the user on the control plane) and must get the verdict the same oracle gets in Gym
on the ``rest`` surface: the same outcome, steps, calls and faults, the same transcript (but for
where URLs point) and the same rows in the world. So an episode over REST is the Gym episode,
and nothing about the wire (Slack's HTTP 200 errors, query-string text, links pointing at the
server) changes what the verifier sees.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.mcp.hub import Hub
from enterprise_envs.rest import RestServer
from tests.mcp.helpers import TOKEN_B, TOKENS, control
from tests.rest.helpers import play_oracle_over_rest

SEED = 1
#: What must agree between the verdict record over REST and the Gym run's final info (the
#: transcript too, but for where the vendors' URLs point: see :func:`_placed`).
SAME = ("outcome", "verdict", "steps", "tool_calls", "faults", "user_terminal", "systems_used")
ORIGIN = "<origin>"


def _world_state(env: EnterpriseEnv) -> list[tuple[str, str, dict | None]]:
    """Every row an episode changed, as it is now (None: deleted), in change order."""
    store = env.unwrapped.backend.store
    return [(table, key, store.get(table, key)) for table, key, _ in store.changed_rows()]


def _placed(messages: list[dict], origins: list[str]) -> str:
    """The transcript as JSON with every vendor URL's origin written :data:`ORIGIN`.

    Over REST an answer's links point where the API is served (so a client following them stays
    on the mock); in process they name the vendor's configured host. Nothing else may differ.
    """
    text = json.dumps(messages, sort_keys=True)
    for origin in origins:
        text = text.replace(origin, ORIGIN).replace(json.dumps(origin)[1:-1], ORIGIN)
    return text


SUITES = sorted(registry.suites())
CASES = [(suite, scenario.id) for suite in SUITES for scenario in registry.select(registry.suite(suite))]


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[str, RestServer]]:
    """One server per suite, serving its episodes over the vendors' APIs (tokens alice and bob)."""
    running: dict[str, RestServer] = {}
    try:
        for suite in SUITES:
            running[suite] = RestServer(suite=suite, tokens=TOKENS, hub=Hub()).start()
        yield running
    finally:
        for server in running.values():
            server.stop()
            server.hub.close()


@pytest.mark.parametrize(("suite", "scenario"), CASES, ids=[scenario for _, scenario in CASES])
def test_the_oracle_over_rest_gets_the_gym_verdict(
    servers: dict[str, RestServer], suite: str, scenario: str
) -> None:
    server = servers[suite]
    status, started = control(
        server.base_url, "POST", "/control/episodes", {"scenario": scenario, "seed": SEED}
    )
    assert status == 201, started
    assert set(started["api_urls"]) == set(registry.scenarios()[scenario].systems)
    episode = server.hub.get("alice", started["episode_id"])
    agent = OracleAgent()
    agent.reset(episode.env, episode.reset_info)
    try:
        counts = play_oracle_over_rest(server, started, agent)
        status, record = control(server.base_url, "POST", f"/control/episodes/{started['episode_id']}/verify")
        assert status == 200, record
        env = EnterpriseEnv(suite=suite, scenario=scenario, surface="rest")
        try:
            gym = play_episode(env, OracleAgent(), SEED, options={"scenario": scenario})
            assert _world_state(episode.env) == _world_state(env)  # the same rows, row for row
        finally:
            env.close()
        for key in SAME:
            assert record[key] == gym[key], key
        served = f"{server.base_url}/envs/{started['episode_id']}"
        configured = [
            str(value)
            for name in record["systems"]
            for key, value in registry.systems()[name].settings.items()
            if key.endswith("_url")
        ]
        assert _placed(record["messages"], [served]) == _placed(gym["messages"], configured)
        assert counts["tools"] == gym["tool_calls"]  # every call went over the wire
        assert record["outcome"]["kind"] == "success", record["outcome"]
        status, again = control(server.base_url, "GET", f"/control/episodes/{started['episode_id']}/verdict")
        assert status == 200 and again["outcome"] == record["outcome"]
    finally:
        control(server.base_url, "DELETE", f"/control/episodes/{started['episode_id']}")


def test_a_message_after_the_end_and_another_tokens_episode_are_refused(
    servers: dict[str, RestServer],
) -> None:
    server = servers["ITSM-v0"]
    status, started = control(
        server.base_url, "POST", "/control/episodes", {"scenario": "itsm.status_check", "seed": SEED}
    )
    assert status == 201
    path = f"/control/episodes/{started['episode_id']}"
    status, _ = control(server.base_url, "POST", f"{path}/messages", {"text": "hello"}, token=TOKEN_B)
    assert status == 404  # bob does not hold alice's episode
    status, refused = control(server.base_url, "POST", f"{path}/messages", {"text": ""})
    assert status == 200 and refused["accepted"] is False  # an empty message: a malformed action
    status, _ = control(server.base_url, "POST", f"{path}/verify")
    assert status == 200
    status, over = control(server.base_url, "POST", f"{path}/messages", {"text": "still there?"})
    assert status == 409 and "over" in over["error"]
    status, extra = control(server.base_url, "POST", f"{path}/messages", {"text": "x", "role": "system"})
    assert status in (400, 409)
