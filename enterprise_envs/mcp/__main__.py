"""``python -m enterprise_envs.mcp serve|verify ...``: the serve commands without the main CLI."""

from enterprise_envs.mcp.commands import main

raise SystemExit(main())
