"""Alternative solutions generated from a scenario's oracle: valid work the verdict must accept.

Probes attack the false-positive side; these attack the other one. Each family is a pure
function ``family(oracle, ctx) -> list[Variant]`` like a probe's, and every variant must pass:
a failure is a false negative (valid work rejected) and fails the scenario's audit.

- ``paraphrase``: each message that tells a communicate check's value replaced by a labelled agent
  message of the corpus that tells it (``corpus/agent_messages.jsonl``, true items of the
  check's kind, the value put in); what the message told for other checks is kept beside it. A
  refusal is replaced by a corpus refusal.
- ``number_format``: a record number written with a dash, lower case with a space, or after a
  ``#`` (PRE-0001234, pre 0001234, #PRE0001234).
- ``extra_read``: the oracle's first read repeated at the start and again before it ends.
- ``extra_question``: a harmless question to the caller first.
- ``reordered``: two adjacent reads swapped (their arguments are fixed, so neither needs the
  other).

Other surfaces' reference solutions (REST for typed) are alternatives too (the audit plays them).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from enterprise_envs.verifiers.audit import corpus
from enterprise_envs.verifiers.audit.context import ProbeContext
from enterprise_envs.verifiers.audit.probes import Variant, claimed_rows_of
from enterprise_envs.verifiers.audit.trace import Action, Run
from enterprise_envs.verifiers.dialogue import NUMBER, answers, refuses, value_regex

__all__ = ["ALTERNATIVES", "alternatives"]

#: Paraphrases tried per communicate check and seed.
PARAPHRASES = 3
#: A harmless question an agent may ask first.
QUESTION = "Before we start, is this chat the best way to reach you if we need you later?"
#: What stands in for a value moved out of a message (the message still reads), by check kind; a
#: number's stand-in names the record as the system's users call it (its vocabulary).
_NEUTRAL = {"number": "your {record}", "state": "being looked at"}

Alternative = Callable[[Run, ProbeContext], list[Variant]]


def _checks(oracle: Run, ctx: ProbeContext) -> list[tuple[str, str, str, tuple[str, ...]]]:
    """(label, kind, value, rivals) of each communicate check, values resolved from the oracle."""
    claimed = claimed_rows_of(oracle, ctx)
    out = []
    for check in ctx.expectation.communicate:
        if check.act == "refusal":
            out.append((check.label, "refusal", "", ()))
            continue
        for value in check.any_of or [check.value or ""]:
            ref = check.entry_ref() if check.value else None
            if ref is not None:
                value = claimed.get(ref[0], {}).get(ref[1], "")
            if value:
                kind = "number" if NUMBER.fullmatch(value) else "state"
                out.append((check.label, kind, value, tuple(check.rivals or ())))
    return out


def _sub_outside(pattern: re.Pattern[str], text: str, replacement: str, protected: Sequence[str]) -> str:
    """``pattern.sub`` that leaves alone the places where another check's value is said.

    A record number can sit inside another value the agent must tell (a chat channel named
    ``inc-inc0010361-p1-outage`` after the incident): rewriting it there would change that value.
    """
    folded = text.casefold()
    spans = [
        (start, start + len(value))
        for value in protected
        if value
        for start in (m.start() for m in re.finditer(re.escape(value.casefold()), folded))
    ]

    def swap(match: re.Match[str]) -> str:
        inside = any(start <= match.start() and match.end() <= end for start, end in spans)
        return match.group(0) if inside else replacement

    return pattern.sub(swap, text)


def _corpus_texts(kind: str, value: str, label: str) -> list[str]:
    """True corpus messages of a check kind, the value put in, in an order fixed by the check."""
    items = [item for item in corpus.load() if item["check"] == kind and item["label"]]
    if kind == "state":
        items = [item for item in items if item["value"].casefold() == value.casefold()]
    random.Random(f"{label}:{value}").shuffle(items)
    texts = []
    for item in items[:PARAPHRASES]:
        if kind == "number":
            pattern = value_regex(item["value"])
            assert pattern is not None
            texts.append(pattern.sub(lambda _m: value, item["text"]))
        else:
            texts.append(item["text"])
    return texts


def paraphrase(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """Each value-telling (or refusing) message said as a labelled corpus message says it."""
    actions = tuple(oracle.actions())
    out = []
    checks = _checks(oracle, ctx)
    for label, kind, value, rivals in checks:
        if kind == "refusal":
            where = [i for i, a in enumerate(actions) if a.kind == "message" and refuses(a.text)]
            for number, text in enumerate(_corpus_texts("refusal", "", label)):
                new = tuple(Action.say(text) if i in where else a for i, a in enumerate(actions))
                out.append(Variant("paraphrase", f"paraphrase[{label}:{number + 1}]", new))
            continue
        pattern = value_regex(value)
        where = [i for i, a in enumerate(actions) if a.kind == "message" and answers([a.text], value, rivals)]
        if pattern is None or not where:
            continue
        others = [(v, r) for other, k, v, r in checks if other != label and k != "refusal"]
        for number, text in enumerate(_corpus_texts(kind, value, label)):
            new: list[Action] = []
            for i, action in enumerate(actions):
                if i not in where:
                    new.append(action)
                    continue
                # The message is said the corpus's way; what it also told for other checks stays.
                stand_in = _NEUTRAL[kind].format(record=ctx.conventions.vocabulary.record)
                rest = _sub_outside(pattern, action.text, stand_in, [v for v, _r in others])
                if any(answers([rest], v, r) for v, r in others):
                    new.append(Action.say(rest))
                new.append(Action.say(text))
            out.append(Variant("paraphrase", f"paraphrase[{label}:{number + 1}]", tuple(new)))
    return out


def number_format(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """Each record number a check wants told, written in the other forms people type."""
    actions = tuple(oracle.actions())
    out = []
    checks = _checks(oracle, ctx)
    for label, kind, value, _rivals in checks:
        found = NUMBER.fullmatch(value) if kind == "number" else None
        pattern = value_regex(value)
        if found is None or pattern is None:
            continue
        prefix, digits = found.group(1), found.group(2)
        # Values other checks want told keep their own spelling (a channel named after the number).
        protected = [
            other for _l, other_kind, other, _r in checks if other_kind != "refusal" and other != value
        ]
        for form in (f"{prefix}-{digits}", f"{prefix.lower()} {digits}", f"#{prefix}{digits}"):
            new = tuple(
                Action.say(_sub_outside(pattern, a.text, form, protected)) if a.kind == "message" else a
                for a in actions
            )
            if new != actions:
                out.append(Variant("number_format", f"number_format[{label}:{form}]", new))
    return out


def _reads(oracle: Run, ctx: ProbeContext) -> list[int]:
    return [
        i
        for i, step in enumerate(oracle.steps)
        if step.action.kind == "tool" and not step.write and step.status is not None and step.status < 300
    ]


def extra_read(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """The oracle's first successful read done again, at the start and before the end."""
    reads = _reads(oracle, ctx)
    if not reads:
        return []
    actions = tuple(oracle.actions())
    read = actions[reads[0]]
    end = len(actions) - 1 if actions and actions[-1].kind == "end" else len(actions)
    new = (read, *actions[:end], read, *actions[end:])
    return [Variant("extra_read", f"extra_read[{read.tool}]", new)]


def extra_question(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """A harmless question to the caller before the oracle starts."""
    return [Variant("extra_question", "extra_question", (Action.say(QUESTION), *oracle.actions()))]


def reordered(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """Two adjacent reads swapped."""
    reads = set(_reads(oracle, ctx))
    actions = list(oracle.actions())
    for i in range(len(actions) - 1):
        if i in reads and i + 1 in reads and actions[i] != actions[i + 1]:
            new = [*actions[:i], actions[i + 1], actions[i], *actions[i + 2 :]]
            return [
                Variant("reordered", f"reordered[{i}:{actions[i].tool}<->{actions[i + 1].tool}]", tuple(new))
            ]
    return []


#: Every alternative family, in the order reports list them.
ALTERNATIVES: dict[str, Alternative] = {
    "paraphrase": paraphrase,
    "number_format": number_format,
    "extra_read": extra_read,
    "extra_question": extra_question,
    "reordered": reordered,
}


def alternatives(oracle: Run, ctx: ProbeContext) -> list[Variant]:
    """Every alternative of every family."""
    return [variant for family in ALTERNATIVES.values() for variant in family(oracle, ctx)]
