"""Reports over trajectory records: pass^k with bootstrap confidence intervals, breakdowns, cost.

One record (a JSONL line written by ``enterprise-envs run``) is one episode. A *task* is a
(scenario, seed, surface, agent, user backend); its *trials* are its records (repeats of the same
seed, from ``run --trials K`` or from several files). With ``n`` valid trials and ``c``
successes, a task's pass^k is ``C(c, k) / C(n, k)`` (tau-bench's unbiased estimator of "all of
k fresh trials succeed"); a group's pass^k is the mean over its tasks with ``n >= k``.

Invalid episodes (``outcome.kind == "invalid"``: something the policy did not cause broke the
episode, see ``enterprise_envs.verifiers.outcome``) are not trials: they are counted and their
rate reported, never scored as failures.

Confidence intervals are percentile bootstrap intervals: resample the group's scenario
families with replacement, keep all their tasks, recompute. A group of a single family (a
row of the by-family table) resamples its tasks instead. The bootstrap's seed is fixed, so a
report of the same files is the same bytes.

Renderings: text tables (:func:`render_text`), JSON with the same tables (:func:`render_json`)
and one self-contained HTML page with inline SVG plots (:func:`render_html`).
"""

from __future__ import annotations

import argparse
import html
import json
import math
import re
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

import numpy as np

#: Version of the report's JSON layout (bump when keys change meaning or disappear).
REPORT_VERSION = 1
#: The outcome classes a record may hold.
OUTCOME_KINDS = ("success", "failure", "invalid")
#: Breakdowns, in the order the report shows them: (key, title, the column naming the value).
DIMENSIONS = (
    ("overall", "Overall", "group"),
    ("agent", "By agent", "agent"),
    ("scenario", "By scenario family", "scenario"),
    ("tag", "By tag", "tag"),
    ("surface", "By surface", "surface"),
    ("persona_variant", "By persona variant", "persona variant"),
    ("system", "By system", "system"),
    ("user_backend", "By user backend", "user backend"),
)
#: The label of an absent value (a record without a persona variant, an agent without a name).
NONE_LABEL = "(none)"
UNKNOWN_AGENT = "unknown"
#: The cost measures read from each record, by the key a report row gives them.
COST_MEASURES = ("tokens", "tool_calls", "steps", "seconds")


class ReportInputError(ValueError):
    """Input a report cannot read: a missing file, a line that is not JSON, a record without its keys.

    The message is one line naming the file (and line) at fault; the CLI prints it and exits 2.
    """


@dataclass(frozen=True)
class Episode:
    """What a report needs of one record.

    Attributes:
        where: ``file:line`` of the record (for messages).
        scenario: The scenario family id.
        seed: The episode seed.
        surface: The tool surface, or None when the record does not say.
        agent: The agent key: ``run.agent.name`` (``/model`` when a model is named), else unknown.
        user_backend: The user simulator's backend (``/model`` when a model is named).
        persona_variant: The persona variant, or None.
        systems: The systems of the episode's world.
        tags: The scenario's tags (from the record, else from the registry, else none).
        kind: The outcome class.
        reason: The outcome's reason.
        tokens: Model tokens used, when the record holds them.
        tool_calls: Tool calls made, when the record holds them.
        steps: Steps taken, when the record holds them.
        seconds: Wall time, when the record holds it.
        turn_agent_seconds: Per-turn agent latencies (v2 records' ``turns``).
        turn_env_seconds: Per-turn environment latencies.
    """

    where: str
    scenario: str
    seed: int
    surface: str | None
    agent: str
    user_backend: str | None
    persona_variant: str | None
    systems: tuple[str, ...]
    tags: tuple[str, ...]
    kind: str
    reason: str
    tokens: float | None
    tool_calls: float | None
    steps: float | None
    seconds: float | None
    turn_agent_seconds: tuple[float, ...] = ()
    turn_env_seconds: tuple[float, ...] = ()

    @property
    def task(self) -> tuple[str, int, str, str, str]:
        """The task this episode is a trial of."""
        return (self.scenario, self.seed, self.surface or "", self.agent, self.user_backend or "")

    def values(self, dimension: str) -> tuple[str, ...]:
        """The values this episode takes in a breakdown (several for tags and systems)."""
        if dimension == "overall":
            return ("all",)
        if dimension == "tag":
            return self.tags
        if dimension == "system":
            return self.systems
        value = getattr(self, dimension)
        return (NONE_LABEL if value is None else str(value),)


# ----------------------------------------------------------------------------------------------
# Reading records


