"""The user simulator: conversations played from a scenario, personas and their prompts."""
