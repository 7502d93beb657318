"""`run` on Ray: envs in actors reused across episodes, a serial run's records in episode order, a
killed worker's episode re-played and recorded once, a clean stop, and no Ray without the extra.

The cluster tests start a local Ray cluster (``ray.init(num_cpus=2)``, about 15 s on 2 cores), so
they carry the ``ray`` marker: ``pytest -m ray -n 0 tests/integrations/test_ray.py`` (about 90 s;
under ``-n 2`` each xdist worker starts a cluster of its own, which works but takes longer).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from enterprise_envs.records import stable_part
from enterprise_envs.runner import EXIT_INTERRUPTED, run
from enterprise_envs.schemas import PUBLISHED

ENV_ID, EPISODES, SEED = "ITSM-v0", 8, 3
#: Every cluster run is stopped (and so fails its assertions) rather than hang past this.
RUN_SECONDS = 150.0


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _validate(records: list[dict[str, Any]]) -> None:
    schema = json.loads(PUBLISHED["trajectory"][0].read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for record in records:
        errors = sorted(validator.iter_errors(record), key=lambda error: list(error.path))
        assert not errors, [f"{list(error.path)}: {error.message}" for error in errors[:3]]


def _without_retry_mark(record: dict[str, Any]) -> dict[str, Any]:
    stable = stable_part(record)
    for part in ("infra", "outcome"):
        stable[part] = {key: value for key, value in stable[part].items() if key != "worker_retries"}
    return stable


def test_importing_the_package_does_not_import_ray() -> None:
    code = (
        "import sys, enterprise_envs, enterprise_envs.runner, enterprise_envs.cli\n"
        "import enterprise_envs.integrations\n"
        "assert 'ray' not in sys.modules, 'ray imported'\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def test_bad_backend_settings_are_refused_before_any_cluster() -> None:
    pytest.importorskip("ray")
    from enterprise_envs.integrations.ray import RayBackend

    with pytest.raises(ValueError, match="workers"):
        RayBackend(0)
    with pytest.raises(ValueError, match="max_retries"):
        RayBackend(2, max_retries=-1)


def test_an_address_nothing_answers_at_fails_fast_writing_nothing(tmp_path: Path) -> None:
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("a cluster is up in this process: the backend would use it, not the address")
    from enterprise_envs.integrations.ray import run_on_ray

    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    out = tmp_path / "ray.jsonl"
    began = time.monotonic()
    with pytest.raises(ConnectionError, match=f"127.0.0.1:{port}"):
        run_on_ray(ENV_ID, "oracle", 2, out=out, address=f"127.0.0.1:{port}")
    assert time.monotonic() - began < 30 and not out.exists() and not ray.is_initialized()


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local 2-CPU Ray cluster for this module's runs, shut down after them."""
    ray = pytest.importorskip("ray")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture(scope="module")
def serial() -> list[dict[str, Any]]:
    """A serial local run's records: what the Ray runs must reproduce."""
    records: list[dict[str, Any]] = []
    run(ENV_ID, "oracle", EPISODES, seed=SEED, trials=1, on_episode=records.append)
    return records


@pytest.fixture
def stop() -> Iterator[threading.Event]:
    """The run's stop event, set by a watchdog after RUN_SECONDS so no run can hang the suite."""
    event = threading.Event()
    watchdog = threading.Timer(RUN_SECONDS, event.set)
    watchdog.start()
    yield event
    watchdog.cancel()


@pytest.mark.ray
def test_a_ray_run_writes_what_a_serial_run_writes(
    cluster: None, serial: list[dict[str, Any]], stop: threading.Event, tmp_path: Path
) -> None:
    from enterprise_envs.integrations.ray import RayBackend, worker_retries

    out, streamed = tmp_path / "ray.jsonl", []
    backend = RayBackend(2, start_timeout=60)
    summary = run(
        ENV_ID,
        "oracle",
        EPISODES,
        seed=SEED,
        out=out,
        on_episode=streamed.append,
        jobs=2,
        stop=stop,
        backend=backend,
    )
    records = _records(out)
    assert summary.exit_status == 0 and summary.totals["success"] == EPISODES
    assert [r["seed"] for r in records] == list(range(SEED, SEED + EPISODES))  # episode order
    assert [stable_part(r) for r in records] == [stable_part(r) for r in serial]
    assert [r["run"]["id"] for r in streamed] == [r["run"]["id"] for r in records]
    assert [r["episode"] for r in streamed] == list(range(EPISODES))
    assert {r["run"]["jobs"] for r in records} == {2} and not any(worker_retries(r) for r in records)
    _validate(records)
    # Two actors, made once, played every episode: envs are reused, not made per episode.
    assert backend.spawned == 2 and sum(backend.episodes_by_pid.values()) == EPISODES
    assert max(backend.episodes_by_pid.values()) > 1 and len(backend.episodes_by_pid) <= 2
    assert backend.worker_pids() == []  # let go at the end of the run


