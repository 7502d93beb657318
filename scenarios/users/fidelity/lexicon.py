"""Marker lexicons and the phrase and value matching every fidelity metric uses.

- Marker lexicons (the ``*_MARKERS`` tuples) are matched case-insensitively on the text with
  typographic apostrophes normalized; a multi-word marker matches as a phrase with word
  boundaries at both ends. The markers of good behaviour (don't-know, refusal, pushback, deny,
  abandon, correction) also match with one typo per word of four letters or more
  (:func:`typo_equal`), so a user's typo does not count against them.
- A **value occurs** in a text when it appears case-insensitively with token boundaries: not
  preceded or followed by a letter or digit (runs of whitespace inside a value match any
  whitespace). Empty values never occur.
- An **echo** is a value that an earlier agent message already contains: repeating what the agent
  said discloses nothing, so leak, premature-disclosure and canary checks skip echoes.
- The lexicons hold words any help desk uses. A system's own words (its field names, query
  syntax, table names, what its records are called) are not written here: they come with the
  persona as data (:class:`~enterprise_envs.scenarios.users.persona.Vocabulary`, set by the
  scenario instance from the system's conventions), and :func:`agent_phrases`,
  :func:`agent_claim_markers` and :func:`coaching_strong_terms` add them to the generic lexicons.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from enterprise_envs.scenarios.users.persona import Vocabulary
from enterprise_envs.scenarios.users.vocabulary import record_words, terms
from enterprise_envs.verifiers.text import pieces, value_pattern


def _lexicon(text: str) -> tuple[str, ...]:
    """A lexicon written as ``a | b | c`` over several lines, as a tuple of phrases."""
    return tuple(phrase for line in text.splitlines() for part in line.split("|") if (phrase := part.strip()))


#: Courtesy words (politeness markers per turn).
POLITENESS_MARKERS = _lexicon(
    """
    please | pls | plz | thanks | thank you | thx | ty | appreciate | appreciated | sorry | kindly
    cheers | grateful | would you mind | if you could | if possible
    """
)

#: Saying "I don't know" (unknown honesty).
DONT_KNOW_MARKERS = _lexicon(
    """
    don't know | dont know | do not know | not sure | no idea | not certain | unsure | dunno
    no clue | can't remember | cant remember | cannot remember | can't recall | cannot recall
    don't remember | dont remember | do not remember | couldn't tell you | could not tell you
    don't have that | don't have it | do not have that | haven't got | wouldn't know | never knew
    not something i know
    """
)

#: Refusing a request (refusal adherence).
REFUSAL_MARKERS = _lexicon(
    """
    can't share | cant share | cannot share | won't share | wont share | will not share
    not sharing | not going to share | never share | shouldn't share | should not share | can't give
    cant give | cannot give | won't give | will not give | not going to give | can't tell you
    cannot tell you | won't tell | will not tell | can't provide | cannot provide | won't provide
    can't send | won't send | can't read | won't read | can't do that | cannot do that
    won't do that | not allowed | not supposed to | not comfortable | rather not | no way | i refuse
    decline | not going to | not give out | not something i can | against policy | against the rules
    i won't | not giving | don't think i should | never to share
    should not be giving
    """
)

#: Pushing back on a question already answered (repeat pushback, error reaction).
PUSHBACK_MARKERS = _lexicon(
    """
    already told | already said | already gave | already given | already mentioned
    already provided | already answered | already sent | as i said | like i said | as i mentioned
    as i told you | i told you | told you | i just said | just told | just said | said that
    said it | asked that | asked me that | how many times | for the second time | for the third time
    once again | again? | same as before | same answer | scroll up | mentioned that | mentioned it
    gave you that | sent that | said this | answered that | read the chat | same question
    """
)

#: Saying that something still does not work (deny, error reaction, not a success claim).
DENY_MARKERS = _lexicon(
    """
    still | not working | not work | doesn't work | doesnt work | does not work | isn't working
    is not working | didn't work | did not work | didn't help | did not help | not fixed
    isn't fixed | not resolved | isn't resolved | not solved | nothing changed | nothing has changed
    no change | hasn't changed | same problem | same issue | same error | no it | no, it | nope
    not yet | not really | not sorted | that's not true | that is not true | not the case
    """
)

#: The user claiming the goal is met (false stops).
SUCCESS_MARKERS = _lexicon(
    """
    works now | working now | it works | it's working | it is working | it's fixed | it is fixed
    fixed now | that fixed it | that did it | that did the trick | that worked | that solved
    solved it | problem solved | issue solved | all sorted | sorted now | all good | all set
    resolved now | it's resolved | is resolved | that's resolved | thanks for fixing
    thanks for sorting | thanks for solving | all done | that's everything
    """
)

#: Leaving the conversation politely (false stops when the goal is not met and the user did not abandon).
FAREWELL_MARKERS = _lexicon(
    """
    bye | goodbye | good bye | have a nice day | have a good day | have a great day | that's all
    that is all | nothing else
    """
)

#: Giving up (an abandon is not a false stop).
ABANDON_MARKERS = _lexicon(
    """
    forget it | give up | giving up | gave up | never mind | nevermind | waste of | wasting my time
    not helping | useless | i'll call | i will call | i'll ask | i will ask | someone else
    somebody else | enough | done with this | fed up | pointless | go elsewhere | try later
    try again later | ridiculous | not worth | i'm leaving | i am leaving | escalate this myself
    going nowhere | not getting anywhere | round in circles
    """
)

#: The agent handing the user over (the user's goodbye after it is no false stop).
TRANSFER_MARKERS = _lexicon(
    """
    transfer | transferring | hand you over | handing you over | pass you | passing you
    connect you | escalate | escalating | escalated | second-level | second level | another team
    specialist team
    """
)

#: The agent claiming the problem is fixed (error reaction).
AGENT_CLAIM_MARKERS = _lexicon(
    """
    fixed | resolved | should work now | should be working | works now | working now | all set
    sorted | taken care of | closed the ticket | closed your ticket | is done
    has been done
    """
)

#: The user asking the agent for clarification (clarification dimension).
CLARIFY_MARKERS = _lexicon(
    """
    what do you mean | what does that mean | what's that | what is that | which one
    which do you mean | could you explain | can you explain | not sure what you | don't understand
    do not understand | what is a | what's a | where do i find | where can i find | how do i
    how would i | sorry? | pardon | meaning?
    """
)

#: Phrases an agent says and a user does not (role swap).
AGENT_PHRASES = _lexicon(
    """
    how can i help | how may i help | how can i assist | how may i assist
    how can i be of assistance | what can i do for you | is there anything else i can
    anything else i can | anything else i could | thank you for contacting | thanks for contacting
    thank you for reaching out | thanks for reaching out | i have created | i've created
    i have opened | i've opened | i have updated | i've updated | i have resolved | i've resolved
    i have escalated | i've escalated | i have assigned | i've assigned | i have reset your
    i've reset your | i have closed | i've closed | let me check that for you
    let me check this for you | let me check for you | let me check your | let me check our
    let me check the system | let me check on that | let me check with | let me look into
    let me look that up for you | let me look up your | let me see what i can do | i'll look into
    i will look into | your ticket number is | please hold
    could you please provide | can you please provide | please provide your | can you confirm your
    could you confirm your | as your agent | as an ai | as a support agent | service desk agent
    """
)

#: Tool, field, state and policy terms that coach the agent by themselves (unless the persona's own
#: text uses them). A system's own field names and query syntax are its vocabulary's ``terms``
#: (:func:`coaching_strong_terms`).
COACHING_STRONG_TERMS = _lexicon(
    """
    closure code | resolution code | resolution notes | ticket field | the field | set the state
    set the status | change the state | change the status | update the state | state to | status to
    api | tool call | call the tool | use the tool | function call | endpoint | database | json
    query
    """
)

#: Terms that coach when a suggestion marker is in the same sentence (unless the persona's own text
#: uses them).
COACHING_WEAK_TERMS = _lexicon(
    """
    resolve | resolved | resolution | close | closed | closing | priority | state | status
    escalate | assign | assigned | reassign | assignment | category | subcategory | impact | urgency
    on hold | knowledge article | knowledge base | kb article | sla | policy | field | fields
    record | tool | tools | caller | configuration item
    """
)

#: Imperatives and suggestions (a sentence starting with one of the verbs, or containing a phrase).
SUGGESTION_VERBS = _lexicon(
    """
    set | change | update | assign | reassign | escalate | mark | close | resolve | put | use | call
    add | create | open | log | file | raise | select | choose | pick | search | look up | enter
    fill | move | route | send
    """
)
SUGGESTION_PHRASES = _lexicon(
    """
    you should | you need to | you have to | you must | you could | you can | you might want
    you'll want | make sure | don't forget | remember to | try to | why don't you | why not
    i suggest | i'd suggest | i would suggest | i recommend | please | can you | could you
    would you | just | go ahead and | it needs to be | it should be | needs to be
    """
)


#: A user losing patience with the conversation (frustration onset, when there is no turn record).
#: Common calm wording ("I already told you", "still not working") is left out: calm users say it
#: too, so a text-read onset may come later than the recorded one.
FRUSTRATION_MARKERS = _lexicon(
    """
    speed this up | taking a while | other work to do | take much longer | meeting soon | sigh
    seriously | come on | unbelievable | ugh | for goodness' sake | for goodness sake | for ages
    taking forever | so hard | running out of patience | need this fixed today | finally | at last
    about time | took ages | once again | read the chat | said this before | i've said this
    same question as before | told you this already | how many times | for the last time
    scroll up | right there | already answered that | i keep telling you | can we focus
    just need this sorted | already explained | why that matters | how is that relevant
    i don't care | just fix it | actually check | look at it properly | are you even
    stop telling me | getting ridiculous | it is still not working | frustrating | frustrated
    annoying | annoyed | fed up
    """
)


#: The user telling the agent it got something wrong (corrections: :func:`missing_corrections`,
#: :func:`false_corrections`). "No" alone is left out: users say it to "is it fixed?" too.
CORRECTION_MARKERS = _lexicon(
    """
    not right | isn't right | not quite | that's wrong | that is wrong | not what i said
    got that wrong | got it wrong | not correct | isn't correct | that's not it | mixed up | mix-up
    """
)


@lru_cache(maxsize=256)
def _with_system(generic: tuple[str, ...], forms: tuple[str, ...], words: tuple[str, ...]) -> tuple[str, ...]:
    """``generic``, then each form for each of the system's words (``{word}``), each phrase once."""
    return tuple(dict.fromkeys([*generic, *(form.format(word=word) for word in words for form in forms)]))


