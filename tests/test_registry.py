"""The registry: suites are data (scenarios/suites.toml), checked against what is shipped."""

from __future__ import annotations

import pytest

from enterprise_envs import registry

GOOD = """
[[suite]]
id = "ITSM-v0"
description = "Service desk"
systems = ["itsm"]
scenarios = ["itsm.*"]
"""


def test_the_shipped_suites_serve_every_scenario() -> None:
    suites = registry.suites()
    assert list(suites) == ["ITSM-v0"]
    assert {s.id for s in registry.select(None)} == set(registry.scenarios())
    assert all(registry.suite_serving(sid).env_id == "ITSM-v0" for sid in registry.scenarios())
    assert registry.suite("enterprise_envs/ITSM-v0") is suites["ITSM-v0"]


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
    ],
)
def test_a_broken_suites_file_is_refused(
    text: str, systems: list[str], scenarios: list[str], problem: str
) -> None:
    with pytest.raises(ValueError) as raised:
        registry.check_suites(registry.parse_suites(text), systems, scenarios)
    assert problem in str(raised.value)
