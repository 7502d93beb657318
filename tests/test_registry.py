"""The registry: suites are data (scenarios/suites.toml), checked against what is shipped."""

from __future__ import annotations

from pathlib import Path

import pytest

from enterprise_envs import registry
from enterprise_envs.scenarios.loader import SUITES_FILE

SHIPPED_SUITES = Path(__file__).resolve().parents[1] / "scenarios" / SUITES_FILE

GOOD = """
[[suite]]
id = "ITSM-v0"
description = "Service desk"
systems = ["itsm"]
scenarios = ["itsm.*"]
"""


def test_the_shipped_suites_serve_every_scenario() -> None:
    declared = registry.parse_suites(SHIPPED_SUITES.read_text(encoding="utf-8"))
    suites = registry.suites()
    assert declared and all(suites[env_id] == suite for env_id, suite in declared.items())
    if not registry.plugins():
        assert list(suites) == list(declared)  # the file's suites, in the file's order
    assert {s.id for s in registry.select(None)} == set(registry.scenarios())
    for sid, scenario in registry.scenarios().items():
        serving = [suite for suite in suites.values() if suite.serves(sid, scenario.systems)]
        assert serving and registry.suite_serving(sid) is serving[0], sid
        # The suite it is played in may hold every system it needs.
        assert set(scenario.systems) <= set(serving[0].systems), (sid, serving[0].env_id)
    for env_id, suite in suites.items():
        assert registry.suite(env_id) is registry.suite(f"{registry.NAMESPACE}/{env_id}") is suite
        assert registry.select(suite), env_id  # no suite is empty


def test_a_suite_serves_what_its_globs_match() -> None:
    found = registry.parse_suites(GOOD.replace('["itsm.*"]', '["itsm.report_*", "itsm.status_check"]'))
    suite = found["ITSM-v0"]
    assert suite.serves("itsm.report_incident") and suite.serves("itsm.status_check")
    assert not suite.serves("itsm.escalate")
    chosen = registry.select(suite)
    assert [s.id for s in chosen] == ["itsm.report_incident", "itsm.status_check"]


@pytest.mark.parametrize(
    ("text", "systems", "scenarios", "problem"),
    [
        (GOOD + GOOD, ["itsm"], ["itsm.a"], "duplicate suite id 'ITSM-v0'"),
        (GOOD.replace('description = "Service desk"\n', ""), ["itsm"], ["itsm.a"], "lacks 'description'"),
        (GOOD, ["chat"], ["itsm.a"], "names unknown systems ['itsm']"),
        (GOOD, ["itsm"], ["chat.a"], "'itsm.*' matches no scenario"),
        (GOOD, ["itsm"], ["itsm.a", "chat.b"], "no suite serves ['chat.b']"),
        # A glob matching only scenarios that need a system the suite lacks serves nothing.
        (GOOD, ["itsm", "chat"], ["itsm.workplace.a"], "'itsm.*' matches no scenario"),
    ],
)
def test_a_broken_suites_file_is_refused(
    text: str, systems: list[str], scenarios: list[str], problem: str
) -> None:
    # Each scenario needs the system its id starts with; a ``workplace`` one needs chat too.
    needs = {
        sid: (sid.split(".")[0], "chat") if ".workplace." in sid else (sid.split(".")[0],)
        for sid in scenarios
    }
    with pytest.raises(ValueError) as raised:
        registry.check_suites(registry.parse_suites(text), systems, needs)
    assert problem in str(raised.value)


def test_a_suite_serves_only_scenarios_whose_systems_it_holds() -> None:
    suite = registry.parse_suites(GOOD)["ITSM-v0"]
    assert suite.serves("itsm.report_incident", ["itsm"])
    assert not suite.serves("itsm.workplace.onboarding", ["itsm", "identity", "chat"])
