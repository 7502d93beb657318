"""Okta's shapes as the captured responses show them, and the mock's ids, times and errors in them."""

from __future__ import annotations

import random
import re
from datetime import UTC, datetime
from urllib.parse import urlsplit

import pytest

from enterprise_envs.mocks._core.errors import ErrorKind, ToolError
from enterprise_envs.mocks._core.records import datetime_shape
from enterprise_envs.mocks.identity import IDENTITY, IDENTITY_EPOCH
from enterprise_envs.mocks.identity.conventions import (
    DATETIME_FORMAT,
    ERROR_ID_PATTERN,
    FACTOR_ID_PREFIXES,
    ID_PREFIXES,
    INTERNAL_ID_PREFIXES,
    OKTA_ID_PATTERN,
    ORG_ID_SUFFIX,
    UUID_PATTERN,
    error_id,
    factor_id,
    log_uuid,
    okta_id,
    role_id,
    short_name,
    table_id,
)
from enterprise_envs.mocks.identity.errors import (
    render_error,
    resource_not_found,
    unlock_not_allowed,
    validation_failed,
)
from enterprise_envs.mocks.itsm import ITSM_EPOCH
from tests.mocks.identity.helpers import OBSERVED, captured_exchanges

EXCHANGES = captured_exchanges()
BODIES = [exchange.body for exchange in EXCHANGES if exchange.body is not None]


def _walk(value: object, key: str = ""):  # noqa: ANN202
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _walk(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, key)
    else:
        yield key, value


def _captured(key: str) -> list[str]:
    return [value for body in BODIES for name, value in _walk(body) if name == key and isinstance(value, str)]


def test_the_cassettes_were_read() -> None:
    assert len(list(OBSERVED.rglob("*.yaml"))) == 47 and len(EXCHANGES) > 300 and len(BODIES) > 150


def test_captured_ids_have_the_shape_the_mock_declares() -> None:
    ids = [value for value in _captured("id") if len(value) == 20]
    assert len(ids) > 150
    assert all(re.fullmatch(OKTA_ID_PATTERN, value) for value in ids)
    assert all(IDENTITY.conventions.is_id(value) for value in ids)
    prefixes = {value[:3] for value in ids}
    assert {"00u", "00g", "0oa"} <= prefixes
    # One org, one ending: every id of a recording session ends the same way.
    assert {value[-3:] for value in ids} == {"4x6", "5d7", "1d7"}


def test_captured_ids_are_prefixed_by_their_type() -> None:
    # Objects addressed by id in the URL (a user may be addressed by login; a group by a
    # placeholder the SDK's tests use).
    for kind, pattern in (
        ("user", r"/api/v1/users/([^/]+)"),
        ("group", r"/api/v1/groups/([^/]+)"),
        ("app", r"/api/v1/apps/([^/]+)/users"),
    ):
        ids = {value for value in _captured_by_path(pattern) if re.fullmatch(OKTA_ID_PATTERN, value)}
        assert ids, kind
        assert all(value.startswith(ID_PREFIXES[kind]) for value in ids), kind


def _captured_by_path(pattern: str) -> set[str]:
    """The path parameter of every captured GET whose URI path matches ``pattern``."""
    found = set()
    for exchange in EXCHANGES:
        path = urlsplit(exchange.uri).path.replace("//", "/")
        match = re.fullmatch(pattern, path)
        if match and exchange.method == "GET":
            found.add(match.group(1))
    return found


def test_captured_date_times_are_the_format_the_mock_writes() -> None:
    times = [
        value
        for body in BODIES
        for name, value in _walk(body)
        if isinstance(value, str) and re.fullmatch(r"\d{4}-\d\d-\d\dT.*", value)
    ]
    assert len(times) > 400
    shape, human = datetime_shape(DATETIME_FORMAT)
    assert human == "YYYY-MM-DDTHH:MM:SS.000Z"
    assert all(shape.match(value) for value in times), [t for t in times if not shape.match(t)][:3]
    for value in times[:20]:
        parsed = datetime.strptime(value, DATETIME_FORMAT).replace(tzinfo=UTC)
        assert parsed.strftime(DATETIME_FORMAT) == value
    assert IDENTITY.conventions.formats.datetime == DATETIME_FORMAT
    assert IDENTITY_EPOCH == ITSM_EPOCH
    assert IDENTITY_EPOCH.strftime(DATETIME_FORMAT) == "2026-03-02T09:00:00.000Z"


