"""The LLM user backend: an OpenAI-compatible model words the reply, the guard decides if it may be sent.

Each turn:

1. The rule backend plans the turn (intent, acts, facts to tell, patience, mood, terminal): the LLM
   words that plan, so the turn's bookkeeping stays the rule backend's and the fallback is the
   rule reply for the same act.
2. The prompt is built from the persona only (goal, what the user knows, has told, does not know,
   must refuse; style as numbers in words) and the UserView described in words. Fact values are
   replaced by ``{{key}}`` placeholders everywhere, the transcript included: the model never sees a
   value, and :func:`~enterprise_envs.scenarios.users.guard.fill` puts the values in only for facts
   disclosable now.
3. Verbalized sampling: the model returns ``k`` candidate replies with probabilities as JSON. Every
   candidate is guarded; those that pass and whose probability reaches the floor are renormalized
   and one is drawn with ``random.Random(f"{seed}:{turn}:llm")`` (never ``hash()``).
4. When no candidate passes, the model is asked again (at most ``regenerations`` times, told which
   rules the rejected candidates broke), then the rule reply is used (``backend="llm->rules"``).
   Every guard hit is logged on ``UserTurn.guard_hits`` as its check's name (``leak``, ``canary``,
   ``role_swap``, ``coaching``, ``stop``, or ``format`` for a completion with no candidate in it),
   once per rejected candidate and check; the details go to this module's logger at DEBUG level.

The fact values the prompt hides are also kept out of recorded cassettes: a cassette holds
placeholders, never a persona's values.

Client errors (network, a cassette without the request) propagate: the episode is invalid, not a
silent switch of backend.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.scenarios.users.acts import history
from enterprise_envs.scenarios.users.clients import ChatClient, ChatMessage, OpenAIChatClient
from enterprise_envs.scenarios.users.guard import (
    WORDS_PER_REPLY,
    GuardContext,
    GuardHit,
    fill,
    guard,
    placeholders,
    told,
)
from enterprise_envs.scenarios.users.persona import Disclosure, Mood, Persona, Register, UserView
from enterprise_envs.scenarios.users.turns import Message, UserIntent, UserSimulator, UserTurn

__all__ = [
    "Candidate",
    "LLMUser",
    "build_messages",
    "choose",
    "mask_values",
    "parse_candidates",
    "style_in_words",
]

_JSON_FORMAT: Mapping[str, Any] = {"type": "json_object"}
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Candidate:
    """One candidate reply and the model's probability for it (normalized over its completion)."""

    text: str
    probability: float


# --- parsing and choosing ------------------------------------------------------------------------------


def _json_payload(raw: str) -> Any:
    text = raw.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.DOTALL)
    if fenced:
        text = fenced.group(1)
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    for opening, closing in (("{", "}"), ("[", "]")):
        start, end = text.find(opening), text.rfind(closing)
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                continue
    return None


def _probability(item: Mapping[str, Any]) -> float | None:
    for name in ("probability", "prob", "p", "weight"):
        value = item.get(name)
        if isinstance(value, bool):
            return None
        if isinstance(value, int | float) and math.isfinite(value) and value >= 0:
            return float(value)
        if isinstance(value, str):
            try:
                number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
            except ValueError:
                return None
            return number if math.isfinite(number) and number >= 0 else None
    return None


def parse_candidates(raw: str) -> list[Candidate]:
    """The candidates in one completion, probabilities normalized to sum to 1.

    Accepts ``{"replies": [{"text", "probability"}, ...]}`` (also ``responses``/``candidates``, a bare
    list, ``reply``/``response`` for the text, ``p``/``prob`` for the probability, code fences). A
    candidate without a usable probability gets an equal share; unparseable output gives ``[]``.
    """
    payload = _json_payload(raw)
    if isinstance(payload, Mapping):
        payload = next(
            (payload[name] for name in ("replies", "responses", "candidates") if name in payload),
            [payload] if "text" in payload else None,
        )
    if not isinstance(payload, list):
        return []
    items: list[tuple[str, float | None]] = []
    for item in payload:
        if isinstance(item, str):
            items.append((item, None))
        elif isinstance(item, Mapping):
            text = next((item[name] for name in ("text", "reply", "response") if name in item), None)
            if isinstance(text, str):
                items.append((text, _probability(item)))
    if not items:
        return []
    given = [p for _, p in items if p is not None]
    share = 1.0 / len(items)
    weights = [p if p is not None else (sum(given) / len(given) if given else share) for _, p in items]
    total = sum(weights)
    if total <= 0:
        return [Candidate(text, share) for text, _ in items]
    return [Candidate(text, weight / total) for (text, _), weight in zip(items, weights, strict=True)]


