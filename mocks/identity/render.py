"""Okta's JSON representations of the identity rows, as the Management API returns them.

Shapes follow the captured responses (``spec/observed/``) and the description's schemas:

- a **User** nests its profile (``profile.login``, ...) and its credentials without secrets
  (``password: {}`` when one is set, the primary e-mail, the provider), has ``null`` for a time
  that never happened, and ``_links``: the lifecycle operations its status allows (from
  :data:`~.services.lifecycle.MOVES`) plus ``self``, ``schema`` and ``type``; in a collection
  only ``self`` ("For a collection of users, the links object contains only the self link");
- a **Group** nests ``profile.name``/``description`` with ``objectClass`` and its links;
- an **AppUser**'s ``id`` is the user's id (the row's own key is the mock's), with
  ``credentials.userName``; an **ApplicationGroupAssignment**'s ``id`` is the group's;
- a **Role**'s ``id`` is its type in base32;
- a **LogEvent** nests ``actor``, ``outcome`` and its ``target`` list.

Empty stored values render as ``null`` where Okta's schema marks the property nullable or the
captures show ``null``, and are left out of a profile otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from enterprise_envs.mocks._core.ids import seeded_rng
from enterprise_envs.mocks._core.store import Row
from enterprise_envs.mocks.identity.conventions import okta_id, role_id
from enterprise_envs.mocks.identity.services.lifecycle import allowed_moves
from enterprise_envs.mocks.identity.tables import spec_document

__all__ = [
    "USER_PROFILE",
    "app",
    "app_group",
    "app_link",
    "app_user",
    "factor",
    "group",
    "log_event",
    "role",
    "user",
]

#: The org's one user type and its profile schema (ids of Okta's shape, fixed for the org).
USER_TYPE_ID = okta_id(seeded_rng("identity", "user-type"), "oty")
USER_SCHEMA_ID = "osc" + USER_TYPE_ID[3:]
#: The user profile's properties, in the description's order.
USER_PROFILE = tuple(spec_document()["components"]["schemas"]["UserProfile"]["properties"])
#: Profile properties every captured user carries, ``null`` when unset.
_ALWAYS_IN_PROFILE = ("firstName", "lastName", "mobilePhone", "secondEmail", "login", "email")
_NULLABLE_TIMES = ("activated", "statusChanged", "lastLogin", "passwordChanged")
#: Group logos, as the captured groups link them (Okta's static assets).
_GROUP_LOGOS = (
    ("medium", "https://ok12static.oktacdn.com/assets/img/logos/groups/odyssey/okta-medium.30ce6d4085dff29412984e4c191bc874.png"),
    ("large", "https://ok12static.oktacdn.com/assets/img/logos/groups/odyssey/okta-large.c3cb8cda8ae0add1b4fe928f5844dbe3.png"),
)  # fmt: skip
#: Credential links an Okta-sourced user with a password has in these statuses (captured).
_PASSWORD_LINKS = frozenset({"ACTIVE", "PASSWORD_EXPIRED"})


def _none(value: str) -> str | None:
    return value or None


def _href(org: str, path: str, method: str = "") -> dict[str, str]:
    return {"href": f"{org}{path}", "method": method} if method else {"href": f"{org}{path}"}


def user(org: str, row: Row, *, collection: bool = False) -> dict[str, Any]:
    """A User, as ``GET /users/{id}`` (or, with ``collection``, a list) returns it."""
    user_id = row["id"]
    profile: dict[str, Any] = {name: _none(row.get(name, "")) for name in _ALWAYS_IN_PROFILE}
    for name in USER_PROFILE:
        if name not in profile and row.get(name):
            profile[name] = row[name]
    credentials: dict[str, Any] = {}
    if row["passwordChanged"]:
        credentials["password"] = {}
    if row["email"]:
        credentials["emails"] = [{"value": row["email"], "status": "VERIFIED", "type": "PRIMARY"}]
    credentials["provider"] = {"type": row["providerType"] or "OKTA", "name": row["providerName"] or "OKTA"}
    base = f"/api/v1/users/{user_id}"
    links: dict[str, Any] = {"self": _href(org, base)}
    if not collection:
        for move in allowed_moves(row["status"]):
            if move.link:
                links[move.link] = _href(org, f"{base}/lifecycle/{move.name}", "POST")
        if row["status"] in _PASSWORD_LINKS and row["passwordChanged"]:
            for name, path in (
                ("forgotPassword", "forgot_password"),
                ("changePassword", "change_password"),
                ("changeRecoveryQuestion", "change_recovery_question"),
            ):
                links[name] = _href(org, f"{base}/credentials/{path}", "POST")
        links["schema"] = _href(org, f"/api/v1/meta/schemas/user/{USER_SCHEMA_ID}")
        links["type"] = _href(org, f"/api/v1/meta/types/user/{USER_TYPE_ID}")
    body: dict[str, Any] = {"id": user_id, "status": row["status"], "created": row["created"]}
    for name in ("activated", "statusChanged", "lastLogin"):
        body[name] = _none(row[name])
    body["lastUpdated"] = row["lastUpdated"]
    body["passwordChanged"] = _none(row["passwordChanged"])
    body["type"] = {"id": USER_TYPE_ID}
    body["profile"] = profile
    body["credentials"] = credentials
    body["_links"] = links
    return body


def group(org: str, row: Row) -> dict[str, Any]:
    """A Group, as ``GET /groups/{groupId}`` returns it."""
    base = f"/api/v1/groups/{row['id']}"
    return {
        "id": row["id"],
        "created": row["created"],
        "lastUpdated": row["lastUpdated"],
        "lastMembershipUpdated": row["lastMembershipUpdated"],
        "objectClass": ["okta:user_group"],
        "type": row["type"],
        "profile": {"name": row["name"], "description": _none(row["description"])},
        "_links": {
            "logo": [{"name": name, "href": href, "type": "image/png"} for name, href in _GROUP_LOGOS],
            "users": _href(org, f"{base}/users"),
            "apps": _href(org, f"{base}/apps"),
        },
    }


def app(org: str, row: Row) -> dict[str, Any]:
    """An Application, with the properties the mock keeps and the captured defaults for the rest."""
    base = f"/api/v1/apps/{row['id']}"
    lifecycle = "deactivate" if row["status"] == "ACTIVE" else "activate"
    return {
        "id": row["id"],
        "name": row["name"],
        "label": row["label"],
        "status": row["status"],
        "lastUpdated": row["lastUpdated"],
        "created": row["created"],
        "accessibility": {"selfService": False, "errorRedirectUrl": None, "loginRedirectUrl": None},
        "visibility": {
            "autoSubmitToolbar": False,
            "hide": {"iOS": False, "web": False},
            "appLinks": {"login": True},
        },
        "features": [],
        "signOnMode": row["signOnMode"],
        "credentials": {
            "userNameTemplate": {"template": "${source.login}", "type": "BUILT_IN"},
            "signing": {},
        },
        "_links": {
            "users": _href(org, f"{base}/users"),
            "groups": _href(org, f"{base}/groups"),
            lifecycle: _href(org, f"{base}/lifecycle/{lifecycle}"),
        },
    }


def app_user(org: str, row: Row) -> dict[str, Any]:
    """An AppUser: its ``id`` is the user's."""
    body: dict[str, Any] = {
        "id": row["userId"],
        "externalId": _none(row["externalId"]),
        "created": row["created"],
        "lastUpdated": row["lastUpdated"],
        "scope": row["scope"],
        "status": row["status"],
        "statusChanged": _none(row["statusChanged"]),
        "passwordChanged": _none(row["passwordChanged"]),
        "syncState": row["syncState"] or "DISABLED",
    }
    if row["lastSync"]:
        body["lastSync"] = row["lastSync"]
    body["credentials"] = {"userName": row["userName"]}
    body["profile"] = {}
    body["_links"] = {
        "app": _href(org, f"/api/v1/apps/{row['appId']}"),
        "user": _href(org, f"/api/v1/users/{row['userId']}"),
    }
    return body


