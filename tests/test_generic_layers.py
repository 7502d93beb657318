"""The generic layers name no vendor: every ServiceNow name is the ITSM system's to declare.

Read from the ITSM catalog itself (so a table or field added there is covered too): a string
literal in mocks/_core, verifiers/, scenarios/ (bar the systems' content folders) or
enterprise_envs/ may not be one of its table names, carry one of its field names that are
identifiers (``caller_id``, ``sys_id``), one of its record numbers (a prefix and digits), its
date-time format or its superuser's name. Docstrings and comments may use them as examples.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from enterprise_envs.mocks.itsm import ITSM
from enterprise_envs.mocks.itsm.conventions import ITSM_CONVENTIONS

ROOT = Path(__file__).resolve().parents[1]
GENERIC = ["mocks/_core", "verifiers", "scenarios", "enterprise_envs"]


def _vendor_patterns() -> dict[str, re.Pattern[str]]:
    catalog = ITSM.catalog
    fields = sorted({f.name for spec in catalog.values() for f in spec.fields if "_" in f.name})
    prefixes = sorted({spec.number_prefix for spec in catalog.values() if spec.number_prefix})
    word = r"(?<![A-Za-z0-9_]){}(?![A-Za-z0-9_])"
    return {
        "table": re.compile("|".join(re.escape(name) for name in sorted(catalog)).join(("^(?:", ")$"))),
        "field": re.compile(word.format("(?:" + "|".join(map(re.escape, fields)) + ")")),
        "record number": re.compile(r"(?<![A-Za-z])(?:" + "|".join(prefixes) + r")\d{3,}"),
        "date-time format": re.compile(re.escape(ITSM_CONVENTIONS.formats.datetime)),
        "superuser": re.compile(r"^,?" + re.escape(ITSM_CONVENTIONS.audit.privileged_role) + "$"),
    }


def _literals(path: Path) -> Iterator[tuple[int, str]]:
    """Every string constant of a module but its docstrings."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def _generic_modules() -> list[Path]:
    found = []
    for root in GENERIC:
        for path in sorted((ROOT / root).rglob("*.py")):
            # A system's own content folder (scenarios/<system>/) holds data, not code, today.
            found.append(path)
    return found


def test_the_patterns_find_what_they_are_for() -> None:
    """The check could fail: each pattern catches its kind of name."""
    patterns = _vendor_patterns()
    assert patterns["table"].search("incident")
    assert patterns["field"].search('"caller_id = ?"')
    assert patterns["record number"].search("see INC0010001")
    assert patterns["date-time format"].search("%Y-%m-%d %H:%M:%S")
    assert patterns["superuser"].search("admin")
    assert not patterns["table"].search("the incident is closed")


@pytest.mark.parametrize("path", _generic_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_generic_code_names_no_vendor(path: Path) -> None:
    patterns = _vendor_patterns()
    found = [
        f"{path.relative_to(ROOT)}:{line}: {kind} in {text[:60]!r}"
        for line, text in _literals(path)
        for kind, pattern in patterns.items()
        if pattern.search(text)
    ]
    assert not found, "\n".join(found)