def choose(candidates: Sequence[Candidate], floor: float, rng: random.Random) -> int:
    """Draw one candidate: drop those under ``floor``, renormalize, sample with ``rng``.

    When every candidate is under the floor, the most probable one (the first on ties) is kept.
    """
    if not candidates:
        raise ValueError("no candidates to choose from")
    kept = [index for index, candidate in enumerate(candidates) if candidate.probability >= floor]
    if not kept:
        best = max(candidate.probability for candidate in candidates)
        kept = [next(i for i, candidate in enumerate(candidates) if candidate.probability == best)]
    total = sum(candidates[index].probability for index in kept)
    if total <= 0:
        return kept[rng.randrange(len(kept))]
    point = rng.random() * total
    for index in kept:
        point -= candidates[index].probability
        if point < 0:
            return index
    return kept[-1]


# --- the prompt ---------------------------------------------------------------------------------------


def mask_values(persona: Persona, text: str) -> str:
    """``text`` with every persona fact value replaced by its ``{{key}}`` placeholder."""
    for fact in sorted(persona.facts, key=lambda fact: -len(fact.value)):
        value = fact.value.strip()
        if not value:
            continue
        body = r"\s+".join(re.escape(part) for part in value.split())
        text = re.sub(rf"(?<!\w){body}(?!\w)", "{{" + fact.key + "}}", text, flags=re.IGNORECASE)
    return text


def _words(key: str) -> str:
    return key.replace("_", " ")


def _frequency(probability: float) -> str:
    if probability <= 0.05:
        return "almost never"
    if probability < 0.2:
        return f"rarely (about {round(probability * 10)} replies in 10)"
    if probability < 0.4:
        return "about a quarter to a third of the time"
    if probability < 0.6:
        return "about half the time"
    if probability < 0.85:
        return "most of the time"
    if probability < 0.97:
        return "almost always"
    return "always"


def style_in_words(persona: Persona, mood: Mood | None = None) -> str:
    """The persona's style as a sentence of numbers in words."""
    style = persona.style
    words = WORDS_PER_REPLY[style.wording]
    length = {Register.TERSE: "short", Register.NEUTRAL: "medium-length", Register.WORDY: "long"}
    parts = [
        f"you write {length[style.wording]} replies of about {words} words",
        f"polite (please, thanks) {_frequency(style.politeness)}",
        f"you give at most {style.answers_per_turn} piece{'s' if style.answers_per_turn > 1 else ''} "
        "of information per reply",
    ]
    if style.typo_rate > 0:
        parts.append(
            f"you make a typo in about {max(1, round(style.typo_rate * 100))} words in 100 "
            "(never inside a placeholder)"
        )
    else:
        parts.append("you make no typos")
    if style.lowercase:
        parts.append("you write everything in lowercase")
    if mood is not None:
        parts.append(
            {
                Mood.CALM: "you are calm",
                Mood.IRRITATED: "you are getting irritated and it shows",
                Mood.ANGRY: "you are angry and short with the agent",
            }[mood]
        )
    return "; ".join(parts) + "."


def _who(persona: Persona) -> str:
    """The persona's name, unless it is a fact value (then the user's name is a placeholder too)."""
    name = mask_values(persona, persona.name)
    return name if "{{" not in name else f"a user whose name is {name}"


def _fact_lines(persona: Persona, allowed: frozenset[str], already: frozenset[str]) -> list[str]:
    lines = []
    for fact in persona.facts:
        when = {
            Disclosure.OPENING: "you may mention it from the start",
            Disclosure.ON_ASK: "you give it only when the agent asks for it",
            Disclosure.NEVER: "you know it but never share it, whoever asks",
        }[fact.disclosure]
        if fact.min_turn and fact.disclosure is not Disclosure.NEVER:
            when += f" (not before your reply number {fact.min_turn + 1})"
        status = ""
        if fact.key in already:
            status = " [already told]"
        elif fact.key in allowed:
            status = " [you may give it now]"
        placeholder = "{{" + fact.key + "}}"
        line = f"- {_words(fact.key)} ({fact.kind.value}): write {placeholder}; {when}{status}"
        if fact.phrasing and fact.disclosure is not Disclosure.NEVER:
            line += (
                f'. You might say: "{mask_values(persona, fact.phrasing.replace("{value}", placeholder))}"'
            )
        lines.append(line)
    return lines