def app_group(org: str, row: Row) -> dict[str, Any]:
    """An ApplicationGroupAssignment: its ``id`` is the group's."""
    return {
        "id": row["groupId"],
        "lastUpdated": row["lastUpdated"],
        "priority": int(row["priority"] or 0),
        "profile": {},
        "_links": {
            "app": _href(org, f"/api/v1/apps/{row['appId']}"),
            "self": _href(org, f"/api/v1/apps/{row['appId']}/groups/{row['groupId']}"),
            "group": _href(org, f"/api/v1/groups/{row['groupId']}"),
        },
    }


def app_link(org: str, app_row: Row, assignment: Row, order: int) -> dict[str, Any]:
    """An AssignedAppLink of ``listAppLinks``: the tile a user sees for an app they hold."""
    return {
        "id": assignment["id"],
        "appAssignmentId": assignment["id"],
        "appInstanceId": app_row["id"],
        "appName": app_row["name"],
        "credentialsSetup": False,
        "hidden": False,
        "label": app_row["label"],
        "linkUrl": f"{org}/home/{app_row['name']}/{app_row['id']}/1",
        "logoUrl": f"{org}/assets/img/logos/default.png",
        "sortOrder": order,
    }


def _factor_profile(row: Row, owner: Mapping[str, str]) -> dict[str, Any]:
    kind = row["factorType"]
    if kind in ("sms", "call"):
        return {"phoneNumber": owner.get("mobilePhone", "")}
    if kind == "email":
        return {"email": owner.get("email", "")}
    if kind == "question":
        return {"question": "disliked_food", "questionText": "What is the food you least liked as a child?"}
    if kind == "webauthn":
        return {"authenticatorName": "Security Key"}
    return {"credentialId": owner.get("login", "")}


