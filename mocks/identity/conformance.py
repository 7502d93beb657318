"""Conformance: the shipped cassettes' requests replayed against the mock, the responses compared.

The cassettes in ``spec/observed/`` were recorded by Okta's Python SDK against real orgs (2020 and
2025), with the orgs' own ids and data. :func:`replay` plays each one, in order, in a fresh
episode of a tiny identity world (one episode per cassette), acting as the org's super
administrator (the recordings used an API token of one), and maps every request onto the mock:

- **Routing.** The method and path are matched against the routes of Okta's HTTP API
  (``http.build_http_api``: ``POST /api/v1/users/{id}/lifecycle/suspend`` is ``suspendUser``),
  then against the rest of the release's derived description (operations without a tool) and
  the operations outside it the replay sets up. A served operation's request, its ids mapped
  onto the mock's and the query parameters its tool does not take left out, is sent through a
  **transport** (``mocks/_core/http.py``'s ``Transport``): ``InProcess`` matches it against the
  same HttpApi routes, reads its query and body as the tool's schema types them and calls the
  tool with ``Backend.call``; the REST transport's ``RestClient`` sends it to the mock served
  as Okta's API (``RestServer("identity")``). The comparisons are the same either way. The 2020
  cassettes recorded no request bodies: where a tool needs one (``createUser``,
  ``assignUserToApplication``, ``assignRoleToUser``, ``updateUser``) it is rebuilt from the
  recorded response (:data:`REBUILT_BODIES`; a created user's password, which no response
  shows, is :data:`REPLAYED_PASSWORD`).
- **Creating users.** The cassettes' users are created through ``createUser`` like any replayed
  request (the replay acts as a super administrator, who may), and compared; the id the mock
  gives a created user (:data:`CREATING`) stands for the recorded one from then on.
- **Setup.** What the mock serves no tool for but later requests depend on is applied to the
  mock's store directly, from the recorded response (:data:`SETUP_OPERATIONS`): the cassette's
  groups and apps are created, groups assigned to apps, roles to groups, groups replaced and
  deleted, apps deactivated and deleted. Every id the cassette saw for a created object is
  substituted by the id the mock gave it, in later paths, query strings and bodies; a
  pagination cursor the cassette followed is substituted by the one the mock's ``Link`` header
  handed out at the same place.
- **Skipped**, each with its reason: operations the mock does not model (:data:`UNMODELLED`:
  credentials, sessions, grants, group rules, role targets, ...), operations of the description
  without a ``rest`` tool that nothing later reads, recorded calls that failed and changed
  nothing (set-up operations, and a failure that is not Okta's answer: :data:`NOT_OKTAS`), and
  requests naming an object the cassette never created.

For every replayed interaction :func:`compare` checks the **status**; the **body's shape** (keys
the recording has and the mock lacks, keys the mock adds, JSON types; inside a list, whose items
are partly the world's rows rather than the cassette's objects, a key the description declares
there may be absent from the recording, and ``null`` stands for any type where the description
marks the property nullable); **enum values**: the mock's against the description's schema for
that operation's response (a user's ``status``, a group's ``type``, ...) and, in a single object,
the mock's against the recording's (the state a lifecycle operation leaves); an error's
``errorCode``; and the **headers that matter**: ``Content-Type``, the ``Link`` header's
``rel="self"`` and ``rel="next"``, ``X-Rate-Limit-Limit``/``-Remaining``/``-Reset``.

The differences kept on purpose are the "Known differences" table of
``docs/systems/identity.md``; ``tests/mocks/identity/test_conformance.py`` checks the replay finds
exactly those, and ``test_conformance_http.py`` that the replay over HTTP finds the same but the
``Content-Type`` one (the served answers carry ``application/json``). Run
``python -m enterprise_envs.mocks.identity.conformance`` for the report (PyYAML reads the
cassettes; nothing else in the package needs it).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.backend import Backend, CallContext, CallResult
from enterprise_envs.mocks._core.conformance import (
    DIFFERING,
    MATCHED,
    SKIPPED,
    Difference,
    Schemas,
    Tally,
    shape_differences,
    verdict,
)
from enterprise_envs.mocks._core.http import HttpApi, InProcess, Rejection, Route, Transport, WireRequest
from enterprise_envs.mocks._core.openapi import dereference
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks.identity import identity_system
from enterprise_envs.mocks.identity.conventions import role_id
from enterprise_envs.mocks.identity.http import build_http_api, described_operation
from enterprise_envs.mocks.identity.records import ENGINE
from enterprise_envs.mocks.identity.services.apps import reconcile_user
from enterprise_envs.mocks.identity.surfaces.rest import SpecOperation, operations
from enterprise_envs.mocks.identity.tables import CURRENT_VERSION, spec_document

__all__ = [
    "CREATING",
    "DIFFERING",
    "MATCHED",
    "NOT_OKTAS",
    "NO_TOOL",
    "REBUILT_BODIES",
    "REPLAYED_PASSWORD",
    "SETUP",
    "SETUP_OPERATIONS",
    "SKIPPED",
    "UNMODELLED",
    "Cassette",
    "CassetteReport",
    "ConformanceReport",
    "Difference",
    "Interaction",
    "Step",
    "compare",
    "load_cassettes",
    "main",
    "rebuilt_body",
    "replay",
]

#: Where the cassettes are, inside the package.
OBSERVED = ("spec", "observed")

_NO_CREDENTIALS = "credentials are not modelled: the mock keeps no password or recovery answer"
_NO_TARGETS = "admin role targets are not modelled: a role holds for the whole org"
_NO_RULES = "group rules are not modelled: memberships are made one by one"
_NO_GRANTS = "OAuth 2.0 grants are not modelled"
_USER = "/api/v1/users/{}"
_TARGETS = "/roles/{}/targets/groups"

#: Operations of Okta's API the mock does not model, as the 2026.06.3 description names them:
#: (method, path template with ``{}`` parameters) -> (operationId, why).
UNMODELLED: dict[tuple[str, str], tuple[str, str]] = {
    ("POST", f"{_USER}/credentials/change_password"): ("changePassword", _NO_CREDENTIALS),
    ("POST", f"{_USER}/credentials/change_recovery_question"): ("changeRecoveryQuestion", _NO_CREDENTIALS),
    ("POST", f"{_USER}/credentials/forgot_password"): (
        "forgotPassword", f"{_NO_CREDENTIALS}; the user resets it from an e-mailed link",
    ),
    ("POST", f"{_USER}/credentials/forgot_password_recovery_question"): (
        "forgotPasswordSetNewPassword", _NO_CREDENTIALS,
    ),
    ("POST", f"{_USER}/lifecycle/expire_password_with_temp_password"): (
        "expirePasswordWithTempPassword",
        "answers a temporary password: the mock keeps no passwords (expirePassword is served)",
    ),
    ("DELETE", f"{_USER}/sessions"): ("revokeUserSessions", "sign-in sessions are not modelled"),
    ("GET", f"{_USER}/grants"): ("listUserGrants", _NO_GRANTS),
    ("DELETE", f"{_USER}/grants"): ("revokeUserGrants", _NO_GRANTS),
    ("GET", f"{_USER}/clients"): ("listUserClients", "OAuth 2.0 clients are not modelled"),
    ("GET", f"{_USER}/idps"): ("listUserIdentityProviders", "identity providers are not modelled"),
    ("GET", f"{_USER}/blocks"): ("listUserBlocks", "sign-in blocks are not modelled"),
    ("GET", f"{_USER}{_TARGETS}"): ("listGroupTargetsForRole", _NO_TARGETS),
    ("PUT", f"{_USER}{_TARGETS}/{{}}"): ("assignGroupTargetToUserRole", _NO_TARGETS),
    ("DELETE", f"{_USER}{_TARGETS}/{{}}"): ("unassignGroupTargetFromUserAdminRole", _NO_TARGETS),
    ("GET", f"/api/v1/groups/{{}}{_TARGETS}"): ("listGroupTargetsForGroupRole", _NO_TARGETS),
    ("PUT", f"/api/v1/groups/{{}}{_TARGETS}/{{}}"): ("assignGroupTargetToGroupAdminRole", _NO_TARGETS),
    ("DELETE", f"/api/v1/groups/{{}}{_TARGETS}/{{}}"): ("unassignGroupTargetFromGroupAdminRole", _NO_TARGETS),
    ("GET", "/api/v1/groups/rules"): ("listGroupRules", _NO_RULES),
    ("POST", "/api/v1/groups/rules"): ("createGroupRule", _NO_RULES),
    ("PUT", "/api/v1/groups/rules/{}"): ("replaceGroupRule", _NO_RULES),
    ("DELETE", "/api/v1/groups/rules/{}"): ("deleteGroupRule", _NO_RULES),
    ("POST", "/api/v1/groups/rules/{}/lifecycle/activate"): ("activateGroupRule", _NO_RULES),
    ("POST", "/api/v1/groups/rules/{}/lifecycle/deactivate"): ("deactivateGroupRule", _NO_RULES),
}  # fmt: skip

#: Operations outside the derived description that the replay applies as setup (the cassettes'
#: apps and their group roles), as the 2026.06.3 description names them.
_EXTRA_OPERATIONS = {
    ("POST", "/api/v1/apps"): ("createApplication", ()),
    ("POST", "/api/v1/apps/{}/lifecycle/deactivate"): ("deactivateApplication", ("appId",)),
    ("DELETE", "/api/v1/apps/{}"): ("deleteApplication", ("appId",)),
    ("POST", "/api/v1/groups/{}/roles"): ("assignRoleToGroup", ("groupId",)),
    ("DELETE", "/api/v1/groups/{}/roles/{}"): ("unassignRoleFromGroup", ("groupId", "roleAssignmentId")),
}

#: Properties of a request body the recording left out, rebuilt from the recorded response:
#: operationId -> the response's properties the client sent (the 2020 cassettes keep no bodies).
#: A created user's ``credentials`` are rebuilt as a password (:data:`REPLAYED_PASSWORD`) when
#: the recorded user has one (``password: {}``): the response never shows the value.
REBUILT_BODIES: dict[str, tuple[str, ...]] = {
    "assignUserToApplication": ("id", "scope", "credentials"),
    "assignRoleToUser": ("type",),
    "updateUser": ("profile",),
    "createUser": ("profile", "credentials"),
}
#: The password a rebuilt ``createUser`` body sets (it meets Okta's default password policy).
REPLAYED_PASSWORD = "Replayed-Passw0rd"
#: Operations whose answer is a new object: the recorded id is mapped onto the mock's.
CREATING = frozenset({"createUser"})
#: Why a recorded failure without Okta's error envelope is skipped.
NOT_OKTAS = (
    "the recorded failure is not Okta's answer (no error envelope: a proxy's 404 page) and changed "
    "nothing; the recording repeats the request next"
)

_ID_LIKE = re.compile(r"^(?:[0-9a-z]{3}[0-9A-Za-z]{17}|[A-Z2-7]{4,40})$")
_ROLE_ID = re.compile(r"^[A-Z2-7]{4,40}$")
_REL = re.compile(r'rel="([^"]+)"')
_AFTER = re.compile(r"[?&]after=([^&>]+)")


# -- the cassettes -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Interaction:
    """One recorded request and its response.

    Attributes:
        index: Its place in the cassette, from 0.
        method: HTTP method.
        path: The URL's path (the host dropped, a doubled slash collapsed).
        query: The query parameters, in order.
        body: The request's JSON body, or None (the 2020 recordings keep none).
        status: The response's status.
        headers: The response's headers, names in lower case, several values joined by ``", "``.
        response: The response's JSON body, or None when empty.
    """

    index: int
    method: str
    path: str
    query: tuple[tuple[str, str], ...]
    body: Any
    status: int
    headers: Mapping[str, str]
    response: Any


@dataclass(frozen=True)
class Cassette:
    """One recorded test of the SDK: its name (``test_users_it/TestUsersResource.test_...``) and calls."""

    name: str
    interactions: tuple[Interaction, ...]


def _json(text: str | None) -> Any:
    if not text:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _header_value(value: Any) -> str:
    return ", ".join(str(item) for item in value) if isinstance(value, list) else str(value)


def _interaction(index: int, raw: Mapping[str, Any]) -> Interaction:
    request, response = raw["request"], raw["response"]
    url = urlsplit(request["uri"])
    body = request.get("body")
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    return Interaction(
        index=index,
        method=request["method"].upper(),
        path=re.sub(r"/{2,}", "/", url.path),
        query=tuple(parse_qsl(url.query, keep_blank_values=True)),
        body=_json(body) if isinstance(body, str) else body,
        status=int(response["status"]["code"]),
        headers={
            name.lower(): _header_value(value) for name, value in (response.get("headers") or {}).items()
        },
        response=_json((response.get("body") or {}).get("string")),
    )


@cache
def load_cassettes() -> tuple[Cassette, ...]:
    """Every shipped cassette, by name (needs PyYAML)."""
    import yaml  # Only the conformance report reads YAML; the mock never does.

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    root = resources.files(__package__).joinpath(*OBSERVED)
    found = []
    for folder in sorted((entry for entry in root.iterdir() if entry.is_dir()), key=lambda entry: entry.name):
        for entry in sorted(folder.iterdir(), key=lambda entry: entry.name):
            if not entry.name.endswith(".yaml"):
                continue
            data = yaml.load(entry.read_text(encoding="utf-8"), Loader=loader)
            interactions = tuple(_interaction(i, raw) for i, raw in enumerate(data["interactions"]))
            found.append(Cassette(f"{folder.name}/{entry.name.removesuffix('.yaml')}", interactions))
    return tuple(found)


# -- the report ----------------------------------------------------------------------------------

#: An interaction's outcome besides matched, differing and skipped: applied to the store directly.
#: A replayed one's differences are of the kinds ``status``, ``error code``, ``missing key``,
#: ``extra key``, ``type``, ``enum`` (a value the description's schema does not allow), ``value``
#: (an enum-valued property the recording has another value of), ``header`` or ``parameter`` (a
#: query parameter the tool does not take).
SETUP = "setup"


@dataclass(frozen=True)
class Step:
    """What the replay did with one interaction.

    Attributes:
        index: The interaction's place in its cassette.
        method: Its method.
        path: Its path as recorded.
        operation: The operation it routed to (``""`` when none).
        outcome: :data:`MATCHED`, :data:`DIFFERING`, :data:`SETUP` or :data:`SKIPPED`.
        reason: Why it was applied as setup or skipped.
        differences: How the mock's response differed (a replayed interaction's).
    """

    index: int
    method: str
    path: str
    operation: str
    outcome: str
    reason: str = ""
    differences: tuple[Difference, ...] = ()


@dataclass
class CassetteReport(Tally):
    """One cassette's replay."""

    name: str
    steps: list[Step] = field(default_factory=list)

    def outcomes(self) -> Iterable[Step]:
        """What the replay did with each interaction, in order."""
        return self.steps


