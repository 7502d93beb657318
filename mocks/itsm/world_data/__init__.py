"""Text bank for the seeded ITSM world.

This module holds the static, hand-written vocabulary that the seeded world builder
(``mocks/itsm/world/``) draws from when it generates users, groups, locations,
configuration items, incidents, problems, change requests, catalog items and knowledge
articles. The text lives in JSON files next to this module, one per table family
(``organisation``, ``incidents``, ``knowledge``, ``cmdb``, ``catalog``, ``changes``,
``problems``, ``journals``); this module loads them once, at import, into typed
module-level constants made of tuples, dicts and strings, with no randomness, so that a
given seed always yields the same world. Order matters: the builder draws from these
sequences with seeded randomness, so reordering a file changes every world built from it.

All people, companies, street addresses, host names, URLs and phone numbers are
fictional. Product names (Outlook, SAP, Okta, ...) are used only so that the text reads
like a real enterprise help desk.

Placeholders:
    Incident and change text may contain only ``{ci_name}``, ``{app_name}`` and
    ``{location}``. Journal lines (work notes, comments, caller replies, close notes) may
    contain only ``{caller_first_name}``, ``{group}`` and ``{number}``; a caller's reply never
    names the caller. Knowledge article bodies and every other string contain no placeholders.
    Fill them with ``str.format``.

Codes:
    Choice values follow ServiceNow base conventions: incident ``impact``/``urgency`` are
    ``"1"`` (High) to ``"3"`` (Low), change ``risk`` is ``"2"`` (High) to ``"4"`` (Low),
    CI ``operational_status`` ``"1"`` is Operational, and incident categories and
    subcategories are the lowercase base choice values.
"""

import json
from importlib.resources import files
from typing import Any, Final, TypedDict

# ---------------------------------------------------------------------------
# Record shapes
# ---------------------------------------------------------------------------


class GroupSpec(TypedDict):
    """An assignment group (``sys_user_group``)."""

    name: str
    description: str
    email: str
    """Local part only; the builder appends the world's mail domain."""
    incident_categories: tuple[str, ...]
    """Keys of :data:`INCIDENT_CATEGORIES` the group takes incidents for."""
    ci_kinds: tuple[str, ...]
    """``kind`` values of :data:`CI_CATALOG` the group supports."""


class LocationSpec(TypedDict):
    """An office site (``cmn_location``)."""

    name: str
    street: str
    city: str
    state: str
    zip: str
    country: str


class SymptomSpec(TypedDict):
    """An incident template, written the way a caller reports the problem."""

    category: str
    subcategory: str
    short_description: str
    description: str
    impact: str
    urgency: str
    group: str
    keywords: tuple[str, ...]
    kb_topic: str | None
    ci_kind: str | None
    """``kind`` of the CI the incident is usually logged against, if any."""


class KbTopicSpec(TypedDict):
    """A knowledge article (``kb_knowledge``); ``text`` is simple HTML."""

    short_description: str
    category: str
    keywords: tuple[str, ...]
    text: str


class CiKindSpec(TypedDict):
    """A family of configuration items (``cmdb_ci`` and subclasses).

    Exactly one of ``name_patterns`` (``str.format`` patterns taking ``n``) and
    ``names`` (fixed names) is non-empty.
    """

    kind: str
    sys_class_name: str
    name_patterns: tuple[str, ...]
    names: tuple[str, ...]
    category: str
    subcategory: str
    model_numbers: tuple[str, ...]
    """Full model names including the manufacturer; empty for applications."""
    os: tuple[str, ...]
    operational_status: str
    support_group: str


class CatalogItemSpec(TypedDict):
    """A service catalog item (``sc_cat_item``)."""

    name: str
    short_description: str
    category: str
    price: str
    group: str


class ChangeTemplateSpec(TypedDict):
    """A change request template; text may use the incident placeholders."""

    type: str
    short_description: str
    description: str
    justification: str
    implementation_plan: str
    backout_plan: str
    test_plan: str
    risk: str
    impact: str
    category: str
    group: str
    ci_kind: str | None


