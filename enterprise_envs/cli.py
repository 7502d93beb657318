"""The ``enterprise-envs`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence


def _demo(args: argparse.Namespace) -> int:
    from enterprise_envs.demo import run_demo

    return run_demo(size=args.size, seed=args.seed, out=sys.stdout)


def _list(args: argparse.Namespace) -> int:
    from enterprise_envs.mocks.itsm import ITSM

    for system in (ITSM,):
        print(f"system {system.name}: {len(system.catalog)} tables")
        for surface_name in system.surfaces:
            surface = system.surface(surface_name)
            print(f"  surface {surface_name}: {len(surface)} tools: {', '.join(surface.tools)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (one subcommand per job)."""
    parser = argparse.ArgumentParser(
        prog="enterprise-envs", description="Gymnasium environments of mocked enterprise systems."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="drive the ITSM mock through a short service-desk interaction")
    demo.add_argument("--size", default="default", choices=["tiny", "default", "large"], help="world size")
    demo.add_argument("--seed", type=int, default=0, help="world seed")
    demo.set_defaults(run=_demo)
    listing = commands.add_parser("list", help="list systems, surfaces and tools")
    listing.set_defaults(run=_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script."""
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    raise SystemExit(main())
