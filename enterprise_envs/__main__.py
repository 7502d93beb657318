"""``python -m enterprise_envs`` runs the CLI."""

from enterprise_envs.cli import main

raise SystemExit(main())