@dataclass
class ConformanceReport(Tally):
    """The replay of every cassette against one release's mock."""

    version: str
    cassettes: list[CassetteReport]

    @property
    def interactions(self) -> int:
        """Recorded interactions."""
        return sum(len(cassette.steps) for cassette in self.cassettes)

    def outcomes(self) -> Iterable[Step]:
        """What the replay did with each interaction, cassette by cassette."""
        return [step for cassette in self.cassettes for step in cassette.steps]

    def text(self, verbose: bool = True) -> str:
        """The report: totals, each cassette's figures, its differences and what it skipped."""
        total = self.interactions
        sent = self.replayed + self.count(SETUP)
        lines = [
            f"Identity mock (Okta {self.version}), {len(self.cassettes)} cassettes, {total} interactions:",
            f"  replayed through a rest tool and compared {self.replayed} ({_share(self.replayed, total)}): "
            f"matched {self.count(MATCHED)}, differing {self.count(DIFFERING)}",
            f"  applied to the store as setup {self.count(SETUP)}; skipped {self.count(SKIPPED)} "
            f"(sent to the mock either way: {sent}, {_share(sent, total)})",
            "",
        ]
        for cassette in self.cassettes:
            lines.append(
                f"{cassette.name}: {len(cassette.steps)} interactions, replayed {cassette.replayed} "
                f"(matched {cassette.count(MATCHED)}, differing {cassette.count(DIFFERING)}), "
                f"setup {cassette.count(SETUP)}, skipped {cassette.count(SKIPPED)}"
            )
            if not verbose:
                continue
            for step in cassette.steps:
                head = f"  #{step.index} {step.method} {step.path}"
                if step.outcome == DIFFERING:
                    for difference in step.differences:
                        what = f"{difference.kind} at {difference.where}: {difference.detail}"
                        lines.append(f"{head} {step.operation}: {what}")
                elif step.outcome == SKIPPED:
                    lines.append(f"{head}: skipped ({step.operation or 'not served'}): {step.reason}")
        kinds = Counter(difference.kind for difference in self.differences)
        lines += [
            "",
            "Differences by kind: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none"),
        ]
        lines.append(f"Distinct differences (operation, kind, where): {len(self.signatures())}")
        for operation, kind, where in sorted(self.signatures()):
            lines.append(f"  {operation} | {kind} | {where}")
        reasons = Counter(
            (step.operation or "not served", step.reason)
            for cassette in self.cassettes
            for step in cassette.steps
            if step.outcome == SKIPPED
        )
        lines += ["", "Skipped, by operation and reason:"]
        for (operation, reason), count in sorted(reasons.items()):
            lines.append(f"  {count:3d}  {operation}: {reason}")
        return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


