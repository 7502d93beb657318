"""verifiers/audit stays below the env: it imports only the verifiers, the mocks and the standard library."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

AUDIT = Path(__file__).resolve().parents[2] / "verifiers" / "audit"
ALLOWED = ("enterprise_envs.verifiers", "enterprise_envs.mocks")


def test_the_audit_package_imports_nothing_above_the_verifiers() -> None:
    files = sorted(AUDIT.glob("*.py"))
    assert files
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                ok = name.startswith(ALLOWED) or top in sys.stdlib_module_names or top == "__future__"
                assert ok, f"{path.name} imports {name}"
