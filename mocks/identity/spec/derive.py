"""Derive the identity mock's OpenAPI documents from Okta's published Management API description.

Okta's description (``okta-management-<version>.noExamples.yaml`` beside this file) is 1.3 to
2.3 MB of YAML and takes seconds to parse, so the package never reads it. This script, run by
hand whenever a YAML here is replaced or the selection below changes, writes for each one
``okta-<version>.derived.openapi.json``: the same OpenAPI 3.0.3 document cut down to what the
identity mock serves and reads. It needs PyYAML (``pip install pyyaml``) and the package installed
(its plumbing, shared with the other systems' scripts, is ``enterprise_envs.mocks._core.derive``)::

    python mocks/identity/spec/derive.py          # rewrite every derived document
    python mocks/identity/spec/derive.py --check  # exit 1 if one differs from its YAML

What a derived document keeps, unchanged but for the cuts listed:

- the operations in :data:`OPERATIONS` (users and their lifecycle, factors, groups and
  membership, apps and their user and group assignments, admin role assignments, the System
  Log), with their path-level parameters;
- every component those operations and the schemas in :data:`SCHEMAS` refer to, followed
  transitively (``$ref``s are kept as they are, so each still resolves inside the document),
  sorted by name; the security schemes;
- ``openapi``, ``info`` (with its Apache-2.0 license), ``servers``, the top-level ``security``
  and the tags the kept operations use;
- ``x-derived-from``: the YAML it came from.

Cut everywhere: ``example`` and ``examples`` (the "noExamples" YAML still carries a few, some
pointing at ``#/components/examples`` entries it no longer has) and ``x-codeSamples``. Where a
property is itself called ``example``, it stays: names inside ``properties`` and other
name-keyed maps are never cut.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from enterprise_envs.mocks._core.derive import Derived, derived_text, refs, write_or_check

HERE = Path(__file__).resolve().parent

#: Okta's file names: the release is the version of both the YAML and what is derived from it.
SOURCE_PATTERN = re.compile(r"okta-management-(?P<version>\d{4}\.\d{2}\.\d+)\.noExamples\.yaml")

#: The operations the identity mock serves: path template (every path parameter written ``{}``,
#: since releases rename them: ``/api/v1/users/{userId}`` became ``/api/v1/users/{id}``) ->
#: HTTP methods.
OPERATIONS: dict[str, tuple[str, ...]] = {
    "/api/v1/users": ("get", "post"),
    "/api/v1/users/{}": ("get", "post", "put", "delete"),
    "/api/v1/users/{}/groups": ("get",),
    "/api/v1/users/{}/appLinks": ("get",),
    "/api/v1/users/{}/lifecycle/activate": ("post",),
    "/api/v1/users/{}/lifecycle/deactivate": ("post",),
    "/api/v1/users/{}/lifecycle/reactivate": ("post",),
    "/api/v1/users/{}/lifecycle/suspend": ("post",),
    "/api/v1/users/{}/lifecycle/unsuspend": ("post",),
    "/api/v1/users/{}/lifecycle/unlock": ("post",),
    "/api/v1/users/{}/lifecycle/reset_factors": ("post",),
    "/api/v1/users/{}/lifecycle/expire_password": ("post",),
    "/api/v1/users/{}/lifecycle/reset_password": ("post",),
    "/api/v1/users/{}/factors": ("get",),
    "/api/v1/users/{}/factors/{}": ("get", "delete"),
    "/api/v1/users/{}/roles": ("get", "post"),
    "/api/v1/users/{}/roles/{}": ("get", "delete"),
    "/api/v1/groups": ("get", "post"),
    "/api/v1/groups/{}": ("get", "put", "delete"),
    "/api/v1/groups/{}/users": ("get",),
    "/api/v1/groups/{}/users/{}": ("put", "delete"),
    "/api/v1/groups/{}/apps": ("get",),
    "/api/v1/groups/{}/roles": ("get",),
    "/api/v1/apps": ("get",),
    "/api/v1/apps/{}": ("get",),
    "/api/v1/apps/{}/users": ("get", "post"),
    "/api/v1/apps/{}/users/{}": ("get", "post", "delete"),
    "/api/v1/apps/{}/groups": ("get",),
    "/api/v1/apps/{}/groups/{}": ("get", "put", "delete"),
    "/api/v1/logs": ("get",),
}

#: Component schemas the catalog reads (``catalog.toml``), kept whatever the operations use.
SCHEMAS = (
    "User",
    "UserProfile",
    "UserCredentials",
    "UserStatus",
    "AuthenticationProvider",
    "Group",
    "GroupProfile",
    "GroupType",
    "Application",
    "ApplicationSignOnMode",
    "ApplicationLifecycleStatus",
    "AppUser",
    "AppUserStatus",
    "ApplicationGroupAssignment",
    "UserFactor",
    "UserFactorType",
    "UserFactorStatus",
    "Role",
    "RoleType",
    "RoleAssignmentType",
    "LogEvent",
    "Error",
)

#: Component kinds a ``$ref`` may point at and that are kept when used.
COMPONENT_KINDS = ("schemas", "parameters", "requestBodies", "responses", "headers")
#: Keywords cut wherever they are keywords (see the module docstring).
CUT_KEYWORDS = frozenset({"example", "examples", "x-codeSamples"})
#: Maps whose keys are names chosen by the author, not keywords: never cut inside their keys.
NAME_MAPS = frozenset(
    {
        "properties",
        "patternProperties",
        "mapping",
        "x-enumDescriptions",
        "content",
        "responses",
        "headers",
        "encoding",
        "links",
        "callbacks",
        "variables",
        "paths",
        "scopes",
        "securitySchemes",
        *COMPONENT_KINDS,
    }
)
HTTP_METHODS = frozenset({"get", "put", "post", "delete", "options", "head", "patch", "trace"})


def load_yaml(path: Path) -> dict[str, Any]:
    """A YAML document as JSON values: no YAML 1.1 ``yes``/``on`` booleans, no timestamps.

    OpenAPI documents are YAML 1.2, where ``on`` is a string and a date is text; PyYAML
    implements 1.1, so those two implicit conversions are switched off.
    """
    import yaml  # Only this script needs PyYAML; the package never imports this module.

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class Yaml12Loader(base):  # type: ignore[misc, valid-type]
        """PyYAML's safe loader with YAML 1.2's plain booleans and no timestamps."""

    Yaml12Loader.yaml_implicit_resolvers = {
        first: [
            (tag, pattern)
            for tag, pattern in resolvers
            if tag not in ("tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:bool")
        ]
        for first, resolvers in base.yaml_implicit_resolvers.items()
    }
    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    with path.open(encoding="utf-8") as stream:
        return yaml.load(stream, Loader=Yaml12Loader)  # noqa: S506 (a safe loader)


def without_examples(node: Any, keys_are_names: bool = False) -> Any:
    """``node`` with the cut keywords removed, never where a key is a name of the author's.

    Args:
        node: A parsed OpenAPI value.
        keys_are_names: ``node`` is a map whose keys are names (properties, status codes), not
            keywords.
    """
    if isinstance(node, Mapping):
        return {
            key: without_examples(value, not keys_are_names and key in NAME_MAPS)
            for key, value in node.items()
            if keys_are_names or key not in CUT_KEYWORDS
        }
    if isinstance(node, list):
        return [without_examples(item) for item in node]
    return node


def _template(path: str) -> str:
    return re.sub(r"\{[^}]+\}", "{}", path)


def selected_paths(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The document's path items for :data:`OPERATIONS`, with only their selected methods.

    Raises:
        ValueError: An operation of the selection is not in the document.
    """
    by_template = {_template(path): path for path in document["paths"]}
    kept: dict[str, dict[str, Any]] = {}
    missing = []
    for template, methods in OPERATIONS.items():
        path = by_template.get(template)
        item = document["paths"].get(path, {}) if path else {}
        absent = [method for method in methods if method not in item]
        if path is None or absent:
            missing.append(f"{template} {absent or list(methods)}")
            continue
        kept[path] = {key: value for key, value in item.items() if key not in HTTP_METHODS or key in methods}
    if missing:
        raise ValueError(f"operations missing from the document: {missing}")
    return kept