def load_episodes(paths: Sequence[Path | str], agent_by_file: bool = False) -> tuple[list[Episode], dict]:
    """Read JSONL files of trajectory records.

    Args:
        paths: The files, in order.
        agent_by_file: Name the agent of records that do not say (records before
            ``record_version`` 2) by their file's stem (``oracle.jsonl``: ``oracle``) instead of
            ``unknown``, so files of different agents stay apart.

    Returns:
        The episodes, and what was read: ``{"files", "records", "duplicates"}``.

    Raises:
        ReportInputError: A file is missing or unreadable, a line is not a JSON object, a
            record lacks a needed key, or there are no records at all.
    """
    if not paths:
        raise ReportInputError("no input files given")
    episodes: list[Episode] = []
    seen_runs: set[tuple[str, Any, Any, Any]] = set()
    duplicates = 0
    records = 0
    for raw in paths:
        path = Path(raw)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ReportInputError(f"{path}: no such file") from None
        except IsADirectoryError:
            raise ReportInputError(f"{path}: is a directory, not a JSONL file") from None
        except (OSError, UnicodeDecodeError) as error:
            raise ReportInputError(f"{path}: cannot read: {error}") from None
        # Lines end at "\n" only: str.splitlines would also split at U+2028 and friends, which
        # JSON text written with ensure_ascii=False may hold inside strings.
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise ReportInputError(f"{where}: not JSON ({error.msg} at column {error.colno})") from None
            if not isinstance(record, dict):
                raise ReportInputError(f"{where}: not a JSON object (a record is one object a line)")
            records += 1
            # The same episode read twice (a file given twice) must not count as another trial.
            run = record.get("run") if isinstance(record.get("run"), dict) else {}
            if isinstance(run.get("id"), str) and "episode" in record:
                identity = (run["id"], run.get("started"), record.get("episode"), record.get("trial"))
                if identity in seen_runs:
                    duplicates += 1
                    continue
                seen_runs.add(identity)
            fallback_agent = path.stem if agent_by_file else UNKNOWN_AGENT
            episodes.append(parse_record(record, where, fallback_agent))
    if not episodes:
        names = ", ".join(str(path) for path in paths)
        raise ReportInputError(f"no records in {names}")
    return episodes, {"files": [str(path) for path in paths], "records": records, "duplicates": duplicates}


@cache
def registry_tags() -> Mapping[str, tuple[str, ...]]:
    """Tags of the scenarios the registry knows (for records written before records held tags)."""
    from enterprise_envs import registry

    return {name: tuple(scenario.tags) for name, scenario in registry.scenarios().items()}


def parse_record(
    record: Mapping[str, Any],
    where: str,
    fallback_agent: str = UNKNOWN_AGENT,
    tags_of: Mapping[str, tuple[str, ...]] | None = None,
) -> Episode:
    """One record as an :class:`Episode`; v2 keys that are absent are treated as absent.

    Raises:
        ReportInputError: A needed key (``scenario``, ``seed``, ``outcome.kind``) is missing or
            of the wrong type, or an optional one has the wrong type.
    """
    scenario = record.get("scenario")
    if not isinstance(scenario, str) or not scenario:
        raise ReportInputError(f"{where}: record has no scenario (a non-empty string)")
    seed = record.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ReportInputError(f"{where}: record has no seed (an integer)")
    outcome = record.get("outcome")
    if not isinstance(outcome, dict) or outcome.get("kind") not in OUTCOME_KINDS:
        raise ReportInputError(f"{where}: record has no outcome.kind (one of {', '.join(OUTCOME_KINDS)})")
    reason = outcome.get("reason")
    run = _mapping(record, "run", where)
    agent_settings = _mapping(run, "agent", where)
    user_settings = _mapping(run, "user", where)
    agent = _optional_str(agent_settings, "name", where) or fallback_agent
    model = _optional_str(agent_settings, "model", where)
    if model:
        agent = f"{agent}/{model}"
    user_backend = _optional_str(record, "user_backend", where) or _optional_str(
        user_settings, "backend", where
    )
    user_model = _optional_str(user_settings, "model", where)
    if user_backend and user_model:
        user_backend = f"{user_backend}/{user_model}"
    tags = record.get("tags")
    if tags is None:
        tags = (registry_tags() if tags_of is None else tags_of).get(scenario, ())
    budget = _mapping(record, "budget", where)
    tokens = _mapping(budget, "tokens", where)
    turns = record.get("turns") or []
    if not isinstance(turns, list) or not all(isinstance(turn, dict) for turn in turns):
        raise ReportInputError(f"{where}: turns is not a list of objects")
    return Episode(
        where=where,
        scenario=scenario,
        seed=seed,
        surface=_optional_str(record, "surface", where),
        agent=agent,
        user_backend=user_backend,
        persona_variant=_optional_str(record, "persona_variant", where),
        systems=_strings(record.get("systems"), "systems", where),
        tags=_strings(tags, "tags", where),
        kind=outcome["kind"],
        reason=str(reason) if reason is not None else "",
        tokens=_optional_number(tokens, "used", where, "budget.tokens.used"),
        tool_calls=_optional_number(record, "tool_calls", where),
        steps=_optional_number(record, "steps", where),
        seconds=_optional_number(record, "seconds", where),
        turn_agent_seconds=tuple(
            value for turn in turns if (value := _optional_number(turn, "agent_seconds", where)) is not None
        ),
        turn_env_seconds=tuple(
            value for turn in turns if (value := _optional_number(turn, "env_seconds", where)) is not None
        ),
    )


