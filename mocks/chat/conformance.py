"""Conformance: the Python SDK's response samples replayed against the mock, their shapes compared.

The samples in ``spec/observed/`` are the bodies the official Python SDK's tests serve from its
mock Web API server (``tests/slack_sdk_fixture/web_response_*.json``): curated answers of
``api.test``, ``auth.test``, ``conversations.list`` and ``users.list`` (with cursor pages), and of
methods the mock does not serve. :func:`replay` makes, for each sample that answers a served
method, the same kind of call on a fresh tiny workspace, acting as the IT bot (a bot token, as
the SDK's tests use):

- ``api.test`` plainly, and asked to fail (``error=...``) for the ``api_test_false`` sample;
- ``conversations.list`` of the public channels, and its cursor pages: the page size is chosen
  so the mock's list has as many pages as the sample's sequence (three, or two), and each page is
  read with the cursor the mock's previous page handed out;
- ``users.list`` in two pages, the same way;
- ``auth.test`` under an injected rate limit for the ``ratelimited`` samples: the first call must
  be the 429 the SDK's test server answers (:data:`RATE_LIMITED`, ``Retry-After`` its only
  header); after waiting ``Retry-After`` the retried call is compared with the sample, the
  answer the SDK's retry handler gets.

The calls go as Slack's wire requests through a transport: in process by default, or over HTTP
to the mock served as Slack's Web API (``tests/mocks/chat/test_conformance.py`` runs both and
gets the same report). For every replayed sample :func:`compare` lists how the mock's body
differs: keys the sample has and the mock lacks, keys the mock adds, JSON types, and inside a
list (whose items are the mock's own rows, not the sample's) a key the description declares for
the items may be absent from the sample. Samples of methods the mock does not serve are skipped,
each with its reason (:data:`SKIPPED`).

The differences kept on purpose, most of them the samples' own trimming or placeholders, are
:data:`KNOWN_DIFFERENCES`; ``tests/mocks/chat/test_conformance.py`` checks the replay finds exactly
those. Run ``python -m enterprise_envs.mocks.chat.conformance`` for the report.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from enterprise_envs.mocks._core.backend import Backend, CallResult
from enterprise_envs.mocks._core.conformance import (
    DIFFERING,
    MATCHED,
    SKIPPED,
    Difference,
    SampleReport,
    Schemas,
    Tally,
    shape_differences,
    unknown_differences,
    verdict,
)
from enterprise_envs.mocks._core.faults import FaultConfig, RateLimit
from enterprise_envs.mocks._core.http import InProcess, Transport
from enterprise_envs.mocks.chat import CHAT
from enterprise_envs.mocks.chat.surfaces.rest import methods
from enterprise_envs.mocks.chat.tables import spec_document

__all__ = [
    "DIFFERING",
    "KNOWN_DIFFERENCES",
    "MATCHED",
    "RATE_LIMITED",
    "SKIPPED",
    "SKIPPED_SAMPLES",
    "ConformanceReport",
    "Difference",
    "SampleReport",
    "compare",
    "load_samples",
    "main",
    "replay",
]

#: Where the samples are, inside the package, and how their files are named.
OBSERVED = ("spec", "observed")
_PREFIX, _SUFFIX = "web_response_", ".json"

#: The body the SDK's test server answers a rate-limited call with, with status 429 and a
#: ``retry-after`` header (``tests/slack_sdk/web/mock_web_api_handler.py``): Slack's 429.
RATE_LIMITED: dict[str, Any] = {"ok": False, "error": "ratelimited"}

#: Samples of methods the mock does not serve: name -> why it is not replayed.
SKIPPED_SAMPLES: dict[str, str] = {
    "admin_convo_pagination": "admin.conversations.search (Enterprise Grid admin) is not served",
    "admin_convo_pagination_1": "admin.conversations.search (Enterprise Grid admin) is not served",
    "chat_stream_test": "chat.startStream (streamed messages, 2025) is not served",
    "chat_stream_test_missing_ts": "chat.startStream (streamed messages, 2025) is not served",
    "chat_stream_test_token1": "chat.appendStream (streamed messages, 2025) is not served",
    "chat_stream_test_token2": "chat.stopStream (streamed messages, 2025) is not served",
    "fatal_error_only_once": "the retry after a fatal_error: the mock injects no fatal_error (its outages "
    "are 503 service_unavailable)",
    "users_setPhoto": "users.setPhoto (profile photos) is not served",
}

_TRIMMED = "the SDK's sample is trimmed to what its test reads; Slack (and the mock) send more"
_AUTH_TRIMMED = "the sample of the retried auth.test is trimmed to ok; Slack answers who the token is"
_PLACEHOLDER = "the SDK's sample holds a placeholder"

#: Differences kept on purpose: (operationId, kind, where) -> why.
KNOWN_DIFFERENCES: dict[tuple[str, str, str], str] = {
    ("api_test", "extra key", "body.error"): f"{_TRIMMED}: a failure always names its error code",
    ("api_test", "extra key", "body.args"): "api.test echoes the arguments it was called with (here the "
    "error it was asked to fail with); the sample's call had none",
    **{
        ("auth_test", "extra key", f"body.{key}"): _AUTH_TRIMMED
        for key in ("url", "team", "user", "team_id", "user_id", "bot_id", "is_enterprise_install")
    },
    ("conversations_list", "extra key", "body.response_metadata"): "the last page of a cursor sequence: "
    'Slack sends response_metadata.next_cursor "" (as the conversations_list sample shows), the '
    "pagination samples leave it out",
    ("users_list", "type", "body.members[]"): f"{_PLACEHOLDER}: members as strings ('Bob', 'cat'), not user "
    "objects",
    ("users_list", "type", "body.response_metadata.next_cursor"): f"{_PLACEHOLDER}: a numeric next_cursor; "
    "Slack's cursors are strings",
    ("users_list", "extra key", "body.cache_ts"): f"{_TRIMMED}: the description requires cache_ts",
}


# -- the samples -----------------------------------------------------------------------------------


@cache
def load_samples() -> dict[str, Any]:
    """Every shipped sample, by name (the file's name without ``web_response_`` and ``.json``)."""
    root = resources.files(__package__).joinpath(*OBSERVED)
    found = {}
    for entry in sorted(root.iterdir(), key=lambda entry: entry.name):
        if entry.name.startswith(_PREFIX) and entry.name.endswith(_SUFFIX):
            found[entry.name[len(_PREFIX) : -len(_SUFFIX)]] = json.loads(entry.read_text(encoding="utf-8"))
    return found


# -- the report ------------------------------------------------------------------------------------


@dataclass
class ConformanceReport(Tally):
    """The replay of every sample."""

    samples: list[SampleReport] = field(default_factory=list)

    def outcomes(self) -> Iterable[SampleReport]:
        """Every sample's outcome, in the samples' name order."""
        return self.samples

    def unknown(self) -> list[Difference]:
        """Differences :data:`KNOWN_DIFFERENCES` does not list."""
        return unknown_differences(self.differences, KNOWN_DIFFERENCES)

    def text(self, verbose: bool = True) -> str:
        """The report: totals, each sample's outcome and differences, and what was skipped."""
        lines = [
            f"Chat mock (Slack Web API {CHAT.settings['spec_version']}), {len(self.samples)} SDK samples:",
            f"  replayed through a rest tool and compared {self.replayed}: matched {self.count(MATCHED)}, "
            f"differing {self.count(DIFFERING)}; skipped {self.count(SKIPPED)}",
            "",
        ]
        for sample in self.samples:
            if sample.outcome == SKIPPED:
                lines.append(f"{sample.name}: skipped: {sample.reason}")
                continue
            lines.append(f"{sample.name}: {sample.operation} {sample.outcome}")
            if verbose:
                for difference in sample.differences:
                    known = "known" if difference.signature in KNOWN_DIFFERENCES else "NEW"
                    lines.append(f"  {difference.kind} at {difference.where}: {difference.detail} ({known})")
        lines += ["", f"Distinct differences (operation, kind, where): {len(self.signatures())}"]
        for operation, kind, where in sorted(self.signatures()):
            why = KNOWN_DIFFERENCES.get((operation, kind, where), "NOT A KNOWN DIFFERENCE")
            lines.append(f"  {operation} | {kind} | {where}: {why}")
        return "\n".join(lines)


# -- comparing one answer --------------------------------------------------------------------------


def compare(sample: str, operation: str, recorded: Any, body: Any) -> list[Difference]:
    """How the mock's body differs in shape from a sample of the same method.

    Args:
        sample: The sample's name.
        operation: The method (its ``operationId``); its 200 schema tells a list item's keys.
        recorded: The sample's body.
        body: The mock's body.
    """
    schemas = Schemas(spec_document(), [methods()[operation].response])
    return shape_differences(operation, recorded, body, schemas, recorded_as="in the sample", sample=sample)


# -- the replay ------------------------------------------------------------------------------------


#: A method call of the replay: (operationId, arguments) -> the answer, in process or over HTTP.
Call = Callable[[str, Mapping[str, Any]], CallResult]


def _page_size(call: Call, tool: str, pages: int, arguments: Mapping[str, Any]) -> int:
    """The page size that splits the mock's whole list into ``pages`` pages."""
    whole = call(tool, {**arguments, "limit": 1000})
    key = "channels" if tool == "conversations_list" else "members"
    return max(1, math.ceil(len(whole.body[key]) / pages))


def _pages(call: Call, tool: str, pages: int, arguments: Mapping[str, Any] | None = None) -> list[CallResult]:
    """A list read in ``pages`` cursor pages, each with the cursor the previous one handed out."""
    arguments = dict(arguments or {})
    limit = _page_size(call, tool, pages, arguments)
    results, cursor = [], ""
    for _ in range(pages):
        results.append(call(tool, {**arguments, "limit": limit, **({"cursor": cursor} if cursor else {})}))
        cursor = (results[-1].body.get("response_metadata") or {}).get("next_cursor", "")
    return results


def _rate_limited_auth_test(backend: Backend, call: Call, sample: str) -> tuple[CallResult, list[Difference]]:
    """``auth.test`` under a rate limit: Slack's 429 first, then (after Retry-After) the answer."""
    backend.set_faults(FaultConfig(rate_limit=RateLimit(calls=1, window_seconds=60)))
    found: list[Difference] = []
    call("auth_test", {})
    limited = call("auth_test", {})
    if limited.status != 429:
        found.append(
            Difference("auth_test", "status", f"429 -> {limited.status}", "the rate-limited call", sample)
        )
    if limited.body != RATE_LIMITED:
        found.append(Difference("auth_test", "value", "body", f"{limited.body} for a 429", sample))
    # The wire adds its own (Content-Type, Date, ...): the vendor's headers are the question.
    vendor = {name for name in limited.headers if name.lower() not in WIRE_HEADERS}
    if {name.lower() for name in vendor} != {"retry-after"}:
        found.append(Difference("auth_test", "header", "Retry-After", f"headers {sorted(vendor)}", sample))
    seconds = int(_header(limited.headers, "Retry-After") or "60")
    backend.call("wait", {"seconds": seconds})  # simulated time: the world's own tool, not Slack's
    return call("auth_test", {}), found


def _header(headers: Mapping[str, str], name: str) -> str | None:
    return next((value for key, value in headers.items() if key.lower() == name.lower()), None)


#: Headers any HTTP server adds to an answer (not Slack's own).
WIRE_HEADERS = frozenset({"content-type", "content-length", "date", "server"})

#: Each served sample sequence: (sample names in order, operationId, replay of the whole sequence).
_Replay = Callable[[Call], list[CallResult]]
_SEQUENCES: tuple[tuple[tuple[str, ...], str, _Replay], ...] = (
    (("api_test",), "api_test", lambda call: [call("api_test", {})]),
    (("api_test_false",), "api_test", lambda call: [call("api_test", {"error": "invalid_auth"})]),
    (("conversations_list",), "conversations_list", lambda call: [call("conversations_list", {})]),
    (
        (
            "conversations_list_pagination",
            "conversations_list_pagination_has_page2",
            "conversations_list_pagination_has_page3",
        ),
        "conversations_list",
        lambda call: _pages(call, "conversations_list", 3),
    ),
    (
        ("conversations_list_pagination2", "conversations_list_pagination2_page2"),
        "conversations_list",
        lambda call: _pages(call, "conversations_list", 2),
    ),
    (
        ("users_list_pagination", "users_list_pagination_1"),
        "users_list",
        lambda call: _pages(call, "users_list", 2),
    ),
)
#: The samples of the retried call after a rate limit (the SDK's retry tests call auth.test).
_RATE_LIMITED_SAMPLES = ("rate_limited_only_once", "ratelimited_only_once")


def replay(
    samples: Mapping[str, Any] | None = None,
    *,
    backend: Backend | None = None,
    transport: Transport | None = None,
) -> ConformanceReport:
    """Replay the samples against a tiny workspace (see the module docstring).

    Args:
        samples: The samples by name (default: every shipped one).
        backend: The workspace (default: a fresh tiny one, world seed 0, closed at the end); the
            replay resets it, and sets its faults, between sequences.
        transport: Where the method calls go, as Slack's wire requests (default: in process on
            ``backend``, :class:`~enterprise_envs.mocks._core.http.InProcess`; over HTTP: a
            ``RestClient`` of the server serving ``backend``).

    Returns:
        The report: per sample, its outcome and differences, in the samples' name order.
    """
    samples = load_samples() if samples is None else samples
    owned = backend is None
    world = Backend(CHAT, size="tiny", world_seed=0, surface="rest") if backend is None else backend
    api = CHAT.http_api()
    sender = InProcess(world, api) if transport is None else transport

    def call(tool: str, arguments: Mapping[str, Any]) -> CallResult:
        return sender.send(api.request_for(tool, arguments))

    outcomes: dict[str, SampleReport] = {}
    try:
        for names, operation, play in _SEQUENCES:
            if not all(name in samples for name in names):
                continue
            world.reset(episode_seed=0)
            for name, result in zip(names, play(call), strict=True):
                outcomes[name] = _outcome(
                    name, operation, compare(name, operation, samples[name], result.body)
                )
        for name in _RATE_LIMITED_SAMPLES:
            if name in samples:
                world.reset(episode_seed=0)
                result, found = _rate_limited_auth_test(world, call, name)
                found += compare(name, "auth_test", samples[name], result.body)
                outcomes[name] = _outcome(name, "auth_test", found)
    finally:
        if owned:
            world.close()
    for name in samples:
        if name not in outcomes:
            reason = SKIPPED_SAMPLES.get(name, "not the answer of a method the mock serves")
            outcomes[name] = SampleReport(name, "", SKIPPED, reason)
    return ConformanceReport([outcomes[name] for name in sorted(outcomes)])


def _outcome(name: str, operation: str, found: Sequence[Difference]) -> SampleReport:
    return SampleReport(name, operation, verdict(found), "", tuple(found))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the conformance report (``python -m enterprise_envs.mocks.chat.conformance``)."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--brief", action="store_true", help="outcomes only, no per-difference lines")
    args = parser.parse_args(argv)
    report = replay()
    print(report.text(verbose=not args.brief))
    return 1 if report.unknown() else 0


if __name__ == "__main__":
    raise SystemExit(main())
