"""The ``{{...}}`` template syntax, defined once for every layer that reads it.

A scenario refers to drawn values as ``{{path}}``: a param's field (``{{caller.sys_id}}``), a saved
setup or solution result (``{{ticket.number}}``), a persona fact (``{{facts.since}}``). A persona's
own text names one of its facts as ``{{key}}`` (``{{since}}``), filled by the simulated user. Both
are the same syntax: a fact placeholder is a template whose path is a single fact key.
"""

from __future__ import annotations

import re

__all__ = ["FACT_KEY", "FACT_PLACEHOLDER", "TEMPLATE", "template_roots"]

_OPEN, _CLOSE = r"\{\{\s*", r"\s*\}\}"

#: A fact's (and an unknown's, a refusal's, a step's) key: ``employee_number``.
FACT_KEY = r"[a-z_][a-z0-9_]*"

#: ``{{path}}`` anywhere in a scenario; group 1 is the path (``caller.sys_id``).
TEMPLATE = re.compile(_OPEN + r"([A-Za-z0-9_.\-]+)" + _CLOSE)

#: ``{{key}}`` in a persona's own text; group 1 is the fact key.
FACT_PLACEHOLDER = re.compile(_OPEN + f"({FACT_KEY})" + _CLOSE)


def template_roots(text: str) -> list[str]:
    """The first segment of every template path in ``text`` (``caller`` of ``{{caller.sys_id}}``)."""
    return [path.split(".", 1)[0] for path in TEMPLATE.findall(text)]