def _mapping(record: Mapping[str, Any], key: str, where: str) -> Mapping[str, Any]:
    value = record.get(key)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ReportInputError(f"{where}: {key} is not an object")
    return value


def _optional_str(record: Mapping[str, Any], key: str, where: str) -> str | None:
    value = record.get(key)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ReportInputError(f"{where}: {key} is not a string")
    return value


def _optional_number(
    record: Mapping[str, Any], key: str, where: str, name: str | None = None
) -> float | None:
    value = record.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ReportInputError(f"{where}: {name or key} is not a number")
    return value


def _strings(value: Any, key: str, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)) or not all(isinstance(item, str) for item in value):
        raise ReportInputError(f"{where}: {key} is not a list of strings")
    return tuple(dict.fromkeys(value))  # once each, in order


# ----------------------------------------------------------------------------------------------
# Estimates


@dataclass(frozen=True)
class Task:
    """A task's trials: ``n`` valid trials, ``c`` successes."""

    scenario: str
    n: int
    c: int


def pass_hat_k(successes: int, trials: int, k: int) -> float:
    """The unbiased estimate of pass^k from one task's ``trials`` with ``successes``: C(c,k)/C(n,k).

    Raises:
        ValueError: ``k`` is not in 1..trials.
    """
    if not 1 <= k <= trials:
        raise ValueError(f"pass^{k} needs at least {k} trials (have {trials})")
    return math.comb(successes, k) / math.comb(trials, k)


def tasks_of(episodes: Iterable[Episode]) -> list[Task]:
    """The tasks of these episodes, in a stable order; invalid episodes are not trials."""
    trials: dict[tuple, list[int]] = {}
    for episode in episodes:
        counts = trials.setdefault(episode.task, [0, 0])
        if episode.kind != "invalid":
            counts[0] += 1
            counts[1] += episode.kind == "success"
    return [Task(key[0], n, c) for key, (n, c) in sorted(trials.items()) if n > 0]


def pass_k_curve(
    tasks: Sequence[Task], bootstrap: int = 1000, seed: int = 0, confidence: float = 0.95
) -> list[dict[str, Any]]:
    """pass^k for k = 1..(most trials of a task), each with its bootstrap interval.

    Args:
        tasks: The group's tasks.
        bootstrap: Resamples (0: no intervals).
        seed: The resampling seed (fixed: the same tasks give the same intervals).
        confidence: The interval's coverage.

    Returns:
        One entry a k: ``{"k", "estimate", "low", "high", "tasks", "scenarios"}``, where tasks
        and scenarios count those with at least k trials (the ones the estimate averages).
    """
    if not tasks:
        return []
    k_max = max(task.n for task in tasks)
    # Resampling units: scenario families; a group of one family resamples its tasks.
    families = sorted({task.scenario for task in tasks})
    by_family = len(families) > 1
    units = families if by_family else list(range(len(tasks)))
    index = {unit: position for position, unit in enumerate(units)}
    sums = np.zeros((len(units), k_max))
    counts = np.zeros((len(units), k_max))
    for position, task in enumerate(tasks):
        unit = index[task.scenario] if by_family else position
        for k in range(1, task.n + 1):
            sums[unit, k - 1] += pass_hat_k(task.c, task.n, k)
            counts[unit, k - 1] += 1
    if bootstrap > 0:
        draws = np.random.default_rng(seed).integers(0, len(units), size=(bootstrap, len(units)))
        with np.errstate(invalid="ignore", divide="ignore"):
            resampled = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)  # (bootstrap, k_max)
    tail = (1 - confidence) / 2 * 100
    curve = []
    for k in range(1, k_max + 1):
        eligible = [task for task in tasks if task.n >= k]
        estimate = sums[:, k - 1].sum() / counts[:, k - 1].sum()
        low = high = None
        if bootstrap > 0:
            column = resampled[:, k - 1]
            column = column[~np.isnan(column)]  # a resample holding no task with k trials
            if column.size:
                low, high = (float(value) for value in np.percentile(column, [tail, 100 - tail]))
        curve.append(
            {
                "k": k,
                "estimate": _round(float(estimate)),
                "low": _round(low),
                "high": _round(high),
                "tasks": len(eligible),
                "scenarios": len({task.scenario for task in eligible}),
            }
        )
    return curve


