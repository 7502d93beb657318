"""The ``serve`` and ``verify`` commands (wired into the CLI by :func:`add_serve_commands`).

``serve`` runs an MCP server: a system's tools over one seeded world per client, or, with
``--scenario``, episodes of a scenario (its tools plus ``send_message_to_user`` and
``end_conversation``), or, with ``--suite``, episodes of any scenario of a suite (each with its
own world's tools). With ``--transport rest`` it serves a system as its vendor's own REST API
instead (``enterprise_envs/rest/``), on the same hub and control plane. ``verify`` asks a
running server's control plane for an episode's verdict.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import sys
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from enterprise_envs.mocks._core.system import WORLD_SIZES
from enterprise_envs.mocks._core.world import world_key, world_systems

DEFAULT_PORT = 8765


def add_serve_commands(subparsers: Any) -> None:
    """Add ``serve`` and ``verify`` to an ``argparse`` subparsers object.

    Each sets ``run`` (``args.run(args) -> exit code``), as the other subcommands do.
    """
    serve = subparsers.add_parser(
        "serve",
        help="serve a mocked system (or a scenario's or a suite's episodes) over MCP, on stdio or HTTP, "
        "or a system as its vendor's REST API",
        description=(
            "World mode (`serve itsm`): the system's tools, each client acting on its own seeded "
            "world. Episode mode (`serve --scenario ID --seed S`): one scenario instance per "
            "episode, with send_message_to_user and end_conversation; the verdict comes from the "
            "control plane (HTTP) or --verdict-out (stdio). Suite episode mode (`serve --suite "
            "Workplace-v0 --seed S`): episodes of any scenario of the suite, each listing its own "
            "world's tools (`itsm_...`, `identity_...` when it holds several systems); without a "
            "scenario the seed draws one as gymnasium.make(SUITE).reset(seed=S) does (over stdio: "
            "the one episode played). `--transport rest`: the system as its vendor's own HTTP API (an "
            "episode of several systems: each system's API side by side), for the vendor's own client "
            "library; the agent talks to the user on the control plane (see docs/rest.md)."
        ),
    )
    serve.add_argument(
        "system",
        nargs="?",
        default=None,
        help="system to serve, e.g. itsm (implied by --scenario; none with --suite)",
    )
    serve.add_argument(
        "--surface",
        choices=["typed", "rest"],
        default=None,
        help="tool surface (default typed; --transport rest serves the API's own, rest)",
    )
    serve.add_argument(
        "--size",
        choices=list(WORLD_SIZES),
        default=None,
        help="world size (default: `default` for worlds, the scenario's own for episodes)",
    )
    serve.add_argument(
        "--seed",
        type=int,
        default=0,
        help="world mode: the world seed; episode mode: the episode's reset seed (default 0)",
    )
    serve.add_argument("--world-seed", type=int, default=0, help="episode mode: the world seed (default 0)")
    serve.add_argument(
        "--scenario",
        default=None,
        help="episode mode: the scenario id, e.g. itsm.report_incident (with --suite: one it serves, "
        "played by the default episode instead of the seed's draw)",
    )
    serve.add_argument(
        "--suite",
        default=None,
        help="suite episode mode: a Gym id, e.g. Workplace-v0; the control plane makes episodes of any "
        "scenario it serves",
    )
    serve.add_argument(
        "--user", choices=["rules", "llm"], default="rules", help="episode mode: the user simulator"
    )
    serve.add_argument("--user-model", default=None, help="episode mode: the llm user's model")
    serve.add_argument("--user-base-url", default=None, help="episode mode: the llm user's endpoint")
    serve.add_argument(
        "--faults", default="scenario", help="episode mode: scenario | off | a JSON fault config"
    )
    serve.add_argument(
        "--transport",
        choices=["stdio", "http", "rest"],
        default="stdio",
        help="stdio or http: MCP; rest: the vendor's own REST API over HTTP (default stdio)",
    )
    serve.add_argument("--host", default="127.0.0.1", help="HTTP interface (default loopback)")
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"HTTP port (default {DEFAULT_PORT}; 0: any)"
    )
    serve.add_argument("--path", default="/mcp", help="HTTP path of the MCP endpoint (default /mcp)")
    serve.add_argument(
        "--tls",
        action="store_true",
        help="HTTP: serve HTTPS with a self-signed certificate made at start (its PEM file's path is "
        "printed: give it to the client to trust)",
    )
    serve.add_argument(
        "--token",
        action="append",
        default=[],
        help="HTTP bearer token, NAME=SECRET or SECRET (repeatable; also ENTERPRISE_ENVS_TOKENS, "
        "comma-separated). Without any, a token is generated and printed.",
    )
    serve.add_argument(
        "--max-envs",
        type=int,
        default=None,
        help="HTTP: live worlds and episodes one token may hold (default 32)",
    )
    serve.add_argument(
        "--max-memory-mb",
        type=int,
        default=None,
        help="HTTP: MiB of world databases one token may hold (default 512)",
    )
    serve.add_argument(
        "--allow-sizes",
        default=",".join(WORLD_SIZES),
        help="HTTP: world sizes the control plane makes, comma-separated (default %(default)s)",
    )
    serve.add_argument(
        "--verdict-out",
        default=None,
        help="stdio episode mode (--scenario or --suite): write the verdict (JSON) here when the "
        "client disconnects",
    )
    serve.set_defaults(run=run_serve)

    verify = subparsers.add_parser(
        "verify", help="end an MCP episode (if running) and print its verdict, from a running server"
    )
    verify.add_argument("--episode", required=True, help="episode id (as the control plane returned it)")
    verify.add_argument(
        "--url",
        default=f"http://127.0.0.1:{DEFAULT_PORT}",
        help="the server's base URL (default %(default)s)",
    )
    verify.add_argument(
        "--token",
        default=None,
        help="bearer token (default: ENTERPRISE_ENVS_TOKEN, else the first of ENTERPRISE_ENVS_TOKENS)",
    )
    verify.add_argument("--json", action="store_true", help="print the whole verdict record as JSON")
    verify.set_defaults(run=run_verify)


# -- serve -------------------------------------------------------------------------------------


def run_serve(args: argparse.Namespace) -> int:
    """The ``serve`` command."""
    from enterprise_envs import registry
    from enterprise_envs.mcp.hub import (
        MAX_BYTES_PER_OWNER,
        MAX_ENVS_PER_OWNER,
        EpisodeDefaults,
        Hub,
        Quotas,
        WorldDefaults,
        check_scenario,
        set_default_hub,
        suite_of,
    )

    system = args.system
    suite = None
    if args.suite is not None:
        if system is not None:
            return _fail(f"--suite serves episodes of the suite's worlds, not one system: drop {system!r}")
        try:
            suite = suite_of(args.suite).env_id
        except ValueError as error:
            return _fail(str(error))
    if args.scenario is not None:
        try:
            scenario = check_scenario(args.scenario, suite)
        except ValueError as error:
            return _fail(str(error))
        if system is not None and system not in scenario.systems:
            return _fail(f"scenario {args.scenario} is not a {system} scenario")
        if suite is None:
            system = world_key(scenario.systems)
    episodes = args.scenario is not None or suite is not None
    if system is None and suite is None:
        return _fail("which system? e.g. `serve itsm`, `serve --scenario <id>` or `serve --suite <Gym id>`")
    if system is not None:
        unknown = [name for name in world_systems(system) if name not in registry.systems()]
        if unknown or (not episodes and len(world_systems(system)) > 1):
            return _fail(f"unknown system {system!r} (have {', '.join(sorted(registry.systems()))})")
    if args.transport == "rest":
        from enterprise_envs.rest import served_apis, systems_served

        try:
            apis = served_apis(systems_served(system, suite))
        except (KeyError, ValueError) as error:
            return _fail(str(error).strip("'\""))
        surface = apis[0].api.surface
        if args.surface not in (None, surface):
            return _fail(f"the REST APIs are served on the {surface} surface, not {args.surface}")
        args.surface = surface
    elif args.tls and args.transport == "stdio":
        return _fail("--tls is for HTTP transports (--transport http or rest)")
    args.surface = args.surface or "typed"
    if args.verdict_out and (not episodes or args.transport != "stdio"):
        return _fail("--verdict-out is for stdio episode mode (--scenario or --suite, --transport stdio)")
    try:
        faults: Any = args.faults if args.faults in ("scenario", "off") else json.loads(args.faults)
    except json.JSONDecodeError:
        return _fail("--faults must be scenario, off or a JSON object")

    sizes = frozenset(size.strip() for size in args.allow_sizes.split(",") if size.strip())
    if not sizes or not sizes <= set(WORLD_SIZES):
        return _fail(f"--allow-sizes takes sizes among {', '.join(WORLD_SIZES)}")
    max_envs = MAX_ENVS_PER_OWNER if args.max_envs is None else args.max_envs
    max_bytes = MAX_BYTES_PER_OWNER if args.max_memory_mb is None else args.max_memory_mb * 2**20
    if max_envs < 1 or max_bytes < 1:
        return _fail("--max-envs and --max-memory-mb must be at least 1")
    if args.user == "llm" and not (args.user_model or os.environ.get("ENTERPRISE_ENVS_LLM_MODEL")):
        return _fail("--user llm needs --user-model (or ENTERPRISE_ENVS_LLM_MODEL)")
    quotas = Quotas(max_envs=max_envs, max_bytes=max_bytes, sizes=sizes)
    hub = Hub(
        quotas=quotas,
        world_defaults=WorldDefaults(size=args.size or "default", seed=args.seed),
        episode_defaults=EpisodeDefaults(
            scenario=args.scenario,
            seed=args.seed,
            surface=args.surface,
            user=args.user,
            user_model=args.user_model,
            user_base_url=args.user_base_url,
            world_size=args.size,
            faults=faults,
            world_seed=args.world_seed,
            suite=suite,
        )
        if episodes
        else None,
    )
    set_default_hub(hub)
    try:
        if args.transport == "stdio":
            return _serve_stdio(hub, system, args.surface, episodes, args.verdict_out, suite)
        if args.transport == "rest":
            return _serve_rest(hub, system, args, episodes, suite)
        return _serve_http(hub, system, args, episodes, suite)
    finally:
        hub.close()


def _serve_stdio(
    hub: Any, system: str | None, surface: str, episodes: bool, verdict_out: str | None, suite: str | None
) -> int:
    import anyio

    from enterprise_envs.mcp.hub import LOCAL
    from enterprise_envs.mcp.servers import episode_server_for, server_for
    from enterprise_envs.mocks._core.mcp import RouteError

    if episodes:
        from enterprise_envs.scenarios.loader import instructions

        # One episode per stdio process: made now, so the opening message can go in the
        # instructions the client reads at initialization, and (for a suite) so its world,
        # drawn by the seed, is known: the process serves that world's episode server.
        try:
            episode = hub.resolve(LOCAL, None, system=system, kind="episode", suite=suite)
        except (ValueError, RouteError) as error:
            return _fail(str(error))
        server = episode_server_for(episode.system, surface)
        runbooks = "\n\n".join(instructions(name) for name in world_systems(episode.system))
        server.instructions = (
            f"{runbooks}\n\n## This conversation\n\nThe user's opening message:\n\n{episode.opening or ''}\n"
        )
    else:
        assert system is not None
        server = server_for(system, surface)
        hub.resolve(LOCAL, None, system=system, kind="world")  # build the world before serving

    with contextlib.suppress(KeyboardInterrupt):
        anyio.run(_run_stdio, server)
    if episodes and verdict_out:
        verdict = episode.end()
        with open(verdict_out, "w", encoding="utf-8") as handle:
            json.dump(verdict, handle, ensure_ascii=False, indent=2)
    return 0


async def _run_stdio(server: Any) -> None:
    await server.run_stdio_async(show_banner=False, log_level="WARNING")


def _serve_http(
    hub: Any, system: str | None, args: argparse.Namespace, episodes: bool, suite: str | None
) -> int:
    from enterprise_envs.mcp.app import create_app

    try:
        tokens, generated = _tokens(args)
    except ValueError as error:
        return _fail(str(error))
    path = args.path if args.path.startswith("/") else "/" + args.path
    if not episodes:
        assert system is not None
        _build_world(system, args)
    try:
        app = create_app(
            hub, system=system, surface=args.surface, episodes=episodes, tokens=tokens, path=path, suite=suite
        )
    except KeyError as error:  # a surface one of the suite's systems lacks
        return _fail(str(error).strip("'\""))
    root = _root(args)
    if suite is not None:
        default = args.scenario or f"the scenario seed {args.seed} draws"
        serving = f"{suite} ({args.surface} surface, episodes of its scenarios; default episode: {default})"
    else:
        what = f"episodes of {args.scenario}" if episodes else "worlds"
        serving = f"{system} ({args.surface} surface, {what})"
    lines = [
        f"enterprise-envs: serving {serving} over MCP",
        f"  MCP endpoint:  {root}{path}  (route with ?env=<id> or X-Env-Id)",
        f"  control plane: {root}/control/  (same bearer token)",
    ]
    return _run(app, args, lines, tokens, generated)


def _serve_rest(
    hub: Any, system: str | None, args: argparse.Namespace, episodes: bool, suite: str | None
) -> int:
    """``serve --transport rest``: vendors' APIs, each token on its own worlds or episodes."""
    from enterprise_envs.rest import create_rest_app, served_apis, systems_served

    try:
        tokens, generated = _tokens(args)
    except ValueError as error:
        return _fail(str(error))
    if not episodes:
        assert system is not None
        _build_world(system, args)
    app = create_rest_app(hub, system=system, tokens=tokens, episodes=episodes, suite=suite)
    apis = served_apis(systems_served(system, suite))
    root = _root(args)
    if suite is not None:
        what = f"episodes of {suite}'s scenarios"
    else:
        what = f"episodes of {args.scenario}" if episodes else "worlds"
    served = ", ".join(f"{item.system} as the {item.api.name}" for item in apis)
    lines = [f"enterprise-envs: serving {served} over HTTP{'S' if args.tls else ''} ({what})"]
    for item in apis:
        lines.append(
            f"  {item.api.name}: {root}{item.api.base_path}  (each token's default env; another: "
            f"{root}/envs/<id>{item.api.base_path} or X-Env-Id)"
        )
    lines.append(f"  control plane: {root}/control/  (Authorization: Bearer <token>)")
    if episodes:
        lines.append(
            f'  the user:      POST {root}/control/episodes/<id>/messages {{"text": ...}}; '
            "the verdict: POST .../verify"
        )
    return _run(app, args, lines, tokens, generated)


