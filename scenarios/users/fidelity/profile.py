"""What a population of simulated users looks like: behaviour profile, frustration onset, diversity.

Descriptions rather than rates: the behaviour profile (bucketed features, compared with a
reference by :func:`dice`), when users lose their calm (:func:`frustration_onset`) and how much
the conversations differ within and between persona variants (:func:`diversity`).
"""

from __future__ import annotations

import itertools
import re
import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from enterprise_envs.scenarios.users.fidelity.behaviour import front_loading, repeat_pushback
from enterprise_envs.scenarios.users.fidelity.integrity import _first_tellings, persona_text
from enterprise_envs.scenarios.users.fidelity.lexicon import (
    _ALPHA_WORD,
    CLARIFY_MARKERS,
    COMMON_WORDS,
    DENY_MARKERS,
    FRUSTRATION_MARKERS,
    POLITENESS_MARKERS,
    PUSHBACK_MARKERS,
    _has_marker,
    _left,
    _markers,
    _norm,
    agent_claim_markers,
    words,
)
from enterprise_envs.scenarios.users.fidelity.transcript import Ratio, Transcript, _many
from enterprise_envs.scenarios.users.persona import Mood
from enterprise_envs.scenarios.users.turns import Terminal
from enterprise_envs.verifiers.text import value_pattern

# --------------------------------------------------------------------------------------------
# Behaviour profiles
# --------------------------------------------------------------------------------------------


def _bucket(value: float | None, edges: Sequence[tuple[float, str]], above: str) -> str:
    if value is None:
        return "n/a"
    for edge, name in edges:
        if value < edge:
            return name
    return above


