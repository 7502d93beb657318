"""The one registry: systems, scenarios and Gym ids, discovered, never listed by hand.

- Systems are the subpackages of ``enterprise_envs.mocks`` that export ``SYSTEM``.
- Scenarios are the TOML files in ``scenarios/<system>/``.
- Suites group scenarios under a Gym id (``ITSM-v0``: every ITSM scenario).

Gym registration, the CLI's listings, test parametrization and docs tables derive from here.
Duplicate names raise.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import gymnasium

from enterprise_envs.mocks._core.system import System
from enterprise_envs.scenarios.format import Scenario, ScenarioError
from enterprise_envs.scenarios.loader import load_scenarios

NAMESPACE = "enterprise_envs"
ENTRY_POINT = "enterprise_envs.env:EnterpriseEnv"


@dataclass(frozen=True)
class Suite:
    """A Gym id and the systems whose scenarios it serves."""

    env_id: str
    systems: tuple[str, ...]
    description: str


SUITES: tuple[Suite, ...] = (Suite("ITSM-v0", ("itsm",), "Service desk on a ServiceNow-like ITSM back-end"),)


@cache
def systems() -> dict[str, System]:
    """Every mocked system, by name."""
    import enterprise_envs.mocks as mocks_package

    found: dict[str, System] = {}
    for module in pkgutil.iter_modules(mocks_package.__path__):
        if module.name.startswith("_"):
            continue
        system = getattr(importlib.import_module(f"{mocks_package.__name__}.{module.name}"), "SYSTEM", None)
        if system is None:
            continue
        if system.name in found:
            raise ValueError(f"duplicate system name {system.name!r}")
        found[system.name] = system
    return found


@cache
def scenarios() -> dict[str, Scenario]:
    """Every shipped scenario, by id."""
    return load_scenarios(sorted(systems()))


def suite(env_id: str) -> Suite:
    """The suite behind a Gym id (namespaced or not)."""
    name = env_id.split("/", 1)[-1].split(":", 1)[-1]
    for candidate in SUITES:
        if candidate.env_id == name:
            return candidate
    raise KeyError(f"unknown env id {env_id!r}")


def select(systems_of_suite: Iterable[str], spec: str | Iterable[str] | None = None) -> list[Scenario]:
    """Scenarios of a suite chosen by id, tag or a list of either (None: all), sorted by id.

    Raises:
        ScenarioError: The selection names nothing.
    """
    pool = {
        sid: s for sid, s in scenarios().items() if any(system in s.systems for system in systems_of_suite)
    }
    if spec is None:
        chosen = list(pool.values())
    else:
        wanted = [spec] if isinstance(spec, str) else list(spec)
        chosen = []
        for item in wanted:
            matches = [pool[item]] if item in pool else [s for s in pool.values() if item in s.tags]
            if not matches:
                raise ScenarioError(f"no scenario or tag {item!r} (scenarios: {', '.join(sorted(pool))})")
            chosen.extend(matches)
    unique = {scenario.id: scenario for scenario in chosen}
    return [unique[sid] for sid in sorted(unique)]


def register_envs() -> None:
    """Register every suite with Gymnasium, plain and namespaced; safe to call repeatedly."""
    for entry in SUITES:
        for env_id in (entry.env_id, f"{NAMESPACE}/{entry.env_id}"):
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point=ENTRY_POINT,
                    kwargs={"suite": entry.env_id},
                    disable_env_checker=False,
                )
