"""Identity fixtures: one live tiny-world backend per session, reset for each test that takes it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.identity import IDENTITY
from tests.mocks.identity.helpers import fresh


@pytest.fixture(scope="session")
def identity_session_backend() -> Iterator[Backend]:
    backend = Backend(IDENTITY, size="tiny", world_seed=0, surface="rest")
    yield backend
    backend.close()


@pytest.fixture
def okta(identity_session_backend: Backend) -> Backend:
    """A freshly reset tiny identity world, acting as the help-desk agent (``rest`` by default)."""
    return fresh(identity_session_backend)
