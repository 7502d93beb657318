r"""Okta's list query syntax: ``filter`` and ``search`` expressions compiled to SQL, and ``q``.

What each parameter supports is what Okta's Management API description says (2026.06.3):

- **Users, ``filter``**: ``status``, ``lastUpdated``, ``id``, ``profile.login``,
  ``profile.email``, ``profile.firstName``, ``profile.lastName``; only ``eq``, except
  ``lastUpdated`` which also takes ``gt``, ``ge``, ``lt`` and ``le``; ``and`` and ``or``, no
  ``not``. Property names and values are case-sensitive, operators are not.
- **Users, ``search``**: any profile property, and ``id``, ``status``, ``created``,
  ``activated``, ``statusChanged``, ``lastUpdated``, ``type.id``; operators ``eq``, ``sw`` and
  ``co`` (``co`` only on ``profile.firstName``, ``profile.lastName``, ``profile.email`` and
  ``profile.login``), the ordering operators ``gt``, ``ge``, ``lt``, ``le`` (the description's way
  to say "not equal": ``status lt "STAGED" or status gt "STAGED"``) and ``pr``; ``ne`` is refused.
  Property names are case-sensitive, operators and string values are not.
- **Groups, ``filter``**: ``id``, ``type``, ``lastUpdated``, ``lastMembershipUpdated``; ``eq``,
  and the ordering operators on the two times.
- **Groups, ``search``**: ``id``, ``created``, ``lastMembershipUpdated``, ``lastUpdated``,
  ``type`` and the profile's ``profile.name`` and ``profile.description``; ``eq``, ``sw``, ``co``
  (``co`` on the two profile properties only), the ordering operators and ``pr``.
- **System Log, ``filter``**: "all operators except ``[ ]``" on the event's properties the mock
  keeps (``eventType``, ``published``, ``actor.*``, ``target.*``, ``outcome.*``, ...).

Anything else (an unknown property, an operator the property does not take, ``not``, an
unquoted value, a malformed expression) is refused with Okta's 400 E0000031 ``Invalid search
criteria.``, the reason as its cause. Values are quoted strings (``"ACTIVE"``, with ``\\"`` for a
quote); times are ISO 8601 in UTC (``2026-03-01T00:00:00.000Z``, milliseconds optional).

The compiler is linear in the expression's length: one tokenizing pass with a pattern whose
alternatives never overlap, a recursive-descent parser bounded in depth (:data:`MAX_DEPTH`) and
in terms (:data:`MAX_TERMS`), and every value bound as a SQL parameter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from enterprise_envs.mocks._core.store import like_clause, like_literal
from enterprise_envs.mocks.identity.errors import OktaError, invalid_search
from enterprise_envs.mocks.identity.tables import spec_document

__all__ = [
    "APP_FILTER",
    "GROUP_FILTER",
    "GROUP_SEARCH",
    "LOG_FILTER",
    "MAX_DEPTH",
    "MAX_TERMS",
    "USER_FILTER",
    "USER_SEARCH",
    "Attribute",
    "Compiled",
    "Dialect",
    "compile_expression",
    "normalize_time",
]

#: How deep parentheses may nest, and how many comparisons one expression may hold ("an overly
#: complex or long search query can result in an error", as Okta's description warns).
MAX_DEPTH = 8
MAX_TERMS = 40

_EQ = frozenset({"eq"})
_ORDER = frozenset({"gt", "ge", "lt", "le"})
_SQL_OPERATORS = {"eq": "=", "ne": "!=", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
_KNOWN_OPERATORS = frozenset({"eq", "ne", "gt", "ge", "lt", "le", "sw", "co", "ew", "pr"})
# One token: a parenthesis, a quoted string (escapes allowed), or a run of other characters.
# The alternatives start with different characters, so matching never backtracks across them.
_TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))', re.DOTALL)
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_TIME = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,3}))?(?:Z|\+00:00)")


@dataclass(frozen=True)
class Attribute:
    """One property an expression may name.

    Attributes:
        column: The column it reads (for a ``json`` attribute: the JSON key in each list item).
        operators: The operators it takes.
        time: Its values are date-times (normalized before comparing).
        json: The JSON list column holding it (``target``): true when any item matches.
    """

    column: str
    operators: frozenset[str]
    time: bool = False
    json: str = ""


@dataclass(frozen=True)
class Dialect:
    """What one query parameter of one list supports.

    Attributes:
        parameter: Its name (``filter``, ``search``), for error causes.
        table: The table compiled against.
        attributes: Property name as the API writes it -> what it reads.
        fold_case: String values compare case-insensitively (``search``).
    """

    parameter: str
    table: str
    attributes: Mapping[str, Attribute]
    fold_case: bool = False


@dataclass(frozen=True)
class Compiled:
    """A compiled expression: a SQL condition and its parameters."""

    where: str
    params: tuple[str, ...]


def normalize_time(text: str) -> str | None:
    """An ISO 8601 UTC time as the mock stores it (``...T09:00:00.000Z``), or None if it is not one."""
    found = _TIME.fullmatch(text)
    if found is None:
        return None
    try:
        datetime.strptime(found.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=UTC)
    except ValueError:
        return None
    millis = (found.group(2) or "0").ljust(3, "0")
    return f"{found.group(1)}.{millis}Z"


class _Parser:
    """Recursive descent over the tokens of one expression (see the module docstring)."""

    def __init__(self, text: str, dialect: Dialect) -> None:
        self.dialect = dialect
        self.tokens = _tokens(text, dialect.parameter)
        self.at = 0
        self.terms = 0
        self.params: list[str] = []

    def fail(self, cause: str) -> OktaError:
        return invalid_search(f"Invalid {self.dialect.parameter} expression: {cause}")

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise self.fail("it ends too early")
        self.at += 1
        return token

    def keyword(self, word: str) -> bool:
        token = self.peek()
        if token is not None and token[0] == "word" and token[1].lower() == word:
            self.at += 1
            return True
        return False

    def parse(self) -> str:
        if not self.tokens:
            raise self.fail("it is empty")
        where = self.disjunction(0)
        if self.peek() is not None:
            raise self.fail(f"unexpected '{_shown(self.peek())}'")
        return where

    def disjunction(self, depth: int) -> str:
        parts = [self.conjunction(depth)]
        while self.keyword("or"):
            parts.append(self.conjunction(depth))
        return parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")"

    def conjunction(self, depth: int) -> str:
        parts = [self.atom(depth)]
        while self.keyword("and"):
            parts.append(self.atom(depth))
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"

    def atom(self, depth: int) -> str:
        kind, text = self.take()
        if kind == "(":
            if depth >= MAX_DEPTH:
                raise self.fail(f"parentheses nest deeper than {MAX_DEPTH}")
            inner = self.disjunction(depth + 1)
            if self.take()[0] != ")":
                raise self.fail("a parenthesis is not closed")
            return inner
        if kind != "word":
            raise self.fail(f"expected a property, found '{_shown((kind, text))}'")
        if text.lower() == "not":
            raise self.fail("the 'not' operator is not supported")
        return self.comparison(text)

    def comparison(self, name: str) -> str:
        self.terms += 1
        if self.terms > MAX_TERMS:
            raise self.fail(f"more than {MAX_TERMS} comparisons")
        attribute = self.dialect.attributes.get(name)
        if attribute is None:
            raise self.fail(f"'{_short(name)}' is not a property it supports")
        kind, text = self.take()
        operator = text.lower()
        if kind != "word" or operator not in _KNOWN_OPERATORS:
            raise self.fail(f"expected an operator after {name}, found '{_shown((kind, text))}'")
        if operator not in attribute.operators:
            raise self.fail(f"the '{operator}' operator is not supported on {name}")
        if operator == "pr":
            return self.condition(attribute, "pr", "")
        kind, value = self.take()
        if kind != "string":
            raise self.fail(f"the value compared with {name} must be a quoted string")
        if attribute.time:
            normalized = normalize_time(value)
            if normalized is None:
                raise self.fail(f"'{_short(value)}' is not a date-time like 2026-03-01T00:00:00.000Z")
            value = normalized
        return self.condition(attribute, operator, value)

    def condition(self, attribute: Attribute, operator: str, value: str) -> str:
        if attribute.json:
            subject = f"json_extract(value, '$.{attribute.column}')"
        else:
            subject = f'"{self.dialect.table}"."{attribute.column}"'
        fold = self.dialect.fold_case and not attribute.time
        if operator == "pr":
            sql = f"COALESCE({subject}, '') != ''"
        elif operator in ("sw", "co", "ew"):
            pattern = like_literal(value)
            pattern = {"sw": pattern + "%", "co": f"%{pattern}%", "ew": "%" + pattern}[operator]
            self.params.append(pattern)
            sql = like_clause(subject)
        else:
            self.params.append(value)
            if fold:
                sql = f"lower({subject}) {_SQL_OPERATORS[operator]} lower(?)"
            else:
                sql = f"{subject} {_SQL_OPERATORS[operator]} ?"
        if attribute.json:
            return f'EXISTS (SELECT 1 FROM json_each("{self.dialect.table}"."{attribute.json}") WHERE {sql})'
        return f"({sql})"


def _tokens(text: str, parameter: str) -> list[tuple[str, str]]:
    """The expression's tokens: ``(``, ``)``, ``string`` (unescaped) or ``word``."""
    found: list[tuple[str, str]] = []
    at, end = 0, len(text)
    while at < end:
        match = _TOKEN.match(text, at)
        if match is None:
            if text[at:].strip():
                raise invalid_search(f"Invalid {parameter} expression: a quoted value is not closed")
            break
        opening, closing, quoted, word = match.groups()
        if opening:
            found.append(("(", "("))
        elif closing:
            found.append((")", ")"))
        elif quoted is not None:
            found.append(("string", _ESCAPE.sub(r"\1", quoted)))
        else:
            found.append(("word", word))
        at = match.end()
    return found


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _shown(token: tuple[str, str] | None) -> str:
    if token is None:
        return ""
    return _short(f'"{token[1]}"' if token[0] == "string" else token[1])


