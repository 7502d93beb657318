"""Invariants of the ITSM world text bank (mocks/itsm/world_data/: JSON files and their loader)."""

import ast
import inspect
import itertools
import json
import re
import string
from collections.abc import Iterator
from importlib.resources import files

import pytest

from enterprise_envs.mocks.itsm import world_data as wd

INCIDENT_PLACEHOLDERS = {"ci_name", "app_name", "location"}
JOURNAL_PLACEHOLDERS = {"caller_first_name", "group", "number"}
GROUP_NAMES = {g["name"] for g in wd.GROUPS}
CI_KINDS = {c["kind"]: c for c in wd.CI_CATALOG}
APP_NAMES = next(c["names"] for c in wd.CI_CATALOG if c["kind"] == "application")
ALLOWED_TAGS = {"p", "ol", "ul", "li", "b"}
KEYWORD_RE = re.compile(r"^[a-z0-9][a-z0-9.\-]*$")


def fields(text: str) -> list[tuple[str, str | None, str | None]]:
    """(field name, format spec, conversion) for every replacement field in ``text``."""
    return [(name, spec, conv) for _, name, spec, conv in string.Formatter().parse(text) if name is not None]


def placeholder_names(text: str) -> set[str]:
    return {name for name, _, _ in fields(text)}


def plain_text(html: str) -> str:
    return re.sub(r"<[^>]+>", " ", html)


def word_count(html: str) -> int:
    return len(plain_text(html).split())


def sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z0-9{])", text.strip()) if s]


def ci_sample_names(kind: str) -> Iterator[str]:
    spec = CI_KINDS[kind]
    yield from spec["names"]
    for pattern in spec["name_patterns"]:
        yield pattern.format(n=1)
        yield pattern.format(n=99)


# A worst-case filling for length checks: the longest value each placeholder can take.
LONGEST = {
    "ci_name": max((name for kind in CI_KINDS for name in ci_sample_names(kind)), key=len),
    "app_name": max(APP_NAMES, key=len),
    "location": max((loc["name"] for loc in wd.LOCATIONS), key=len),
}
SAMPLE_JOURNAL = {"caller_first_name": "Alexandra", "group": "Change Advisory Board", "number": "INC0010042"}


# --------------------------------------------------------------------------- module hygiene


def test_loader_imports_only_the_standard_library() -> None:
    # The bank is data: loading it must not pull in the builder or anything with side effects.
    tree = ast.parse(inspect.getsource(wd))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add((node.module or "").split(".")[0])
    assert imported <= {"typing", "json", "importlib", "__future__"}


def test_every_bank_in_the_data_files_is_loaded() -> None:
    # A bank in a shipped data file that the loader never reads would be silently unused.
    shipped = [p for p in files(wd.__name__).iterdir() if p.name.endswith(".json")]
    assert len(shipped) == 8
    for path in shipped:
        for key in json.loads(path.read_text(encoding="utf-8")):
            assert getattr(wd, key.upper()) is not None, (path.name, key)


def test_module_has_docstring() -> None:
    assert wd.__doc__ and "fictional" in wd.__doc__


# --------------------------------------------------------------------------- organisation


def test_groups_are_exactly_the_required_set() -> None:
    names = [g["name"] for g in wd.GROUPS]
    assert len(names) == len(set(names))
    assert set(names) == {
        "Service Desk",
        "Network",
        "Database",
        "Hardware",
        "Identity and Access",
        "Email",
        "Applications",
        "Change Advisory Board",
    }


@pytest.mark.parametrize("group", wd.GROUPS, ids=lambda g: g["name"])
def test_group_fields(group: wd.GroupSpec) -> None:
    assert re.fullmatch(r"[a-z][a-z0-9.\-]*", group["email"]), "email must be a bare local part"
    assert group["description"].strip()
    assert set(group["incident_categories"]) <= set(wd.INCIDENT_CATEGORIES)
    assert set(group["ci_kinds"]) <= set(CI_KINDS)


def test_group_emails_unique() -> None:
    emails = [g["email"] for g in wd.GROUPS]
    assert len(emails) == len(set(emails))