def factor(org: str, row: Row, owner: Mapping[str, str]) -> dict[str, Any]:
    """A UserFactor of ``owner``."""
    base = f"/api/v1/users/{row['userId']}/factors/{row['id']}"
    return {
        "id": row["id"],
        "factorType": row["factorType"],
        "provider": row["provider"],
        "vendorName": row["vendorName"],
        "status": row["status"],
        "created": row["created"],
        "lastUpdated": row["lastUpdated"],
        "profile": _factor_profile(row, owner),
        "_links": {
            "self": {"href": f"{org}{base}", "hints": {"allow": ["GET", "DELETE"]}},
            "user": _href(org, f"/api/v1/users/{row['userId']}"),
        },
    }


def role(org: str, row: Row) -> dict[str, Any]:
    """A standard Role assignment (its ``id`` the type in base32)."""
    assignee = (
        f"/api/v1/users/{row['userId']}"
        if row["assignmentType"] == "USER"
        else f"/api/v1/groups/{row['groupId']}"
    )
    return {
        "id": role_id(row["type"]),
        "label": row["label"],
        "type": row["type"],
        "status": row["status"],
        "created": row["created"],
        "lastUpdated": row["lastUpdated"],
        "assignmentType": row["assignmentType"],
        "_links": {"assignee": _href(org, assignee)},
    }


def log_event(row: Row) -> dict[str, Any]:
    """A LogEvent."""
    try:
        targets = json.loads(row["target"] or "[]")
    except json.JSONDecodeError:
        targets = []
    return {
        "actor": {
            "id": row["actorId"],
            "type": row["actorType"],
            "alternateId": row["actorAlternateId"],
            "displayName": row["actorDisplayName"],
            "detailEntry": None,
        },
        "client": {},
        "authenticationContext": {},
        "displayMessage": row["displayMessage"],
        "eventType": row["eventType"],
        "outcome": {"result": row["outcomeResult"], "reason": _none(row["outcomeReason"])},
        "published": row["published"],
        "securityContext": {},
        "severity": row["severity"],
        "debugContext": {"debugData": {}},
        "legacyEventType": _none(row["legacyEventType"]),
        "transaction": {},
        "uuid": row["uuid"],
        "version": row["version"],
        "request": {"ipChain": []},
        "target": targets,
    }
