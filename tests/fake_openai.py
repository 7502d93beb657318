"""A scripted fake OpenAI-compatible server on 127.0.0.1, for tests of model-backed agents.

:class:`FakeOpenAIServer` is a real HTTP server (stdlib ``ThreadingHTTPServer`` on an ephemeral
port) serving ``POST /v1/chat/completions`` in OpenAI's response shape and ``GET /v1/models``. A
Python callable scripts it: ``policy(request_json) -> reply``, where the reply is

- a turn: ``{"content": str | None, "tool_calls": [{"name": str, "arguments": str}, ...]}`` (both
  keys optional; the server gives each call an id ``call_<n>``, or keeps an ``"id"`` the policy set);
- an HTTP fault: ``{"status": 429, "retry_after": 0}`` or ``{"status": 500}`` (optional
  ``"message"``; ``retry_after`` becomes a ``Retry-After`` header);
- optionally ``"delay": seconds`` to answer late (for client timeouts).

Usage numbers are deterministic: ``prompt_tokens`` is the length of the request's JSON
(messages and tools) // 4, ``completion_tokens`` the length of the reply's text and calls // 4.
The server is thread-safe and records every request (:attr:`FakeOpenAIServer.requests`), with the
headers it saw, for assertions.

:class:`OraclePolicy` makes the fake model play each scenario's reference solution: it plays the
:class:`~enterprise_envs.agents.OracleAgent` in an env made and reset the same way, records its
actions per episode (keyed by the user's opening message), and answers a conversation's request
number ``i`` (``i`` = assistant messages already in the request) with the oracle's action ``i``.

Example::

    with FakeOpenAIServer(OraclePolicy("ITSM-v0", seeds=[0, 1])) as server:
        agent = LLMAgent("fake-model", base_url=server.base_url)
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import gymnasium

import enterprise_envs  # noqa: F401  (registers the Gym ids)
from enterprise_envs.agents import OracleAgent

#: A policy: the request's JSON body -> a reply (see the module docstring).
Policy = Callable[[dict[str, Any]], Mapping[str, Any]]

CREATED = 1_700_000_000  # a fixed "created" stamp: responses are deterministic


@dataclass
class RecordedRequest:
    """One request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None


