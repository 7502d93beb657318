"""Verification: match the diff against an expectation and explain the outcome.

Semantics:

- each required change is claimed by its own rows (a row satisfies at most one entry), within
  the entry's count;
- every changed row must be claimed by a ``change`` or an ``allow`` entry; anything else is
  collateral damage and fails the verdict by name (so a refusal scenario, with no ``change``
  entries, fails on any write);
- a ``forbid`` entry matching any changed row fails the verdict by name, even if an ``allow``
  entry would have claimed it;
- every ``communicate`` check must find a message that tells its value (asserted, with no rival
  offered: :func:`~enterprise_envs.verifiers.dialogue.answers`) or, for ``act = "refusal"``, one
  that declines (:func:`~enterprise_envs.verifiers.dialogue.refuses`).

Whether rows can be claimed so that all of this holds is decided exactly, by a search over
assignments of changed rows to entries (small: a handful of entries, tens of rows), so the
verdict never depends on the order in which the agent wrote. The search has a node budget;
exceeding it raises :class:`VerifierError`, which makes the episode invalid rather than failed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.mocks._core.inputs import echo
from enterprise_envs.mocks._core.store import Store
from enterprise_envs.verifiers.dialogue import answers, refuses
from enterprise_envs.verifiers.diff import RowChange, StateDiff, compute_diff
from enterprise_envs.verifiers.expectations import AllowEntry, ChangeEntry, CommunicateCheck, Expectation
from enterprise_envs.verifiers.policy import Episode, Policy, check_policy
from enterprise_envs.verifiers.predicates import Claims, row_failure
from enterprise_envs.verifiers.transcript import mentions

#: Search nodes before the verifier gives up (a scenario this ambiguous needs rewriting).
SEARCH_BUDGET = 200_000
ALLOW = -1


class VerifierError(RuntimeError):
    """The verifier could not decide (its own fault, not the agent's)."""


@dataclass(frozen=True)
class RequirementResult:
    """The outcome of one requirement (a change entry, a forbid entry or a communicate check)."""

    label: str
    kind: str
    passed: bool
    evidence: str
    rows: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "label": self.label,
            "kind": self.kind,
            "passed": self.passed,
            "evidence": self.evidence,
            "rows": [list(row) for row in self.rows],
        }


@dataclass(frozen=True)
class Verdict:
    """Whether the end state is what the scenario asked for, and why.

    Attributes:
        passed: Every requirement holds and nothing unexplained changed.
        score: 1.0 or 0.0.
        requirements: One result per change entry, forbid entry and communicate check.
        unexplained: Changed rows no entry claims (collateral damage).
        diff: The state diff judged.
    """

    passed: bool
    requirements: tuple[RequirementResult, ...]
    unexplained: tuple[RowChange, ...]
    diff: StateDiff = field(repr=False)

    @property
    def score(self) -> float:
        """1.0 for a pass, else 0.0."""
        return 1.0 if self.passed else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "passed": self.passed,
            "score": self.score,
            "requirements": [result.to_dict() for result in self.requirements],
            "unexplained": [change.to_dict() for change in self.unexplained],
            "diff": self.diff.summary(),
        }

    def to_json(self) -> str:
        """Deterministic JSON."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def to_text(self) -> str:
        """Readable rendering for logs and the audit's --explain."""
        lines = [f"verdict: {'PASS' if self.passed else 'FAIL'}"]
        for result in self.requirements:
            lines.append(
                f"  [{'ok' if result.passed else 'FAIL'}] {result.kind} {result.label}: {result.evidence}"
            )
        for change in self.unexplained:
            lines.append(
                f"  [FAIL] unexplained {change.op} {change.label()}: {', '.join(change.significant)}"
            )
        lines.append("diff:\n" + "\n".join("  " + line for line in self.diff.to_text().splitlines()))
        return "\n".join(lines)