def _round(value: float | None, digits: int = 6) -> float | None:
    """Rounded for stable, readable JSON (the bootstrap's last bits say nothing)."""
    return None if value is None else round(value, digits)


# ----------------------------------------------------------------------------------------------
# The report


def build_report(
    episodes: Sequence[Episode],
    inputs: Mapping[str, Any] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    top_reasons: int = 5,
) -> dict[str, Any]:
    """The report as plain data: every table the renderings show, under stable keys.

    Args:
        episodes: The episodes (see :func:`load_episodes`).
        inputs: What was read (files, records, duplicates), shown in the report's header.
        bootstrap: Bootstrap resamples per figure.
        seed: The bootstrap's seed.
        confidence: The intervals' coverage.
        top_reasons: How many failure and invalid reasons to list per agent.
    """
    if bootstrap < 0:
        raise ValueError("bootstrap must be >= 0")
    if not 0 < confidence < 1:
        raise ValueError("confidence must be between 0 and 1")
    agents = sorted({episode.agent for episode in episodes})
    breakdowns: dict[str, list[dict[str, Any]]] = {}
    for dimension, _, _ in DIMENSIONS:
        groups: dict[tuple[str, str], list[Episode]] = defaultdict(list)
        for episode in episodes:
            # Agents are kept apart everywhere but in the one overall row.
            agent = "all" if dimension == "overall" else episode.agent
            for value in episode.values(dimension):
                groups[(agent, value)].append(episode)
        breakdowns[dimension] = [
            _row(agent, value, members, bootstrap, seed, confidence)
            for (agent, value), members in sorted(groups.items())
        ]
    return {
        "report_version": REPORT_VERSION,
        "inputs": {
            "files": list((inputs or {}).get("files", [])),
            "records": (inputs or {}).get("records", len(episodes)),
            "duplicates_skipped": (inputs or {}).get("duplicates", 0),
            "episodes": len(episodes),
            "tasks": len(tasks_of(episodes)),
            "scenarios": len({episode.scenario for episode in episodes}),
        },
        "settings": {
            "estimator": (
                "pass^k = mean over tasks with n >= k of C(c,k)/C(n,k); invalid episodes are not trials"
            ),
            "interval": "percentile bootstrap over scenario families (over tasks within one family)",
            "bootstrap": bootstrap,
            "confidence": confidence,
            "seed": seed,
        },
        "agents": agents,
        "breakdowns": breakdowns,
        "reasons": _reasons(episodes, top_reasons),
        "cost": [_cost(agent, [e for e in episodes if e.agent == agent]) for agent in agents],
    }


def _row(
    agent: str, value: str, episodes: Sequence[Episode], bootstrap: int, seed: int, confidence: float
) -> dict[str, Any]:
    kinds = Counter(episode.kind for episode in episodes)
    tasks = tasks_of(episodes)
    return {
        "agent": agent,
        "value": value,
        "episodes": len(episodes),
        "tasks": len(tasks),
        "scenarios": len({episode.scenario for episode in episodes}),
        "success": kinds["success"],
        "failure": kinds["failure"],
        "invalid": kinds["invalid"],
        "invalid_rate": _round(kinds["invalid"] / len(episodes)),
        "pass_k": pass_k_curve(tasks, bootstrap, seed, confidence),
    }


def _reasons(episodes: Sequence[Episode], top: int) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str, str], list[Episode]] = defaultdict(list)
    for episode in episodes:
        if episode.kind != "success":
            grouped[(episode.agent, episode.kind, episode.reason)].append(episode)
    totals = Counter()
    for (agent, kind, _), members in grouped.items():
        totals[(agent, kind)] += len(members)
    rows = []
    for agent, kind in sorted(totals):
        ranked = sorted(
            ((reason, members) for (a, k, reason), members in grouped.items() if (a, k) == (agent, kind)),
            key=lambda item: (-len(item[1]), item[0]),
        )
        for reason, members in ranked[:top]:
            rows.append(
                {
                    "agent": agent,
                    "kind": kind,
                    "reason": reason,
                    "count": len(members),
                    "share": _round(len(members) / totals[(agent, kind)]),
                    "scenarios": sorted({episode.scenario for episode in members}),
                }
            )
    return rows