@dataclass
class FakeOpenAIServer:
    """A scripted OpenAI-compatible endpoint on ``127.0.0.1`` (a context manager).

    Args:
        policy: Answers each chat-completion request.
        models: The model names ``GET /v1/models`` lists (any model name is served).
    """

    policy: Policy
    models: Sequence[str] = ("fake-model",)
    requests: list[RecordedRequest] = field(default_factory=list)
    #: Exceptions the policy raised (each answered with a 500); tests assert this stays empty.
    policy_errors: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._call_counter = 0
        self._completion_counter = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        """Listen on an ephemeral port of 127.0.0.1 in a background thread."""
        handler = _handler_for(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on."""
        assert self._server is not None, "start the server first"
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What an OpenAI client takes as ``base_url``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def completions(self) -> list[RecordedRequest]:
        """The chat-completion requests received, in arrival order."""
        with self._lock:
            return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # -- answering -------------------------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _next_call_id(self) -> str:
        with self._lock:
            self._call_counter += 1
            return f"call_{self._call_counter}"

    def _completion(self, body: dict[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
        """(status, headers, JSON body) for one chat-completion request."""
        try:
            reply = dict(self.policy(body))
        except Exception as error:  # the script's bug: visible to the test, a 500 to the client
            with self._lock:
                self.policy_errors.append(f"{type(error).__name__}: {error}")
            return 500, {}, _error_body(f"the fake policy failed: {error}", "server_error")
        if reply.get("delay"):
            time.sleep(float(reply["delay"]))
        if "status" in reply:
            status = int(reply["status"])
            headers = {}
            if reply.get("retry_after") is not None:
                headers["Retry-After"] = str(reply["retry_after"])
            message = reply.get("message") or HTTPStatus(status).phrase
            kind = "rate_limit_exceeded" if status == 429 else "server_error" if status >= 500 else "error"
            return status, headers, _error_body(message, kind)
        calls = [
            {
                "id": call.get("id") or self._next_call_id(),
                "type": "function",
                "function": {"name": call["name"], "arguments": call.get("arguments", "{}")},
            }
            for call in reply.get("tool_calls") or []
        ]
        content = reply.get("content")
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if calls:
            message["tool_calls"] = calls
        prompt_tokens = len(json.dumps([body.get("messages"), body.get("tools")], sort_keys=True)) // 4
        completion_tokens = max(1, len(json.dumps([content, calls], sort_keys=True)) // 4)
        with self._lock:
            self._completion_counter += 1
            number = self._completion_counter
        return (
            200,
            {},
            {
                "id": f"chatcmpl-{number}",
                "object": "chat.completion",
                "created": CREATED,
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if calls else "stop",
                        "logprobs": None,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )

    def _models(self) -> dict[str, Any]:
        return {
            "object": "list",
            "data": [
                {"id": name, "object": "model", "created": CREATED, "owned_by": "fake"}
                for name in self.models
            ],
        }


def _error_body(message: str, kind: str) -> dict[str, Any]:
    """OpenAI's error envelope."""
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


def _handler_for(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # Headers and body go out in two writes: without this, Nagle's algorithm and the
            # client's delayed ACK add ~40 ms to every response.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet test output
            return

        def _send(
            self, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None
        ) -> None:
            data = json.dumps(body).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (its timeout)
                self.close_connection = True

        def _headers(self) -> dict[str, str]:
            return {name.lower(): value for name, value in self.headers.items()}

        def do_GET(self) -> None:  # noqa: N802 - http.server's naming
            server._record(RecordedRequest("GET", self.path, self._headers(), None))
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, server._models())
            else:
                self._send(404, _error_body(f"no route {self.path}", "invalid_request_error"))

        def do_POST(self) -> None:  # noqa: N802 - http.server's naming
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw) if raw else {}
            except json.JSONDecodeError:
                server._record(RecordedRequest("POST", self.path, self._headers(), None))
                self._send(400, _error_body("the body is not JSON", "invalid_request_error"))
                return
            server._record(RecordedRequest("POST", self.path, self._headers(), body))
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error_body(f"no route {self.path}", "invalid_request_error"))
                return
            status, headers, answer = server._completion(body)
            self._send(status, answer, headers)

    return Handler


# -- ready-made policies -------------------------------------------------------------------------


def assistant_turns(request: Mapping[str, Any]) -> int:
    """How many assistant messages the request's conversation already has."""
    return sum(1 for message in request.get("messages", []) if message.get("role") == "assistant")


