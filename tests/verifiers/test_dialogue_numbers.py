"""The dialogue-act reader's record numbers: any system's shape, narrowed by a declared one."""

from __future__ import annotations

import re
import time

import pytest

from enterprise_envs.verifiers.audit import corpus
from enterprise_envs.verifiers.dialogue import (
    GENERIC_NUMBERS,
    NUMBER,
    NUMBER_IN_TEXT,
    NumberShape,
    answers,
    record_numbers,
    value_regex,
    written_numbers,
)

KV = NumberShape.of({"KV": 5})
TKT = NumberShape.of({"TKT": 6, "CHG": 6})


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("Your ticket is INC0010041.", ["INC0010041"]),  # seven digits, as before
        ("Logged as KV00042, and REQ123 too.", ["KV00042", "REQ123"]),  # other widths
        ("It's INC-0010041 (or KV 00042).", ["INC0010041", "KV00042"]),  # apart, in capitals
        ("Quote #TKT:004512 when you call.", ["TKT004512"]),
        ("Open port 443 in 2024, room 101.", []),  # words and numbers are no record numbers
        ("Released on 2024-05-01 at 10:30.", []),
        ("inc 0010041", []),  # apart in lower case: only a declared prefix reads it
        ("ABCDEFG0010041 XY12", []),  # seven letters, two digits
    ],
)
def test_the_generic_reader_reads_any_systems_numbers(text: str, found: list[str]) -> None:
    assert record_numbers(text) == found


def test_a_declared_shape_reads_its_numbers_in_any_form_and_only_them() -> None:
    text = "kv 00042, KV-00043, KV0004, KV000444, INC0010041 and tkt-004512"
    assert record_numbers(text, KV) == ["KV00042", "KV00043"]
    assert record_numbers(text, TKT) == ["TKT004512"]
    assert written_numbers("KV00042 and kv 00043 and INC0010041", KV) == ["KV00042"]
    assert written_numbers("KV00042 and kv 00043 and INC0010041") == ["KV00042", "INC0010041"]
    assert NumberShape.of(["kv"]) == NumberShape.of({"KV": None})
    assert re.fullmatch(KV.pattern(), "kv - 00042", re.IGNORECASE)
    assert not re.fullmatch(KV.pattern(), "KV000421", re.IGNORECASE)
    assert not GENERIC_NUMBERS.declared and KV.declared


def test_a_value_of_any_system_is_a_number_in_any_written_form() -> None:
    assert NUMBER.fullmatch("KV00042") and NUMBER.fullmatch("REQ123") and NUMBER.fullmatch("INC0010041")
    assert not NUMBER.fullmatch("In Progress")
    pattern = value_regex("KV00042")
    assert pattern is not None and pattern.search("it's kv-00042") and not pattern.search("KV000421")
    assert answers(["Your entry is KV-00042."], "KV00042")
    assert not answers(["It's KV00042 or KV00043, not sure which."], "KV00042")  # a rival, same prefix
    assert answers(["Your entry is KV00042; your colleague's is KV00043."], "KV00042")


def _other_system(text: str) -> str:
    """The text with ITSM's numbers written as a made-up system's (new prefixes, five digits)."""
    prefixes = {"INC": "KV", "REQ": "KR", "RITM": "KRI", "CHG": "KC", "PRB": "KP", "KB": "KB"}

    def swap(match: re.Match[str]) -> str:
        letters = prefixes.get(match.group(1).upper())
        if letters is None:
            return match.group(0)
        letters = letters if match.group(1).isupper() else letters.lower()
        return letters + match.group(2) + match.group(3)[2:]

    return re.sub(r"(?<![^\W_])([A-Za-z]{2,6})([ \t\-_#:.]{0,3})(\d{7})(?![^\W_])", swap, text)


def test_the_number_corpus_in_another_systems_shape_scores_as_high() -> None:
    """Every labelled number message with its numbers rewritten as another system's (KV00041 for
    INC0010041, kv 82145 for inc 0082145): the reader keeps its precision and recall."""
    items = [
        {
            **item,
            "text": _other_system(item["text"]),
            "value": _other_system(item["value"]),
            "rivals": [_other_system(rival) for rival in item.get("rivals") or ()],
        }
        for item in corpus.load()
        if item["check"] == "number"
    ]
    assert len(items) >= 300
    score = corpus.score(items)["number"]
    wrong = [(kind, item["id"], item["text"]) for kind, item in corpus.mistakes(items)]
    assert score.precision == 1.0 and score.recall == 1.0, wrong


@pytest.mark.parametrize(
    "text",
    [
        "a" * 16_000,
        "ab1" * 5_333,
        "abcdef---" * 1_777,
        "abcdef 1234567890123-" * 761,
        "KV 00042 " * 1_777,
        "on 2024-05-01 " * 1_142,
    ],
)
def test_reading_numbers_is_linear(text: str) -> None:
    started = time.perf_counter()
    for shape in (GENERIC_NUMBERS, KV, TKT):
        record_numbers(text, shape)
    list(NUMBER_IN_TEXT.finditer(text))
    assert time.perf_counter() - started < 0.5
