"""Smoke test of `enterprise-envs bench --quick`: every figure is produced and finite.

Timings are never asserted (machines differ); only that each figure exists, its summary is a
finite number, budgets carry a PASS/MISS status and ratios to the in-run floors are present.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Mapping
from typing import Any

import pytest

from enterprise_envs.bench import (
    GROUPS,
    QUICK,
    SUITE,
    Report,
    Target,
    _lookup_figure,
    _restore_figure,
    _tool_figures,
    percentile,
    run_bench,
    target,
)
from enterprise_envs.cli import build_parser, main
from enterprise_envs.mocks._core.conventions import Call, SurfaceCalls, Workload

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
    "rest.calls_per_s",
    "rest.calls_per_cpu_s",
    "rest.call_latency",
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
    "rest.calls_per_s": "mcp.calls_per_s",
    "rest.call_latency": "mcp.call_latency",
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
    "rest.calls_per_cpu_s",
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


def test_episodes_mcp_and_rest_did_real_work(report: Report) -> None:
    episodes = report.figure("episodes.oracle")
    assert episodes.extra["outcomes"].get("success", 0) == episodes.extra["scenarios"]
    for group in ("mcp", "rest"):
        served = report.figure(f"{group}.calls_per_s")
        assert served.extra["calls"] > 0 and served.extra["internal_errors"] == 0, group
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
        "rest",
        "baselines",
    }


def test_percentile() -> None:
    assert percentile([1.0, 2.0, 3.0, 4.0], 0.5) == 2.5
    assert percentile([5.0], 0.9) == 5.0
    assert math.isnan(percentile([], 0.5))


def test_the_figures_are_driven_by_the_declared_workload(report: Report) -> None:
    """The suite's first system's workload names what is called; the bench names nothing itself."""
    measured = target()
    assert report.settings.suite == SUITE and measured.env_id == SUITE
    workload = measured.workload
    assert workload is measured.system.conventions.workload
    assert workload.table in measured.system.catalog
    table = measured.system.catalog[workload.table]
    row = {spec.name: "x" for spec in table.fields}
    for surface, calls in workload.surfaces.items():
        read, write = calls.read(row)[0], calls.write(row, "text")[0]
        assert (
            f"Backend.call({read}) on the {surface} surface"
            in report.figure(f"tool.{surface}.read").description
        )
        assert f"Backend.call({write}) on the {surface}" in report.figure(f"tool.{surface}.write").description
    assert f"JSON tool call: {workload.surfaces[workload.surface].read(row)[0]}" in (
        report.figure("step.tool").description
    )
    assert f" by {table.key_field}," in report.figure("baseline.sqlite_lookup").description
    assert f"on {SUITE}," in report.figure("reset.default").description
    with pytest.raises(KeyError):
        target("Nonsense-v0")


def _keyval_workload() -> Workload:
    """A second system's workload, declared as data here: the bench needs no code for it."""

    def entry(row: Mapping[str, Any]) -> dict[str, Any]:
        return {"space": row["space"], "name": row["name"]}

    def episode_writes(store: Any, row: Mapping[str, Any]) -> tuple[Call, ...]:
        return (
            ("put_entry", {"space": row["space"], "name": "bench-restore", "value": "new"}),
            ("put_entry", {**entry(row), "value": "changed"}),
        )

    return Workload(
        table="entry",
        where="space != 'finance'",  # a space only its owners may write
        surfaces={
            "typed": SurfaceCalls(
                read=lambda row: ("get_entry", entry(row)),
                write=lambda row, text: ("put_entry", {**entry(row), "value": text}),
            ),
            "rest": SurfaceCalls(
                read=lambda row: ("get_record", {"collection": "entry", "id": row["id"]}),
                write=lambda row, text: (
                    "update_record",
                    {"collection": "entry", "id": row["id"], "data": {"value": text}},
                ),
            ),
        },
        episode_writes=episode_writes,
        message="Which space is the entry in?",
        scenario="kv.store_value",
        call_scenario="kv.store_value",
    )


def test_a_second_system_declares_a_workload_and_needs_no_bench_code() -> None:
    from tests.kv_system import SYSTEM as KEYVAL

    workload = _keyval_workload()
    conventions = dataclasses.replace(KEYVAL.conventions, workload=workload)
    system = dataclasses.replace(KEYVAL, conventions=conventions)
    measured = Target("Keyval-v0", system, workload)
    settings = dataclasses.replace(QUICK, warmup=1, repeats=3, tool_repeats=3)
    figures = [
        *(figure for surface in workload.surfaces for figure in _tool_figures(measured, surface, settings)),
        _restore_figure(measured, "tiny", settings),
        _lookup_figure(measured, settings),
    ]
    by_name = {figure.name: figure for figure in figures}
    assert set(by_name) == {
        "tool.typed.read",
        "tool.typed.write",
        "tool.rest.read",
        "tool.rest.write",
        "restore.tiny",
        "baseline.sqlite_lookup",
    }
    assert "Backend.call(get_entry) on the typed surface" in by_name["tool.typed.read"].description
    assert "Backend.call(update_record) on the rest surface" in by_name["tool.rest.write"].description
    assert by_name["tool.typed.read"].budget == 200.0 and by_name["tool.rest.read"].budget is None
    assert by_name["restore.tiny"].extra["restored_by"] == "rollback"
    assert "one entry row by id" in by_name["baseline.sqlite_lookup"].description
    for figure in figures:
        assert len(figure.samples) == 3 and all(value > 0 for value in figure.samples), figure.name


def test_identity_suite_produces_every_figure_itsm_does(capsys: pytest.CaptureFixture[str]) -> None:
    """``--suite Identity-v0`` is benched through identity's declared workload, with ITSM's figure ids.

    The cheapest groups (reset, tool) and the baselines they need, on the quick profile.
    """
    assert main(["bench", "--quick", "--suite", "Identity-v0", "--only", "reset", "tool", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["settings"]["suite"] == "Identity-v0"
    figures = {figure["name"]: figure for figure in printed["figures"]}
    groups = ("restore.", "reset.", "tool.", "baseline.")
    assert set(figures) == {name for name in EXPECTED if name.startswith(groups)}
    for name, figure in figures.items():
        assert figure["n"] >= 1 and all(math.isfinite(figure[key]) for key in ("p50", "p90", "iqr")), name
        assert figure["min"] > 0, name
        if name in WITH_RATIO:
            assert figure["baseline"] == WITH_RATIO[name] and figure["ratio"] > 0, name
        assert figure["status"] in (("PASS", "MISS") if name in WITH_BUDGET else ("",)), name
    workload = target("Identity-v0").workload
    assert workload.table == "user" and workload.scenario == "identity.unlock_account"
    assert "Backend.call(get_user) on the typed surface" in figures["tool.typed.read"]["description"]
    assert "Backend.call(expirePassword) on the rest surface" in figures["tool.rest.write"]["description"]
    assert "on Identity-v0," in figures["reset.default"]["description"]
    assert "one user row by id" in figures["baseline.sqlite_lookup"]["description"]
    assert figures["restore.default"]["extra"]["restored_by"] == "rollback"
