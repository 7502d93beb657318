"""`run`: concurrent episodes in serial order, complete records that validate against the published
schema, refused actions kept as context, truncation verdicts, exit statuses, and a clean stop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import jsonschema
import pytest

from enterprise_envs.cli import main
from enterprise_envs.records import heard, stable_part
from enterprise_envs.runner import AGENTS, EXIT_INTERRUPTED, EXIT_INVALID, run
from enterprise_envs.schemas import PUBLISHED

SCHEMA = json.loads(PUBLISHED["trajectory"][0].read_text(encoding="utf-8"))


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _validate(records: list[dict]) -> None:
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for record in records:
        errors = sorted(validator.iter_errors(record), key=lambda error: list(error.path))
        assert not errors, [f"{list(error.path)}: {error.message}" for error in errors[:3]]


@pytest.mark.parametrize("env_id", ["ITSM-v0", "Workplace-v0"])
def test_concurrent_runs_write_what_a_serial_run_writes(env_id: str, tmp_path: Path) -> None:
    serial, concurrent = tmp_path / "serial.jsonl", tmp_path / "jobs.jsonl"
    run(env_id, "random", 6, seed=11, out=serial, jobs=1)
    summary = run(env_id, "random", 6, seed=11, out=concurrent, jobs=3)
    first, second = _records(serial), _records(concurrent)
    assert [r["seed"] for r in second] == list(range(11, 17)) and summary.exit_status == 0
    assert [stable_part(r) for r in first] == [stable_part(r) for r in second]
    assert {r["run"]["jobs"] for r in second} == {3} and len({r["run"]["id"] for r in first + second}) == 2
    _validate(first + second)


def test_a_record_carries_what_training_needs(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    run("ITSM-v0", "oracle", 2, seed=5, out=out, trials=2, env_kwargs={"scenario": "itsm.report_incident"})
    records = _records(out)
    _validate(records)
    assert [(r["episode"], r["trial"], r["seed"]) for r in records] == [
        (0, 0, 5),
        (0, 1, 5),
        (1, 0, 6),
        (1, 1, 6),
    ]
    record = records[0]
    assert record["run"]["make"]["scenario"] == ["itsm.report_incident"] and record["run"]["trials"] == 2
    assert record["run"]["user"] == {"backend": "rules", "model": None, "base_url": None}
    assert {tool["function"]["name"] for tool in record["tools"]} >= {
        call["function"]["name"] for m in record["messages"] for call in m.get("tool_calls") or []
    }
    calls = [call["id"] for m in record["messages"] for call in m.get("tool_calls") or []]
    answered = [m["tool_call_id"] for m in record["messages"] if m["role"] == "tool"]
    assert calls == answered and calls  # every call answered, by its id, in order
    assert all(m["target"] is True for m in record["messages"] if m["role"] == "assistant")
    assert record["budget"]["steps"]["used"] == record["steps"] == len(record["turns"])
    assert record["outcome"]["kind"] == "success" and record["terminated"] and not record["truncated"]
    assert record["started"] <= record["finished"] and record["seconds"] > 0
    assert stable_part(records[0]) == {**stable_part(records[1]), "trial": 0}  # the oracle repeats itself


class _Clumsy:
    """An agent that first sends something that is not an action, then gives up."""

    def reset(self, env, info) -> None:
        self.moves = iter(["{'tool': oops", {"end": True}])

    def act(self, observation):
        return next(self.moves)


def test_refused_actions_are_kept_as_context_and_not_heard(tmp_path: Path) -> None:
    AGENTS["clumsy"] = lambda seed, **options: _Clumsy()
    try:
        out = tmp_path / "runs.jsonl"
        run("ITSM-v0", "clumsy", 1, out=out)
    finally:
        del AGENTS["clumsy"]
    (record,) = _records(out)
    _validate([record])
    sent, answer = record["messages"][2:4]
    assert sent == {"role": "assistant", "content": "{'tool': oops", "target": False}
    assert answer["name"] == "environment" and answer["role"] == "user"
    assert [turn["action"] for turn in record["turns"]] == ["malformed", "end"]
    assert all(text != "{'tool': oops" and text != answer["content"] for _, text in heard(record["messages"]))


def test_a_step_limit_truncates_with_a_verdict(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    run("ITSM-v0", "oracle", 2, out=out, max_episode_steps=2)
    records = _records(out)
    _validate(records)
    assert all(r["truncated"] and r["outcome"]["kind"] == "failure" and r["verdict"] for r in records)
    assert records[0]["run"]["make"]["max_episode_steps"] == 2


def test_a_stop_keeps_the_finished_episodes_in_order(tmp_path: Path) -> None:
    out, stop = tmp_path / "runs.jsonl", threading.Event()
    summary = run("ITSM-v0", "random", 40, out=out, jobs=2, stop=stop, on_episode=lambda record: stop.set())
    records = _records(out)
    assert summary.interrupted and summary.exit_status == EXIT_INTERRUPTED
    assert 1 <= len(records) < 40 and [r["episode"] for r in records] == sorted(r["episode"] for r in records)


def test_ctrl_c_stops_the_command_and_keeps_whole_records(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    command = [sys.executable, "-m", "enterprise_envs", "run", "ITSM-v0", "--agent", "random"]
    process = subprocess.Popen(
        [*command, "--episodes", "500", "--jobs", "2", "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (out.exists() and out.read_text().count("\n") >= 2):
        time.sleep(0.1)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == EXIT_INTERRUPTED, stderr[-2000:]
    assert "Traceback" not in stderr and "interrupted" in stdout
    records = _records(out)
    episodes = [r["episode"] for r in records]
    # Every finished episode is kept, in order; one abandoned in flight may leave a gap before a
    # later one that had finished.
    assert 2 <= len(records) < 500 and episodes == sorted(set(episodes)) and episodes[:2] == [0, 1]


def test_out_dash_writes_only_records_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "ITSM-v0", "--episodes", "2", "--out", "-"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2 and all(json.loads(line)["record_version"] == 2 for line in lines)
    assert "2 of 2 episodes" in captured.err


def test_an_invalid_episode_makes_the_run_exit_3(tmp_path: Path) -> None:
    class Broken:
        def respond(self, *args, **kwargs):
            raise RuntimeError("the simulator broke")

    summary = run("ITSM-v0", "oracle", 2, env_kwargs={"user": Broken()})
    assert summary.totals["invalid"] == 2 and summary.exit_status == EXIT_INVALID


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "ITSM-v0", "--agent", "llm"], "--agent llm needs --model"),
        (["run", "ITSM-v0", "--user", "llm"], "--user llm needs --user-model"),
        (["serve", "--scenario", "itsm.report_incident", "--user", "llm"], "--user llm needs --user-model"),
        (["run", "ITSM-v0", "--workers", "2"], "--workers goes with --ray"),
        (["run", "ITSM-v0", "--faults", '{"unavailable_p": 3}'], "unavailable_p"),
        (["run", "ITSM-v0", "--faults", '{"rate_limits": {}}'], "rate_limits"),
    ],
)
def test_missing_models_and_bad_fault_configs_are_usage_errors(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ENTERPRISE_ENVS_LLM_MODEL", raising=False)
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0]


def test_list_json_names_every_suite_and_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    from enterprise_envs import registry

    assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [env["id"] for env in listing["environments"]] == list(registry.suites())
    assert {s["id"] for s in listing["scenarios"]} == set(registry.scenarios())


def test_the_live_display_shows_rate_and_running_success() -> None:
    import io

    screen = io.StringIO()
    run("ITSM-v0", "oracle", 3, progress=screen)
    shown = screen.getvalue()
    assert "3/3" in shown and "ep/s" in shown and "success 3 (100%)" in shown
