"""Simulated users that know only closed facts: personas, the rule and LLM backends, metrics."""