def test_captured_errors_have_the_envelope_the_mock_renders() -> None:
    errors = [body for body in BODIES if isinstance(body, dict) and "errorCode" in body]
    assert {error["errorCode"] for error in errors} == {"E0000007", "E0000015", "E0000032", "E0000038"}
    for error in errors:
        assert set(error) == {"errorCode", "errorSummary", "errorLink", "errorId", "errorCauses"}
        assert error["errorLink"] == error["errorCode"]
        assert re.fullmatch(ERROR_ID_PATTERN, error["errorId"])
    mine = render_error(resource_not_found("00usfhrjbkppPBkoY4x6", "User"))
    captured = next(e for e in errors if e["errorSummary"].endswith("00usfhrjbkppPBkoY4x6 (User)"))
    assert {key: mine[key] for key in ("errorCode", "errorSummary", "errorLink", "errorCauses")} == {
        key: captured[key] for key in ("errorCode", "errorSummary", "errorLink", "errorCauses")
    }
    unlock = render_error(unlock_not_allowed())
    captured = next(e for e in errors if e["errorCode"] == "E0000032")
    assert (
        unlock["errorSummary"] == captured["errorSummary"]
        and unlock["errorCauses"] == captured["errorCauses"]
    )


def test_captured_role_ids_are_their_type_in_base32() -> None:
    roles = [body for body in BODIES if isinstance(body, dict) and body.get("assignmentType")]
    roles += [item for body in BODIES if isinstance(body, list) for item in body
              if isinstance(item, dict) and item.get("assignmentType")]  # fmt: skip
    assert roles
    for role in roles:
        assert role_id(role["type"]) == role["id"]
    assert role_id("USER_ADMIN") == "KVJUKUS7IFCE2SKO"


def test_the_mocks_ids_have_the_captured_shape_and_its_orgs_ending() -> None:
    rng = random.Random(7)
    for table, prefix in {**ID_PREFIXES, **INTERNAL_ID_PREFIXES}.items():
        made = table_id(rng, table)
        assert len(made) == 20 and made.startswith(prefix) and made.endswith(ORG_ID_SUFFIX)
        assert IDENTITY.conventions.is_id(made)
    for (factor_type, provider), prefix in FACTOR_ID_PREFIXES.items():
        assert factor_id(rng, factor_type, provider).startswith(prefix)
    # The engine's key maker is told the table: each table's rows get their own shape.
    new_id = IDENTITY.conventions.new_id
    assert new_id(rng, "").startswith("00u") and new_id(rng, "group").startswith("00g")
    assert new_id(rng, "group_member").startswith("0gm") and new_id(rng, "factor").startswith("ufs")
    assert re.fullmatch(UUID_PATTERN, new_id(rng, "log_event"))
    with pytest.raises(ValueError):
        new_id(rng, "nothing")
    uuid = log_uuid(rng)
    assert re.fullmatch(UUID_PATTERN, uuid) and uuid[14] == "1" and IDENTITY.conventions.is_id(uuid)
    with pytest.raises(ValueError):
        okta_id(rng, "0u")
    # Seeded: the same stream gives the same ids.
    assert okta_id(random.Random(1), "00u") == okta_id(random.Random(1), "00u")


def test_error_ids_are_deterministic_and_shaped_like_oktas() -> None:
    first = render_error(validation_failed("login", "login: An object with this field already exists"))
    again = render_error(validation_failed("login", "login: An object with this field already exists"))
    other = render_error(validation_failed("email", "email: Does not match required pattern"))
    assert first == again and first["errorId"] != other["errorId"]
    assert re.fullmatch(ERROR_ID_PATTERN, first["errorId"]) and first["errorId"] == error_id(
        "E0000001", "Api validation failed: login", "login: An object with this field already exists"
    )
    assert first["errorCauses"] == [{"errorSummary": "login: An object with this field already exists"}]


def test_errors_from_the_generic_layers_speak_oktas_codes() -> None:
    limited = render_error(ToolError(ErrorKind.RATE_LIMITED, "Rate limit exceeded", "Retry after 30 s"))
    assert limited["errorCode"] == "E0000047"
    assert limited["errorSummary"] == "API call exceeded rate limit due to too many requests."
    invalid = render_error(
        ToolError(ErrorKind.INVALID_ARGUMENT, "Invalid argument 'limit'", "must be <= 200")
    )
    assert invalid["errorCode"] == "E0000001" and invalid["errorCauses"] == [
        {"errorSummary": "must be <= 200"}
    ]
    denied = render_error(ToolError(ErrorKind.PERMISSION_DENIED, "Forbidden"))
    assert denied["errorCode"] == "E0000006" and denied["errorCauses"] == []


def test_the_vocabulary_and_audit_hints() -> None:
    conventions = IDENTITY.conventions
    assert conventions.vocabulary.record == "account"
    assert {"profile.login", "filter=", "search=", "errorCode", "OKTA_GROUP"} <= set(
        conventions.vocabulary.terms
    )
    assert conventions.audit.login_fields == ("login", "email")
    assert conventions.audit.lifecycle_fields == ("status",)
    assert conventions.audit.privileged_role == "SUPER_ADMIN"
    for field in (*conventions.audit.login_fields, *conventions.audit.lifecycle_fields):
        assert field in IDENTITY.catalog["user"]
    assert (
        short_name("isaac.brock@example.com") == "isaac.brock" and short_name("it-helpdesk") == "it-helpdesk"
    )
