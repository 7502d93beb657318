"""Conformance with the SDK's samples: the replay finds exactly the known differences.

The Python SDK's response samples (``spec/observed/``) are replayed against a tiny workspace
(``mocks/chat/conformance.py``); every difference found must be listed in ``KNOWN_DIFFERENCES``
(a new one fails), every listed one must still be found (a fixed one is taken out), and every
sample of a served method must be replayed. The comparison itself is checked on made-up bodies:
a wrong type, a missing or an added key is caught.
"""

from __future__ import annotations

import copy
import subprocess
import sys
from functools import cache

from enterprise_envs.mcp import Hub, WorldDefaults
from enterprise_envs.mocks.chat import conformance
from enterprise_envs.mocks.chat.surfaces.rest import methods
from enterprise_envs.rest import RestServer
from enterprise_envs.rest.client import RestClient
from tests.rest.helpers import world_of

#: The samples of served methods (api.test, auth.test retried after a rate limit, conversations.list
#: and users.list with their cursor pages) and of methods the mock does not serve.
REPLAYED = {
    "api_test",
    "api_test_false",
    "conversations_list",
    "conversations_list_pagination",
    "conversations_list_pagination_has_page2",
    "conversations_list_pagination_has_page3",
    "conversations_list_pagination2",
    "conversations_list_pagination2_page2",
    "users_list_pagination",
    "users_list_pagination_1",
    "rate_limited_only_once",
    "ratelimited_only_once",
}


@cache
def report() -> conformance.ConformanceReport:
    return conformance.replay()


def test_every_sample_is_replayed_or_skipped_with_its_reason() -> None:
    result = report()
    assert len(result.samples) == len(conformance.load_samples()) == 20
    replayed = {sample.name for sample in result.samples if sample.outcome != conformance.SKIPPED}
    assert replayed == REPLAYED
    for sample in result.samples:
        if sample.outcome == conformance.SKIPPED:
            assert sample.reason == conformance.SKIPPED_SAMPLES[sample.name]
        else:
            assert sample.operation in methods(), sample


def test_every_difference_found_is_a_known_one() -> None:
    new = report().unknown()
    assert not new, f"differences not in KNOWN_DIFFERENCES: {[d.signature for d in new]}"


def test_every_known_difference_is_still_found() -> None:
    stale = set(conformance.KNOWN_DIFFERENCES) - report().signatures()
    assert not stale, f"KNOWN_DIFFERENCES the replay no longer finds: {sorted(stale)}"


def test_the_full_samples_match_exactly() -> None:
    by_name = {sample.name: sample for sample in report().samples}
    # The one sample of real channel objects, and the first pages of the cursor sequences.
    for name in (
        "conversations_list",
        "conversations_list_pagination",
        "conversations_list_pagination2",
        "api_test",
    ):
        assert by_name[name].outcome == conformance.MATCHED, by_name[name]
    # The rate-limited call was Slack's 429 (only the retried answer's trimming differs).
    for name in ("rate_limited_only_once", "ratelimited_only_once"):
        assert {d.kind for d in by_name[name].differences} == {"extra key"}


def test_the_replay_over_http_gets_the_in_process_report() -> None:
    # Slack's SDK samples replayed over the wire, to the mock served as Slack's Web API.
    hub = Hub(world_defaults=WorldDefaults(size="tiny", seed=0))
    with RestServer("chat", hub=hub) as server:
        served = world_of(server, server.owner)
        with RestClient(server.base_url, server.apis, server.token) as client:
            over_http = conformance.replay(backend=served, transport=client)
    hub.close()
    assert over_http.samples == report().samples


def test_the_module_prints_the_report() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "enterprise_envs.mocks.chat.conformance", "--brief"],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert completed.stdout.startswith("Chat mock (Slack Web API 1.7.0), 20 SDK samples")
    assert "replayed through a rest tool and compared 12" in completed.stdout


# -- the comparison catches what it should ------------------------------------------------------------


def test_the_sample_itself_matches() -> None:
    sample = conformance.load_samples()["conversations_list"]
    assert conformance.compare("x", "conversations_list", sample, copy.deepcopy(sample)) == []


def test_a_wrong_type_a_missing_or_an_added_key_is_caught() -> None:
    sample = conformance.load_samples()["conversations_list"]
    body = copy.deepcopy(sample)
    for channel in body["channels"]:
        channel["num_members"] = str(channel["num_members"])
        del channel["topic"]
        channel["is_member"] = True
        channel["colour"] = "blue"  # not a key of a conversation
    body["warning"] = "x"
    found = {(d.kind, d.where) for d in conformance.compare("x", "conversations_list", sample, body)}
    assert found == {
        ("type", "body.channels[].num_members"),
        ("missing key", "body.channels[].topic"),
        ("extra key", "body.channels[].colour"),
        ("extra key", "body.warning"),
    }
    # Inside a list, a key the description declares for the items is the mock's own row's.
    body = copy.deepcopy(sample)
    body["channels"][0]["is_open"] = True
    assert conformance.compare("x", "conversations_list", sample, body) == []


def test_a_429_other_than_slacks_would_be_caught() -> None:
    assert conformance.RATE_LIMITED == {"ok": False, "error": "ratelimited"}
