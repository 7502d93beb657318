"""The identity system's conventions, as the generic layers ask for them (Okta's shapes).

Facts from the captured responses in ``spec/observed/`` (the Okta Python SDK's cassettes):

- **Ids** are 20 characters: a 3-character type prefix (``00u`` users, ``00g`` groups, ``0oa``
  apps, ``oty`` user types, ``0pr`` group rules), then base62; the last three characters are the
  same for every object of one org (``4x6`` in the 2020 recordings, ``5d7`` and ``1d7`` in the
  2025 ones), so this mock's org ends every id it makes with :data:`ORG_ID_SUFFIX`.
- **Date-times** are ISO 8601 in UTC with milliseconds and ``Z``
  (``2020-08-27T18:19:24.000Z``); every one of the 591 captured carries ``.000``, so the mock
  writes whole seconds the same way.
- **Error ids** (``errorId``) are ``oae`` and 22 URL-safe base64 characters
  (``oae2u1euaUNTKGIkB7Hh8pWAg``).
- **Admin role ids** are the role type in base32 without padding (``KVJUKUS7IFCE2SKO`` is
  ``USER_ADMIN``, ``IFIFAX2BIRGUSTQ`` ``APP_ADMIN``): the same for every assignment of a type.
- No record numbers: Okta objects are named by id, login or name.

Okta gives no object to a group membership, an app or group assignment or a role assignment
(the API names them by the pair of ids in the URL), but the record engine keys every row; those
tables' rows get mock-internal keys of the same shape (:data:`INTERNAL_ID_PREFIXES`), never
shown as Okta's. System Log events are keyed by their ``uuid``, as Okta does.
"""

from __future__ import annotations

import base64
import hashlib
import random
import string

from enterprise_envs.mocks._core.conventions import AuditHints, Conventions, Formats, Vocabulary
from enterprise_envs.mocks._core.people import Person
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.mocks.identity.audit_writes import IDENTITY_WRITER
from enterprise_envs.mocks.identity.workload import IDENTITY_WORKLOAD

#: How Okta writes a date-time (UTC, milliseconds always ``.000`` here), for identity code that
#: writes or parses one.
DATETIME_FORMAT = "%Y-%m-%dT%H:%M:%S.000Z"
#: What follows the 3-character prefix: 17 characters of base62.
_BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
#: The ending every id of the mock's org shares (an org's cell, as in the captures).
ORG_ID_SUFFIX = "8k7"
#: The type prefix of each table's Okta ids.
ID_PREFIXES = {"user": "00u", "group": "00g", "app": "0oa"}
#: Mock-internal key prefixes for rows Okta addresses by a pair of ids (see the module docstring).
INTERNAL_ID_PREFIXES = {
    "group_member": "0gm",
    "app_user": "0au",
    "app_group": "0ag",
    "role_assignment": "0ra",
}
#: A factor's id prefix by (factorType, provider), as Okta's own examples show them.
FACTOR_ID_PREFIXES = {
    ("push", "OKTA"): "opf",
    ("sms", "OKTA"): "mbl",
    ("call", "OKTA"): "clf",
    ("email", "OKTA"): "emf",
    ("question", "OKTA"): "ufs",
    ("token:software:totp", "OKTA"): "ost",
    ("token:software:totp", "GOOGLE"): "uft",
    ("webauthn", "FIDO"): "fwf",
}
#: Any Okta-shaped id (20 characters), or a System Log event's uuid.
OKTA_ID_PATTERN = r"[0-9a-z]{3}[0-9A-Za-z]{17}"
UUID_PATTERN = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
ID_PATTERN = f"(?:{OKTA_ID_PATTERN}|{UUID_PATTERN})"
#: ``errorId``: ``oae`` and 22 URL-safe base64 characters.
ERROR_ID_PATTERN = r"oae[0-9A-Za-z_-]{22}"
#: A standard admin role's id: its type in base32, unpadded.
ROLE_ID_PATTERN = r"[A-Z2-7]{4,40}"


def okta_id(rng: random.Random, prefix: str) -> str:
    """A new Okta-shaped id: the type prefix, 14 base62 characters and the org's suffix."""
    if len(prefix) != 3:
        raise ValueError(f"an Okta id prefix has three characters, not {prefix!r}")
    return prefix + "".join(rng.choice(_BASE62) for _ in range(14)) + ORG_ID_SUFFIX


def table_id(rng: random.Random, table: str) -> str:
    """A new key for a row of ``table`` (users ``00u...``; factors take :func:`factor_id`)."""
    prefix = ID_PREFIXES.get(table) or INTERNAL_ID_PREFIXES.get(table)
    if prefix is None:
        raise ValueError(f"no id prefix for table {table!r}")
    return okta_id(rng, prefix)


def factor_id(rng: random.Random, factor_type: str, provider: str) -> str:
    """A new factor id, prefixed as Okta prefixes that kind of factor."""
    return okta_id(rng, FACTOR_ID_PREFIXES.get((factor_type, provider), "ufs"))


