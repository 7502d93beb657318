"""Compiler for ServiceNow ``sysparm_query`` encoded queries into SQLite SQL.

The mock stores every Table API column as TEXT holding exactly what the API returns
(strings, ``""`` for empty, references as 32-hex sys_ids). :func:`compile_query` turns an
encoded query such as ``active=true^priority<=2^ORDERBYDESCopened_at`` into a SQL boolean
expression with positional ``?`` parameters plus an ``ORDER BY`` body, following the
ServiceNow documentation (Table API ``sysparm_query`` and "encoded query strings").

Security model: the only text from the query that reaches SQL verbatim is a field name that
matched ``[a-z0-9_.]+`` *and* was accepted by the :class:`FieldResolver`; it is then emitted
as the resolver's canonical name in double quotes. Every value is bound as a parameter.

Supported syntax:
    * ``^`` (AND), ``^OR`` (OR, binds tighter than AND), ``^NQ`` (OR of whole queries).
    * Operators ``=``, ``!=``, ``LIKE``, ``NOT LIKE``, ``STARTSWITH``, ``ENDSWITH``, ``IN``,
      ``NOT IN``, ``ISEMPTY``, ``ISNOTEMPTY``, ``<``, ``<=``, ``>``, ``>=``, ``ANYTHING``,
      ``SAMEAS``, ``NSAMEAS``, ``BETWEEN``.
    * ``ORDERBY<field>`` / ``ORDERBYDESC<field>`` anywhere; a trailing ``^EQ`` marker (as
      emitted by the ServiceNow list UI) is ignored.
    * One level of dot-walking through reference fields (``caller_id.name=Abel Tuter``).
    * ``javascript:gs.dateGenerate('YYYY-MM-DD','HH:MM:SS'|'start'|'end')`` values on datetime
      fields; any other ``javascript:`` value is rejected because the mock cannot evaluate it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from enterprise_envs.mocks._core.store import like_clause, like_literal

__all__ = ["CompiledQuery", "FieldInfo", "FieldResolver", "QueryError", "compile_query"]


@dataclass(frozen=True)
class FieldInfo:
    """What the compiler needs to know about one column.

    Attributes:
        name: Column name in the SQLite table.
        kind: One of ``"string"``, ``"integer"``, ``"datetime"``, ``"boolean"``,
            ``"reference"``, ``"choice"``; unknown kinds are treated like ``"string"``.
        reference_table: Target table when ``kind == "reference"``.
    """

    name: str
    kind: str
    reference_table: str | None = None


class FieldResolver(Protocol):
    """Looks up fields of a table; the compiler's only source of trusted identifiers."""

    def field(self, table: str, name: str) -> FieldInfo | None:
        """Return the field ``name`` of ``table``, or None if the table has no such field."""
        ...


class QueryError(ValueError):
    """An encoded query that cannot be compiled (message says what and where)."""


@dataclass(frozen=True)
class CompiledQuery:
    """Result of :func:`compile_query`.

    Attributes:
        where: SQL boolean expression over the table's columns; ``"1"`` when unrestricted,
            ``"0"`` when an invalid field makes the whole query match nothing.
        params: Positional ``?`` parameters for ``where``, in order (``order_by`` has none).
        order_by: ``ORDER BY`` body, never empty: the requested keys followed by
            ``"sys_id" ASC`` as a stable tiebreak. A dot-walked key is a correlated
            subquery qualified with the table name, so the table must not be aliased in
            the surrounding ``SELECT``.
        invalid_fields: Field names in conditions that did not resolve, in first-seen order
            (invalid ``ORDERBY`` fields are silently ignored, as ServiceNow does).
    """

    where: str
    params: tuple[str, ...]
    order_by: str
    invalid_fields: tuple[str, ...]


