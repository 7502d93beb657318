"""The identity catalog: Okta's users, groups, apps, factors, roles and System Log as tables.

Built from the derived OpenAPI documents in ``spec/`` (``okta-<version>.derived.openapi.json``,
written by ``spec/derive.py`` from Okta's published YAML) by the generic
:func:`~enterprise_envs.mocks._core.openapi.catalog_from_openapi`, with ``spec/catalog.toml``
saying what the document cannot: where an id points, which nested objects become columns
(``profile.login`` is the column ``login``), the tables Okta addresses by a pair of ids, keys,
display fields and indexes. Nothing here reads the YAML: parsing it takes seconds.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.openapi import catalog_from_openapi
from enterprise_envs.mocks._core.schema import Catalog

#: The dated releases of Okta's description shipped in ``spec/``, oldest first.
SPEC_VERSIONS = ("2024.06.1", "2026.06.3")
#: The release the mock is built from unless told otherwise.
CURRENT_VERSION = SPEC_VERSIONS[-1]
CATALOG_FILE = "catalog.toml"


def spec_file(version: str) -> str:
    """The derived document's file name for a release."""
    if version not in SPEC_VERSIONS:
        raise ValueError(f"no Okta description {version!r} (have {', '.join(SPEC_VERSIONS)})")
    return f"okta-{version}.derived.openapi.json"


def spec_document(version: str = CURRENT_VERSION) -> dict[str, Any]:
    """The derived OpenAPI document of a release, parsed (once per process and release)."""
    return _spec_document(version)


@cache
def _spec_document(version: str) -> dict[str, Any]:
    text = resources.files(__package__).joinpath("spec", spec_file(version)).read_text(encoding="utf-8")
    return json.loads(text)


@cache
def catalog_overlay() -> dict[str, Any]:
    """What the document cannot say about the tables (``spec/catalog.toml``), parsed (cached)."""
    text = resources.files(__package__).joinpath("spec", CATALOG_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def identity_catalog(version: str = CURRENT_VERSION) -> Catalog:
    """The identity tables as a release of Okta's description has them.

    Built once per process and release: a catalog is compared by identity, so every caller of
    one release gets the same object.
    """
    return _identity_catalog(version)


@cache
def _identity_catalog(version: str) -> Catalog:
    return catalog_from_openapi("identity", spec_document(version), catalog_overlay())
