"""REST test helpers: raw HTTP requests (for what Slack's SDK never sends) and world access."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from enterprise_envs.agents import OracleAgent
from enterprise_envs.mcp.hub import DEFAULT_ID, World
from enterprise_envs.mocks._core.backend import Backend
from enterprise_envs.rest import RestServer
from enterprise_envs.rest.client import RestClient
from tests.mcp.helpers import TIMEOUT, TOKEN_A, control


def request(
    url: str, *, method: str = "POST", body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    """One raw HTTP request: (status, headers by lower-case name, decoded JSON body or None)."""
    sent = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(sent, timeout=TIMEOUT) as response:
            status, found, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, found, raw = error.code, dict(error.headers), error.read()
    return status, {name.lower(): value for name, value in found.items()}, json.loads(raw) if raw else None


def world_of(server: RestServer, owner: str, env_id: str = DEFAULT_ID) -> Backend:
    """The backend of an owner's world on a running server (its default one, made if need be)."""
    entry = server.hub.resolve(owner, env_id, system=server.system, kind="world")
    assert isinstance(entry, World), f"{owner} has no world {env_id!r}"
    return entry.backend


def changed_state(backend: Backend) -> list[tuple[str, str, dict[str, str] | None]]:
    """Every row the episode changed, as it is now (None: deleted), in write order."""
    store = backend.store
    return [(table, key, store.get(table, key)) for table, key, _ in store.changed_rows()]


# -- playing episodes over the vendors' APIs -------------------------------------------------

#: The most actions an oracle takes before a test gives up on it.
MAX_ACTIONS = 200


def play_oracle_over_rest(
    server: RestServer, started: dict[str, Any], agent: OracleAgent, token: str = TOKEN_A
) -> dict[str, int]:
    """Drive ``agent`` through an episode served over REST: its tool calls as the vendors' wire
    requests (:class:`RestClient`), its turns to the user on the control plane.

    ``started`` is ``POST /control/episodes``'s answer. Stops where a Gym loop would: when the
    user ends the conversation, or after the agent's ``end`` (sent as ``verify`` by the caller).
    """
    episode_id = started["episode_id"]
    observation = {"role": "user", "name": "", "content": started["opening_message"]}
    counts = {"tools": 0, "messages": 0}
    certificate = server.certificate if server.tls else None
    with RestClient(
        server.base_url, server.apis, token, env_id=episode_id, timeout=TIMEOUT, certificate=certificate
    ) as client:
        for _ in range(MAX_ACTIONS):
            action = agent.act(observation)
            if "tool" in action:
                result = client.call(action["tool"], action["arguments"])
                counts["tools"] += 1
                observation = {"role": "tool", "name": action["tool"], "content": result.to_json(full=True)}
            elif "message" in action:
                status, answer = control(
                    server.base_url,
                    "POST",
                    f"/control/episodes/{episode_id}/messages",
                    {"text": action["message"]},
                    token=token,
                )
                assert status == 200 and answer["accepted"], answer
                counts["messages"] += 1
                if answer["over"]:
                    break
                observation = {"role": "user", "name": "", "content": answer["reply"]}
            else:
                break
    return counts
