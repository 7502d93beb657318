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


def test_strict_same_row_passes_once_the_expectation_pins_the_rest_of_the_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # same_row (advisory) edits a field no entry names on the claimed row. resolve_with_kb's change
    # entry says others = "unchanged", so every such edit now fails the verdict: no false positive.
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
    assert main(["audit", *args]) == 0
    out = capsys.readouterr().out
    assert "false_positive" not in out and "1/1 scenarios passed" in out
