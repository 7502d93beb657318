"""Python code blocks in README.md and docs/ run as written (docs that lie fail CI)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCKS = [(page, index, code) for page in PAGES for index, code in enumerate(BLOCK.findall(page.read_text()))]


@pytest.mark.parametrize(
    ("page", "index", "code"), BLOCKS, ids=[f"{p.relative_to(ROOT)}#{i}" for p, i, _ in BLOCKS]
)
def test_code_block_runs(page: Path, index: int, code: str) -> None:
    exec(compile(code, f"{page.name}#{index}", "exec"), {"__name__": f"doc_{index}"})


def test_readme_has_exactly_two_setup_commands() -> None:
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.*?)```", setup, re.DOTALL)
    assert len(commands) == 2
    assert commands[0].strip().endswith("enterprise-envs demo")
    assert commands[1].strip().endswith("pytest")
    ci = (ROOT / ".ci" / "run").read_text()
    assert 'pip install -e ".[test]" && pytest' in ci  # CI runs the README's test command
