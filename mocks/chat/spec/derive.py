"""Derive the chat mock's OpenAPI 3 document from Slack's published Web API description.

Slack's description (``slack_web_openapi_v2.without_examples.json`` beside this file, Swagger
2.0, version 1.7.0) covers 174 methods in about 1 MB and says some things in ways an OpenAPI 3
reader (:func:`~enterprise_envs.mocks._core.openapi.catalog_from_openapi`, a surface checking
its error codes) does not expect. This script, run by hand whenever that file is replaced or the
selection below changes, writes ``slack-web-1.7.0.derived.openapi.json``: an OpenAPI 3.0.3
document cut down to what the chat mock serves and reads. It needs the package installed (its
plumbing, shared with the other systems' scripts, is ``enterprise_envs.mocks._core.derive``) and
nothing outside the standard library::

    python mocks/chat/spec/derive.py          # rewrite the derived document
    python mocks/chat/spec/derive.py --check  # exit 1 if it differs from what the source makes

What the derived document keeps:

- the Web API methods in :data:`OPERATIONS` (``POST``/``GET https://slack.com/api/<method>``),
  each path with the HTTP method Slack's description gives it, its ``operationId``,
  ``description``, ``tags``, ``externalDocs`` and ``security``;
- their parameters, moved to OpenAPI 3: ``query`` parameters stay parameters, their type
  keywords wrapped in a ``schema``; ``formData`` parameters become one ``requestBody`` offered
  as ``application/x-www-form-urlencoded`` and ``application/json`` (Slack takes both), an object
  schema whose properties carry each argument's type and description, with the required ones
  listed. The ``token`` argument (a header on writes, a query parameter on reads) is dropped:
  authentication is the transport's business, and each operation's ``security`` still says which
  OAuth scopes it wants;
- their ``200`` and ``default`` responses as ``content: application/json: schema``, with the
  error schema's ``error`` ``enum``: the error codes Slack documents for the method (``api.test``
  has none: it answers with whatever error the caller asks for);
- every ``definitions`` entry those operations and :data:`TABLE_SCHEMAS` refer to, followed
  transitively, as ``components.schemas`` (``#/definitions/X`` becomes
  ``#/components/schemas/X``), sorted by name; ``enum``, ``pattern``, ``format``, ``title`` and
  descriptions as Slack wrote them;
- ``securitySchemes``: Slack's OAuth 2 scheme in OpenAPI 3 form (Swagger's ``accessCode`` flow
  is ``authorizationCode``), listing only the scopes the kept operations name;
- ``info`` (with its license, MIT, as ``LICENSE-slack-api-specs.txt`` says), ``servers`` (the
  description's scheme, host and base path: ``https://slack.com/api``), the tags the operations
  use, ``externalDocs``, and ``x-derived-from`` (the source file, its repository and commit).

Normalisations, so that the document reads as OpenAPI 3 means it (applied to every schema kept):

- ``items: [A, B]``, a list under ``items`` (JSON Schema draft 4's tuple form, which Slack uses
  to mean "one of these": ``objs_user`` is a workspace user or an Enterprise Grid user,
  ``objs_conversation`` a channel, a group DM or a DM), becomes ``anyOf: [A, B]``; under a
  ``type: array`` it becomes ``items: {anyOf: [A, B]}``. ``{type: null}`` alternatives are
  dropped and ``nullable: true`` says so instead; an ``anyOf`` left with one alternative becomes
  that alternative (a ``$ref`` keeps ``nullable`` as a sibling, which this repository's generic
  step reads as refining it).
- ``type: [null, string]`` (a list of types, Swagger 2 has no ``nullable``) becomes
  ``type: string, nullable: true``; several types that are not null become an ``anyOf`` of one
  schema per type, the array keywords (``items``, ...) going to the array alternative and the
  object keywords (``properties``, ...) to the object one.
- ``example``, ``examples`` and ``x-examples`` are cut (the "without_examples" file still
  carries a few ``x-examples``), never where they name a property.

Output: sorted keys, one-space indent, UTF-8, a trailing newline, so a rerun on the same source
writes the same bytes (``tests/mocks/chat/test_spec.py`` compares them).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from enterprise_envs.mocks._core.derive import Derived, derived_text, refs, write_or_check

HERE = Path(__file__).resolve().parent

#: Slack's description, as published (see SOURCE.md).
SOURCE_FILE = "slack_web_openapi_v2.without_examples.json"
#: Where it comes from: recorded in ``x-derived-from``.
SOURCE_REPOSITORY = "slackapi/slack-api-specs"
SOURCE_PATH = "web-api/slack_web_openapi_v2_without_examples.json"
SOURCE_COMMIT = "bc08db4"
LICENSE_FILE = "LICENSE-slack-api-specs.txt"
#: The version of Slack's description this script expects (and names its output after).
SOURCE_VERSION = "1.7.0"
DERIVED_FILE = f"slack-web-{SOURCE_VERSION}.derived.openapi.json"
OPENAPI_VERSION = "3.0.3"

#: The Web API methods the chat mock serves (each is the path ``/<method>``).
OPERATIONS = (
    "api.test",
    "auth.test",
    "chat.postMessage",
    "chat.update",
    "chat.delete",
    "chat.getPermalink",
    "chat.postEphemeral",
    "conversations.archive",
    "conversations.unarchive",
    "conversations.create",
    "conversations.history",
    "conversations.info",
    "conversations.invite",
    "conversations.join",
    "conversations.kick",
    "conversations.leave",
    "conversations.list",
    "conversations.members",
    "conversations.open",
    "conversations.rename",
    "conversations.replies",
    "conversations.setPurpose",
    "conversations.setTopic",
    "reactions.add",
    "reactions.get",
    "reactions.remove",
    "usergroups.create",
    "usergroups.disable",
    "usergroups.enable",
    "usergroups.list",
    "usergroups.update",
    "usergroups.users.list",
    "usergroups.users.update",
    "users.conversations",
    "users.info",
    "users.list",
    "users.lookupByEmail",
    "users.profile.get",
)

#: Definitions the catalog reads (``catalog.toml``), kept whatever the operations use.
TABLE_SCHEMAS = ("objs_user", "objs_conversation", "objs_message", "objs_subteam")

#: The argument every method takes for authentication; the transport handles it.
TOKEN_PARAMETER = "token"
#: The media types a Web API method accepts its arguments in.
FORM_MEDIA_TYPES = ("application/x-www-form-urlencoded", "application/json")
#: The responses kept per operation (Slack documents no others).
KEPT_RESPONSES = ("200", "default")
#: Operation keys carried over as they are (``consumes``/``produces`` become ``content``).
KEPT_OPERATION_KEYS = ("operationId", "description", "summary", "tags", "externalDocs", "security")
#: Keywords cut wherever they are schema keywords.
CUT_KEYWORDS = frozenset({"example", "examples", "x-examples"})
#: Schema keywords whose value is one schema.
SCHEMA_VALUED = frozenset({"items", "additionalProperties", "not"})
#: Schema keywords whose value is a list of schemas.
SCHEMA_LISTS = frozenset({"allOf", "anyOf", "oneOf"})
#: Schema keywords whose value maps names (chosen by the author) to schemas.
SCHEMA_MAPS = frozenset({"properties", "patternProperties"})
#: Keywords that only mean something for one type: where they go when a type list is split.
TYPE_KEYWORDS = {
    "array": frozenset({"items", "minItems", "maxItems", "uniqueItems"}),
    "object": frozenset(
        {
            "properties",
            "patternProperties",
            "additionalProperties",
            "required",
            "minProperties",
            "maxProperties",
        }
    ),
    "string": frozenset({"pattern", "minLength", "maxLength", "format"}),
}
#: Swagger 2 parameter keywords that describe the value: OpenAPI 3 moves them into ``schema``.
PARAMETER_SCHEMA_KEYS = (
    "type",
    "format",
    "items",
    "enum",
    "default",
    "pattern",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "minItems",
    "maxItems",
    "uniqueItems",
)
#: Swagger 2 OAuth flow names and their OpenAPI 3 names.
OAUTH_FLOWS = {
    "accessCode": "authorizationCode",
    "implicit": "implicit",
    "password": "password",
    "application": "clientCredentials",
}
_DEFINITIONS = "#/definitions/"
_SCHEMAS = "#/components/schemas/"


# -- schemas ------------------------------------------------------------------------------------


def _schema_ref(ref: str) -> str:
    """A Swagger 2 definition reference as the OpenAPI 3 component reference."""
    if not ref.startswith(_DEFINITIONS):
        raise ValueError(f"unexpected reference {ref!r}")
    return _SCHEMAS + ref[len(_DEFINITIONS) :]


def _is_null(schema: Any) -> bool:
    return isinstance(schema, Mapping) and schema.get("type") == "null"


def _alternatives(schemas: list[dict[str, Any]]) -> tuple[dict[str, Any], bool]:
    """One schema for "one of ``schemas``" (nulls dropped) and whether a null was among them.

    Raises:
        ValueError: Every alternative is null (nothing would be left to describe the value).
    """
    kept = [schema for schema in schemas if not _is_null(schema)]
    if not kept:
        raise ValueError(f"only null alternatives: {schemas}")
    one = kept[0] if len(kept) == 1 else {"anyOf": kept}
    return one, len(kept) < len(schemas)


def _split_types(schema: dict[str, Any]) -> dict[str, Any]:
    """A schema whose ``type`` is a list as OpenAPI 3 says it (one type, or ``anyOf``)."""
    types = schema["type"]
    named = [kind for kind in types if kind != "null"]
    nullable = len(named) < len(types)
    if len(named) == 1:
        result = {**schema, "type": named[0]}
    else:
        moved = {key for kind in named for key in TYPE_KEYWORDS.get(kind, ())}
        result = {key: value for key, value in schema.items() if key != "type" and key not in moved}
        result["anyOf"] = [
            {"type": kind, **{key: schema[key] for key in TYPE_KEYWORDS.get(kind, ()) if key in schema}}
            for kind in named
        ]
    if nullable:
        result["nullable"] = True
    return result


def normalise_schema(schema: Any) -> Any:
    """A Swagger 2 / JSON Schema draft 4 schema of Slack's as OpenAPI 3 (see the module docstring).

    Args:
        schema: A schema from Slack's description (a ``definitions`` entry, a response's schema).
    """
    if not isinstance(schema, Mapping):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        if key in CUT_KEYWORDS:
            continue
        if key == "$ref":
            result[key] = _schema_ref(value)
        elif key in SCHEMA_MAPS:
            result[key] = {name: normalise_schema(prop) for name, prop in value.items()}
        elif key in SCHEMA_LISTS or (key == "items" and isinstance(value, list)):
            result[key] = [normalise_schema(member) for member in value]
        elif key in SCHEMA_VALUED:
            result[key] = normalise_schema(value)
        else:
            result[key] = value
    if isinstance(result.get("items"), list):
        one, nullable = _alternatives(result.pop("items"))
        if result.get("type") == "array":
            result["items"] = one
        else:
            # The alternatives describe the value itself; what surrounds them (a description,
            # a title) still applies to it.
            result = {**one, **result}
            if nullable:
                result["nullable"] = True
    if isinstance(result.get("type"), list):
        result = _split_types(result)
    return result


# -- operations ---------------------------------------------------------------------------------


def _value_schema(parameter: Mapping[str, Any]) -> dict[str, Any]:
    """A Swagger 2 parameter's value keywords as a schema."""
    return normalise_schema({key: parameter[key] for key in PARAMETER_SCHEMA_KEYS if key in parameter})


