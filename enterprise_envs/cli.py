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

    return run_demo(
        episodes=args.episodes,
        seed=args.seed,
        scenario=args.scenario,
        out=sys.stdout,
        agent=args.agent,
        agent_options=_agent_options(args),
        env_kwargs=_user_kwargs(args),
    )


def _list(args: argparse.Namespace) -> int:
    from enterprise_envs import registry

    if args.json:
        print(json.dumps(_listing(), indent=2))
        return 0
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


def _listing() -> dict:
    """What ``list --json`` prints: suites, systems and scenarios with their ids, tags and tools."""
    from enterprise_envs import registry

    return {
        "environments": [
            {
                "id": suite.env_id,
                "namespaced_id": f"{registry.NAMESPACE}/{suite.env_id}",
                "description": suite.description,
                "scenarios": [scenario.id for scenario in registry.select(suite, None)],
            }
            for suite in registry.suites().values()
        ],
        "systems": [
            {
                "name": name,
                "tables": len(system.catalog),
                "surfaces": {surface: len(system.surface(surface)) for surface in system.surfaces},
                "spec_version": str(system.settings.get("spec_version", "")),
            }
            for name, system in sorted(registry.systems().items())
        ],
        "scenarios": [
            {
                "id": scenario_id,
                "version": scenario.version,
                "title": scenario.title,
                "tags": list(scenario.tags),
                "systems": list(scenario.systems),
                "suite": registry.suite_serving(scenario_id).env_id,
            }
            for scenario_id, scenario in sorted(registry.scenarios().items())
        ],
    }


def _agent_options(args: argparse.Namespace) -> dict:
    """The LLM agent's options from the command line (empty for the oracle and the random agent)."""
    if args.agent != "llm":
        return {}
    options = {
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "temperature": args.temperature,
        "max_completion_tokens": args.max_completion_tokens,
        "token_budget": args.token_budget,
    }
    return {key: value for key, value in options.items() if value is not None}


def _user_kwargs(args: argparse.Namespace) -> dict:
    """The simulated user's make options from the command line."""
    kwargs: dict = {"user": args.user}
    if args.user_model:
        kwargs["user_model"] = args.user_model
    if args.user_base_url:
        kwargs["user_base_url"] = args.user_base_url
    return kwargs


def _run(args: argparse.Namespace) -> int:
    from enterprise_envs.runner import EXIT_INTERRUPTED, default_progress, run

    env_kwargs: dict = {"surface": args.surface, **_user_kwargs(args)}
    if args.scenario:
        env_kwargs["scenario"] = args.scenario
    if args.world_size:
        env_kwargs["world_size"] = args.world_size
    if args.faults:
        env_kwargs["faults"] = args.faults if args.faults in ("scenario", "off") else json.loads(args.faults)
    to_stdout = args.out == "-"
    backend, jobs = None, args.jobs
    if args.ray:
        from enterprise_envs.integrations.ray import RayBackend

        jobs = args.workers or 2
        backend = RayBackend(jobs, args.address)
    try:
        summary = run(
            args.env_id,
            args.agent,
            args.episodes,
            seed=args.seed,
            out=sys.stdout if to_stdout else (Path(args.out) if args.out else None),
            env_kwargs=env_kwargs,
            progress=default_progress(),
            jobs=jobs,
            trials=args.trials,
            agent_options=_agent_options(args),
            max_episode_steps=args.max_episode_steps,
            backend=backend,
        )
    except (ConnectionError, TimeoutError) as error:
        if backend is None:
            raise
        print(f"enterprise-envs run: {error}", file=sys.stderr)  # an unreachable or too small cluster
        return 1
    except KeyboardInterrupt:  # Ctrl-C while the Ray workers were starting (later ones end the run)
        print("enterprise-envs run: interrupted before any episode ran", file=sys.stderr)
        return EXIT_INTERRUPTED
    # With the records on stdout, the summary goes to stderr so the JSONL stays clean.
    report = sys.stderr if to_stdout else sys.stdout
    print(summary.to_text(), file=report)
    ended = sum(summary.totals.values())
    print(
        f"{ended} of {summary.planned} episodes in {summary.seconds:.2f} s"
        + (" (interrupted: the finished episodes are kept)" if summary.interrupted else ""),
        file=report,
    )
    return summary.exit_status


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


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _add_agent_options(parser: argparse.ArgumentParser) -> None:
    """The agent and, for ``llm``, its OpenAI-compatible endpoint (the same wherever an agent plays)."""
    parser.add_argument("--agent", choices=["oracle", "random", "llm"], default="oracle")
    group = parser.add_argument_group("the llm agent (an OpenAI-compatible chat-completions endpoint)")
    group.add_argument("--model", default=None, help="the model name the endpoint serves (required with llm)")
    group.add_argument("--base-url", default=None, help="e.g. http://127.0.0.1:8000/v1 (default: OpenAI's)")
    group.add_argument(
        "--api-key-env",
        default=None,
        help="variable holding the key (default OPENAI_API_KEY; read only if set or if no --base-url)",
    )
    group.add_argument("--temperature", type=float, default=None, help="sampling temperature (default 0)")
    group.add_argument("--max-completion-tokens", type=_positive, default=None, help="per model call")
    group.add_argument(
        "--token-budget", type=_positive, default=None, help="tokens per episode; the agent ends when spent"
    )