def verify(
    store: Store,
    expectation: Expectation,
    transcript: Sequence[str] = (),
    denials: Sequence[Any] = (),
    refusals: Sequence[Any] = (),
    policy: Policy | None = None,
    episode: Episode | None = None,
) -> Verdict:
    """Judge the back-end's current state (against the change log's start) and the transcript.

    Args:
        store: The env's store; its change log defines the start state.
        expectation: A bound expectation (params already substituted).
        transcript: What the agent said to the user, one string per message.
        denials: Write attempts the access check refused (``Backend.denials``): each fails the
            verdict unless tolerated, and ``forbid`` entries with ``attempted = true`` match them.
        refusals: Write attempts refused otherwise (``Backend.refusals``: validation, a data
            policy): ``forbid`` entries with ``attempted = true`` match them too, whatever refused
            the write; on their own they fail nothing.
        policy: The system's runbook rules (with the scenario's additions), checked on the
            episode when given: each is a requirement of kind ``policy``.
        episode: The ordered conversation and writes the policy reads.
    """
    verdict = judge(
        compute_diff(store),
        expectation,
        transcript,
        [_attempt(store, denial) for denial in denials],
        [_attempt(store, refusal) for refusal in refusals],
    )
    if policy is None or episode is None:
        return verdict
    changes = [result for result in verdict.requirements if result.kind == "change"]
    pairs = list(zip(expectation.change, changes, strict=True))
    claimed = {entry.id: result.rows for entry, result in pairs if entry.id}
    about = [row for _entry, result in pairs for row in result.rows]
    starts = {change.key: change.before for change in (*verdict.diff.changes, *verdict.diff.derived_only)}
    kept = [
        RequirementResult(result.label, "policy", result.passed, result.evidence)
        for result in check_policy(policy, episode, store, claimed, about, starts)
    ]
    return Verdict(
        verdict.passed and all(result.passed for result in kept),
        (*verdict.requirements, *kept),
        verdict.unexplained,
        verdict.diff,
    )


_OPS = {"create": "insert", "write": "update", "delete": "delete"}


def _attempt(store: Store, denial: Any) -> RowChange:
    """A refused write as a row the forbid predicates can read.

    The target row, unchanged; for a refused create, the row the client wanted (its values).
    """
    # ``Denial.sys_id`` is the backend's name for the target row's key, whatever the system calls it.
    key = denial.sys_id
    row = store.get(denial.table, key) if key else None
    if row is None and getattr(denial, "values", None):
        row = {
            name: value if isinstance(value, str) else json.dumps(value)
            for name, value in denial.values.items()
        }
    op = _OPS.get(denial.operation, "update")
    spec = store.catalog.get(denial.table)
    return RowChange(
        denial.table,
        key,
        op,  # type: ignore[arg-type]
        row,
        row,
        {},
        (),
        f"attempted by {denial.tool}",
        key_field=spec.key_field if spec is not None else "",
    )


def judge(
    diff: StateDiff,
    expectation: Expectation,
    transcript: Sequence[str] = (),
    attempts: Sequence[RowChange] = (),
    refused: Sequence[RowChange] = (),
) -> Verdict:
    """Judge a computed diff (see :func:`verify`).

    ``attempts`` are the access check's refusals, ``refused`` the other refused writes.
    """
    # A canonical order, so which row each entry claims never depends on the order of writes.
    rows = sorted(diff.changes, key=lambda change: (change.table, change.op, change.row_key))
    entries = expectation.change
    candidates = [[e for e, entry in enumerate(entries) if _matches(entry, change)] for change in rows]
    allowable = [
        any(_allowed(allow, change) for allow in expectation.allow if not allow.attempted) for change in rows
    ]
    search = _Search(rows, expectation, candidates, allowable, transcript)
    assignment = search.run()
    passed_claims = assignment is not None
    if assignment is None:
        assignment = _best_effort(rows, expectation, candidates, allowable)
    results: list[RequirementResult] = []
    claims = _claims(rows, assignment, len(entries))
    claimed_keys = _claimed_ids(rows, entries, claims, _value_refs(expectation))
    for e, entry in enumerate(entries):
        results.append(_entry_result(entry, [rows[i] for i in claims[e]], rows, claimed_keys))
    forbidden = []
    for forbid in expectation.forbid:
        hits = [change for change in rows if _allowed(forbid, change, claimed_keys)]
        if forbid.attempted:
            hits += [attempt for attempt in (*attempts, *refused) if _allowed(forbid, attempt, claimed_keys)]
        forbidden.append(bool(hits))
        evidence = "; ".join(f"{change.op} {change.label()}" for change in hits) or "untouched"
        results.append(
            RequirementResult(forbid.label, "forbid", not hits, evidence, tuple(c.key for c in hits))
        )
    # A refused write changed nothing, but trying it was the policy's doing: it fails the verdict
    # unless the scenario tolerates it (an allow entry with attempted = true).
    tolerated = [allow for allow in expectation.allow if allow.attempted]
    for attempt in attempts:
        if not any(_allowed(allow, attempt, claimed_keys) for allow in tolerated):
            label = f"{attempt.op} on {attempt.table}"
            evidence = f"refused {attempt.op} {attempt.label()}"
            results.append(RequirementResult(label, "attempt", False, evidence, (attempt.key,)))
    results.extend(_bounded_allows(expectation, rows, assignment, claimed_keys))
    claimed_rows = {entry.id: [rows[i] for i in claims[e]] for e, entry in enumerate(entries) if entry.id}
    told = [_communicate_result(check, claimed_rows, transcript) for check in expectation.communicate]
    results.extend(told)
    unexplained = tuple(rows[i] for i, owner in enumerate(assignment) if owner is None)
    uncaused = _uncaused(diff)
    passed = (
        passed_claims and not uncaused and not any(forbidden) and all(result.passed for result in results)
    )
    return Verdict(passed, tuple(results), unexplained + uncaused, diff)


