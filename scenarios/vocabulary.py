"""The systems' words and record-number shape, handed to the simulated user as plain data.

The user package may not import a mock (observational closure), so what it must know of the
systems in play (what their records are called, which words only their API and admin screens use,
what their record numbers look like) reaches it as data on the persona
(:class:`~enterprise_envs.scenarios.users.persona.Vocabulary`), filled here from each system's
declared conventions (:class:`~enterprise_envs.mocks._core.conventions.Vocabulary` and
:class:`~enterprise_envs.mocks._core.conventions.Numbering`) and its catalog's number prefixes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from enterprise_envs.mocks._core.system import System

__all__ = ["persona_vocabulary"]


def persona_vocabulary(systems: Iterable[System]) -> dict[str, Any]:
    """The vocabulary of a persona whose scenario runs on ``systems`` (the primary one first).

    ``record`` is the primary system's word for a record; ``terms`` and ``nouns`` are every
    system's (the first system's noun wins for a table two systems share); ``numbers`` maps each
    record-number prefix of every catalog to its system's digit count.
    """
    record = ""
    terms: list[str] = []
    nouns: dict[str, str] = {}
    numbers: dict[str, int] = {}
    for system in systems:
        conventions = system.conventions
        declared = conventions.vocabulary.to_dict()
        record = record or str(declared["record"])
        terms += [str(term) for term in declared["terms"] if term not in terms]  # type: ignore[union-attr]
        for table, noun in dict(declared["nouns"]).items():  # type: ignore[call-overload]
            nouns.setdefault(str(table), str(noun))
        for spec in system.catalog.values():
            if spec.number_prefix:
                numbers.setdefault(spec.number_prefix.upper(), conventions.numbering.digits)
    return {"record": record or "record", "terms": terms, "nouns": nouns, "numbers": numbers}