def _add_user_options(parser: argparse.ArgumentParser) -> None:
    """The simulated user: rules, or an LLM over an OpenAI-compatible endpoint."""
    parser.add_argument("--user", choices=["rules", "llm"], default="rules")
    parser.add_argument(
        "--user-model", default=None, help="the llm user's model (default: $ENTERPRISE_ENVS_LLM_MODEL)"
    )
    parser.add_argument(
        "--user-base-url",
        default=None,
        help="the llm user's endpoint (default: $ENTERPRISE_ENVS_LLM_BASE_URL)",
    )


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
    _add_agent_options(demo)
    _add_user_options(demo)
    demo.set_defaults(run=_demo)

    listing = commands.add_parser("list", help="list environments, systems and scenarios")
    listing.add_argument("--json", action="store_true", help="print the listing as JSON")
    listing.set_defaults(run=_list)

    running = commands.add_parser("run", help="run episodes with an agent and write JSONL trajectories")
    running.add_argument("env_id", help="e.g. ITSM-v0")
    running.add_argument("--episodes", type=_positive, default=10, help="seeds to play (default 10)")
    running.add_argument("--seed", type=int, default=0, help="first seed")
    running.add_argument(
        "--trials", type=_positive, default=1, help="plays of each seed, for pass^k (default 1)"
    )
    running.add_argument("--jobs", type=_positive, default=1, help="episodes played at a time (default 1)")
    running.add_argument("--out", default=None, help="JSONL file for the trajectory records; - for stdout")
    on_ray = running.add_argument_group("Ray (pip install 'enterprise-envs[ray]'; docs/integrations.md)")
    on_ray.add_argument("--ray", action="store_true", help="play the episodes on Ray actors, one env each")
    on_ray.add_argument(
        "--address", default=None, help="the cluster: auto, host:6379 or ray://host:10001 (default: local)"
    )
    on_ray.add_argument("--workers", type=_positive, default=None, help="Ray actors (default 2)")
    running.add_argument("--scenario", action="append", help="scenario id or tag (repeatable)")
    running.add_argument("--surface", choices=["typed", "rest"], default="typed")
    running.add_argument("--world-size", choices=["tiny", "default", "large"], default=None)
    running.add_argument(
        "--faults", default=None, help="scenario | off | a JSON fault config (schema: docs/evaluation.md)"
    )
    running.add_argument(
        "--max-episode-steps", type=_positive, default=None, help="gymnasium.make's step limit (a TimeLimit)"
    )
    _add_agent_options(running)
    _add_user_options(running)
    running.set_defaults(run=_run)

    pilot = commands.add_parser("pilot", help="probe a scenario's simulated user with scripted agents")
    pilot.add_argument("scenario", help="scenario id, e.g. itsm.report_incident")
    pilot.add_argument("--seeds", type=int, nargs="+", default=[0])
    _add_user_options(pilot)
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

    from enterprise_envs.report import add_report_command

    add_report_command(commands)

    from enterprise_envs.bench import GROUPS, OPTIONAL_GROUPS

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
        choices=(*GROUPS, *OPTIONAL_GROUPS),
        metavar="NAME",
        help=f"only: {', '.join(GROUPS)}; and, only when named, {', '.join(OPTIONAL_GROUPS)} (its extra)",
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
        from enterprise_envs.mocks._core.faults import FaultConfig

        try:
            FaultConfig.from_dict(config)
        except ValueError as error:
            raise UsageError(f"--faults: {error}") from None
    _check_models(args)
    _check_ray(args)


def _check_ray(args: argparse.Namespace) -> None:
    """``--address`` and ``--workers`` go with ``--ray``, which needs the ray package (else exit 2)."""
    if not getattr(args, "ray", False):
        for option in ("address", "workers"):
            if getattr(args, option, None) is not None:
                raise UsageError(f"--{option} goes with --ray")
        return
    if args.jobs != 1:
        raise UsageError("--ray plays --workers episodes at a time; --jobs is for a local run")
    try:
        import ray  # noqa: F401
    except ImportError:
        raise UsageError("--ray needs the ray package: pip install 'enterprise-envs[ray]'") from None


def _check_models(args: argparse.Namespace) -> None:
    """A model-backed agent or user has a model and its client library (else exit 2, not a traceback)."""
    llm_agent = getattr(args, "agent", None) == "llm"
    llm_user = getattr(args, "user", None) == "llm"
    if llm_agent and not args.model:
        raise UsageError("--agent llm needs --model (the model name the endpoint serves)")
    if llm_user and not (args.user_model or os.environ.get("ENTERPRISE_ENVS_LLM_MODEL")):
        raise UsageError("--user llm needs --user-model (or ENTERPRISE_ENVS_LLM_MODEL)")
    if llm_agent or llm_user:
        try:
            import openai  # noqa: F401
        except ImportError:
            raise UsageError(
                "the llm agent and user need the openai package: pip install 'enterprise-envs[llm]'"
            ) from None


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
