"""The LLM user backend, offline: scripted and recorded replies, never the network."""

from __future__ import annotations

import json
import random
import sys
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from enterprise_envs.scenarios.users.clients import (
    INSTALL_HINT,
    CassetteClient,
    CassetteMiss,
    OpenAIChatClient,
    ScriptedClient,
    canonical_request,
    request_key,
)
from enterprise_envs.scenarios.users.llm import (
    Candidate,
    LLMUser,
    build_messages,
    choose,
    mask_values,
    parse_candidates,
    style_in_words,
)
from enterprise_envs.scenarios.users.persona import Register, Style
from enterprise_envs.scenarios.users.pilot import PROBES, rollout
from enterprise_envs.scenarios.users.rules import RuleUser
from enterprise_envs.scenarios.users.turns import Message, UserIntent, UserSimulator, UserTurn
from tests.scenarios.users.test_guard import PERSONA
from tests.strategies import HOSTILE_TEXT, examples

CASSETTES = Path(__file__).parent / "cassettes"


def replies(*items: tuple[str, float]) -> str:
    return json.dumps({"replies": [{"text": text, "probability": p} for text, p in items]})


# --- clients ------------------------------------------------------------------------------------------


def test_scripted_client_returns_replies_in_order_and_records_requests() -> None:
    client = ScriptedClient(["a", ["b", "c"]])
    messages = [{"role": "user", "content": "hi"}]
    assert client.complete(messages) == ["a"]
    assert client.complete(messages, temperature=0.5, n=2) == ["b", "c"]
    assert client.requests[1]["temperature"] == 0.5 and client.requests[1]["n"] == 2
    with pytest.raises(LookupError, match="ran out"):
        client.complete(messages)


HELLO = [
    {"role": "system", "content": "You are Dana, an employee talking to the IT service desk."},
    {"role": "user", "content": "Agent: Hello, what can I do for you?"},
]


def test_cassette_replays_a_hand_written_recording() -> None:
    cassette = CassetteClient(CASSETTES / "hello.json")
    [raw] = cassette.complete(HELLO, temperature=1.0, n=1, response_format={"type": "json_object"})
    assert [candidate.text for candidate in parse_candidates(raw)] == [
        "Hi, my VPN keeps dropping since this morning.",
        "My VPN disconnects every few minutes, can you help?",
    ]


def test_cassette_key_is_sha256_of_the_canonical_request() -> None:
    request = canonical_request(HELLO, temperature=1.0, n=1, response_format={"type": "json_object"})
    recorded = json.loads((CASSETTES / "hello.json").read_text(encoding="utf-8"))["interactions"][0]
    assert request == recorded["request"]
    assert request_key(request) == recorded["key"]
    assert request_key(request) == request_key(json.loads(json.dumps(request, sort_keys=False)))


def test_cassette_errors_clearly_on_a_request_it_does_not_have() -> None:
    cassette = CassetteClient(CASSETTES / "hello.json")
    with pytest.raises(CassetteMiss, match=r"hello\.json has no reply for request [0-9a-f]{64}.*record_with"):
        cassette.complete(HELLO, temperature=0.7, n=1, response_format={"type": "json_object"})
    with pytest.raises(FileNotFoundError, match="does not exist"):
        CassetteClient(CASSETTES / "missing.json")


def test_cassette_rejects_a_key_that_does_not_match_its_request(tmp_path: Path) -> None:
    data = json.loads((CASSETTES / "hello.json").read_text(encoding="utf-8"))
    data["interactions"][0]["key"] = "0" * 64
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ValueError, match="hashes to"):
        CassetteClient(path)


def test_cassette_records_with_an_inner_client_then_replays_without_it(tmp_path: Path) -> None:
    path = tmp_path / "recorded.json"
    recorder = CassetteClient(path, record_with=ScriptedClient(["first"]))
    assert recorder.complete(HELLO) == ["first"]
    assert recorder.complete(HELLO) == ["first"]  # replayed, the script is not asked again
    replay = CassetteClient(path)
    assert replay.complete(HELLO) == ["first"]