# -- comparing one response ----------------------------------------------------------------------


def _response_schemas(document: Mapping[str, Any], operation: SpecOperation | None, status: int) -> Schemas:
    if operation is None:
        return Schemas(document, [])
    item = document["paths"][operation.path][operation.method.lower()]
    responses = item.get("responses", {})
    response = responses.get(str(status)) or responses.get("default") or {}
    response = dereference(document, response)
    content = (response.get("content") or {}).get("application/json") or {}
    return Schemas(document, [content["schema"]] if "schema" in content else [])


def _enum_differences(operation: str, value: Any, schemas: Schemas, where: str) -> Iterator[Difference]:
    """The mock's values the description's schema does not allow."""
    if isinstance(value, str):
        allowed = schemas.enum
        if allowed is not None and value not in allowed:
            yield Difference(operation, "enum", where, f"{value!r} is not one of the described values")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _enum_differences(operation, item, schemas.at(key), f"{where}.{key}")
    elif isinstance(value, list):
        items = schemas.items()
        for item in value:
            yield from _enum_differences(operation, item, items, f"{where}[]")


def _value_differences(
    operation: str, recorded: Any, mock: Any, schemas: Schemas, where: str
) -> Iterator[Difference]:
    """In one object (not a list of them), enum-valued properties holding another value than recorded."""
    if isinstance(recorded, str) and isinstance(mock, str):
        if schemas.enum is not None and recorded != mock:
            yield Difference(operation, "value", where, f"{recorded} recorded, {mock} from the mock")
    elif isinstance(recorded, dict) and isinstance(mock, dict):
        for key in sorted(set(recorded) & set(mock)):
            yield from _value_differences(
                operation, recorded[key], mock[key], schemas.at(key), f"{where}.{key}"
            )


