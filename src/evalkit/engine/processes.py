"""`evalkit run --processes N`: the cases spread over N worker processes, merged as shards are.

Each worker is `evalkit run --shard K/N` on the same inputs and options, in a process of
its own with its own event loop, writing its result file to a temporary folder; the
parent merges those files with `evalkit merge`'s code and reports as one run. It pays
for agents whose turns cost CPU in evalkit's process (an ADK agent's Runner); an agent
that waits on a model or lives in another process gains nothing from it
(docs/performance.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from evalkit.errors import AgentError
from evalkit.schema.results import RunResult
from evalkit.settings import RunSettings


def worker_argv(request, settings: RunSettings, shard: str, out: Path) -> list[str]:
    """The `evalkit run --shard` command of one worker, with the settings the parent resolved."""
    argv = [sys.executable, "-m", "evalkit", "run", *request.paths, "--shard", shard, "--json", str(out),
            "--quiet", "--jobs", str(settings.jobs), "--judge-jobs", str(settings.judge_jobs),
            "--repeat", "auto" if settings.auto_repeat else str(settings.repeat)]
    if settings.auto_repeat:
        argv += ["--max-repeat", str(settings.repeat)]
    for flag, value in (("--config", request.config), ("--agent", request.agent), ("--pass-rate", settings.pass_rate),
                        ("--timeout", settings.timeout), ("--confidence", settings.confidence)):
        if value is not None:
            argv += [flag, str(value)]
    for case_id in request.case_ids:
        argv += ["--case", case_id]
    if request.cassettes is not None:  # each worker runs its own proxy over the same cassette folder
        argv += ["--cassettes", str(request.cassettes), "--cassette-mode", request.cassette_mode]
    if not settings.use_cache:
        argv.append("--no-cache")
    return argv


def run_in_processes(request, settings: RunSettings, count: int) -> tuple[RunResult, bool]:
    """Run `count` shard workers side by side; return the merged result and whether it was interrupted."""
    from evalkit.results.merging import merge_results
    from evalkit.results.reader import read_result

    env = {**os.environ, "EVALKIT_HISTORY_LIMIT": "0"}  # the parent records the merged run
    interrupted = False
    with tempfile.TemporaryDirectory(prefix="evalkit-processes-") as folder:
        outputs = [Path(folder) / f"shard-{k}.json" for k in range(1, count + 1)]
        workers = [subprocess.Popen(worker_argv(request, settings, f"{k}/{count}", out), env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                   for k, out in enumerate(outputs, start=1)]
        errors: list[str] = []
        for worker in workers:
            try:
                _, stderr = worker.communicate()
            except KeyboardInterrupt:  # the workers got the Ctrl-C too: let them write what they have
                interrupted = True
                _, stderr = worker.communicate()
            errors.append(stderr)
        missing = [out for out in outputs if not out.exists()]
        if missing:
            index = outputs.index(missing[0])
            last = (errors[index].strip().splitlines() or ["no output"])[-1]
            raise AgentError(f"--processes: worker {index + 1} of {count} wrote no result: {last}")
        merged = merge_results([(out, read_result(out)) for out in outputs])
    merged.shards = None
    merged.interrupted = merged.interrupted or interrupted
    return merged, merged.interrupted
