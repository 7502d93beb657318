"""Schema drift (issue 16, item 6): the identity system built from either dated release.

``identity_system(version)`` takes its catalog and its ``rest`` surface from that release's
derived description; the differences listed in ``docs/systems/identity.md`` are the computed ones;
the worlds are the same; and ``identity.unlock_account`` holds on both releases through its one
scenario file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import gymnasium
import pytest

import enterprise_envs  # noqa: F401  (registers the ids)
from enterprise_envs import registry
from enterprise_envs.agents import OracleAgent, play_episode
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks._core.snapshot import build_snapshot
from enterprise_envs.mocks.identity import IDENTITY, identity_system
from enterprise_envs.mocks.identity.surfaces.rest import release_names
from enterprise_envs.mocks.identity.tables import (
    CURRENT_VERSION,
    NOTHING,
    SPEC_VERSIONS,
    Drift,
    identity_catalog,
    spec_document,
    spec_drift,
)

OLD, NEW = SPEC_VERSIONS
DOC = Path(__file__).resolve().parents[3] / "docs" / "systems" / "identity.md"
SCENARIO = "identity.unlock_account"
SEEDS = range(20)


def listed_drift() -> list[Drift]:
    """The rows of the doc's "Differences between the releases" table."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("### Differences between the releases", 1)[1].split("\n#", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip().replace("`", "") for cell in line.strip().strip("|").split("|")]
        if len(cells) != 4 or cells[0] in ("kind", "") or set(cells[0]) <= {"-"}:
            continue
        rows.append(Drift(*cells))
    return rows


def test_the_listed_differences_are_the_computed_ones() -> None:
    assert listed_drift() == spec_drift(OLD, NEW)


def test_the_drift_is_real_and_read_from_both_documents() -> None:
    found = {(d.kind, d.where): d for d in spec_drift()}
    assert found[("choices", "role_assignment.type")].old == "API_ADMIN, MOBILE_ADMIN"
    assert found[("column kind", "log_event.outcomeResult")] == Drift(
        "column kind", "log_event.outcomeResult", "string", "choice"
    )
    reset = found[("operationId", "POST /api/v1/users/{}/lifecycle/reset_password")]
    assert (reset.old, reset.new) == ("generateResetPasswordToken", "resetPassword")
    assert (
        found[("path", "/api/v1/users/{}/lifecycle/unlock")].old == "/api/v1/users/{userId}/lifecycle/unlock"
    )
    assert found[("parameters", "listUserGroups")] == Drift(
        "parameters", "listUserGroups", "after (query), limit (query)", NOTHING
    )
    assert not [d for d in spec_drift() if d.kind in ("table", "column", "operation")]
    assert spec_drift(NEW, NEW) == [] and spec_drift(OLD, OLD) == []


def test_each_release_builds_its_own_system() -> None:
    assert identity_system() is IDENTITY and identity_system(CURRENT_VERSION) is IDENTITY
    old = identity_system(OLD)
    assert old is identity_system(OLD) and old.name == IDENTITY.name
    assert old.settings["spec_version"] == OLD and IDENTITY.settings["spec_version"] == NEW
    assert old.catalog is identity_catalog(OLD) and IDENTITY.catalog is identity_catalog(NEW)
    assert "MOBILE_ADMIN" in old.catalog["role_assignment"].field("type").choices
    assert "MOBILE_ADMIN" not in IDENTITY.catalog["role_assignment"].field("type").choices
    with pytest.raises(ValueError, match="no Okta description"):
        identity_system("2025.01.0")


def test_the_rest_surface_names_tools_and_arguments_as_each_release() -> None:
    old, new = identity_system(OLD).surface("rest"), IDENTITY.surface("rest")
    assert set(old.tools) ^ set(new.tools) == {"generateResetPasswordToken", "resetPassword"}
    for name in ("getUser", "unlockUser", "deleteUser", "listUserGroups", "listAppLinks"):
        assert old[name].input_schema["required"] == ["userId"]
        assert new[name].input_schema["required"] == ["id"]
        assert "{userId}" in old[name].description and "{id}" not in old[name].description
    assert old["generateResetPasswordToken"].input_schema["required"] == ["userId"]
    assert old["unassignRoleFromUser"].input_schema["required"] == ["userId", "roleId"]
    assert new["unassignRoleFromUser"].input_schema["required"] == ["userId", "roleAssignmentId"]
    # Every tool that is an operation carries its release's operationId.
    paths = spec_document(OLD)["paths"].values()
    served = {op["operationId"] for item in paths for key, op in item.items() if key != "parameters"}
    assert set(old.tools) - {"wait"} <= served
    # The enums of the schemas are the release's.
    old_roles = old["assignRoleToUser"].input_schema["properties"]["type"]["enum"]
    new_roles = new["assignRoleToUser"].input_schema["properties"]["type"]["enum"]
    assert set(old_roles) - set(new_roles) == {"MOBILE_ADMIN"} and set(new_roles) <= set(old_roles)
    statuses = old["getUser"].output_schema["properties"]["body"]["properties"]["status"]["enum"]
    assert statuses == spec_document(OLD)["components"]["schemas"]["UserStatus"]["enum"]


