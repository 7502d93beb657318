"""Chat clients for the LLM user backend: a tiny protocol and three implementations.

- :class:`OpenAIChatClient`: any OpenAI-compatible endpoint (optional extra ``llm``; the ``openai``
  package is imported only when the client is built).
- :class:`CassetteClient`: replays recorded replies from a JSON file, keyed by a stable hash of the
  request (:func:`request_key`); with an inner client it records what it does not have.
- :class:`ScriptedClient`: returns given replies in order (tests feed it known-bad replies).

A cassette file::

    {"version": 1,
     "interactions": [{"key": "<sha256>", "request": {...}, "replies": ["..."]}]}

``key`` is ``sha256`` of the canonical JSON of ``request`` (sorted keys, no spaces, UTF-8); a
hand-written interaction may leave ``key`` out, and a present one must match its request.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = [
    "INSTALL_HINT",
    "NO_KEY",
    "CassetteClient",
    "CassetteMiss",
    "ChatClient",
    "ChatMessage",
    "OpenAIChatClient",
    "ScriptedClient",
    "api_key_from_env",
    "canonical_request",
    "request_key",
]

#: Chat messages in OpenAI format: ``{"role": "system" | "user" | "assistant", "content": str}``.
ChatMessage = Mapping[str, str]

INSTALL_HINT = "the LLM user backend needs the openai package: pip install 'enterprise-envs[llm]'"

#: What the openai client is given as a key for endpoints that need none (it insists on a value).
NO_KEY = "unused"


def api_key_from_env(api_key_env: str | None, base_url: str | None) -> str:
    """The API key for an OpenAI-compatible endpoint, read from the environment by one rule.

    The key lives in the environment variable ``api_key_env`` (never in arguments or configs). It
    is read when that variable is set, and required when no ``base_url`` is given (the openai
    default endpoint needs one); a local server (``base_url`` given, variable unset) gets the
    placeholder :data:`NO_KEY`, so no secret is sent to it.

    Args:
        api_key_env: Name of the variable holding the key (``None``: the endpoint needs no key).
        base_url: The endpoint (``None``: the openai package's default).

    Returns:
        The key, or :data:`NO_KEY`.

    Raises:
        ValueError: No ``base_url`` and the variable is not set.
    """
    if api_key_env is None:
        return NO_KEY
    key = os.environ.get(api_key_env, "")
    if key:
        return key
    if base_url is None:
        raise ValueError(
            f"environment variable {api_key_env} (the API key) is not set; a local endpoint given with "
            "a base URL needs none"
        )
    return NO_KEY


class ChatClient(Protocol):
    """Anything that completes a chat: ``n`` completions of the messages, as strings."""

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 1.0,
        n: int = 1,
        response_format: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """``n`` completions of ``messages``."""
        ...


def canonical_request(
    messages: Sequence[ChatMessage],
    *,
    temperature: float,
    n: int,
    response_format: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The request as plain JSON data (what a cassette stores and hashes)."""
    return {
        "messages": [{"role": str(m["role"]), "content": str(m["content"])} for m in messages],
        "temperature": float(temperature),
        "n": int(n),
        "response_format": dict(response_format) if response_format is not None else None,
    }


def request_key(request: Mapping[str, Any]) -> str:
    """The stable key of a canonical request: sha256 of its canonical JSON (never ``hash()``)."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class OpenAIChatClient:
    """An OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, LiteLLM, ...).

    Args:
        model: The model name the endpoint serves.
        base_url: The endpoint (``None``: the openai package's default, or ``OPENAI_BASE_URL``).
        api_key_env: Name of the environment variable holding the API key; ``None`` for endpoints
            that need no key. The key itself is never an argument, so it never lands in configs.
        timeout: Seconds per request.
        max_tokens: Completion length cap (``None``: the endpoint's default).

    Raises:
        ImportError: The ``openai`` package is not installed (``pip install 'enterprise-envs[llm]'``).
        ValueError: ``api_key_env`` names a variable that is not set.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_tokens: int | None = None,
    ) -> None:
        try:
            import openai
        except ImportError:
            raise ImportError(INSTALL_HINT) from None
        api_key = api_key_from_env(api_key_env, base_url)
        self.model = model
        self.max_tokens = max_tokens
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 1.0,
        n: int = 1,
        response_format: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """``n`` completions from the endpoint."""
        options: dict[str, Any] = {}
        if response_format is not None:
            options["response_format"] = dict(response_format)
        if self.max_tokens is not None:
            options["max_tokens"] = self.max_tokens
        response = self._client.chat.completions.create(
            model=self.model,
            messages=[dict(message) for message in messages],
            temperature=temperature,
            n=n,
            **options,
        )
        return [choice.message.content or "" for choice in response.choices]


class CassetteMiss(LookupError):
    """A cassette has no recorded reply for a request (and no client to record one with)."""


class CassetteClient:
    """Replays recorded replies; records missing ones when given an inner client.

    Args:
        path: The cassette's JSON file.
        record_with: A real client; requests the cassette lacks are sent to it and saved. Without
            one (CI), a missing request raises :class:`CassetteMiss`.
    """

    def __init__(self, path: str | os.PathLike[str], *, record_with: ChatClient | None = None) -> None:
        self.path = Path(path)
        self.record_with = record_with
        self._interactions: dict[str, dict[str, Any]] = {}
        if self.path.exists():
            self._load()
        elif record_with is None:
            raise FileNotFoundError(f"cassette {self.path} does not exist (record it with record_with=...)")

    def _load(self) -> None:
        data = json.loads(self.path.read_text(encoding="utf-8"))
        for index, interaction in enumerate(data.get("interactions", [])):
            request = interaction.get("request")
            key = interaction.get("key")
            if request is not None:
                actual = request_key(request)
                if key is not None and key != actual:
                    raise ValueError(
                        f"cassette {self.path}: interaction {index} has key {key}, but its request hashes "
                        f"to {actual}"
                    )
                key = actual
            if key is None:
                raise ValueError(f"cassette {self.path}: interaction {index} has neither key nor request")
            replies = interaction.get("replies")
            if not isinstance(replies, list) or not all(isinstance(reply, str) for reply in replies):
                raise ValueError(
                    f"cassette {self.path}: interaction {index}: replies must be a list of strings"
                )
            self._interactions[key] = {"key": key, "request": request, "replies": replies}

    def save(self) -> None:
        """Write the cassette (interactions sorted by key, so re-recording gives small diffs)."""
        interactions = [self._interactions[key] for key in sorted(self._interactions)]
        text = json.dumps({"version": 1, "interactions": interactions}, indent=2, ensure_ascii=False)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(text + "\n", encoding="utf-8")

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 1.0,
        n: int = 1,
        response_format: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """The recorded replies for this exact request."""
        request = canonical_request(messages, temperature=temperature, n=n, response_format=response_format)
        key = request_key(request)
        if key in self._interactions:
            return list(self._interactions[key]["replies"])
        if self.record_with is None:
            last = request["messages"][-1]["content"] if request["messages"] else ""
            raise CassetteMiss(
                f"cassette {self.path} has no reply for request {key} ({len(request['messages'])} messages, "
                f"last one starts {last[:80]!r}); record it with CassetteClient(path, record_with=client)"
            )
        replies = self.record_with.complete(
            messages, temperature=temperature, n=n, response_format=response_format
        )
        self._interactions[key] = {"key": key, "request": request, "replies": list(replies)}
        self.save()
        return list(replies)


class ScriptedClient:
    """Returns the given replies in order, one item per call.

    Each item is one call's answer: a string (one completion) or a list of strings. The requests
    are kept in :attr:`requests` for assertions.
    """

    def __init__(self, replies: Iterable[str | Sequence[str]]) -> None:
        self._replies = [[reply] if isinstance(reply, str) else list(reply) for reply in replies]
        self.requests: list[dict[str, Any]] = []

    @property
    def remaining(self) -> int:
        """Calls left before the script runs out."""
        return len(self._replies) - len(self.requests)

    def complete(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float = 1.0,
        n: int = 1,
        response_format: Mapping[str, Any] | None = None,
    ) -> list[str]:
        """The next scripted answer."""
        if not self.remaining:
            raise LookupError(f"scripted client ran out of replies after {len(self.requests)} calls")
        answer = self._replies[len(self.requests)]
        self.requests.append(
            canonical_request(messages, temperature=temperature, n=n, response_format=response_format)
        )
        return list(answer)