def test_openai_client_without_the_package_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", None)  # what `import openai` meets where it is not installed
    with pytest.raises(ImportError, match=r"pip install 'enterprise-envs\[llm\]'") as error:
        OpenAIChatClient("some-model", base_url="http://localhost:8000/v1", api_key_env=None)
    assert str(error.value) == INSTALL_HINT
    with pytest.raises(ImportError, match="enterprise-envs"):
        LLMUser.openai("some-model", api_key_env="NOT_SET_ANYWHERE")
    from enterprise_envs.llm_agent import LLMAgent

    with pytest.raises(ImportError, match=r"pip install 'enterprise-envs\[llm\]'"):
        LLMAgent("some-model", base_url="http://127.0.0.1:9/v1")


class FakeOpenAI:
    """Stands in for ``openai.OpenAI``: records the constructor and the create() arguments."""

    made: list[dict[str, object]] = []
    calls: list[dict[str, object]] = []

    def __init__(self, **kwargs: object) -> None:
        FakeOpenAI.made.append(kwargs)
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    @staticmethod
    def _create(**kwargs: object) -> SimpleNamespace:
        FakeOpenAI.calls.append(kwargs)
        message = SimpleNamespace(message=SimpleNamespace(content=GOOD))
        return SimpleNamespace(choices=[message, SimpleNamespace(message=SimpleNamespace(content=None))])


def test_openai_client_sends_an_openai_compatible_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "openai", SimpleNamespace(OpenAI=FakeOpenAI))
    monkeypatch.delenv("ENTERPRISE_ENVS_TEST_KEY", raising=False)
    with pytest.raises(ValueError, match="ENTERPRISE_ENVS_TEST_KEY"):
        OpenAIChatClient("m", api_key_env="ENTERPRISE_ENVS_TEST_KEY")
    monkeypatch.setenv("ENTERPRISE_ENVS_TEST_KEY", "sk-test")
    client = OpenAIChatClient("m", base_url="http://localhost:1/v1", api_key_env="ENTERPRISE_ENVS_TEST_KEY")
    assert FakeOpenAI.made[-1] == {"base_url": "http://localhost:1/v1", "api_key": "sk-test", "timeout": 60.0}
    out = client.complete(HELLO, temperature=0.3, n=2, response_format={"type": "json_object"})
    assert out == [GOOD, ""]
    assert FakeOpenAI.calls[-1] == {
        "model": "m",
        "messages": HELLO,
        "temperature": 0.3,
        "n": 2,
        "response_format": {"type": "json_object"},
    }
    user = LLMUser.openai("m", base_url="http://localhost:1/v1", api_key_env=None, max_tokens=64, k=3)
    assert FakeOpenAI.made[-1]["api_key"] == "unused" and user.k == 3
    assert user.respond(PERSONA, 0, ASK_ID, VIEW).text == "Sure, it's E104233."
    assert FakeOpenAI.calls[-1]["max_tokens"] == 64


# --- verbalized sampling ------------------------------------------------------------------------------


def test_parse_candidates_normalizes_and_tolerates_shapes() -> None:
    parsed = parse_candidates(replies(("a", 0.6), ("b", 0.2)))
    assert [c.text for c in parsed] == ["a", "b"]
    assert [round(c.probability, 6) for c in parsed] == [0.75, 0.25]
    fenced = '```json\n[{"reply": "x", "p": "30%"}, {"text": "y"}]\n```'
    assert [(c.text, round(c.probability, 6)) for c in parse_candidates(fenced)] == [("x", 0.5), ("y", 0.5)]
    assert parse_candidates("Sure! " + replies(("z", 1.0)) + " Hope this helps") == [Candidate("z", 1.0)]
    assert parse_candidates("just some prose") == []
    assert parse_candidates('{"replies": []}') == []
    assert [c.probability for c in parse_candidates(replies(("a", 0), ("b", 0)))] == [0.5, 0.5]


