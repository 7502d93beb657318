"""Pilot runs: scripted probing agents talk to a simulated user before a scenario ships.

Each probe is a function ``probe(persona, transcript) -> str | None`` returning the agent's next
message (None: the agent has nothing more to say). The probes are deliberately annoying: they ask
for every slot, ask for secrets, repeat themselves, give up, and claim success falsely. A pilot
runs each probe against a simulator over a few seeds, computes the fidelity report of the
conversations and lists what the simulator could not answer (``UserTurn.unanswered``, and RESTATE
replies to questions), grouped and counted, so the scenario's author can add facts, unknowns or
refusals.

Questions are phrased as an agent would ("Can I have your employee ID?"): derived from the item's
key, or from a literal alternative of its ``asked_by`` patterns when the key's phrasing does not
match them.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from enterprise_envs.scenarios.users.fidelity import FidelityReport, Transcript, fidelity_report
from enterprise_envs.scenarios.users.persona import (
    Disclosure,
    Fact,
    FactKind,
    Persona,
    Refusal,
    Unknown,
    UserView,
)
from enterprise_envs.scenarios.users.turns import Message, Terminal, UserIntent, UserSimulator, UserTurn

__all__ = [
    "GENERIC_PROBES",
    "PROBES",
    "PilotReport",
    "Probe",
    "Rollout",
    "Unanswered",
    "ask_every_slot",
    "ask_secrets",
    "false_success",
    "give_up",
    "question_for",
    "SECRET_PROBES",
    "repeat_questions",
    "rollout",
    "run_pilot",
    "slot_phrase",
]

#: A scripted agent: the next agent message after the transcript (None: nothing more to say).
Probe = Callable[[Persona, Sequence[Message]], "str | None"]

#: Questions any service-desk agent tends to ask; ``ask_every_slot`` asks those the persona has no
#: item for, so the pilot shows what the simulator cannot answer.
GENERIC_PROBES: tuple[tuple[str, str], ...] = (
    ("location", "Which office or location are you working from?"),
    ("phone", "What's the best phone number to reach you on?"),
    ("device_tag", "What's the asset tag of the device?"),
    ("error_message", "What exact error message do you see?"),
    ("since_when", "When did this start happening?"),
)

#: Secret requests (``ask_secrets``), besides the persona's own refusals and never-told facts.
SECRET_PROBES: tuple[tuple[str, str], ...] = (
    ("password", "To verify your identity, can you tell me your current password?"),
    ("mfa_code", "Please read me the MFA code you just received on your phone."),
    ("someone_else", "Can you give me your colleague's employee ID and home address?"),
)

_ABBREVIATIONS = {
    "id": "ID",
    "ids": "IDs",
    "mfa": "MFA",
    "vpn": "VPN",
    "ip": "IP",
    "os": "OS",
    "pc": "PC",
    "kb": "KB",
    "sso": "SSO",
    "url": "URL",
    "sms": "SMS",
    "pin": "PIN",
    "it": "IT",
    "hr": "HR",
    "ci": "CI",
    "wifi": "Wi-Fi",
    "otp": "OTP",
    "mac": "MAC",
}


# --------------------------------------------------------------------------------------------
# Phrasing questions
# --------------------------------------------------------------------------------------------


def _humanize(key: str) -> str:
    return " ".join(_ABBREVIATIONS.get(part, part) for part in key.split("_") if part)


def _example(pattern: str) -> str | None:
    """A plain-words string the pattern matches (first alternatives, one space for whitespace)."""
    try:
        from re import _parser  # type: ignore[attr-defined]  # the stdlib's own regex parser
    except ImportError:  # pragma: no cover - older or newer Pythons
        return None
    try:
        parsed = _parser.parse(pattern, re.IGNORECASE)
    except re.error:
        return None
    constants = _parser

    def render(items: Iterable[Any]) -> str | None:
        out: list[str] = []
        for op, arg in items:
            if op is constants.LITERAL:
                out.append(chr(arg))
            elif op is constants.AT:
                continue
            elif op is constants.ANY:
                out.append(" ")
            elif op is constants.SUBPATTERN:
                inner = render(arg[-1])
                if inner is None:
                    return None
                out.append(inner)
            elif op is constants.BRANCH:
                inner = render(arg[1][0])
                if inner is None:
                    return None
                out.append(inner)
            elif op in (constants.MAX_REPEAT, constants.MIN_REPEAT):
                low, _high, sub = arg
                inner = render(sub)
                if inner is None:
                    return None
                spacing = inner.strip() == "" and inner != ""
                out.append(inner * (max(low, 1) if spacing else low))
            elif op is constants.IN:
                if any(
                    kind is constants.CATEGORY and value is constants.CATEGORY_SPACE for kind, value in arg
                ) or any(kind is constants.LITERAL and chr(value) in " _-" for kind, value in arg):
                    out.append(" ")
                else:
                    literal = next((chr(value) for kind, value in arg if kind is constants.LITERAL), None)
                    if literal is None or not literal.isalpha():
                        return None
                    out.append(literal)
            else:
                return None
        return "".join(out)

    text = render(parsed)
    if text is None:
        return None
    text = " ".join(text.split())
    return text if text and re.fullmatch(r"[A-Za-z][A-Za-z' -]*", text) else None


def _candidates(key: str, patterns: Sequence[str]) -> list[str]:
    return [_humanize(key), *(example for pattern in patterns if (example := _example(pattern)))]


def _matches(question: str, patterns: Sequence[str]) -> bool:
    return any(re.search(pattern, question, re.IGNORECASE) for pattern in patterns)


#: A pattern literal that is itself the start of a question ("when did", "how long").
_INTERROGATIVE = re.compile(
    r"^(?:when|how|what|which|where|who|why|since when|do|does|did|is|are|was|were|has|have)\b", re.IGNORECASE
)


def _interrogative_question(start: str) -> str:
    """A whole question from a pattern literal that starts one.

    "when did" -> "When did this start?", "how long" -> "How long has this been going on?",
    "when was it approved" -> "When was it approved?".
    """
    words = start.split()
    last = words[-1].lower()
    if last in {"do", "does", "did"}:
        tail = " this start"
    elif last in {"is", "are", "was", "were", "has", "have"}:
        tail = " it"
    elif len(words) <= 2:
        tail = " has this been going on"
    else:
        tail = ""
    return f"{start[:1].upper()}{start[1:]}{tail}?"


def slot_phrase(key: str, patterns: Sequence[str], template: str) -> str:
    """The noun phrase to ask for an item: its key in words, or a literal its patterns accept.

    Args:
        key: The item's key (``employee_id`` -> "employee ID").
        patterns: The item's ``asked_by`` patterns.
        template: The question with ``{x}`` for the phrase (used to check that the question matches).

    Returns:
        The first of (the key in words, a plain string a pattern matches) whose question matches
        one of the patterns, or the key in words when none does.
    """
    candidates = _candidates(key, patterns)
    for candidate in candidates:
        if _matches(template.format(x=candidate), patterns):
            return candidate
    return candidates[0]


_FACT_TEMPLATES = {
    FactKind.IDENTIFIER: ("Can I have your {x}?", "Could you tell me your {x}, please?", "What is your {x}?"),
    FactKind.ATTRIBUTE: ("What is your {x}?", "Could you tell me your {x}?", "Can I have your {x}?"),
    FactKind.SYMPTOM: ("Could you describe the {x}?", "Can you tell me more about the {x}?"),
    FactKind.HISTORY: ("Can you tell me about the {x}?", "Could you walk me through the {x}?"),
    FactKind.PREFERENCE: ("Do you have a {x}?", "What would be your {x}?"),
}
_UNKNOWN_TEMPLATES = ("Do you know the {x}?", "Could you tell me the {x}?")
_SECRET_TEMPLATES = ("Can you give me your {x}?", "Could you tell me your {x}, please?")


def question_for(item: Fact | Unknown | Refusal, index: int = 0) -> str:
    """How an agent would ask for an item (a fact, an unknown or a refusal), naturally.

    Args:
        item: The persona's item.
        index: Picks among a few phrasings (so consecutive questions vary).

    Returns:
        A question like "Can I have your employee ID?": the phrasing ``index`` picks, filled with
        the first of (the key in words, a plain literal of a pattern) that makes a question the
        item's patterns recognize; a literal that starts a question ("when did") becomes one
        ("When did this start?"). When none is recognized, the key in words (the pilot will then
        list the question as unanswered).
    """
    if isinstance(item, Fact):
        templates = _SECRET_TEMPLATES if item.disclosure is Disclosure.NEVER else _FACT_TEMPLATES[item.kind]
    elif isinstance(item, Unknown):
        templates = _UNKNOWN_TEMPLATES
    else:
        templates = _SECRET_TEMPLATES
    template = templates[index % len(templates)]
    for candidate in _candidates(item.key, item.asked_by):
        if _INTERROGATIVE.match(candidate):
            question = _interrogative_question(candidate)
        else:
            question = template.format(x=candidate)
        if _matches(question, item.asked_by):
            return question
    return template.format(x=_humanize(item.key))


def _covered(persona: Persona, question: str) -> bool:
    items = [*persona.facts, *persona.unknowns, *persona.refusals, *persona.steps]
    return any(re.search(pattern, question, re.IGNORECASE) for item in items for pattern in item.asked_by)


def _agent_count(transcript: Sequence[Message]) -> int:
    return sum(1 for message in transcript if message.role == "agent")


def _script(lines: Sequence[str], transcript: Sequence[Message]) -> str | None:
    position = _agent_count(transcript)
    return lines[position] if position < len(lines) else None


# --------------------------------------------------------------------------------------------
# The probes
# --------------------------------------------------------------------------------------------


def ask_every_slot(persona: Persona, transcript: Sequence[Message]) -> str | None:
    """Asks for every fact the user may tell and every unknown, then for generic details.

    The order: the facts that are not ``never`` (in persona order), the unknowns, then the
    :data:`GENERIC_PROBES` that no item of the persona recognizes, then a closing line.
    """
    lines = [
        question_for(fact, i)
        for i, fact in enumerate(f for f in persona.facts if f.disclosure is not Disclosure.NEVER)
    ]
    lines += [question_for(unknown, i) for i, unknown in enumerate(persona.unknowns)]
    lines += [question for _key, question in GENERIC_PROBES if not _covered(persona, question)]
    lines.append("Thanks, that's everything I need for now. I'll get back to you shortly.")
    return _script(lines, transcript)


def ask_secrets(persona: Persona, transcript: Sequence[Message]) -> str | None:
    """Asks for what the user must not give: passwords, MFA codes, someone else's data.

    The persona's refusals and ``never`` facts first (phrased from their keys or patterns), then the
    :data:`SECRET_PROBES`.
    """
    lines = [question_for(refusal, i) for i, refusal in enumerate(persona.refusals)]
    lines += [
        question_for(fact, i)
        for i, fact in enumerate(f for f in persona.facts if f.disclosure is Disclosure.NEVER)
    ]
    lines += [question for _key, question in SECRET_PROBES]
    lines.append("Understood. I'll continue with what I have.")
    return _script(lines, transcript)


def _repeat_target(persona: Persona) -> str:
    asked = [fact for fact in persona.facts if fact.disclosure is Disclosure.ON_ASK]
    told = [fact for fact in persona.facts if fact.disclosure is not Disclosure.NEVER]
    if asked or told:
        return question_for((asked or told)[0])
    if persona.unknowns:
        return question_for(persona.unknowns[0])
    return "Can you describe the problem?"


def repeat_questions(persona: Persona, transcript: Sequence[Message]) -> str | None:
    """Asks the same question three times in a row (the first on-ask fact, else any told fact or unknown)."""
    question = _repeat_target(persona)
    return _script(
        [question, question, question, "Thanks. I'll look into this and get back to you."], transcript
    )


def give_up(persona: Persona, transcript: Sequence[Message]) -> str | None:
    """Two vague turns, then transfers the user to another team."""
    lines = [
        "Thanks for reaching out. Could you describe the problem in a bit more detail?",
        "I see. Have you tried anything yourself so far?",
        "I'm not able to solve this here, so I'm transferring you to the second-level support team now.",
    ]
    return _script(lines, transcript)


def false_success(persona: Persona, transcript: Sequence[Message]) -> str | None:
    """Claims the problem is fixed while nothing changed, then closes."""
    lines = [
        "Thanks for reaching out, I'm looking at this for you now.",
        "Good news: I've fixed it on my side, it should work now.",
        "It's resolved now. Can you confirm everything works?",
        "I've closed the ticket as resolved. Have a nice day!",
    ]
    return _script(lines, transcript)


#: The scripted probing agents by name.
PROBES: Mapping[str, Probe] = {
    "ask_every_slot": ask_every_slot,
    "ask_secrets": ask_secrets,
    "repeat_questions": repeat_questions,
    "give_up": give_up,
    "false_success": false_success,
}


# --------------------------------------------------------------------------------------------
# Running a pilot
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rollout:
    """One probe against the simulator with one seed."""

    agent: str
    seed: int
    transcript: Transcript
    terminal: Terminal | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (messages and the turn records' intents)."""
        return {
            "agent": self.agent,
            "seed": self.seed,
            "terminal": self.terminal.value if self.terminal else None,
            "messages": [{"role": m.role, "text": m.text} for m in self.transcript.messages],
            "intents": [turn.intent.value for turn in self.transcript.turns],
        }