def _rels(link: str) -> set[str]:
    return set(_REL.findall(link))


def _header_differences(
    operation: str, interaction: Interaction, result: CallResult, limit: int | None
) -> Iterator[Difference]:
    recorded = interaction.headers
    mock = {name.lower(): value for name, value in result.headers.items()}
    if "content-type" in recorded:
        media = recorded["content-type"].split(";")[0].strip()
        got = mock.get("content-type", "").split(";")[0].strip()
        if got != media:
            yield Difference(
                operation, "header", "Content-Type", f"{media} recorded, {got or 'absent'} from the mock"
            )
    recorded_rels, mock_rels = _rels(recorded.get("link", "")), _rels(mock.get("link", ""))
    if "self" in recorded_rels and "self" not in mock_rels:
        yield Difference(operation, "header", 'Link rel="self"', "recorded, absent from the mock")
    expect_next = "next" in recorded_rels
    both_lists = isinstance(interaction.response, list) and isinstance(result.body, list)
    if both_lists and limit is not None and len(interaction.response) != len(result.body):
        # The orgs differ in size: a full page of the mock's own rows may go on.
        expect_next = len(result.body) >= limit
    if expect_next != ("next" in mock_rels) and (recorded_rels or mock_rels):
        state = "recorded" if expect_next else "not recorded"
        yield Difference(
            operation,
            "header",
            'Link rel="next"',
            f"{state}, {'present' if not expect_next else 'absent'} in the mock",
        )
    for name in ("X-Rate-Limit-Limit", "X-Rate-Limit-Remaining", "X-Rate-Limit-Reset"):
        if name.lower() in recorded and name.lower() not in mock:
            yield Difference(operation, "header", name, "recorded, absent from the mock")


