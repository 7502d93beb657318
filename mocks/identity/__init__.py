"""Identity: an identity provider mocked from Okta's published Management API.

``IDENTITY`` (exported as ``SYSTEM``, so the registry discovers it) is the system object: its
catalog (``tables.py``, from Okta's dated OpenAPI description derived into ``spec/``), seeded
world (``world/``), conventions (Okta's ids, times and words), error envelope (``errors.py``),
record engine (``records.py``), service layer (``services/``: the user lifecycle, membership,
apps, factors, lists), surfaces (``surfaces/``: ``rest``, Okta's Management API by
``operationId``, and ``typed``, task-level tools), the Management API on the wire (``http.py``:
``/api/v1/...``, served by ``serve identity --transport rest``), access policy (``access.py``: the help-desk
administrator's rights), notifications (``notifications.py``) and identities.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from functools import cache
from typing import Any

from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks.identity import services as _services  # noqa: F401  (registers table rules)
from enterprise_envs.mocks.identity.access import SUPER_ADMIN, IdentityAccessPolicy, OrgIdentity, roles_of
from enterprise_envs.mocks.identity.conventions import IDENTITY_CONVENTIONS, identity_directory, short_name
from enterprise_envs.mocks.identity.errors import render_error
from enterprise_envs.mocks.identity.notifications import IDENTITY_NOTIFICATIONS
from enterprise_envs.mocks.identity.tables import CURRENT_VERSION, identity_catalog

#: The simulated "now" of every identity world at reset (the same as ITSM's, so a World of both
#: starts at one time).
IDENTITY_EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)

#: Instance settings: vendor behaviour that varies by org or release.
IDENTITY_SETTINGS: dict[str, Any] = {
    # The dated release of Okta's description the catalog and the rest surface follow. It reports
    # the release: build another release's system with identity_system(version) (overriding the
    # setting on a backend changes neither the catalog nor the surface).
    "spec_version": CURRENT_VERSION,
    # Base URL of the org, for links and Link headers.
    "org_url": "https://example.okta.com",
}

CATALOG = identity_catalog()
METADATA, MODELS = build_models(CATALOG)

#: The agent's account (its login's short name) and the one scenario setup acts as.
AGENT_LOGIN = "it-helpdesk"
SETUP_LOGIN = "okta-admin"


def find_user(store: Store, login: str) -> dict[str, str] | None:
    """The user with this login, or with this short name if exactly one has it (as Okta signs in)."""
    user = store.find_one("user", "login", login)
    if user is not None or "@" in login:
        return user
    matches = store.select("user", "login LIKE ? ESCAPE '\\'", (_like_prefix(login) + "@%",), limit=2)
    return matches[0] if len(matches) == 1 else None


def _like_prefix(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def identity_of(store: Store, user: dict[str, str]) -> OrgIdentity:
    """The identity a user acts as: their admin roles (``SUPER_ADMIN`` holds every right) and org."""
    roles = roles_of(store, user["id"])
    return OrgIdentity(user["id"], user["login"], frozenset(roles), SUPER_ADMIN in roles, org=store)


def _user_identity(store: Store, login: str) -> OrgIdentity | None:
    user = find_user(store, login)
    return None if user is None else identity_of(store, user)


def _person_login(store: Store, user_id: str) -> str | None:
    user = store.get("user", user_id)
    return None if user is None else short_name(user["login"])


def _agent_identity(store: Store) -> OrgIdentity:
    identity = _user_identity(store, AGENT_LOGIN)
    if identity is None:
        raise RuntimeError("the identity world has no help-desk agent account")
    return identity


def _build_world(build) -> None:  # noqa: ANN001  (WorldBuild; imported lazily to keep import light)
    from enterprise_envs.mocks.identity.world import build_identity_world

    build_identity_world(build)


def _rest_surface(version: str = CURRENT_VERSION):  # noqa: ANN202
    from enterprise_envs.mocks.identity.surfaces.rest import build_rest_surface

    return build_rest_surface(version)


def _typed_surface():  # noqa: ANN202
    from enterprise_envs.mocks.identity.surfaces.typed import build_typed_surface

    return build_typed_surface()


def _http_api(version: str = CURRENT_VERSION):  # noqa: ANN202
    from enterprise_envs.mocks.identity.http import build_http_api

    return build_http_api(version)


IDENTITY = System(
    name="identity",
    catalog=CATALOG,
    metadata=METADATA,
    build_world=_build_world,
    epoch=IDENTITY_EPOCH,
    surfaces={"rest": _rest_surface, "typed": _typed_surface},
    render_error=render_error,
    access=IdentityAccessPolicy(),
    agent_identity=_agent_identity,
    user_identity=_user_identity,
    person_login=_person_login,
    # Managers, departments and titles, but no working teams: below ITSM, above chat.
    people_rank=1,
    settings=IDENTITY_SETTINGS,
    # Okta's query syntax and ids among their rivals.
    hostile_text={
        "filter-terms": 'status eq "ACTIVE" and ',
        "search-terms": 'profile.login sw "a" or ',
        "user-ids": "00u1a2b3c4d5e6f7g8h9 or 00u9h8g7f6e5d4c3b2a1, ",
    },
    notifications=IDENTITY_NOTIFICATIONS,
    conventions=IDENTITY_CONVENTIONS,
    directory=identity_directory,
    setup_user=SETUP_LOGIN,
    http=_http_api,
)

#: The name the registry discovers a system by.
SYSTEM = IDENTITY


def identity_system(version: str = CURRENT_VERSION) -> System:
    """The identity system as a dated release of Okta's description has it.

    The catalog (tables, columns, choices, bounds) and the ``rest`` surface (tool names, path
    parameter names, the enums of its schemas) come from that release's derived document; the
    world, the services, the access policy and the ``typed`` surface are the same, so a scenario
    runs on either (``docs/systems/identity.md``, "Schema drift"). The system keeps its name
    ``identity`` and its ``spec_version`` setting says the release. One object per release and
    process; the current release is :data:`IDENTITY` itself.

    Args:
        version: One of ``tables.SPEC_VERSIONS`` (``2024.06.1``, ``2026.06.3``).

    Raises:
        ValueError: A release that is not shipped.
    """
    return _identity_system(version)


@cache
def _identity_system(version: str) -> System:
    catalog = identity_catalog(version)  # refuses an unknown release
    if version == CURRENT_VERSION:
        return IDENTITY
    metadata, _ = build_models(catalog)
    return dataclasses.replace(
        IDENTITY,
        catalog=catalog,
        metadata=metadata,
        surfaces={"rest": lambda: _rest_surface(version), "typed": _typed_surface},
        http=lambda: _http_api(version),
        settings={**IDENTITY_SETTINGS, "spec_version": version},
    )


__all__ = [
    "AGENT_LOGIN",
    "IDENTITY",
    "IDENTITY_EPOCH",
    "IDENTITY_SETTINGS",
    "MODELS",
    "SETUP_LOGIN",
    "SYSTEM",
    "find_user",
    "identity_of",
    "identity_system",
    "roles_of",
    "short_name",
]
