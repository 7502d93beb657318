"""The whole evaluation path, as a user runs it: `run --agent llm --jobs` against an OpenAI-compatible
server on 127.0.0.1 (a scripted fake model), records that validate against the published schema, and
`report` over them."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from enterprise_envs.cli import main
from enterprise_envs.schemas import PUBLISHED
from tests.fake_openai import FakeOpenAIServer, OraclePolicy, scripted

SEEDS = range(4)


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_an_llm_run_with_jobs_records_and_reports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = OraclePolicy("ITSM-v0", SEEDS, merge_parallel=True, fault_every=7)
    runs, page = tmp_path / "runs.jsonl", tmp_path / "report.html"
    with FakeOpenAIServer(policy) as server:
        base_url = server.base_url
        status = main(
            ["run", "ITSM-v0", "--agent", "llm", "--model", "fake-model", "--base-url", server.base_url]
            + ["--episodes", str(len(SEEDS)), "--trials", "2", "--jobs", "2", "--out", str(runs)]
        )
        assert status == 0, capsys.readouterr().err
        assert not server.policy_errors
        assert all(request.headers.get("authorization") == "Bearer unused" for request in server.completions)
    records = _records(runs)
    validator = jsonschema.Draft202012Validator(json.loads(PUBLISHED["trajectory"][0].read_text()))
    assert all(not list(validator.iter_errors(record)) for record in records)
    assert [(r["seed"], r["trial"]) for r in records] == [(s, t) for s in SEEDS for t in range(2)]
    assert all(r["outcome"]["kind"] == "success" for r in records)
    agent = records[0]["run"]["agent"]
    assert agent["name"] == "llm" and agent["model"] == "fake-model" and agent["base_url"] == base_url
    assert sum(r["infra"]["endpoint_retries"] for r in records) == policy.faults_sent > 0
    assert all(r["budget"]["tokens"]["used"] > 0 for r in records)
    # Parallel calls stay one assistant turn: one message, several ids, each answered in order.
    turns = [m for r in records for m in r["messages"] if len(m.get("tool_calls") or []) > 1]
    assert turns and all(m["target"] for m in turns)

    capsys.readouterr()
    assert main(["report", str(runs), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert main(["report", str(runs), "--html", str(page)]) == 0
    assert "<svg" in page.read_text(encoding="utf-8")
    text = json.dumps(report)
    assert "fake-model" in text and '"k": 2' in text


def test_an_endpoint_that_refuses_makes_invalid_episodes_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs.jsonl"
    refusal = {"status": 401, "message": "Incorrect API key provided"}
    with FakeOpenAIServer(scripted([refusal] * 4)) as server:
        status = main(
            ["run", "ITSM-v0", "--agent", "llm", "--model", "m", "--base-url", server.base_url]
            + ["--episodes", "2", "--jobs", "2", "--out", str(runs)]
        )
    assert status == 3
    records = _records(runs)
    assert [r["outcome"]["reason"] for r in records] == ["agent_infrastructure"] * 2
    assert all("401" in " ".join(r["infra"]["endpoint_errors"]) for r in records)