class ProblemTemplateSpec(TypedDict):
    """A problem template (``problem``)."""

    short_description: str
    description: str
    category: str
    subcategory: str
    group: str
    impact: str
    urgency: str
    cause_notes: str
    fix_notes: str
    workaround: str


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def _frozen(value: Any) -> Any:
    """JSON arrays as tuples, recursively, so the banks have the types the builder was written for."""
    if isinstance(value, list):
        return tuple(_frozen(item) for item in value)
    if isinstance(value, dict):
        return {key: _frozen(item) for key, item in value.items()}
    return value


def _load(family: str) -> dict[str, Any]:
    """One family's banks, keyed by lowercase bank name, in file order.

    Args:
        family: The data file's stem, e.g. ``organisation`` for ``organisation.json``.

    Returns:
        The file's top-level object with every array turned into a tuple.
    """
    text = files(__name__).joinpath(f"{family}.json").read_text(encoding="utf-8")
    return _frozen(json.loads(text))


_ORGANISATION: Final = _load("organisation")
_INCIDENTS: Final = _load("incidents")
_KNOWLEDGE: Final = _load("knowledge")
_CMDB: Final = _load("cmdb")
_CATALOG: Final = _load("catalog")
_CHANGES: Final = _load("changes")
_PROBLEMS: Final = _load("problems")
_JOURNALS: Final = _load("journals")

# ---------------------------------------------------------------------------
# Organisation: groups, departments, locations, job titles
# ---------------------------------------------------------------------------

GROUPS: Final[tuple[GroupSpec, ...]] = _ORGANISATION["groups"]
DEPARTMENTS: Final[tuple[str, ...]] = _ORGANISATION["departments"]
LOCATIONS: Final[tuple[LocationSpec, ...]] = _ORGANISATION["locations"]
#: Job titles by department name.
JOB_TITLES: Final[dict[str, tuple[str, ...]]] = _ORGANISATION["job_titles"]

# ---------------------------------------------------------------------------
# Incidents: categories (ServiceNow base choice values) and symptoms (what callers report)
# ---------------------------------------------------------------------------

#: Subcategories by category.
INCIDENT_CATEGORIES: Final[dict[str, tuple[str, ...]]] = _INCIDENTS["incident_categories"]
SYMPTOMS: Final[tuple[SymptomSpec, ...]] = _INCIDENTS["symptoms"]

# ---------------------------------------------------------------------------
# Knowledge base articles
# ---------------------------------------------------------------------------

#: Categories a knowledge article may be filed under.
KB_CATEGORIES: Final[tuple[str, ...]] = _KNOWLEDGE["kb_categories"]
#: Articles by topic key; :class:`SymptomSpec` ``kb_topic`` names these keys.
KB_TOPICS: Final[dict[str, KbTopicSpec]] = _KNOWLEDGE["kb_topics"]

# ---------------------------------------------------------------------------
# Configuration items
# ---------------------------------------------------------------------------

CI_CATALOG: Final[tuple[CiKindSpec, ...]] = _CMDB["ci_catalog"]
#: Which group supports each business application (names match the ``application`` CI kind).
APPLICATION_SUPPORT_GROUPS: Final[dict[str, str]] = _CMDB["application_support_groups"]

# ---------------------------------------------------------------------------
# Service catalog, change requests, problems
# ---------------------------------------------------------------------------

CATALOG_ITEMS: Final[tuple[CatalogItemSpec, ...]] = _CATALOG["catalog_items"]
CHANGE_TEMPLATES: Final[tuple[ChangeTemplateSpec, ...]] = _CHANGES["change_templates"]
PROBLEM_TEMPLATES: Final[tuple[ProblemTemplateSpec, ...]] = _PROBLEMS["problem_templates"]

# ---------------------------------------------------------------------------
# Journal text: work notes (internal), comments (customer-visible), caller replies, close notes
# ---------------------------------------------------------------------------

WORK_NOTE_TEMPLATES: Final[tuple[str, ...]] = _JOURNALS["work_note_templates"]
#: Comments the service desk writes to the caller (customer-visible).
COMMENT_TEMPLATES: Final[tuple[str, ...]] = _JOURNALS["comment_templates"]
#: Comments the caller writes on their own incident, in the first person. The caller does not
#: address themselves, so these never use ``{caller_first_name}``.
CALLER_REPLY_TEMPLATES: Final[tuple[str, ...]] = _JOURNALS["caller_reply_templates"]
CLOSE_NOTES_TEMPLATES: Final[tuple[str, ...]] = _JOURNALS["close_notes_templates"]
