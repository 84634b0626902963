"""One `--processes` worker: `python -m evalkit.engine.worker SETTINGS.json RESULT.jsonl`.

The settings are the parent run's `RunSettings`, serialized, with this worker's `shard`;
the worker runs them through `evalkit.engine.run.run` like any run and writes its result
as lines (evalkit.results.record_views), also when interrupted. Its exit code is the run's. A problem with the input (an
agent that cannot load) is written beside the result file (`evalkit.engine.processes.write_problems`), so the
parent raises it as its own and the CLI words it with its flags; any other problem is one
`evalkit:` line on stderr, which the parent shows when no result file was written.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from evalkit.engine.evaluation import RunProgress
from evalkit.engine.run import run
from evalkit.engine.processes import finished_cases_file, write_problems
from evalkit.errors import EvalkitError, ExitCode, InputError, Terminated, raise_terminated
from evalkit.foundation.signals import let_stop_signals_in, signals_noted_after_the_run
from evalkit.foundation.gc_control import freeze_at_exit
from evalkit.results.record_views import write_shard_lines
from evalkit.results.run_verdict import exit_code
from evalkit.schema.results import CaseResult
from evalkit.settings import RunSettings


@contextmanager
def _each_case_kept(progress: RunProgress, out: Path) -> Iterator[None]:
    with finished_cases_file(out).open("a", encoding="utf-8") as kept:
        def keep(case: CaseResult) -> None:
            kept.write(case.model_dump_json() + "\n")
            kept.flush()  # a line at a time: a worker killed (SIGKILL, the OOM killer) loses only the case in hand

        progress.listeners.append(keep)
        try:
            yield
        finally:
            progress.listeners.remove(keep)


def work(settings_file: Path, out: Path) -> int:
    settings = RunSettings.model_validate_json(settings_file.read_text(encoding="utf-8")).with_worker_environment()
    try:
        let_stop_signals_in()  # held since the parent started this process, until the handlers above were set
        outcome = run(settings, watch=lambda progress: _each_case_kept(progress, out))
    except KeyboardInterrupt as stop:  # before the run began: nothing finished, and the parent still gets a result
        write_shard_lines(RunProgress().result(interrupted=True), [], out)
        return ExitCode.TERMINATED if isinstance(stop, Terminated) else ExitCode.INTERRUPTED
    write_shard_lines(outcome.result, outcome.full_cases() if outcome.full_cases is not None else outcome.result.cases,
                      out)
    return exit_code(outcome.result)


def main(argv: list[str]) -> int:
    settings_file, out = (Path(arg) for arg in argv)
    # The parent passes SIGTERM on to its workers: each ends like on Ctrl-C, its result file written.
    signal.signal(signal.SIGTERM, raise_terminated)
    try:
        with signals_noted_after_the_run():  # once its cases have ended, a signal never cuts its file short
            return work(settings_file, out)
    except InputError as error:
        write_problems(error, out)
        return int(error.exit_code)
    except EvalkitError as error:
        for line in error.lines():
            print(f"evalkit: {line}", file=sys.stderr)
        return int(error.exit_code)


if __name__ == "__main__":
    freeze_at_exit()
    sys.exit(main(sys.argv[1:]))
