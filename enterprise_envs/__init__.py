"""enterprise-envs: Gymnasium environments of mocked enterprise systems for LLM agents."""

__version__ = "0.1.0"
