"""The ITSM catalog: ServiceNow tables built from the observed Table API schema.

Field lists come from the packaged OpenAPI file (``spec/``): every field the captured records
carry is a column. What the schema cannot say (reference targets, which fields are booleans,
integers or journals, which are system-maintained, and the few tables the behaviour rules need
that the schema does not describe: group membership, journal, approvals, catalog items,
locations, departments) is data beside it, ``spec/catalog.toml``, read by the generic
:func:`~enterprise_envs.mocks._core.openapi.catalog_from_openapi`.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.openapi import catalog_from_openapi
from enterprise_envs.mocks._core.schema import Catalog

SPEC_FILE = "servicenow-table-api.derived.openapi.json"
RULES_FILE = "itsm_behavior_rules.json"


@cache
def spec_document(name: str = SPEC_FILE) -> dict[str, Any]:
    """A packaged spec file, parsed (cached)."""
    return json.loads(resources.files(__package__).joinpath("spec", name).read_text(encoding="utf-8"))


def behaviour_rules() -> dict[str, Any]:
    """The packaged behaviour rules (state models, priority matrix, envelopes)."""
    return spec_document(RULES_FILE)


CATALOG_FILE = "catalog.toml"


@cache
def catalog_overlay() -> dict[str, Any]:
    """What the schema cannot say about the tables (``spec/catalog.toml``), parsed (cached)."""
    text = resources.files(__package__).joinpath("spec", CATALOG_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


#: OpenAPI schema name for each table the spec describes.
SPEC_SCHEMAS: dict[str, str] = dict(catalog_overlay()["schemas"])


@cache
def itsm_catalog() -> Catalog:
    """The ITSM tables (built once per process from the packaged spec and its overlay)."""
    prefixes = {
        table: prefix
        for table, prefix in behaviour_rules()["table_api"]["number_prefixes"].items()
        if table != "format" and not table.startswith("basis")
    }
    return catalog_from_openapi("itsm", spec_document(), catalog_overlay(), prefixes)


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
