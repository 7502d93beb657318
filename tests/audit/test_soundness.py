"""The checks: weakened, broken and over-strict expectations are caught and explained."""

from __future__ import annotations

from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.verifiers.audit import Action, Variant, audit_scenario, judge
from enterprise_envs.verifiers.audit.report import AuditReport
from enterprise_envs.verifiers.expectations import AllowEntry, ChangeEntry
from tests.audit.helpers import Rewritten, edited, without_field


def test_replays_are_deterministic_and_the_oracle_replayed_is_equivalent() -> None:
    episodes = EnvEpisodes("itsm.escalate")
    oracle = episodes.record(2, "typed", "typed")
    again = episodes.replay(2, "typed", oracle.actions())
    assert oracle.passed and again.passed
    assert again.fingerprint() == oracle.fingerprint()
    assert judge(Variant("x", "x", tuple(oracle.actions())), again, oracle) == "equivalent"
    ended = episodes.replay(2, "typed", [Action.end()])
    assert judge(Variant("x", "x", (Action.end(),)), ended, oracle) == "rejected"
    episodes.close()


def test_the_shipped_expectation_passes_and_a_weakened_one_is_caught() -> None:
    # escalate, with its forbid entries dropped and any incident update allowed: collateral passes.
    probes = ["plus_write", "bulk", "canary"]
    shipped = audit_scenario(EnvEpisodes("itsm.escalate"), [0], probes=probes)
    assert shipped.passed, [f.headline() for f in shipped.findings]

    def weaken(expectation):
        broad = AllowEntry(label="any incident update", table="incident", op="update")
        return edited(
            expectation,
            forbid=[],
            allow=[*expectation.model_dump()["allow"], broad.model_dump(exclude_none=True)],
        )

    weak = audit_scenario(Rewritten("itsm.escalate", weaken), [0], probes=probes)
    assert not weak.passed
    found = [f for f in weak.findings if f.kind == "false_positive"]
    assert {f.check.split("[")[0] for f in found} >= {"plus_write", "bulk"}
    finding = found[0]
    assert finding.scenario == "itsm.escalate" and finding.seed == 0 and finding.surface == "typed"
    assert finding.trajectory and finding.verdict and finding.verdict["passed"] is True
    assert finding.explanation.startswith("verdict: PASS") and finding.against_oracle.startswith(
        "+ update incident"
    )
    assert weak.probes["plus_write"].accepted >= 1


def test_the_worked_example_an_ignored_group_is_an_advisory_finding_and_strict_fails_it() -> None:
    # report_incident v1 did not check the assignment group (docs/verifiers.md, "A worked example").
    # Today a created row must name every field the client chose: v1 fails its own oracle.
    silent = Rewritten("itsm.report_incident", lambda e: without_field(e, 0, "assignment_group"))
    audit = audit_scenario(silent, [0], probes=["unchecked"])
    assert not audit.passed and audit.oracle.ok == 0
    # Freed explicitly (may_change), the group is the unchecked probe's advisory finding.
    v1 = Rewritten("itsm.report_incident", lambda e: without_field(e, 0, "assignment_group", free=True))
    audit = audit_scenario(v1, [0], probes=["unchecked"])
    assert audit.passed and audit.advisory
    assert any("create_incident.assignment_group" in f.check for f in audit.advisory)
    strict = audit_scenario(v1, [0], probes=["unchecked"], strict=True)
    assert not strict.passed and strict.findings[0].kind == "false_positive"
    repaired = audit_scenario(
        EnvEpisodes("itsm.report_incident"), [0], probes=["unchecked", "perturb"], strict=True
    )
    assert repaired.passed and repaired.probes["perturb"].rejected > 0


def test_an_over_strict_expectation_rejects_an_alternative_a_false_negative() -> None:
    # add_info accepts a comment or a work note; demanding a comment fails the rest solution (a work note).
    def comments_only(expectation):
        data = expectation.model_dump(exclude_none=True)
        data["change"][0]["fields"]["element"] = {"equals": "comments"}
        return edited(
            expectation, change=[ChangeEntry.model_validate(data["change"][0]).model_dump(exclude_none=True)]
        )

    audit = audit_scenario(Rewritten("itsm.add_info", comments_only), [0], probes=["no_op"])
    assert audit.oracle.ok == 1 and audit.alternative_families["other_surface"].ok == 0
    assert [f.kind for f in audit.findings] == ["false_negative"]
    assert audit.findings[0].check == "solution rest"


def test_an_oracle_the_expectation_rejects_is_reported_and_not_probed() -> None:
    def impossible(expectation):
        data = expectation.model_dump(exclude_none=True)
        data["change"][0]["fields"]["urgency"] = {"equals": "3"}
        return edited(expectation, change=data["change"])

    audit = audit_scenario(Rewritten("itsm.report_incident", impossible), [0], probes=["no_op"])
    assert audit.oracle.ok == 0 and [f.kind for f in audit.findings] == ["oracle_failed", "false_negative"]
    assert audit.probes["no_op"].judged == 0


def test_an_expectation_the_start_state_meets_is_not_necessary() -> None:
    audit = audit_scenario(
        Rewritten("itsm.status_check", lambda e: edited(e, communicate=[])), [0], probes=["no_op"]
    )
    assert audit.necessity.ok == 0 and "not_necessary" in [f.kind for f in audit.findings]


def test_a_keyword_list_accepts_off_fact_text_and_carries_rejects_it() -> None:
    # escalate's justification note was a keyword list before it carried the caller's facts.
    def keywords(expectation):
        data = expectation.model_dump(exclude_none=True)
        for entry in data["change"]:
            if "carries_any" in entry.get("fields", {}).get("value", {}):
                entry["fields"]["value"] = {"matches": "(?i)(deadline|friday|people|affected|block)"}
        return edited(expectation, change=data["change"])

    listed = audit_scenario(Rewritten("itsm.escalate", keywords), [0], probes=["perturb"])
    assert not listed.passed
    assert any("off_fact" in finding.check for finding in listed.findings)
    carried = audit_scenario(EnvEpisodes("itsm.escalate"), [0], probes=["perturb"])
    assert carried.passed and carried.probes["perturb"].rejected > listed.probes["perturb"].rejected


class WithoutRecordApi(EnvEpisodes):
    """A system seen without a generic record API (the probes that need one cannot run)."""

    def context(self, seed: int, surface: str):
        ctx = super().context(seed, surface)
        ctx.__dict__["record_api"] = None  # the cached property, as a system without one finds it
        return ctx


def test_probes_that_cannot_run_on_a_system_are_reported_skipped_not_passed() -> None:
    needs_api = ["same_row", "created_unasked", "refused_early", "privilege", "canary", "plus_write", "bulk"]
    shipped = audit_scenario(EnvEpisodes("itsm.escalate"), [0], probes=needs_api)
    assert shipped.skipped == {}
    bare = audit_scenario(WithoutRecordApi("itsm.escalate"), [0], probes=needs_api)
    assert set(bare.skipped) == set(needs_api)
    assert all("no generic record API" in why for why in bare.skipped.values())
    assert "(writes to other tables)" in bare.skipped["plus_write"]  # partly run: says which part
    text = AuditReport([bare], needs_api).to_text()
    assert "skipped probes: " in text and "itsm.escalate: same_row: no generic record API" in text
    assert bare.to_dict()["skipped"] == dict(sorted(bare.skipped.items()))
    # The privilege probe still tries what needs no record API; its skipped part is named.
    assert bare.probes["privilege"].judged < shipped.probes["privilege"].judged