def compile_expression(text: str, dialect: Dialect) -> Compiled:
    """Compile a ``filter`` or ``search`` expression for ``dialect`` to a SQL condition.

    Args:
        text: The expression as the caller sent it (``status eq "LOCKED_OUT"``).
        dialect: What the parameter supports.

    Returns:
        The condition (columns qualified with the table) and its bound values.

    Raises:
        OktaError: 400 E0000031 for anything the parameter does not support.
    """
    parser = _Parser(text, dialect)
    where = parser.parse()
    return Compiled(where, tuple(parser.params))


# -- what each list supports ------------------------------------------------------------------


def _profile_properties(schema: str) -> tuple[str, ...]:
    """The properties of a profile schema in the current description (custom ones are not modelled)."""
    return tuple(spec_document()["components"]["schemas"][schema]["properties"])


def _attributes(entries: Iterable[tuple[str, Attribute]]) -> dict[str, Attribute]:
    return dict(entries)


_STRING_SEARCH = frozenset({"eq", "sw", "pr"}) | _ORDER
_TIME_SEARCH = frozenset({"eq", "pr"}) | _ORDER
#: User profile properties ``co`` may be used on (the description's list).
_USER_CONTAINS = frozenset({"firstName", "lastName", "email", "login"})

USER_FILTER = Dialect(
    "filter",
    "user",
    {
        "status": Attribute("status", _EQ),
        "lastUpdated": Attribute("lastUpdated", _EQ | _ORDER, time=True),
        "id": Attribute("id", _EQ),
        "profile.login": Attribute("login", _EQ),
        "profile.email": Attribute("email", _EQ),
        "profile.firstName": Attribute("firstName", _EQ),
        "profile.lastName": Attribute("lastName", _EQ),
    },
)