def _cost(agent: str, episodes: Sequence[Episode]) -> dict[str, Any]:
    row: dict[str, Any] = {
        "agent": agent,
        "episodes": len(episodes),
        "successes": sum(episode.kind == "success" for episode in episodes),
    }
    for measure in COST_MEASURES:
        measured = [episode for episode in episodes if getattr(episode, measure) is not None]
        total = sum(getattr(episode, measure) for episode in measured)
        successes = sum(episode.kind == "success" for episode in measured)
        row[measure] = {
            "episodes": len(measured),
            "total": _round(float(total)) if measured else None,
            "per_episode": _round(total / len(measured)) if measured else None,
            "per_success": _round(total / successes) if successes else None,
        }
    agent_seconds = [value for episode in episodes for value in episode.turn_agent_seconds]
    env_seconds = [value for episode in episodes for value in episode.turn_env_seconds]
    row["turn_latency"] = {
        "turns": len(agent_seconds),
        "agent_seconds": _round(sum(agent_seconds) / len(agent_seconds)) if agent_seconds else None,
        "env_seconds": _round(sum(env_seconds) / len(env_seconds)) if env_seconds else None,
    }
    return row


# ----------------------------------------------------------------------------------------------
# Renderings


def _figure(entry: Mapping[str, Any] | None) -> str:
    if not entry:
        return "-"
    if entry["low"] is None:
        return f"{entry['estimate']:.3f}"
    return f"{entry['estimate']:.3f} [{entry['low']:.3f}, {entry['high']:.3f}]"


def _number(value: float | None, digits: int = 1) -> str:
    if value is None:
        return "-"
    return f"{value:,.{digits}f}"


def _shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def tables(report: Mapping[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The report's tables as (title, header, rows of cells): what the text and HTML renderings show."""
    settings = report["settings"]
    level = f"{settings['confidence']:.0%}"
    out: list[tuple[str, list[str], list[list[str]]]] = []
    curve_rows = [
        [row["value"], str(entry["k"]), _figure(entry), str(entry["tasks"]), str(entry["scenarios"])]
        for row in report["breakdowns"]["agent"]
        for entry in row["pass_k"]
    ]
    out.append(("pass^k by agent", ["agent", "k", f"pass^k [{level} CI]", "tasks", "scenarios"], curve_rows))
    for dimension, title, column in DIMENSIONS:
        if dimension == "agent":
            continue  # shown as the pass^k table and in the others' agent column
        header = [column, "agent", f"pass^1 [{level} CI]", "tasks", "scenarios"]
        header += ["episodes", "success", "failure", "invalid", "invalid rate"]
        rows = []
        for row in report["breakdowns"][dimension]:
            first = row["pass_k"][0] if row["pass_k"] else None
            rows.append(
                [
                    row["value"],
                    row["agent"],
                    _figure(first),
                    str(first["tasks"] if first else 0),
                    str(first["scenarios"] if first else 0),
                    str(row["episodes"]),
                    str(row["success"]),
                    str(row["failure"]),
                    str(row["invalid"]),
                    f"{row['invalid_rate']:.1%}",
                ]
            )
        out.append((title, header, rows))
    out.append(
        (
            "Reasons of failures and invalid episodes (most frequent first)",
            ["agent", "outcome", "count", "share", "reason", "scenarios"],
            [
                [
                    row["agent"],
                    row["kind"],
                    str(row["count"]),
                    f"{row['share']:.0%}",
                    row["reason"] or NONE_LABEL,
                    ", ".join(row["scenarios"][:3]) + (" …" if len(row["scenarios"]) > 3 else ""),
                ]
                for row in report["reasons"]
            ],
        )
    )
    cost_rows = []
    for row in report["cost"]:
        for measure in COST_MEASURES:
            figures = row[measure]
            digits = 3 if measure == "seconds" else 1
            cost_rows.append(
                [
                    row["agent"],
                    measure.replace("_", " "),
                    f"{figures['episodes']}/{row['episodes']}",
                    _number(figures["per_episode"], digits),
                    _number(figures["per_success"], digits),
                    _number(figures["total"], 3 if measure == "seconds" else 0),
                ]
            )
    out.append(
        (
            "Cost (per success: the total over all episodes divided by the successes)",
            ["agent", "measure", "episodes measured", "per episode", "per success", "total"],
            cost_rows,
        )
    )
    latency_rows = [
        [
            row["agent"],
            str(row["turn_latency"]["turns"]),
            _number(row["turn_latency"]["agent_seconds"], 3),
            _number(row["turn_latency"]["env_seconds"], 3),
        ]
        for row in report["cost"]
        if row["turn_latency"]["turns"]
    ]
    out.append(("Latency per turn (mean seconds)", ["agent", "turns", "agent", "environment"], latency_rows))
    return out


NUMERIC_CELL = re.compile(r"[-+\d.,%/\[\] ]*")


def _numeric_column(rows: Sequence[Sequence[str]], position: int) -> bool:
    """Whether a column holds figures only (right-aligned) rather than names (left-aligned)."""
    return all(NUMERIC_CELL.fullmatch(row[position]) for row in rows)


def _summary_line(report: Mapping[str, Any]) -> str:
    inputs, settings = report["inputs"], report["settings"]
    skipped = (
        f", {inputs['duplicates_skipped']} duplicate records skipped" if inputs["duplicates_skipped"] else ""
    )
    return (
        f"{inputs['episodes']} episodes, {inputs['tasks']} tasks, {inputs['scenarios']} scenario families, "
        f"{len(report['agents'])} agent(s) from {len(inputs['files'])} file(s){skipped}. "
        f"Intervals: {settings['confidence']:.0%} percentile bootstrap over scenario families "
        f"(B = {settings['bootstrap']}, seed {settings['seed']}); invalid episodes are not trials."
    )


def render_text(report: Mapping[str, Any], out: IO[str], width: int | None = None) -> None:
    """The tables as text: rich tables on a terminal, plain ones (no colour codes) elsewhere.

    Args:
        report: From :func:`build_report`.
        out: Where to write.
        width: Line width (default: the terminal's, or 160 when not a terminal).
    """
    from rich import box
    from rich.console import Console
    from rich.table import Table

    terminal = hasattr(out, "isatty") and out.isatty()
    console = Console(
        file=out,
        width=width or (None if terminal else 160),
        force_terminal=terminal,
        no_color=not terminal,
        highlight=False,
        emoji=False,
        markup=False,
    )
    console.print(_summary_line(report), soft_wrap=True)
    for title, header, rows in tables(report):
        if not rows:
            continue
        table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left", show_edge=False)
        for column in header:
            numeric = _numeric_column(rows, header.index(column))
            table.add_column(column, justify="right" if numeric else "left", overflow="fold")
        for cells in rows:
            table.add_row(*cells)
        console.print()
        console.print(table)


def render_json(report: Mapping[str, Any]) -> str:
    """The report as JSON text (sorted keys, so the same report is the same bytes)."""
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False)


# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#7F7F7F", "#000000")

STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b;
  margin: 2rem auto; max-width: 1200px; padding: 0 1rem; }