def test_departments_and_job_titles() -> None:
    assert 10 <= len(wd.DEPARTMENTS) <= 14
    assert len(set(wd.DEPARTMENTS)) == len(wd.DEPARTMENTS)
    assert set(wd.JOB_TITLES) == set(wd.DEPARTMENTS)
    all_titles = [t for titles in wd.JOB_TITLES.values() for t in titles]
    assert len(all_titles) == len(set(all_titles)), "a title should belong to one department"
    for dept, titles in wd.JOB_TITLES.items():
        assert 3 <= len(titles) <= 6, dept


def test_locations() -> None:
    assert 8 <= len(wd.LOCATIONS) <= 12
    names = [loc["name"] for loc in wd.LOCATIONS]
    assert len(names) == len(set(names))
    for loc in wd.LOCATIONS:
        for key in ("name", "street", "city", "zip", "country"):
            assert loc[key].strip(), (loc["name"], key)
        assert re.search(r"\d", loc["street"]), "street address should carry a number"


def test_incident_categories_match_servicenow_base() -> None:
    assert wd.INCIDENT_CATEGORIES == {
        "inquiry": ("antivirus", "email", "internal application"),
        "software": ("email", "os", "internal application"),
        "hardware": ("cpu", "disk", "keyboard", "memory", "monitor", "mouse"),
        "network": ("dhcp", "dns", "ip address", "vpn", "wireless"),
        "database": ("db2", "ms sql server", "oracle"),
    }


# --------------------------------------------------------------------------- symptoms


def test_symptom_count_and_unique_titles() -> None:
    assert len(wd.SYMPTOMS) >= 80
    titles = [s["short_description"] for s in wd.SYMPTOMS]
    assert len(titles) == len(set(titles))


@pytest.mark.parametrize("symptom", wd.SYMPTOMS, ids=lambda s: s["short_description"][:40])
def test_symptom(symptom: wd.SymptomSpec) -> None:
    assert symptom["category"] in wd.INCIDENT_CATEGORIES
    assert symptom["subcategory"] in wd.INCIDENT_CATEGORIES[symptom["category"]]
    assert symptom["impact"] in {"1", "2", "3"}
    assert symptom["urgency"] in {"1", "2", "3"}
    assert symptom["group"] in GROUP_NAMES
    group = next(g for g in wd.GROUPS if g["name"] == symptom["group"])
    assert symptom["category"] in group["incident_categories"], "group does not take this category"
    assert isinstance(symptom["keywords"], tuple)
    assert 2 <= len(symptom["keywords"]) <= 5
    assert all(KEYWORD_RE.match(k) for k in symptom["keywords"]), symptom["keywords"]
    assert symptom["kb_topic"] is None or symptom["kb_topic"] in wd.KB_TOPICS
    assert symptom["ci_kind"] is None or symptom["ci_kind"] in CI_KINDS
    assert 2 <= len(sentences(symptom["description"])) <= 4


@pytest.mark.parametrize("symptom", wd.SYMPTOMS, ids=lambda s: s["short_description"][:40])
def test_symptom_placeholders(symptom: wd.SymptomSpec) -> None:
    for key in ("short_description", "description"):
        text = symptom[key]
        for name, spec, conv in fields(text):
            assert name in INCIDENT_PLACEHOLDERS, (key, name)
            assert not spec and conv is None, "no format specs or conversions"
        text.format(**LONGEST)  # must render
    if "ci_name" in placeholder_names(symptom["short_description"] + symptom["description"]):
        assert symptom["ci_kind"] is not None, "{ci_name} needs a ci_kind to draw from"


@pytest.mark.parametrize("symptom", wd.SYMPTOMS, ids=lambda s: s["short_description"][:40])
def test_symptom_short_description_fits_when_rendered(symptom: wd.SymptomSpec) -> None:
    assert len(symptom["short_description"]) <= 80
    assert len(symptom["short_description"].format(**LONGEST)) <= 80


def test_every_symptom_kb_topic_exists() -> None:
    missing = {s["kb_topic"] for s in wd.SYMPTOMS if s["kb_topic"] is not None} - set(wd.KB_TOPICS)
    assert not missing


