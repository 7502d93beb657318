"""``enterprise-envs run`` on a Ray cluster: envs in Ray actors, records back in episode order.

Each worker is a Ray actor holding one env (one World), made once and reused for every episode it
is given. The run itself stays :func:`enterprise_envs.runner.run`'s: this module is only its
:class:`~enterprise_envs.runner.EpisodeBackend`, so the plan, the episode order, the JSONL sink,
the summary, the progress display and the stop are the same code as a local run, and the records
are what a serial run writes for the same seeds (:func:`enterprise_envs.records.stable_part`).

A worker that dies (its process killed, its node lost) loses nothing: the episode it was playing
is played again from its seed on a new actor and recorded once, with the number of re-plays in
:func:`worker_retries` of its record. An env reset with a seed rebuilds the same episode whatever
the actor played before, which is what makes the re-play, and the reuse of envs, exact.

Needs the ``ray`` extra (``pip install 'enterprise-envs[ray]'``); on a multi-node cluster, every
node needs ``enterprise-envs`` installed (the same version) or a ``runtime_env`` that installs it.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import socket
import threading
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

try:
    import ray
    from ray.exceptions import GetTimeoutError, RayActorError
except ImportError as error:  # the optional extra: say which one
    raise ImportError("running on Ray needs the ray package: pip install 'enterprise-envs[ray]'") from error

from enterprise_envs.runner import AGENTS, Interrupted, RunSettings, RunSummary, play_recorded, run

if TYPE_CHECKING:
    from enterprise_envs.bench import Figure, Settings

#: How often a waiting thread looks at the run's stop event (seconds).
_POLL_SECONDS = 0.2


class WorkerLost(RuntimeError):
    """An episode's workers were lost (died, or stalled past the timeout) more often than it is re-played."""


class _EpisodeWorker:
    """A Ray actor's state: one env of the run, reused for every episode the actor plays."""

    def __init__(self, settings: RunSettings, seed: int) -> None:
        self.settings = settings
        self.seed = seed
        self.env = settings.make()

    def pid(self) -> int:
        """The actor's process id (the driver waits on it to know the actor and its env are up)."""
        return os.getpid()

    def play(self, index: int, trial: int) -> dict[str, Any]:
        """Play seed ``seed + index`` and return its record, as a local run's thread does."""
        agent = AGENTS[self.settings.agent_name](self.seed + index, **self.settings.agent_options)
        return play_recorded(self.env, agent, self.seed + index, self.settings, index, trial)


@dataclass
class _Worker:
    handle: Any  # a ray ActorHandle
    pid: int


def worker_retries(record: Mapping[str, Any]) -> int:
    """How many times a record's episode was played again because its worker died (0: never)."""
    return int(record["infra"].get("worker_retries", 0))


def _mark_retried(record: dict[str, Any], retries: int) -> None:
    # Only a retried record carries the mark: the others are a serial run's, byte for byte.
    record["infra"]["worker_retries"] = retries


