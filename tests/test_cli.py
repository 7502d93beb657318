"""The command line, run in-process: list, run (JSONL), fidelity, pilot and demo."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from enterprise_envs import registry
from enterprise_envs.cli import main

RECORD_FIELDS = {
    "scenario", "scenario_version", "seed", "package_version", "spec_version", "surface", "user_backend",
    "persona_variant", "messages", "faults", "outcome", "reward", "verdict", "steps", "tool_calls", "seconds",
    "user_turns", "final_view", "spec_versions", "systems", "systems_used",
}  # fmt: skip


def test_list_names_every_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "ITSM-v0" in out
    assert all(scenario_id in out for scenario_id in registry.scenarios())


def test_run_writes_jsonl_and_fidelity_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs.jsonl"
    assert (
        main(["run", "ITSM-v0", "--agent", "oracle", "--episodes", "6", "--seed", "3", "--out", str(out)])
        == 0
    )
    summary = capsys.readouterr().out
    assert "total" in summary and "6 of 6 episodes" in summary
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 6 and [r["seed"] for r in records] == list(range(3, 9))
    for record in records:
        assert set(record) >= RECORD_FIELDS
        assert record["outcome"]["kind"] == "success" and record["reward"] == 1.0
        assert record["messages"][0]["role"] == "system"
        # An ITSM-only episode: its world holds ITSM, and the oracle's calls reached it.
        assert record["systems"] == record["systems_used"] == ["itsm"]
        assert record["spec_versions"]["itsm"] == record["spec_version"] != ""
        calls = [m for m in record["messages"] if m.get("tool_calls")]
        assert calls and all(m["tool_calls"][0]["type"] == "function" for m in calls)
    assert main(["fidelity", str(out)]) == 0  # integrity metrics all zero for the rule user
    assert "leak_rate" in capsys.readouterr().out
    assert main(["fidelity", "--json", str(out)]) == 0
    metrics = json.loads(capsys.readouterr().out)["metrics"]
    turns = sum(len([m for m in r["messages"] if m["role"] == "user"]) for r in records)
    # The records carry the turn records and final views, so these are measured, not n/a.
    assert metrics["guard_hit_rate"]["total"] == turns and metrics["false_stop_rate"]["total"] == 6
    # A leaking user fails the gate: a later answer (facts told when asked) moved into the opening.
    leaky, answer = next(
        (record, turn["text"]) for record in records for turn in record["user_turns"][1:] if turn["disclosed"]
    )
    opening = next(m for m in leaky["messages"] if m["role"] == "user")
    opening["content"] += " " + answer
    (tmp_path / "leaky.jsonl").write_text(json.dumps(leaky) + "\n")
    assert main(["fidelity", str(tmp_path / "leaky.jsonl")]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_random_agent_runs_and_mostly_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "random.jsonl"
    assert main(["run", "ITSM-v0", "--agent", "random", "--episodes", "5", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert all(record["outcome"]["kind"] in ("failure", "success") for record in records)
    assert sum(record["reward"] for record in records) <= 1


def test_pilot_lists_unanswered_questions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["pilot", "itsm.report_incident", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unanswered"], "the probes ask things no persona item covers"
    assert report["fidelity"]["integrity_ok"] is True


def test_demo_plays_verified_episodes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--episodes", "2"]) == 0
    out = capsys.readouterr().out
    assert "2/2 episodes verified as success" in out and "user:" in out


def test_fidelity_redraws_the_personas_of_a_whole_suite_run(tmp_path: Path) -> None:
    from enterprise_envs.simulator_tools import transcripts_from_runs

    out = tmp_path / "suite.jsonl"
    assert main(["run", "ITSM-v0", "--episodes", "4", "--seed", "11", "--out", str(out)]) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    transcripts = transcripts_from_runs(out)
    for record, transcript in zip(records, transcripts, strict=True):
        # The re-drawn persona is the one that was played: its first message is the opening.
        assert transcript.messages[0].text == record["messages"][1]["content"]
        assert transcript.persona.variant == record["persona_variant"]


def test_a_reader_that_goes_away_ends_the_command_quietly() -> None:
    """`enterprise-envs list | head -1`: the closed pipe ends the command without a traceback."""
    import subprocess
    import sys

    script = (
        "import sys, time; time.sleep(1.0); from enterprise_envs.cli import main; sys.exit(main(['list']))"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    process.stdout.close()  # the reader leaves before the command writes
    _, errors = process.communicate(timeout=60)
    assert process.returncode == 1 and b"Traceback" not in errors, errors.decode()


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["audit", "--scenario", "nope", "--seeds", "1"], "no scenario or tag 'nope'"),
        (["run", "ITSM-v0", "--scenario", "chat.thread_reply"], "no scenario or tag 'chat.thread_reply'"),
        (["demo", "--scenario", "nope"], "no scenario or tag 'nope'"),
        (["pilot", "nope"], "no scenario or tag 'nope'"),
        (["run", "ITSM-v0", "--faults", "{bad"], "--faults is not JSON"),
        (["run", "ITSM-v0", "--faults", "[1]"], "a JSON object"),
        (["run", "Nope-v0"], "unknown environment 'Nope-v0'"),
        (["bench", "--suite", "Nope-v0", "--quick"], "unknown environment 'Nope-v0'"),
    ],
)
def test_a_bad_command_line_is_one_line_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Checked before any work starts: no traceback, nothing written.
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"enterprise-envs {argv[0]}: ") and says in captured.err
    assert len(captured.err.strip().splitlines()) == 1
