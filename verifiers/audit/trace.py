"""Traces: what an episode did, action by action, and what each write changed.

The audit records a reference solution as a :class:`Run` (its actions, each tool result and,
for writes, the rows the call changed) and replays probe variants (lists of :class:`Action`)
as runs of their own. Everything here is plain data: the layer above plays the actions on a
scenario instance (see :class:`~enterprise_envs.verifiers.audit.soundness.Episodes`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from enterprise_envs.mocks._core.schema import Catalog
from enterprise_envs.verifiers.diff import StateDiff
from enterprise_envs.verifiers.verdict import Verdict

ActionKind = Literal["tool", "message", "end"]


@dataclass(frozen=True)
class Action:
    """One agent action: a tool call, a message to the user, or the end.

    Attributes:
        kind: ``tool``, ``message`` or ``end``.
        tool: Tool name (tool actions).
        arguments: Bound tool arguments (JSON data).
        text: The message (message actions).
        surface: Call the tool through this surface instead of the episode's (probes that write
            through a system's generic record API on a task-level surface); None: the episode's.
        as_user: Act as this world user (login name) instead of the agent (privilege probes).
        note: Why a probe added or changed this action (shown in reports).
    """

    kind: ActionKind
    tool: str = ""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""
    surface: str | None = None
    as_user: str | None = None
    note: str = ""

    @classmethod
    def call(cls, tool: str, arguments: Mapping[str, Any], **extra: Any) -> Action:
        """A tool call."""
        return cls("tool", tool=tool, arguments=dict(arguments), **extra)

    @classmethod
    def say(cls, text: str) -> Action:
        """A message to the user."""
        return cls("message", text=text)

    @classmethod
    def end(cls) -> Action:
        """The end of the episode."""
        return cls("end")

    def with_arguments(self, arguments: Mapping[str, Any], note: str = "") -> Action:
        """The same call with other arguments."""
        return replace(self, arguments=dict(arguments), note=note or self.note)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the env's action format, plus the audit's extras when set)."""
        if self.kind == "message":
            out: dict[str, Any] = {"message": self.text}
        elif self.kind == "end":
            out = {"end": True}
        else:
            out = {"tool": self.tool, "arguments": json.loads(json.dumps(self.arguments, default=str))}
            if self.surface:
                out["surface"] = self.surface
            if self.as_user:
                out["as_user"] = self.as_user
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Effect:
    """A row one write changed (relative to the state before that call).

    Attributes:
        table: Table.
        row_key: The row's key (its table's key field).
        op: ``insert``, ``update`` or ``delete`` relative to the episode's start.
        significant: The row counts as changed for the verifier (not derived-only bookkeeping).
        row: The row after the call (before it, for a delete).
    """

    table: str
    row_key: str
    op: str
    significant: bool
    row: Mapping[str, str]

    @property
    def key(self) -> tuple[str, str]:
        """(table, row key)."""
        return (self.table, self.row_key)


@dataclass(frozen=True)
class Step:
    """One played action and what came of it.

    Attributes:
        action: The action.
        status: The tool result's status (tool actions).
        body: The tool result's body (tool actions).
        write: The tool is a WRITE tool of the surface it was called on.
        effects: Rows the call changed (writes).
        denied: The access check refused the call.
    """

    action: Action
    status: int | None = None
    body: Any = None
    write: bool = False
    effects: tuple[Effect, ...] = ()
    denied: bool = False

    @property
    def changed(self) -> bool:
        """The call changed at least one row the verifier counts."""
        return any(effect.significant for effect in self.effects)


