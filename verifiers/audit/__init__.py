"""The hackability audit: is a scenario's verifier sound?

The verifier is an attack surface: a policy rewarded for an end state that only looks done
learns to fake it. The audit plays a scenario's oracle on many seeds, checks that the task is
necessary (the start state fails) and that alternative solutions pass, and replays probe
policies derived from the oracle (no-op, minus a write, a wrong record, a perturbed field, bulk
edits, privilege attempts, canaries...) that must all fail.

This package holds the probes, the checks and the report over a small protocol
(:class:`Episodes`: play these actions on a scenario instance, then verify). The layer above
(``enterprise_envs.audit``) implements it with the Gym env; nothing here imports the env, the
scenario format or ``enterprise_envs``.
"""

from enterprise_envs.verifiers.audit.context import ProbeContext, RecordApi, ToolInfo
from enterprise_envs.verifiers.audit.probes import PROBES, Variant, variants
from enterprise_envs.verifiers.audit.report import AuditReport, Finding, ProbeTally, ScenarioAudit, Tally
from enterprise_envs.verifiers.audit.soundness import Episodes, audit_scenario, judge
from enterprise_envs.verifiers.audit.trace import Action, Effect, Run, Step, step_effects

__all__ = [
    "PROBES",
    "Action",
    "AuditReport",
    "Effect",
    "Episodes",
    "Finding",
    "ProbeContext",
    "ProbeTally",
    "RecordApi",
    "Run",
    "ScenarioAudit",
    "Step",
    "Tally",
    "ToolInfo",
    "Variant",
    "audit_scenario",
    "judge",
    "step_effects",
    "variants",
]
