"""The ITSM catalog: ServiceNow tables built from the observed Table API schema.

Field lists come from the packaged OpenAPI file (``spec/``): every field the captured records
carry is a column. This module adds what the schema cannot say: reference targets, which
fields are booleans, integers or journals, which are system-maintained, plus the few tables
the behaviour rules need that the schema does not describe (group membership, journal,
approvals, catalog items, locations, departments).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.schema import Catalog, FieldSpec, TableSpec

SPEC_FILE = "servicenow-table-api.derived.openapi.json"
RULES_FILE = "itsm_behavior_rules.json"


@cache
def spec_document(name: str = SPEC_FILE) -> dict[str, Any]:
    """A packaged spec file, parsed (cached)."""
    return json.loads(resources.files(__package__).joinpath("spec", name).read_text(encoding="utf-8"))


def behaviour_rules() -> dict[str, Any]:
    """The packaged behaviour rules (state models, priority matrix, envelopes)."""
    return spec_document(RULES_FILE)


#: OpenAPI schema name for each table the spec describes.
SPEC_SCHEMAS = {
    "incident": "IncidentRecord",
    "problem": "ProblemRecord",
    "change_request": "ChangeRequestRecord",
    "sc_req_item": "ScReqItemRecord",
    "sc_request": "ScRequestRecord",
    "sys_user": "SysUserRecord",
    "sys_user_group": "SysUserGroupRecord",
    "kb_knowledge": "KbKnowledgeRecord",
    "cmdb_ci": "CmdbCiRecord",
}

#: Where reference fields point (the spec only says "reference"; links in captured records say where).
REFERENCE_TARGETS = {
    "assigned_to": "sys_user",
    "caller_id": "sys_user",
    "opened_by": "sys_user",
    "closed_by": "sys_user",
    "resolved_by": "sys_user",
    "requested_by": "sys_user",
    "requested_for": "sys_user",
    "author": "sys_user",
    "reopened_by": "sys_user",
    "manager": "sys_user",
    "approver": "sys_user",
    "user": "sys_user",
    "assignment_group": "sys_user_group",
    "group": "sys_user_group",
    "cmdb_ci": "cmdb_ci",
    "business_service": "cmdb_ci_service",
    "parent_incident": "incident",
    "problem_id": "problem",
    "duplicate_of": "problem",
    "rfc": "change_request",
    "request": "sc_request",
    "cat_item": "sc_cat_item",
    "location": "cmn_location",
    "department": "cmn_department",
    "company": "core_company",
    "cost_center": "cmn_cost_center",
    "sys_domain": "sys_user_group",
    "kb_knowledge_base": "kb_knowledge_base",
    "kb_category": "kb_category",
    "wiki": "kb_knowledge",
    "context": "wf_context",
}

BOOLEAN_FIELDS = frozenset(
    {
        "active", "knowledge", "made_sla", "vip", "locked_out", "web_service_access_only",
        "internal_integration_user", "password_needs_reset", "cab_required", "on_hold",
        "outside_maintenance_schedule", "production_system", "backordered", "billable", "direct",
        "flagged", "disable_commenting", "disable_suggesting", "display_attachments",
        "exclude_manager", "include_members", "known_error", "calendar_integration",
    }
)  # fmt: skip

INTEGER_FIELDS = frozenset(
    {
        "sys_mod_count", "reassignment_count", "reopen_count", "severity", "escalation", "order",
        "child_incidents", "use_count", "sys_view_count", "failed_attempts", "quantity", "notify",
        "fault_count", "related_incidents",
    }
)  # fmt: skip

JOURNAL_FIELDS = frozenset({"comments", "work_notes", "comments_and_work_notes"})

#: Bookkeeping fields: maintained on every write; a change to them alone is not a change.
AUDIT_FIELDS = frozenset({"sys_updated_on", "sys_updated_by", "sys_mod_count", "updated_on", "updated_by"})
#: Also not a change by itself: counts kept on a parent when its children change.
DERIVED_FIELDS = AUDIT_FIELDS | {"child_incidents", "related_incidents"}

#: Set by the system, never by a client (a client may only send the value already stored).
SYSTEM_FIELDS = frozenset(
    {
        "sys_id", "number", "sys_created_on", "sys_created_by", "sys_class_name", "sys_domain",
        "sys_domain_path", "active", "incident_state", "problem_state", "resolved_at", "resolved_by",
        "closed_at", "closed_by", "reopen_count", "reopened_by", "reopened_time", "reassignment_count",
        "child_incidents", "related_incidents", "approval", "approval_history", "opened_at", "opened_by",
        "upon_approval",
        "calendar_duration", "business_duration", "sys_tags", "user_password", "created_on", "created_by",
    }
) | AUDIT_FIELDS  # fmt: skip

#: Set by business rules from other fields (priority from impact and urgency).
COMPUTED_FIELDS = frozenset({("incident", "priority"), ("problem", "priority"), ("sc_request", "price")})

#: System fields a client may give on insert only (who opened a record on someone's behalf).
SETTABLE_ON_INSERT = frozenset({"opened_by"})

#: Human labels used in data-policy messages, as the vendor's UI names the fields.
LABELS = {
    "close_code": "Resolution code",
    "close_notes": "Resolution notes",
    "hold_reason": "On hold reason",
    "short_description": "Short description",
    "assignment_group": "Assignment group",
    "assigned_to": "Assigned to",
    "caller_id": "Caller",
    "cause_notes": "Cause notes",
    "fix_notes": "Fix notes",
    "duplicate_of": "Duplicate of",
    "resolution_code": "Resolution code",
}

#: Columns the behaviour rules need that the captured schema lacks (newer releases have them).
EXTRA_FIELDS: dict[str, tuple[FieldSpec, ...]] = {
    "problem": (
        FieldSpec(
            "resolution_code",
            "choice",
            label="Resolution code",
            choices={
                "fix_applied": "Fix Applied",
                "risk_accepted": "Risk Accepted",
                "canceled": "Canceled",
                "duplicate": "Duplicate",
            },
        ),
        FieldSpec("cause_notes", max_length=4000, label="Cause notes"),
        FieldSpec("fix_notes", max_length=4000, label="Fix notes"),
        FieldSpec("duplicate_of", "reference", reference="problem", label="Duplicate of"),
    ),
}

EXTRA_FIELDS["sc_req_item"] = (
    # Newer releases carry the request's requested_for on each item (the captured schema predates it).
    FieldSpec("requested_for", "reference", reference="sys_user", label="Requested for"),
)

#: Tables outside the captured schema, with base-instance fields.
_EXTRA_TABLES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    # name: (label, display field, fields after sys_id)
    "sys_user_grmember": ("Group Member", "sys_id", ("user", "group")),
    "sys_journal_field": ("Journal Entry", "value", ("element", "element_id", "name", "value")),
    "sysapproval_approver": (
        "Approval",
        "sys_id",
        ("approver", "sysapproval", "source_table", "state", "comments", "group"),
    ),
    "sc_cat_item": (
        "Catalog Item",
        "name",
        ("name", "short_description", "category", "price", "active", "group"),
    ),
    "cmn_location": ("Location", "name", ("name", "street", "city", "zip", "country")),
    "cmn_department": ("Department", "name", ("name", "id", "head", "description")),
}

_NUMBER_PREFIX = {
    table: prefix
    for table, prefix in behaviour_rules()["table_api"]["number_prefixes"].items()
    if table != "format" and not table.startswith("basis")
}

_DISPLAY = {
    "sys_user": "name",
    "sys_user_group": "name",
    "cmdb_ci": "name",
    "kb_knowledge": "number",
}

_INDEXES: dict[str, tuple[tuple[str, ...], ...]] = {
    "incident": (
        ("number",), ("caller_id",), ("assignment_group",), ("assigned_to",), ("state",),
        ("parent_incident",), ("problem_id",),
    ),
    "problem": (("number",),),
    "change_request": (("number",),),
    "sc_request": (("number",), ("requested_for",)),
    "sc_req_item": (("number",), ("request",)),
    "kb_knowledge": (("number",),),
    "sys_user": (("user_name",), ("email",), ("name",)),
    "sys_user_group": (("name",),),
    "sys_user_grmember": (("user",), ("group",)),
    "sys_journal_field": (("element_id",),),
    "sysapproval_approver": (("sysapproval",),),
    "cmdb_ci": (("name",),),
}  # fmt: skip

_MAX_LENGTH = {
    "short_description": 160,
    "description": 4000,
    "close_notes": 4000,
    "value": 4000,
    "text": 65536,
    "comments": 4000,
    "work_notes": 4000,
    "justification": 4000,
    "implementation_plan": 4000,
    "backout_plan": 4000,
    "test_plan": 4000,
}


def _field_kind(name: str, prop: dict[str, Any]) -> tuple[str, str | None]:
    # The derived spec types a reference as a plain string where every captured value was
    # empty; the vendor renders those fields as references, so the field name decides.
    if "allOf" in prop or name in REFERENCE_TARGETS:
        return "reference", REFERENCE_TARGETS[name]
    if name in JOURNAL_FIELDS:
        return "journal", None
    if "x-choices" in prop:
        return "choice", None
    if name in BOOLEAN_FIELDS:
        return "boolean", None
    if name in INTEGER_FIELDS:
        return "integer", None
    if ("Date/time" in prop.get("description", "") or name.endswith(("_at", "_time", "_on"))) and (
        "duration" not in name
    ):
        return "datetime", None
    return "string", None


def _spec_table(name: str, schema_name: str) -> TableSpec:
    schema = spec_document()["components"]["schemas"][schema_name]
    props: dict[str, Any] = schema["properties"]
    ordered = ["sys_id", *sorted(field for field in props if field != "sys_id")]
    fields = []
    for field_name in ordered:
        prop = props[field_name]
        kind, target = _field_kind(field_name, prop)
        fields.append(
            FieldSpec(
                field_name,
                kind,
                label=LABELS.get(field_name, ""),
                reference=target,
                choices=prop.get("x-choices"),
                max_length=_MAX_LENGTH.get(field_name),
                read_only=field_name in SYSTEM_FIELDS,
                settable_on_insert=field_name in SETTABLE_ON_INSERT,
                computed=(name, field_name) in COMPUTED_FIELDS,
                derived=field_name in DERIVED_FIELDS,
            )
        )
    fields.extend(EXTRA_FIELDS.get(name, ()))
    return TableSpec(
        name=name,
        fields=tuple(fields),
        label=name.replace("_", " ").title(),
        display_field=_DISPLAY.get(name, "number" if name in _NUMBER_PREFIX else "name"),
        number_prefix=_NUMBER_PREFIX.get(name),
        indexes=_INDEXES.get(name, ()),
    )


_EXTRA_KINDS = {"sysapproval": ("reference", "change_request")}
_EXTRA_CHOICES = {
    ("sysapproval_approver", "state"): {
        "requested": "Requested",
        "approved": "Approved",
        "rejected": "Rejected",
        "cancelled": "Cancelled",
        "not_required": "No Longer Required",
    },
    ("sys_journal_field", "element"): {"comments": "Additional comments", "work_notes": "Work notes"},
}
_COMMON_SYSTEM = ("sys_created_on", "sys_created_by", "sys_updated_on", "sys_updated_by", "sys_mod_count")


def _extra_table(name: str, label: str, display: str, names: tuple[str, ...]) -> TableSpec:
    fields = [FieldSpec("sys_id", read_only=True)]
    for field_name in names:
        kind, target = _EXTRA_KINDS.get(field_name, ("string", None))
        if field_name in REFERENCE_TARGETS and kind == "string":
            kind, target = "reference", REFERENCE_TARGETS[field_name]
        if field_name in BOOLEAN_FIELDS:
            kind = "boolean"
        choices = _EXTRA_CHOICES.get((name, field_name))
        if choices:
            kind = "choice"
        fields.append(
            FieldSpec(
                field_name, kind, reference=target, choices=choices, max_length=_MAX_LENGTH.get(field_name)
            )
        )
    for field_name in _COMMON_SYSTEM:
        kind = (
            "integer"
            if field_name == "sys_mod_count"
            else ("datetime" if field_name.endswith("_on") else "string")
        )
        fields.append(FieldSpec(field_name, kind, read_only=True, derived=field_name in DERIVED_FIELDS))
    return TableSpec(
        name=name, fields=tuple(fields), label=label, display_field=display, indexes=_INDEXES.get(name, ())
    )


@cache
def itsm_catalog() -> Catalog:
    """The ITSM tables (built once per process from the packaged spec)."""
    tables = [_spec_table(name, schema) for name, schema in SPEC_SCHEMAS.items()]
    tables += [_extra_table(name, *info) for name, info in _EXTRA_TABLES.items()]
    return Catalog("itsm", tables)


@cache
def json_schema_defs() -> dict[str, Any]:
    """The spec's component schemas as JSON Schema ``$defs``, with three documented corrections.

    1. OpenAPI refs are rewritten to ``#/$defs/...`` and the 3.0 ``nullable`` error detail
       becomes ``["string", "null"]``.
    2. ``FieldValue`` is ``anyOf``, not ``oneOf``: a ``{link, value}`` reference matches both
       ``ReferenceLink`` and the unconstrained ``DisplayValuePair``, so ``oneOf`` rejects every
       reference, including the captured ones.
    3. Fields the catalog knows are references (the derived spec typed them ``string`` because
       every captured value was empty) accept a ``FieldValue``.
    """
    text = json.dumps(spec_document()["components"]["schemas"]).replace("#/components/schemas/", "#/$defs/")
    defs = json.loads(text)
    defs["ErrorResponse"]["properties"]["error"]["properties"]["detail"] = {"type": ["string", "null"]}
    defs["FieldValue"] = {
        "anyOf": defs["FieldValue"]["oneOf"],
        "description": defs["FieldValue"]["description"],
    }
    catalog = itsm_catalog()
    for table, schema_name in SPEC_SCHEMAS.items():
        properties = defs[schema_name]["properties"]
        for field in catalog[table].fields:
            if (
                field.kind == "reference"
                and field.name in properties
                and "allOf" not in properties[field.name]
            ):
                properties[field.name] = {
                    "allOf": [{"$ref": "#/$defs/FieldValue"}],
                    "description": "Reference field.",
                }
    return defs
