"""Baselines: what changed between two scored runs (`evalkit compare`, `run --baseline`)."""
