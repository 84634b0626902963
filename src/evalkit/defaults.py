"""The run defaults: the only place these numbers are written (docs/architecture.md).

Kept free of imports (but `typing`) so that `evalkit --help` can show them without loading pydantic;
`evalkit.settings.RunSettings` is the model that applies and checks them.
"""

from typing import Final

# Final: their type is Literal["auto"], which the jobs settings accept (evalkit.foundation.concurrency).
DEFAULT_JOBS: Final = "auto"  # eval cases in flight at once: adaptive (docs/performance.md), or a number
DEFAULT_JUDGE_JOBS: Final = "auto"  # judge calls in flight at once, per judge endpoint: adaptive, or a number
DEFAULT_TIMEOUT_S = 300.0  # seconds allowed for one agent turn
DEFAULT_REPEAT = 1  # runs per case
DEFAULT_PROCESSES = "auto"  # worker processes the cases are spread over (run --processes): chosen, or a number
DEFAULT_MAX_REPEAT = 10  # with --repeat auto: the most runs a case gets (--max-repeat)
DEFAULT_AUTO_REPEAT_ALPHA = 0.05  # --repeat auto calls k agreeing runs stable once 2^(1-k) <= this (stats/sequential.py)
DEFAULT_VIEW_PORT = 8018  # evalkit view's port on 127.0.0.1; when taken, a free one is used instead
VIEW_PAGE_SIZE = 100  # cases per page of a run's table in evalkit view
REPORT_MEDIA_BUDGET_BYTES = 20 * 1024 * 1024  # media the HTML report holds as data URLs, in all (docs/media.md)
VIEW_POLL_S = 1.0  # how often evalkit view's pages look for runs in progress
DEFAULT_HISTORY_LIMIT = 20  # recorded runs kept in the history ($EVALKIT_HISTORY_LIMIT; 0 turns it off)
DEFAULT_RUNS_DIR = ".evalkit/runs"  # the run history's folder ($EVALKIT_RUNS_DIR)
DEFAULT_CACHE_DIR = ".evalkit/cache"  # the judge cache's folder ($EVALKIT_CACHE_DIR)
DEFAULT_JUDGE_MAX_ATTEMPTS = 5  # tries per judge call ($EVALKIT_JUDGE_MAX_ATTEMPTS)
DEFAULT_JUDGE_ATTEMPT_TIMEOUT_S = 60.0  # seconds allowed for one judge call ($EVALKIT_JUDGE_TIMEOUT)
DEFAULT_JUDGE_RETRY_BASE_DELAY_S = 1.0  # the first retry's longest wait ($EVALKIT_JUDGE_RETRY_BASE_DELAY)
DEFAULT_JUDGE_RETRY_MAX_DELAY_S = 60.0  # the longest wait before any retry ($EVALKIT_JUDGE_RETRY_MAX_DELAY)
DEFAULT_MEDIA_MAX_MB = 20.0  # the most MiB one image, recording or file in an eval case may hold ($EVALKIT_MEDIA_MAX_MB)
DEFAULT_CLUSTER_GRACE_S = 10.0  # run --cluster: seconds without any worker before the unfinished cases are errors ($EVALKIT_CLUSTER_GRACE_S)
DEFAULT_OTEL_WAIT_S = 2.0  # run --otel: seconds to wait for a turn's spans after its answer (--otel-wait)
DEFAULT_GENERATE_COUNT = 20  # evalkit generate --count: the most cases one generation keeps
DEFAULT_GENERATE_MIN_COVERAGE = 1.0  # evalkit generate --min-coverage: the planned coverage it stops at
DEFAULT_SAMPLE_SEED = 0  # import otel --sample: which conversations a fraction keeps (docs/traces.md)

# The most characters of one text (a reply, an error) the console prints; the files keep it whole.
CONSOLE_TEXT_LIMIT = 500
