"""Fidelity metrics of simulated users, computed from transcripts only.

A :class:`Transcript` is the persona a conversation was played with, its messages and, when
available, the simulator's :class:`UserTurn` records and the final :data:`UserView`. Every metric
reads the messages and the persona alone (so it applies to any backend, or to a human); the turn
records are used only for the guard hit rate and the backend counts.

The package, by concern (every public name is re-exported here):

- :mod:`.transcript`: :class:`Transcript`, :class:`Ratio`, :class:`Finding`;
- :mod:`.lexicon`: the marker lexicons (``*_MARKERS`` and the coaching and agent phrases) and
  phrase and value matching;
- :mod:`.integrity`: the metrics that must be zero (leaks, canaries, premature disclosure,
  coaching, role swap, false stops);
- :mod:`.behaviour`: how the user answers, remembers and reacts, and the guard hit rate;
- :mod:`.profile`: behaviour profile, frustration onset, population diversity;
- :mod:`.metrics`: :class:`Metric` and :data:`METRICS`, one declaration per reported rate;
- :mod:`.report`: :class:`FidelityReport` and :func:`fidelity_report`, read from :data:`METRICS`.

Each module states the conventions it owns (user turns and ratios in :mod:`.transcript`; marker
matching, value occurrence and echoes in :mod:`.lexicon`).
"""

from __future__ import annotations

from enterprise_envs.scenarios.users.fidelity.behaviour import (
    false_corrections,
    front_loading,
    guard_counts,
    guard_hit_rate,
    missing_corrections,
    refusal_adherence,
    refusal_findings,
    repeat_findings,
    repeat_pushback,
    say_no_rate,
    self_contradiction,
    unknown_findings,
    unknown_honesty,
)
from enterprise_envs.scenarios.users.fidelity.integrity import (
    ROLE_SWAP_LENGTH_FACTOR,
    TYPICAL_WORDS,
    canary_findings,
    canary_hits,
    claims_done,
    coaching_findings,
    coaching_rate,
    coaching_reasons,
    false_stop_findings,
    false_stop_rate,
    leak_findings,
    leak_rate,
    persona_text,
    premature_disclosure,
    premature_findings,
    role_swap_findings,
    role_swap_limit,
    role_swap_rate,
    role_swap_reasons,
)
from enterprise_envs.scenarios.users.fidelity.lexicon import (
    ABANDON_MARKERS,
    AGENT_CLAIM_MARKERS,
    AGENT_PHRASES,
    CLARIFY_MARKERS,
    COACHING_STRONG_TERMS,
    COACHING_WEAK_TERMS,
    COMMON_WORDS,
    CORRECTION_MARKERS,
    DENY_MARKERS,
    DONT_KNOW_MARKERS,
    FAREWELL_MARKERS,
    FRUSTRATION_MARKERS,
    POLITENESS_MARKERS,
    PUSHBACK_MARKERS,
    REFUSAL_MARKERS,
    SUCCESS_MARKERS,
    SUGGESTION_PHRASES,
    SUGGESTION_VERBS,
    TRANSFER_MARKERS,
    agent_claim_markers,
    agent_phrases,
    coaching_strong_terms,
    phrase_pattern,
    phrases_in,
    typo_equal,
    value_occurs,
    words,
)

# Two private helpers the tests reach through the package, as they did before the split.
from enterprise_envs.scenarios.users.fidelity.lexicon import _markers as _markers
from enterprise_envs.scenarios.users.fidelity.lexicon import _tokens as _tokens
from enterprise_envs.scenarios.users.fidelity.metrics import (
    INTEGRITY_METRICS,
    METRICS,
    Metric,
)
from enterprise_envs.scenarios.users.fidelity.profile import (
    MIN_GROUP_SIZE,
    STYLE_FEATURES,
    Diversity,
    Onset,
    Variance,
    behaviour_features,
    behaviour_profile,
    dice,
    dice_by_dimension,
    diversity,
    frustration_onset,
    frustration_turns,
    persona_group,
    style_features,
)
from enterprise_envs.scenarios.users.fidelity.report import (
    FidelityReport,
    fidelity_report,
)
from enterprise_envs.scenarios.users.fidelity.transcript import (
    Finding,
    Ratio,
    Transcript,
)

__all__ = [
    "ABANDON_MARKERS",
    "AGENT_CLAIM_MARKERS",
    "AGENT_PHRASES",
    "CLARIFY_MARKERS",
    "COACHING_STRONG_TERMS",
    "COACHING_WEAK_TERMS",
    "COMMON_WORDS",
    "CORRECTION_MARKERS",
    "DENY_MARKERS",
    "DONT_KNOW_MARKERS",
    "FAREWELL_MARKERS",
    "FRUSTRATION_MARKERS",
    "INTEGRITY_METRICS",
    "METRICS",
    "MIN_GROUP_SIZE",
    "POLITENESS_MARKERS",
    "PUSHBACK_MARKERS",
    "REFUSAL_MARKERS",
    "ROLE_SWAP_LENGTH_FACTOR",
    "STYLE_FEATURES",
    "SUCCESS_MARKERS",
    "SUGGESTION_PHRASES",
    "SUGGESTION_VERBS",
    "TRANSFER_MARKERS",
    "TYPICAL_WORDS",
    "Diversity",
    "FidelityReport",
    "Finding",
    "Metric",
    "Onset",
    "Ratio",
    "Transcript",
    "Variance",
    "agent_claim_markers",
    "agent_phrases",
    "behaviour_features",
    "behaviour_profile",
    "canary_findings",
    "canary_hits",
    "claims_done",
    "coaching_findings",
    "coaching_rate",
    "coaching_reasons",
    "coaching_strong_terms",
    "dice",
    "dice_by_dimension",
    "diversity",
    "false_corrections",
    "false_stop_findings",
    "false_stop_rate",
    "fidelity_report",
    "front_loading",
    "frustration_onset",
    "frustration_turns",
    "guard_counts",
    "guard_hit_rate",
    "leak_findings",
    "leak_rate",
    "missing_corrections",
    "persona_group",
    "persona_text",
    "phrase_pattern",
    "phrases_in",
    "premature_disclosure",
    "premature_findings",
    "refusal_adherence",
    "refusal_findings",
    "repeat_findings",
    "repeat_pushback",
    "role_swap_findings",
    "role_swap_limit",
    "role_swap_rate",
    "role_swap_reasons",
    "say_no_rate",
    "self_contradiction",
    "style_features",
    "typo_equal",
    "unknown_findings",
    "unknown_honesty",
    "value_occurs",
    "words",
]
