r"""The input boundary: what a caller may send, checked once, before any work.

Everything an agent sends (a Gym action, MCP tool arguments, a direct ``Backend.call``) passes
through :func:`plain_json` first. It returns a fresh copy that is plain JSON (string keys, JSON
scalars, lists and objects), bounded in depth, size and number range, or raises
:class:`InputError` saying what is wrong and where, in words fit for the caller. Nothing past the
boundary has to defend itself against sets, bytes, cycles, 5,000-digit numbers or NaN.

Text is checked too (:func:`text_problem`): a string holding a NUL character or a lone surrogate
(``"\\ud800"``, which is no Unicode text and cannot be encoded as UTF-8) is refused, and never
echoed back raw. Values echoed in error messages go through :func:`echo`, which bounds and
escapes them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_INT",
    "InputError",
    "InputLimits",
    "LIMITS",
    "echo",
    "json_text",
    "loads",
    "plain_json",
    "text_problem",
]

#: The largest integer magnitude accepted: JSON numbers beyond IEEE-754 doubles' exact range are
#: not interoperable (RFC 7493, I-JSON), and SQLite integers stop at 2**63.
MAX_INT = 2**53 - 1


@dataclass(frozen=True)
class InputLimits:
    """Bounds on one input value (an action, or a tool call's arguments).

    Attributes:
        max_depth: Nesting of lists and objects.
        max_items: Values in all (every scalar, list and object counts one).
        max_chars: Characters in all strings and keys together.
        max_text_bytes: Size of JSON text before it is parsed.
        max_number_digits: Digits of a number literal in JSON text.
    """

    max_depth: int = 32
    max_items: int = 10_000
    max_chars: int = 1_000_000
    max_text_bytes: int = 2_000_000
    max_number_digits: int = 40


LIMITS = InputLimits()


class InputError(ValueError):
    """An input that is not plain, bounded JSON (the message is written for the caller).

    Attributes:
        path: Where in the value (``arguments.query``), or "" for the value itself.
        reason: What is wrong there.
    """

    def __init__(self, path: str, reason: str) -> None:
        self.path = path if len(path) <= 120 else "..." + path[-117:]
        self.reason = reason
        super().__init__(f"{self.path}: {reason}" if path else reason)


def text_problem(text: str) -> str | None:
    """Why a string is not acceptable text (a NUL or a lone surrogate), or None if it is."""
    if "\x00" in text:
        return "contains a NUL character"
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            return "contains a lone surrogate (an invalid Unicode code point)"
    return None


def _join(path: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    part = echo(key, 40)
    return f"{path}.{part}" if path else part


def plain_json(value: Any, *, limits: InputLimits = LIMITS, check_text: bool = True, root: str = "") -> Any:
    """A fresh, plain-JSON copy of ``value``, or :class:`InputError`.

    Accepted: ``dict`` with ``str`` keys, ``list`` and ``tuple`` (copied as lists), ``str``,
    ``bool``, ``int`` within :data:`MAX_INT`, finite ``float``, ``None``; subclasses of these
    (a ``str`` enum) become the base type. Iterative, so a deep or cyclic value costs at most
    ``limits.max_items`` steps and never recurses.

    Args:
        value: What the caller sent.
        limits: The bounds.
        check_text: Refuse strings (keys included) holding NUL or lone surrogates.
        root: The path to report for ``value`` itself.

    Raises:
        InputError: Naming the first offending place.
    """
    flat = _flat_copy(value, limits, check_text)
    if flat is not None:
        return flat
    items = 0
    chars = 0

    def scalar(item: Any, path: str) -> tuple[bool, Any]:
        nonlocal chars
        if item is None or item is True or item is False:
            return True, item
        if isinstance(item, str):
            chars += len(item)
            if chars > limits.max_chars:
                raise InputError(path, f"the text is too long (more than {limits.max_chars} characters)")
            if check_text and (problem := text_problem(item)):
                raise InputError(path, f"the text {problem}")
            return True, item if type(item) is str else str.__str__(item)
        if isinstance(item, bool):  # a bool subclass (numpy's is not one)
            return True, bool(item)
        if isinstance(item, int):
            if not -MAX_INT <= item <= MAX_INT:
                raise InputError(path, f"the number is out of range (at most {MAX_INT} in magnitude)")
            return True, int(item)
        if isinstance(item, float):
            if not math.isfinite(item):
                raise InputError(path, "the number is not finite (NaN and Infinity are not JSON)")
            return True, float(item)
        return False, None

    def count(path: str) -> None:
        nonlocal items
        items += 1
        if items > limits.max_items:
            raise InputError(path, f"the value is too large (more than {limits.max_items} items)")

    count(root)
    done, result = scalar(value, root)
    if done:
        return result
    top = _container(value, root)
    # (source, copy, depth, path); containers are copied as they are visited.
    stack: list[tuple[Any, Any, int, str]] = [(value, top, 1, root)]
    while stack:
        source, copy, depth, path = stack.pop()
        if depth > limits.max_depth:
            raise InputError(path, f"the value is nested too deeply (more than {limits.max_depth} levels)")
        pairs = source.items() if isinstance(copy, dict) else enumerate(source)
        for key, item in pairs:
            if isinstance(copy, dict):
                if not isinstance(key, str):
                    raise InputError(path, f"object keys must be strings, not {type(key).__name__}")
                scalar(key, path)
                key = key if type(key) is str else str.__str__(key)
            where = _join(path, key)
            count(where)
            done, plain = scalar(item, where)
            if not done:
                plain = _container(item, where)
                stack.append((item, plain, depth + 1, where))
            if isinstance(copy, dict):
                copy[key] = plain
            else:
                copy.append(plain)
    return top


def _flat_copy(
    value: Any, limits: InputLimits, check_text: bool, nested: bool = True
) -> dict[str, Any] | None:
    """The common case, fast: a small dict of plain strings, booleans, integers and None.

    With ``nested``, a value may itself be such a dict (an action and its arguments). Returns the
    copy, or None when anything needs the full walk (which also finds the error).
    """
    if type(value) is not dict or len(value) > 64:
        return None
    chars = 0
    copy: dict[str, Any] | None = None
    for key, item in value.items():
        if type(key) is not str:
            return None
        kind = type(item)
        if kind is str:
            chars += len(item) + len(key)
            if check_text and ("\x00" in item or not item.isascii()):
                return None  # let the full walk decide (non-ASCII is checked there)
        elif item is None or kind is bool:
            chars += len(key)
        elif kind is int:
            if not -MAX_INT <= item <= MAX_INT:
                return None
            chars += len(key)
        elif kind is dict and nested:
            inner = _flat_copy(item, limits, check_text, nested=False)
            if inner is None:
                return None
            copy = copy if copy is not None else dict(value)
            copy[key] = inner
            chars += len(key) + sum(len(k) + (len(v) if type(v) is str else 0) for k, v in inner.items())
        else:
            return None
        if check_text and ("\x00" in key or not key.isascii()):
            return None
    if chars > limits.max_chars or len(value) + 1 > limits.max_items:
        return None
    return copy if copy is not None else dict(value)


def _container(item: Any, path: str) -> dict[str, Any] | list[Any]:
    if isinstance(item, Mapping):
        return {}
    if isinstance(item, list | tuple):
        return []
    raise InputError(path, f"{type(item).__name__} is not a JSON value")


class _Refused(Exception):
    """Raised from the JSON parser's hooks (a number too long, a NaN)."""


def loads(text: str | bytes, *, limits: InputLimits = LIMITS) -> Any:
    """Parse JSON text with bounded work: size checked first, long number literals refused.

    Raises:
        InputError: Too long, not UTF-8, not JSON, or holding numbers JSON does not allow.
    """
    if len(text) > limits.max_text_bytes:
        raise InputError("", f"the text is too long (more than {limits.max_text_bytes} characters)")
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("", "the text is not UTF-8") from None

    def number(literal: str) -> Any:
        if len(literal) > limits.max_number_digits:
            raise _Refused(f"a number has more than {limits.max_number_digits} digits")
        if not any(c in literal for c in ".eE"):
            return int(literal)
        parsed = float(literal)
        if not math.isfinite(parsed):
            raise _Refused(f"{literal} is out of range")
        return parsed

    def constant(name: str) -> Any:
        raise _Refused(f"{name} is not a JSON number")

    try:
        return json.loads(text, parse_int=number, parse_float=number, parse_constant=constant)
    except _Refused as refused:
        raise InputError("", f"the text is not valid JSON: {refused}") from None
    except (json.JSONDecodeError, RecursionError, ValueError):
        raise InputError("", "the text is not valid JSON") from None


def echo(value: Any, limit: int = 80) -> str:
    """A value as it may appear in an error message: repr-quoted, escaped, at most ``limit`` chars.

    Escaping keeps lone surrogates and control characters out of the message (they would make
    it unencodable); the bound keeps a 1 MB name from being echoed back whole.
    """
    text = value if isinstance(value, str) else type(value).__name__
    if len(text) > limit:
        text = text[:limit] + "..."
    return ascii(text)[1:-1] if not text.isprintable() or text_problem(text) else text


def json_text(value: Any) -> str:
    """JSON text that is always valid UTF-8: non-ASCII kept readable, lone surrogates escaped."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if text.isascii() or text_problem(text) is None:
        return text
    return json.dumps(value, ensure_ascii=True, sort_keys=True)
