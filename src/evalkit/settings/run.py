"""`RunSettings`: what one run runs and how, declared once with the flags that give it.

The CLI, the Python API and the pytest plugin all build a `RunSettings` from what their
user gave (`None` meaning "not given") with `RunSettings.of(...)`, and pass it to
`evalkit.engine.run.run`: the engine, the runner and the agent adapters read their limits
from it and from nowhere else; `--processes` workers receive it serialized. The default
numbers are in `evalkit.defaults`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from evalkit.defaults import (DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_MAX_REPEAT, DEFAULT_PROCESSES, DEFAULT_REPEAT,
                              DEFAULT_OTEL_WAIT_S, DEFAULT_TIMEOUT_S)
from evalkit.errors import SettingError
from evalkit.foundation.concurrency import most_in_flight
from evalkit.foundation.redaction import Redaction
from evalkit.settings.declaration import Needs, Setting, reason_for, settings_of
from evalkit.settings.environment import Environment, take_worker_headers, worker_headers_environment
from evalkit.settings.values import Cluster, Concurrency, Headers, Origins, Processes, parse_headers, parse_processes

if TYPE_CHECKING:
    from evalkit.stats.sequential import StoppingRule



class RunSettings(BaseModel):
    """One run: what it runs and its knobs. Frozen: what the run started with is what it ran with."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    # What to run. Empty or None: given another way (the Python API's arguments, the config's agent).
    paths: tuple[str, ...] = ()  # eval set files and folders, `file.json:id,id` selectors (the CLI's arguments)
    config: Annotated[str | None, Setting(
        "--config", "EvalConfig file (JSON or YAML)", "FILE", aliases=("--config_file_path",), in_api=False,
        in_pytest=True, pytest_help="EvalConfig for every eval set (default: test_config.json beside each)")] = None
    agent: Annotated[str | None, Setting(
        "--agent", "module:attr, file.py:attr, ADK agent folder, cmd:COMMAND, http(s)://URL, adk-server:URL/APP, "
        "a2a:URL or replay:RESULT.json", "SPEC", in_api=False, in_pytest=True,
        pytest_help="The agent under test, as `evalkit run --agent` takes it (default: the config's agent)")] = None  # an agent object goes beside
    case_ids: Annotated[tuple[str, ...], Setting(
        "--case", "Only this eval id (repeatable)", "ID", repeatable=True, keyword="cases")] = ()
    shard: Annotated[str | None, Setting(
        "--shard", "K/N: run the K-th of N stable slices of the cases; auto: the slice from the CI's parallel-job "
        "variables", "K/N", in_api=False)] = None  # evalkit.engine.sharding
    headers: Annotated[Headers, Setting(
        "--header", "Send this header with every request to an http(s)://, adk-server: or a2a: agent "
        "(repeatable; never written to a file)", "'NAME: VALUE'", repeatable=True, in_pytest=True,
        pytest_help="A header for every request to an http(s)://, adk-server: or a2a: agent (as `evalkit run "
        "--header`; repeatable; on the command line only, so no file holds it)")] = Field(
        # Never serialized (a `--processes` worker gets them in its environment: engine/processes.py) nor shown.
        default=(), exclude=True, repr=False)
    header_origins: Annotated[Origins, Setting(
        "--header-origin", "Also send the --header headers to this origin (scheme://host[:port]) of an a2a: agent, "
        "such as an interface its card names on another host or port; by default they go only to the agent's own "
        "(repeatable)", "URL", repeatable=True, needs=Needs("headers", "{headers} 'NAME: VALUE'", "add {headers}"),
        in_pytest=True, pytest_help="An origin the --header headers may also go to (as `evalkit run "
        "--header-origin`; repeatable)")] = ()

    # How: concurrency, limits, repeats.
    jobs: Annotated[Concurrency, Setting(
        "--jobs", "Cases run at once: 'auto' adapts to the agent, a number fixes it", "N|auto",
        "expected 'auto' or a whole number of cases at a time, at least 1, such as 16", aliases=("-j",),
        default_text=str(DEFAULT_JOBS))] = DEFAULT_JOBS
    judge_jobs: Annotated[Concurrency, Setting(
        "--judge-jobs", "Judge calls in flight at once, per judge endpoint: 'auto' or a number", "N|auto",
        "expected 'auto' or a whole number of judge calls at a time, at least 1, such as 16",
        default_text=str(DEFAULT_JUDGE_JOBS))] = DEFAULT_JUDGE_JOBS
    processes: Annotated[Processes, Setting(
        "--processes", "Worker processes to spread the cases over, for CPU-bound agents; 'auto' uses the free "
        "cores for an ADK agent folder", "N|auto", "expected 'auto' or a whole number of worker processes, at least 1",
        default_text=str(DEFAULT_PROCESSES), in_api=False)] = parse_processes(DEFAULT_PROCESSES)
    cluster: Annotated[Cluster, Setting(
        "--cluster", "Run the cases on a Dask cluster: local[:N] starts N worker processes here (default: one per "
        "core), tcp://HOST:PORT uses a running scheduler (see docs/cluster.md)", "local[:N]|tcp://HOST:PORT",
        "expected local, local:N (N worker processes, at least 1) or a Dask scheduler's address tcp://HOST:PORT, "
        "such as local:4 or tcp://10.0.0.5:8786", in_pytest=True,
        pytest_help="Run the eval cases on a Dask cluster (as `evalkit run --cluster`): local[:N] or "
        "tcp://HOST:PORT")] = None  # engine/cluster.py
    timeout: Annotated[float | None, Setting(
        "--timeout", "Seconds allowed per turn", "SECONDS", "expected a number of seconds per turn above 0, such as 60",
        parsed_as=float, default_text=f"{DEFAULT_TIMEOUT_S:g}")] = Field(default=DEFAULT_TIMEOUT_S, gt=0)  # None: no limit
    repeat: Annotated[int, Setting(
        "--repeat", "Run each case N times, or 'auto': again only while its verdict is uncertain", "N|auto",
        "expected 'auto' or a whole number of runs per case, at least 1, such as 5 (see docs/repeats.md)",
        default_text=str(DEFAULT_REPEAT))] = Field(default=DEFAULT_REPEAT, ge=1)
    auto_repeat: bool = False  # `--repeat auto`: `repeat` is then the most runs a case gets (engine/repeats.py)
    max_repeat: Annotated[int | None, Setting(
        "--max-repeat", "With --repeat auto: the most runs a case gets", "N",
        "with --repeat auto: a whole number of runs, at least 2, such as 10", parsed_as=int,
        default_text=str(DEFAULT_MAX_REPEAT), needs=Needs("auto_repeat", "{repeat} auto", "use {repeat} auto"))] = None
    pass_rate: Annotated[float | None, Setting(
        "--pass-rate", "With --repeat: share of the runs a case needs to pass (default: all)", "RATE",
        "expected a share of the runs above 0 and at most 1, such as 0.8", parsed_as=float,
        needs=Needs("repeat", "{repeat} N (N > 1)", "add {repeat}"))] = Field(default=None, gt=0, le=1)  # None: every run
    confidence: Annotated[float | None, Setting(
        "--confidence", "With --pass-rate: a case passes when it is above the rate with this confidence, such as "
        "0.95 (see docs/repeats.md)", "LEVEL", "expected a confidence above 0 and below 1, such as 0.95",
        parsed_as=float, needs=Needs("pass_rate", "{pass_rate} RATE", "add {pass_rate} (such as 0.8)"))] = Field(
        default=None, gt=0, lt=1)  # judge by the interval's low end
    use_cache: Annotated[bool, Setting(
        "--no-cache", "Do not read or write the judge cache", reason="expected true or false",
        switch_gives=False)] = True
    cassettes: Annotated[Path | None, Setting(
        "--cassettes", "Answer the agent's model calls from cassettes in this folder (see docs/cassettes.md)", "DIR",
        parsed_as=Path)] = None
    cassette_mode: Annotated[str, Setting(
        "--cassette-mode", "With --cassettes: replay (offline), record (call the model, rewrite) or auto (record "
        "only what is missing)", "MODE", default_text="replay", choices=("replay", "record", "auto"),
        needs=Needs("cassettes", "{cassettes} DIR", "add {cassettes}"))] = "replay"
    quarantine: Annotated[Path | None, Setting(
        "--quarantine", "Known-flaky cases (JSON or YAML list of case, until, reason): run and reported, not "
        "counted in the exit code until their date", "FILE",
        "expected a quarantine file (JSON or YAML; see docs/repeats.md)", parsed_as=Path, in_pytest=True,
        pytest_help="Known-flaky cases (as `evalkit run --quarantine`): xfail instead of failing until their date")] = None
    min_coverage: Annotated[float | None, Setting(
        "--min-coverage", "Exit 1 when fewer than this share of the agent's tools were called, such as 0.8 (see "
        "docs/coverage.md)", "RATIO", "expected a share of the agent's tools from 0 to 1, such as 0.8 (see "
        "docs/coverage.md)", parsed_as=float, in_pytest=True,
        pytest_help="Fail the session when the eval cases called fewer than this share of the agent's tools")] = Field(default=None, ge=0, le=1)
    # Budgets of the whole run, the agent's and the judges' model calls together (engine/budget.py;
    # docs/criteria.md, "Run budgets"); a config's `max_cost`, `max_tokens`, `max_model_calls` when not given.
    max_cost: Annotated[float | None, Setting(
        "--max-cost", "Start no new case once the agent and the judges have spent this many US dollars (priced "
        "by cost_v1's prices in the config)", "USD", "expected an amount of US dollars above 0, such as 5",
        parsed_as=float, in_pytest=True)] = Field(default=None, gt=0)
    max_tokens: Annotated[int | None, Setting(
        "--max-tokens", "Start no new case once the agent and the judges have used this many tokens", "N",
        "expected a whole number of tokens, at least 1, such as 200000", parsed_as=int, in_pytest=True)] = Field(
        default=None, ge=1)
    max_model_calls: Annotated[int | None, Setting(
        "--max-model-calls", "Start no new case once the agent and the judges have made this many model calls",
        "N", "expected a whole number of model calls, at least 1, such as 500", parsed_as=int,
        in_pytest=True)] = Field(default=None, ge=1)
    # `--processes`: the file every process of the run adds its usage to, so the budgets hold for the whole run.
    budget_journal: Path | None = None

    # The agent's own telemetry, received live (engine/telemetry.py; docs/agents.md, "Trajectories from telemetry").
    otel: Annotated[bool, Setting(
        "--otel", "Receive the agent's OpenTelemetry spans (OTLP/HTTP on 127.0.0.1) and fill in the tool calls its "
        "replies leave out", reason="expected true or false", in_pytest=True,
        pytest_help="Receive the agent's OpenTelemetry spans and fill in the tool calls its replies leave out "
        "(as `evalkit run --otel`)")] = False
    otel_port: Annotated[int | None, Setting(
        "--otel-port", "With --otel: the receiver's port on 127.0.0.1 (default: a free one)", "PORT",
        "expected a port number from 1 to 65535, such as 4318", parsed_as=int,
        needs=Needs("otel", "{otel}", "add {otel}"))] = Field(default=None, ge=1, le=65535)
    otel_wait: Annotated[float | None, Setting(
        "--otel-wait", "With --otel: seconds to wait for a turn's spans after its answer (longer while they keep "
        "arriving)", "SECONDS", "expected a number of seconds, 0 or more, such as 2", parsed_as=float,
        default_text=f"{DEFAULT_OTEL_WAIT_S:g}", needs=Needs("otel", "{otel}", "add {otel}"))] = Field(
        default=None, ge=0)  # None: DEFAULT_OTEL_WAIT_S (a default would count as given for `needs`)

    # The EVALKIT_* variables, as they were when the settings were built.
    environment: Environment = Field(default_factory=Environment.read)

    @classmethod
    def of(cls, **given: Any) -> RunSettings:
        """Settings from options as a user gave them: `None` means "not given", so the default.

        A value out of range raises `SettingError` naming the setting; the CLI words it
        with its flag, the Python API with its keyword.
        """
        chosen = dict(given)
        if isinstance(chosen.get("repeat"), str) and chosen["repeat"].strip().lower() == "auto":
            chosen["auto_repeat"] = True
            most = DEFAULT_MAX_REPEAT if chosen.get("max_repeat") is None else chosen["max_repeat"]
            if not isinstance(most, int) or most < 2:
                raise SettingError("max_repeat", most, reason_for(cls, "max_repeat") or "")
            chosen["repeat"] = most
        return settings_of(cls, chosen)

    def worker_environment(self) -> dict[str, str]:
        """What a `--processes` worker's environment adds: the headers, which its settings file leaves out."""
        return worker_headers_environment(self.headers)

    def with_worker_environment(self) -> RunSettings:
        """In a worker: these settings with the headers its parent passed (taken out of the environment,
        so that processes the agent starts do not inherit them)."""
        given = take_worker_headers()
        return self.model_copy(update={"headers": parse_headers(given)}) if given else self

    @property
    def redaction(self) -> Redaction:
        """What this run masks in what it writes: the header values besides what every writer masks
        (an agent may repeat one: a debug line, an error). Held by the run, not by the process."""
        return Redaction(tuple(value for _, value in self.headers))

    @property
    def most_jobs_in_flight(self) -> int:
        """The most cases ever in flight: what an adapter sizes its pool of processes,
        connections or threads for (the controller's ceiling when `jobs` is "auto")."""
        return most_in_flight(self.jobs)

    @property
    def otel_wait_s(self) -> float:
        """`otel_wait`, or its default: seconds a turn's spans are waited for after its answer."""
        return DEFAULT_OTEL_WAIT_S if self.otel_wait is None else self.otel_wait

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
