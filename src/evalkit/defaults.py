"""The run defaults: the only place these numbers are written (docs/architecture.md).

Kept free of imports so that `evalkit --help` can show them without loading pydantic;
`evalkit.settings.RunSettings` is the model that applies and checks them.
"""

DEFAULT_JOBS = "auto"  # eval cases in flight at once: adaptive (docs/performance.md), or a number
DEFAULT_JUDGE_JOBS = "auto"  # judge calls in flight at once, per judge endpoint: adaptive, or a number
DEFAULT_TIMEOUT_S = 300.0  # seconds allowed for one agent turn
DEFAULT_REPEAT = 1  # runs per case
DEFAULT_PROCESSES = 1  # worker processes the cases are spread over (run --processes)
DEFAULT_MAX_REPEAT = 10  # with --repeat auto: the most runs a case gets (--max-repeat)
DEFAULT_AUTO_REPEAT_ALPHA = 0.05  # --repeat auto calls agreeing runs stable after 2^-k <= this (stats/stability.py)
DEFAULT_SAMPLE_SEED = 0  # import otel --sample: which conversations a fraction keeps (docs/traces.md)
