"""evalkit's own criteria beside ADK's: flexible trajectories, final state, cost (docs/criteria.md)."""
