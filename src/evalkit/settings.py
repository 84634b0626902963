"""What a run runs and how: one frozen settings object that applies the run defaults and checks itself.

The CLI, the Python API and the pytest plugin all build a `RunSettings` from what their
user gave (`None` meaning "not given") with `RunSettings.of(...)`, and pass it to
`evalkit.engine.run.run`: the engine, the runner and the agent adapters read their
limits from it and from nowhere else; `--processes` workers receive it serialized. The
default numbers are in `evalkit.defaults` (docs/architecture.md).

The `EVALKIT_*` environment variables are read here too, and only here: `Environment`
(docs/config.md, "Environment variables", lists them). A run's settings hold the environment they were
built in, so the engine, the judge and the history take them from there.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from evalkit import defaults
from evalkit.defaults import (DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_MAX_REPEAT, DEFAULT_PROCESSES, DEFAULT_REPEAT,
                              DEFAULT_TIMEOUT_S)
from evalkit.foundation.concurrency import JobsSetting, most_in_flight, parse_jobs
from evalkit.foundation.redaction import add_secret
from evalkit.errors import SettingError, UsageError

if TYPE_CHECKING:
    from evalkit.stats.sequential import StoppingRule

# How many things run at once: a whole number ≥ 1 or "auto" (the adaptive controller of
# `evalkit.foundation.concurrency`), parsed here for the CLI, the Python API and the plugin.
Concurrency = Annotated[JobsSetting, BeforeValidator(parse_jobs)]

AUTO_PROCESSES: Literal["auto"] = "auto"
ProcessesSetting = int | Literal["auto"]


def parse_processes(value: object) -> ProcessesSetting:
    """`processes`: `auto` (evalkit.engine.process_count chooses) or a whole number ≥ 1.

    The same words as `jobs`, so the same parser; `RunSettings.of` words its ValueError
    as a `SettingError`.
    """
    return parse_jobs(value)


Processes = Annotated[ProcessesSetting, BeforeValidator(parse_processes)]

# A header field name: an HTTP token (RFC 9110, section 5.6.2).
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def parse_headers(value: object) -> tuple[tuple[str, str], ...]:
    """`headers`: "Name: value" strings (`--header`, repeatable) or a mapping name → value (the Python API).

    Header values are often credentials: a ValueError here names the header, never its value.
    """
    if value is None:
        return ()
    if isinstance(value, Mapping):
        pairs = [(str(name), str(text)) for name, text in value.items()]
    elif isinstance(value, str):
        pairs = [_split_header(value)]
    else:
        # (name, value) pairs as well: what RunSettings holds, and its JSON for a worker (lists)
        pairs = [(str(item[0]), str(item[1])) if isinstance(item, (tuple, list)) and len(item) == 2
                 else _split_header(str(item)) for item in value]  # type: ignore[attr-defined]
    for name, text in pairs:
        if not _HEADER_NAME.fullmatch(name):
            raise ValueError(f"{name[:40]!r} is not a header name; write --header 'Name: value', "
                             "such as --header 'Authorization: Bearer TOKEN'")
        if "\r" in text or "\n" in text:
            raise ValueError(f"the value of header {name} holds a line break; give it on one line")
    for _, text in pairs:
        add_secret(text)  # an agent may repeat it (a debug line, an error): every writer masks it from now on
    return tuple((name, text.strip()) for name, text in pairs)


def _split_header(text: str) -> tuple[str, str]:
    name, colon, value = text.partition(":")
    if not colon:
        # Only what comes before a space is shown: the rest may be a credential.
        raise ValueError(f"{text.split(' ')[0][:40]!r}… has no colon; write --header 'Name: value', "
                         "such as --header 'Authorization: Bearer TOKEN'")
    return name.strip(), value


Headers = Annotated[tuple[tuple[str, str], ...], BeforeValidator(parse_headers)]

_REASONS = {
    "jobs": "expected 'auto' or a whole number of cases at a time, at least 1, such as 16",
    "judge_jobs": "expected 'auto' or a whole number of judge calls at a time, at least 1, such as 16",
    "timeout": "expected a number of seconds per turn above 0, such as 60",
    "repeat": "expected 'auto' or a whole number of runs per case, at least 1, such as 5 (see docs/repeats.md)",
    "max_repeat": "with --repeat auto: a whole number of runs, at least 2, such as 10",
    "pass_rate": "expected a share of the runs above 0 and at most 1, such as 0.8",
    "use_cache": "expected true or false",
    "confidence": "expected a confidence above 0 and below 1, such as 0.95",
    "quarantine": "expected a quarantine file (JSON or YAML; see docs/repeats.md)",
    "processes": "expected 'auto' or a whole number of worker processes, at least 1",
    "min_coverage": "expected a share of the agent's tools from 0 to 1, such as 0.8 (see docs/coverage.md)",
}


class Environment(BaseModel):
    """The `EVALKIT_*` environment variables, checked together: the one place they are read.

    An unset or empty variable takes its default (`evalkit.defaults`). Built from a plain
    mapping (`Environment.read()`), not pydantic-settings: that library's import costs
    a run's start-up a tenth of a second or more for ten values (docs/dependencies.md).
    """

    model_config = ConfigDict(frozen=True, extra="ignore", populate_by_name=True)

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
    # Where the judges (and the user simulator) call when not where the agent's variables say;
    # `run --cassettes` fills in the real servers for the run (CassetteRun.judges_environment).
    judge_gemini_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_GEMINI_BASE_URL")
    judge_vertex_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_VERTEX_BASE_URL")
    judge_openai_base_url: str | None = Field(default=None, alias="EVALKIT_JUDGE_OPENAI_BASE_URL")

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
}


WORKER_HEADERS_VARIABLE = "EVALKIT_WORKER_HEADERS"  # set by a run for its `--processes` workers only


class RunSettings(BaseModel):
    """One run: what it runs and its knobs. Frozen: what the run started with is what it ran with."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # What to run. Empty or None: given another way (the Python API's arguments, the config's agent).
    paths: tuple[str, ...] = ()  # eval set files and folders, `file.json:id,id` selectors
    case_ids: tuple[str, ...] = ()  # run only these eval cases
    config: str | None = None  # the EvalConfig file for every eval set
    agent: str | None = None  # the agent SPEC; an agent object is passed beside the settings
    shard: str | None = None  # "K/N": this run's slice of the cases (evalkit.engine.sharding)
    cassettes: Path | None = None  # answer the agent's model calls from this folder (docs/cassettes.md)
    cassette_mode: str = "replay"
    processes: Processes = parse_processes(DEFAULT_PROCESSES)  # worker processes (evalkit.engine.processes), or "auto"
    # The EVALKIT_* variables, as they were when the settings were built.
    environment: Environment = Field(default_factory=Environment.read)

    jobs: Concurrency = DEFAULT_JOBS
    judge_jobs: Concurrency = DEFAULT_JUDGE_JOBS
    timeout: float | None = Field(default=DEFAULT_TIMEOUT_S, gt=0)  # None: no limit
    repeat: int = Field(default=DEFAULT_REPEAT, ge=1)
    pass_rate: float | None = Field(default=None, gt=0, le=1)  # None: every run must pass
    use_cache: bool = True  # read and write the judge cache
    confidence: float | None = Field(default=None, gt=0, lt=1)  # with pass_rate: judge by the interval's low end
    auto_repeat: bool = False  # `--repeat auto`: `repeat` is then the most runs a case gets (engine/repeats.py)
    quarantine: Path | None = None  # known-flaky cases left out of the exit code until their date (evalkit.results.quarantine)
    min_coverage: float | None = Field(default=None, ge=0, le=1)  # fail below this share of tools called (coverage)
    # `--header`: (name, value) sent with every request to http(s)://, adk-server: and a2a: agents. Never
    # serialized (a `--processes` worker gets them in its environment: engine/processes.py) nor shown.
    headers: Headers = Field(default=(), exclude=True, repr=False)

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
            if name == "headers":  # worded without the value, which may be a credential
                raise SettingError(name, "…", str(first.get("ctx", {}).get("error", first["msg"]))) from None
            reason = _REASONS.get(name, first["msg"])
            raise SettingError(name, chosen.get(name), reason) from None

    def worker_environment(self) -> dict[str, str]:
        """What a `--processes` worker's environment adds: the headers, which its settings file leaves out."""
        return {WORKER_HEADERS_VARIABLE: json.dumps(self.headers)} if self.headers else {}

    def with_worker_environment(self) -> RunSettings:
        """In a worker: these settings with the headers its parent passed (taken out of the environment,
        so that processes the agent starts do not inherit them)."""
        given = os.environ.pop(WORKER_HEADERS_VARIABLE, None)
        return self.model_copy(update={"headers": parse_headers(json.loads(given))}) if given else self

    @property
    def most_jobs_in_flight(self) -> int:
        """The most cases ever in flight: what an adapter sizes its pool of processes,
        connections or threads for (the controller's ceiling when `jobs` is "auto")."""
        return most_in_flight(self.jobs)

    @property
    def required_passes(self) -> int:
        """How many of the `repeat` runs of a case must pass: all, or ceil(pass_rate × runs)."""
        return self.passes_required(self.repeat)

    def stopping_rule(self) -> StoppingRule:
        """`--repeat auto`'s rule (stats/sequential.py): curtail `--repeat repeat` with its
        pass rule; without `--pass-rate`, the stability rule, which needs at most the runs
        that make a half-passing case look stable with chance at most 0.05."""
        from evalkit.defaults import DEFAULT_AUTO_REPEAT_ALPHA
        from evalkit.stats.sequential import PASS_RATE, STABILITY, StoppingRule, agreeing_runs_needed

        if self.pass_rate is None:
            return StoppingRule(STABILITY, min(self.repeat, agreeing_runs_needed(DEFAULT_AUTO_REPEAT_ALPHA)))
        return StoppingRule(PASS_RATE, self.repeat, self.required_passes)

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

