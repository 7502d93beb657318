"""Every shipped scenario passes the hackability audit: a quick run by default, full strength with -m slow."""

from __future__ import annotations

import os

import pytest

from enterprise_envs.audit import audit_one, run_audit

JOBS = max(1, min(2, os.cpu_count() or 1))


def _assert_passes(report) -> None:
    assert report.exit_status == 0, report.to_text(explain=True)[:20000]
    assert report.yield_rate == 1.0


def test_every_shipped_scenario_passes_the_audit() -> None:
    # 2 seeds, typed surface (the rest solutions are the alternatives): well under a minute on 2 cores.
    report = run_audit(seeds=2, jobs=JOBS)
    _assert_passes(report)
    for audit in report.scenarios:
        assert audit.oracle.rate == 1.0 and audit.necessity.rate == 1.0
        assert audit.alternatives.rate in (1.0, None)
        assert audit.rejection.judged > 0


def test_the_audit_is_deterministic() -> None:
    first, second = (audit_one("itsm.duplicates", [4]).to_dict() for _ in range(2))
    first.pop("seconds"), second.pop("seconds")
    assert first == second


@pytest.mark.slow
def test_every_shipped_scenario_passes_the_audit_at_full_strength() -> None:
    # 20 seeds, both surfaces probed.
    _assert_passes(run_audit(seeds=20, surfaces=("typed", "rest"), jobs=JOBS))
