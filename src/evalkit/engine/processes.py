"""`evalkit run --processes N`: the cases spread over N worker processes, then folded into one run.

Shards 2..N each run in a worker, `python -m evalkit.engine.worker` (on Linux forked
from the run's process instead, `evalkit.engine.forked_worker`), given the run's
settings serialized (`RunSettings` as JSON, with its own `shard` K/N), in a process of
its own with its own event loop, writing its result as lines to a temporary folder
(evalkit.results.record_views). The parent starts them first and then runs shard 1
itself, so its own start-up (evalkit, the eval set) is not paid a second time and
overlaps theirs; it then adds the workers' cases to its own run one at a time, as if
they had finished there, and reports as one run. It pays for agents whose turns cost
CPU in evalkit's process (an ADK agent's Runner); an agent that waits on a model or
lives in another process gains nothing from it (docs/performance.md).
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from evalkit.engine.forked_worker import WORKER_MODULE, ForkedWorker, can_fork, fork_worker, preload_adk
from evalkit.engine.process_count import burns_cpu_in_process
from evalkit.foundation.signals import stop_signals_held, told_of_signals
from evalkit.results.record_views import read_shard_lines
from evalkit.errors import ExitCode, InputError, Problem, SettingProblem, Terminated, UsageError
from evalkit.schema.results import CaseResult, RunResult
from evalkit.settings import RunSettings

if TYPE_CHECKING:
    from evalkit.engine.evaluation import RunProgress


def worker_argv(settings: RunSettings, shard: str, folder: Path, out: Path) -> list[str]:
    """The command of one worker: its settings (the parent's, with its shard) written beside its result file."""
    settings_file = folder / f"settings-{shard.replace('/', '-of-')}.json"
    settings_file.write_text(settings.model_copy(update={"shard": shard, "processes": 1}).model_dump_json(),
                             encoding="utf-8")
    return [sys.executable, "-m", WORKER_MODULE, str(settings_file), str(out)]


# Runs one shard's settings in this process: the run's progress (its finished cases), whether
# it was interrupted, and whether by SIGTERM (engine/run.py passes its `run`, bound to the plan
# it already loaded).
ShardHere = Callable[[RunSettings], tuple["RunProgress", bool, bool]]
# (shard K, of N, its finished cases' (eval_set_id, eval_id), the reason) → its other cases as `error`
LostCases = Callable[[int, int, set[tuple[str, str]], str], list[CaseResult]]


def run_in_processes(settings: RunSettings, count: int, run_here: ShardHere,
                     lost_cases: LostCases) -> tuple[RunProgress, list[RunResult], KeyboardInterrupt | bool]:
    """Run shard 1 of `count` here and the others in workers side by side. Return this
    process's progress with every worker's cases added to it, the workers' results (without
    their cases: their judge figures, whether they were interrupted), and the interrupt.

    A worker that ended without its result (killed: SIGKILL, the OOM killer) still gives the
    cases it finished (each is kept as it finishes, `finished_cases_file`); the rest of its
    shard are `error` cases from `lost_cases(shard, count, finished, reason)`."""
    interrupted: KeyboardInterrupt | bool = False
    with tempfile.TemporaryDirectory(prefix="evalkit-processes-") as folder:
        # Every process adds its model calls to one journal, so a budget holds for the whole run (engine/budget.py).
        settings = settings.model_copy(update={"budget_journal": Path(folder) / "spend.jsonl"})
        outputs = [Path(folder) / f"shard-{k}.jsonl" for k in range(2, count + 1)]
        logs = [out.with_suffix(".stderr") for out in outputs]
        workers: list[subprocess.Popen[bytes] | ForkedWorker] = []
        if can_fork() and burns_cpu_in_process(settings.agent if isinstance(settings.agent, str) else None):
            preload_adk()  # once here rather than once in every process
        for k, (out, log) in enumerate(zip(outputs, logs), start=2):
            argv = worker_argv(settings, f"{k}/{count}", Path(folder), out)
            # The headers go through the environment: the settings file holds no header values.
            environment = settings.worker_environment()
            with stop_signals_held():  # the worker lets them in once its own handlers are set (engine/worker.py)
                if can_fork():  # no interpreter start-up or evalkit imports to pay again (engine/forked_worker.py)
                    workers.append(fork_worker(argv[3:], log, environment))
                    continue
                with log.open("w", encoding="utf-8") as stderr:  # a file, not a pipe: nobody reads it meanwhile
                    workers.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=stderr,
                                                    env={**os.environ, **environment} if environment else None))
        try:
            progress, stopped, terminated = run_here(settings.model_copy(update={"shard": f"1/{count}", "processes": 1}))
        except BaseException:  # this shard could not run (an agent that cannot load): neither can theirs
            _stop(workers)
            raise
        if stopped:
            interrupted = KeyboardInterrupt()
            if terminated:  # SIGTERM came to this process alone: pass it on
                interrupted = Terminated()
                _stop(workers, wait=False)
        # Once this shard has ended, a signal is noted rather than raised (evalkit.foundation.signals):
        # passed on to the workers still running, which end like on Ctrl-C and write what finished.
        passed_on: list[int] = []
        with told_of_signals(lambda number: _pass_on(workers, number, passed_on)):
            for worker in workers:
                try:
                    worker.wait()
                except KeyboardInterrupt as stop:  # the workers got the Ctrl-C too: let them write what they have
                    interrupted = stop
                    if isinstance(stop, Terminated):
                        _stop(workers, wait=False)
                    worker.wait()
        if passed_on and not interrupted:
            interrupted = Terminated() if passed_on[0] == signal.SIGTERM else KeyboardInterrupt()
        missing = [out for out in outputs if not out.exists()]
        for out in missing:
            problems = read_problems(out)
            if problems is not None:  # bad input the parent could not see (an agent that cannot load)
                raise problems
        for out in missing:
            index = outputs.index(out)
            lines = logs[index].read_text(encoding="utf-8", errors="replace").strip().splitlines() or ["no output"]
            last = next((line for line in reversed(lines) if line.startswith("evalkit: ")), lines[-1])
            if workers[index].returncode == ExitCode.INPUT:  # bad input (an agent that cannot start): its message
                raise InputError(last.removeprefix("evalkit: "))
            finished = _finished_cases(finished_cases_file(out))
            for case in finished:
                progress.add(case)
            if not interrupted:  # stopped, a worker's unfinished cases are among those that never ran
                reason = (f"--processes: worker {index + 2} of {count} ended before this case finished "
                          f"({_how_it_ended(workers[index].returncode)}; {last}); its finished cases were kept")
                for case in lost_cases(index + 2, count, {(c.eval_set_id, c.eval_id) for c in finished}, reason):
                    progress.add(case)
        headers = []
        for out in outputs:
            if not out.exists():
                continue
            header, cases = read_shard_lines(out)
            headers.append(header)
            for case in cases:
                progress.add(case)
        if progress.ledger is not None:  # the workers' spend, read before the folder goes
            progress.ledger.catch_up()
    return progress, headers, interrupted or any(header.interrupted for header in headers)


