"""The metrics: one Criterion per name, their options, the registry and a config's criteria built."""
