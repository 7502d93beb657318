"""What the simulated user's readers take from a persona's :class:`~.persona.Vocabulary`.

The user package names no system: a scenario instance hands each persona its systems' words and
record-number shape as data (:attr:`Persona.vocabulary <enterprise_envs.scenarios.users.persona.
Persona.vocabulary>`), and the guard, the fidelity metrics and the rule user's reading of record
numbers derive what they match from it here. What any help desk says ("ticket", "request",
"case", "record") is the generic default; a system adds its own.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from enterprise_envs.scenarios.users.persona import Vocabulary
from enterprise_envs.verifiers.dialogue import GENERIC_NUMBERS, NumberShape

__all__ = [
    "GENERIC_RECORD_WORDS",
    "code_terms",
    "number_shape",
    "record_reference",
    "record_words",
    "terms",
]

#: What any help desk calls a record, whatever the system.
GENERIC_RECORD_WORDS: tuple[str, ...] = ("ticket", "request", "case", "record")

#: A record number of any system written together (``TKT001234``, ``REQ123``), as a pattern source.
_ANY_NUMBER = r"[A-Za-z]{2,6}\d{3,}"


def record_words(vocabulary: Vocabulary) -> tuple[str, ...]:
    """The words an agent uses for a record, lower case.

    The generic ones, the systems' word, table names that are plain words and what people call
    the tables' records, in that order.
    """
    return _record_words(vocabulary.key())


@lru_cache(maxsize=256)
def _record_words(key: tuple[Any, ...]) -> tuple[str, ...]:
    record, _terms, nouns, _numbers = key
    words = [*GENERIC_RECORD_WORDS, record]
    for table, noun in nouns:
        words += [table, noun] if re.fullmatch(r"[A-Za-z]+", table) else [noun]
    return tuple(dict.fromkeys(" ".join(word.lower().split()) for word in words if word.strip()))


def number_shape(vocabulary: Vocabulary) -> NumberShape:
    """The systems' record-number shape (the generic one when the vocabulary declares none)."""
    return NumberShape.of(vocabulary.numbers) if vocabulary.numbers else GENERIC_NUMBERS


def terms(vocabulary: Vocabulary) -> tuple[str, ...]:
    """The systems' own terms (API and admin-screen words), lower case, each once."""
    return _terms(vocabulary.key())


@lru_cache(maxsize=256)
def _terms(key: tuple[Any, ...]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(" ".join(term.lower().split()) for term in key[1] if term.strip()))


def code_terms(vocabulary: Vocabulary) -> tuple[str, ...]:
    """The systems' terms written as code (an underscore in them: ``record_id``, ``query_``)."""
    return tuple(term for term in terms(vocabulary) if "_" in term)


def record_reference(vocabulary: Vocabulary) -> str:
    """A pattern source for a reference to a record: a record word, or a record number.

    Any system's number written together, and the declared systems' in any written form.
    """
    return _record_reference(vocabulary.key())


@lru_cache(maxsize=256)
def _record_reference(key: tuple[Any, ...]) -> str:
    words = sorted(_record_words(key), key=len, reverse=True)
    alternatives = [r"\s+".join(re.escape(part) for part in word.split()) for word in words]
    numbers = dict(key[3])
    if numbers:
        alternatives.append(NumberShape.of(numbers).pattern())
    alternatives.append(_ANY_NUMBER)
    return "(?:" + "|".join(alternatives) + ")"
