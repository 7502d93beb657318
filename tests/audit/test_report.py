"""The report: table, JSON, yield and exit status, from hand-made audits."""

from __future__ import annotations

import json

from enterprise_envs.verifiers.audit import AuditReport, Finding, ScenarioAudit
from enterprise_envs.verifiers.audit.report import merge


def _audit(name: str, *kinds: str) -> ScenarioAudit:
    audit = ScenarioAudit(name, ["typed"], [0, 1])
    audit.oracle.add(True)
    audit.oracle.add(True)
    audit.necessity.add(True)
    audit.probe("no_op").add("rejected")
    audit.probe("bulk").add("equivalent")
    for kind in kinds:
        finding = Finding(
            kind,
            name,
            1,
            "typed",
            "bulk[edit incident x3]",
            [{"end": True}],
            {"passed": True},
            "verdict: PASS",
        )
        (
            audit.tolerated
            if kind == "tolerated"
            else audit.advisory
            if kind == "advisory"
            else audit.findings
        ).append(finding)
        if kind == "false_positive":
            audit.probe("bulk").add("accepted")
    return audit


def test_yield_and_exit_status() -> None:
    good = AuditReport([_audit("itsm.a", "tolerated", "advisory"), _audit("itsm.b")], ["no_op", "bulk"])
    assert good.yield_rate == 1.0 and good.exit_status == 0
    bad = AuditReport([_audit("itsm.a"), _audit("itsm.b", "false_positive")], ["no_op", "bulk"])
    assert bad.yield_rate == 0.5 and bad.exit_status == 1
    assert [a.scenario for a in bad.passed] == ["itsm.a"]
    assert AuditReport([], ["no_op"]).exit_status == 1  # nothing audited is not a pass


def test_text_table_lists_rates_findings_and_yield() -> None:
    audits = [_audit("itsm.b", "false_positive"), _audit("itsm.a", "tolerated")]
    report = AuditReport(audits, ["no_op", "bulk"], advisory={"bulk": "why"})
    text = report.to_text()
    header, first = text.splitlines()[:2]
    assert header.split()[:4] == ["scenario", "oracle", "needed", "alt"] and "bulk*" in header
    assert "2/2" in first and "1/1" in first
    assert "yield: 1/2 scenarios passed every check (50%)" in text
    assert "false_positive: itsm.b seed 1 (typed) bulk[edit incident x3]" in text
    assert "tolerated (1)" in text
    explained = report.to_text(explain=True)
    assert "trajectory:" in explained and "verdict: PASS" in explained


def test_json_round_trips_and_merge_sorts_scenarios() -> None:
    report = merge(
        [
            AuditReport([_audit("itsm.b")], ["no_op"]),
            AuditReport([_audit("itsm.a", "false_positive")], ["no_op"]),
        ]
    )
    data = json.loads(report.to_json())
    assert [s["scenario"] for s in data["scenarios"]] == ["itsm.a", "itsm.b"]
    assert data["yield"] == 0.5 and data["audited"] == 2
    first = data["scenarios"][0]
    assert first["oracle_pass_rate"] == 1.0 and first["necessity_rate"] == 1.0
    assert first["probes"]["no_op"] == {
        "rejected": 1,
        "accepted": 0,
        "equivalent": 0,
        "tolerated": 0,
        "invalid": 0,
        "rate": 1.0,
    }
    assert first["findings"][0]["kind"] == "false_positive"
