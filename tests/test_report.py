"""``enterprise-envs report``: pass^k, bootstrap intervals, breakdowns, cost, and the three renderings."""

from __future__ import annotations

import argparse
import io
import itertools
import json
import math
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from enterprise_envs import registry
from enterprise_envs.report import (
    DIMENSIONS,
    ReportInputError,
    Task,
    add_report_command,
    build_report,
    load_episodes,
    pass_hat_k,
    pass_k_curve,
    render_html,
    render_json,
    render_text,
    run_report,
)
from enterprise_envs.runner import run

HOSTILE = "<script>alert(1)</script>"
#: Episode numbers of crafted records: each record a distinct episode of its run.
EPISODES = itertools.count()


def record(scenario: str, seed: int, kind: str, agent: str | None = "llm", **extra: Any) -> dict[str, Any]:
    """A record as contracts.md describes it (v2), reduced to what a report reads."""
    return {
        "record_version": 2,
        "run": {
            "id": extra.pop("run_id", "run-a"),
            "agent": None if agent is None else {"name": agent, "model": extra.pop("model", None)},
            "user": {"backend": "rules", "model": None, "base_url": None},
        },
        "episode": extra.pop("episode", next(EPISODES)),
        "trial": extra.pop("trial", 0),
        "seed": seed,
        "scenario": scenario,
        "tags": extra.pop("tags", ["lookup"]),
        "systems": extra.pop("systems", ["itsm"]),
        "surface": extra.pop("surface", "typed"),
        "persona_variant": extra.pop("persona_variant", "base"),
        "user_backend": "rules",
        "outcome": {
            "kind": kind,
            "reason": extra.pop("reason", "verified" if kind == "success" else "not met"),
        },
        "reward": 1.0 if kind == "success" else 0.0,
        "steps": extra.pop("steps", 4),
        "tool_calls": extra.pop("tool_calls", 2),
        "seconds": extra.pop("seconds", 0.5),
        **extra,
    }


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def trials(scenario: str, seed: int, kinds: str, **extra: Any) -> list[dict[str, Any]]:
    """One record a trial: ``kinds`` spells the outcomes, s(uccess), f(ailure), i(nvalid)."""
    names = {"s": "success", "f": "failure", "i": "invalid"}
    return [record(scenario, seed, names[k], trial=t, **extra) for t, k in enumerate(kinds)]