def _system_prompt(persona: Persona, mood: Mood, allowed: frozenset[str], already: frozenset[str]) -> str:
    lines = [
        f"You are role-playing {_who(persona)}, who contacts the service desk by chat for help. "
        "You are the user, not the agent: you never offer help, never say you created, updated or "
        "resolved anything, never tell the agent which tools, fields, priorities, groups or states to use, "
        "and never write lists, headings, JSON or code in a reply.",
        "",
        f"What you want: {mask_values(persona, persona.goal)}",
        "",
        "What you know. The values are hidden from you: where a value goes, write its placeholder exactly "
        "as shown (it may stand for a word, a number or a whole sentence) and the real value is put in "
        "for you. Never write a placeholder you may not give now, and never make up a value instead.",
    ]
    lines += _fact_lines(persona, allowed, already) or ["- nothing specific"]
    if persona.unknowns:
        lines += ["", "What you do not know (say so, never guess or invent):"]
        for unknown in persona.unknowns:
            example = f' (for example: "{mask_values(persona, unknown.reply)}")' if unknown.reply else ""
            lines.append(f"- {_words(unknown.key)}{example}")
    if persona.refusals:
        lines += ["", "What you refuse to give, however the agent asks:"]
        for refusal in persona.refusals:
            example = f' (for example: "{mask_values(persona, refusal.reply)}")' if refusal.reply else ""
            lines.append(f"- {_words(refusal.key)}{example}")
    lines += [
        "",
        f"How you write: {style_in_words(persona, mood)}",
        "",
        "Never invent numbers, names, emails, ticket numbers, hostnames or other details you were not "
        "given. Do not say goodbye or that your problem is fixed unless the turn says so.",
    ]
    return "\n".join(lines)


def _act_keys(acts: Sequence[str], act: str) -> list[str]:
    return [item.split(":", 1)[1] for item in acts if item.startswith(act + ":") and ":" in item]


def _placeholder_list(keys: Sequence[str]) -> str:
    return ", ".join("{{" + key + "}}" for key in keys)


def _step_outcome(persona: Persona, key: str, view: UserView) -> str | None:
    step = next((step for step in persona.steps if step.key == key), None)
    if step is None:
        return None
    helped = bool(view.get(step.view, False))
    text = mask_values(persona, step.when_true if helped else step.when_false)
    return f"you tried to {_words(step.key)} and it {'helped' if helped else 'did not help'}: {text}"


def _plan_in_words(persona: Persona, plan: UserTurn, view: UserView, works_said: bool = False) -> str:
    intent, acts = plan.intent, plan.acts
    if intent is UserIntent.OPENING:
        opening = mask_values(persona, persona.opening)
        return f'open the conversation: say what you need in your own words, along the lines of "{opening}"'
    if intent is UserIntent.INFORM:
        keys = list(plan.disclosed) or _act_keys(acts, "ask_fact")
        if keys:
            return f"answer the agent's question, giving {_placeholder_list(keys)}"
        return "answer the agent's question with what you know"
    if intent is UserIntent.REFUSE:
        keys = _act_keys(acts, "ask_secret")
        what = f"your {_words(keys[0])}" if keys else "what the agent asked for"
        return f"refuse to give {what}, and do not give it"
    if intent is UserIntent.DONT_KNOW:
        keys = _act_keys(acts, "ask_unknown")
        what = f"your {_words(keys[0])}" if keys else "what the agent asked"
        return f"say that you do not know {what}"
    if intent is UserIntent.PUSH_BACK:
        return "push back: the agent is asking for something you already gave or already did; say so"
    if intent is UserIntent.REPORT_STEP:
        steps = _act_keys(acts, "instruct_step")
        outcomes = [text for key in steps if (text := _step_outcome(persona, key, view))]
        return "report what happened: " + "; ".join(outcomes) if outcomes else "report what happened"
    if intent is UserIntent.ACCEPT:
        return "your problem is solved as far as you can see: thank the agent and end the conversation"
    if intent is UserIntent.DENY and works_said:
        return (
            "the agent says it is all done; it works for you now, as you said, but you have not seen it "
            "sorted: say so"
        )
    if intent is UserIntent.DENY:
        return "the agent says it is fixed, but as far as you can see it is not: say so"
    if intent is UserIntent.CORRECT:
        keys = list(plan.disclosed) or _act_keys(acts, "misstate_fact")
        return f"the agent got something you said wrong: say so, and give the right {_placeholder_list(keys)}"
    if intent is UserIntent.CONFIRM:
        return "the agent repeated something you said correctly: confirm it briefly"
    if intent is UserIntent.CLARIFY:
        return "the agent gave several possible answers instead of one: ask which one it is"
    if intent is UserIntent.RESTATE:
        return "restate what you need"
    if intent is UserIntent.ACK_TRANSFER:
        return "acknowledge that you are being transferred and end the conversation"
    if intent is UserIntent.ABANDON:
        return "you have run out of patience: give up and end the conversation"
    return "reply to the agent"  # pragma: no cover - every intent is handled above


