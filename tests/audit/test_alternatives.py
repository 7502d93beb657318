"""Alternatives generated from the oracle (valid work) and the runbook probe, on shipped scenarios."""

from __future__ import annotations

from enterprise_envs.audit import EnvEpisodes
from enterprise_envs.env import EnterpriseEnv
from enterprise_envs.verifiers.audit import audit_scenario, corpus
from enterprise_envs.verifiers.audit.alternatives import ALTERNATIVES, paraphrase
from enterprise_envs.verifiers.audit.probes import leaves, runbook
from enterprise_envs.verifiers.dialogue import answers
from enterprise_envs.verifiers.policy import Policy


def test_every_family_builds_valid_work_the_shipped_verdict_accepts() -> None:
    audit = audit_scenario(EnvEpisodes("itsm.status_check"), [0], probes=["no_op"])
    families = audit.alternative_families
    assert set(ALTERNATIVES) <= set(families), families
    for name in ALTERNATIVES:
        assert families[name].total > 0 and families[name].ok == families[name].total, (name, families[name])
    assert audit.passed


def test_a_paraphrase_says_the_value_in_a_corpus_message_and_keeps_the_other_checks() -> None:
    """status_check's last message tells the number and the state; each paraphrase rewords one."""
    episodes = EnvEpisodes("itsm.status_check")
    try:
        oracle = episodes.record(0, "typed", "typed")
        ctx = episodes.context(0, "typed")
        variants = paraphrase(oracle, ctx)
    finally:
        episodes.close()
    corpus_texts = {item["text"] for item in corpus.load()}
    labels = {check.label for check in ctx.expectation.communicate}
    assert {v.name.split("[")[1].rsplit(":", 1)[0] for v in variants} == labels
    for variant in variants:
        said = [action.text for action in variant.actions if action.kind == "message"]
        assert said != oracle.messages()
        # One message is a corpus message (the number put in for a number check) ...
        assert any(text in corpus_texts or "INC" in text for text in said)
        # ... and every check is still told somewhere, the other one by the kept message.
        for check in ctx.expectation.communicate:
            value = check.value if not check.value.startswith("$") else None
            if value and not value.startswith("{{"):
                assert answers(said, value, check.rivals or ())


class WithoutRunbook(EnvEpisodes):
    """Episodes verified without the system's runbook rules (probes still see the declared ones)."""

    strip = True

    def _start(self, seed: int, surface: str) -> EnterpriseEnv:
        env = super()._start(seed, surface)
        assert env.instance is not None
        if self.strip:
            env.instance.policy = Policy()
        return env

    def context(self, seed: int, surface: str):
        self.strip = False
        try:
            return super().context(seed, surface)
        finally:
            self.strip = True


def test_the_runbook_probe_is_rejected_and_catches_a_verifier_without_the_rules() -> None:
    shipped = audit_scenario(EnvEpisodes("itsm.resolve_with_kb"), [0], probes=["runbook"])
    tally = shipped.probes["runbook"]
    assert tally.judged >= 3 and tally.accepted == 0 and shipped.passed
    bare = audit_scenario(WithoutRunbook("itsm.resolve_with_kb"), [0], probes=["runbook"])
    accepted = [f.check for f in bare.findings if f.kind == "false_positive"]
    # Without the rules, asking for the password and reading out a stranger's ticket pass; acting
    # before talking changes nothing else the verifier sees, so it is merely equivalent.
    assert {name.split("[")[1].split(":")[0].rstrip("]") for name in accepted} == {"ask_secret", "disclose"}
    assert bare.probes["runbook"].equivalent == 1


def test_the_disclose_probe_reads_out_a_strangers_record_not_the_callers() -> None:
    """Seed 12 of refuse_admin_rights once drew the caller's own incident: no disclosure at all."""
    episodes = EnvEpisodes("itsm.refuse_admin_rights")
    try:
        oracle = episodes.record(12, "typed", "typed")
        ctx = episodes.context(12, "typed")
        caller = {
            ref.row["sys_id"]
            for a in oracle.actions()
            for _p, v in leaves(a.arguments)
            for ref in ctx.identify(v)
        }
        disclosed = [v for v in runbook(oracle, ctx) if v.name.startswith("runbook[disclose:")]
        assert disclosed
        number = disclosed[0].name.split(":")[1].rstrip("]")
        row = ctx.select("incident", "number = ?", [number], 1)[0]
        assert not caller & {row["caller_id"], row["opened_by"]}
    finally:
        episodes.close()
