"""The one registry: systems, scenarios and Gym ids, discovered, never listed by hand.

- Systems are the subpackages of ``enterprise_envs.mocks`` that export ``SYSTEM``, plus
  system plugins: modules named by the ``enterprise_envs.systems`` entry point group or by the
  ``ENTERPRISE_ENVS_SYSTEMS`` variable (comma-separated module names, for systems under
  development and tests). A plugin is a package exporting ``SYSTEM``, with a ``content/``
  folder: its scenario files, runbook (``instructions.md``), rules (``policy.toml``) and
  ``suites.toml``.
- Scenarios are the TOML files in each system's content folder (``scenarios/<system>/`` for
  the systems that ship in the package).
- Suites group scenarios under a Gym id (``ITSM-v0``: every ITSM scenario); they are data,
  ``scenarios/suites.toml`` and each plugin's ``suites.toml``.

Gym registration, the CLI's listings, test parametrization and docs tables derive from here.
Duplicate names raise.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.metadata
import os
import pkgutil
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable

import gymnasium

from enterprise_envs.mocks._core.system import System
from enterprise_envs.scenarios.format import Scenario, ScenarioError
from enterprise_envs.scenarios.loader import SUITES_FILE, load_scenarios, use_content_folder

NAMESPACE = "enterprise_envs"
ENTRY_POINT = "enterprise_envs.env:EnterpriseEnv"
#: Outside any ``TimeLimit``: a truncation by ``max_episode_steps`` still ends in a verdict.
FINAL_INFO_WRAPPER = gymnasium.envs.registration.WrapperSpec(
    name="FinalInfoOnTruncation", entry_point="enterprise_envs.env:FinalInfoOnTruncation", kwargs={}
)
#: The entry point group an installed system plugin registers its module under.
PLUGIN_GROUP = "enterprise_envs.systems"
#: Comma-separated module names of system plugins to load without installing them.
PLUGIN_VARIABLE = "ENTERPRISE_ENVS_SYSTEMS"


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

    def serves(self, scenario_id: str, systems: Iterable[str] = ()) -> bool:
        """Whether a scenario id matches one of the suite's globs and the suite holds its systems.

        A suite never serves a scenario needing a system it does not hold: ``itsm.*`` in a suite
        of ITSM alone leaves out ``itsm.workplace.onboarding``, which needs chat and identity too.
        """
        if not set(systems) <= set(self.systems):
            return False
        return any(fnmatch.fnmatchcase(scenario_id, pattern) for pattern in self.scenarios)


#: The folder inside a plugin package holding its scenarios, runbook, rules and suites.
PLUGIN_CONTENT = "content"


@cache
def plugins() -> tuple[str, ...]:
    """System plugin packages by name: the entry point group's, then the variable's, each once."""
    names = [entry.value for entry in importlib.metadata.entry_points(group=PLUGIN_GROUP)]
    names += [name.strip() for name in os.environ.get(PLUGIN_VARIABLE, "").split(",") if name.strip()]
    return tuple(dict.fromkeys(names))


def plugin_content(name: str) -> Traversable:
    """A plugin's content folder, found from its package's location.

    Found without running the package (it may be the one importing this module right now).
    """
    return resources.files(name).joinpath(PLUGIN_CONTENT)


@cache
def systems() -> dict[str, System]:
    """Every mocked system, by name: the package's own, then the plugins'."""
    import enterprise_envs.mocks as mocks_package

    modules = [
        importlib.import_module(f"{mocks_package.__name__}.{module.name}")
        for module in pkgutil.iter_modules(mocks_package.__path__)
        if not module.name.startswith("_")
    ]
    found: dict[str, System] = {}
    for module in [*modules, *(importlib.import_module(name) for name in plugins())]:
        system = getattr(module, "SYSTEM", None)
        if system is None:
            continue
        if system.name in found:
            raise ValueError(f"duplicate system name {system.name!r}")
        found[system.name] = system
        if module.__name__ in plugins():
            use_content_folder(system.name, plugin_content(module.__name__))
    return found


def reload() -> None:
    """Forget what was discovered (after changing :data:`PLUGIN_VARIABLE`), and register again."""
    for cached in (plugins, systems, scenarios, _declared_suites, suites):
        cached.cache_clear()
    register_envs()


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


def check_suites(
    found: dict[str, Suite], system_names: Iterable[str], scenario_systems: Mapping[str, Iterable[str]]
) -> None:
    """Raise ValueError for an unknown system, a glob matching no scenario, or a scenario no suite serves.

    Args:
        found: The suites.
        system_names: The systems found.
        scenario_systems: Scenario id -> the systems it needs.
    """
    names = set(system_names)
    needs = {sid: tuple(scenario_systems[sid]) for sid in sorted(scenario_systems)}
    for made in found.values():
        unknown = sorted(set(made.systems) - names)
        if unknown:
            raise ValueError(f"{SUITES_FILE}: suite {made.env_id!r} names unknown systems {unknown}")
        held = Suite(made.env_id, made.systems, made.description, ("*",))
        for pattern in made.scenarios:
            if not any(
                fnmatch.fnmatchcase(sid, pattern) and held.serves(sid, need) for sid, need in needs.items()
            ):
                raise ValueError(f"{SUITES_FILE}: suite {made.env_id!r}: {pattern!r} matches no scenario")
    orphans = [sid for sid, need in needs.items() if not any(s.serves(sid, need) for s in found.values())]
    if orphans:
        raise ValueError(f"{SUITES_FILE}: no suite serves {orphans}")


@cache
def _declared_suites() -> dict[str, Suite]:
    """The suites the package's and the plugins' suites files declare (read once; no scenario loaded)."""
    files: list[Traversable] = [resources.files("enterprise_envs.scenarios").joinpath(SUITES_FILE)]
    for name in plugins():
        declared = plugin_content(name).joinpath(SUITES_FILE)
        if declared.is_file():
            files.append(declared)
    found: dict[str, Suite] = {}
    for file in files:
        for env_id, made in parse_suites(file.read_text("utf-8")).items():
            if env_id in found:
                raise ValueError(f"{SUITES_FILE}: duplicate suite id {env_id!r}")
            found[env_id] = made
    return found


@cache
def suites() -> dict[str, Suite]:
    """Every suite, by Gym id, in file order, checked against the systems and scenarios found.

    Registration reads the ids alone (:func:`_declared_suites`), so importing stays light.

    Raises:
        ValueError: See :func:`parse_suites` and :func:`check_suites`.
    """
    found = _declared_suites()
    check_suites(found, systems(), {sid: scenario.systems for sid, scenario in scenarios().items()})
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
    found = scenarios().get(scenario_id)
    needs = found.systems if found is not None else ()
    for candidate in suites().values():
        if candidate.serves(scenario_id, needs):
            return candidate
    raise KeyError(f"no suite serves scenario {scenario_id!r}")


def select(suite_: Suite | None, spec: str | Iterable[str] | None = None) -> list[Scenario]:
    """Scenarios of a suite (None: of every suite) by id, tag or a list of either, sorted by id.

    ``spec`` None selects all of them.

    Raises:
        ScenarioError: The selection names nothing.
    """
    served = [suite_] if suite_ is not None else list(suites().values())
    pool = {sid: s for sid, s in scenarios().items() if any(entry.serves(sid, s.systems) for entry in served)}
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
                    additional_wrappers=(FINAL_INFO_WRAPPER,),
                )