def _root(args: argparse.Namespace) -> str:
    """The served root for the banner (``{port}`` filled in once bound)."""
    host = f"[{args.host}]" if ":" in args.host else args.host
    return f"{'https' if args.tls else 'http'}://{host}:{{port}}"


def _tokens(args: argparse.Namespace) -> tuple[dict[str, str], str | None]:
    """The served tokens ({secret: principal}) and the secret generated if none was given.

    Tokens come from ``ENTERPRISE_ENVS_TOKENS`` and ``--token``; with neither, one is generated
    (and returned second, to be printed; None otherwise).

    Raises:
        ValueError: A malformed token spec.
    """
    from enterprise_envs.serving import parse_tokens, tokens_from_env

    tokens = {**tokens_from_env(), **parse_tokens(args.token)}
    if tokens:
        return tokens, None
    generated = secrets.token_urlsafe(24)
    return {generated: "default"}, generated


def _build_world(system: str, args: argparse.Namespace) -> None:
    """Build the served world's snapshot now, not on the first client's call."""
    from enterprise_envs import registry
    from enterprise_envs.mocks._core.snapshot import get_snapshot

    get_snapshot(registry.systems()[system], args.size or "default", args.seed)


def _run(
    app: Any, args: argparse.Namespace, lines: list[str], tokens: dict[str, str], generated: str | None
) -> int:
    """Serve ``app`` in the foreground under a banner naming the tokens' principals."""
    from enterprise_envs.serving import TOKENS_ENV, run_http, self_signed_certificate

    if generated:
        lines.append(f"  no token given ({TOKENS_ENV} or --token): generated one: {generated}")
    else:
        lines.append(f"  tokens for: {', '.join(sorted(set(tokens.values())))}")
    certificate = self_signed_certificate(args.host) if args.tls else None
    if certificate is not None:
        lines.append(f"  TLS certificate (self-signed, trust it in the client): {certificate.cert_file}")
    try:
        run_http(app, host=args.host, port=args.port, banner="\n".join(lines), certificate=certificate)
    except OSError as error:
        return _fail(f"cannot listen on {args.host}:{args.port}: {error}")
    finally:
        if certificate is not None:
            certificate.remove()
    return 0


