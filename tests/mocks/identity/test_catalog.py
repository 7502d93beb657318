"""The identity catalog: Okta's records as tables through the generic OpenAPI step and its overlay."""

from __future__ import annotations

from enterprise_envs.mocks.identity import IDENTITY
from enterprise_envs.mocks.identity.tables import SPEC_VERSIONS, identity_catalog, spec_document

CATALOG = IDENTITY.catalog
SCHEMAS = spec_document()["components"]["schemas"]


def _enum(schema: str) -> list[str]:
    return SCHEMAS[schema]["enum"]


def test_the_tables_their_keys_and_display_fields() -> None:
    assert list(CATALOG) == [
        "user", "group", "app", "app_user", "app_group", "factor", "role_assignment", "log_event",
        "group_member",
    ]  # fmt: skip
    keys = {name: table.key_field for name, table in CATALOG.items()}
    assert keys == {**{name: "id" for name in CATALOG}, "log_event": "uuid"}
    displays = {name: table.display_field for name, table in CATALOG.items()}
    assert displays["user"] == "login" and displays["group"] == "name" and displays["app"] == "label"
    for table in CATALOG.values():
        assert table.field(table.key_field).read_only, table.name
        assert table.number_prefix is None  # Okta numbers nothing


def test_a_user_is_its_record_with_the_profile_and_provider_flattened() -> None:
    user = CATALOG["user"]
    for name in (
        "id", "status", "created", "activated", "statusChanged", "lastLogin", "lastUpdated",
        "passwordChanged", "login", "email", "firstName", "lastName", "displayName", "mobilePhone",
        "manager", "managerId", "department", "title", "employeeNumber", "nickName", "providerType",
        "providerName",
    ):  # fmt: skip
        assert name in user, name
    # Every default profile property is a column, named as the profile names it.
    assert set(SCHEMAS["UserProfile"]["properties"]) <= set(user.columns)
    # No secret and no object: the password and recovery question never become columns.
    for name in user.columns:
        assert not any(word in name.lower() for word in ("password_", "recovery", "answer", "hash", "value"))
    assert (
        "passwordChanged" in user.columns
        and "credentials" not in user.columns
        and "_links" not in user.columns
    )
    kinds = {spec.name: spec.kind for spec in user.fields}
    assert kinds["status"] == kinds["providerType"] == "choice"
    assert {
        kinds[name] for name in ("created", "activated", "statusChanged", "lastLogin", "passwordChanged")
    } == {"datetime"}
    assert kinds["managerId"] == "reference" and user.field("managerId").reference == "user"
    assert kinds["manager"] == "string"  # Okta's manager is the manager's display name
    assert list(user.field("status").choices) == _enum("UserStatus")
    assert list(user.field("providerType").choices) == _enum("AuthenticationProviderType")
    # Read-only as the description marks them (status moves only through lifecycle operations).
    assert user.field("status").read_only and user.field("lastLogin").read_only
    assert not user.field("login").read_only and user.field("login").max_length == 100
    assert user.field("lastUpdated").derived
    assert user.field("firstName").label == "First name"


def test_groups_memberships_apps_and_assignments() -> None:
    group = CATALOG["group"]
    assert {"id", "type", "name", "description", "created", "lastUpdated", "lastMembershipUpdated"} == set(
        group.columns
    )
    assert list(group.field("type").choices) == ["APP_GROUP", "BUILT_IN", "OKTA_GROUP"]
    assert group.field("type").read_only and group.field("type").settable_on_insert
    assert group.field("lastMembershipUpdated").derived
    member = CATALOG["group_member"]
    assert member.columns == ("id", "groupId", "userId")
    assert member.field("groupId").reference == "group" and member.field("userId").reference == "user"
    app = CATALOG["app"]
    assert {"id", "name", "label", "status", "signOnMode", "created", "lastUpdated"} == set(app.columns)
    assert list(app.field("signOnMode").choices) == _enum("ApplicationSignOnMode")
    assert list(app.field("status").choices) == _enum("ApplicationLifecycleStatus")
    app_user = CATALOG["app_user"]
    assert {"appId", "userId", "scope", "status", "userName", "syncState"} <= set(app_user.columns)
    assert list(app_user.field("scope").choices) == ["USER", "GROUP"]
    assert list(app_user.field("status").choices) == _enum("AppUserStatus")
    assert app_user.field("appId").reference == "app" and app_user.field("userId").reference == "user"
    app_group = CATALOG["app_group"]
    assert app_group.field("groupId").reference == "group" and app_group.field("priority").kind == "integer"


def test_factors_roles_and_the_system_log() -> None:
    factor = CATALOG["factor"]
    assert {"id", "userId", "factorType", "provider", "status", "created", "lastUpdated"} <= set(
        factor.columns
    )
    assert list(factor.field("factorType").choices) == _enum("UserFactorType")
    assert list(factor.field("status").choices) == _enum("UserFactorStatus")
    assert factor.field("userId").reference == "user"
    role = CATALOG["role_assignment"]
    assert {"type", "label", "status", "assignmentType", "userId", "groupId"} <= set(role.columns)
    assert {"SUPER_ADMIN", "HELP_DESK_ADMIN"} <= set(role.field("type").choices)
    log = CATALOG["log_event"]
    assert log.columns == (
        "uuid", "actorAlternateId", "actorDisplayName", "actorId", "actorType", "displayMessage", "eventType",
        "legacyEventType", "outcomeReason", "outcomeResult", "published", "severity", "target", "version",
    )  # fmt: skip
    assert log.field("published").kind == "datetime" and log.field("target").kind == "string"
    assert list(log.field("severity").choices) == ["DEBUG", "ERROR", "INFO", "WARN"]
    assert all(spec.read_only for spec in log.fields if spec.name != "severity")


def test_both_releases_make_the_same_tables_and_columns_and_differ_in_their_lists() -> None:
    """The 2024 release builds too; the differences are real drift in Okta's enums and types."""
    old, new = (identity_catalog(version) for version in SPEC_VERSIONS)
    assert new is CATALOG
    assert list(old) == list(new)
    for name in new:
        assert old[name].columns == new[name].columns, name
    differences = {
        (table, spec.name)
        for table in new
        for spec in new[table].fields
        if (spec.kind, spec.choices and dict(spec.choices), spec.max_length)
        != (old[table].field(spec.name).kind, old[table].field(spec.name).choices
            and dict(old[table].field(spec.name).choices), old[table].field(spec.name).max_length)
    }  # fmt: skip
    assert differences == {
        ("role_assignment", "type"),
        ("role_assignment", "assignmentType"),
        ("log_event", "outcomeResult"),
        ("log_event", "outcomeReason"),
    }
    assert "CLIENT" in new["role_assignment"].field("assignmentType").choices
    assert "CLIENT" not in old["role_assignment"].field("assignmentType").choices
    assert old["log_event"].field("outcomeResult").kind == "string"


def test_every_reference_points_at_a_modelled_table() -> None:
    references = {
        (name, field.name): field.reference
        for name, spec in CATALOG.items()
        for field in spec.fields
        if field.kind == "reference"
    }
    assert references == {
        ("user", "managerId"): "user",
        ("app_user", "appId"): "app",
        ("app_user", "userId"): "user",
        ("app_group", "appId"): "app",
        ("app_group", "groupId"): "group",
        ("factor", "userId"): "user",
        ("role_assignment", "userId"): "user",
        ("role_assignment", "groupId"): "group",
        ("group_member", "groupId"): "group",
        ("group_member", "userId"): "user",
    }