def new_id(rng: random.Random, table: str = "") -> str:
    """The record engine's key maker: a new key in the shape of ``table``'s rows.

    Users ``00u...``, groups ``00g...``, apps ``0oa...``, the pair tables' internal keys
    (:data:`INTERNAL_ID_PREFIXES`), a System Log event's uuid (:func:`log_uuid`). A factor's
    prefix depends on its type, which the table does not say: the engine's factor keys are
    ``ufs...`` (the services never create factors). No table named: a user id.

    Raises:
        ValueError: The identity catalog has no such table.
    """
    if table == "log_event":
        return log_uuid(rng)
    if table == "factor":
        return okta_id(rng, "ufs")
    return table_id(rng, table or "user")


def log_uuid(rng: random.Random) -> str:
    """A System Log event's uuid (a version-1 layout, as Okta's are), from a seeded stream."""
    bits = rng.getrandbits(128)
    text = f"{bits:032x}"
    variant = "89ab"[int(text[16], 16) % 4]
    return f"{text[:8]}-{text[8:12]}-1{text[13:16]}-{variant}{text[17:20]}-{text[20:]}"


def error_id(*parts: str) -> str:
    """A deterministic ``errorId`` for an error: ``oae`` and 22 characters of its digest.

    Okta draws one per request; the mock's renderer has no per-call state, so the same error
    (same code, summary and causes) always gets the same id, in every process.
    """
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return "oae" + base64.urlsafe_b64encode(digest).decode("ascii")[:22]


def role_id(role_type: str) -> str:
    """A standard admin role's id as Okta returns it: the type in base32, unpadded."""
    return base64.b32encode(role_type.encode("ascii")).decode("ascii").rstrip("=")


def short_name(login: str) -> str:
    """A login's short name (``isaac.brock`` for ``isaac.brock@example.com``).

    Okta lets a user sign in with it while it is unique in the org; the mock keeps the World's
    login there (see ``world/people.py``).
    """
    return login.partition("@")[0]


#: Words a caller would not use: the Management API's and the Admin Console's own (a simulated
#: user saying one coaches the agent). Those with an underscore, a dot or ``=`` are code.
_API_TERMS = (
    "profile.login",
    "profile.email",
    "managerId",
    "statusChanged",
    "lastLogin",
    "filter=",
    "search=",
    "errorCode",
    "errorSummary",
    "errorCauses",
    "OKTA_GROUP",
    "APP_GROUP",
    "BUILT_IN",
    "LOCKED_OUT",
    "PASSWORD_EXPIRED",
    "HELP_DESK_ADMIN",
    "SUPER_ADMIN",
    "factorType",
    "token:software:totp",
    "signOnMode",
    "reset_factors",
    "expire_password",
    "lifecycle/",
    "/api/v1/",
    "00u",
    "00g",
    "0oa",
)

IDENTITY_CONVENTIONS = Conventions(
    id_pattern=ID_PATTERN,
    new_id=new_id,
    formats=Formats(datetime=DATETIME_FORMAT, date="%Y-%m-%d"),
    vocabulary=Vocabulary(
        record="account",
        terms=_API_TERMS,
        nouns={
            "user": "account",
            "group": "group",
            "group_member": "group",
            "app": "app",
            "app_user": "app access",
            "app_group": "app access",
            "factor": "MFA",
            "role_assignment": "admin rights",
            "log_event": "sign-in history",
        },
    ),
    audit=AuditHints(
        # Okta has no generic record API (its surface is per object): the audit writes through
        # its own operations instead (a lifecycle call for a status, a membership call...).
        record_api=None,
        writer=IDENTITY_WRITER,
        login_fields=("login", "email"),
        lifecycle_fields=("status",),
        # Roles are rows of role_assignment, not a field of the user.
        roles_field="",
        privileged_role="SUPER_ADMIN",
    ),
    workload=IDENTITY_WORKLOAD,
)

#: userType of the accounts that are not people (the agent's and the setup administrator's).
SERVICE_USER_TYPE = "Service"


def identity_directory(store: Store) -> tuple[Person, ...]:
    """The world's employees from its users: everyone but leavers and service accounts.

    A person's login is their Okta login's short name (the World's login, see
    ``world/people.py``); their manager's likewise.
    """
    rows = store.conn.execute(
        """
        SELECT u.login, u.firstName, u.lastName, u.email, COALESCE(m.login, ''), u.department, u.title,
               u."employeeNumber"
        FROM user u
        LEFT JOIN user m ON m.id = u.managerId
        WHERE u.status != 'DEPROVISIONED' AND u.userType != ?
        """,
        (SERVICE_USER_TYPE,),
    ).fetchall()
    people = [
        Person(
            short_name(login),
            first,
            last,
            email,
            short_name(manager),
            department,
            title,
            employee_number=number,
        )
        for login, first, last, email, manager, department, title, number in rows
    ]
    return tuple(sorted(people, key=lambda person: person.login))