def compare(
    document: Mapping[str, Any],
    operation: SpecOperation,
    interaction: Interaction,
    result: CallResult,
    limit: int | None = None,
) -> list[Difference]:
    """How the mock's response to a replayed request differs from the recorded one.

    Args:
        document: The release's derived description (the response schemas).
        operation: The operation replayed.
        interaction: The recorded request and response.
        result: The mock's response.
        limit: The page size the request asked for, if any (a list of the mock's own rows).
    """
    name = operation.operation_id
    if result.status != interaction.status:
        return [
            Difference(name, "status", f"{interaction.status} -> {result.status}", _error_summary(result))
        ]
    found: list[Difference] = []
    recorded, body = interaction.response, result.body
    if isinstance(recorded, dict) and "errorCode" in recorded:
        got = body.get("errorCode") if isinstance(body, dict) else None
        if got != recorded["errorCode"]:
            found.append(
                Difference(name, "error code", "body.errorCode", f"{recorded['errorCode']} recorded, {got}")
            )
    schemas = _response_schemas(document, operation, result.status)
    if recorded is not None or body is not None:
        found += shape_differences(name, recorded, body, schemas)
        found += _enum_differences(name, body, schemas, "body")
        found += _value_differences(name, recorded, body, schemas, "body")
    found += _header_differences(name, interaction, result, limit)
    return found


def _error_summary(result: CallResult) -> str:
    body = result.body
    if isinstance(body, dict) and "errorCode" in body:
        causes = "; ".join(cause.get("errorSummary", "") for cause in body.get("errorCauses") or [])
        return f"{body['errorCode']} {body.get('errorSummary', '')}" + (f" ({causes})" if causes else "")
    return ""


# -- the replay ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Routed:
    """Where a recorded request goes: its operation and the values of the path's parameters."""

    operation: SpecOperation
    values: dict[str, str]


def _routes(
    table: Mapping[tuple[str, str], Any], names: Callable[[Any], Sequence[str]]
) -> list[tuple[Route, Any]]:
    """A table keyed by (method, template with ``{}``) as routes, each ``{}`` named by ``names(entry)``."""
    found = []
    for (method, template), entry in table.items():
        parts = template.split("{}")
        given = list(names(entry)) or [f"p{i}" for i in range(len(parts) - 1)]
        path = parts[0] + "".join(f"{{{name}}}{part}" for name, part in zip(given, parts[1:], strict=True))
        found.append((Route(method, path, ""), entry))
    return found


_UNMODELLED_ROUTES = _routes(UNMODELLED, lambda entry: ())
_EXTRA_ROUTES = _routes(_EXTRA_OPERATIONS, lambda entry: entry[1])


def _find(routes: Sequence[tuple[Route, Any]], method: str, path: str) -> tuple[Any, dict[str, str]] | None:
    for route, entry in routes:
        if route.method == method:
            values = route.match(path)
            if values is not None:
                return entry, values
    return None


def _fill(template: str, values: Mapping[str, str]) -> str:
    """A path template with its parameters' values, percent-encoded (``ana%40example.com``)."""
    return re.sub(r"\{([^}]+)\}", lambda found: quote(values[found.group(1)], safe=""), template)