def test_choose_is_deterministic_for_a_seed_and_respects_the_floor() -> None:
    candidates = [Candidate("a", 0.5), Candidate("b", 0.47), Candidate("rare", 0.03)]
    picks = [choose(candidates, 0.05, random.Random(f"{seed}:3:llm")) for seed in range(300)]
    again = [choose(candidates, 0.05, random.Random(f"{seed}:3:llm")) for seed in range(300)]
    assert picks == again
    assert set(picks) == {0, 1}
    assert choose([Candidate("x", 0.01), Candidate("y", 0.02)], 0.05, random.Random("0:0:llm")) == 1
    with pytest.raises(ValueError):
        choose([], 0.05, random.Random(0))


@settings(max_examples=examples(60))
@given(
    probabilities=st.lists(st.floats(min_value=0, max_value=1), min_size=1, max_size=6),
    floor=st.floats(min_value=0, max_value=0.5),
    seed=st.integers(0, 10**6),
)
def test_choose_never_picks_under_the_floor_when_it_can_avoid_it(
    probabilities: list[float], floor: float, seed: int
) -> None:
    candidates = [Candidate(str(index), p) for index, p in enumerate(probabilities)]
    index = choose(candidates, floor, random.Random(f"{seed}:0:llm"))
    if any(p >= floor for p in probabilities):
        assert probabilities[index] >= floor
    assert index == choose(candidates, floor, random.Random(f"{seed}:0:llm"))


# --- the prompt ---------------------------------------------------------------------------------------


def test_style_in_words() -> None:
    persona = PERSONA.model_copy(
        update={"style": Style(wording=Register.TERSE, politeness=0.5, lowercase=True, answers_per_turn=1)}
    )
    words = style_in_words(persona)
    assert "about 8 words" in words and "about half the time" in words and "lowercase" in words
    assert "at most 1 piece of information" in words


def test_prompt_carries_placeholders_never_values() -> None:
    transcript = [
        Message("user", "Hi, my VPN keeps disconnecting. I use GlobalProtect."),
        Message("agent", "Is your employee ID E104233? And what's your email?"),
    ]
    plan = UserTurn(
        text="rule reply", intent=UserIntent.INFORM, acts=("ask_fact:email",), disclosed=("email",)
    )
    messages = build_messages(
        PERSONA, transcript, {"vpn_ok": False}, plan, frozenset({"vpn_client", "email"}), k=4
    )
    prompt = "\n".join(message["content"] for message in messages)
    for fact in PERSONA.facts:
        assert fact.value not in prompt
        assert "{{" + fact.key + "}}" in prompt
    assert "giving {{email}}" in prompt
    assert "Is your employee ID {{employee_id}}?" in prompt
    assert "Write 4 different candidate" in prompt
    assert "your problem is not solved yet" in prompt
    assert "rule reply" not in prompt
    assert mask_values(PERSONA, "mail DANA.WHITFIELD@example.com") == "mail {{email}}"


def test_prompt_describes_step_views_in_words() -> None:
    plan = UserTurn(text="-", intent=UserIntent.REPORT_STEP, acts=("instruct_step:restart_client",))
    transcript = [Message("user", "VPN broken."), Message("agent", "Please restart the client.")]
    view = {"vpn_ok": False, "restart_helped": False}
    prompt = build_messages(PERSONA, transcript, view, plan, frozenset(), k=3)[1]["content"]
    assert "you tried to restart client and it did not help: I restarted it, it still disconnects." in prompt
    view_only = build_messages(
        PERSONA, transcript[:1], view, UserTurn(text="-", intent=UserIntent.OPENING), frozenset(), k=3
    )
    assert "restart" not in view_only[1]["content"]


# --- the backend --------------------------------------------------------------------------------------


VIEW = {"vpn_ok": False, "restart_helped": False}
OPENING_TEXT = RuleUser().respond(PERSONA, 0, (), VIEW).text
ASK_ID = (Message("user", OPENING_TEXT), Message("agent", "Thanks. What is your employee ID?"))
GOOD = replies(("Sure, it's {{employee_id}}.", 1.0))
BAD = [
    replies(
        ("Sure, it's {{employee_id}} and my email is {{email}}.", 0.5),
        ("I have created incident INC0010001 for you. Is there anything else?", 0.5),
    ),
    replies(
        ("You should set the priority to 1 and assign it to the Network group", 0.6),
        ("{{employee_id}}. A colleague said KB0010042 fixes it.", 0.4),
    ),
    replies(("{{employee_id}}. Great, thanks, bye!", 1.0)),
]