# Ordered longest first so that the alternation performs longest-match ("<=" before "<",
# "NOT LIKE" before nothing shorter, "ISNOTEMPTY" before "ISEMPTY"...).
_OPERATORS = (
    "=", "!=", "LIKE", "NOT LIKE", "STARTSWITH", "ENDSWITH", "IN", "NOT IN", "ISEMPTY",
    "ISNOTEMPTY", "<", "<=", ">", ">=", "ANYTHING", "SAMEAS", "NSAMEAS", "BETWEEN",
)  # fmt: skip
_OP_RE = re.compile("|".join(re.escape(op) for op in sorted(_OPERATORS, key=len, reverse=True)))
_FIELD_RE = re.compile(r"[a-z0-9_.]+")
_PLAIN_FIELD_RE = re.compile(r"[a-z0-9_]+")
_INT_RE = re.compile(r"[+-]?[0-9]+")
_DATEGEN_RE = re.compile(
    r"javascript:gs\.dateGenerate\(\s*'([0-9]{4}-[0-9]{2}-[0-9]{2})'\s*,"
    r"\s*'(start|end|[0-9]{2}:[0-9]{2}:[0-9]{2})'\s*\)"
)
_INT_PARAM = "CAST(? AS INTEGER)"
_DAY_BOUNDS = {"start": "00:00:00", "end": "23:59:59"}
_LIKE_PATTERNS = {"LIKE": "%{}%", "STARTSWITH": "{}%", "ENDSWITH": "%{}"}
_NEGATIONS = {"!=": "=", "NOT LIKE": "LIKE", "NOT IN": "IN", "NSAMEAS": "SAMEAS"}
_NO_VALUE_OPS = frozenset({"ISEMPTY", "ISNOTEMPTY", "ANYTHING"})
_RANGE_OPS = frozenset({"<", "<=", ">", ">="})
# Short OR/AND chains are emitted flat; longer ones are split into a balanced tree because
# SQLite rejects expression trees deeper than 1000 (a flat "a OR b OR ..." is left-deep).
_FLAT_JOIN_MAX = 32
# SQLite's default SQLITE_MAX_VARIABLE_NUMBER since 3.32.
_MAX_PARAMS = 32766
_SHOW_MAX = 60

# A compiled fragment: SQL text and the parameters it consumes, in order.
_Sql = tuple[str, list[str]]


def compile_query(
    table: str,
    query: str,
    resolver: FieldResolver,
    *,
    invalid_returns_no_rows: bool = True,
) -> CompiledQuery:
    """Compile a ServiceNow encoded query for ``table`` into SQLite SQL.

    Args:
        table: Table the query runs against (used for field resolution and, for
            dot-walked ``ORDERBY`` keys, to qualify the outer column).
        query: The ``sysparm_query`` value, already URL-decoded.
        resolver: Source of truth for which fields exist and their kinds.
        invalid_returns_no_rows: Mirrors the instance property
            ``glide.invalid_query.returns_no_rows``: if true, any condition on an unknown
            field makes the whole query match nothing; if false, such conditions are dropped
            as though they were absent.

    Returns:
        The compiled query. ``where`` and ``order_by`` are meant for
        ``SELECT ... FROM "<table>" WHERE {where} ORDER BY {order_by}``.

    Raises:
        QueryError: If a term has no recognizable operator, a value does not suit the field
            (e.g. a non-integer bound for an integer field), the dot-walk is deeper than one
            level, or the query needs more parameters than SQLite allows.
    """
    # groups (^NQ) -> AND clauses -> OR terms; None marks a term on an invalid field, kept
    # as a placeholder so a following ^OR still attaches to the right clause.
    groups: list[list[list[_Sql | None]]] = [[]]
    orders: list[str] = []
    invalid: dict[str, None] = {}  # insertion-ordered set
    pos = 0
    for segment in query.split("^"):
        start = pos
        pos += len(segment) + 1
        if not segment or segment == "EQ":
            continue
        if segment.startswith("ORDERBY"):
            desc = segment.startswith("ORDERBYDESC")
            key = _order_key(table, segment[11 if desc else 7 :], resolver, segment, start)
            if key is not None:
                orders.append(f"{key} {'DESC' if desc else 'ASC'}")
            continue
        is_or = False
        if segment.startswith("NQ"):
            if groups[-1]:
                groups.append([])
            segment = segment[2:]
            start += 2
            if not segment:
                continue
        elif segment.startswith("OR"):
            is_or = True
            segment = segment[2:]
            start += 2
            if not segment:
                continue
        term = _compile_term(table, segment, start, resolver, invalid)
        clauses = groups[-1]
        if is_or and clauses:
            clauses[-1].append(term)
        else:
            clauses.append([term])

    orders.append('"sys_id" ASC')
    order_by = ", ".join(orders)
    invalid_fields = tuple(invalid)
    if invalid and invalid_returns_no_rows:
        return CompiledQuery("0", (), order_by, invalid_fields)

    group_sql: list[_Sql] = []
    for clauses in groups:
        clause_sql: list[_Sql] = []
        for terms in clauses:
            valid = [t for t in terms if t is not None]
            if valid:
                clause_sql.append(_join(" OR ", valid))
        if clause_sql:
            group_sql.append(_join(" AND ", clause_sql))
    if not group_sql:
        return CompiledQuery("1", (), order_by, invalid_fields)
    where, params = _join(" OR ", group_sql)
    if len(params) > _MAX_PARAMS:
        raise QueryError(f"query needs {len(params)} values; at most {_MAX_PARAMS} are supported")
    return CompiledQuery(where, tuple(params), order_by, invalid_fields)


