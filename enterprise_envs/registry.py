"""The one registry: systems, scenarios and Gym ids, discovered, never listed by hand.

- Systems are the subpackages of ``enterprise_envs.mocks`` that export ``SYSTEM``.
- Scenarios are the TOML files in ``scenarios/<system>/``.
- Suites group scenarios under a Gym id (``ITSM-v0``: every ITSM scenario); they are data,
  ``scenarios/suites.toml``.

Gym registration, the CLI's listings, test parametrization and docs tables derive from here.
Duplicate names raise.
"""

from __future__ import annotations

import fnmatch
import importlib
import pkgutil
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import gymnasium

from enterprise_envs.mocks._core.system import System
from enterprise_envs.scenarios.format import Scenario, ScenarioError
from enterprise_envs.scenarios.loader import load_scenarios

NAMESPACE = "enterprise_envs"
ENTRY_POINT = "enterprise_envs.env:EnterpriseEnv"
SUITES_FILE = "suites.toml"


@dataclass(frozen=True)
class Suite:
    """A Gym id and the scenarios it serves.

    Attributes:
        env_id: The Gym id (``ITSM-v0``).
        systems: The mocked systems its episodes may hold.
        description: One line for people.
        scenarios: Shell-style globs over scenario ids (``itsm.*``).
    """

    env_id: str
    systems: tuple[str, ...]
    description: str
    scenarios: tuple[str, ...] = ("*",)

    def serves(self, scenario_id: str) -> bool:
        """Whether a scenario id matches one of the suite's globs."""
        return any(fnmatch.fnmatchcase(scenario_id, pattern) for pattern in self.scenarios)


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


def parse_suites(text: str) -> dict[str, Suite]:
    """Suites from the text of a suites file, by Gym id in file order.

    Raises:
        ValueError: A duplicate id, or an entry missing a field.
    """
    found: dict[str, Suite] = {}
    for entry in tomllib.loads(text).get("suite", []):
        try:
            made = Suite(
                str(entry["id"]),
                tuple(entry["systems"]),
                str(entry["description"]),
                tuple(entry["scenarios"]),
            )
        except KeyError as missing:
            raise ValueError(f"{SUITES_FILE}: a suite lacks {missing}") from None
        if made.env_id in found:
            raise ValueError(f"{SUITES_FILE}: duplicate suite id {made.env_id!r}")
        found[made.env_id] = made
    return found


def check_suites(found: dict[str, Suite], system_names: Iterable[str], scenario_ids: Iterable[str]) -> None:
    """Raise ValueError for an unknown system, a glob matching no scenario, or a scenario no suite serves."""
    names, ids = set(system_names), sorted(scenario_ids)
    for made in found.values():
        unknown = sorted(set(made.systems) - names)
        if unknown:
            raise ValueError(f"{SUITES_FILE}: suite {made.env_id!r} names unknown systems {unknown}")
        for pattern in made.scenarios:
            if not any(fnmatch.fnmatchcase(sid, pattern) for sid in ids):
                raise ValueError(f"{SUITES_FILE}: suite {made.env_id!r}: {pattern!r} matches no scenario")
    orphans = [sid for sid in ids if not any(s.serves(sid) for s in found.values())]
    if orphans:
        raise ValueError(f"{SUITES_FILE}: no suite serves {orphans}")


@cache
def _declared_suites() -> dict[str, Suite]:
    """The suites as ``scenarios/suites.toml`` declares them (read once; nothing else loaded)."""
    return parse_suites(resources.files("enterprise_envs.scenarios").joinpath(SUITES_FILE).read_text("utf-8"))


@cache
def suites() -> dict[str, Suite]:
    """Every suite, by Gym id, in file order, checked against the systems and scenarios found.

    Registration reads the ids alone (:func:`_declared_suites`), so importing stays light.

    Raises:
        ValueError: See :func:`parse_suites` and :func:`check_suites`.
    """
    found = _declared_suites()
    check_suites(found, systems(), scenarios())
    return found


def suite(env_id: str) -> Suite:
    """The suite behind a Gym id (namespaced or not)."""
    name = env_id.split("/", 1)[-1].split(":", 1)[-1]
    found = suites().get(name)
    if found is None:
        raise KeyError(f"unknown env id {env_id!r}")
    return found


def suite_serving(scenario_id: str) -> Suite:
    """The first suite (in file order) that serves a scenario: where its episodes are played."""
    for candidate in suites().values():
        if candidate.serves(scenario_id):
            return candidate
    raise KeyError(f"no suite serves scenario {scenario_id!r}")


def select(suite_: Suite | None, spec: str | Iterable[str] | None = None) -> list[Scenario]:
    """Scenarios of a suite (None: of every suite) by id, tag or a list of either, sorted by id.

    ``spec`` None selects all of them.

    Raises:
        ScenarioError: The selection names nothing.
    """
    served = [suite_] if suite_ is not None else list(suites().values())
    pool = {sid: s for sid, s in scenarios().items() if any(entry.serves(sid) for entry in served)}
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
    for entry in _declared_suites().values():
        for env_id in (entry.env_id, f"{NAMESPACE}/{entry.env_id}"):
            if env_id not in gymnasium.registry:
                gymnasium.register(
                    id=env_id,
                    entry_point=ENTRY_POINT,
                    kwargs={"suite": entry.env_id},
                    disable_env_checker=False,
                )
