"""The identity System object: what it declares, how the registry serves it, who may read what."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import enterprise_envs.mocks.identity as identity_package
from enterprise_envs import registry
from enterprise_envs.mocks._core.access import Identity, Operation
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.errors import ToolError
from enterprise_envs.mocks.identity import IDENTITY, IDENTITY_EPOCH, MODELS, identity_of
from enterprise_envs.mocks.identity.errors import render_error
from enterprise_envs.mocks.itsm import ITSM
from tests.mocks.identity.helpers import with_wait_surface


@pytest.fixture(scope="module")
def backend() -> Iterator[Backend]:
    made = Backend(with_wait_surface(), size="tiny")
    yield made
    made.close()


def test_the_system_declares_what_the_shared_machinery_reads() -> None:
    assert IDENTITY.name == "identity" and IDENTITY.epoch == IDENTITY_EPOCH == ITSM.epoch
    assert IDENTITY.catalog.system == "identity" and set(MODELS) == set(IDENTITY.catalog)
    assert IDENTITY.directory is not None and IDENTITY.setup_user == "okta-admin"
    assert IDENTITY.conventions.id_pattern and IDENTITY.render_error is render_error
    assert IDENTITY.settings["spec_version"] == "2026.06.3"
    # Exported as SYSTEM with both surfaces: the registry discovers it and a suite serves it.
    assert set(IDENTITY.surfaces) == {"rest", "typed"}
    assert identity_package.SYSTEM is IDENTITY and registry.systems()["identity"] is IDENTITY
    assert registry.suite("Identity-v0").systems == ("identity",)
    assert IDENTITY.notifications and IDENTITY.surface("rest").full_response
    with pytest.raises(KeyError, match="no surface 'mcp'"):
        IDENTITY.surface("mcp")


def _row(backend: Backend, table: str, where: str = "1") -> dict[str, str]:
    return backend.store.select(table, where, limit=1)[0]


def _refused(policy: object, *args: object) -> dict:
    with pytest.raises(ToolError) as caught:
        policy.check(*args)  # type: ignore[attr-defined]
    return render_error(caught.value) | {"status": caught.value.status}


def test_admins_read_everything_and_a_super_admin_writes_anything(backend: Backend) -> None:
    policy, agent = IDENTITY.access, backend.identity
    user = _row(backend, "user", "status = 'LOCKED_OUT'")
    for table in IDENTITY.catalog:
        row = _row(backend, table)
        policy.check(agent, Operation.READ, table, row)
        assert policy.row_filter(agent, table) is None
    # The help desk edits no profile (its rights are tested in test_access.py).
    refused = _refused(policy, agent, Operation.WRITE, "user", user, {"title": "Lead"})
    assert refused["status"] == 403 and refused["errorCode"] == "E0000006"
    setup = IDENTITY.user_identity(backend.store, IDENTITY.setup_user)
    assert setup is not None
    policy.check(setup, Operation.WRITE, "user", user, {"title": "Lead"})
    policy.check(setup, Operation.DELETE, "group_member", _row(backend, "group_member"))


def test_a_user_without_an_admin_role_sees_their_own_account_only(backend: Backend) -> None:
    policy = IDENTITY.access
    employees = backend.store.select("user", "status = 'ACTIVE' AND userType = 'Employee'")
    me_row = next(row for row in employees if not identity_of(backend.store, row).roles)
    other = _row(backend, "user", f"id != '{me_row['id']}'")
    plain = Identity.of(me_row["id"], me_row["login"], [])
    policy.check(plain, Operation.READ, "user", me_row)
    refused = _refused(policy, plain, Operation.READ, "user", other)
    assert refused["status"] == 404 and refused["errorCode"] == "E0000007"
    assert refused["errorSummary"] == f"Not found: Resource not found: {other['id']} (User)"
    assert policy.row_filter(plain, "user") == ("id = ?", (me_row["id"],))
    assert policy.row_filter(plain, "factor") == ('"userId" = ?', (me_row["id"],))
    assert policy.row_filter(plain, "group") is None and policy.row_filter(plain, "log_event") == ("0", ())
    assert _refused(policy, plain, Operation.WRITE, "user", me_row, {"title": "x"})["status"] == 403
