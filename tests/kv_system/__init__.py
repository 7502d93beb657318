"""Keyval: a toy key-value SaaS that exists only in the tests, to prove the extension point.

Everything a second system needs is in this folder and its TOML: an OpenAPI document and its
overlay (``spec/``), conventions that differ from ITSM's on purpose (key field ``id``, ids
``kv_`` and twelve base-36 characters, record references ``KV`` and five digits from 00001,
ISO 8601 times, its own error envelope), a world built from the World's people directory, a
REST-like record surface and a task-level one, an access policy, and its content folder
(``content/``: scenarios, runbook, rules, suites). The registry loads it as a plugin
(``ENTERPRISE_ENVS_SYSTEMS=tests.kv_system``); no file outside this folder names it.
"""

from __future__ import annotations

import json
import random
import tomllib
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.conventions import (
    AuditHints,
    Conventions,
    Formats,
    Numbering,
    RecordApi,
    Vocabulary,
)
from enterprise_envs.mocks._core.errors import ErrorKind, ToolError
from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.openapi import catalog_from_openapi
from enterprise_envs.mocks._core.store import Row, Store
from enterprise_envs.mocks._core.system import System

HERE = Path(__file__).parent

CATALOG = catalog_from_openapi(
    "kv",
    json.loads((HERE / "spec" / "keyval.openapi.json").read_text(encoding="utf-8")),
    tomllib.loads((HERE / "spec" / "catalog.toml").read_text(encoding="utf-8")),
)
METADATA, MODELS = build_models(CATALOG)

_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz"


def new_id(rng: random.Random, table: str = "") -> str:
    """A Keyval id: ``kv_`` and twelve base-36 characters, whatever the table."""
    return "kv_" + "".join(rng.choice(_ALPHABET) for _ in range(12))


CONVENTIONS = Conventions(
    id_pattern=r"kv_[0-9a-z]{12}",
    new_id=new_id,
    numbering=Numbering(digits=5, first=1, number_field="ref"),
    formats=Formats(datetime="%Y-%m-%dT%H:%M:%SZ"),
    vocabulary=Vocabulary(record="entry", terms=("space_id", "kv_"), nouns={"entry": "entry"}),
    audit=AuditHints(
        record_api=RecordApi(
            surface="rest",
            create="create_record",
            update="update_record",
            delete="delete_record",
            table_argument="collection",
            key_argument="id",
            fields_argument="data",
        ),
        login_fields=("login", "email"),
        lifecycle_fields=("active",),
    ),
)

#: The agent's account in every Keyval world.
BOT_LOGIN = "it-bot"
#: A space only its owners may write (the access rule the audit's privilege probes meet).
LOCKED_SPACE = "finance"
#: Keyval's "now" at reset.
EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


def render_error(error: ToolError) -> dict[str, Any]:
    """Keyval's error envelope: ``{"error": {"code", "message"}}``."""
    message = f"{error.message}: {error.detail}" if error.detail else error.message
    return {"error": {"code": error.kind.value, "message": message}}


class KeyvalAccess:
    """Writers write entries outside the locked space; nobody but an owner writes members."""

    def check(
        self,
        identity: Identity,
        operation: Operation,
        table: str,
        row: Row | None,
        changes: Mapping[str, str] | None = None,
    ) -> None:
        """Allow silently or raise a 403 in Keyval's envelope."""
        if operation is Operation.READ or identity.superuser:
            return
        if table == "member":
            raise ToolError(ErrorKind.PERMISSION_DENIED, "Forbidden", "Members are managed by owners")
        space = (changes or {}).get("space") or (row or {}).get("space", "")
        if LOCKED_SPACE in (space, (row or {}).get("space", "")):
            raise ToolError(ErrorKind.PERMISSION_DENIED, "Forbidden", f"Space '{LOCKED_SPACE}' is locked")
        if not identity.has_role("writer"):
            raise ToolError(ErrorKind.PERMISSION_DENIED, "Forbidden", "Writers only")

    def row_filter(self, identity: Identity, table: str) -> tuple[str, tuple[str, ...]] | None:
        """Everyone reads everything in Keyval."""
        return None


def _identity(member: Row) -> Identity:
    return Identity.of(member["id"], member["login"], [member["role"]], superuser=member["role"] == "owner")


def _user_identity(store: Store, login: str) -> Identity | None:
    member = store.find_one("member", "login", login)
    return None if member is None else _identity(member)


def _person_login(store: Store, key: str) -> str | None:
    member = store.get("member", key)
    return None if member is None else member["login"]


def _agent_identity(store: Store) -> Identity:
    identity = _user_identity(store, BOT_LOGIN)
    assert identity is not None, "every Keyval world has its bot"
    return identity


def _build_world(build: Any) -> None:
    from tests.kv_system.world import build_keyval_world

    build_keyval_world(build)


def _rest() -> Any:
    from tests.kv_system.surfaces import rest_surface

    return rest_surface()


def _typed() -> Any:
    from tests.kv_system.surfaces import typed_surface

    return typed_surface()


SYSTEM = System(
    name="kv",
    catalog=CATALOG,
    metadata=METADATA,
    build_world=_build_world,
    epoch=EPOCH,
    surfaces={"rest": _rest, "typed": _typed},
    render_error=render_error,
    access=KeyvalAccess(),
    agent_identity=_agent_identity,
    user_identity=_user_identity,
    person_login=_person_login,
    hostile_text={"references": "KV00001 or KV00002, "},
    conventions=CONVENTIONS,
    setup_user=BOT_LOGIN,
)
