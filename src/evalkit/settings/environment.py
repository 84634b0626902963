"""The `EVALKIT_*` environment variables: read here, and nowhere else in evalkit."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit import defaults
from evalkit.errors import UsageError


# Set by a run for its `--processes` workers only: the headers, which their settings file leaves out.
WORKER_HEADERS_VARIABLE = "EVALKIT_WORKER_HEADERS"


def worker_headers_environment(headers: tuple[tuple[str, str], ...]) -> dict[str, str]:
    """What a `--processes` worker's environment adds to pass it the run's headers."""
    return {WORKER_HEADERS_VARIABLE: json.dumps(headers)} if headers else {}


def take_worker_headers() -> object | None:
    """In a worker: the headers its parent passed (None: none), taken out of the environment so
    that processes the agent starts do not inherit them."""
    given = os.environ.pop(WORKER_HEADERS_VARIABLE, None)
    return json.loads(given) if given else None


class Environment(BaseModel):
    """The `EVALKIT_*` environment variables, checked together: the one place they are read.

    An unset or empty variable takes its default (`evalkit.defaults`). Built from a plain
    mapping (`Environment.read()`), not pydantic-settings: that library's import costs
    a run's start-up a tenth of a second or more for ten values (docs/dependencies.md).
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True, defer_build=True)

    runs_dir: Path = Field(default=Path(defaults.DEFAULT_RUNS_DIR), alias="EVALKIT_RUNS_DIR")
    history_limit: int = Field(default=defaults.DEFAULT_HISTORY_LIMIT, ge=0, alias="EVALKIT_HISTORY_LIMIT")
    cache_dir: Path = Field(default=Path(defaults.DEFAULT_CACHE_DIR), alias="EVALKIT_CACHE_DIR")
    judge_max_attempts: int = Field(default=defaults.DEFAULT_JUDGE_MAX_ATTEMPTS, ge=1,
                                    alias="EVALKIT_JUDGE_MAX_ATTEMPTS")
    judge_timeout: float = Field(default=defaults.DEFAULT_JUDGE_ATTEMPT_TIMEOUT_S, gt=0, alias="EVALKIT_JUDGE_TIMEOUT")
    judge_retry_base_delay: float = Field(default=defaults.DEFAULT_JUDGE_RETRY_BASE_DELAY_S, ge=0,
                                          alias="EVALKIT_JUDGE_RETRY_BASE_DELAY")
    judge_retry_max_delay: float = Field(default=defaults.DEFAULT_JUDGE_RETRY_MAX_DELAY_S, ge=0,
                                         alias="EVALKIT_JUDGE_RETRY_MAX_DELAY")
    media_max_mb: float = Field(default=defaults.DEFAULT_MEDIA_MAX_MB, gt=0, alias="EVALKIT_MEDIA_MAX_MB")
    # Where the judges (and the user simulator) call when not where the agent's variables say;
    # `run --cassettes` fills in the real servers for the run (CassetteRun.judges_environment).
    judge_gemini_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_GEMINI_BASE_URL")
    judge_vertex_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_VERTEX_BASE_URL")
    judge_openai_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_OPENAI_BASE_URL")
    # `run --cluster`: how long a run waits for a worker when its scheduler has none (a local cluster's
    # nanny restarts a lost worker within a few seconds), before its unfinished cases become `error`.
    cluster_grace_s: float = Field(default=defaults.DEFAULT_CLUSTER_GRACE_S, gt=0, alias="EVALKIT_CLUSTER_GRACE_S")

    @property
    def media_dir(self) -> Path:
        """Where runs keep their cases' media by hash: beside the history (`.evalkit/media`)."""
        return self.runs_dir.parent / "media"

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> Environment:
        """The variables of `environ` (the process's by default); a bad one raises `UsageError` naming it."""
        environ = os.environ if environ is None else environ
        given = {field.alias: environ[field.alias].strip() for field in cls.model_fields.values()
                 if field.alias and environ.get(field.alias, "").strip()}
        try:
            return cls.model_validate(given)
        except ValidationError as error:
            variable = str(error.errors()[0]["loc"][0])
            name = next(n for n, f in cls.model_fields.items() if f.alias == variable)
            raise UsageError(f"{variable}={given[variable]}: {_ENVIRONMENT_REASONS[name]}") from None

    @classmethod
    def variable(cls, name: str) -> str:
        """The variable behind field `name`, for a message that tells a user which one to set."""
        return str(cls.model_fields[name].alias)

    @classmethod
    def variables(cls, prefix: str = "") -> tuple[str, ...]:
        """The variables' names (those of the fields starting with `prefix`), for code that clears them."""
        return tuple(field.alias for name, field in cls.model_fields.items() if field.alias and name.startswith(prefix))


_ENVIRONMENT_REASONS = {
    "runs_dir": "expected a folder",
    "history_limit": "expected a whole number of runs to keep (0 turns history off)",
    "cache_dir": "expected a folder",
    "judge_max_attempts": "expected a whole number of tries per judge call (max_attempts), at least 1",
    "judge_timeout": "expected a positive number of seconds per judge call",
    "judge_retry_base_delay": "expected a number of seconds, 0 or more",
    "judge_retry_max_delay": "expected a number of seconds, 0 or more",
    "media_max_mb": "expected the most MiB one media part may hold, a number above 0, such as 20",
    "cluster_grace_s": "expected a positive number of seconds",
}