class _Replay:
    """One cassette's replay in a fresh episode (see the module docstring).

    Args:
        backend: The world the cassette plays in (reset for it; setup is applied to its store).
        transport: Where the replayed requests go (in process, or a server over HTTP).
        api: Okta's HTTP API of the release (what a recorded request routes to).
        version: The release.
        cassette: The cassette.
        identity: Who the calls act as (the org's super administrator).
    """

    def __init__(
        self,
        backend: Backend,
        transport: Transport,
        api: HttpApi,
        version: str,
        cassette: Cassette,
        identity: Identity,
    ) -> None:
        self.backend = backend
        self.transport = transport
        self.api = api
        self.version = version
        self.document = spec_document(version)
        self.cassette = cassette
        self.identity = identity
        #: Ids the cassette saw for objects it created -> the mock's ids for them.
        self.ids: dict[str, str] = {}
        #: Pagination cursors the cassette followed -> the mock's at the same place.
        self.cursors: dict[str, str] = {}
        self.report = CassetteReport(cassette.name)

    # -- routing

    def route(self, interaction: Interaction) -> _Routed | tuple[str, str] | None:
        """The operation (with its path values), an unmodelled one (id, why), or None.

        The API's own routes first (the served operations), then the release's description
        (operations without a tool), then the operations outside it the replay sets up.
        """
        method, path = interaction.method, interaction.path
        unmodelled = _find(_UNMODELLED_ROUTES, method, path)
        if unmodelled is not None:
            return unmodelled[0]
        served = self.api.match(method, path)
        if not isinstance(served, Rejection):
            route, values = served
            return _Routed(operations(self.version)[route.tool], values)
        described = described_operation(method, path, self.version)
        if described is not None:
            return _Routed(*described)
        extra = _find(_EXTRA_ROUTES, method, path)
        if extra is not None:
            (operation_id, names), values = extra
            return _Routed(SpecOperation(operation_id, method, path, tuple(names)), values)
        return None

    def map_value(self, value: str) -> str:
        return self.ids.get(value, value)

    def mapped(self, value: Any) -> Any:
        """A recorded value with every id the cassette created replaced by the mock's."""
        if isinstance(value, str):
            return self.map_value(value)
        if isinstance(value, list):
            return [self.mapped(item) for item in value]
        if isinstance(value, dict):
            return {key: self.mapped(item) for key, item in value.items()}
        return value

    # -- one interaction

    def run(self, interaction: Interaction) -> Step:
        found = self.route(interaction)
        if found is None:
            return self.step(interaction, "", SKIPPED, "not among the operations the mock serves")
        if isinstance(found, tuple):
            operation_id, why = found
            return self.step(interaction, operation_id, SKIPPED, why)
        operation = found.operation.operation_id
        values = {}
        for name, value in found.values.items():
            if value in self.ids or "@" in value or (_ROLE_ID.match(value) and "role" in name.lower()):
                values[name] = self.map_value(value)
            elif _ID_LIKE.match(value):
                return self.step(
                    interaction, operation, SKIPPED, f"names {value}, which the replay did not create"
                )
            else:
                return self.step(
                    interaction,
                    operation,
                    SKIPPED,
                    f"names `{value}`, a placeholder, not an object the cassette created",
                )
        if interaction.status >= 400 and not _okta_answer(interaction.response):
            return self.step(interaction, operation, SKIPPED, NOT_OKTAS)
        setup = SETUP_OPERATIONS.get(operation)
        if setup is not None:
            if interaction.status >= 300:
                return self.step(
                    interaction,
                    operation,
                    SKIPPED,
                    f"the recorded call failed ({interaction.status}) and changed nothing",
                )
            apply, why = setup
            context = self.backend.context(self.identity)
            try:
                with self.backend.store.transaction():
                    apply(self, context, values, interaction)
            except Exception as error:  # a recorded object the mock cannot hold: say so, go on
                return self.step(interaction, operation, SKIPPED, f"could not be set up: {error!r}")
            return self.step(interaction, operation, SETUP, why)
        tool = self.backend.system.surface(self.api.surface).tools.get(operation)
        if tool is None:
            why = NO_TOOL.get(operation, "no rest tool, and nothing later in the cassette reads what it does")
            return self.step(interaction, operation, SKIPPED, why)
        return self.call(interaction, found.operation, values, tool.input_schema)

    def step(self, interaction: Interaction, operation: str, outcome: str, reason: str = "",
             differences: Sequence[Difference] = ()) -> Step:  # fmt: skip
        step = Step(interaction.index, interaction.method, interaction.path, operation, outcome, reason,
                    tuple(differences))  # fmt: skip
        self.report.steps.append(step)
        return step

    def call(
        self,
        interaction: Interaction,
        operation: SpecOperation,
        values: dict[str, str],
        schema: Mapping[str, Any],
    ) -> Step:
        """Send the recorded request (ids and cursors mapped onto the mock's) and compare the answer."""
        properties = schema.get("properties", {})
        differences = []
        query: list[tuple[str, str]] = []
        limit = None
        for name, value in interaction.query:
            if name not in properties:
                differences.append(
                    Difference(operation.operation_id, "parameter", name, "not taken by the tool")
                )
                continue
            if name == "after":
                value = self.cursors.get(value, value)
            query.append((name, self.map_value(value)))
            if name == "limit":
                limit = int(value)
        body = interaction.body
        if (
            body is None
            and operation.operation_id in REBUILT_BODIES
            and isinstance(interaction.response, dict)
        ):
            body = rebuilt_body(operation.operation_id, interaction.response)
        request = WireRequest(
            interaction.method,
            _fill(operation.path, values),
            tuple(query),
            self.mapped(body) if isinstance(body, dict) else None,
        )
        result = self.transport.send(request)
        self.follow_cursor(interaction, result)
        if operation.operation_id in CREATING:
            self.follow_created(interaction, result)
        differences += compare(self.document, operation, interaction, result, limit)
        return self.step(interaction, operation.operation_id, verdict(differences), "", differences)

    def follow_created(self, interaction: Interaction, result: CallResult) -> None:
        """Remember the id the mock gave an object the cassette created, for its later requests."""
        recorded, made = interaction.response, result.body
        if isinstance(recorded, dict) and isinstance(made, dict) and recorded.get("id") and made.get("id"):
            self.ids[recorded["id"]] = made["id"]

    def follow_cursor(self, interaction: Interaction, result: CallResult) -> None:
        """Remember the mock's next-page cursor as the one the cassette's next request will carry."""
        recorded = _AFTER.findall(_next_link(interaction.headers.get("link", "")))
        mock = _AFTER.findall(_next_link({k.lower(): v for k, v in result.headers.items()}.get("link", "")))
        if recorded and mock:
            self.cursors[unquote(recorded[0])] = unquote(mock[0])

    # -- setup, applied to the store from the recorded response

    def create(
        self, ctx: CallContext, table: str, recorded_id: str, values: Mapping[str, str]
    ) -> dict[str, str]:
        row = ENGINE.system_insert(ctx, table, values)
        if recorded_id:
            self.ids[recorded_id] = row[ctx.store.catalog[table].key_field]
        return row