def _stop(workers: list[subprocess.Popen[bytes] | ForkedWorker], *, wait: bool = True) -> None:
    """SIGTERM to the workers still running (each ends like on Ctrl-C); then, unless told not to, reap them."""
    for worker in workers:
        if worker.poll() is None:
            worker.terminate()
    for worker in workers if wait else ():
        worker.wait()


def _pass_on(workers: list[subprocess.Popen[bytes] | ForkedWorker], number: int, passed_on: list[int]) -> None:
    """Send `number` to the workers not yet reaped; from a signal handler, so it only sends (no waiting)."""
    passed_on.append(number)
    for worker in workers:
        if worker.returncode is None:
            try:
                os.kill(worker.pid, number)
            except ProcessLookupError:
                pass


def finished_cases_file(out: Path) -> Path:
    """Where a worker adds each case as it finishes: what the parent keeps if the worker dies without a result."""
    return out.with_suffix(".finished")


def _finished_cases(path: Path) -> list[CaseResult]:
    """The whole lines of a killed worker's finished cases (a line cut short by the kill is left out)."""
    if not path.is_file():
        return []
    cases = []
    for line in path.read_bytes().splitlines():
        try:
            cases.append(CaseResult.model_validate_json(line))
        except ValueError:
            break  # the last line, cut short
    return cases


def _how_it_ended(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exit {returncode}, no result written"


def problems_file(out: Path) -> Path:
    return out.with_name(out.name + ".problems.json")


def write_problems(error: InputError, out: Path) -> None:
    problems = [{**dataclasses.asdict(p), "value": None if p.value is None else str(p.value)}
                if isinstance(p, SettingProblem) else dataclasses.asdict(p) for p in error.problems]
    problems_file(out).write_text(json.dumps(problems), encoding="utf-8")


def read_problems(out: Path) -> InputError | None:
    """The input problems a worker wrote instead of its result, as an error to raise (None: none)."""
    path = problems_file(out)
    if not path.exists():
        return None
    problems: list[Problem] = [SettingProblem(**{**p, "mentions": tuple(p["mentions"])}) if "setting" in p else Problem(**p)
                               for p in json.loads(path.read_text(encoding="utf-8"))]
    return UsageError(problems)
