"""The run defaults: the only place these numbers are written (docs/architecture.md).

Kept free of imports so that `evalkit --help` can show them without loading pydantic;
`evalkit.settings.RunSettings` is the model that applies and checks them.
"""

DEFAULT_JOBS = 8  # eval cases in flight at once
DEFAULT_JUDGE_JOBS = 16  # judge calls in flight at once, across the run
DEFAULT_TIMEOUT_S = 300.0  # seconds allowed for one agent turn
DEFAULT_REPEAT = 1  # runs per case