h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 2rem; border-bottom: 1px solid #ddd; }
p.summary { color: #444; }
table { border-collapse: collapse; margin: .5rem 0 1rem; font-variant-numeric: tabular-nums; }
th, td { padding: .2rem .6rem; border-bottom: 1px solid #eee; text-align: right; vertical-align: top; }
th { background: #f6f6f6; } td.text, th.text { text-align: left; }
td.reason { max-width: 40rem; text-align: left; word-break: break-word; }
svg { display: block; margin: .5rem 0; max-width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #333; }
.axis { stroke: #888; } .grid { stroke: #e5e5e5; }
.legend span { display: inline-block; margin-right: 1rem; }
.legend i { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: -1px; }
"""


def _e(text: Any) -> str:
    """Escaped for HTML text and attribute values (every string from records passes here)."""
    return html.escape(str(text), quote=True)


def _color(report: Mapping[str, Any], agent: str) -> str:
    return PALETTE[report["agents"].index(agent) % len(PALETTE)]


def _legend(report: Mapping[str, Any]) -> str:
    items = "".join(
        f'<span><i style="background:{_color(report, agent)}"></i>{_e(agent)}</span>'
        for agent in report["agents"]
    )
    return f'<p class="legend">{items}</p>'


def _curve_svg(report: Mapping[str, Any]) -> str:
    """pass^k against k, one line a agent, its confidence band shaded."""
    rows = [row for row in report["breakdowns"]["agent"] if row["pass_k"]]
    k_max = max((len(row["pass_k"]) for row in rows), default=1)
    width, height, left, right, top, bottom = 640, 320, 50, 20, 15, 40
    plot_w, plot_h = width - left - right, height - top - bottom

    def x(k: int) -> float:
        return left + (plot_w / 2 if k_max == 1 else (k - 1) / (k_max - 1) * plot_w)

    def y(value: float) -> float:
        return top + (1 - value) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="pass-k-curve" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="pass^k against k by agent">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line class="grid" x1="{left}" x2="{width - right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}"/>'
        )
        parts.append(f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
    for k in range(1, k_max + 1):
        parts.append(f'<text x="{x(k):.1f}" y="{height - bottom + 16}" text-anchor="middle">{k}</text>')
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 6}" text-anchor="middle">k (trials)</text>')
    parts.append(
        f'<line class="axis" x1="{left}" x2="{left}" y1="{top}" y2="{top + plot_h}"/>'
        f'<line class="axis" x1="{left}" x2="{width - right}" y1="{top + plot_h}" y2="{top + plot_h}"/>'
    )
    for row in rows:
        color = _color(report, row["agent"])
        banded = [entry for entry in row["pass_k"] if entry["low"] is not None]
        if len(banded) > 1:
            outline = [(x(e["k"]), y(e["high"])) for e in banded] + [
                (x(e["k"]), y(e["low"])) for e in banded[::-1]
            ]
            points = " ".join(f"{px:.1f},{py:.1f}" for px, py in outline)
            parts.append(
                f'<polygon class="band" points="{points}" fill="{color}" fill-opacity="0.18" stroke="none"/>'
            )
        else:
            for entry in banded:  # one k: the interval as a whisker
                parts.append(
                    f'<line x1="{x(entry["k"]):.1f}" x2="{x(entry["k"]):.1f}" y1="{y(entry["low"]):.1f}" '
                    f'y2="{y(entry["high"]):.1f}" stroke="{color}" stroke-width="2"/>'
                )
        line = " ".join(f"{x(e['k']):.1f},{y(e['estimate']):.1f}" for e in row["pass_k"])
        parts.append(f'<polyline points="{line}" fill="none" stroke="{color}" stroke-width="2"/>')
        for entry in row["pass_k"]:
            label = f"{row['agent']}: pass^{entry['k']} {_figure(entry)}, {entry['tasks']} tasks, "
            label += f"{entry['scenarios']} scenarios"
            parts.append(
                f'<circle cx="{x(entry["k"]):.1f}" cy="{y(entry["estimate"]):.1f}" r="3.5" fill="{color}">'
                f"<title>{_e(label)}</title></circle>"
            )
    parts.append("</svg>")
    return "".join(parts)


def _bars_svg(report: Mapping[str, Any]) -> str:
    """pass^1 by scenario family, a bar a agent, its interval as a whisker."""
    rows = [row for row in report["breakdowns"]["scenario"] if row["pass_k"]]
    families = sorted({row["value"] for row in rows})
    agents = report["agents"]
    bar, gap, label_w, plot_w, top = 12, 8, 300, 420, 24
    per_family = bar * len(agents) + gap
    height = top + per_family * len(families) + 30
    width = label_w + plot_w + 30
    found = {(row["value"], row["agent"]): row["pass_k"][0] for row in rows}

    def x(value: float) -> float:
        return label_w + value * plot_w

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" id="pass-1-by-family" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="pass^1 by scenario family">'
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            f'<line class="grid" x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{top}" y2="{height - 30}"/>'
        )
        parts.append(f'<text x="{x(tick):.1f}" y="{top - 8}" text-anchor="middle">{tick:g}</text>')
    for position, family in enumerate(families):
        y0 = top + position * per_family
        parts.append(
            f'<text x="{label_w - 8}" y="{y0 + bar * len(agents) / 2 + 4:.1f}" text-anchor="end">'
            f"{_e(_shorten(family, 44))}</text>"
        )
        for slot, agent in enumerate(agents):
            entry = found.get((family, agent))
            if entry is None:
                continue
            color = _color(report, agent)
            y_bar = y0 + slot * bar
            label = f"{family}, {agent}: pass^1 {_figure(entry)}, {entry['tasks']} tasks"
            parts.append(
                f'<rect x="{label_w}" y="{y_bar + 1}" width="{max(entry["estimate"] * plot_w, 2):.1f}" '
                f'height="{bar - 2}" fill="{color}"><title>{_e(label)}</title></rect>'
            )
            if entry["low"] is not None:
                middle = y_bar + bar / 2
                parts.append(
                    f'<path d="M{x(entry["low"]):.1f} {middle:.1f}H{x(entry["high"]):.1f}'
                    f'M{x(entry["low"]):.1f} {middle - 3:.1f}v6M{x(entry["high"]):.1f} {middle - 3:.1f}v6" '
                    'stroke="#222" stroke-width="1" fill="none"/>'
                )
    parts.append(
        f'<text x="{label_w + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        "pass^1 (whiskers: CI)</text>"
    )
    parts.append("</svg>")
    return "".join(parts)


def _table_html(title: str, header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    textual = {column for position, column in enumerate(header) if not _numeric_column(rows, position)}

    def cell(tag: str, column: str, value: str) -> str:
        kind = "reason" if column == "reason" else ("text" if column in textual else "")
        attribute = f' class="{kind}"' if kind else ""
        return f"<{tag}{attribute}>{_e(value)}</{tag}>"

    head = "".join(cell("th", column, column) for column in header)
    body = "".join(
        "<tr>" + "".join(cell("td", c, v) for c, v in zip(header, r, strict=True)) + "</tr>" for r in rows
    )
    return f"<h2>{_e(title)}</h2>\n<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"


def render_html(report: Mapping[str, Any]) -> str:
    """One self-contained page: inline CSS and SVG, no script, nothing fetched from anywhere."""
    sections = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # An empty icon: the browser asks for no favicon.
        '<link rel="icon" href="data:,">',
        "<title>enterprise-envs report</title>",
        f"<style>{STYLE}</style></head><body>",
        "<h1>enterprise-envs report</h1>",
        f'<p class="summary">{_e(_summary_line(report))}</p>',
        f'<p class="summary">Files: {_e(", ".join(report["inputs"]["files"]))}</p>',
        "<h2>pass^k curve (shaded: confidence interval)</h2>",
        _legend(report),
        _curve_svg(report),
        "<h2>pass^1 by scenario family (whiskers: confidence interval)</h2>",
        _legend(report),
        _bars_svg(report),
    ]
    sections += [_table_html(title, header, rows) for title, header, rows in tables(report) if rows]
    sections.append("</body></html>\n")
    return "\n".join(sections)


# ----------------------------------------------------------------------------------------------
# Command line


def run_report(
    paths: Sequence[Path | str],
    html_out: Path | None = None,
    as_json: bool = False,
    out: IO[str] | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    agent_by_file: bool = False,
    top_reasons: int = 5,
) -> int:
    """Read records, print the report (text or JSON) and write the HTML page if asked.

    Returns:
        0.

    Raises:
        ReportInputError: Input that cannot be read, or a page that cannot be written (the CLI
            prints the message and exits 2).
    """
    out = out or sys.stdout
    episodes, inputs = load_episodes(paths, agent_by_file=agent_by_file)
    report = build_report(episodes, inputs, bootstrap=bootstrap, seed=seed, top_reasons=top_reasons)
    if html_out is not None:
        try:
            Path(html_out).write_text(render_html(report), encoding="utf-8")
        except OSError as error:
            raise ReportInputError(f"{html_out}: cannot write the page: {error.strerror or error}") from None
    if as_json:
        out.write(render_json(report) + "\n")
    else:
        render_text(report, out)
    return 0


def _command(args: argparse.Namespace) -> int:
    try:
        return run_report(
            args.runs,
            html_out=Path(args.html) if args.html else None,
            as_json=args.json,
            bootstrap=args.bootstrap,
            seed=args.bootstrap_seed,
            agent_by_file=args.agent_by_file,
            top_reasons=args.top_reasons,
        )
    except ReportInputError as error:
        print(f"enterprise-envs report: {error}", file=sys.stderr)
        return 2


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be >= 0")
    return value


def add_report_command(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add ``report`` to the CLI's subcommands (``enterprise-envs report RUNS.jsonl...``)."""
    parser = subparsers.add_parser(
        "report",
        help="pass^k with confidence intervals, breakdowns and cost of JSONL runs (text, --json, --html)",
    )
    parser.add_argument("runs", nargs="+", help="JSONL files written by `enterprise-envs run`")
    parser.add_argument("--html", default=None, metavar="PATH", help="also write a self-contained HTML page")
    parser.add_argument("--json", action="store_true", help="print the tables as JSON instead of text")
    parser.add_argument(
        "--bootstrap",
        type=_non_negative,
        default=1000,
        metavar="B",
        help="bootstrap resamples (default 1000)",
    )
    parser.add_argument(
        "--bootstrap-seed", type=int, default=0, metavar="SEED", help="the bootstrap's seed (default 0)"
    )
    parser.add_argument(
        "--top-reasons",
        type=_non_negative,
        default=5,
        metavar="N",
        help="reasons listed per agent and outcome",
    )
    parser.add_argument(
        "--agent-by-file",
        action="store_true",
        help="name the agent of records that do not say (older records) by the file's stem, not 'unknown'",
    )
    parser.set_defaults(run=_command)
    return parser


__all__ = [
    "Episode",
    "ReportInputError",
    "Task",
    "add_report_command",
    "build_report",
    "load_episodes",
    "parse_record",
    "pass_hat_k",
    "pass_k_curve",
    "render_html",
    "render_json",
    "render_text",
    "run_report",
    "tables",
    "tasks_of",
]
