"""The oracle-signal measurement (issue 14): replies compared with and without the oracle's writes."""

from __future__ import annotations

from enterprise_envs.simulator_tools import oracle_signal


def test_a_scenario_without_writes_gives_no_signal() -> None:
    """status_check only reads: removing writes removes nothing, so no reply may change."""
    signal = oracle_signal("itsm.status_check", seeds=(0, 1))
    assert signal.turns > 0 and signal.changed == 0 and signal.seeds_signalled == 0
    assert signal.unexplained == signal.observable == 0


def test_the_measurement_counts_what_it_compares() -> None:
    signal = oracle_signal("itsm.report_incident", seeds=(0,))
    assert signal.turns >= 1
    assert 0 <= signal.changed <= signal.turns and signal.seeds_signalled <= 1
    assert len(signal.examples) == min(signal.changed, 1)
    assert signal.unexplained + signal.observable == signal.changed
    assert signal.to_dict()["scenario"] == "itsm.report_incident"


def test_a_reply_read_from_hidden_state_is_unexplained() -> None:
    """The comparison itself: the same conversation and notifications but other words is a leak."""
    from enterprise_envs.simulator_tools import compare_heard
    from enterprise_envs.verifiers.audit.trace import Run

    def run(heard: tuple[str, ...], seen: tuple[str, ...]) -> Run:
        return Run("typed", (), None, heard=heard, seen=seen)

    same = run(("hi", "thanks", "bye"), ("[]", "[]", "[]"))
    leak = run(("hi", "thanks", "no, still broken"), ("[]", "[]", "[]"))
    noticed = run(("hi", "thanks", "no, still broken"), ("[]", "[]", '[{"event": "x"}]'))
    assert compare_heard(same, same)[:3] == (2, 0, 0)
    assert compare_heard(same, leak)[:3] == (2, 1, 0)
    assert compare_heard(same, noticed)[:3] == (2, 0, 1)
    # Once the conversations part, later replies answer different transcripts: not compared.
    parted = run(("hi", "other", "bye"), ("[]", "[]", "[]"))
    assert compare_heard(leak, parted)[:3] == (1, 1, 0)