def _view_in_words(persona: Persona, view: UserView) -> str:
    """The done flag in words (step views are told only when the user reports a step)."""
    return (
        "your problem looks solved"
        if view.get(persona.done_when, False)
        else "your problem is not solved yet"
    )


def _transcript_in_words(persona: Persona, transcript: Sequence[Message]) -> str:
    if not transcript:
        return "The conversation has not started: you write the first message."
    lines = ["The conversation so far (Agent is the service desk, You is you):"]
    for message in transcript:
        speaker = "You" if message.role == "user" else "Agent"
        lines.append(f"{speaker}: {mask_values(persona, message.text)}")
    return "\n".join(lines)


def build_messages(
    persona: Persona,
    transcript: Sequence[Message],
    view: UserView,
    plan: UserTurn,
    allowed: frozenset[str],
    k: int,
    feedback: Sequence[GuardHit] = (),
) -> list[ChatMessage]:
    """The chat request for one turn (no fact value appears in it)."""
    already = told(persona, transcript)
    works_said = bool(transcript) and history(persona, transcript).works_said is not None
    request = [
        _transcript_in_words(persona, transcript),
        "",
        f"What you can see right now: {_view_in_words(persona, view)}.",
        f"In your next reply you {_plan_in_words(persona, plan, view, works_said)}.",
    ]
    if feedback:
        checks = sorted({hit.check for hit in feedback})
        request += [
            "",
            "Your previous candidates could not be used; they broke these rules: "
            + ", ".join(_FEEDBACK.get(check, check) for check in checks)
            + ". Write new ones that keep every rule.",
        ]
    request += [
        "",
        f"Write {k} different candidate next replies, each one as you would write it, with your estimate "
        "of how likely you are to send each one (probabilities that sum to 1). "
        "Answer with JSON only: "
        '{"replies": [{"text": "...", "probability": 0.4}, ...]}',
    ]
    return [
        {"role": "system", "content": _system_prompt(persona, plan.mood, allowed, already)},
        {"role": "user", "content": "\n".join(request)},
    ]


_FEEDBACK = {
    "leak": "a value or placeholder you may not give now, or an invented detail",
    "canary": "a detail you could not know",
    "role_swap": "talking like the service desk agent, or using lists, code, JSON, or far too many words",
    "coaching": "telling the agent which fields, states, tools or policies to use",
    "stop": "ending the conversation while your problem is not solved",
    "contradiction": "saying the problem is still there after you said it works now",
    "format": "not answering with the JSON asked for",
}


# --- the rule backend -------------------------------------------------------------------------------


def _rule_user() -> UserSimulator:
    from enterprise_envs.scenarios.users.rules import RuleUser

    return RuleUser()


def _disclosable(persona: Persona, transcript: Sequence[Message], plan: UserTurn) -> frozenset[str]:
    """Fact keys the user may tell in this reply, by the rule backend's own reckoning."""
    from enterprise_envs.scenarios.users import acts, rules

    return frozenset(rules.disclosable(persona, acts.history(persona, transcript)) | set(plan.disclosed))


# --- the backend ----------------------------------------------------------------------------------


