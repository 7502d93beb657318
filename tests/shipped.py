"""The shipped scenarios and the env each one is played in: its own suite's, never a hard-coded id.

A test that iterates over every shipped scenario makes its env here, so a new system's scenarios
(and the suite that serves them, ``scenarios/suites.toml``) are picked up with nothing to edit.
"""

from __future__ import annotations

from typing import Any

import gymnasium

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs import registry

#: Every shipped scenario id, sorted (read at collection, before any plugin test loads its own).
SCENARIOS = sorted(registry.scenarios())


def env_id_for(scenario_id: str) -> str:
    """The Gym id a scenario is played under: the first suite serving it (as the audit does)."""
    return registry.suite_serving(scenario_id).env_id


def make_env(scenario_id: str, **kwargs: Any) -> gymnasium.Env:
    """``gymnasium.make`` of the scenario's own suite, serving that scenario alone."""
    return gymnasium.make(env_id_for(scenario_id), scenario=scenario_id, **kwargs)
