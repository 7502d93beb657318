"""Incident journals: work notes, comments, caller replies and close notes.

Every line is chosen to fit the incident's topic and situation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import cache

from enterprise_envs.mocks.itsm import world_data as bank
from enterprise_envs.mocks.itsm.world.common import (
    INCIDENT_CLOSE_CODES,
    MINUTE,
    Person,
    Row,
    Task,
    World,
    between,
    fill,
    stamps,
)
from enterprise_envs.mocks.itsm.world.people import member_of

#: How many journal entries an incident in each state may have (drawn uniformly from the tuple).
#: Open work carries the notes; old closed incidents keep fewer, which keeps the default world small.
_JOURNAL_COUNTS = {
    "1": (0, 0, 0, 1),
    "2": (0, 1, 1, 2),
    "3": (1, 1, 2),
    "6": (1, 1, 2),
    "7": (0, 0, 1, 1),
    "8": (0, 0, 1),
}

#: Journal lines about a situation only fit incidents in it (situation -> what such a line says).
_SITUATIONAL = {
    "duplicate": re.compile(r"\bduplicate\b", re.IGNORECASE),
    "problem": re.compile(r"\b(problem record|known problem)\b", re.IGNORECASE),
    "vendor": re.compile(r"\bvendor\b", re.IGNORECASE),
    "change": re.compile(r"\bchange\b", re.IGNORECASE),
    "no_response": re.compile(r"\bno response\b", re.IGNORECASE),
    "done": re.compile(r"\bhas been (resolved|restored)\b", re.IGNORECASE),
}
#: Content words shared with a symptom that make a journal line about it (see _on_topic).
_TOPIC_OVERLAP = 2
#: Filler words ignored when matching journal lines to symptoms.
_STOP_WORDS = frozenset(
    {
        "able", "about", "after", "again", "all", "also", "and", "any", "applied", "apply", "are", "back",
        "been", "before", "being", "but", "caller", "callers", "can", "cannot", "confirmed", "could", "day",
        "does", "down", "each", "every", "first", "fixed", "for", "from", "get", "got", "group", "had", "has",
        "have", "help", "into", "issue", "issues", "its", "just", "keeps", "know", "let", "like", "more",
        "morning", "name", "need", "needs", "new", "not", "now", "number", "off", "one", "only", "other",
        "our", "out", "over", "per", "please", "same", "see", "should", "since", "some", "still", "than",
        "thank", "thanks", "that", "the", "their", "them", "then", "there", "they", "this", "time", "today",
        "tried", "try", "two", "under", "user", "users", "was", "were", "what", "when", "while", "will",
        "with", "work", "working", "would", "you", "your",
    }
)  # fmt: skip


def _situation(task: Task) -> tuple[str, ...]:
    """The situations an incident is in that some journal lines speak of (see _SITUATIONAL)."""
    row = task.row
    flags = {
        "duplicate": bool(row.get("parent_incident")),
        "problem": bool(row.get("problem_id")),
        "vendor": row.get("hold_reason") == "4",
        "change": bool(row.get("rfc")) or row.get("close_code") == "Resolved by change",
        "no_response": row.get("close_code") == "No resolution provided",
        "done": task.state in ("6", "7"),
    }
    return tuple(name for name, on in flags.items() if on)


def _journal_values(task: Task) -> dict[str, str]:
    """Values for the journal placeholders of one incident."""
    assert task.caller is not None
    return {"caller_first_name": task.caller.first_name, "group": task.group, "number": task.row["number"]}


def finish_incident(world: World, task: Task) -> list[Row]:
    """Close notes (they may cite the number), journal entries and the update stamps."""
    rng, row = world.rng, task.row
    values = _journal_values(task)
    situation = _situation(task)
    if task.state in ("6", "7"):
        row["close_notes"] = fill(
            rng.choice(_close_notes_for(row["close_code"], task.topic, situation)), values
        )
    entries = _journal_entries(world, task, values, situation)
    assert task.caller is not None
    opener = task.opener or task.caller
    last, actor = task.opened, opener
    for when, person, _ in entries:
        last, actor = when, person
    if task.updated > last:  # reopened by the caller after the last note
        last, actor = task.updated, task.caller
    for when in (task.resolved, task.closed):
        if when and when >= last:
            last, actor = when, task.assignee or actor
    steps = {"1": 0, "2": 1, "3": 2, "6": 2, "7": 3, "8": 1}[task.state] + int(row["reassignment_count"])
    row.update(stamps(task.opened, opener.user_name, last, actor.user_name, 1 + steps + len(entries)))
    return [
        {
            "sys_id": world.sys_id(),
            "element": element,
            "element_id": row["sys_id"],
            "name": "incident",
            "value": text,
            **stamps(when, person.user_name),
        }
        for when, person, (element, text) in entries
    ]


_Entry = tuple[int, Person, tuple[str, str]]


def _journal_entries(
    world: World, task: Task, values: Mapping[str, str], situation: tuple[str, ...]
) -> list[_Entry]:
    """Work notes and comments on an incident, in time order, between opening and its end.

    The worker (IT staff) writes work notes and the service desk's comments; some comments are
    the caller's own replies, from the caller-reply bank. An incident awaiting the caller ends
    with a comment to them.
    """
    rng = world.rng
    n = rng.choice(_JOURNAL_COUNTS[task.state])
    if n == 0:
        return []
    end = min(task.resolved or task.closed or world.now, world.now) - MINUTE
    times = sorted(between(rng, task.opened + MINUTE, end) for _ in range(n))
    worker = task.assignee or member_of(world, task.group)
    assert task.caller is not None
    agent_says = _journal_lines("comments", task.topic, situation)
    caller_says = _journal_lines("replies", task.topic, situation)
    work_notes = _journal_lines("work_notes", task.topic, situation)
    entries: list[_Entry] = []
    for index, when in enumerate(times):
        to_caller = task.state == "3" and index == n - 1 and task.row.get("hold_reason") == "1"
        if to_caller or rng.random() < 0.4:
            if not to_caller and caller_says and rng.random() < 0.3:
                entries.append((when, task.caller, ("comments", fill(rng.choice(caller_says), values))))
            else:
                entries.append((when, worker, ("comments", fill(rng.choice(agent_says), values))))
        else:
            entries.append((when, worker, ("work_notes", fill(rng.choice(work_notes), values))))
    return entries


def _allowed(text: str, situation: tuple[str, ...]) -> bool:
    """False for a line about a situation the incident is not in (a duplicate, a vendor case)."""
    return all(name in situation for name in _situations_named(text))


@cache
def _situations_named(text: str) -> tuple[str, ...]:
    """The situations a journal line speaks of (see _SITUATIONAL)."""
    return tuple(name for name, pattern in _SITUATIONAL.items() if pattern.search(text))


@cache
def _content_words(text: str) -> frozenset[str]:
    """The words of a text that say what it is about (placeholders and filler words dropped)."""
    plain = re.sub(r"\{[a-z_]+\}", " ", text.lower())
    return frozenset(w for w in re.findall(r"[a-z][a-z0-9]+", plain) if len(w) >= 3 and w not in _STOP_WORDS)


@cache
def _symptom_words() -> tuple[frozenset[str], ...]:
    """Content words of each symptom template (its text, subcategory and keywords)."""
    return tuple(
        _content_words(f"{spec['short_description']} {spec['description']} {spec['subcategory']}")
        | {word.lower() for word in spec["keywords"]}
        for spec in bank.SYMPTOMS
    )


def _on_topic(texts: Sequence[str], topic: int) -> list[str]:
    """Lines that fit a symptom: ones sharing two or more content words with it, and generic ones.

    The bank's journal lines mix generic ones ("Remote session established") with ones about a
    particular fault ("Mailbox at 49.7 GB"); a line that shares that little with every symptom
    is generic. Word overlap is a rough test, but it keeps most notes on topic.
    """
    mine = _symptom_words()[topic]
    return [text for text in texts if len(_content_words(text) & mine) >= _TOPIC_OVERLAP or _is_generic(text)]


@cache
def _is_generic(text: str) -> bool:
    """True for a journal line that is about no symptom in particular."""
    words = _content_words(text)
    return all(len(words & topic) < _TOPIC_OVERLAP for topic in _symptom_words())


#: The bank's journal lines by kind: internal work notes, the service desk's comments to the
#: caller, and the caller's own replies.
_JOURNAL_BANKS: dict[str, tuple[str, ...]] = {
    "work_notes": bank.WORK_NOTE_TEMPLATES,
    "comments": bank.COMMENT_TEMPLATES,
    "replies": bank.CALLER_REPLY_TEMPLATES,
}


@cache
def _journal_lines(kind: str, topic: int, situation: tuple[str, ...]) -> tuple[str, ...]:
    """Bank lines of one kind (work_notes, comments, replies) that fit an incident (cached)."""
    texts = _JOURNAL_BANKS[kind]
    fitting = tuple(_on_topic([t for t in texts if _allowed(t, situation)], topic))
    return fitting or texts


@cache
def _close_notes_for(code: str, topic: int, situation: tuple[str, ...]) -> tuple[str, ...]:
    """Close notes that fit a resolution code, a symptom and the incident's situation.

    Notes that name a resolution code ("User error: ...") go only with that code. When the
    bank has little that fits, a note citing the symptom's knowledge article is added.
    """
    notes = [note for note in bank.CLOSE_NOTES_TEMPLATES if _allowed(note, situation)]
    named = [note for note in notes if code.lower() in note.lower()]
    if named and code in ("Duplicate", "Resolved by change"):
        return tuple(named)
    others = [other.lower() for other in INCIDENT_CLOSE_CODES if other != code]
    fitting = _on_topic([note for note in notes if not any(other in note.lower() for other in others)], topic)
    kb_topic = bank.SYMPTOMS[topic].get("kb_topic")
    if kb_topic in bank.KB_TOPICS and len(fitting) < 3:
        article = bank.KB_TOPICS[kb_topic]["short_description"]
        fitting.append(
            f'Followed the knowledge article "{article}" with {{caller_first_name}}; confirmed working.'
        )
    return tuple(fitting or bank.CLOSE_NOTES_TEMPLATES)
