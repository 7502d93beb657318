"""State-diff verifiers: diff, expectation language, verdicts and outcome classes.

The reward comes from the state the agent left, deterministically: :func:`verify` diffs the
back-end against the start of the episode (its change log) and matches the diff against an
:class:`Expectation`. No LLM is in this path.
"""

from enterprise_envs.verifiers.diff import RowChange, StateDiff, compute_diff
from enterprise_envs.verifiers.expectations import (
    Expectation,
    ExpectationError,
    bind_params,
    expectation_json_schema,
    load_expectation,
)
from enterprise_envs.verifiers.outcome import EpisodeFacts, Outcome, OutcomeKind, classify
from enterprise_envs.verifiers.verdict import RequirementResult, Verdict, VerifierError, judge, verify

__all__ = [
    "EpisodeFacts",
    "Expectation",
    "ExpectationError",
    "Outcome",
    "OutcomeKind",
    "RequirementResult",
    "RowChange",
    "StateDiff",
    "Verdict",
    "VerifierError",
    "bind_params",
    "classify",
    "compute_diff",
    "expectation_json_schema",
    "judge",
    "load_expectation",
    "verify",
]