def _bounded_allows(
    expectation: Expectation, rows: list[RowChange], assignment: list[int | None], claims: Claims
) -> list[RequirementResult]:
    """Allow entries with ``most``: more unclaimed rows than that (no unbounded entry covering them) fail."""
    allows = [allow for allow in expectation.allow if not allow.attempted]
    unbounded = [allow for allow in allows if allow.most is None]
    results = []
    for allow in allows:
        if allow.most is None:
            continue
        covered = [
            rows[i]
            for i, owner in enumerate(assignment)
            if owner == ALLOW
            and _allowed(allow, rows[i], claims)
            and not any(_allowed(other, rows[i], claims) for other in unbounded)
        ]
        if len(covered) > allow.most:
            evidence = f"{len(covered)} rows, at most {allow.most}: " + "; ".join(
                f"{change.op} {change.label()}" for change in covered
            )
            results.append(
                RequirementResult(allow.label, "allow", False, evidence, tuple(c.key for c in covered))
            )
    return results


def _uncaused(diff: StateDiff) -> tuple[RowChange, ...]:
    """Bookkeeping-only changes no significant change explains (a child count with no child moved).

    A change to derived fields alone is a consequence of another change: a row whose parent link,
    journal or approval changed points at the row whose count or stamp moved. One that no changed
    row refers to (before or after) was caused by nothing the verdict judged.
    """
    if not diff.derived_only:
        return ()
    referred = {
        value
        for change in diff.changes
        for side in (change.before, change.after)
        if side is not None
        for value in side.values()
    }
    return tuple(change for change in diff.derived_only if change.row_key not in referred)


# -- matching ---------------------------------------------------------------------------------


def _matches(entry: ChangeEntry, change: RowChange) -> bool:
    """Could this row satisfy this entry (references to other entries decided later)?"""
    return (
        entry.table == change.table
        and entry.op == change.op
        and row_failure(entry.predicates(), change) is None
        and not entry.extra_changes(change)
    )


def _allowed(entry: AllowEntry, change: RowChange, claims: Claims = None) -> bool:
    """Does an allow (or forbid) entry cover this row? References are deferred when claims is None."""
    return (
        entry.table == change.table
        and change.op in entry.ops()
        and row_failure(entry.predicates(), change, claims) is None
        and not entry.extra_changes(change)
    )


def _value_refs(expectation: Expectation) -> frozenset[tuple[str, str]]:
    """(entry id, field) pairs some entry compares with (``same_as``): read once per verdict."""
    matchers = [*expectation.change, *expectation.allow, *expectation.forbid]
    return frozenset(ref for matcher in matchers for ref in matcher.value_refs())