# --------------------------------------------------------------------------- knowledge base


def test_kb_count_unique_titles_and_texts() -> None:
    assert len(wd.KB_TOPICS) >= 110
    titles = [t["short_description"] for t in wd.KB_TOPICS.values()]
    texts = [t["text"] for t in wd.KB_TOPICS.values()]
    assert len(set(titles)) == len(titles)
    assert len(set(texts)) == len(texts)


def test_kb_categories_list() -> None:
    assert set(wd.KB_CATEGORIES) == {
        "Email",
        "Network",
        "Hardware",
        "Software",
        "Accounts and Access",
        "Security",
        "Printing",
        "Mobile",
        "Collaboration",
        "Database",
    }
    used = {t["category"] for t in wd.KB_TOPICS.values()}
    assert used == set(wd.KB_CATEGORIES), "every category should have articles"


@pytest.mark.parametrize("slug", sorted(wd.KB_TOPICS))
def test_kb_article(slug: str) -> None:
    article = wd.KB_TOPICS[slug]
    assert re.fullmatch(r"[a-z0-9_]+", slug)
    assert article["category"] in wd.KB_CATEGORIES
    assert 0 < len(article["short_description"]) <= 100
    keywords = article["keywords"]
    assert isinstance(keywords, tuple)
    assert 3 <= len(keywords) <= 8
    assert len(set(keywords)) == len(keywords)
    assert all(KEYWORD_RE.match(k) for k in keywords), keywords
    text = article["text"]
    assert 80 <= word_count(text) <= 250, word_count(text)
    assert not fields(text), "article bodies carry no placeholders"
    assert re.search(r"<ol>(?:(?!</ol>).)*<li>.*?</li>.*?<li>", text, re.S), "needs numbered steps"
    assert re.search(r"service desk|ticket|request", text, re.I), "needs escalation guidance"
    assert "lorem" not in text.lower()


@pytest.mark.parametrize("slug", sorted(wd.KB_TOPICS))
def test_kb_html_uses_only_simple_balanced_tags(slug: str) -> None:
    text = wd.KB_TOPICS[slug]["text"]
    stack: list[str] = []
    for closing, tag in re.findall(r"<(/?)([a-zA-Z0-9]+)[^>]*>", text):
        assert tag in ALLOWED_TAGS, tag
        if closing:
            assert stack and stack[-1] == tag, f"unbalanced </{tag}>"
            stack.pop()
        else:
            stack.append(tag)
    assert not stack, f"unclosed {stack}"
    assert text.startswith("<") and text.endswith(">")
    assert "<" not in plain_text(text)


def test_kb_articles_are_not_near_duplicates() -> None:
    def vocab(html: str) -> set[str]:
        return set(re.findall(r"[a-z0-9]+", plain_text(html).lower()))

    vocabularies = {slug: vocab(t["text"]) for slug, t in wd.KB_TOPICS.items()}
    for (a, va), (b, vb) in itertools.combinations(vocabularies.items(), 2):
        jaccard = len(va & vb) / len(va | vb)
        assert jaccard < 0.5, (a, b, round(jaccard, 2))


# --------------------------------------------------------------------------- CMDB


def test_ci_catalog() -> None:
    kinds = [c["kind"] for c in wd.CI_CATALOG]
    assert len(kinds) == len(set(kinds))
    for ci in wd.CI_CATALOG:
        assert bool(ci["names"]) != bool(ci["name_patterns"]), ci["kind"]
        assert ci["operational_status"] == "1"
        assert ci["category"] in {"Hardware", "Software", "Network"}
        assert ci["subcategory"].strip()
        assert ci["sys_class_name"].startswith("cmdb_ci")
        assert ci["support_group"] in GROUP_NAMES
        owner = next(g for g in wd.GROUPS if g["name"] == ci["support_group"])
        assert ci["kind"] in owner["ci_kinds"], "support group must list the kind it supports"
        if ci["category"] == "Hardware":
            assert ci["model_numbers"], ci["kind"]
        for pattern in ci["name_patterns"]:
            assert [name for name, _, _ in fields(pattern)] == ["n"], pattern
            assert pattern.format(n=7) != pattern.format(n=8)