# -- verify ------------------------------------------------------------------------------------


def run_verify(args: argparse.Namespace) -> int:
    """The ``verify`` command: exit 0 on success, 1 on failure, 2 if invalid, 3 on error."""
    from enterprise_envs.mcp.app import tokens_from_env

    token = args.token or os.environ.get("ENTERPRISE_ENVS_TOKEN") or next(iter(tokens_from_env()), None)
    url = f"{args.url.rstrip('/')}/control/episodes/{args.episode}/verify"
    request = urllib.request.Request(
        url, data=b"{}", method="POST", headers={"Content-Type": "application/json"}
    )
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            record = json.loads(response.read())
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")
        with contextlib.suppress(json.JSONDecodeError, AttributeError):
            detail = json.loads(detail).get("error", detail)
        print(f"verify: {error.code}: {detail}", file=sys.stderr)
        return 3
    except (urllib.error.URLError, OSError) as error:
        print(f"verify: cannot reach {args.url}: {error}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(record, ensure_ascii=False, indent=2))
    else:
        print(verdict_text(record))
    kind = (record.get("outcome") or {}).get("kind")
    return {"success": 0, "failure": 1}.get(kind, 2)


def verdict_text(record: dict[str, Any]) -> str:
    """A short human summary of a verdict record."""
    outcome = record.get("outcome") or {}
    lines = [
        f"episode {record.get('episode_id')} ({record.get('scenario')}, seed {record.get('seed')}): "
        f"{outcome.get('kind')} - {outcome.get('reason')}",
        f"reward {record.get('reward')}, {record.get('steps')} steps, {record.get('tool_calls')} tool calls",
    ]
    verdict = record.get("verdict") if isinstance(record.get("verdict"), dict) else {}
    for result in verdict.get("requirements", []):
        mark = "ok  " if result.get("passed") else "FAIL"
        lines.append(f"  [{mark}] {result.get('kind')} {result.get('label')}: {result.get('evidence')}")
    for change in verdict.get("unexplained", []):
        lines.append(f"  [FAIL] unexplained change: {json.dumps(change, ensure_ascii=False)[:200]}")
    return "\n".join(lines)


def _fail(message: str) -> int:
    print(f"serve: {message}", file=sys.stderr)
    return 2


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m enterprise_envs.mcp serve|verify ...``."""
    parser = argparse.ArgumentParser(
        prog="python -m enterprise_envs.mcp", description="MCP serving for enterprise-envs"
    )
    add_serve_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.run(args)