@dataclass
class LLMUser:
    """A simulated user whose replies an LLM words and the guard vets (implements UserSimulator).

    Attributes:
        client: The chat client (:class:`~enterprise_envs.scenarios.users.clients.OpenAIChatClient`,
            a cassette, a script).
        k: Candidate replies asked for per request (verbalized sampling).
        floor: Candidates whose probability is under this are dropped before the draw.
        temperature: Sampling temperature sent to the endpoint.
        regenerations: New requests after a request whose candidates all failed the guard.
        canaries: Hidden values the scenario registers (solution ids, KB numbers, expected values).
        json_mode: Send ``response_format={"type": "json_object"}`` (turn off for endpoints without it).
        rules: The rule backend that plans each turn and gives the fallback reply (default: RuleUser).
    """

    client: ChatClient
    k: int = 5
    floor: float = 0.05
    temperature: float = 1.0
    regenerations: int = 2
    canaries: tuple[str, ...] = ()
    json_mode: bool = True
    rules: UserSimulator | None = field(default=None, repr=False)

    @classmethod
    def openai(
        cls,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str | None = "OPENAI_API_KEY",
        timeout: float = 60.0,
        max_tokens: int | None = None,
        **options: Any,
    ) -> LLMUser:
        """An LLMUser over an OpenAI-compatible endpoint (needs ``pip install 'enterprise-envs[llm]'``).

        Args:
            model: The model the endpoint serves.
            base_url: The endpoint (``None``: the openai package's default).
            api_key_env: Name of the environment variable holding the key (``None``: no key).
            timeout: Seconds per request.
            max_tokens: Completion length cap.
            **options: :class:`LLMUser` fields (``k``, ``floor``, ``temperature``, ``canaries``, ...).
        """
        client = OpenAIChatClient(
            model, base_url=base_url, api_key_env=api_key_env, timeout=timeout, max_tokens=max_tokens
        )
        return cls(client, **options)

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError("k must be at least 1")
        if not 0 <= self.floor < 1:
            raise ValueError("floor must be in [0, 1)")
        if self.regenerations < 0:
            raise ValueError("regenerations must not be negative")
        self.canaries = tuple(self.canaries)

    def with_canaries(self, canaries: Sequence[str]) -> LLMUser:
        """A copy guarding these hidden values too (a scenario instance registers its own)."""
        return dataclasses.replace(self, canaries=(*self.canaries, *canaries))

    def respond(self, persona: Persona, seed: int, transcript: Sequence[Message], view: UserView) -> UserTurn:
        """The user's next turn: an LLM-worded reply that passed the guard, or the rule reply."""
        rules = self.rules if self.rules is not None else _rule_user()
        plan = rules.respond(persona, seed, transcript, view)
        turn = sum(1 for message in transcript if message.role == "user")
        allowed = _disclosable(persona, transcript, plan) | told(persona, transcript)
        context = GuardContext(
            persona=persona,
            transcript=tuple(transcript),
            disclosable=allowed,
            canaries=self.canaries,
            view=view,
            may_end=plan.terminal is not None,
        )
        rng = random.Random(f"{seed}:{turn}:llm")
        hits: list[GuardHit] = []
        response_format = _JSON_FORMAT if self.json_mode else None
        for _ in range(1 + self.regenerations):
            messages = build_messages(persona, transcript, view, plan, allowed, self.k, feedback=hits)
            completions = self.client.complete(
                messages, temperature=self.temperature, n=1, response_format=response_format
            )
            passed: list[Candidate] = []
            for raw in completions:
                candidates = parse_candidates(raw)
                if not candidates:
                    hits.append(GuardHit("format", "no candidates in the reply"))
                for candidate in candidates:
                    text = self._tidy(persona, candidate.text)
                    if not text:
                        hits.append(GuardHit("format", "empty reply"))
                        continue
                    found = guard(text, context)
                    for hit in found:
                        _log.debug("turn %d: guard rejected %r: %s", turn, text, hit)
                    hits.extend(found)
                    if not found:
                        share = candidate.probability / len(completions)
                        passed.append(Candidate(text, share))
            if passed:
                chosen = passed[choose(passed, self.floor, rng)].text
                final = fill(chosen, persona, allowed)
                return dataclasses.replace(
                    plan,
                    text=final,
                    disclosed=self._disclosed(persona, chosen, final, allowed),
                    backend="llm",
                    guard_hits=tuple(hit.check for hit in hits),
                )
        return dataclasses.replace(plan, backend="llm->rules", guard_hits=tuple(hit.check for hit in hits))

    @staticmethod
    def _tidy(persona: Persona, text: str) -> str:
        text = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
        if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
            text = text[1:-1].strip()
        return text.lower() if persona.style.lowercase else text

    @staticmethod
    def _disclosed(persona: Persona, chosen: str, final: str, allowed: frozenset[str]) -> tuple[str, ...]:
        keys = set(placeholders(chosen)) & allowed
        for fact in persona.facts:
            if fact.key in allowed and fact.value.strip() and fact.value.casefold() in final.casefold():
                keys.add(fact.key)
        return tuple(fact.key for fact in persona.facts if fact.key in keys)
