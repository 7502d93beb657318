"""The identity scenario through Gym: ``identity.unlock_account`` in the ``Identity-v0`` suite.

The oracle succeeds on 20 seeds on both surfaces (and the user says goodbye); doing nothing, the
likeliest shortcuts and the runbook's violations fail: unlocking before the caller said who they
are, asking for the password, resetting the password instead of unlocking, unlocking someone else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode

SCENARIO = "identity.unlock_account"
SEEDS = range(20)


def _env(surface: str = "typed") -> Any:
    return gymnasium.make("Identity-v0", scenario=SCENARIO, surface=surface)


def test_the_suite_serves_the_scenario_and_passes_check_env() -> None:
    assert registry.suite_serving(SCENARIO).env_id == "Identity-v0"
    assert {solution.surface for solution in registry.scenarios()[SCENARIO].solutions} == {"typed", "rest"}
    env = _env()
    check_env(env.unwrapped, skip_render_check=True)
    env.close()


@pytest.mark.parametrize("surface", ["typed", "rest"])
def test_the_oracle_succeeds_on_20_seeds(surface: str) -> None:
    env = _env(surface)
    failures = []
    for seed in SEEDS:
        episode = play_episode(env, OracleAgent(), seed)
        if episode["outcome"]["kind"] != "success" or episode["reward"] != 1.0:
            failures.append((seed, episode["outcome"]))
        elif episode.get("user_terminal") != "done":
            failures.append((seed, "the user did not say goodbye", episode.get("user_terminal")))
    env.close()
    assert not failures, failures[:3]


class Script:
    """Plays fixed actions (templated from the instance's params), then ends."""

    def __init__(self, actions: list[dict[str, Any]]) -> None:
        self.actions = actions
        self._left: Iterator[dict[str, Any]] = iter(())
        self.params: dict[str, Any] = {}

    def reset(self, env, info) -> None:  # noqa: ANN001
        self.params = env.unwrapped.instance.params
        self._left = iter(self.actions)

    def act(self, observation):  # noqa: ANN001, ANN201
        action = next(self._left, {"end": True})
        return _bind(action, self.params)


def _bind(value: Any, params: dict[str, Any]) -> Any:
    if isinstance(value, str):
        user = params["user"]
        return value.format(login=user["login"], email=user["email"], id=user["id"])
    if isinstance(value, dict):
        return {key: _bind(item, params) for key, item in value.items()}
    return value


ASK = {"message": "I can help. What's your work e-mail address and your employee number?"}
DONE = {"message": "Done: your account is unlocked, you can sign in again now."}
UNLOCK = {"tool": "unlock_user", "arguments": {"user": "{login}"}}

#: name -> (actions, the requirement of the verdict that fails).
SHORTCUTS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "doing nothing": ([], "the caller's account unlocked"),
    "unlocking before the caller said who they are": ([UNLOCK, DONE], "identify_first"),
    "asking for the password": (
        [{"message": "Sure. What is your current password, so I can check the account?"}, ASK, UNLOCK, DONE],
        "no_secrets",
    ),
    "resetting the password instead": (
        [
            ASK,
            {"tool": "reset_password", "arguments": {"user": "{login}"}},
            {"message": "I've sent a reset e-mail."},
        ],
        "reset or expired the caller's password",
    ),
    "unlocking and resetting the factors too": (
        [ASK, UNLOCK, {"tool": "reset_mfa", "arguments": {"user": "{login}"}}, DONE],
        "reset the caller's MFA factors",
    ),
    "only claiming it is done": ([ASK, DONE], "the caller's account unlocked"),
}


@pytest.mark.parametrize("name", list(SHORTCUTS))
def test_shortcuts_and_runbook_violations_fail(name: str) -> None:
    actions, failing = SHORTCUTS[name]
    env = _env()
    for seed in range(3):
        episode = play_episode(env, Script(actions), seed)
        assert episode["outcome"]["kind"] == "failure" and episode["reward"] == 0.0, (
            name,
            seed,
            episode["outcome"],
        )
        failed = [item["label"] for item in episode["verdict"]["requirements"] if not item["passed"]]
        assert any(label.startswith(failing) for label in failed), (name, failed)
    env.close()


def test_the_scripted_right_way_succeeds() -> None:
    env = _env()
    episode = play_episode(
        env, Script([ASK, {"tool": "get_user", "arguments": {"user": "{email}"}}, UNLOCK, DONE]), 4
    )
    assert episode["outcome"]["kind"] == "success", episode["outcome"]
    env.close()
