"""The ``enterprise-envs`` command line."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path


def _demo(args: argparse.Namespace) -> int:
    from enterprise_envs.demo import run_demo

    return run_demo(episodes=args.episodes, seed=args.seed, scenario=args.scenario, out=sys.stdout)


def _list(args: argparse.Namespace) -> int:
    from enterprise_envs import registry

    print("environments:")
    for suite in registry.suites().values():
        print(f"  {suite.env_id} (also {registry.NAMESPACE}/{suite.env_id}): {suite.description}")
    print("systems:")
    for name, system in sorted(registry.systems().items()):
        surfaces = ", ".join(
            f"{surface} ({len(system.surface(surface))} tools)" for surface in system.surfaces
        )
        print(f"  {name}: {len(system.catalog)} tables; surfaces {surfaces}")
    print("scenarios:")
    for scenario_id, scenario in sorted(registry.scenarios().items()):
        print(f"  {scenario_id} v{scenario.version} [{', '.join(scenario.tags)}]: {scenario.title}")
    return 0


def _run(args: argparse.Namespace) -> int:
    from enterprise_envs.runner import default_progress, run

    env_kwargs: dict = {"surface": args.surface, "user": args.user}
    if args.scenario:
        env_kwargs["scenario"] = args.scenario
    if args.world_size:
        env_kwargs["world_size"] = args.world_size
    if args.faults:
        env_kwargs["faults"] = args.faults if args.faults in ("scenario", "off") else json.loads(args.faults)
    summary = run(
        args.env_id,
        args.agent,
        args.episodes,
        seed=args.seed,
        out=Path(args.out) if args.out else None,
        env_kwargs=env_kwargs,
        progress=default_progress(),
    )
    print(summary.to_text())
    print(f"{sum(sum(row.values()) for row in summary.counts.values())} episodes in {summary.seconds:.2f} s")
    return 0


def _pilot(args: argparse.Namespace) -> int:
    from enterprise_envs.simulator_tools import oracle_signal, pilot_scenario

    report = pilot_scenario(args.scenario, seeds=args.seeds, user=args.user)
    signal = oracle_signal(args.scenario, seeds=args.seeds)
    if args.json:
        print(json.dumps({**report.to_dict(), "oracle_signal": signal.to_dict()}, indent=2))
    else:
        print(report.to_text())
        print(
            f"\noracle signal: {signal.unexplained} of {signal.turns} user replies changed with the "
            f"oracle's writes removed although the user had seen the same ({signal.seeds_signalled} of "
            f"{len(signal.seeds)} seeds; must be 0); {signal.observable} changed after a notification "
            "the person got (what a person would notice too)"
        )
    # An integrity breach fails the command, so a CI step can gate on it.
    return 0 if report.fidelity.integrity_ok() and signal.unexplained == 0 else 1


def _fidelity(args: argparse.Namespace) -> int:
    from enterprise_envs.simulator_tools import fidelity_of_runs

    report = fidelity_of_runs(Path(path) for path in args.runs)
    print(report.to_json() if args.json else report.to_text())
    return 0 if report.integrity_ok() else 1


def _audit(args: argparse.Namespace) -> int:
    from enterprise_envs.audit import progress_printer, run_audit

    surfaces = ["typed", "rest"] if args.surface == "both" else [args.surface]
    report = run_audit(
        args.scenario,
        seeds=args.seeds,
        seed=args.seed,
        surfaces=surfaces,
        probes=args.probe,
        world_size=args.world_size,
        jobs=args.jobs,
        on_scenario=progress_printer(sys.stderr) if sys.stderr.isatty() else None,
        strict=args.strict,
    )
    if args.out:
        Path(args.out).write_text(report.to_json() + "\n", encoding="utf-8")
    print(report.to_json() if args.json else report.to_text(explain=args.explain))
    return report.exit_status


def _bench(args: argparse.Namespace) -> int:
    from enterprise_envs.bench import run_bench

    report = run_bench(quick=args.quick, only=args.only, progress=sys.stderr, suite=args.suite)
    if args.out:
        Path(args.out).write_text(report.to_json() + "\n", encoding="utf-8")
    print(report.to_json() if args.json else report.to_text())
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (one subcommand per job)."""
    parser = argparse.ArgumentParser(
        prog="enterprise-envs", description="Gymnasium environments of mocked enterprise systems."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser(
        "demo", help="play a few oracle episodes of ITSM-v0, printing dialogue and verdict"
    )
    demo.add_argument("--episodes", type=int, default=3)
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--scenario", default=None, help="a scenario id or tag (default: any)")
    demo.set_defaults(run=_demo)

    listing = commands.add_parser("list", help="list environments, systems and scenarios")
    listing.set_defaults(run=_list)

    running = commands.add_parser("run", help="run episodes with an agent and write JSONL trajectories")
    running.add_argument("env_id", help="e.g. ITSM-v0")
    running.add_argument("--agent", choices=["oracle", "random"], default="oracle")
    running.add_argument("--episodes", type=int, default=10)
    running.add_argument("--seed", type=int, default=0)
    running.add_argument("--out", default=None, help="JSONL file for the trajectories")
    running.add_argument("--scenario", action="append", help="scenario id or tag (repeatable)")
    running.add_argument("--surface", choices=["typed", "rest"], default="typed")
    running.add_argument("--user", choices=["rules", "llm"], default="rules")
    running.add_argument("--world-size", choices=["tiny", "default", "large"], default=None)
    running.add_argument("--faults", default=None, help="scenario | off | a JSON fault config")
    running.set_defaults(run=_run)

    pilot = commands.add_parser("pilot", help="probe a scenario's simulated user with scripted agents")
    pilot.add_argument("scenario", help="scenario id, e.g. itsm.report_incident")
    pilot.add_argument("--seeds", type=int, nargs="+", default=[0])
    pilot.add_argument("--user", choices=["rules", "llm"], default="rules")
    pilot.add_argument("--json", action="store_true")
    pilot.set_defaults(run=_pilot)

    from enterprise_envs.verifiers.audit.probes import PROBES

    audit = commands.add_parser(
        "audit",
        help="hackability audit: the oracle passes, the task is necessary, alternatives pass, probes fail",
    )
    audit.add_argument("--scenario", action="append", help="scenario id or tag (repeatable; default: all)")
    audit.add_argument("--seeds", type=int, default=20, help="seeds per scenario (default 20)")
    audit.add_argument("--seed", type=int, default=0, help="first seed")
    audit.add_argument(
        "--surface",
        choices=["typed", "rest", "both"],
        default="typed",
        help="surface(s) whose oracle is probed; other surfaces' solutions are alternatives",
    )
    audit.add_argument("--probe", action="append", choices=list(PROBES), help="run only these probes")
    audit.add_argument("--world-size", choices=["tiny", "default", "large"], default=None)
    audit.add_argument("--jobs", type=int, default=1, help="worker processes")
    audit.add_argument(
        "--strict", action="store_true", help="advisory probes' false positives fail the audit too"
    )
    audit.add_argument("--json", action="store_true", help="print the report as JSON")
    audit.add_argument("--out", default=None, help="also write the JSON report to this file")
    audit.add_argument(
        "--explain",
        action="store_true",
        help="print each failing check in full: trajectory, verdict against the expectation, diff to oracle",
    )
    audit.set_defaults(run=_audit)

    fidelity = commands.add_parser("fidelity", help="simulator fidelity metrics of JSONL runs")
    fidelity.add_argument("runs", nargs="+", help="JSONL files written by `enterprise-envs run`")
    fidelity.add_argument("--json", action="store_true")
    fidelity.set_defaults(run=_fidelity)

    from enterprise_envs.bench import GROUPS

    bench = commands.add_parser(
        "bench", help="performance bench: reset, tool calls, steps, verify, episodes, memory, MCP"
    )
    bench.add_argument("--quick", action="store_true", help="few repeats, small N, tiny/default only")
    bench.add_argument("--json", action="store_true", help="print the report as JSON")
    bench.add_argument("--out", default=None, help="also write the JSON report to this file")
    bench.add_argument(
        "--suite", default="ITSM-v0", help="the Gym id whose first system is measured (its declared workload)"
    )
    bench.add_argument(
        "--only",
        nargs="+",
        action="extend",
        choices=GROUPS,
        metavar="NAME",
        help=f"only: {', '.join(GROUPS)}",
    )
    bench.set_defaults(run=_bench)

    from enterprise_envs.mcp import add_serve_commands  # cheap: FastMCP loads only when serving

    add_serve_commands(commands)
    return parser


class UsageError(Exception):
    """A command line that names something that is not there (a suite, a scenario) or a malformed value."""


#: Exit status of a bad command line (argparse's own for the errors it finds).
USAGE_EXIT = 2


def check_usage(args: argparse.Namespace) -> None:
    """Resolve what the command line names before any work starts, by the resolvers the commands use.

    Raises:
        UsageError: An unknown suite (``run``'s env id, ``bench --suite``), a scenario id or tag
            the command's suite does not serve, or ``--faults`` that is neither ``scenario``,
            ``off`` nor a JSON object.
    """
    from enterprise_envs import registry
    from enterprise_envs.scenarios.format import ScenarioError

    suite = None
    for name in (getattr(args, "env_id", None), getattr(args, "suite", None)):
        if isinstance(name, str):
            try:
                suite = registry.suite(name)
            except KeyError:
                raise UsageError(
                    f"unknown environment {name!r} (have {', '.join(registry.suites())})"
                ) from None
    scenario = getattr(args, "scenario", None)
    if scenario:
        try:
            registry.select(suite, scenario)
        except ScenarioError as error:
            raise UsageError(str(error)) from None
    faults = getattr(args, "faults", None)
    if isinstance(faults, str) and faults not in ("scenario", "off"):
        try:
            config = json.loads(faults)
        except json.JSONDecodeError as error:
            raise UsageError(
                f"--faults is not JSON ({error.msg}): give scenario, off or a JSON object"
            ) from None
        if not isinstance(config, dict):
            raise UsageError("--faults must be scenario, off or a JSON object")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    try:
        if getattr(args, "command", None) != "serve":  # serve checks its own options (mcp/commands.py)
            check_usage(args)
    except UsageError as error:
        print(f"enterprise-envs {getattr(args, 'command', '')}: {error}", file=sys.stderr)
        return USAGE_EXIT
    try:
        return args.run(args)
    except BrokenPipeError:
        # The reader went away (`enterprise-envs fidelity runs.jsonl | head`): stop quietly, and
        # point stdout at nothing so the interpreter's final flush does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
