"""Vocabularies of systems for the simulated-user tests: ITSM's as its instance hands it over, and
a made-up one (a key-value store) whose words and record numbers are nobody else's."""

from __future__ import annotations

from enterprise_envs.mocks.itsm import SYSTEM as ITSM
from enterprise_envs.scenarios.users.persona import Persona, Vocabulary
from enterprise_envs.scenarios.vocabulary import persona_vocabulary

#: ITSM's vocabulary, exactly as ``draw_instance`` puts it on a persona.
ITSM_VOCABULARY = Vocabulary.model_validate(persona_vocabulary([ITSM]))

#: A made-up system: entries in buckets, keys as ``KV`` and five digits, its own API words.
KV_VOCABULARY = Vocabulary(
    record="entry",
    terms=["bucket_key", "kvql", "ttl field", "shard map"],
    nouns={"kv_entry": "entry", "bucket": "bucket"},
    numbers={"KV": 5},
)


def speaking(persona: Persona, vocabulary: Vocabulary) -> Persona:
    """The persona, as the user of a scenario on the system with that vocabulary."""
    return persona.model_copy(update={"vocabulary": vocabulary})