def convert_parameters(parameters: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], dict | None]:
    """An operation's Swagger 2 parameters as OpenAPI 3 (parameters, request body or None).

    Raises:
        ValueError: A parameter is somewhere Slack's methods do not put one (``body``, ``path``).
    """
    query: list[dict[str, Any]] = []
    properties: dict[str, Any] = {}
    required: list[str] = []
    for parameter in parameters:
        name, where = parameter["name"], parameter["in"]
        if name == TOKEN_PARAMETER:
            continue
        if where == "query":
            converted: dict[str, Any] = {"name": name, "in": "query"}
            for key in ("description", "required"):
                if key in parameter:
                    converted[key] = parameter[key]
            converted["schema"] = _value_schema(parameter)
            query.append(converted)
        elif where == "formData":
            prop = _value_schema(parameter)
            if "description" in parameter:
                prop["description"] = parameter["description"]
            properties[name] = prop
            if parameter.get("required"):
                required.append(name)
        else:
            raise ValueError(f"unexpected parameter {name!r} in {where!r}")
    if not properties:
        return query, None
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    body = {
        "required": bool(required),
        "content": {media: {"schema": schema} for media in FORM_MEDIA_TYPES},
    }
    return query, body


def convert_operation(operation: Mapping[str, Any]) -> dict[str, Any]:
    """One Swagger 2 operation of Slack's as OpenAPI 3 (see the module docstring)."""
    converted = {key: operation[key] for key in KEPT_OPERATION_KEYS if key in operation}
    parameters, body = convert_parameters(operation.get("parameters", ()))
    if parameters:
        converted["parameters"] = parameters
    if body is not None:
        converted["requestBody"] = body
    responses = {}
    for status in KEPT_RESPONSES:
        response = operation["responses"].get(status)
        if response is None:
            continue
        kept: dict[str, Any] = {"description": response.get("description", "")}
        if "schema" in response:
            kept["content"] = {"application/json": {"schema": normalise_schema(response["schema"])}}
        responses[status] = kept
    converted["responses"] = responses
    return converted


