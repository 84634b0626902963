"""Agent Platform metrics run locally: the managed metric ids of agents-cli's `metrics_to_run` and its custom metrics."""