@dataclass(frozen=True)
class Run:
    """A played episode: its steps and the verdict of its end state.

    Attributes:
        surface: The episode's surface.
        steps: What was played, in order.
        verdict: The verdict (None when verification raised or a handler crashed).
        error: Why the episode is invalid (a mock handler error, a verifier error), else None.
        denials: Refused write attempts, as ``(tool, operation, table, row key)``.
        heard: What the simulated user said, in order (the opening first).
        seen: What the user had seen of the back-end at each of those turns (its notifications,
            as canonical JSON): where two runs' ``seen`` and conversation agree, so must ``heard``.
    """

    surface: str
    steps: tuple[Step, ...]
    verdict: Verdict | None
    error: str | None = None
    denials: tuple[tuple[str, str, str, str], ...] = ()
    heard: tuple[str, ...] = ()
    seen: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """The verdict passed (and the episode is valid)."""
        return self.error is None and self.verdict is not None and self.verdict.passed

    def actions(self) -> list[Action]:
        """The actions played, in order."""
        return [step.action for step in self.steps]

    def messages(self) -> list[str]:
        """What the agent told the user."""
        return [step.action.text for step in self.steps if step.action.kind == "message"]

    def fingerprint(self, ignore: Collection[str] = ()) -> tuple[Any, ...]:
        """What the verifier can see of this episode: changed rows, transcript, refusals, their order.

        Two runs with the same fingerprint get the same verdict (unless the expectation reads a
        field in ``ignore``: system timestamps, which an extra call shifts).
        """
        rows: tuple[Any, ...] = ()
        if self.verdict is not None:
            rows = _diff_fingerprint(self.verdict.diff, frozenset(ignore))
        # The runbook rules read when writes happened relative to what was said: their outcome
        # is what the verifier saw of the order.
        kept: tuple[Any, ...] = ()
        if self.verdict is not None:
            kept = tuple((r.label, r.passed) for r in self.verdict.requirements if r.kind == "policy")
        return (rows, tuple(self.messages()), self.denials, kept)

    def trajectory(self) -> list[dict[str, Any]]:
        """The actions as JSON-ready dicts, with each tool result's status."""
        out = []
        for step in self.steps:
            entry = step.action.to_dict()
            if step.action.kind == "tool":
                entry["status"] = step.status
                if step.denied:
                    entry["denied"] = True
            out.append(entry)
        return out


def _diff_fingerprint(diff: StateDiff, ignore: frozenset[str]) -> tuple[Any, ...]:
    out = []
    for change in sorted(diff.changes, key=lambda c: c.key):
        row = change.after if change.after is not None else change.before or {}
        values = tuple((n, row.get(n, "")) for n in change.significant if n not in ignore)
        out.append((*change.key, change.op, values))
    return tuple(out)


def clock_fields(catalog: Catalog) -> frozenset[str]:
    """Fields the system stamps with the time of a call.

    Read-only date-times, and those its catalog marks ``clock`` (UNIX seconds, a chat message's
    ``ts``). They move when a probe adds a call, so comparisons of runs leave them out.
    """
    return frozenset(
        spec.name
        for table in catalog.values()
        for spec in table.fields
        if spec.clock or (spec.kind == "datetime" and spec.read_only)
    )


def step_effects(previous: StateDiff, current: StateDiff) -> tuple[Effect, ...]:
    """Rows whose state differs between two cumulative diffs of one episode: one call's effect."""
    before = _rows_of(previous)
    effects = []
    for key, (op, row, significant) in _rows_of(current).items():
        if before.get(key) != (op, row, significant):
            effects.append(Effect(key[0], key[1], op, significant, dict(row)))
    return tuple(effects)


def _rows_of(diff: StateDiff) -> dict[tuple[str, str], tuple[str, tuple[tuple[str, str], ...], bool]]:
    out = {}
    for significant, changes in ((True, diff.changes), (False, diff.derived_only)):
        for change in changes:
            row = change.after if change.after is not None else change.before or {}
            out[change.key] = (change.op, tuple(sorted(row.items())), significant)
    return out


def claimed_rows(verdict: Verdict | None) -> set[tuple[str, str]]:
    """Rows the verdict's change entries claimed."""
    if verdict is None:
        return set()
    return {
        tuple(row)  # type: ignore[misc]
        for result in verdict.requirements
        if result.kind == "change"
        for row in result.rows
    }


def written_steps(run: Run) -> list[int]:
    """Indexes of the steps that changed something the verifier counts."""
    return [index for index, step in enumerate(run.steps) if step.write and step.changed]


def touched(run: Run) -> set[tuple[str, str]]:
    """Every row any step of the run changed (significant or not)."""
    return {effect.key for step in run.steps for effect in step.effects}


def as_actions(items: Sequence[Action | Step]) -> list[Action]:
    """Actions from actions or steps."""
    return [item.action if isinstance(item, Step) else item for item in items]
