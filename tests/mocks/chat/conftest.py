"""Chat fixtures: one live tiny-world backend per surface per session, reset for each test that takes it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.mocks.chat import CHAT
from tests.mocks.chat.helpers import fresh


@pytest.fixture(scope="session")
def chat_session_backend() -> Iterator[Backend]:
    """The tiny chat world on the ``rest`` surface (Slack's Web API methods), built once."""
    backend = Backend(CHAT, size="tiny", world_seed=0, surface="rest")
    yield backend
    backend.close()


@pytest.fixture(scope="session")
def chat_typed_session_backend() -> Iterator[Backend]:
    """The tiny chat world on the ``typed`` surface (task-level tools), built once."""
    backend = Backend(CHAT, size="tiny", world_seed=0, surface="typed")
    yield backend
    backend.close()


@pytest.fixture
def slack(chat_session_backend: Backend) -> Backend:
    """A freshly reset tiny chat world on ``rest``, acting as the IT bot."""
    return fresh(chat_session_backend)


@pytest.fixture
def slack_typed(chat_typed_session_backend: Backend) -> Backend:
    """A freshly reset tiny chat world on ``typed``, acting as the IT bot."""
    return fresh(chat_typed_session_backend)