def rebuilt_body(operation_id: str, response: Mapping[str, Any]) -> dict[str, Any]:
    """The request body a 2020 recording left out, from its response (see :data:`REBUILT_BODIES`)."""
    body = {key: response[key] for key in REBUILT_BODIES[operation_id] if key in response}
    if operation_id == "createUser":
        credentials = body.pop("credentials", None) or {}
        if "password" in credentials:
            body["credentials"] = {"password": {"value": REPLAYED_PASSWORD}}
    return body


def _next_link(link: str) -> str:
    return next((part for part in link.split(",") if 'rel="next"' in part), "")


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _okta_answer(body: Any) -> bool:
    """True if a recorded error body is Okta's envelope (an ``errorCode``)."""
    return isinstance(body, dict) and "errorCode" in body


def _setup_group(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``addGroup``/``createGroup``: an ``OKTA_GROUP`` with the recorded name and description."""
    recorded = interaction.response
    profile = recorded.get("profile") or {}
    run.create(ctx, "group", recorded["id"], {
        "type": recorded.get("type") or "OKTA_GROUP",
        "name": _text(profile.get("name")),
        "description": _text(profile.get("description")),
        "lastMembershipUpdated": ctx.clock.now_text(),
    })  # fmt: skip


def _replace_group(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``replaceGroup``: the recorded profile."""
    profile = (interaction.response or {}).get("profile") or {}
    ENGINE.system_update(ctx, "group", ctx.store.get("group", values["groupId"]) or {}, {
        "name": _text(profile.get("name")), "description": _text(profile.get("description")),
    })  # fmt: skip


def _members(ctx: CallContext, group_id: str) -> list[dict[str, str]]:
    users = [
        ctx.store.get("user", row["userId"])
        for row in ctx.store.select("group_member", '"groupId" = ?', (group_id,))
    ]
    return [user for user in users if user is not None]


def _delete_group(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``deleteGroup``: the group, its memberships (apps reconciled), app and role assignments."""
    group_id = values["groupId"]
    members = _members(ctx, group_id)
    for table in ("group_member", "app_group", "role_assignment"):
        for row in ctx.store.select(table, '"groupId" = ?', (group_id,)):
            ctx.store.delete(table, row["id"])
    ctx.store.delete("group", group_id)
    for user in members:
        reconcile_user(ctx, user)


def _setup_app(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``createApplication``: the recorded name, label, status and sign-on mode."""
    recorded = interaction.response
    run.create(ctx, "app", recorded["id"], {
        name: _text(recorded.get(name)) for name in ("name", "label", "status", "signOnMode")
    })  # fmt: skip


def _deactivate_app(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``deactivateApplication``: status ``INACTIVE``."""
    ENGINE.system_update(ctx, "app", ctx.store.get("app", values["appId"]) or {}, {"status": "INACTIVE"})


def _delete_app(run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction) -> None:
    """``deleteApplication``: the app and its user and group assignments."""
    for table in ("app_user", "app_group"):
        for row in ctx.store.select(table, '"appId" = ?', (values["appId"],)):
            ctx.store.delete(table, row["id"])
    ctx.store.delete("app", values["appId"])


def _assign_group_app(
    run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction
) -> None:
    """``assignGroupToApplication``: the assignment (recorded priority); the members get the app."""
    recorded = interaction.response or {}
    priority = _text(recorded.get("priority", 0))
    ENGINE.system_insert(ctx, "app_group", {"appId": values["appId"], "groupId": values["groupId"],
                                            "priority": priority})  # fmt: skip
    for user in _members(ctx, values["groupId"]):
        reconcile_user(ctx, user)


def _unassign_group_app(
    run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction
) -> None:
    """``unassignApplicationFromGroup``: the assignment removed; members keep only what another grants."""
    where = '"appId" = ? AND "groupId" = ?'
    for row in ctx.store.select("app_group", where, (values["appId"], values["groupId"])):
        ctx.store.delete("app_group", row["id"])
    for user in _members(ctx, values["groupId"]):
        reconcile_user(ctx, user)


def _assign_group_role(
    run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction
) -> None:
    """``assignRoleToGroup``: the recorded role, held by the group."""
    recorded = interaction.response
    ENGINE.system_insert(ctx, "role_assignment", {
        "groupId": values["groupId"], "type": recorded["type"], "label": _text(recorded.get("label")),
        "status": _text(recorded.get("status")), "assignmentType": "GROUP",
    })  # fmt: skip


def _unassign_group_role(
    run: _Replay, ctx: CallContext, values: dict[str, str], interaction: Interaction
) -> None:
    """``unassignRoleFromGroup``: the group's role of that id removed."""
    for row in ctx.store.select("role_assignment", '"groupId" = ?', (values["groupId"],)):
        if role_id(row["type"]) == values["roleAssignmentId"]:
            ctx.store.delete("role_assignment", row["id"])


_CREATED = (
    "no rest tool (an agent does not create {}): created in the mock's store from the recorded response"
)
_APPLIED = "no rest tool; later requests read what it does: applied to the mock's store as recorded"

#: Operations without a ``rest`` tool that the replay applies to the store (operationId -> (what
#: it does, why)); both releases' names of an operation are listed.
SETUP_OPERATIONS: dict[
    str, tuple[Callable[[_Replay, CallContext, dict[str, str], Interaction], None], str]
] = {
    "createGroup": (_setup_group, _CREATED.format("groups")),
    "addGroup": (_setup_group, _CREATED.format("groups")),
    "createApplication": (_setup_app, _CREATED.format("apps")),
    "replaceGroup": (_replace_group, _APPLIED),
    "deleteGroup": (_delete_group, _APPLIED),
    "assignGroupToApplication": (_assign_group_app, _APPLIED),
    "unassignApplicationFromGroup": (_unassign_group_app, _APPLIED),
    "assignRoleToGroup": (_assign_group_role, _APPLIED),
    "unassignRoleFromGroup": (_unassign_group_role, _APPLIED),
    "deactivateApplication": (_deactivate_app, _APPLIED),
    "deleteApplication": (_delete_app, _APPLIED),
}

#: Why an operation of the derived description has no ``rest`` tool (the others' reason: nothing
#: later reads what they do).
NO_TOOL = {
    "replaceUser": "no rest tool: updateUser is the profile update the mock serves (replaceUser sets the "
    "password too)",
    "getApplicationGroupAssignment": "no rest tool: listApplicationGroupAssignments lists the assignments",
    "updateApplicationUser": "no rest tool: an app user's name is set when the app is assigned",
}


def replay(
    version: str = CURRENT_VERSION,
    cassettes: Sequence[Cassette] | None = None,
    *,
    backend: Backend | None = None,
    transport: Transport | None = None,
) -> ConformanceReport:
    """Replay the cassettes against the mock of a release (see the module docstring).

    Each cassette plays in a fresh episode of ``backend`` (reset to episode seed 0), whose calls
    act as the org's super administrator (the recordings used a super administrator's token):
    its ``identity`` is set to them for the replay, so calls that reach it over HTTP do too.

    Args:
        version: The release of Okta's description the mock is built from.
        cassettes: The cassettes to replay (default: every shipped one).
        backend: The world to replay in (default: a tiny world of seed 0, made and closed here).
            Over HTTP: the served world (``RestServer("identity")``'s, in this process), whose
            store the replay sets up directly, as in process.
        transport: Where the requests go (default: :class:`InProcess` on ``backend``); over HTTP,
            a ``RestClient`` of the server serving ``backend``.

    Returns:
        The report: per cassette, each interaction's outcome and differences.
    """
    system: System = identity_system(version) if backend is None else backend.system
    owned = backend is None
    world = Backend(system, size="tiny", world_seed=0, surface="rest") if backend is None else backend
    api = build_http_api(version)
    sender = InProcess(world, api) if transport is None else transport
    try:
        reports = []
        for cassette in load_cassettes() if cassettes is None else cassettes:
            with world.lock:
                world.reset(episode_seed=0)
                world.mark_start()
                admin = system.user_identity(world.store, system.setup_user)
                if admin is None:
                    raise RuntimeError("the identity world has no setup administrator")
                world.identity = admin
            run = _Replay(world, sender, api, version, cassette, admin)
            for interaction in cassette.interactions:
                run.run(interaction)
            reports.append(run.report)
        return ConformanceReport(version, reports)
    finally:
        if owned:
            world.close()
        else:  # a served world goes back to acting as the agent
            with world.lock:
                world.identity = system.agent_identity(world.store)


def main(argv: Sequence[str] | None = None) -> int:
    """Print the conformance report (``python -m enterprise_envs.mocks.identity.conformance``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--version", default=CURRENT_VERSION, help="release of Okta's description")
    parser.add_argument("--brief", action="store_true", help="figures only, no per-interaction lines")
    args = parser.parse_args(argv)
    try:
        report = replay(args.version)
    except ImportError:
        print("PyYAML is needed to read the cassettes: pip install pyyaml", file=sys.stderr)
        return 2
    print(report.text(verbose=not args.brief))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