def agent_phrases(vocabulary: Vocabulary) -> tuple[str, ...]:
    """:data:`AGENT_PHRASES` and "your <record word> number is" for the vocabulary's records.

    The record words are those an agent uses for a record: the generic ones and the vocabulary's
    ("your alert number is" where records are alerts).
    """
    return _with_system(AGENT_PHRASES, ("your {word} number is",), record_words(vocabulary))


def agent_claim_markers(vocabulary: Vocabulary) -> tuple[str, ...]:
    """:data:`AGENT_CLAIM_MARKERS` and "closed the/your <record word>" for the vocabulary's records."""
    forms = ("closed the {word}", "closed your {word}")
    return _with_system(AGENT_CLAIM_MARKERS, forms, record_words(vocabulary))


def coaching_strong_terms(vocabulary: Vocabulary) -> tuple[str, ...]:
    """:data:`COACHING_STRONG_TERMS` and the systems' own terms (their field names, query syntax)."""
    return _with_system(COACHING_STRONG_TERMS, ("{word}",), terms(vocabulary))


#: A few very common English words (the typo proxy treats them as attested).
_COMMON = """a about after again all also am an and any are as ask asked at back be because been before
    being but by can can't cannot could day did didn't do does doesn't don't done down each else
    email even ever every few fine first fix fixed for from get gets getting give go going good got
    had has hasn't have haven't having he hello help her here hi him his how i i'd i'll i'm i've if
    in into is isn't it it's its just know last let like look made make many may me mine more most
    much must my need needs new no not now of off ok okay on once one only or other our out over
    own please problem really right said same say see seems she should since so some someone still
    sure take tell than thank thanks that that's the their them then there these they thing think
    this those though time to today too try trying two under up us use used very want was wasn't
    way we well were what what's when where which while who why will with won't work working works
    would wrong yes yet you you're your yours"""