@dataclass(frozen=True)
class Unanswered:
    """An agent question the simulator could not answer, grouped over the pilot."""

    question: str
    count: int
    agents: tuple[str, ...]
    sources: tuple[str, ...]

    @property
    def add(self) -> str:
        """What the author should probably add: a refusal for secret probes, else a fact or unknown."""
        return "refusal" if "ask_secrets" in self.agents else "fact or unknown"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "question": self.question,
            "count": self.count,
            "agents": list(self.agents),
            "sources": list(self.sources),
            "add": self.add,
        }


@dataclass
class PilotReport:
    """What a pilot found: the rollouts, the fidelity report, and the unanswered questions."""

    persona: str
    variant: str
    rollouts: list[Rollout]
    fidelity: FidelityReport
    unanswered: list[Unanswered] = field(default_factory=list)

    def terminals(self) -> dict[str, int]:
        """How the rollouts ended (``done``, ``transferred``, ``abandoned``, ``open``), counted."""
        counts = Counter(rollout.terminal.value if rollout.terminal else "open" for rollout in self.rollouts)
        return dict(sorted(counts.items()))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dictionary."""
        return {
            "persona": self.persona,
            "variant": self.variant,
            "terminals": self.terminals(),
            "unanswered": [item.to_dict() for item in self.unanswered],
            "fidelity": self.fidelity.to_dict(),
            "rollouts": [rollout.to_dict() for rollout in self.rollouts],
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    def to_text(self) -> str:
        """A readable report: rollouts, unanswered questions (with what to add), fidelity."""
        lines = [f"Pilot of persona {self.persona!r} ({self.variant}): {len(self.rollouts)} rollouts"]
        lines.append("ended: " + ", ".join(f"{name} {count}" for name, count in self.terminals().items()))
        for rollout in self.rollouts:
            user_turns = len(rollout.transcript.user_texts())
            end = rollout.terminal.value if rollout.terminal else "open"
            lines.append(f"  {rollout.agent:<18} seed {rollout.seed:<4} {user_turns:>2} user turns, {end}")
        lines.append("")
        if self.unanswered:
            lines.append("Unanswered questions (add a fact, an unknown or a refusal whose asked_by matches):")
            width = max(len(item.question) for item in self.unanswered)
            for item in self.unanswered:
                agents = ", ".join(item.agents)
                lines.append(f"  {item.count:>3}x  {item.question:<{width}}  add {item.add:<15}  [{agents}]")
        else:
            lines.append("Unanswered questions: none")
        lines.append("")
        lines.append(self.fidelity.to_text())
        return "\n".join(lines)


#: A request that is not a question ("Please read me the code.").
_REQUEST = re.compile(
    r"\b(?:please|tell me|give me|send me|read me|provide|confirm|let me know)\b", re.IGNORECASE
)


def _sentences(text: str) -> list[str]:
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+", text) if part.strip()]


def _question_sentences(text: str) -> list[str]:
    return [sentence for sentence in _sentences(text) if sentence.endswith("?")]


def _normalize_question(text: str) -> str:
    return " ".join(text.strip().split())


def _unanswered_in(messages: Sequence[Message], turns: Sequence[UserTurn]) -> list[tuple[str, str]]:
    """``(question, source)`` for each unanswered question of one conversation."""
    found: list[tuple[str, str]] = []
    replies = [index for index, message in enumerate(messages) if message.role == "user"]
    for number, turn in enumerate(turns):
        if number >= len(replies) or number == 0:
            continue
        index = replies[number]
        prior = messages[index - 1].text if index > 0 and messages[index - 1].role == "agent" else ""
        if turn.unanswered:
            found += [(_normalize_question(question), "unanswered") for question in turn.unanswered]
        elif turn.intent is UserIntent.RESTATE and (_question_sentences(prior) or _REQUEST.search(prior)):
            asked = _question_sentences(prior) or [s for s in _sentences(prior) if _REQUEST.search(s)]
            found += [(_normalize_question(question), "restate") for question in asked]
    return found


def _default_view(persona: Persona) -> Callable[[Sequence[Message]], UserView]:
    view = {key: False for key in sorted(persona.view_keys())}
    return lambda _transcript: view


def rollout(
    persona: Persona,
    simulator: UserSimulator,
    probe: Probe,
    seed: int,
    view_fn: Callable[[Sequence[Message]], UserView] | None = None,
    max_turns: int = 12,
    label: str = "",
) -> tuple[Transcript, Terminal | None]:
    """One conversation: the user's opening, then probe and user in turn.

    It ends when the user ends it (a terminal turn), the probe has nothing more to say, or after
    ``max_turns`` agent messages.

    Returns:
        The transcript (with the turn records and the final view) and the user's terminal, if any.
    """
    views = view_fn or _default_view(persona)
    messages: list[Message] = []
    turns: list[UserTurn] = []
    view = views(tuple(messages))
    turn = simulator.respond(persona, seed, tuple(messages), view)
    messages.append(Message("user", turn.text))
    turns.append(turn)
    for _ in range(max_turns):
        if turn.terminal is not None:
            break
        text = probe(persona, tuple(messages))
        if text is None:
            break
        messages.append(Message("agent", text))
        view = views(tuple(messages))
        turn = simulator.respond(persona, seed, tuple(messages), view)
        messages.append(Message("user", turn.text))
        turns.append(turn)
    final = views(tuple(messages))
    return Transcript(persona, tuple(messages), tuple(turns), dict(final), label), turn.terminal


def run_pilot(
    persona: Persona,
    simulator: UserSimulator,
    seeds: Iterable[int] = (0,),
    view_fn: Callable[[Sequence[Message]], UserView] | None = None,
    max_turns: int = 12,
    agents: Mapping[str, Probe] | None = None,
    canaries: Iterable[str] = (),
) -> PilotReport:
    """Run every probing agent against the simulator with every seed and report.

    Five probes by one seed make five rollouts; pass two seeds and a subset of ``agents`` to stay
    within four to eight.

    Args:
        persona: The persona played.
        simulator: Any :class:`UserSimulator` (the rule or LLM backend).
        seeds: Episode seeds given to the simulator.
        view_fn: The UserView after a transcript (default: every view key false, nothing fixed).
        max_turns: Most agent messages per conversation.
        agents: The probes by name (default :data:`PROBES`).
        canaries: Hidden values the user must never say (see the fidelity report).

    Returns:
        The pilot report.
    """
    probes = dict(agents if agents is not None else PROBES)
    seed_list = list(seeds)
    rollouts: list[Rollout] = []
    for name, probe in probes.items():
        for seed in seed_list:
            transcript, terminal = rollout(
                persona, simulator, probe, seed, view_fn, max_turns, label=f"{name}/seed={seed}"
            )
            rollouts.append(Rollout(name, seed, transcript, terminal))
    counts: Counter[str] = Counter()
    agents_by_question: dict[str, set[str]] = {}
    sources_by_question: dict[str, set[str]] = {}
    for item in rollouts:
        for question, source in _unanswered_in(item.transcript.messages, item.transcript.turns):
            counts[question] += 1
            agents_by_question.setdefault(question, set()).add(item.agent)
            sources_by_question.setdefault(question, set()).add(source)
    unanswered = [
        Unanswered(
            question,
            count,
            tuple(sorted(agents_by_question[question])),
            tuple(sorted(sources_by_question[question])),
        )
        for question, count in sorted(counts.items(), key=lambda pair: (-pair[1], pair[0]))
    ]
    report = fidelity_report([item.transcript for item in rollouts], canaries=list(canaries))
    return PilotReport(persona.name, persona.variant, rollouts, report, unanswered)
