"""The agent under test: the Agent and AgentSession classes, the spec resolver and one adapter per kind."""