def _rate_bucket(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value == 0:
        return "none"
    return _bucket(value, [(0.25, "low"), (0.5, "mid")], "high")


def behaviour_features(transcript: Transcript) -> dict[str, float | None]:
    """The raw (undiscretized) behaviour features of one conversation (see :func:`behaviour_profile`)."""
    texts = transcript.user_texts()
    n = len(texts)
    if n == 0:
        return {}
    claims = Ratio()
    claim_markers = agent_claim_markers(transcript.persona.vocabulary)
    for _turn, prior, text, _agent in transcript.exchanges():
        if prior is not None and _has_marker(prior, claim_markers) and "?" not in prior:
            claims += Ratio(int(_has_marker(text, (*DENY_MARKERS, *PUSHBACK_MARKERS), fuzzy=True)), 1)
    return {
        "style.words_per_turn": sum(len(words(text)) for text in texts) / n,
        "style.question_rate": sum("?" in text for text in texts) / n,
        "style.politeness": sum(len(_markers(text, POLITENESS_MARKERS)) for text in texts) / n,
        "information.facts_per_turn": len(_first_tellings(transcript)) / n,
        "information.front_loading": front_loading(transcript).value,
        "clarification.questions_back": sum(_has_marker(text, CLARIFY_MARKERS) for text in texts[1:])
        / max(1, n - 1),
        "error_reaction.deny_rate": claims.value,
        "error_reaction.pushback": repeat_pushback(transcript).value,
    }


def behaviour_profile(transcripts: Transcript | Iterable[Transcript]) -> Counter[str]:
    """The behaviour profile: a multiset of discretized features, one of each per conversation.

    Dimensions and features (``dimension.feature=bucket``):

    - ``style.words_per_turn``: mean words per user turn, bucketed ``<5``, ``5-10``, ``10-20``,
      ``20-40``, ``40+``;
    - ``style.question_rate``: share of user turns containing ``?``;
    - ``style.politeness``: politeness markers per user turn (:data:`POLITENESS_MARKERS`);
    - ``information.facts_per_turn``: distinct facts told (not echoed) per user turn, bucketed
      ``0``, ``<0.5``, ``0.5-1``, ``1+``;
    - ``information.front_loading``: :func:`front_loading` (``none`` 0, ``partial``, ``all`` 1);
    - ``clarification.questions_back``: share of user replies (after the opening) with a
      :data:`CLARIFY_MARKERS` phrase;
    - ``error_reaction.deny_rate``: over agent messages claiming a fix (:data:`AGENT_CLAIM_MARKERS`
      and "closed the <record>" for the persona's systems' records, not a question), the share
      answered with a deny or pushback phrase;
    - ``error_reaction.pushback``: :func:`repeat_pushback`.

    Shares and rates are bucketed ``none`` (0), ``low`` (<0.25), ``mid`` (<0.5), ``high``;
    a feature with no opportunity is ``n/a``. Several conversations give the sum of their profiles.
    """
    profile: Counter[str] = Counter()
    for transcript in _many(transcripts):
        raw = behaviour_features(transcript)
        if not raw:
            continue
        front = raw["information.front_loading"]
        features = {
            "style.words_per_turn": _bucket(
                raw["style.words_per_turn"], [(5, "<5"), (10, "5-10"), (20, "10-20"), (40, "20-40")], "40+"
            ),
            "style.question_rate": _rate_bucket(raw["style.question_rate"]),
            "style.politeness": _rate_bucket(raw["style.politeness"]),
            "information.facts_per_turn": "0"
            if raw["information.facts_per_turn"] == 0
            else _bucket(raw["information.facts_per_turn"], [(0.5, "<0.5"), (1, "0.5-1")], "1+"),
            "information.front_loading": "n/a"
            if front is None
            else ("none" if front == 0 else "all" if front == 1 else "partial"),
            "clarification.questions_back": _rate_bucket(raw["clarification.questions_back"]),
            "error_reaction.deny_rate": _rate_bucket(raw["error_reaction.deny_rate"]),
            "error_reaction.pushback": _rate_bucket(raw["error_reaction.pushback"]),
        }
        profile.update(f"{name}={bucket}" for name, bucket in features.items())
    return profile


def dice(profile: Mapping[str, int], reference: Mapping[str, int]) -> float:
    """Sørensen-Dice similarity of two profiles (multisets): ``2 |A ∩ B| / (|A| + |B|)``.

    The intersection takes the smaller count of each feature; two empty profiles are identical (1.0).
    """
    size = sum(profile.values()) + sum(reference.values())
    if size == 0:
        return 1.0
    common = sum(min(count, reference.get(key, 0)) for key, count in profile.items())
    return 2 * common / size


def dice_by_dimension(profile: Mapping[str, int], reference: Mapping[str, int]) -> dict[str, float]:
    """:func:`dice` restricted to each dimension (``style``, ``information``, ...)."""
    dimensions = sorted({key.split(".", 1)[0] for key in [*profile, *reference]})
    return {
        dimension: dice(
            {k: v for k, v in profile.items() if k.startswith(dimension + ".")},
            {k: v for k, v in reference.items() if k.startswith(dimension + ".")},
        )
        for dimension in dimensions
    }


# --------------------------------------------------------------------------------------------
# Frustration onset
# --------------------------------------------------------------------------------------------


def frustration_turns(transcript: Transcript) -> tuple[int | None, int | None]:
    """``(onset, give_up)``: the user turns where the user first lost its calm, and gave up.

    The opening (turn 0) is not a reaction to the agent and is never counted. With a turn record
    for every user turn, the onset is the first turn whose ``mood`` is not calm or that abandons,
    and the give-up the turn whose ``terminal`` is ``abandoned``. Without, the onset is the first
    turn with a :data:`FRUSTRATION_MARKERS` or :data:`ABANDON_MARKERS` phrase (one typo allowed
    per word), and the give-up is the last turn when it has an :data:`ABANDON_MARKERS` phrase
    (giving up ends the conversation). None when it did not happen.
    """
    texts = transcript.user_texts()
    if texts and len(transcript.turns) == len(texts):
        lost = [
            turn.mood is not Mood.CALM or turn.terminal is Terminal.ABANDONED for turn in transcript.turns
        ]
        left = [turn.terminal is Terminal.ABANDONED for turn in transcript.turns]
    else:
        left = [index == len(texts) - 1 and _left(text) for index, text in enumerate(texts)]
        lost = [
            gave_up or _has_marker(text, FRUSTRATION_MARKERS, fuzzy=True)
            for text, gave_up in zip(texts, left, strict=True)
        ]
    onset = next((index for index, flag in enumerate(lost) if index > 0 and flag), None)
    give_up = next((index for index, flag in enumerate(left) if index > 0 and flag), None)
    return onset, give_up


@dataclass(frozen=True)
class Onset:
    """When the users of one persona variant lost their calm (see :func:`frustration_onset`).

    Attributes:
        variant: The persona variant.
        conversations: Its conversations with at least one reply after the opening.
        onsets: The onset turn of each conversation whose user lost its calm, sorted.
        give_ups: The turn of each conversation whose user gave up, sorted.
    """

    variant: str
    conversations: int
    onsets: tuple[int, ...]
    give_ups: tuple[int, ...]

    @property
    def median(self) -> float | None:
        """The median onset turn (None when no user lost its calm)."""
        return statistics.median(self.onsets) if self.onsets else None

    @property
    def spread(self) -> float | None:
        """The interquartile range of the onset turns (None with fewer than two)."""
        if len(self.onsets) < 2:
            return None
        q1, _median, q3 = statistics.quantiles(self.onsets, n=4, method="inclusive")
        return q3 - q1

    @property
    def give_up_median(self) -> float | None:
        """The median turn at which users gave up (None when none did)."""
        return statistics.median(self.give_ups) if self.give_ups else None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, with the median, spread, range and give-up median."""
        return {
            "conversations": self.conversations,
            "frustrated": len(self.onsets),
            "median": self.median,
            "spread": self.spread,
            "range": [self.onsets[0], self.onsets[-1]] if self.onsets else None,
            "gave_up": len(self.give_ups),
            "give_up_median": self.give_up_median,
            "onsets": list(self.onsets),
            "give_ups": list(self.give_ups),
        }


def frustration_onset(transcripts: Transcript | Iterable[Transcript]) -> dict[str, Onset]:
    """Frustration onset by persona variant: when users lost their calm, and gave up.

    Each conversation with a reply after the opening gives :func:`frustration_turns`; they are
    grouped by the persona's ``variant`` (sorted by name). A variant's ``median`` and ``spread``
    (interquartile range) are over the conversations whose user lost its calm; the others count
    in ``conversations`` only (calm to the end).
    """
    grouped: dict[str, tuple[int, list[int], list[int]]] = {}
    for transcript in _many(transcripts):
        if len(transcript.user_texts()) < 2:
            continue
        onset, give_up = frustration_turns(transcript)
        count, onsets, give_ups = grouped.get(transcript.persona.variant, (0, [], []))
        onsets += [] if onset is None else [onset]
        give_ups += [] if give_up is None else [give_up]
        grouped[transcript.persona.variant] = (count + 1, onsets, give_ups)
    return {
        name: Onset(name, count, tuple(sorted(onsets)), tuple(sorted(give_ups)))
        for name, (count, onsets, give_ups) in sorted(grouped.items())
    }


# --------------------------------------------------------------------------------------------
# Population diversity
# --------------------------------------------------------------------------------------------

STYLE_FEATURES = ("words_per_turn", "politeness", "lowercase_rate", "typo_rate")


def _attested_words(transcript: Transcript) -> set[str]:
    vocabulary = set(COMMON_WORDS)
    vocabulary |= set(_ALPHA_WORD.findall(persona_text(transcript.persona)))
    for message in transcript.messages:
        if message.role == "agent":
            vocabulary |= set(_ALPHA_WORD.findall(_norm(message.text)))
    return vocabulary


def _without_values(text: str, values: Iterable[str]) -> str:
    for value in values:
        pattern = value_pattern(value.strip())
        if pattern is not None:
            text = pattern.sub(" ", text)
    return text


def style_features(transcript: Transcript, others: Sequence[Transcript] = ()) -> dict[str, float]:
    """The style features of one conversation, over its user turns.

    - ``words_per_turn``: mean words per user turn;
    - ``politeness``: :data:`POLITENESS_MARKERS` per user turn;
    - ``lowercase_rate``: share of user turns with letters and no uppercase letter (fact values,
      which style never alters, are left out);
    - ``typo_rate`` (a proxy): share of the user's alphabetic words of 3+ letters that are
      unattested: not in :data:`COMMON_WORDS`, the persona's own text, this conversation's agent
      messages, nor any user turn of the ``others`` conversations (a typo is rarely repeated
      elsewhere; a template word is).
    """
    texts = transcript.user_texts()
    n = max(1, len(texts))
    vocabulary = _attested_words(transcript)
    for other in others:
        if other is not transcript:
            for text in other.user_texts():
                vocabulary |= set(_ALPHA_WORD.findall(_norm(text)))
    user_words = [word for text in texts for word in _ALPHA_WORD.findall(_norm(text)) if len(word) >= 3]
    values = [fact.value for fact in transcript.persona.facts]
    bare = [_without_values(text, values) for text in texts]
    lettered = [text for text in bare if re.search(r"[^\W\d_]", text)]
    return {
        "words_per_turn": sum(len(words(text)) for text in texts) / n,
        "politeness": sum(len(_markers(text, POLITENESS_MARKERS)) for text in texts) / n,
        "lowercase_rate": sum(text == text.lower() for text in lettered) / max(1, len(lettered)),
        "typo_rate": sum(word not in vocabulary for word in user_words) / max(1, len(user_words)),
    }


@dataclass(frozen=True)
class Variance:
    """One-way ANOVA mean squares of a feature over conversations grouped by persona variant."""

    within: float | None
    between: float | None

    def to_dict(self) -> dict[str, float | None]:
        """JSON-ready form."""
        return {"within": self.within, "between": self.between}


@dataclass(frozen=True)
class Diversity:
    """How different the conversations of a population are (see :func:`diversity`).

    Attributes:
        conversations: Conversations in the population.
        groups: Conversations per persona variant (:func:`persona_group`), by variant.
        small_groups: Variants with fewer than :data:`MIN_GROUP_SIZE` conversations: reported
            here and left out of ``variance``.
        variance: The ANOVA of each style feature over the other groups.
        distinct_openings, distinct_2, trigram_overlap: See :func:`diversity`.
    """

    conversations: int
    groups: dict[str, int]
    small_groups: tuple[str, ...]
    variance: dict[str, Variance]
    distinct_openings: float | None
    distinct_2: float | None
    trigram_overlap: float | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "conversations": self.conversations,
            "groups": dict(self.groups),
            "small_groups": list(self.small_groups),
            "variance": {name: value.to_dict() for name, value in self.variance.items()},
            "distinct_openings": self.distinct_openings,
            "distinct_2": self.distinct_2,
            "trigram_overlap": self.trigram_overlap,
        }


#: The fewest conversations a persona variant needs to count in the diversity ANOVA (a group of
#: one has no within-group variance to compare with).
MIN_GROUP_SIZE = 2


def persona_group(transcript: Transcript) -> str:
    """The group a conversation belongs to, for diversity: its persona's ``variant``.

    Variants, not personas: each persona of a scenario suite is drawn once per episode or so, so
    groups of one persona's name would mostly hold a single conversation; variants are what the
    population is meant to make differ.
    """
    return transcript.persona.variant


def _anova(groups: Mapping[str, list[float]]) -> Variance:
    values = [value for group in groups.values() for value in group]
    n, g = len(values), len(groups)
    if n == 0:
        return Variance(None, None)
    grand = sum(values) / n
    means = {key: sum(group) / len(group) for key, group in groups.items()}
    ss_within = sum((value - means[key]) ** 2 for key, group in groups.items() for value in group)
    ss_between = sum(len(group) * (means[key] - grand) ** 2 for key, group in groups.items())
    within = ss_within / (n - g) if n > g else None
    between = ss_between / (g - 1) if g > 1 else None
    return Variance(within, between)


def _ngrams(tokens: Sequence[str], size: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)]


def _user_tokens(transcript: Transcript) -> list[list[str]]:
    return [[word.lower() for word in words(text)] for text in transcript.user_texts()]


def diversity(transcripts: Iterable[Transcript]) -> Diversity:
    """Population diversity of the user side of a set of conversations.

    - ``variance``: for each :data:`STYLE_FEATURES` feature (:func:`style_features`, the others
      being the rest of the population), conversations are grouped by persona variant
      (:func:`persona_group`) and the one-way ANOVA mean squares are reported:
      ``within = Σ_g Σ_i (x_gi - mean_g)² / (N - G)`` and
      ``between = Σ_g n_g (mean_g - mean)² / (G - 1)`` (None when undefined). A population whose
      variants differ in style has ``between > within``. Groups with fewer than
      :data:`MIN_GROUP_SIZE` conversations are left out and listed in ``small_groups``; every
      group's size is in ``groups``.
    - ``distinct_openings``: distinct first user messages (lowercased, whitespace collapsed) over
      conversations.
    - ``distinct_2``: distinct word bigrams over all bigrams of all user turns (bigrams do not
      cross turns; words lowercased).
    - ``trigram_overlap``: the mean, over pairs of conversations, of the Jaccard index of their
      sets of user word trigrams (pairs where both sets are empty are skipped).
    """
    population = list(transcripts)
    sizes = Counter(persona_group(transcript) for transcript in population)
    small = tuple(sorted(group for group, size in sizes.items() if size < MIN_GROUP_SIZE))
    features = [style_features(transcript, population) for transcript in population]
    variance = {}
    for name in STYLE_FEATURES:
        grouped: dict[str, list[float]] = {}
        for transcript, values in zip(population, features, strict=True):
            if persona_group(transcript) not in small:
                grouped.setdefault(persona_group(transcript), []).append(values[name])
        variance[name] = _anova(grouped)
    openings = [" ".join(texts[0].lower().split()) for t in population if (texts := t.user_texts())]
    bigrams = [gram for t in population for tokens in _user_tokens(t) for gram in _ngrams(tokens, 2)]
    trigram_sets = [{gram for tokens in _user_tokens(t) for gram in _ngrams(tokens, 3)} for t in population]
    overlaps = [len(a & b) / len(a | b) for a, b in itertools.combinations(trigram_sets, 2) if a | b]
    return Diversity(
        conversations=len(population),
        groups=dict(sorted(sizes.items())),
        small_groups=small,
        variance=variance,
        distinct_openings=len(set(openings)) / len(openings) if openings else None,
        distinct_2=len(set(bigrams)) / len(bigrams) if bigrams else None,
        trigram_overlap=sum(overlaps) / len(overlaps) if overlaps else None,
    )
