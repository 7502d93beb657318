"""Identities: role semantics belong to the system, not the shared machinery."""

from __future__ import annotations

from enterprise_envs.mocks._core.access import Identity
from enterprise_envs.mocks.itsm import identity_of


def test_no_role_name_is_special_in_the_shared_layer() -> None:
    named_admin = Identity.of("u1", "someone", ["admin"])
    assert named_admin.has_role("admin") and not named_admin.has_role("itil")
    superuser = Identity.of("u2", "root", [], superuser=True)
    assert superuser.has_role("itil") and superuser.has_role("anything")
    assert not Identity.of("u3", "nobody", []).has_role("itil")


def test_itsm_declares_that_its_admin_holds_every_role() -> None:
    admin = identity_of({"sys_id": "a", "user_name": "admin", "roles": "admin"})
    agent = identity_of({"sys_id": "b", "user_name": "agent", "roles": "itil, knowledge"})
    assert admin.superuser and admin.has_role("itil_admin")
    assert not agent.superuser and agent.has_role("knowledge") and not agent.has_role("itil_admin")