def test_applications_are_the_required_fifteen() -> None:
    assert set(APP_NAMES) == {
        "SAP ERP",
        "Salesforce",
        "Workday",
        "Jira",
        "Confluence",
        "Microsoft 365",
        "Zoom",
        "Slack",
        "ServiceNow",
        "Tableau",
        "Concur",
        "DocuSign",
        "GitHub Enterprise",
        "Okta",
        "Oracle E-Business Suite",
    }
    assert set(wd.APPLICATION_SUPPORT_GROUPS) == set(APP_NAMES)
    assert set(wd.APPLICATION_SUPPORT_GROUPS.values()) <= GROUP_NAMES


def test_required_ci_models_and_patterns_present() -> None:
    models = {m for c in wd.CI_CATALOG for m in c["model_numbers"]}
    assert {"Dell Latitude 7440", "Lenovo ThinkPad T14 Gen 4", "Apple MacBook Pro 14"} <= models
    patterns = {p for c in wd.CI_CATALOG for p in c["name_patterns"]}
    assert {
        "lnx-db-{n:02d}",
        "win-app-{n:02d}",
        "core-sw-{n:02d}",
        "fw-edge-{n:02d}",
        "wlc-{n:02d}",
        "vpn-gw-{n:02d}",
    } <= patterns


# --------------------------------------------------------------------------- service catalog


def test_catalog_items() -> None:
    names = [item["name"] for item in wd.CATALOG_ITEMS]
    assert len(names) == len(set(names))
    assert 12 <= len(names) <= 25
    assert {
        "Standard Laptop",
        "Developer Laptop",
        "MacBook Pro",
        "New Hire Onboarding Bundle",
        "Mobile Phone",
        "VPN Access",
        "Shared Mailbox",
        "Distribution List",
        "Adobe Acrobat Pro",
        "Microsoft Visio",
        "JetBrains All Products Pack",
    } <= set(names)
    for item in wd.CATALOG_ITEMS:
        assert re.fullmatch(r"\d+\.\d{2}", item["price"]), item["price"]
        assert item["group"] in GROUP_NAMES
        assert item["short_description"].strip()
        assert item["category"].strip()


# --------------------------------------------------------------------------- changes and problems


def test_change_template_mix() -> None:
    assert len(wd.CHANGE_TEMPLATES) >= 25
    assert {c["type"] for c in wd.CHANGE_TEMPLATES} == {"normal", "standard", "emergency"}
    titles = [c["short_description"] for c in wd.CHANGE_TEMPLATES]
    assert len(titles) == len(set(titles))


CHANGE_TEXT_KEYS = (
    "short_description",
    "description",
    "justification",
    "implementation_plan",
    "backout_plan",
    "test_plan",
)


@pytest.mark.parametrize("change", wd.CHANGE_TEMPLATES, ids=lambda c: c["short_description"][:40])
def test_change_template(change: wd.ChangeTemplateSpec) -> None:
    assert change["type"] in {"normal", "standard", "emergency"}
    assert change["risk"] in {"2", "3", "4"}
    assert change["impact"] in {"1", "2", "3"}
    assert change["category"] in {"Hardware", "Software", "Network", "Database", "Other"}
    assert change["group"] in GROUP_NAMES
    assert change["ci_kind"] is None or change["ci_kind"] in CI_KINDS
    used: set[str] = set()
    for key in CHANGE_TEXT_KEYS:
        text = change[key]
        assert text.strip(), key
        for name, spec, conv in fields(text):
            assert name in INCIDENT_PLACEHOLDERS, (key, name)
            assert not spec and conv is None
        used |= placeholder_names(text)
        text.format(**LONGEST)
    if "ci_name" in used:
        assert change["ci_kind"] is not None
    assert len(change["short_description"].format(**LONGEST)) <= 100
    assert change["implementation_plan"].startswith("1. ")


