"""Shared fixtures: real ITSM backends over the tiny world (reset per test is a memory copy)."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from enterprise_envs.mocks._core.backend import Backend

# Hypothesis profiles: "default" keeps the suite fast; "full" (HYPOTHESIS_PROFILE=full) is the
# exhaustive run documented in docs/testing.md.
settings.register_profile("default", max_examples=60, deadline=None)
settings.register_profile("full", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture(scope="session")
def itsm_session_backend() -> Backend:
    from enterprise_envs.mocks.itsm import ITSM

    return Backend(ITSM, size="tiny", world_seed=0, surface="typed")


@pytest.fixture
def itsm(itsm_session_backend: Backend) -> Backend:
    """A freshly reset tiny ITSM world, acting as the service-desk agent (typed surface)."""
    itsm_session_backend.reset(episode_seed=0)
    itsm_session_backend.mark_start()
    return itsm_session_backend
