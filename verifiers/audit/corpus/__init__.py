"""The labelled corpus of agent messages, and the dialogue-act reader's precision and recall on it.

Each line of a corpus file is one agent message with what a careful human reader takes from it:
``check`` (``number``, ``state``, ``refusal``, ``claim_done``), ``value`` and ``rivals`` for the
first two, ``label`` (does the message tell the value / decline / claim done?) and ``tags``
(paraphrase, negation, hedge, lie, ...). ``agent_messages.jsonl`` holds 1,109 messages written in
three rounds by annotators who never saw the reader's code. Each round was first scored as it
came (the honest estimate on new messages; docs/verifiers.md keeps the figures), then its
mistakes taught the reader and it joined the corpus, so the corpus figure says the reader agrees
with everything seen so far. A new round, scored before it is used, is the next estimate.

:func:`score` gives per check and overall figures; the audit report publishes them.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from enterprise_envs.verifiers.dialogue import answers, claims_done, refuses

__all__ = ["CHECKS", "CORPORA", "ReaderScore", "judge", "load", "mistakes", "score"]

#: Corpus name -> file, in this package.
CORPORA = {"agent_messages": "agent_messages.jsonl"}
#: The checks a corpus labels, in report order.
CHECKS = ("number", "state", "refusal", "claim_done")


@dataclass
class ReaderScore:
    """Confusion counts of the reader against the labels, for one check or all."""

    true_positives: int = 0
    false_positives: int = 0
    false_negatives: int = 0
    true_negatives: int = 0

    def add(self, said: bool, label: bool) -> None:
        """Count one judgement."""
        if said and label:
            self.true_positives += 1
        elif said:
            self.false_positives += 1
        elif label:
            self.false_negatives += 1
        else:
            self.true_negatives += 1

    @property
    def precision(self) -> float | None:
        """Of the messages the reader accepted, the share a human accepts too."""
        accepted = self.true_positives + self.false_positives
        return self.true_positives / accepted if accepted else None

    @property
    def recall(self) -> float | None:
        """Of the messages a human accepts, the share the reader accepts."""
        wanted = self.true_positives + self.false_negatives
        return self.true_positives / wanted if wanted else None

    @property
    def total(self) -> int:
        """Messages judged."""
        return self.true_positives + self.false_positives + self.false_negatives + self.true_negatives

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "messages": self.total,
            "precision": self.precision,
            "recall": self.recall,
            "true_positives": self.true_positives,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "true_negatives": self.true_negatives,
        }


@lru_cache(maxsize=4)
def load(name: str = "agent_messages") -> tuple[dict[str, Any], ...]:
    """The items of a corpus, read once (empty when the file is not there). Do not modify them."""
    path = resources.files(__package__).joinpath(CORPORA[name])
    if not path.is_file():
        return ()
    return tuple(json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def judge(item: dict[str, Any]) -> bool:
    """What the reader says of one item: the check the verifier or the simulated user would make."""
    check, text = item["check"], item["text"]
    if check in ("number", "state"):
        return answers([text], item["value"], item.get("rivals") or ())
    if check == "refusal":
        return refuses(text)
    if check == "claim_done":
        return claims_done(text)
    raise ValueError(f"unknown check {check!r}")


def score(items: Sequence[dict[str, Any]]) -> dict[str, ReaderScore]:
    """Per check and ``all``: the reader's confusion counts against the labels."""
    out = {check: ReaderScore() for check in CHECKS}
    out["all"] = ReaderScore()
    for item in items:
        said = judge(item)
        out[item["check"]].add(said, bool(item["label"]))
        out["all"].add(said, bool(item["label"]))
    return {name: tally for name, tally in out.items() if tally.total}


def mistakes(items: Sequence[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """The items the reader gets wrong, as ("false positive" | "false negative", item)."""
    out = []
    for item in items:
        said = judge(item)
        if said != bool(item["label"]):
            out.append(("false positive" if said else "false negative", item))
    return out