class RayBackend:
    """Plays a run's episodes on Ray actors, one env each: ``run``'s ``EpisodeBackend`` for Ray.

    Connects to the cluster at ``address`` (``auto``, ``host:6379`` or ``ray://host:10001``), or
    starts a local one sized for the workers, unless Ray is already initialized in this process,
    in which case that cluster is used and left running.

    Args:
        workers: Actors (envs) to play on; run with ``jobs=workers`` so each has an episode at a time.
        address: The cluster (None: an initialized one, else ``RAY_ADDRESS``, else a new local cluster).
        worker_cpus: Ray CPUs each actor reserves (lower it, e.g. 0.25, for agents that mostly wait
            on a model endpoint).
        max_retries: Re-plays of one episode after its worker died before the run fails (WorkerLost).
        episode_timeout: Seconds an episode may take before its worker is treated as lost (None: no limit).
        start_timeout: Seconds to wait for the actors (and their envs) to come up.
        runtime_env: Ray's runtime_env for a cluster this backend connects to (e.g. pip packages).
    """

    def __init__(
        self,
        workers: int = 2,
        address: str | None = None,
        *,
        worker_cpus: float = 1.0,
        max_retries: int = 3,
        episode_timeout: float | None = None,
        start_timeout: float = 120.0,
        runtime_env: Mapping[str, Any] | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be at least 0, not {max_retries}")
        self.workers = workers
        self.address = address
        self.worker_cpus = worker_cpus
        self.max_retries = max_retries
        self.episode_timeout = episode_timeout
        self.start_timeout = start_timeout
        self.runtime_env = dict(runtime_env) if runtime_env else None
        #: Actors made so far: ``workers`` at the start, one more per worker lost.
        self.spawned = 0
        #: Episodes played (returned) per actor process id: each actor plays many.
        self.episodes_by_pid: Counter[int] = Counter()
        self._owns_ray = False
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._live: list[_Worker] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._actor_class: Any = None
        self._settings: RunSettings | None = None
        self._seed = 0

    # -- the EpisodeBackend protocol ---------------------------------------------------------------

    def open(self, settings: RunSettings, seed: int, stop: threading.Event) -> None:
        """Connect to (or start) the cluster and bring the workers up, each with its env.

        Raises:
            ConnectionError: Nothing answers at ``address``.
            TimeoutError: The actors were not up within ``start_timeout`` (too few CPUs in the
                cluster for ``workers`` x ``worker_cpus``, or a node without enterprise-envs).
        """
        self._settings, self._seed, self._stop = settings, seed, stop
        if not ray.is_initialized():
            # RAY_ADDRESS as Ray reads it, else "local": a new cluster even if `ray start` ran here.
            address = self.address or os.environ.get("RAY_ADDRESS") or "local"
            _check_reachable(address)
            options: dict[str, Any] = {"runtime_env": self.runtime_env} if self.runtime_env else {}
            if address == "local":  # a cluster that fits the workers, without a dashboard
                cpus = max(os.cpu_count() or 1, math.ceil(self.workers * self.worker_cpus))
                options.update(num_cpus=cpus, include_dashboard=False)
            ray.init(address=address, **options)
            self._owns_ray = True
        self._actor_class = ray.remote(num_cpus=self.worker_cpus, max_restarts=0)(_EpisodeWorker)
        try:
            for worker in self._spawn(self.workers):
                self._idle.put(worker)
        except BaseException:
            self.close()
            raise

    def play(self, index: int, trial: int) -> dict[str, Any]:
        """Play one episode on an idle worker; on a lost worker, play it again on a new one.

        Raises:
            Interrupted: The run's stop was set (the worker is let go: its episode is abandoned).
            WorkerLost: The episode's workers were lost more than ``max_retries`` times.
        """
        retries = 0
        while True:
            worker = self._take_idle()
            try:
                record = self._await(worker, worker.handle.play.remote(index, trial))
            except (RayActorError, GetTimeoutError) as error:
                if self._stop.is_set():  # Ctrl-C reaches the local workers too: not a lost worker
                    self._let_go(worker)
                    raise Interrupted from error
                self._replace(worker)
                retries += 1
                if retries > self.max_retries:
                    lost = f"episode {index} (trial {trial}): its worker was lost {retries} times"
                    raise WorkerLost(f"{lost} (dead or stalled)") from error
                continue
            except Interrupted:
                self._let_go(worker)
                raise
            except BaseException:  # the episode itself failed (a bug, an agent error): the actor is fine
                self._idle.put(worker)
                raise
            with self._lock:
                self.episodes_by_pid[worker.pid] += 1
            self._idle.put(worker)
            if retries:
                _mark_retried(record, retries)
            return record

    def close(self) -> None:
        """Let the workers go, and stop the local cluster if this backend started it."""
        with self._lock:
            workers, self._live = self._live, []
        for worker in workers:
            _kill(worker.handle)
        while not self._idle.empty():
            self._idle.get_nowait()
        if self._owns_ray:
            ray.shutdown()
            self._owns_ray = False

    # -- the workers -------------------------------------------------------------------------------

    def worker_pids(self) -> list[int]:
        """The process ids of the live workers (to watch them, or to kill one in a test)."""
        with self._lock:
            return [worker.pid for worker in self._live]

    def worker_handles(self) -> list[Any]:
        """The live workers' Ray actor handles, in :meth:`worker_pids`' order."""
        with self._lock:
            return [worker.handle for worker in self._live]

    def _spawn(self, count: int) -> list[_Worker]:
        handles = [self._actor_class.remote(self._settings, self._seed) for _ in range(count)]
        with self._lock:
            self.spawned += count
        try:
            pids = ray.get([handle.pid.remote() for handle in handles], timeout=self.start_timeout)
        except GetTimeoutError:
            for handle in handles:
                _kill(handle)
            raise TimeoutError(
                f"{count} Ray worker(s) were not up within {self.start_timeout:.0f} s: the cluster needs "
                f"{self.worker_cpus:g} free CPU(s) per worker and enterprise-envs installed on every node "
                f"(cluster resources: {ray.cluster_resources()})"
            ) from None
        made = [_Worker(handle, pid) for handle, pid in zip(handles, pids, strict=True)]
        with self._lock:
            self._live.extend(made)
        return made

    def _take_idle(self) -> _Worker:
        while True:
            if self._stop.is_set():
                raise Interrupted
            try:
                return self._idle.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                continue

    def _await(self, worker: _Worker, ref: Any) -> dict[str, Any]:
        """The episode's record once it is in; Interrupted on a stop, GetTimeoutError past the timeout."""
        began = time.monotonic()
        while True:
            ready, _ = ray.wait([ref], timeout=_POLL_SECONDS)
            if ready:
                return ray.get(ref)
            if self._stop.is_set():
                raise Interrupted
            if self.episode_timeout is not None and time.monotonic() - began > self.episode_timeout:
                raise GetTimeoutError(f"worker pid {worker.pid}: episode over {self.episode_timeout} s")

    def _let_go(self, worker: _Worker) -> None:
        with self._lock:
            if worker in self._live:
                self._live.remove(worker)
        _kill(worker.handle)

    def _replace(self, worker: _Worker) -> None:
        # A dead (or stuck) actor is never reused: its episode goes to a new one, made here.
        self._let_go(worker)
        if not self._stop.is_set():
            self._idle.put(self._spawn(1)[0])


def _check_reachable(address: str, seconds: float = 5.0) -> None:
    """Fail fast on a cluster address nothing answers at (``ray.init`` would retry for minutes).

    Raises:
        ConnectionError: Nothing accepts a connection at ``host:port``.
    """
    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():  # "auto", "local", or a form Ray resolves itself
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except OSError as error:
        raise ConnectionError(f"no Ray cluster answers at {address} ({error})") from None


def _kill(handle: Any) -> None:
    with contextlib.suppress(Exception):  # already gone, or the cluster is: nothing left to release
        ray.kill(handle, no_restart=True)


#: The options of :class:`RayBackend` that :func:`run_on_ray` passes on (the others go to ``run``).
BACKEND_OPTIONS = ("worker_cpus", "max_retries", "episode_timeout", "start_timeout", "runtime_env")


def run_on_ray(*run_args: Any, workers: int = 2, address: str | None = None, **options: Any) -> RunSummary:
    """:func:`enterprise_envs.runner.run` with its episodes played on Ray actors.

    The arguments are ``run``'s (``jobs`` is ``workers``), plus ``workers``, ``address`` and any
    :class:`RayBackend` option (:data:`BACKEND_OPTIONS`). Records are written, and ``on_episode``
    called, in episode order as the episodes finish; they are a serial run's but for the volatile
    fields and, on an episode whose worker died, :func:`worker_retries`.

    Example:
        ``run_on_ray("ITSM-v0", "oracle", 20, out=Path("runs.jsonl"), workers=4, address="auto")``
    """
    backend_options = {name: options.pop(name) for name in BACKEND_OPTIONS if name in options}
    backend = RayBackend(workers, address, **backend_options)
    return run(*run_args, jobs=workers, backend=backend, **options)


def bench_ray(settings: Settings, workers: tuple[int, ...] = (1, 2), episodes: int = 48) -> list[Figure]:
    """Oracle episodes per second on a local Ray cluster, per worker count, once the actors are warm.

    One sample is a run of ``episodes`` seeds (``settings.episode_rounds`` samples per count), timed
    from its first third's last record to its last record: a new actor's first episodes build the
    worlds its scenarios use, which a long run pays once. The run's whole rate is in ``extra``. The
    cluster (``num_cpus`` = the most workers) is started once, outside the samples.
    """
    from enterprise_envs.bench import Figure

    owned = not ray.is_initialized()
    if owned:
        ray.init(address="local", num_cpus=max(workers), include_dashboard=False, log_to_driver=False)
    warmup = max(1, episodes // 3)
    figures = []
    try:
        for count in workers:
            samples, whole = [], []
            for round_ in range(settings.episode_rounds):
                stamps: list[float] = []
                summary = run(
                    settings.suite,
                    "oracle",
                    episodes,
                    seed=round_ * episodes,
                    on_episode=lambda _, stamps=stamps: stamps.append(time.perf_counter()),
                    jobs=count,
                    backend=RayBackend(count),
                )
                samples.append((len(stamps) - warmup) / (stamps[-1] - stamps[warmup - 1]))
                whole.append(round(len(stamps) / summary.seconds, 2))  # from the actors up: open is not timed
            figures.append(
                Figure(
                    f"ray.oracle.workers_{count}",
                    "ray",
                    f"oracle episodes per second of wall time on {count} warm Ray actor(s) (one sample: "
                    f"a run of {episodes} seeds, its first {warmup} not timed)",
                    "1/s",
                    samples,
                    higher_is_better=True,
                    extra={"workers": count, "episodes": episodes, "whole_run_per_s": whole},
                )
            )
    finally:
        if owned:
            ray.shutdown()
    return figures


__all__ = ["RayBackend", "WorkerLost", "bench_ray", "run_on_ray", "worker_retries"]