def _component(document: Mapping[str, Any], ref: str) -> tuple[str, str]:
    """(kind, name) of a ``#/components/<kind>/<name>`` reference the document holds."""
    parts = ref.split("/")
    if len(parts) != 4 or parts[:2] != ["#", "components"] or parts[2] not in COMPONENT_KINDS:
        raise ValueError(f"unexpected reference {ref!r}")
    kind, name = parts[2], parts[3].replace("~1", "/").replace("~0", "~")
    if name not in document["components"].get(kind, {}):
        raise ValueError(f"reference {ref!r} points at nothing")
    return kind, name


def used_components(document: Mapping[str, Any], roots: Iterable[Any]) -> dict[str, set[str]]:
    """Kind -> names of every component the roots refer to, followed transitively."""
    used: dict[str, set[str]] = {}
    pending = [ref for root in roots for ref in refs(root)]
    while pending:
        kind, name = _component(document, pending.pop())
        if name in used.setdefault(kind, set()):
            continue
        used[kind].add(name)
        pending.extend(refs(document["components"][kind][name]))
    return used


def derive(document: Mapping[str, Any], source_name: str) -> dict[str, Any]:
    """The derived document of one parsed Okta description (see the module docstring).

    Args:
        document: Okta's OpenAPI description, parsed.
        source_name: The YAML's file name, recorded in ``x-derived-from``.
    """
    document = without_examples(document)
    paths = selected_paths(document)
    schemas = document["components"]["schemas"]
    absent = [name for name in SCHEMAS if name not in schemas]
    if absent:
        raise ValueError(f"schemas missing from the document: {absent}")
    roots = [paths, *({"$ref": f"#/components/schemas/{name}"} for name in SCHEMAS)]
    used = used_components(document, roots)
    components = {
        kind: {name: document["components"][kind][name] for name in sorted(used[kind])}
        for kind in COMPONENT_KINDS
        if used.get(kind)
    }
    if "securitySchemes" in document["components"]:
        components["securitySchemes"] = document["components"]["securitySchemes"]
    tags_used = {tag for item in paths.values() for op in item.values() if isinstance(op, Mapping)
                 for tag in op.get("tags", ())}  # fmt: skip
    derived: dict[str, Any] = {"openapi": document["openapi"], "info": document["info"]}
    for key in ("servers", "security"):
        if key in document:
            derived[key] = document[key]
    derived["tags"] = [tag for tag in document.get("tags", ()) if tag.get("name") in tags_used]
    derived["paths"] = paths
    derived["components"] = components
    derived["x-derived-from"] = {
        "source": source_name,
        "script": "mocks/identity/spec/derive.py",
        "operations": sum(1 for item in paths.values() for method in item if method in HTTP_METHODS),
    }
    return derived


