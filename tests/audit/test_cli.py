"""``enterprise-envs audit``: table, JSON, --explain and the exit status."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enterprise_envs.cli import main


def test_audit_prints_a_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["audit", "--scenario", "itsm.reopen_resolved", "--seeds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("scenario") and "itsm.reopen_resolved" in out
    assert "yield: 1/1 scenarios passed every check" in out


def test_audit_json_and_out_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "audit.json"
    code = main(["audit", "--scenario", "itsm.add_info", "--seeds", "1", "--probe", "minus_write", "--json",
                 "--out", str(out_file)])  # fmt: skip
    assert code == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["probes"] == ["minus_write"] and printed["yield"] == 1.0
    assert json.loads(out_file.read_text())["scenarios"][0]["scenario"] == "itsm.add_info"


def test_strict_explain_fails_and_shows_the_diff_against_the_expectation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # same_row is advisory: resolving the right incident while wiping its description passes today.
    args = [
        "--scenario",
        "itsm.resolve_with_kb",
        "--seeds",
        "1",
        "--probe",
        "same_row",
        "--strict",
        "--explain",
    ]
    code = main(["audit", *args])
    assert code == 1
    out = capsys.readouterr().out
    assert "false_positive: itsm.resolve_with_kb seed 0 (typed) same_row[" in out
    assert "trajectory:" in out and "verdict: PASS" in out and "against the oracle:" in out
