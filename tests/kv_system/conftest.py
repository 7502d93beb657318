"""Load Keyval as a system plugin for the tests of this folder, and forget it afterwards."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from enterprise_envs import registry


@pytest.fixture(scope="package", autouse=True)
def keyval_plugin() -> Iterator[None]:
    """Keyval registered through the plugin variable, as an uninstalled system under development is."""
    previous = os.environ.get(registry.PLUGIN_VARIABLE)
    os.environ[registry.PLUGIN_VARIABLE] = "tests.kv_system"
    registry.reload()
    yield
    if previous is None:
        del os.environ[registry.PLUGIN_VARIABLE]
    else:
        os.environ[registry.PLUGIN_VARIABLE] = previous
    registry.reload()
