"""How a run runs: one frozen settings object that applies the run defaults and checks itself.

The CLI, the Python API and the pytest plugin all build a `RunSettings` from what their
user gave (`None` meaning "not given") with `RunSettings.of(...)`, and pass it on: the
engine, the runner and the agent adapters read their limits from it and from nowhere
else. The default numbers are in `evalkit.defaults` (docs/architecture.md).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.defaults import DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_REPEAT, DEFAULT_TIMEOUT_S
from evalkit.errors import SettingError

# How many things run at once. Kept as one type so that a non-numeric setting (an
# adaptive level, say) is added here and resolved in `RunSettings`, not in every reader.
Concurrency = Annotated[int, Field(ge=1)]

_REASONS = {
    "jobs": "run at least one case at a time",
    "judge_jobs": "allow at least one judge call at a time",
    "timeout": "allow a positive number of seconds per turn",
    "repeat": "run each case at least once",
    "pass_rate": "expected a share of the runs above 0 and at most 1, such as 0.8",
    "use_cache": "expected true or false",
}


class RunSettings(BaseModel):
    """The knobs of one run. Frozen: what the run started with is what it ran with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    jobs: Concurrency = DEFAULT_JOBS
    judge_jobs: Concurrency = DEFAULT_JUDGE_JOBS
    timeout: float | None = Field(default=DEFAULT_TIMEOUT_S, gt=0)  # None: no limit
    repeat: int = Field(default=DEFAULT_REPEAT, ge=1)
    pass_rate: float | None = Field(default=None, gt=0, le=1)  # None: every run must pass
    use_cache: bool = True  # read and write the judge cache

    @classmethod
    def of(cls, **given: Any) -> RunSettings:
        """Settings from options as a user gave them: `None` means "not given", so the default.

        A value out of range raises `SettingError` naming the setting; the CLI words it
        with its flag, the Python API with its keyword.
        """
        chosen = {name: value for name, value in given.items() if value is not None}
        try:
            return cls(**chosen)
        except ValidationError as error:
            first = error.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "settings"
            reason = _REASONS.get(name, first["msg"])
            raise SettingError(name, chosen.get(name), reason) from None

    @property
    def required_passes(self) -> int:
        """How many of the `repeat` runs of a case must pass: all, or ceil(pass_rate × runs)."""
        if self.pass_rate is None:
            return self.repeat
        return max(1, math.ceil(self.pass_rate * self.repeat - 1e-9))


DEFAULTS = RunSettings()