def _claimed_ids(
    rows: list[RowChange],
    entries: list[ChangeEntry],
    claims: list[list[int]],
    value_refs: frozenset[tuple[str, str]] = frozenset(),
) -> dict[str, frozenset[str]]:
    """Row keys claimed per entry id, and the claimed values ``same_as`` reads, keyed "id.field"."""
    found = {
        entry.id: frozenset(rows[i].row_key for i in claims[e]) for e, entry in enumerate(entries) if entry.id
    }
    for e, entry in enumerate(entries):
        for entry_id, name in value_refs:
            if entry_id == entry.id:
                found[f"{entry_id}.{name}"] = frozenset(rows[i].value(name, "after") for i in claims[e])
    return found


class _Search:
    """Backtracking over rows: each goes to a compatible entry with room, or to allow."""

    def __init__(
        self,
        rows: list[RowChange],
        expectation: Expectation,
        candidates: list[list[int]],
        allowable: list[bool],
        transcript: Sequence[str],
    ) -> None:
        self.rows, self.entries, self.candidates, self.allowable = (
            rows,
            expectation.change,
            candidates,
            allowable,
        )
        # Checks of literal values do not depend on claims: judged once, outside the search.
        self.communicate = [check for check in expectation.communicate if check.entry_ref() is not None]
        self.allow = [allow for allow in expectation.allow if not allow.attempted]
        self.transcript = transcript
        entries = self.entries
        self.bounds = [entry.bounds() for entry in entries]
        # remaining[i][e]: rows at index >= i that entry e could still take.
        self.remaining = [[0] * len(entries) for _ in range(len(rows) + 1)]
        for i in range(len(rows) - 1, -1, -1):
            self.remaining[i] = list(self.remaining[i + 1])
            for e in candidates[i]:
                self.remaining[i][e] += 1
        self.nodes = 0
        self.has_refs = any(entry.entry_refs() for entry in [*entries, *expectation.allow])
        self.value_refs = _value_refs(expectation)

    def run(self) -> list[int | None] | None:
        if any(
            not options and not allow for options, allow in zip(self.candidates, self.allowable, strict=True)
        ):
            return None  # some row nothing can claim
        counts = [0] * len(self.entries)
        assignment: list[int | None] = [None] * len(self.rows)
        return assignment if self._step(0, counts, assignment) else None

    def _step(self, i: int, counts: list[int], assignment: list[int | None]) -> bool:
        self.nodes += 1
        if self.nodes > SEARCH_BUDGET:
            raise VerifierError(
                f"claim search exceeded {SEARCH_BUDGET} nodes; the expectation is too ambiguous"
            )
        for e, (low, _) in enumerate(self.bounds):
            if counts[e] + self.remaining[i][e] < low:
                return False
        if i == len(self.rows):
            return self._leaf(assignment)
        for e in self.candidates[i]:
            high = self.bounds[e][1]
            if high is not None and counts[e] >= high:
                continue
            counts[e] += 1
            assignment[i] = e
            if self._step(i + 1, counts, assignment):
                return True
            counts[e] -= 1
        if self.allowable[i]:
            assignment[i] = ALLOW
            if self._step(i + 1, counts, assignment):
                return True
        assignment[i] = None
        return False

    def _leaf(self, assignment: list[int | None]) -> bool:
        claims = _claims(self.rows, assignment, len(self.entries))
        if self.has_refs:
            claimed_keys = _claimed_ids(self.rows, self.entries, claims, self.value_refs)
            for e, entry in enumerate(self.entries):
                for i in claims[e]:
                    if row_failure(entry.predicates(), self.rows[i], claimed_keys) is not None:
                        return False
            for i, owner in enumerate(assignment):
                if owner == ALLOW and not any(
                    _allowed(allow, self.rows[i], claimed_keys) for allow in self.allow
                ):
                    return False
        claimed_rows = {
            entry.id: [self.rows[i] for i in claims[e]] for e, entry in enumerate(self.entries) if entry.id
        }
        return all(
            _communicate_result(check, claimed_rows, self.transcript).passed for check in self.communicate
        )


def _claims(rows: list[RowChange], assignment: list[int | None], count: int) -> list[list[int]]:
    claims: list[list[int]] = [[] for _ in range(count)]
    for i, owner in enumerate(assignment):
        if owner is not None and owner >= 0:
            claims[owner].append(i)
    return claims