@pytest.mark.ray
@pytest.mark.parametrize("how", ["os.kill", "ray.kill"])
def test_a_killed_worker_loses_and_duplicates_no_episode(
    how: str, cluster: None, serial: list[dict[str, Any]], stop: threading.Event, tmp_path: Path
) -> None:
    import ray

    from enterprise_envs.integrations.ray import RayBackend, worker_retries

    out, killed = tmp_path / "ray.jsonl", []
    backend = RayBackend(2, start_timeout=60)

    def kill_a_worker(record: dict[str, Any]) -> None:
        # After the first record the other worker is mid-episode and more episodes are to come.
        if killed:
            return
        pid = backend.worker_pids()[0]
        if how == "os.kill":
            os.kill(pid, signal.SIGKILL)
        else:
            ray.kill(backend.worker_handles()[0], no_restart=True)
        killed.append(pid)

    summary = run(
        ENV_ID,
        "oracle",
        EPISODES,
        seed=SEED,
        out=out,
        on_episode=kill_a_worker,
        jobs=2,
        stop=stop,
        backend=backend,
    )
    records = _records(out)
    assert summary.exit_status == 0 and len(killed) == 1
    assert [(r["episode"], r["trial"]) for r in records] == [(index, 0) for index in range(EPISODES)]
    retried = [r["episode"] for r in records if worker_retries(r)]
    assert len(retried) == 1 and worker_retries(records[retried[0]]) == 1
    assert [_without_retry_mark(r) for r in records] == [stable_part(r) for r in serial]
    _validate(records)  # the retry mark is where the published schema allows it
    assert backend.spawned == 3 and killed[0] not in backend.worker_pids()  # a new actor took its place


@pytest.mark.ray
def test_a_stop_ends_a_ray_run_keeping_the_finished_episodes_in_order(
    cluster: None, serial: list[dict[str, Any]], tmp_path: Path
) -> None:
    import ray

    from enterprise_envs.integrations.ray import RayBackend

    out, stop = tmp_path / "ray.jsonl", threading.Event()
    backend = RayBackend(2, start_timeout=60)
    summary = run(
        ENV_ID,
        "oracle",
        40,
        seed=SEED,
        out=out,
        jobs=2,
        stop=stop,
        on_episode=lambda _: stop.set(),
        backend=backend,
    )
    records = _records(out)
    assert summary.interrupted and summary.exit_status == EXIT_INTERRUPTED
    episodes = [r["episode"] for r in records]
    assert 1 <= len(records) < 40 and episodes == sorted(set(episodes)) and episodes[0] == 0
    assert stable_part(records[0]) == stable_part(serial[0])
    assert backend.worker_pids() == [] and ray.is_initialized()  # the workers go; a cluster it found stays


@pytest.mark.ray
def test_an_llm_agent_plays_from_the_workers_as_it_does_locally(cluster: None, stop: threading.Event) -> None:
    from enterprise_envs.integrations.ray import run_on_ray
    from tests.fake_openai import FakeOpenAIServer, OraclePolicy

    seeds = range(SEED, SEED + 3)
    with FakeOpenAIServer(OraclePolicy(ENV_ID, seeds)) as server:
        options = {"model": "fake-model", "base_url": server.base_url}
        local: list[dict[str, Any]] = []
        on_ray: list[dict[str, Any]] = []
        run(ENV_ID, "llm", len(seeds), seed=SEED, on_episode=local.append, agent_options=options)
        summary = run_on_ray(
            ENV_ID, "llm", len(seeds), seed=SEED, on_episode=on_ray.append, agent_options=options, workers=2,
            stop=stop, start_timeout=60,
        )  # fmt: skip
        assert not server.policy_errors
    assert summary.exit_status == 0 and all(r["outcome"]["kind"] == "success" for r in on_ray)
    assert all(r["budget"]["tokens"]["used"] > 0 for r in on_ray)  # the model was called from the workers
    # The fake server numbers call ids across its requests, so dialogues differ in ids: compare the rest.
    played = ("seed", "scenario", "outcome", "verdict", "reward", "steps", "tool_calls", "final_view")
    assert [{key: r[key] for key in played} for r in on_ray] == [
        {key: r[key] for key in played} for r in local
    ]
    assert on_ray[0]["run"]["agent"]["base_url"] == options["base_url"]


@pytest.mark.ray
def test_an_episode_that_outlasts_its_timeout_is_replayed_then_fails_the_run(cluster: None) -> None:
    from enterprise_envs.integrations.ray import RayBackend, WorkerLost
    from tests.fake_openai import FakeOpenAIServer, scripted

    with FakeOpenAIServer(scripted([{"delay": 20, "content": "hello"}] * 4)) as server:
        backend = RayBackend(1, episode_timeout=5.0, max_retries=1, start_timeout=60)
        began = time.monotonic()
        with pytest.raises(WorkerLost, match="lost 2 times"):
            run(ENV_ID, "llm", 1, agent_options={"model": "m", "base_url": server.base_url}, backend=backend)
        assert len(server.completions) >= 2  # played twice, on two actors, each stuck on the model
    assert backend.spawned == 3 and backend.worker_pids() == [] and time.monotonic() - began < 60