USER_SEARCH = Dialect(
    "search",
    "user",
    _attributes(
        [
            ("id", Attribute("id", _STRING_SEARCH)),
            ("status", Attribute("status", _STRING_SEARCH)),
            *((name, Attribute(name, _TIME_SEARCH, time=True)) for name in
              ("created", "activated", "statusChanged", "lastUpdated")),
            *(
                (
                    f"profile.{name}",
                    Attribute(name, _STRING_SEARCH | ({"co"} if name in _USER_CONTAINS else set())),
                )
                for name in _profile_properties("UserProfile")
            ),
        ]
    ),
    fold_case=True,
)  # fmt: skip

GROUP_FILTER = Dialect(
    "filter",
    "group",
    {
        "id": Attribute("id", _EQ),
        "type": Attribute("type", _EQ),
        "lastUpdated": Attribute("lastUpdated", _EQ | _ORDER, time=True),
        "lastMembershipUpdated": Attribute("lastMembershipUpdated", _EQ | _ORDER, time=True),
    },
)

GROUP_SEARCH = Dialect(
    "search",
    "group",
    {
        "id": Attribute("id", _STRING_SEARCH),
        "type": Attribute("type", _STRING_SEARCH),
        "created": Attribute("created", _TIME_SEARCH, time=True),
        "lastUpdated": Attribute("lastUpdated", _TIME_SEARCH, time=True),
        "lastMembershipUpdated": Attribute("lastMembershipUpdated", _TIME_SEARCH, time=True),
        "profile.name": Attribute("name", _STRING_SEARCH | {"co"}),
        "profile.description": Attribute("description", _STRING_SEARCH | {"co"}),
    },
    fold_case=True,
)

#: Apps, ``filter``: the description lists ``id``, ``status``, ``name`` (and signing and logout
#: settings the mock does not keep); ``eq`` only.
APP_FILTER = Dialect(
    "filter",
    "app",
    {"id": Attribute("id", _EQ), "status": Attribute("status", _EQ), "name": Attribute("name", _EQ)},
)

_ANY = _KNOWN_OPERATORS
LOG_FILTER = Dialect(
    "filter",
    "log_event",
    {
        "uuid": Attribute("uuid", _ANY),
        "eventType": Attribute("eventType", _ANY),
        "legacyEventType": Attribute("legacyEventType", _ANY),
        "displayMessage": Attribute("displayMessage", _ANY),
        "severity": Attribute("severity", _ANY),
        "published": Attribute("published", _EQ | _ORDER | {"ne", "pr"}, time=True),
        "actor.id": Attribute("actorId", _ANY),
        "actor.type": Attribute("actorType", _ANY),
        "actor.alternateId": Attribute("actorAlternateId", _ANY),
        "actor.displayName": Attribute("actorDisplayName", _ANY),
        "outcome.result": Attribute("outcomeResult", _ANY),
        "outcome.reason": Attribute("outcomeReason", _ANY),
        "target.id": Attribute("id", _ANY, json="target"),
        "target.type": Attribute("type", _ANY, json="target"),
        "target.alternateId": Attribute("alternateId", _ANY, json="target"),
        "target.displayName": Attribute("displayName", _ANY, json="target"),
    },
)