COMMON_WORDS = frozenset(_COMMON.split())

_APOSTROPHES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u02bc": "'"})
_WORD = re.compile(r"[^\W_]+(?:['\-][^\W_]+)*")
_ALPHA_WORD = re.compile(r"[a-z]+(?:'[a-z]+)*")


def _norm(text: str) -> str:
    return text.translate(_APOSTROPHES).lower()


@lru_cache(maxsize=8192)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A marker phrase as a pattern: whitespace-flexible, not inside a word (fidelity and guard)."""
    body = r"\s+".join(re.escape(part) for part in phrase.split())
    start = r"(?<![\w'])" if phrase[:1].isalnum() else ""
    end = r"(?![\w'])" if phrase[-1:].isalnum() else ""
    return re.compile(start + body + end, re.IGNORECASE)


def phrases_in(text: str, phrases: Iterable[str]) -> list[str]:
    """The phrases occurring in ``text`` as :func:`phrase_pattern` finds them, in their order.

    A phrase beginning with a word occurs only where that word is one of the text's tokens, so
    the text's tokens are read once and a phrase whose first word is not among them is never
    searched for: one pass over a long text, not one per phrase.
    """
    words = {token.casefold() for token in _TOKEN.findall(text)}
    found = []
    for phrase in phrases:
        first = _TOKEN.match(phrase.lstrip())
        if first is not None and first.group(0)[:1].isalnum() and first.group(0).casefold() not in words:
            continue
        if phrase_pattern(phrase).search(text):
            found.append(phrase)
    return found


def _markers(text: str, markers: Iterable[str], fuzzy: bool = False) -> list[str]:
    """The markers occurring in ``text`` (normalized apostrophes, phrase boundaries).

    With ``fuzzy``, a marker word of four letters or more also matches a word one typo away
    (:func:`typo_equal`), so a typo in "don't know" does not hide the marker.
    """
    normalized = _norm(text)
    markers = tuple(markers)
    found = phrases_in(normalized, markers)
    if fuzzy:
        index = _token_index(_tokens(normalized))
        found += [m for m in markers if m not in found and _fuzzy_contains(index, _tokens(_norm(m)))]
    return found


def _has_marker(text: str, markers: Iterable[str], fuzzy: bool = False) -> bool:
    normalized = _norm(text)
    markers = tuple(markers)
    if phrases_in(normalized, markers):
        return True
    if not fuzzy:
        return False
    index = _token_index(_tokens(normalized))
    return any(_fuzzy_contains(index, _tokens(_norm(marker))) for marker in markers)


_TOKEN = re.compile(r"[^\W_]+(?:'[^\W_]+)*|[^\w\s]")


@lru_cache(maxsize=8192)
def _tokens(normalized: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(normalized))


def typo_equal(marker_word: str, word: str) -> bool:
    """Whether ``word`` is ``marker_word`` or one typo away from it.

    A typo (as the style pass makes them) keeps the first letter and either swaps two neighbouring
    letters, drops one letter or doubles one. Only marker words of four letters or more are
    matched loosely (a dropped letter turns short words into other words: "bye" -> "be").
    """
    if word == marker_word:
        return True
    if len(marker_word) < 4 or not word or word[0] != marker_word[0]:
        return False
    if len(word) == len(marker_word):
        diffs = [i for i, (a, b) in enumerate(zip(word, marker_word, strict=True)) if a != b]
        return (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and word[diffs[0]] == marker_word[diffs[1]]
            and word[diffs[1]] == marker_word[diffs[0]]
        )
    if len(word) == len(marker_word) - 1:
        return any(marker_word[:i] + marker_word[i + 1 :] == word for i in range(1, len(marker_word)))
    if len(word) == len(marker_word) + 1:
        return any(
            word[:i] + word[i + 1 :] == marker_word and word[i] == word[i - 1] for i in range(1, len(word))
        )
    return False


@dataclass(frozen=True)
class _TokenIndex:
    """A text's tokens and where each (first letter, length) occurs.

    Those are the only places a marker's first word can match (:func:`typo_equal` keeps the first
    letter and the length within one), so a long text is searched there, not at every token for
    every marker.
    """

    tokens: tuple[str, ...]
    places: Mapping[tuple[str, int], tuple[int, ...]]


def _token_index(tokens: tuple[str, ...]) -> _TokenIndex:
    places: dict[tuple[str, int], list[int]] = {}
    for position, token in enumerate(tokens):
        places.setdefault((token[:1], len(token)), []).append(position)
    return _TokenIndex(tokens, {key: tuple(found) for key, found in places.items()})


def _fuzzy_contains(index: _TokenIndex, marker: Sequence[str]) -> bool:
    if not marker:
        return False
    tokens, first, width = index.tokens, marker[0], len(marker)
    lengths = (len(first),) if len(first) < 4 else (len(first) - 1, len(first), len(first) + 1)
    for start in (p for length in lengths for p in index.places.get((first[:1], length), ())):
        window = tokens[start : start + width]
        if len(window) == width and all(typo_equal(m, t) for m, t in zip(marker, window, strict=True)):
            return True
    return False


def value_occurs(value: str, text: str) -> bool:
    """Whether ``value`` occurs in ``text``: case-insensitive, with token boundaries.

    Args:
        value: The value (a fact value, a canary).
        text: The text searched.

    Returns:
        True when the value appears not preceded or followed by a letter or digit.
    """
    pattern = value_pattern(value.strip())
    return bool(pattern and pattern.search(text))


def words(text: str) -> list[str]:
    """The words of a text (letters and digits, inner apostrophes and hyphens kept)."""
    return _WORD.findall(text)


_CLAUSE_BREAKS = re.compile(r"(?<=[.!?;:])\s+|\n+")


def _sentences(text: str) -> list[str]:
    return list(pieces(text, _CLAUSE_BREAKS))


def _echo(value: str, agent_before: Iterable[str]) -> bool:
    return any(value_occurs(value, text) for text in agent_before)


def _left(text: str) -> bool:
    """Whether a reply abandons the conversation (an :data:`ABANDON_MARKERS` phrase)."""
    return _has_marker(text, ABANDON_MARKERS, fuzzy=True)
