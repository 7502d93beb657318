"""The identity catalog: Okta's users, groups, apps, factors, roles and System Log as tables.

Built from the derived OpenAPI documents in ``spec/`` (``okta-<version>.derived.openapi.json``,
written by ``spec/derive.py`` from Okta's published YAML) by the generic
:func:`~enterprise_envs.mocks._core.openapi.catalog_from_openapi`, with ``spec/catalog.toml``
saying what the document cannot: where an id points, which nested objects become columns
(``profile.login`` is the column ``login``), the tables Okta addresses by a pair of ids, keys,
display fields and indexes. Nothing here reads the YAML: parsing it takes seconds.

:func:`spec_drift` lists what differs between the two shipped releases as the mock sees it (the
catalog's tables, columns, choices and bounds; the served operations' ids, paths, parameters and
statuses), for ``docs/systems/identity.md`` and ``identity_system(version)``.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
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


# -- drift between the releases -----------------------------------------------------------------

_METHODS = ("get", "post", "put", "delete")
_PATH_PARAMETER = re.compile(r"\{([^}]+)\}")
#: Written where a release has nothing (a value list that only the other release has).
NOTHING = "—"


@dataclass(frozen=True)
class Drift:
    """One difference between two releases of Okta's description, as the mock sees it.

    Attributes:
        kind: What differs: ``table`` or ``column`` (present in one release only), ``column kind``,
            ``choices`` (values of a choice column), ``bound`` (a column's longest value),
            ``operation`` (present in one release only), ``operationId``, ``path`` (its parameter
            names), ``parameters`` (query and header parameters), ``responses`` (statuses).
        where: The table, ``table.column``, path template or operation (by the newer release's
            ``operationId``) it concerns.
        old: What the older release has (:data:`NOTHING` for nothing).
        new: What the newer release has.
    """

    kind: str
    where: str
    old: str
    new: str


def _listed(values: Iterable[str]) -> str:
    return ", ".join(sorted(values)) or NOTHING


def catalog_drift(old: str = SPEC_VERSIONS[0], new: str = SPEC_VERSIONS[-1]) -> list[Drift]:
    """How the catalogs of two releases differ: tables, columns, column kinds, choices, bounds."""
    before, after = identity_catalog(old), identity_catalog(new)
    found = [Drift("table", name, name if name in before else NOTHING, name if name in after else NOTHING)
             for name in sorted(set(before) ^ set(after))]  # fmt: skip
    for table in sorted(set(before) & set(after)):
        columns_before, columns_after = set(before[table].columns), set(after[table].columns)
        for column in sorted(columns_before ^ columns_after):
            where = f"{table}.{column}"
            found.append(Drift("column", where, column if column in columns_before else NOTHING,
                               column if column in columns_after else NOTHING))  # fmt: skip
        for column in sorted(columns_before & columns_after):
            was, now = before[table].field(column), after[table].field(column)
            assert was is not None and now is not None
            where = f"{table}.{column}"
            if was.kind != now.kind:
                found.append(Drift("column kind", where, was.kind, now.kind))
            values_before, values_after = set(was.choices or ()), set(now.choices or ())
            if values_before != values_after:
                found.append(Drift("choices", where, _listed(values_before - values_after),
                                   _listed(values_after - values_before)))  # fmt: skip
            if was.max_length != now.max_length:
                found.append(
                    Drift("bound", where, str(was.max_length or NOTHING), str(now.max_length or NOTHING))
                )
    return found


def _resolved(document: Mapping[str, Any], node: Mapping[str, Any]) -> Mapping[str, Any]:
    ref = node.get("$ref")
    if not ref:
        return node
    kind, name = ref.split("/")[-2:]
    return document["components"][kind][name]


def _operations(document: Mapping[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """(method, path template with ``{}`` parameters) -> what the drift compares of the operation."""
    found = {}
    for path, item in document["paths"].items():
        shared = item.get("parameters", [])
        for method in _METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            parameters = [_resolved(document, node) for node in [*shared, *operation.get("parameters", [])]]
            found[(method.upper(), _PATH_PARAMETER.sub("{}", path))] = {
                "operationId": operation["operationId"],
                "path": path,
                "parameters": {f"{p['name']} ({p['in']})" for p in parameters if p["in"] != "path"},
                "responses": set(operation.get("responses", {})),
            }
    return found


def operation_drift(old: str = SPEC_VERSIONS[0], new: str = SPEC_VERSIONS[-1]) -> list[Drift]:
    """How the operations the mock serves differ between two releases.

    Operations are paired by method and path template (a release may rename a path's
    parameters); for each pair: the ``operationId``, the path parameter names (once per path),
    the query and header parameters, and the documented response statuses.
    """
    before, after = _operations(spec_document(old)), _operations(spec_document(new))
    found: list[Drift] = []
    paths_seen: set[str] = set()
    for key in sorted(set(before) | set(after), key=lambda pair: (pair[1], pair[0])):
        was, now = before.get(key), after.get(key)
        method, template = key
        if was is None or now is None:
            found.append(Drift("operation", f"{method} {template}", was["operationId"] if was else NOTHING,
                               now["operationId"] if now else NOTHING))  # fmt: skip
            continue
        where = now["operationId"]
        if was["operationId"] != now["operationId"]:
            found.append(Drift("operationId", f"{method} {template}", was["operationId"], now["operationId"]))
        if was["path"] != now["path"] and template not in paths_seen:
            paths_seen.add(template)
            found.append(Drift("path", template, was["path"], now["path"]))
        if was["parameters"] != now["parameters"]:
            found.append(Drift("parameters", where, _listed(was["parameters"] - now["parameters"]),
                               _listed(now["parameters"] - was["parameters"])))  # fmt: skip
        if was["responses"] != now["responses"]:
            found.append(Drift("responses", where, _listed(was["responses"] - now["responses"]),
                               _listed(now["responses"] - was["responses"])))  # fmt: skip
    return found


def spec_drift(old: str = SPEC_VERSIONS[0], new: str = SPEC_VERSIONS[-1]) -> list[Drift]:
    """Every difference between two releases the mock sees: the catalog's, then the operations'.

    ``docs/systems/identity.md`` ("Schema drift") lists them; ``tests/mocks/identity/test_drift.py``
    checks the list equals this.
    """
    return [*catalog_drift(old, new), *operation_drift(old, new)]