def report_of(tmp_path: Path, records: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    episodes, inputs = load_episodes([write_jsonl(tmp_path / "runs.jsonl", records)])
    return build_report(episodes, inputs, **options)


def row(report: dict[str, Any], dimension: str, value: str, agent: str = "llm") -> dict[str, Any]:
    (found,) = [r for r in report["breakdowns"][dimension] if r["value"] == value and r["agent"] == agent]
    return found


def test_pass_hat_k_is_the_unbiased_estimator() -> None:
    assert pass_hat_k(2, 3, 1) == pytest.approx(2 / 3)
    assert pass_hat_k(2, 3, 2) == pytest.approx(1 / 3)
    assert pass_hat_k(2, 3, 3) == 0
    assert pass_hat_k(3, 3, 3) == 1
    with pytest.raises(ValueError):
        pass_hat_k(1, 2, 3)


def test_pass_k_of_a_crafted_set_matches_hand_computed_values(tmp_path: Path) -> None:
    # a.0: 2 of 3, a.1: 3 of 3, b.0: 1 of 2 (b.0 drops out at k = 3).
    records = trials("a", 0, "ssf") + trials("a", 1, "sss") + trials("b", 0, "fs")
    curve = row(report_of(tmp_path, records), "agent", "llm")["pass_k"]
    assert [entry["k"] for entry in curve] == [1, 2, 3]
    assert curve[0]["estimate"] == pytest.approx((2 / 3 + 1 + 1 / 2) / 3, abs=1e-6)
    assert curve[1]["estimate"] == pytest.approx((1 / 3 + 1 + 0) / 3, abs=1e-6)
    assert curve[2]["estimate"] == pytest.approx((0 + 1) / 2, abs=1e-6)
    assert [(e["tasks"], e["scenarios"]) for e in curve] == [(3, 2), (3, 2), (2, 1)]


def test_invalid_episodes_are_counted_but_are_not_trials(tmp_path: Path) -> None:
    report = report_of(tmp_path, trials("a", 0, "ssi") + trials("a", 1, "fi"))
    family = row(report, "scenario", "a")
    assert (family["success"], family["failure"], family["invalid"]) == (2, 1, 2)
    assert family["invalid_rate"] == pytest.approx(2 / 5)
    # a.0 has 2 valid trials, both successes; a.1 one failure: pass^1 = (1 + 0) / 2, pass^2 = 1 / 1.
    assert [e["estimate"] for e in family["pass_k"]] == [0.5, 1.0]
    assert family["pass_k"][1]["tasks"] == 1


def test_intervals_contain_the_estimate_and_vanish_when_every_scenario_has_the_same_rate() -> None:
    mixed = [
        Task("a", 2, 2),
        Task("a", 2, 1),
        Task("b", 2, 0),
        Task("c", 2, 2),
        Task("d", 2, 1),
        Task("e", 2, 0),
    ]
    for entry in pass_k_curve(mixed, bootstrap=500):
        assert entry["low"] <= entry["estimate"] <= entry["high"]
        assert entry["low"] < entry["high"]
    # Each family passes half its trials (in different ways): resampling families changes nothing.
    same = [Task("a", 2, 1), Task("b", 2, 2), Task("b", 2, 0), Task("c", 2, 1), Task("c", 2, 1)]
    first = pass_k_curve(same, bootstrap=500)[0]
    assert first["low"] == first["estimate"] == first["high"] == 0.5


def test_a_single_family_resamples_its_tasks(tmp_path: Path) -> None:
    records = [r for seed, kinds in enumerate(["s", "f", "s", "f", "s"]) for r in trials("a", seed, kinds)]
    first = row(report_of(tmp_path, records), "scenario", "a")["pass_k"][0]
    assert first["estimate"] == 0.6 and first["low"] < 0.6 < first["high"]


def test_groups_by_every_dimension_keep_agents_apart(tmp_path: Path) -> None:
    records = [
        record("itsm.a", 0, "success", tags=["create", "lookup"], systems=["itsm", "chat"], model="m-1"),
        record("itsm.a", 1, "failure", tags=["create", "lookup"], systems=["itsm", "chat"], model="m-1"),
        record("chat.b", 0, "success", tags=["refusal"], systems=["chat"], surface="rest", model="m-1"),
        record("chat.b", 0, "failure", agent="oracle", tags=["refusal"], persona_variant=None),
        record("chat.b", 1, "success", agent=None, tags=["refusal"], persona_variant="terse"),
    ]
    report = report_of(tmp_path, records, bootstrap=50)
    breakdowns = report["breakdowns"]
    assert set(breakdowns) == {dimension for dimension, _, _ in DIMENSIONS}
    assert report["agents"] == ["llm/m-1", "oracle", "unknown"]

    def keys(dimension: str) -> set[tuple[str, str]]:
        return {(r["agent"], r["value"]) for r in breakdowns[dimension]}

    assert keys("overall") == {("all", "all")}
    assert keys("tag") == {
        ("llm/m-1", "create"), ("llm/m-1", "lookup"), ("llm/m-1", "refusal"),
        ("oracle", "refusal"), ("unknown", "refusal"),
    }  # fmt: skip
    assert keys("system") == {
        ("llm/m-1", "itsm"),
        ("llm/m-1", "chat"),
        ("oracle", "itsm"),
        ("unknown", "itsm"),
    }
    assert keys("surface") == {
        ("llm/m-1", "typed"),
        ("llm/m-1", "rest"),
        ("oracle", "typed"),
        ("unknown", "typed"),
    }
    assert ("oracle", "(none)") in keys("persona_variant") and ("unknown", "terse") in keys("persona_variant")
    assert keys("user_backend") == {("llm/m-1", "rules"), ("oracle", "rules"), ("unknown", "rules")}
    assert row(report, "system", "chat", "llm/m-1")["episodes"] == 3
    assert row(report, "tag", "create", "llm/m-1")["pass_k"][0]["estimate"] == 0.5
    assert breakdowns["overall"][0]["episodes"] == 5 and report["inputs"]["tasks"] == 5


def test_trials_come_from_several_files_and_a_file_read_twice_is_not_more_trials(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "one.jsonl", [record("a", 0, "success", run_id="r1")])
    second = write_jsonl(tmp_path / "two.jsonl", [record("a", 0, "failure", run_id="r2")])
    episodes, inputs = load_episodes([first, second, first])
    report = build_report(episodes, inputs, bootstrap=10)
    curve = row(report, "agent", "llm")["pass_k"]
    assert [e["estimate"] for e in curve] == [0.5, 0.0]
    assert report["inputs"]["duplicates_skipped"] == 1 and report["inputs"]["records"] == 3


def test_records_of_todays_runner_and_v1_records_are_read(tmp_path: Path) -> None:
    oracle, random = tmp_path / "oracle.jsonl", tmp_path / "random.jsonl"
    run("ITSM-v0", "oracle", 3, seed=0, out=oracle, progress=None)
    run("ITSM-v0", "random", 3, seed=0, out=random, progress=None)
    episodes, inputs = load_episodes([oracle, random], agent_by_file=True)
    report = build_report(episodes, inputs, bootstrap=100)
    assert report["agents"] == ["oracle", "random"]
    assert row(report, "agent", "oracle", "oracle")["pass_k"][0]["estimate"] == 1.0
    assert row(report, "agent", "random", "random")["success"] == 0
    # Without run.agent and without --agent-by-file, the agent is unknown (v1 records).
    v1 = {key: value for key, value in json.loads(oracle.read_text().splitlines()[0]).items()}
    for key in ("record_version", "run", "tags", "turns", "budget", "trial", "episode"):
        v1.pop(key, None)
    (episode,), _ = load_episodes([write_jsonl(tmp_path / "v1.jsonl", [v1])])
    assert episode.agent == "unknown"
    assert episode.tags == tuple(registry.scenarios()[v1["scenario"]].tags) != ()


GOOD = '"scenario": "a", "seed": 1, "outcome": {"kind": "success"}'


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{" + GOOD + "}\n{not json\n", "runs.jsonl:2: not JSON"),
        ('{"scenario": "a", "outcome": {"kind": "success"}}\n', "runs.jsonl:1: record has no seed"),
        (
            '{"scenario": "a", "seed": 1, "outcome": {"kind": "won"}}\n',
            "runs.jsonl:1: record has no outcome.kind",
        ),
        ('\n{"seed": 1, "outcome": {"kind": "success"}}\n', "runs.jsonl:2: record has no scenario"),
        ("[1, 2]\n", "runs.jsonl:1: not a JSON object"),
        ("{" + GOOD + ', "systems": "itsm"}\n', "runs.jsonl:1: systems is not a list of strings"),
        ("{" + GOOD + ', "budget": {"tokens": {"used": "x"}}}\n', "runs.jsonl:1: budget.tokens.used"),
        ("\n\n", "no records in"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ReportInputError) as caught:
        load_episodes([path])
    assert message in str(caught.value) and "\n" not in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_the_command_exits_2_with_one_line_on_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    parser = argparse.ArgumentParser(prog="enterprise-envs")
    add_report_command(parser.add_subparsers(dest="command"))
    missing = tmp_path / "missing.jsonl"
    args = parser.parse_args(["report", str(missing)])
    assert args.run(args) == 2
    error = capsys.readouterr().err
    assert error == f"enterprise-envs report: {missing}: no such file\n"
    good = write_jsonl(tmp_path / "good.jsonl", trials("a", 0, "sf"))
    unwritable = tmp_path / "no-such-folder" / "page.html"
    args = parser.parse_args(["report", str(good), "--html", str(unwritable), "--bootstrap", "20"])
    assert args.run(args) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"enterprise-envs report: {unwritable}: cannot write") and error.count("\n") == 1
    args = parser.parse_args(["report", str(good), "--json", "--bootstrap", "20"])
    assert args.run(args) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["bootstrap"] == 20


def hostile_records() -> list[dict[str, Any]]:
    records = trials(HOSTILE, 0, "sfs", reason=f"reason {HOSTILE}") + trials("b&c", 1, "fi", tags=[HOSTILE])
    records += trials("itsm.x", 0, "ss", agent=HOSTILE)
    return records


def test_renders_are_deterministic(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "runs.jsonl", hostile_records() + trials("d", 3, "sfsf"))
    outputs = []
    for _ in range(2):
        json_out, text_out = io.StringIO(), io.StringIO()
        html_path = tmp_path / f"page{len(outputs)}.html"
        run_report([path], html_out=html_path, as_json=True, out=json_out, bootstrap=200)
        episodes, inputs = load_episodes([path])
        render_text(build_report(episodes, inputs, bootstrap=200), text_out, width=120)
        outputs.append((json_out.getvalue(), text_out.getvalue(), html_path.read_bytes()))
    assert outputs[0] == outputs[1]
    assert "\x1b[" not in outputs[0][1]  # no terminal codes when not a terminal
    assert "pass^k by agent" in outputs[0][1] and "By scenario family" in outputs[0][1]


def test_json_round_trips_with_stable_keys(tmp_path: Path) -> None:
    report = report_of(tmp_path, hostile_records(), bootstrap=50)
    text = render_json(report)
    assert json.loads(text) == report
    assert set(report) == {"report_version", "inputs", "settings", "agents", "breakdowns", "reasons", "cost"}
    assert set(report["breakdowns"]["scenario"][0]) == {
        "agent", "value", "episodes", "tasks", "scenarios", "success", "failure", "invalid", "invalid_rate",
        "pass_k",
    }  # fmt: skip
    assert set(report["breakdowns"]["scenario"][0]["pass_k"][0]) == {
        "k", "estimate", "low", "high", "tasks", "scenarios",
    }  # fmt: skip


class Page(HTMLParser):
    """Elements, attributes and text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attributes: list[tuple[str, str, str | None]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes += [(tag, name, value) for name, value in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_html_is_one_self_contained_page_with_plots_and_escaped_strings(tmp_path: Path) -> None:
    page = render_html(report_of(tmp_path, hostile_records(), bootstrap=50))
    parsed = Page()
    parsed.feed(page)
    parsed.close()
    assert parsed.tags.count("svg") == 2 and parsed.tags.count("table") >= 8
    assert {"polyline", "rect", "circle"} <= set(parsed.tags)
    assert "script" not in parsed.tags  # the hostile id never becomes an element
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "b&amp;c" in page and "b&c" not in page
    assert HOSTILE in "".join(parsed.text)  # shown to the reader as text
    # Nothing to fetch: no src, and links only to inline data (the SVG namespace is a name).
    for tag, name, value in parsed.attributes:
        assert name != "src"
        if name == "href":
            assert value is not None and value.startswith("data:"), (tag, value)
    assert "@import" not in page and "url(" not in page


def test_cost_per_success_and_per_turn_latency(tmp_path: Path) -> None:
    turns = [{"step": 1, "action": "tool", "agent_seconds": 0.5, "env_seconds": 0.1}] * 2
    records = [
        record("a", 0, "success", budget={"tokens": {"used": 300}}, turns=turns, tool_calls=3),
        record("a", 1, "failure", budget={"tokens": {"used": 100}}, turns=turns[:1], tool_calls=1),
        record("a", 2, "invalid", budget={"tokens": {"used": None}}, tool_calls=2),
    ]
    (cost,) = report_of(tmp_path, records, bootstrap=10)["cost"]
    assert cost["tokens"] == {"episodes": 2, "total": 400.0, "per_episode": 200.0, "per_success": 400.0}
    assert cost["tool_calls"]["per_episode"] == 2.0 and cost["tool_calls"]["per_success"] == 6.0
    assert cost["turn_latency"] == {"turns": 3, "agent_seconds": 0.5, "env_seconds": 0.1}


def test_lines_end_at_newlines_only(tmp_path: Path) -> None:
    path = tmp_path / "runs.jsonl"
    first, second = (
        json.dumps(record("a", seed, "failure", reason="line\u2028separator\x85next"), ensure_ascii=False)
        for seed in (0, 1)
    )
    path.write_text(first + "\r\n" + second + "\n", encoding="utf-8")
    episodes, _ = load_episodes([path])
    assert [episode.reason for episode in episodes] == ["line\u2028separator\x85next"] * 2


def test_reasons_are_ranked_per_agent_and_outcome(tmp_path: Path) -> None:
    records = [record("a", s, "failure", reason="timeout" if s < 3 else "wrong group") for s in range(5)]
    records += [record("b", 9, "invalid", reason="agent_infrastructure")]
    reasons = report_of(tmp_path, records, bootstrap=10, top_reasons=1)["reasons"]
    assert [(r["kind"], r["reason"], r["count"]) for r in reasons] == [
        ("failure", "timeout", 3),
        ("invalid", "agent_infrastructure", 1),
    ]
    assert math.isclose(reasons[0]["share"], 0.6)
