"""Small exact statistics for gating on a non-deterministic agent (docs/repeats.md).

Pure functions on counts and scores, standard library only: imported by `compare`,
`--baseline` and `--repeat`, never by `--help` or `validate`.
"""