def derived_path(version: str, folder: Path = HERE) -> Path:
    """Where the derived document of a release is written."""
    return folder / f"okta-{version}.derived.openapi.json"


def sources(folder: Path = HERE) -> dict[str, Path]:
    """Release -> its Okta YAML in ``folder``."""
    found = {}
    for path in sorted(folder.glob("okta-management-*.noExamples.yaml")):
        match = SOURCE_PATTERN.fullmatch(path.name)
        if match:
            found[match["version"]] = path
    return found


def derive_file(source: Path) -> str:
    """The derived text of one Okta YAML (checks the YAML's own version matches its name)."""
    match = SOURCE_PATTERN.fullmatch(source.name)
    if match is None:
        raise ValueError(f"not an Okta description's file name: {source.name}")
    document = load_yaml(source)
    if str(document["info"]["version"]) != match["version"]:
        raise ValueError(f"{source.name} says it is version {document['info']['version']}")
    return derived_text(derive(document, source.name))


def main(argv: Sequence[str] | None = None, folder: Path = HERE) -> int:
    """Write (or, with ``--check``, compare) every derived document; returns the exit status.

    Args:
        argv: Command-line arguments (default: the process's).
        folder: Where the YAML files are and the derived documents go.
    """

    def derived() -> Iterable[Derived]:
        for version, source in sources(folder).items():
            yield Derived(derived_path(version, folder), derive_file(source), source.name)

    return write_or_check(argv, __doc__.splitlines()[0], derived)


if __name__ == "__main__":
    sys.exit(main())
