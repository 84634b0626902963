"""One `--processes` worker: `python -m evalkit.engine.worker SETTINGS.json RESULT.jsonl`.

The settings are the parent run's `RunSettings`, serialized, with this worker's `shard`;
the worker runs them through `evalkit.engine.run.run` like any run and writes its result
as lines (evalkit.engine.shard_lines), also when interrupted. Its exit code is the run's. A problem with the input (an
agent that cannot load) is written beside the result file (`evalkit.engine.processes.write_problems`), so the
parent raises it as its own and the CLI words it with its flags; any other problem is one
`evalkit:` line on stderr, which the parent shows when no result file was written.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from evalkit.engine.evaluation import exit_code
from evalkit.engine.run import run
from evalkit.engine.processes import write_problems
from evalkit.engine.shard_lines import write_shard_lines
from evalkit.errors import EvalkitError, InputError, raise_terminated
from evalkit.gc_control import freeze_at_exit
from evalkit.settings import RunSettings


def work(settings_file: Path, out: Path) -> int:
    settings = RunSettings.model_validate_json(settings_file.read_text(encoding="utf-8")).with_worker_environment()
    outcome = run(settings)
    write_shard_lines(outcome.result, outcome.full_cases() if outcome.full_cases is not None else outcome.result.cases,
                      out)
    return exit_code(outcome.result)


def main(argv: list[str]) -> int:
    settings_file, out = (Path(arg) for arg in argv)
    # The parent passes SIGTERM on to its workers: each ends like on Ctrl-C, its result file written.
    signal.signal(signal.SIGTERM, raise_terminated)
    try:
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
