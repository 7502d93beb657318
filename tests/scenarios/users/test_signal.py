"""The oracle-signal measurement (issue 14): replies compared with and without the oracle's writes."""

from __future__ import annotations

from enterprise_envs.simulator_tools import oracle_signal


def test_a_scenario_without_writes_gives_no_signal() -> None:
    """status_check only reads: removing writes removes nothing, so no reply may change."""
    signal = oracle_signal("itsm.status_check", seeds=(0, 1))
    assert signal.turns > 0 and signal.changed == 0 and signal.seeds_signalled == 0


def test_the_measurement_counts_what_it_compares() -> None:
    signal = oracle_signal("itsm.report_incident", seeds=(0,))
    assert signal.turns >= 1
    assert 0 <= signal.changed <= signal.turns and signal.seeds_signalled <= 1
    assert len(signal.examples) == min(signal.changed, 1)
    assert signal.to_dict()["scenario"] == "itsm.report_incident"
