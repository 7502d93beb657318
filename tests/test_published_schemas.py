"""The JSON Schemas shipped in the package equal what the models generate (regenerate with
``python -m enterprise_envs.schemas`` after changing a model)."""

from __future__ import annotations

import json

import pytest

from enterprise_envs.schemas import PUBLISHED, render


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_schema_is_current(name: str) -> None:
    path, build = PUBLISHED[name]
    assert json.loads(path.read_text(encoding="utf-8")) == build(), (
        f"{path} is stale: run `python -m enterprise_envs.schemas`"
    )
    assert render(build()).endswith("\n")