def test_both_releases_build_the_same_world() -> None:
    """So the snapshot cache, keyed by the system's name, may serve either."""
    assert build_snapshot(identity_system(OLD), "tiny", 0).data == build_snapshot(IDENTITY, "tiny", 0).data


def test_the_older_surface_runs_the_same_rules() -> None:
    backend = Backend(identity_system(OLD), size="tiny", surface="rest")
    try:
        setup = backend.system.user_identity(backend.store, backend.system.setup_user)
        locked = backend.store.select("user", "status = 'LOCKED_OUT' AND userType = 'Employee'", limit=1)[0]
        refused = backend.call("unlockUser", {"id": locked["id"]}, identity=setup)
        assert refused.status == 400 and refused.body["errorCode"] == "E0000001"
        unlocked = backend.call("unlockUser", {"userId": locked["id"]}, identity=setup)
        assert unlocked.status == 200 and backend.store.get("user", locked["id"])["status"] == "ACTIVE"
        again = backend.call("unlockUser", {"userId": locked["id"]}, identity=setup)
        assert again.status == 403 and again.body["errorCode"] == "E0000032"
        link = backend.call(
            "generateResetPasswordToken", {"userId": locked["id"], "sendEmail": False}, identity=setup
        )
        assert link.status == 200 and "resetPasswordUrl" in link.body
        # A role only the older release knows is assigned there, and refused by the newer.
        granted = backend.call(
            "assignRoleToUser", {"userId": locked["id"], "type": "MOBILE_ADMIN"}, identity=setup
        )
        assert granted.status == 201 and granted.body["type"] == "MOBILE_ADMIN"
        backend.reset()
        current = Backend(IDENTITY, size="tiny", surface="rest")
        try:
            setup = IDENTITY.user_identity(current.store, IDENTITY.setup_user)
            refused = current.call(
                "assignRoleToUser", {"userId": locked["id"], "type": "MOBILE_ADMIN"}, identity=setup
            )
            assert refused.status == 400
        finally:
            current.close()
    finally:
        backend.close()


# -- a scenario's goal on both releases -----------------------------------------------------------


@contextmanager
def identity_release(version: str) -> Iterator[None]:
    """The registry serving ``identity_system(version)`` as the identity system."""
    systems = {**registry.systems(), "identity": identity_system(version)}
    original = registry.systems
    registry.systems = lambda: systems  # type: ignore[assignment]
    try:
        yield
    finally:
        registry.systems = original  # type: ignore[assignment]


class ReleaseOracle(OracleAgent):
    """The scenario's own solution, its ``rest`` calls renamed for a release (``release_names``)."""

    def __init__(self, version: str) -> None:
        super().__init__()
        self.version = version

    def act(self, observation: Any) -> dict[str, Any]:
        action = super().act(observation)
        if "tool" not in action:
            return action
        name, renames = release_names(action["tool"], self.version)
        arguments = {renames.get(key, key): value for key, value in action["arguments"].items()}
        return {"tool": name, "arguments": arguments}


def _play(version: str, surface: str, agent_for: Any) -> list[tuple[int, Any]]:
    """The episodes of SEEDS that did not succeed (with the user saying goodbye)."""
    failures = []
    with identity_release(version):
        env = gymnasium.make("Identity-v0", scenario=SCENARIO, surface=surface)
        try:
            for seed in SEEDS:
                episode = play_episode(env, agent_for(), seed)
                system = env.unwrapped.world.backends["identity"].system
                assert system.settings["spec_version"] == version
                if episode["outcome"]["kind"] != "success" or episode.get("user_terminal") != "done":
                    failures.append((seed, episode["outcome"]))
        finally:
            env.close()
    return failures


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_the_unlock_oracle_succeeds_on_both_releases(version: str) -> None:
    assert not _play(version, "typed", OracleAgent)


@pytest.mark.parametrize("version", SPEC_VERSIONS)
def test_the_rest_solution_renamed_for_the_release_succeeds(version: str) -> None:
    assert not _play(version, "rest", lambda: ReleaseOracle(version))


def test_the_rest_solution_spelled_for_the_newer_release_fails_on_the_older() -> None:
    """The drift an agent meets: ``unlockUser(id=...)`` is an unknown argument on 2024.06.1."""
    failures = _play(OLD, "rest", OracleAgent)
    assert len(failures) == len(SEEDS)
