"""ADK's own criteria, scored as ADK scores them (docs/adk-parity.md)."""