@pytest.mark.parametrize("problem", wd.PROBLEM_TEMPLATES, ids=lambda p: p["short_description"][:40])
def test_problem_template(problem: wd.ProblemTemplateSpec) -> None:
    assert problem["category"] in wd.INCIDENT_CATEGORIES
    assert problem["subcategory"] in wd.INCIDENT_CATEGORIES[problem["category"]]
    assert problem["group"] in GROUP_NAMES
    assert problem["impact"] in {"1", "2", "3"}
    assert problem["urgency"] in {"1", "2", "3"}
    for key in ("short_description", "description", "cause_notes", "fix_notes", "workaround"):
        assert problem[key].strip(), key
        assert not fields(problem[key]), "problem text carries no placeholders"


def test_problem_count_and_unique_titles() -> None:
    assert len(wd.PROBLEM_TEMPLATES) >= 15
    titles = [p["short_description"] for p in wd.PROBLEM_TEMPLATES]
    assert len(titles) == len(set(titles))


# --------------------------------------------------------------------------- journal text


@pytest.mark.parametrize(
    ("bank", "minimum"),
    [
        (wd.WORK_NOTE_TEMPLATES, 25),
        (wd.COMMENT_TEMPLATES, 25),
        (wd.CALLER_REPLY_TEMPLATES, 15),
        (wd.CLOSE_NOTES_TEMPLATES, 15),
    ],
    ids=["work_notes", "comments", "caller_replies", "close_notes"],
)
def test_journal_bank(bank: tuple[str, ...], minimum: int) -> None:
    assert isinstance(bank, tuple)
    assert len(bank) >= minimum
    assert len(set(bank)) == len(bank)
    for line in bank:
        for name, spec, conv in fields(line):
            assert name in JOURNAL_PLACEHOLDERS, (line, name)
            assert not spec and conv is None
        assert line.format(**SAMPLE_JOURNAL).strip()


FIRST_PERSON = {"i", "i'm", "i've", "i'll", "me", "my"}
#: How the service desk speaks to a caller: to "you", as "we".
TO_THE_CALLER = {"you", "your", "you're", "you'll", "we", "we're", "we've", "we'll", "us"}


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z']+", text.lower()))


def test_caller_replies_and_service_desk_comments_are_separate_banks() -> None:
    assert not set(wd.CALLER_REPLY_TEMPLATES) & set(wd.COMMENT_TEMPLATES)
    assert not set(wd.CALLER_REPLY_TEMPLATES) & set(wd.WORK_NOTE_TEMPLATES)


@pytest.mark.parametrize("line", wd.CALLER_REPLY_TEMPLATES)
def test_caller_reply_is_in_the_callers_voice(line: str) -> None:
    # The caller writes in the first person and never addresses themselves by name.
    assert words(line) & FIRST_PERSON, line
    assert placeholder_names(line) <= {"number", "group"}, line
    assert not words(line) & {"us", "our", "we've", "we're", "we'll"}, "service-desk phrasing"
    assert not re.search(r"\b(vendor|duplicate|problem record|no response)\b", line, re.I)


@pytest.mark.parametrize("line", wd.COMMENT_TEMPLATES)
def test_service_desk_comment_speaks_to_the_caller(line: str) -> None:
    assert "caller_first_name" in placeholder_names(line) or words(line) & TO_THE_CALLER, line


# --------------------------------------------------------------------------- cross references


def test_every_referenced_group_exists() -> None:
    referenced = (
        {s["group"] for s in wd.SYMPTOMS}
        | {c["group"] for c in wd.CHANGE_TEMPLATES}
        | {p["group"] for p in wd.PROBLEM_TEMPLATES}
        | {i["group"] for i in wd.CATALOG_ITEMS}
        | {c["support_group"] for c in wd.CI_CATALOG}
        | set(wd.APPLICATION_SUPPORT_GROUPS.values())
    )
    assert referenced <= GROUP_NAMES, referenced - GROUP_NAMES


def test_every_referenced_ci_kind_exists() -> None:
    referenced = (
        {s["ci_kind"] for s in wd.SYMPTOMS}
        | {c["ci_kind"] for c in wd.CHANGE_TEMPLATES}
        | {k for g in wd.GROUPS for k in g["ci_kinds"]}
    ) - {None}
    assert referenced <= set(CI_KINDS), referenced - set(CI_KINDS)