def selected_paths(document: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The paths of :data:`OPERATIONS`, each with its methods converted to OpenAPI 3.

    Raises:
        ValueError: A method of the selection is not in the document.
    """
    missing = [method for method in OPERATIONS if f"/{method}" not in document["paths"]]
    if missing:
        raise ValueError(f"operations missing from the document: {missing}")
    return {
        f"/{method}": {
            http: convert_operation(operation) for http, operation in document["paths"][f"/{method}"].items()
        }
        for method in OPERATIONS
    }


# -- components ---------------------------------------------------------------------------------


def used_schemas(schemas: Mapping[str, Any], roots: Iterable[Any]) -> set[str]:
    """Names of every (normalised) schema the roots refer to, followed transitively.

    Raises:
        ValueError: A reference points at no schema.
    """
    used: set[str] = set()
    pending = [ref for root in roots for ref in refs(root)]
    while pending:
        ref = pending.pop()
        name = ref[len(_SCHEMAS) :] if ref.startswith(_SCHEMAS) else None
        if name is None or name not in schemas:
            raise ValueError(f"reference {ref!r} points at nothing")
        if name not in used:
            used.add(name)
            pending.extend(refs(schemas[name]))
    return used


def _scopes(paths: Mapping[str, Mapping[str, Any]]) -> dict[str, set[str]]:
    """Security scheme -> the scopes the kept operations name."""
    found: dict[str, set[str]] = {}
    for item in paths.values():
        for operation in item.values():
            for requirement in operation.get("security", ()):
                for scheme, scopes in requirement.items():
                    found.setdefault(scheme, set()).update(scopes)
    return found


def convert_security_schemes(
    definitions: Mapping[str, Mapping[str, Any]], used: Mapping[str, set[str]]
) -> dict[str, Any]:
    """Swagger 2 ``securityDefinitions`` the operations use, as OpenAPI 3 ``securitySchemes``.

    Raises:
        ValueError: An operation names a scheme or scope the document does not define.
    """
    schemes: dict[str, Any] = {}
    for name in sorted(used):
        if name not in definitions:
            raise ValueError(f"security scheme {name!r} is not defined")
        scheme = definitions[name]
        if scheme["type"] != "oauth2":
            schemes[name] = dict(scheme)
            continue
        unknown = used[name] - set(scheme["scopes"])
        if unknown:
            raise ValueError(f"scopes {sorted(unknown)} of {name!r} are not defined")
        flow = {key: scheme[key] for key in ("authorizationUrl", "tokenUrl") if key in scheme}
        flow["scopes"] = {scope: text for scope, text in scheme["scopes"].items() if scope in used[name]}
        converted: dict[str, Any] = {"type": "oauth2", "flows": {OAUTH_FLOWS[scheme["flow"]]: flow}}
        if "description" in scheme:
            converted["description"] = scheme["description"]
        schemes[name] = converted
    return schemes


# -- the document -------------------------------------------------------------------------------


def license_name(license_text: str) -> str:
    """The license a license file grants, from its first line (``MIT License`` -> ``MIT``).

    Raises:
        ValueError: The file is not the MIT license the description is published under.
    """
    first = license_text.strip().splitlines()[0].strip()
    if first not in ("MIT License", "The MIT License (MIT)"):
        raise ValueError(f"not the MIT license: {first!r}")
    return "MIT"


def derive(document: Mapping[str, Any], license_text: str) -> dict[str, Any]:
    """The derived document of Slack's parsed description (see the module docstring).

    Args:
        document: Slack's Swagger 2.0 description, parsed.
        license_text: The text of the description's license file.

    Raises:
        ValueError: The description is not the version this script is written for, or lacks
            an operation, a table schema or a reference target.
    """
    if document.get("swagger") != "2.0" or document["info"]["version"] != SOURCE_VERSION:
        raise ValueError(
            f"expected Swagger 2.0, version {SOURCE_VERSION}; got {document.get('swagger')}, "
            f"{document['info'].get('version')}"
        )
    paths = selected_paths(document)
    definitions = document["definitions"]
    absent = [name for name in TABLE_SCHEMAS if name not in definitions]
    if absent:
        raise ValueError(f"schemas missing from the document: {absent}")
    schemas = {name: normalise_schema(schema) for name, schema in definitions.items()}
    roots = [paths, *({"$ref": _SCHEMAS + name} for name in TABLE_SCHEMAS)]
    kept = sorted(used_schemas(schemas, roots))
    tags = sorted({tag for item in paths.values() for op in item.values() for tag in op.get("tags", ())})
    info = dict(document["info"])
    info["license"] = {"name": license_name(license_text), "url": "https://opensource.org/licenses/MIT"}
    derived: dict[str, Any] = {
        "openapi": OPENAPI_VERSION,
        "info": info,
        "servers": [
            {"url": f"{scheme}://{document['host']}{document['basePath']}"} for scheme in document["schemes"]
        ],
        "tags": [{"name": tag} for tag in tags],
        "paths": paths,
        "components": {
            "schemas": {name: schemas[name] for name in kept},
            "securitySchemes": convert_security_schemes(
                document.get("securityDefinitions", {}), _scopes(paths)
            ),
        },
        "x-derived-from": {
            "source": SOURCE_FILE,
            "repository": SOURCE_REPOSITORY,
            "path": SOURCE_PATH,
            "commit": SOURCE_COMMIT,
            "license": LICENSE_FILE,
            "script": "mocks/chat/spec/derive.py",
            "operations": len(OPERATIONS),
        },
    }
    if "externalDocs" in document:
        derived["externalDocs"] = document["externalDocs"]
    return derived


def derive_file(folder: Path = HERE) -> str:
    """The derived text of the description and license in ``folder``."""
    document = json.loads((folder / SOURCE_FILE).read_text(encoding="utf-8"))
    license_text = (folder / LICENSE_FILE).read_text(encoding="utf-8")
    return derived_text(derive(document, license_text), sort_keys=True)


def main(argv: Sequence[str] | None = None, folder: Path = HERE) -> int:
    """Write (or, with ``--check``, compare) the derived document; returns the exit status.

    Args:
        argv: Command-line arguments (default: the process's).
        folder: Where the description and its license are and the derived document goes.
    """
    return write_or_check(
        argv,
        __doc__.splitlines()[0],
        lambda: [Derived(folder / DERIVED_FILE, derive_file(folder), SOURCE_FILE)],
    )


if __name__ == "__main__":
    sys.exit(main())
