"""Episodes whose expectation a test rewrites: a weakened (or broken) verifier for the audit to catch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.verifiers import Expectation


class Rewritten(EnvEpisodes):
    """EnvEpisodes whose open-loop runs verify against ``rewrite(expectation)``.

    The closed-loop oracle still plays the shipped scenario; recording, replays and the probe
    context see the rewritten expectation.
    """

    def __init__(self, scenario_id: str, rewrite: Callable[[Expectation], Expectation]) -> None:
        super().__init__(scenario_id)
        self.rewrite = rewrite

    def _start(self, seed: int, surface: str) -> EnterpriseEnv:
        env = super()._start(seed, surface)
        assert env.instance is not None
        env.instance.expectation = self.rewrite(env.instance.expectation)
        return env


def edited(expectation: Expectation, **changes: Any) -> Expectation:
    """The expectation with some of its lists replaced (validated again)."""
    data = expectation.model_dump(exclude_none=True)
    data.update(changes)
    return Expectation.model_validate(data)


def without_field(expectation: Expectation, entry: int, name: str, *, free: bool = False) -> Expectation:
    """The expectation with one change entry no longer checking one field (``free``: and allowing it)."""
    data = expectation.model_dump(exclude_none=True)
    data["change"][entry]["fields"].pop(name)
    if free:
        data["change"][entry]["may_change"] = [*data["change"][entry].get("may_change", []), name]
    return Expectation.model_validate(data)
