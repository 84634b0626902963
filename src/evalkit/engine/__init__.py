"""The run: run() and evaluate(), cases in flight, repeats, shards, processes and the run's files."""
