"""enterprise-envs: Gymnasium environments of mocked enterprise systems for LLM agents.

Importing the package registers its Gym ids (``ITSM-v0``, ``enterprise_envs/ITSM-v0``);
``gymnasium.make("enterprise_envs:ITSM-v0")`` imports it for you.
"""

__version__ = "0.1.0"

from enterprise_envs.registry import register_envs  # noqa: E402  (after __version__, which modules read)

register_envs()