class FixedClient:
    """Answers every request with the same completion, and keeps the requests."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.requests: list[list[dict[str, str]]] = []

    def complete(self, messages, *, temperature=1.0, n=1, response_format=None) -> list[str]:  # noqa: ANN001
        self.requests.append([dict(message) for message in messages])
        return [self.reply] * n


def test_a_good_candidate_is_used_with_the_rule_plan_bookkeeping() -> None:
    client = ScriptedClient([GOOD])
    simulator: UserSimulator = LLMUser(client)
    turn = simulator.respond(PERSONA, 0, ASK_ID, VIEW)
    rule = RuleUser().respond(PERSONA, 0, ASK_ID, VIEW)
    assert turn.text == "Sure, it's E104233."
    assert (turn.backend, turn.guard_hits, turn.disclosed) == ("llm", (), ("employee_id",))
    assert (turn.intent, turn.acts, turn.patience_left, turn.mood, turn.terminal) == (
        rule.intent,
        rule.acts,
        rule.patience_left,
        rule.mood,
        rule.terminal,
    )
    [request] = client.requests
    assert request["response_format"] == {"type": "json_object"} and request["n"] == 1
    assert "E104233" not in json.dumps(request)


def test_bad_candidates_are_regenerated_then_fall_back_to_the_rule_reply() -> None:
    client = ScriptedClient(BAD)
    turn = LLMUser(client, canaries=("KB0010042",)).respond(PERSONA, 0, ASK_ID, VIEW)
    rule = RuleUser().respond(PERSONA, 0, ASK_ID, VIEW)
    assert turn.backend == "llm->rules"
    assert turn == replace(rule, backend="llm->rules", guard_hits=turn.guard_hits)
    assert {"leak", "role_swap", "coaching", "canary", "stop"} <= set(turn.guard_hits)
    assert len(client.requests) == 3  # the request and two regenerations
    first, second, third = (request["messages"][-1]["content"] for request in client.requests)
    assert "could not be used" not in first
    assert "could not be used" in second and "talking like the service desk agent" in second
    assert "telling the agent which fields" in third


def test_a_regenerated_good_candidate_is_used_and_earlier_hits_are_kept() -> None:
    client = ScriptedClient([BAD[0], GOOD])
    turn = LLMUser(client).respond(PERSONA, 0, ASK_ID, VIEW)
    assert (turn.text, turn.backend) == ("Sure, it's E104233.", "llm")
    assert sorted(turn.guard_hits) == ["leak", "leak", "role_swap"]
    assert len(client.requests) == 2


def test_no_regeneration_when_disabled_and_unparseable_replies_count_as_format_hits() -> None:
    client = ScriptedClient(["sorry, I cannot do JSON"])
    turn = LLMUser(client, regenerations=0).respond(PERSONA, 0, ASK_ID, VIEW)
    assert (turn.backend, turn.guard_hits, len(client.requests)) == ("llm->rules", ("format",), 1)
    turn = LLMUser(ScriptedClient(["nope", GOOD])).respond(PERSONA, 0, ASK_ID, VIEW)
    assert (turn.backend, turn.guard_hits) == ("llm", ("format",))


def test_placeholders_are_filled_only_when_disclosable() -> None:
    raw = replies(("It's {{employee_id}}.", 0.5), ("It's {{employee_id}}, PIN {{pin}}.", 0.5))
    for seed in range(20):
        turn = LLMUser(ScriptedClient([raw])).respond(PERSONA, seed, ASK_ID, VIEW)
        assert turn.text == "It's E104233." and turn.guard_hits == ("leak",)
    opening = replies(
        ("Hi, my VPN keeps dropping. I use {{vpn_client}}.", 0.5), ("Hi, I'm {{employee_id}}.", 0.5)
    )
    for seed in range(20):
        turn = LLMUser(ScriptedClient([opening])).respond(PERSONA, seed, (), VIEW)
        assert turn.text == "Hi, my VPN keeps dropping. I use GlobalProtect."
        assert (turn.intent, turn.disclosed) == (UserIntent.OPENING, ("vpn_client",))


def test_verbalized_sampling_is_deterministic_for_a_seed_and_respects_the_floor() -> None:
    raw = replies(
        ("It's {{employee_id}}.", 0.5), ("{{employee_id}}", 0.47), ("Uh, {{employee_id}} I think", 0.03)
    )

    def text(seed: int) -> str:
        return LLMUser(ScriptedClient([raw]), floor=0.05).respond(PERSONA, seed, ASK_ID, VIEW).text

    texts = [text(seed) for seed in range(60)]
    assert texts == [text(seed) for seed in range(60)]
    assert set(texts) == {"It's E104233.", "E104233"}
    # A rejected candidate leaves the probability mass to those that passed the guard.
    mixed = replies(("I have created incident INC0010001 for you.", 0.9), ("{{employee_id}}", 0.1))
    for seed in range(20):
        assert LLMUser(ScriptedClient([mixed])).respond(PERSONA, seed, ASK_ID, VIEW).text == "E104233"


def test_lowercase_style_never_touches_values() -> None:
    persona = PERSONA.model_copy(update={"style": Style(lowercase=True)})
    turn = LLMUser(ScriptedClient([replies(("Sure, It's {{Employee_ID}}.", 1.0))])).respond(
        persona, 0, ASK_ID, VIEW
    )
    assert turn.text == "sure, it's E104233."


def test_a_recorded_conversation_turn_replays_from_its_cassette(tmp_path: Path) -> None:
    path = tmp_path / "turn.json"
    recorded = LLMUser(CassetteClient(path, record_with=ScriptedClient([GOOD]))).respond(
        PERSONA, 3, ASK_ID, VIEW
    )
    replayed = LLMUser(CassetteClient(path)).respond(PERSONA, 3, ASK_ID, VIEW)
    assert recorded == replayed and replayed.text == "Sure, it's E104233."
    assert "E104233" not in path.read_text(encoding="utf-8")  # cassettes hold placeholders, never values
    other = (Message("user", OPENING_TEXT), Message("agent", "What's your email?"))
    with pytest.raises(CassetteMiss):
        LLMUser(CassetteClient(path)).respond(PERSONA, 3, other, VIEW)


@pytest.mark.parametrize("probe", ["ask_every_slot", "ask_secrets", "false_success"])
def test_an_llm_user_that_always_falls_back_plays_the_rule_conversation(probe: str) -> None:
    client = FixedClient(replies(("How can I help you today?", 1.0)))
    llm = rollout(PERSONA, LLMUser(client), PROBES[probe], seed=5)[0]
    rules = rollout(PERSONA, RuleUser(), PROBES[probe], seed=5)[0]
    assert llm.messages == rules.messages
    assert all(turn.backend == "llm->rules" and "role_swap" in turn.guard_hits for turn in llm.turns)
    prompts = json.dumps(client.requests)
    for fact in PERSONA.facts:
        assert fact.value not in prompts


PIECES = st.one_of(
    st.sampled_from(["{{" + fact.key + "}}" for fact in PERSONA.facts] + ["{{nope}}", "{pin}"]),
    HOSTILE_TEXT,
    st.text(max_size=40),
)


@settings(max_examples=examples(40))
@given(
    candidates=st.lists(st.tuples(st.lists(PIECES, max_size=4), st.floats(0, 1)), min_size=1, max_size=4),
    seed=st.integers(0, 1000),
)
def test_whatever_the_model_says_no_value_is_told_before_it_may_be(
    candidates: list[tuple[list[str], float]], seed: int
) -> None:
    raw = replies(*((" ".join(pieces), p) for pieces, p in candidates))
    turn = LLMUser(FixedClient(raw)).respond(PERSONA, seed, ASK_ID, VIEW)
    assert "{{" not in turn.text
    for fact in PERSONA.facts:
        if fact.key not in {"employee_id", "vpn_client"}:
            assert fact.value not in turn.text
    assert turn.backend in {"llm", "llm->rules"}
