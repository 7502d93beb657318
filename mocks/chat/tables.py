"""The chat catalog: Slack's users, conversations, messages, reactions and user groups as tables.

Built from the derived OpenAPI document in ``spec/`` (``slack-web-1.7.0.derived.openapi.json``,
written by ``spec/derive.py`` from Slack's published Swagger 2.0 description of the Web API) by
the generic :func:`~enterprise_envs.mocks._core.openapi.catalog_from_openapi`, with
``spec/catalog.toml`` saying what the document cannot: where an id points (Slack's ids are plain
strings with a pattern), which ``number``s are whole, which nested objects become columns
(``profile.email`` is the column ``email``, ``topic.value`` is ``topic_value``), the tables Slack
has no object for (channel and user group membership, one user's reaction to a message), keys,
display fields and indexes. Nothing here reads Slack's own description: it is 1 MB of Swagger 2
that the generic step does not read as such.

Tables (column names are Slack's JSON property names; every value is stored as a string):
``user``, ``channel``, ``channel_member``, ``message``, ``reaction``, ``usergroup`` and
``usergroup_member``. A message is named by (channel, ts) in the Web API; its row has an internal
``id`` besides.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.openapi import catalog_from_openapi
from enterprise_envs.mocks._core.schema import Catalog

#: The version of Slack's description the mock follows.
SPEC_VERSION = "1.7.0"
#: The derived document (``spec/derive.py`` writes it).
SPEC_FILE = f"slack-web-{SPEC_VERSION}.derived.openapi.json"
CATALOG_FILE = "catalog.toml"


def _spec_text(name: str) -> str:
    return resources.files(__package__).joinpath("spec", name).read_text(encoding="utf-8")


@cache
def spec_document() -> dict[str, Any]:
    """The derived OpenAPI document, parsed (once per process: callers must not change it)."""
    return json.loads(_spec_text(SPEC_FILE))


@cache
def catalog_overlay() -> dict[str, Any]:
    """What the document cannot say about the tables (``spec/catalog.toml``), parsed (cached)."""
    return tomllib.loads(_spec_text(CATALOG_FILE))


@cache
def chat_catalog() -> Catalog:
    """The chat tables, built once per process: a catalog is compared by identity."""
    return catalog_from_openapi("chat", spec_document(), catalog_overlay())