def _compile_term(
    table: str, text: str, offset: int, resolver: FieldResolver, invalid: dict[str, None]
) -> _Sql | None:
    """Compile one ``<field><op><value>`` term; None if its field is invalid (recorded)."""
    m = _FIELD_RE.match(text)
    if m is None:
        raise QueryError(f"invalid term {_show(text)} at offset {offset}: expected a field name")
    name = m.group()
    om = _OP_RE.match(text, m.end())
    if om is None:
        raise QueryError(
            f"invalid term {_show(text)} at offset {offset}: no recognizable operator after field {name!r}"
        )
    op = om.group()
    value = text[om.end() :]
    where = f"term {_show(text)} at offset {offset}"
    if op in _NO_VALUE_OPS and value:
        raise QueryError(f"invalid {where}: operator {op} takes no value")

    parts = name.split(".")
    if len(parts) > 2:
        raise QueryError(f"invalid {where}: dot-walking supports only one level ({name!r})")
    info = resolver.field(table, parts[0]) if parts[0] else None
    if info is None:
        invalid[name] = None
        return None

    if len(parts) == 1:
        if op in ("SAMEAS", "NSAMEAS"):
            other = resolver.field(table, value) if _PLAIN_FIELD_RE.fullmatch(value) else None
            if other is None:
                invalid[value] = None
                return None
            return _same_as(info, other, negate=op == "NSAMEAS")
        sql, params, _ = _predicate(_quote(info.name), info, op, value, where)
        return sql, params

    # One-level dot-walk through a reference field.
    ref_table = info.reference_table if info.kind == "reference" else None
    sub = resolver.field(ref_table, parts[1]) if ref_table and parts[1] else None
    if not ref_table or sub is None:
        invalid[name] = None
        return None
    if op in ("SAMEAS", "NSAMEAS"):
        raise QueryError(f"invalid {where}: {op} is not supported on dot-walked fields")
    sql, params, matches_empty = _predicate(_quote(sub.name), sub, op, value, where)
    ref = _quote(info.name)
    target = _quote(ref_table)
    # The subquery is uncorrelated: its unqualified columns bind to the referenced table,
    # which stays correct even when the reference points back at the same table.
    sql = f'{ref} IN (SELECT "sys_id" FROM {target} WHERE {sql})'
    if matches_empty:
        # A missing or dangling reference has an empty dot-walked value, as with
        # ServiceNow's outer join; conditions that match "" must include those rows.
        sql = f"({sql} OR IFNULL({ref}, '') NOT IN (SELECT \"sys_id\" FROM {target}))"
    return sql, params


def _predicate(col: str, info: FieldInfo, op: str, value: str, where: str) -> tuple[str, list[str], bool]:
    """Build the condition for ``col <op> value``.

    Args:
        col: Quoted column reference.
        info: The column's field info (decides numeric/boolean semantics).
        op: Operator other than SAMEAS/NSAMEAS.
        value: Raw value text from the query.
        where: Term description for error messages.

    Returns:
        SQL, its parameters, and whether the condition holds for an empty value (used to
        extend dot-walks to rows without a referenced record).
    """
    negate = op in _NEGATIONS
    if negate:
        op = _NEGATIONS[op]
    kind = info.kind
    params: list[str] = []

    if op == "ANYTHING":
        sql, empty = "1", True
    elif op == "ISEMPTY" or (op == "=" and value == ""):
        sql, empty = f"IFNULL({col}, '') = ''", True
    elif op == "ISNOTEMPTY":
        sql, empty = f"{col} <> ''", False
    elif op == "=":
        empty = False
        if kind == "integer":
            params.append(_int(value, where))
            sql = f"({col} <> '' AND CAST({col} AS INTEGER) = {_INT_PARAM})"
        elif kind == "boolean":
            params.append(value)
            sql = f"{col} = ? COLLATE NOCASE"
        else:
            params.append(_scalar(value, kind, where))
            sql = f"{col} = ?"
    elif op in _LIKE_PATTERNS:
        params.append(_LIKE_PATTERNS[op].format(like_literal(value)))
        sql, empty = like_clause(col), value == ""
    elif op == "IN":
        sql, params, empty = _in(col, kind, value.split(","), where)
    elif op in _RANGE_OPS:
        empty = False
        if kind == "integer":
            params.append(_int(value, where))
            sql = f"({col} <> '' AND CAST({col} AS INTEGER) {op} {_INT_PARAM})"
        else:
            params.append(_scalar(value, kind, where))
            sql = f"({col} <> '' AND {col} {op} ?)"
    else:  # BETWEEN
        bounds = value.split("@")
        if len(bounds) != 2:
            raise QueryError(f"invalid {where}: BETWEEN needs a value of the form low@high")
        empty = False
        if kind == "integer":
            params += [_int(b, where) for b in bounds]
            sql = f"({col} <> '' AND CAST({col} AS INTEGER) BETWEEN {_INT_PARAM} AND {_INT_PARAM})"
        else:
            params += [_scalar(b, kind, where) for b in bounds]
            sql = f"({col} <> '' AND {col} BETWEEN ? AND ?)"

    if negate:
        # NULL-safe negation so that != / NOT LIKE / NOT IN also match empty values.
        return f"NOT IFNULL({sql}, 0)", params, not empty
    return sql, params, empty


