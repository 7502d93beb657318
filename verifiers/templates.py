"""The ``{{...}}`` template syntax, defined once for every layer that reads it.

A scenario refers to drawn values as ``{{path}}``: a param's field (``{{caller.sys_id}}``), a saved
setup or solution result (``{{ticket.number}}``), a persona fact (``{{facts.since}}``). A persona's
own text names one of its facts as ``{{key}}`` (``{{since}}``), filled by the simulated user. Both
are the same syntax: a fact placeholder is a template whose path is a single fact key.

A template may end with a filter: ``{{ticket.number|lower}}`` (a chat channel named after an
incident: Slack's names are lower case). The filters are :data:`FILTERS`.
"""

from __future__ import annotations

import re

__all__ = ["FACT_KEY", "FACT_PLACEHOLDER", "FILTERS", "TEMPLATE", "apply_filter", "template_roots"]

_OPEN, _CLOSE = r"\{\{\s*", r"\s*\}\}"

#: A fact's (and an unknown's, a refusal's, a step's) key: ``employee_number``.
FACT_KEY = r"[a-z_][a-z0-9_]*"

#: Filters a template may end with (``{{ticket.number|lower}}``).
FILTERS = {"lower": str.lower, "upper": str.upper}

#: ``{{path}}`` or ``{{path|filter}}`` anywhere in a scenario; group 1 is the path
#: (``caller.sys_id``), group 2 the filter's name, if any.
TEMPLATE = re.compile(_OPEN + r"([A-Za-z0-9_.\-]+)(?:\s*\|\s*(" + "|".join(FILTERS) + r"))?" + _CLOSE)

#: ``{{key}}`` in a persona's own text; group 1 is the fact key.
FACT_PLACEHOLDER = re.compile(_OPEN + f"({FACT_KEY})" + _CLOSE)


def template_roots(text: str) -> list[str]:
    """The first segment of every template path in ``text`` (``caller`` of ``{{caller.sys_id}}``)."""
    return [match.group(1).split(".", 1)[0] for match in TEMPLATE.finditer(text)]


def apply_filter(value: str, name: str | None) -> str:
    """A template's value through its filter (none: as it is)."""
    return FILTERS[name](value) if name else value