def _best_effort(
    rows: list[RowChange], expectation: Expectation, candidates: list[list[int]], allowable: list[bool]
) -> list[int | None]:
    """For a failing verdict's explanation: fill entries in order, then allow, rest unexplained.

    References between entries are then checked against these claims; a row whose reference
    does not hold is released, so the explanation names it instead of passing it silently.
    """
    entries = expectation.change
    assignment: list[int | None] = [None] * len(rows)
    counts = [0] * len(entries)
    for i in range(len(rows)):
        for e in candidates[i]:
            high = entries[e].bounds()[1]
            if high is None or counts[e] < high:
                assignment[i] = e
                counts[e] += 1
                break
        else:
            if allowable[i]:
                assignment[i] = ALLOW
    claimed_keys = _claimed_ids(
        rows, entries, _claims(rows, assignment, len(entries)), _value_refs(expectation)
    )
    for i, owner in enumerate(assignment):
        if owner is None:
            continue
        if owner == ALLOW:
            if not any(
                _allowed(allow, rows[i], claimed_keys) for allow in expectation.allow if not allow.attempted
            ):
                assignment[i] = None
        elif row_failure(entries[owner].predicates(), rows[i], claimed_keys) is not None:
            assignment[i] = None
    return assignment


# -- explanations -------------------------------------------------------------------------------


def _entry_result(
    entry: ChangeEntry, claimed: list[RowChange], rows: list[RowChange], claims: Claims = None
) -> RequirementResult:
    low, high = entry.bounds()
    ok = len(claimed) >= low and (high is None or len(claimed) <= high)
    wanted = f"{low}" if low == high else f"{low}..{'' if high is None else high}"
    if claimed:
        evidence = f"claimed {len(claimed)} (want {wanted}): " + "; ".join(
            f"{change.op} {change.label()}" for change in claimed
        )
    else:
        near = [change for change in rows if change.table == entry.table and change.op == entry.op]
        reasons = [f"{change.label()}: {_why_not(entry, change, claims)}" for change in near]
        evidence = f"no {entry.op} on {entry.table} matched (want {wanted})" + (
            "; closest: " + "; ".join(reasons[:3]) if reasons else ""
        )
    return RequirementResult(entry.label, "change", ok, evidence, tuple(change.key for change in claimed))


def _why_not(entry: ChangeEntry, change: RowChange, claims: Claims = None) -> str:
    """Why a row of the right table and op does not satisfy an entry (references read ``claims``)."""
    failed = row_failure(entry.predicates(), change, claims)
    if failed:
        return failed
    extra = entry.extra_changes(change)
    if extra and change.op == "insert":
        return f"created with {', '.join(extra)} unlike a new record (name them, or may_change)"
    if extra:
        return f"also changed {', '.join(extra)} (others must stay unchanged)"
    return "claimed elsewhere"


def _communicate_result(
    check: CommunicateCheck, claimed_rows: dict[str, list[RowChange]], transcript: Sequence[str]
) -> RequirementResult:
    if check.act == "refusal":
        said = [message for message in transcript if refuses(message)]
        if said:
            return RequirementResult(check.label, "communicate", True, f"declined: {echo(said[0], 80)!r}")
        return RequirementResult(
            check.label, "communicate", False, "no message declines the request without claiming it done"
        )
    rivals = check.rivals or ()
    if check.any_of is not None:
        told = [value for value in check.any_of if answers(transcript, value, rivals)]
        if told:
            return RequirementResult(check.label, "communicate", True, f"told the user {told[0]!r}")
        return RequirementResult(check.label, "communicate", False, f"told none of {check.any_of!r}")
    ref = check.entry_ref()
    if ref is None:
        values = [check.value or ""]
    else:
        entry_id, name = ref
        values = [change.value(name) for change in claimed_rows.get(entry_id, [])]
    values = [value for value in values if value.strip()]
    if not values:
        return RequirementResult(check.label, "communicate", False, f"no value to look for ({check.value})")
    missing = [value for value in values if not answers(transcript, value, rivals)]
    if missing:
        how = "said only hedged, asked, negated or beside a rival" if mentions(transcript, missing[0]) else ""
        return RequirementResult(
            check.label, "communicate", False, f"never told the user {missing[0]!r} {how}".rstrip()
        )
    return RequirementResult(check.label, "communicate", True, f"told the user {values[0]!r}")
