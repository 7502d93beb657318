"""The package's published JSON Schemas, and a command to regenerate them.

``python -m enterprise_envs.schemas`` rewrites every schema file from its model; a test fails
when a file is stale.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import enterprise_envs.scenarios as scenarios_package
import enterprise_envs.verifiers as verifiers_package
from enterprise_envs.mocks._core.faults import fault_config_json_schema
from enterprise_envs.records import trajectory_json_schema
from enterprise_envs.scenarios.format import scenario_json_schema
from enterprise_envs.scenarios.users.persona import persona_json_schema
from enterprise_envs.verifiers.expectations import expectation_json_schema

#: name -> (file, builder). Files live beside the package that owns the model.
PUBLISHED: dict[str, tuple[Path, Callable[[], dict[str, Any]]]] = {
    "expectation": (
        Path(verifiers_package.__file__).parent / "schema" / "expectation.schema.json",
        expectation_json_schema,
    ),
    "scenario": (
        Path(scenarios_package.__file__).parent / "schema" / "scenario.schema.json",
        scenario_json_schema,
    ),
    "persona": (
        Path(scenarios_package.__file__).parent / "schema" / "persona.schema.json",
        persona_json_schema,
    ),
    # What `enterprise-envs run` writes (one record a line) and what `--faults` / make(faults=) take.
    "trajectory": (Path(__file__).parent / "schema" / "trajectory.schema.json", trajectory_json_schema),
    "faults": (Path(__file__).parent / "schema" / "faults.schema.json", fault_config_json_schema),
}


def render(schema: dict[str, Any]) -> str:
    """The file text of a schema (stable key order, trailing newline)."""
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def main() -> None:
    """Rewrite every published schema."""
    for name, (path, build) in sorted(PUBLISHED.items()):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(render(build()), encoding="utf-8")
        print(f"wrote {name}: {path}")


if __name__ == "__main__":
    main()
