"""Smoke test of `enterprise-envs bench --quick`: every figure is produced and finite.

Timings are never asserted (machines differ); only that each figure exists, its summary is a
finite number, budgets carry a PASS/MISS status and ratios to the in-run floors are present.
"""

from __future__ import annotations

import json
import math

import pytest

from enterprise_envs.bench import GROUPS, Report, percentile, run_bench
from enterprise_envs.cli import build_parser, main

EXPECTED = {
    "restore.tiny",
    "restore.default",
    "reset.tiny",
    "reset.default",
    "tool.typed.read",
    "tool.typed.write",
    "tool.rest.read",
    "tool.rest.write",
    "step.tool",
    "step.message",
    "worst.message",
    "worst.argument",
    "verify.tiny",
    "verify.default",
    "verify.growth",
    "episodes.oracle",
    "episodes.oracle_per_cpu_s",
    "memory.per_env",
    "memory.per_1000_episodes",
    "mcp.calls_per_s",
    "mcp.calls_per_cpu_s",
    "mcp.call_latency",
    "baseline.sqlite_lookup",
    "baseline.deserialize.tiny",
    "baseline.deserialize.default",
    "baseline.cartpole_step",
}
WITH_RATIO = {
    "restore.tiny": "baseline.deserialize.tiny",
    "restore.default": "baseline.deserialize.default",
    "reset.tiny": "baseline.deserialize.tiny",
    "reset.default": "baseline.deserialize.default",
    "tool.typed.read": "baseline.sqlite_lookup",
    "tool.typed.write": "baseline.sqlite_lookup",
    "tool.rest.read": "baseline.sqlite_lookup",
    "tool.rest.write": "baseline.sqlite_lookup",
    "step.tool": "baseline.cartpole_step",
    "step.message": "baseline.cartpole_step",
    "mcp.call_latency": "tool.typed.read",
}
WITH_BUDGET = {
    "reset.default",
    "tool.typed.read",
    "tool.typed.write",
    "worst.message",
    "worst.argument",
    "verify.tiny",
    "verify.default",
    "verify.growth",
    "episodes.oracle_per_cpu_s",
    "memory.per_env",
    "mcp.calls_per_cpu_s",
}


@pytest.fixture(scope="module")
def report() -> Report:
    return run_bench(quick=True)


def test_every_figure_is_produced_and_finite(report: Report) -> None:
    data = json.loads(report.to_json())  # the JSON output round-trips
    figures = {figure["name"]: figure for figure in data["figures"]}
    assert set(figures) == EXPECTED
    for name, figure in figures.items():
        assert figure["n"] >= 1, name
        assert figure["n"] == len(figure["samples"]), name
        for key in ("p50", "p90", "min", "max", "iqr"):
            assert math.isfinite(figure[key]), (name, key)
        assert figure["min"] <= figure["p50"] <= figure["p90"] <= figure["max"], name
        assert figure["min"] > 0 or name.startswith("memory."), name  # RSS may not move in a chunk


def test_ratios_and_budgets_are_reported(report: Report) -> None:
    for name, floor in WITH_RATIO.items():
        figure = report.figure(name)
        assert figure.baseline == floor
        assert figure.ratio is not None and math.isfinite(figure.ratio) and figure.ratio > 0, name
    for figure in report.figures:
        assert figure.status == ("" if figure.budget is None else figure.status)
        if figure.name in WITH_BUDGET:
            assert figure.status in ("PASS", "MISS"), figure.name
        else:
            assert figure.status == "", figure.name


def test_table_lists_every_figure(report: Report) -> None:
    text = report.to_text()
    for name in EXPECTED:
        assert f"| {name} " in text
    assert "Budget misses:" in text
    assert "n/a" not in text


def test_episodes_and_mcp_did_real_work(report: Report) -> None:
    episodes = report.figure("episodes.oracle")
    assert episodes.extra["outcomes"].get("success", 0) == episodes.extra["scenarios"]
    mcp = report.figure("mcp.calls_per_s")
    assert mcp.extra["calls"] > 0 and mcp.extra["internal_errors"] == 0
    assert report.figure("verify.default").extra["changes"] >= 1  # after one write
    assert report.figure("restore.default").extra["restored_by"] == "rollback"
    assert report.figure("memory.per_1000_episodes").extra["episodes"] == 4 * episodes.extra["scenarios"]
    worst = report.figure("worst.message")
    assert worst.budget_on == "max" and worst.extra["shapes"] == len(worst.samples) >= 20
    assert ":" in worst.extra["slowest"] and report.figure("worst.argument").extra["calls"] >= 8


def test_only_selects_groups_and_keeps_baselines(capsys: pytest.CaptureFixture[str], tmp_path) -> None:
    out = tmp_path / "bench.json"
    assert main(["bench", "--quick", "--only", "verify", "--json", "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert json.loads(out.read_text()) == printed
    names = {figure["name"] for figure in printed["figures"]}
    assert {"verify.tiny", "verify.default", "verify.growth"} <= names
    assert not any(name.startswith(("reset.", "tool.", "mcp.")) for name in names)
    assert "baseline.sqlite_lookup" in names


def test_cli_arguments() -> None:
    args = build_parser().parse_args(["bench", "--only", "reset", "tool", "--only", "mcp"])
    assert args.only == ["reset", "tool", "mcp"] and not args.quick and not args.json
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bench", "--only", "nonsense"])
    assert set(GROUPS) >= {
        "reset",
        "tool",
        "step",
        "worst",
        "verify",
        "episodes",
        "memory",
        "mcp",
        "baselines",
    }


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([5.0], 0.9) == 5.0
    assert math.isnan(percentile([], 0.5))
