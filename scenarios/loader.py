"""Loading scenario files: TOML -> validated :class:`Scenario`, discovered by folder.

Scenario files live in ``scenarios/<system>/<name>.toml`` (package data). Discovery reads every
file; there is no hand-edited list. Duplicate ids raise.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

from pydantic import ValidationError

from enterprise_envs.mocks._core.world import qualify, split_table, tool_name
from enterprise_envs.scenarios.format import FACTS, Scenario, ScenarioError
from enterprise_envs.scenarios.users.acts import occurs
from enterprise_envs.verifiers.policy import Policy
from enterprise_envs.verifiers.templates import TEMPLATE, template_roots


def parse_scenario(text: str, source: str = "<string>") -> Scenario:
    """Parse and validate one scenario file's text.

    Raises:
        ScenarioError: Bad TOML, a schema violation, or a template naming nothing the scenario
            defines (a param, a setup result or one of the persona's facts).
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ScenarioError(f"{source}: invalid TOML: {error}") from None
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as error:
        raise ScenarioError(f"{source}: {error}") from None
    scenario = in_world_names(scenario, source)
    _check_templates(scenario, source)
    _check_views(scenario, source)
    _check_opening(scenario, source)
    return scenario


#: Where an expectation's and a policy's entries name tables (the verifier's formats).
_EXPECT_TABLES = ("change", "allow", "forbid")


def in_world_names(scenario: Scenario, source: str = "<string>") -> Scenario:
    """The scenario with every table and tool named as its world names them.

    Authors may write ``<system>.<table>`` and ``<system>.<tool>`` anywhere a table or a tool is
    named (params, views, setup, solutions, expectations, policy additions); a bare name is the
    first system's. A world of one system names its own tables and tools bare, so single-system
    files keep working unchanged; a world of several qualifies tables (``itsm.incident``) and
    namespaces tools (``itsm_create_incident``), as :mod:`~enterprise_envs.mocks._core.world`
    does for the back-end.

    Raises:
        ScenarioError: A name qualified with a system the scenario does not use.
    """
    systems = scenario.systems

    def system_part(name: str) -> tuple[str, str]:
        system, local = split_table(name, systems[0])
        if system not in systems:
            raise ScenarioError(f"{source}: {name!r} names system {system!r}, not one of {systems}")
        return system, local

    def table(name: str) -> str:
        system, local = system_part(name)
        return local if len(systems) == 1 else qualify(system, local)

    def tool(name: str) -> str:
        return tool_name(*system_part(name), systems)

    data = scenario.model_dump(exclude_none=True)
    for spec in data["params"].values():
        spec["table"] = table(spec["table"])
    for check in data["view"].values():
        if check["table"]:
            check["table"] = table(check["table"])
    for call in data["setup"]:
        call["tool"] = tool(call["tool"])
    for solution in data["solutions"]:
        for step in solution["steps"]:
            if "tool" in step:
                step["tool"] = tool(step["tool"])
    for kind in _EXPECT_TABLES:
        for entry in data["expect"].get(kind, []):
            if isinstance(entry, dict) and isinstance(entry.get("table"), str):
                entry["table"] = table(entry["table"])
    data["policy"] = policy_in_world_names(data["policy"], table)
    renamed = Scenario.model_validate(data)
    return scenario if renamed == scenario else renamed


def policy_in_world_names(policy: dict[str, Any], table: Any) -> dict[str, Any]:
    """Policy data (a system's rules or a scenario's additions) with its tables renamed by ``table``."""
    policy = dict(policy)
    rules = []
    for rule in policy.get("rules", []):
        rule = dict(rule)
        if isinstance(rule.get("table"), str):
            rule["table"] = table(rule["table"])
        for key in ("owners", "details"):
            if isinstance(rule.get(key), dict):
                rule[key] = {table(name): value for name, value in rule[key].items()}
        rules.append(rule)
    if "rules" in policy:
        policy["rules"] = rules
    for key in ("entitled",):
        if key in policy:
            policy[key] = [{**entry, "table": table(entry["table"])} for entry in policy[key]]
    people = policy.get("person")
    if isinstance(people, dict | list):
        people = [people] if isinstance(people, dict) else people
        policy["person"] = [{**entry, "table": table(entry["table"])} for entry in people]
    return policy


def _check_opening(scenario: Scenario, source: str) -> None:
    """The opening may not state a fact the user only tells later (a leak in every episode).

    Only literal fact values can be checked here (templated ones are drawn per instance); the
    fix is ``{{key}}`` in the opening and ``disclosure = "opening"`` on the fact.
    """
    opening = str(scenario.user.get("opening", ""))
    for fact in scenario.user.get("facts", []):
        if not isinstance(fact, dict) or fact.get("disclosure") == "opening":
            continue
        value = str(fact.get("value", ""))
        if value.strip() and not TEMPLATE.search(value) and occurs(value, opening):
            raise ScenarioError(
                f"{source}: the opening says fact {fact.get('key')!r} ({value!r}), whose disclosure is "
                f"{fact.get('disclosure', 'on_ask')!r}: write {{{{{fact.get('key')}}}}} there and make it "
                'disclosure = "opening"'
            )


def _check_views(scenario: Scenario, source: str) -> None:
    """Every UserView key the persona reads is declared, and of a kind that fits its use.

    The goal is met by what the user is told or sees later (never by the start state), and a
    step helps or not by the user's own circumstances (a ``situation``) or by what they see
    happen (``notified``: the unlock e-mail came, so signing in works), never by the agent's
    words.
    """
    user = scenario.user
    done = user.get("done_when")
    steps = {step.get("view") for step in user.get("steps", []) if isinstance(step, dict)} - {None}
    missing = sorted(str(key) for key in ({done} | steps) - set(scenario.view) if key)
    if missing:
        raise ScenarioError(f"{source}: the persona reads view keys nobody declares in [view]: {missing}")
    if done in scenario.view and scenario.view[done].kind == "situation":
        raise ScenarioError(
            f"{source}: done_when {done!r} is a situation: the start state cannot meet the goal"
        )
    moving = sorted(str(key) for key in steps if scenario.view[key].kind not in ("situation", "notified"))
    if moving:
        raise ScenarioError(
            f"{source}: step views must be situations (the user's own circumstances) or notified "
            f"(what they see happen), never what the agent says: {moving}"
        )
    if any(check.kind != "told_text" for check in scenario.view.values()) and not scenario.person:
        raise ScenarioError(f"{source}: name the user's person (person = ...) for its observable view keys")


def _check_templates(scenario: Scenario, source: str) -> None:
    """Every ``{{name...}}`` must name a param, a saved setup result, a solution result or a fact."""
    known = set(scenario.params) | {call.save_as for call in scenario.setup if call.save_as}
    facts = {fact.get("key") for fact in scenario.user.get("facts", []) if isinstance(fact, dict)}
    shadowed = sorted(known & (facts | saved_names(scenario) | {FACTS}))
    if shadowed:
        # {{name}} in the persona would be left for the simulator and never filled from the param.
        raise ScenarioError(
            f"{source}: fact keys or solution results shadow params or setup results: {shadowed}"
        )
    saved = saved_names(scenario)
    for where, data, allowed in (
        ("params", [spec.where for spec in scenario.params.values()], known),
        ("setup", [call.model_dump() for call in scenario.setup], known),
        # The simulator fills {{fact}} placeholders in the opening only.
        ("user", {k: v for k, v in scenario.user.items() if k != "opening"}, known),
        ("user.opening", scenario.user.get("opening", ""), known | facts),
        ("view", [(check.where, check.text, check.record) for check in scenario.view.values()], known),
        ("person", scenario.person, known),
        ("faults", scenario.faults, known),
        # The verifier checks required text against the caller's facts: {{facts.<key>}}.
        ("expect", scenario.expect, known | {FACTS}),
        ("solutions", [solution.model_dump() for solution in scenario.solutions], known | saved),
    ):
        for name in _template_roots(data):
            if name not in allowed:
                raise ScenarioError(f"{source}: {where} uses {{{{{name}...}}}}, which nothing defines")


def saved_names(scenario: Scenario) -> set[str]:
    """Names solution steps save their results under."""
    return {step.save_as for solution in scenario.solutions for step in solution.steps if step.save_as}


def _template_roots(data: Any) -> Iterable[str]:
    if isinstance(data, str):
        yield from template_roots(data)
    elif isinstance(data, dict):
        for value in data.values():
            yield from _template_roots(value)
    elif isinstance(data, list | tuple):
        for value in data:
            yield from _template_roots(value)


#: A system's runbook rules, beside its runbook and its scenarios (not a scenario).
POLICY_FILE = "policy.toml"
#: A plugin's suites, beside its scenarios (not a scenario).
SUITES_FILE = "suites.toml"


#: Content folders of systems that keep theirs outside this package (plugins), by system name.
_CONTENT_FOLDERS: dict[str, Traversable] = {}


def use_content_folder(system: str, folder: Traversable) -> None:
    """Read a system's scenarios, runbook and rules from ``folder`` (a plugin's own)."""
    _CONTENT_FOLDERS[system] = folder
    system_policy.cache_clear()


def content_folder(system: str) -> Traversable:
    """A system's content folder: scenario files, ``instructions.md``, ``policy.toml``.

    ``scenarios/<system>/`` in this package unless the system brought its own.
    """
    found = _CONTENT_FOLDERS.get(system)
    return found if found is not None else resources.files("enterprise_envs.scenarios").joinpath(system)


def scenario_files(system: str) -> list[Traversable]:
    """A system's scenario files, sorted by name: its folder's, then each subfolder's.

    A subfolder groups scenarios the system plays first in a world of several (``itsm/workplace/``
    holds the cross-system ones whose ids are ``itsm.workplace.<name>``).
    """
    folder = content_folder(system)
    if not folder.is_dir():
        return []

    def files(where: Traversable) -> list[Traversable]:
        entries = (
            entry
            for entry in where.iterdir()
            if entry.is_file()
            and entry.name.endswith(".toml")
            and entry.name not in (POLICY_FILE, SUITES_FILE)
        )
        return sorted(entries, key=lambda e: e.name)

    subfolders = sorted(
        (entry for entry in folder.iterdir() if entry.is_dir() and not entry.name.startswith(("_", "."))),
        key=lambda e: e.name,
    )
    return [*files(folder), *(entry for sub in subfolders for entry in files(sub))]


def load_scenarios(systems: Iterable[str]) -> dict[str, Scenario]:
    """Every scenario of the given systems, by id.

    Raises:
        ScenarioError: A file is invalid, or two files share an id.
    """
    found: dict[str, Scenario] = {}
    for system in systems:
        folder = str(content_folder(system))
        for entry in scenario_files(system):
            # Named from the system's folder down (itsm/workplace/onboarding.toml).
            where = str(entry)[len(folder) :].lstrip("/\\") if str(entry).startswith(folder) else entry.name
            scenario = parse_scenario(entry.read_text(encoding="utf-8"), f"{system}/{where}")
            if scenario.id in found:
                raise ScenarioError(f"duplicate scenario id {scenario.id!r} ({system}/{where})")
            found[scenario.id] = scenario
    return found


@cache
def instructions(system: str) -> str:
    """The agent's policy text (the service desk's runbook) for a system."""
    return content_folder(system).joinpath("instructions.md").read_text(encoding="utf-8")


@cache
def system_policy(system: str) -> Policy:
    """The runbook rules every episode of a system is checked against (``<system>/policy.toml``)."""
    path = content_folder(system).joinpath(POLICY_FILE)
    if not path.is_file():
        return Policy()
    return Policy.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))


@cache
def world_policy(systems: tuple[str, ...]) -> Policy:
    """The runbook rules of a world of ``systems``: each system's, tables named as the world names them."""
    if len(systems) == 1:
        return system_policy(systems[0])
    rules: list[Any] = []
    entitled: list[Any] = []
    people: list[Any] = []
    for system in systems:
        data = system_policy(system).model_dump(exclude_none=True)
        data = policy_in_world_names(data, lambda name, system=system: qualify(system, name))
        # Rule ids name their system, as tools do (two runbooks may both say "no_secrets").
        rules += [{**rule, "id": tool_name(system, rule["id"], systems)} for rule in data.get("rules", [])]
        entitled += data.get("entitled", [])
        # The caller has a record in each system that keeps people: every one of them is theirs.
        people += data.get("person", [])
    return Policy.model_validate({"rules": rules, "entitled": entitled, "person": people})
