"""evalkit: evaluate LLM agents with ADK-compatible scores, fast, as a CI gate."""

__version__ = "0.1.0"
