"""ITSM: a ServiceNow-like service desk back-end, built from the observed Table API schema.

``ITSM`` is the system object the shared machinery (backends, MCP adapter, registry) uses. Its
Table API on the wire (``http.py``: ``/api/now/table/...``) is served by ``serve itsm
--transport rest``.
"""

from __future__ import annotations

from datetime import UTC, datetime

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks._core.models import build_models
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks._core.system import System
from enterprise_envs.mocks.itsm import services as _services  # noqa: F401  (registers table rules)
from enterprise_envs.mocks.itsm.access import ItsmAccessPolicy
from enterprise_envs.mocks.itsm.conventions import ITSM_CONVENTIONS, itsm_directory
from enterprise_envs.mocks.itsm.errors import render_error
from enterprise_envs.mocks.itsm.notifications import ITSM_NOTIFICATIONS
from enterprise_envs.mocks.itsm.tables import behaviour_rules, itsm_catalog, spec_document

#: The simulated "now" of every ITSM world at reset.
ITSM_EPOCH = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)

#: Instance switches: vendor behaviour that differs between instances or releases.
ITSM_SETTINGS = {
    # UI reference qualifier on the vendor; unverified for REST, so a switch (on by default).
    "assigned_to_must_be_group_member": True,
    # The base Table API does not block out-of-model state changes; the mock does unless off.
    "enforce_state_transitions": True,
    # glide.invalid_query.returns_no_rows: a query naming an unknown field matches nothing.
    "invalid_query_returns_no_rows": True,
    # Current resolution codes; set to the legacy list to mimic older instances.
    "incident_close_codes": tuple(behaviour_rules()["incident"]["close_code_current"]),
    # Base URL used in reference links and Link headers.
    "instance_url": "https://mock.service-now.com",
    # The release of the Table API description the catalog and the rest surface follow.
    "spec_version": spec_document()["info"]["version"],
}

CATALOG = itsm_catalog()
METADATA, MODELS = build_models(CATALOG)


def _agent_identity(store: Store) -> Identity:
    from enterprise_envs.mocks.itsm.world import AGENT_USER_NAME

    identity = _user_identity(store, AGENT_USER_NAME)
    if identity is None:
        raise RuntimeError("the ITSM world has no service-desk agent user")
    return identity


def _user_identity(store: Store, user_name: str) -> Identity | None:
    user = store.find_one("sys_user", "user_name", user_name)
    return None if user is None else identity_of(user)


def _person_login(store: Store, sys_id: str) -> str | None:
    user = store.get("sys_user", sys_id)
    return None if user is None else user["user_name"]


def identity_of(user: dict[str, str]) -> Identity:
    """The identity a sys_user row acts as (roles from its ``roles`` field; ``admin`` holds all)."""
    roles = [role.strip() for role in user["roles"].split(",") if role.strip()]
    return Identity.of(user["sys_id"], user["user_name"], roles, superuser="admin" in roles)


def _build_world(build) -> None:  # noqa: ANN001  (WorldBuild; imported lazily to keep import light)
    from enterprise_envs.mocks.itsm.world import build_itsm_world

    build_itsm_world(build)


def _rest_surface():  # noqa: ANN202
    from enterprise_envs.mocks.itsm.surfaces.rest import build_rest_surface

    return build_rest_surface()


def _typed_surface():  # noqa: ANN202
    from enterprise_envs.mocks.itsm.surfaces.typed import build_typed_surface

    return build_typed_surface()


def _http_api():  # noqa: ANN202
    from enterprise_envs.mocks.itsm.http import build_http_api

    return build_http_api()


ITSM = System(
    name="itsm",
    catalog=CATALOG,
    metadata=METADATA,
    build_world=_build_world,
    epoch=ITSM_EPOCH,
    surfaces={"rest": _rest_surface, "typed": _typed_surface},
    render_error=render_error,
    access=ItsmAccessPolicy(),
    agent_identity=_agent_identity,
    user_identity=_user_identity,
    person_login=_person_login,
    # The employee record: departments, managers, employee numbers, assignment groups.
    people_rank=2,
    settings=ITSM_SETTINGS,
    # The Table API's query syntax and record numbers among their rivals.
    hostile_text={
        "query-terms": "active=true^",
        "query-ors": "priority=1^OR",
        "record-numbers": "INC0010001 or INC0010002, ",
    },
    notifications=ITSM_NOTIFICATIONS,
    conventions=ITSM_CONVENTIONS,
    directory=itsm_directory,
    setup_user="admin",
    http=_http_api,
)

#: The name the registry discovers a system by.
SYSTEM = ITSM

__all__ = ["ITSM", "ITSM_EPOCH", "ITSM_SETTINGS", "MODELS", "SYSTEM", "identity_of"]
