"""A real Dask scheduler and workers on 127.0.0.1, started as users start them: `dask scheduler`, `dask worker`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.conftest import stop_process

DASK = Path(sys.executable).with_name("dask")  # distributed's command, installed beside this interpreter


@contextmanager
def dask_scheduler(folder: Path) -> Iterator[str]:
    """`dask scheduler` on a free port of 127.0.0.1; its address once it serves."""
    folder.mkdir(parents=True, exist_ok=True)
    address_file = folder / "scheduler.json"
    with (folder / "scheduler.log").open("w") as log:
        process = subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                    "--scheduler-file", str(address_file)], stdout=log, stderr=log)
    try:
        deadline = time.monotonic() + 120
        while not address_file.exists():
            assert process.poll() is None and time.monotonic() < deadline, (folder / "scheduler.log").read_text()
            time.sleep(0.05)
        yield json.loads(address_file.read_text())["address"]
    finally:
        stop_process(process)


@contextmanager
def dask_workers(address: str, count: int, folder: Path, *flags: str,
                 env: dict[str, str] | None = None) -> Iterator[list[subprocess.Popen]]:
    """`count` × `dask worker ADDRESS --nthreads 2 FLAGS` in `folder`, once the scheduler has them all."""
    from distributed import Client

    with ExitStack() as stack:
        workers: list[subprocess.Popen] = []
        # Side by side, however far the start got: a worker's nanny may take seconds to stop it.
        stack.callback(lambda: stop_process(*workers))
        for index in range(count):
            log = stack.enter_context((folder / f"worker-{index}.log").open("w"))
            worker = subprocess.Popen([str(DASK), "worker", address, "--host", "127.0.0.1", "--nthreads", "2",
                                       "--no-dashboard", *flags], cwd=folder, stdout=log, stderr=log,
                                      env={**os.environ, **(env or {})})
            workers.append(worker)
        with Client(address, timeout=30) as client:
            client.wait_for_workers(count, timeout=120)
        yield workers