def opening(request: Mapping[str, Any]) -> str:
    """The conversation's first user message (the user's opening)."""
    for message in request.get("messages", []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


def scripted(replies: Iterable[Mapping[str, Any]]) -> Policy:
    """A policy answering each request (across conversations) with the next reply, in order."""
    queue = list(replies)
    lock = threading.Lock()
    position = [0]

    def policy(request: dict[str, Any]) -> Mapping[str, Any]:
        with lock:
            if position[0] >= len(queue):
                raise LookupError(f"the script ran out after {len(queue)} replies")
            reply = queue[position[0]]
            position[0] += 1
        return reply

    return policy


class OraclePolicy:
    """The fake model plays each episode's reference solution (the :class:`OracleAgent`'s actions).

    Args:
        env_id: The Gym id, e.g. ``"ITSM-v0"``.
        seeds: The reset seeds the agent under test will play (each episode is precomputed).
        merge_parallel: Send each pair of consecutive oracle tool calls as one assistant turn with two
            tool calls (the env runs them in order and returns the same results).
        fault_every: Answer every ``fault_every``-th request (counted across conversations, from 1)
            with ``fault_status`` once; the retry is the next request, so it is served.
        fault_status: The HTTP status of those faults (429 comes with ``Retry-After: 0``).
        end_text: What the model says where the oracle ends the episode, and after its script.
        options: The ``options`` the agent's env is reset with (e.g. ``{"scenario": ...}``).
        **env_kwargs: The kwargs of ``gymnasium.make`` (the same as the agent's env's).

    Raises:
        ValueError: Two seeds open with the same user message but play differently.
    """

    def __init__(
        self,
        env_id: str,
        seeds: Iterable[int],
        *,
        merge_parallel: bool = False,
        fault_every: int | None = None,
        fault_status: int = 429,
        end_text: str = "Goodbye.",
        options: Mapping[str, Any] | None = None,
        **env_kwargs: Any,
    ) -> None:
        if fault_every is not None and fault_every < 2:
            raise ValueError("fault_every must be at least 2 (the retry after a fault must be served)")
        self.merge_parallel = merge_parallel
        self.fault_every = fault_every
        self.fault_status = fault_status
        self.end_text = end_text
        #: The oracle's actions per opening message.
        self.actions: dict[str, list[dict[str, Any]]] = {}
        #: The assistant turns sent per opening message (actions, merged when asked).
        self.turns: dict[str, list[list[dict[str, Any]]]] = {}
        self.faults_sent = 0
        self._requests = 0
        self._lock = threading.Lock()
        env = gymnasium.make(env_id, **env_kwargs)
        try:
            for seed in seeds:
                text, actions = _oracle_actions(env, seed, options)
                if text in self.actions and self.actions[text] != actions:
                    raise ValueError(f"seed {seed}: another seed opens with the same message {text[:60]!r}")
                self.actions[text] = actions
                self.turns[text] = _turns(actions, merge_parallel)
        finally:
            env.close()

    def __call__(self, request: dict[str, Any]) -> Mapping[str, Any]:
        """The reply to one chat-completion request."""
        with self._lock:
            self._requests += 1
            fault = self.fault_every is not None and self._requests % self.fault_every == 0
            if fault:
                self.faults_sent += 1
        if fault:
            return {"status": self.fault_status, "retry_after": 0 if self.fault_status == 429 else None}
        text = opening(request)
        if text not in self.turns:
            raise KeyError(f"no precomputed episode opens with {text[:80]!r}")
        turns = self.turns[text]
        index = assistant_turns(request)
        if index >= len(turns):
            return {"content": self.end_text}
        return _reply(turns[index], self.end_text)


def _oracle_actions(
    env: gymnasium.Env, seed: int, options: Mapping[str, Any] | None
) -> tuple[str, list[dict[str, Any]]]:
    """(opening message, the oracle's actions) of the episode ``seed``."""
    observation, info = env.reset(seed=seed, options=dict(options or {}))
    text = str(observation["content"])  # what the agent's first user message will say
    agent = OracleAgent()
    agent.reset(env, info)
    actions: list[dict[str, Any]] = []
    done = False
    while not done:
        action = agent.act(observation)
        actions.append(json.loads(json.dumps(action)))  # a copy the oracle cannot change later
        observation, _, terminated, truncated, _ = env.step(action)
        done = terminated or truncated
    return text, actions


def _turns(actions: list[dict[str, Any]], merge_parallel: bool) -> list[list[dict[str, Any]]]:
    """Group actions into assistant turns: one each, or consecutive tool-call pairs merged."""
    turns: list[list[dict[str, Any]]] = []
    position = 0
    while position < len(actions):
        action = actions[position]
        following = actions[position + 1] if position + 1 < len(actions) else None
        if merge_parallel and "tool" in action and following is not None and "tool" in following:
            turns.append([action, following])
            position += 2
        else:
            turns.append([action])
            position += 1
    return turns


def _reply(turn: list[dict[str, Any]], end_text: str) -> dict[str, Any]:
    """A turn of oracle actions as the fake model's reply."""
    if "tool" in turn[0]:
        return {
            "content": None,
            "tool_calls": [
                {"name": action["tool"], "arguments": json.dumps(action.get("arguments", {}))}
                for action in turn
            ],
        }
    (action,) = turn
    if "message" in action:
        return {"content": action["message"]}
    return {"content": end_text}


__all__ = [
    "FakeOpenAIServer",
    "OraclePolicy",
    "Policy",
    "RecordedRequest",
    "assistant_turns",
    "opening",
    "scripted",
]
