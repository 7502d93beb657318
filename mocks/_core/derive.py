"""What every system's ``spec/derive.py`` shares: references, stable JSON, writing or checking.

A system derives its OpenAPI document from the vendor's published description with a script run
by hand (``python mocks/<system>/spec/derive.py``, ``--check`` in CI); what it keeps and how it
converts is the system's own. The plumbing is here: the ``$ref`` strings a document holds
(:func:`refs`), the document as stable text (:func:`derived_text`), and the command line that
writes the derived files or, with ``--check``, says which differ (:func:`write_or_check`).
Standard library only, so a derive script needs nothing but the package installed.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

__all__ = ["Derived", "derived_text", "refs", "write_or_check"]


class Derived(NamedTuple):
    """One derived document: where it goes, its text, and the source file it is made of.

    Attributes:
        target: The derived file.
        text: What it should hold.
        source: The source's file name (said when it is written or differs).
    """

    target: Path
    text: str
    source: str


def refs(node: Any) -> Iterator[str]:
    """Every ``$ref`` string in a parsed JSON value, depth first, in document order."""
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                yield value
            else:
                yield from refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from refs(item)


def derived_text(derived: Mapping[str, Any], sort_keys: bool = False) -> str:
    """A derived document as written to disk: one-space indent, UTF-8 as is, a trailing newline.

    The same document always gives the same text (a rerun on the same source writes the same
    bytes, and the spec tests compare them).

    Args:
        derived: The document.
        sort_keys: Every object's keys sorted (else in the document's order).
    """
    return json.dumps(derived, indent=1, sort_keys=sort_keys, ensure_ascii=False) + "\n"


def write_or_check(
    argv: Sequence[str] | None, description: str, derive: Callable[[], Iterable[Derived]]
) -> int:
    """The derive script's command line: write every derived file, or with ``--check`` compare.

    Args:
        argv: Command-line arguments (default: the process's).
        description: What the script does (its ``--help`` line).
        derive: The derived documents (called after the arguments are read).

    Returns:
        The exit status: 1 if ``--check`` found a file missing or different, else 0.
    """
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    differ = []
    for target, text, source in derive():
        if args.check:
            if not target.exists() or target.read_text(encoding="utf-8") != text:
                differ.append((target.name, source))
            continue
        target.write_text(text, encoding="utf-8")
        print(f"{target.name}: {len(text.encode('utf-8')):,} bytes from {source}")
    for name, source in differ:
        print(f"{name} differs from what derive.py makes of {source}", file=sys.stderr)
    return 1 if differ else 0
