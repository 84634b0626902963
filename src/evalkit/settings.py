"""How a run runs: one frozen settings object that applies the run defaults and checks itself.

The CLI, the Python API and the pytest plugin all build a `RunSettings` from what their
user gave (`None` meaning "not given") with `RunSettings.of(...)`, and pass it on: the
engine, the runner and the agent adapters read their limits from it and from nowhere
else. The default numbers are in `evalkit.defaults` (docs/architecture.md).
"""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from evalkit.defaults import DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_MAX_REPEAT, DEFAULT_REPEAT, DEFAULT_TIMEOUT_S
from evalkit.engine.concurrency import JobsSetting, most_in_flight, parse_jobs
from evalkit.errors import SettingError

# How many things run at once: a whole number ≥ 1 or "auto" (the adaptive controller of
# `evalkit.engine.concurrency`), parsed here for the CLI, the Python API and the plugin.
Concurrency = Annotated[JobsSetting, BeforeValidator(parse_jobs)]

_REASONS = {
    "jobs": "expected 'auto' or a whole number of cases at a time, at least 1, such as 16",
    "judge_jobs": "expected 'auto' or a whole number of judge calls at a time, at least 1, such as 16",
    "timeout": "allow a positive number of seconds per turn",
    "repeat": "run each case at least once: a whole number, or 'auto' (see docs/repeats.md)",
    "max_repeat": "with --repeat auto: a whole number of runs, at least 2, such as 10",
    "pass_rate": "expected a share of the runs above 0 and at most 1, such as 0.8",
    "use_cache": "expected true or false",
    "confidence": "expected a confidence above 0 and below 1, such as 0.95",
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
    confidence: float | None = Field(default=None, gt=0, lt=1)  # with pass_rate: judge by the interval's low end
    auto_repeat: bool = False  # `--repeat auto`: `repeat` is then the most runs a case gets (engine/repeats.py)

    @classmethod
    def of(cls, **given: Any) -> RunSettings:
        """Settings from options as a user gave them: `None` means "not given", so the default.

        A value out of range raises `SettingError` naming the setting; the CLI words it
        with its flag, the Python API with its keyword.
        """
        chosen = {name: value for name, value in given.items() if value is not None}
        max_repeat = chosen.pop("max_repeat", None)
        if isinstance(chosen.get("repeat"), str) and chosen["repeat"].strip().lower() == "auto":
            chosen["auto_repeat"] = True
            chosen["repeat"] = DEFAULT_MAX_REPEAT if max_repeat is None else max_repeat
            if not isinstance(chosen["repeat"], int) or chosen["repeat"] < 2:
                raise SettingError("max_repeat", chosen["repeat"], _REASONS["max_repeat"])
        try:
            return cls(**chosen)
        except ValidationError as error:
            first = error.errors()[0]
            name = str(first["loc"][0]) if first["loc"] else "settings"
            reason = _REASONS.get(name, first["msg"])
            raise SettingError(name, chosen.get(name), reason) from None

    @property
    def most_jobs_in_flight(self) -> int:
        """The most cases ever in flight: what an adapter sizes its pool of processes,
        connections or threads for (the controller's ceiling when `jobs` is "auto")."""
        return most_in_flight(self.jobs)

    @property
    def required_passes(self) -> int:
        """How many of the `repeat` runs of a case must pass: all, or ceil(pass_rate × runs)."""
        return self.passes_required(self.repeat)

    def passes_required(self, runs: int) -> int:
        """Passing runs a case needs out of `runs`: all of them; ceil(pass_rate × runs); or,
        with a confidence, the fewest whose Wilson interval starts at pass_rate or above
        (runs + 1 when even all of them do not: docs/repeats.md, "Gating on the interval")."""
        if self.pass_rate is None:
            return runs
        if self.confidence is None:
            return max(1, math.ceil(self.pass_rate * runs - 1e-9))
        from evalkit.stats.interval import wilson_interval

        for passed in range(1, runs + 1):
            if wilson_interval(passed, runs, self.confidence)[0] >= self.pass_rate - 1e-12:
                return passed
        return runs + 1


DEFAULTS = RunSettings()