def _in(col: str, kind: str, items: list[str], where: str) -> tuple[str, list[str], bool]:
    """Build ``col IN (items)``; an empty item matches empty values."""
    has_empty = "" in items
    if kind == "integer":
        numbers = [_int(item, where) for item in items if item]
        if not numbers:
            return f"IFNULL({col}, '') = ''", [], True
        marks = ", ".join([_INT_PARAM] * len(numbers))
        sql = f"({col} <> '' AND CAST({col} AS INTEGER) IN ({marks}))"
        if has_empty:
            sql = f"({sql} OR IFNULL({col}, '') = '')"
        return sql, numbers, has_empty
    values = [_scalar(item, kind, where) for item in items]
    subject = f"IFNULL({col}, '')" if has_empty else col
    if kind == "boolean":
        subject += " COLLATE NOCASE"
    return f"{subject} IN ({', '.join(['?'] * len(values))})", values, has_empty


def _same_as(left: FieldInfo, right: FieldInfo, *, negate: bool) -> _Sql:
    """Build a SAMEAS/NSAMEAS comparison between two columns of the same table."""
    a, b = _quote(left.name), _quote(right.name)
    if left.kind == right.kind == "integer":
        sql = f"CAST(NULLIF({a}, '') AS INTEGER) IS CAST(NULLIF({b}, '') AS INTEGER)"
    else:
        sql = f"IFNULL({a}, '') = IFNULL({b}, '')"
    return (f"NOT ({sql})" if negate else sql), []


def _order_key(table: str, name: str, resolver: FieldResolver, segment: str, offset: int) -> str | None:
    """SQL sort key for an ``ORDERBY`` field, or None if the field is invalid."""
    if not _FIELD_RE.fullmatch(name):
        return None
    parts = name.split(".")
    if len(parts) > 2:
        raise QueryError(
            f"invalid term {_show(segment)} at offset {offset}: dot-walking supports only one level"
        )
    info = resolver.field(table, parts[0]) if parts[0] else None
    if info is None:
        return None
    if len(parts) == 1:
        return _sort_expr(_quote(info.name), info)
    ref_table = info.reference_table if info.kind == "reference" else None
    sub = resolver.field(ref_table, parts[1]) if ref_table and parts[1] else None
    if not ref_table or sub is None:
        return None
    # Aliasing the inner table keeps the correlation right for self-references (parent.number).
    inner = _sort_expr(f'"_qr".{_quote(sub.name)}', sub)
    return (
        f'(SELECT {inner} FROM {_quote(ref_table)} AS "_qr" '
        f'WHERE "_qr"."sys_id" = {_quote(table)}.{_quote(info.name)})'
    )


def _sort_expr(col: str, info: FieldInfo) -> str:
    """Integers sort numerically with empties as NULL (first ascending); the rest as text."""
    return f"CAST(NULLIF({col}, '') AS INTEGER)" if info.kind == "integer" else col


def _join(op: str, parts: list[_Sql]) -> _Sql:
    """Join fragments with AND/OR, parenthesized, keeping the expression tree shallow."""
    if len(parts) == 1:
        return parts[0]
    if len(parts) > _FLAT_JOIN_MAX:
        mid = len(parts) // 2
        parts = [_join(op, parts[:mid]), _join(op, parts[mid:])]
    params: list[str] = []
    for _, p in parts:
        params += p
    return "(" + op.join(sql for sql, _ in parts) + ")", params


def _int(value: str, where: str) -> str:
    """Validate an integer value (no surrounding whitespace, ASCII digits)."""
    if not _INT_RE.fullmatch(value):
        raise QueryError(f"invalid {where}: {_show(value)} is not an integer")
    return value


def _scalar(value: str, kind: str, where: str) -> str:
    """Resolve ``javascript:`` values: dateGenerate on datetimes, anything else rejected."""
    if not value.startswith("javascript:"):
        return value
    m = _DATEGEN_RE.fullmatch(value) if kind == "datetime" else None
    if m is None:
        raise QueryError(f"invalid {where}: javascript: values are not supported")
    time = _DAY_BOUNDS.get(m.group(2), m.group(2))
    return f"{m.group(1)} {time}"


def _quote(identifier: str) -> str:
    """Quote an SQL identifier (already validated; escaping is defence in depth)."""
    return '"' + identifier.replace('"', '""') + '"'


def _show(text: str) -> str:
    """Short repr of query text for error messages."""
    return repr(text if len(text) <= _SHOW_MAX else text[:_SHOW_MAX] + "...")
