"""`--processes` workers forked from the run's process: only when that is safe, and with ADK already imported."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROGRAM = """
import sys
from evalkit.engine.forked_worker import ADK_MODULES, can_fork, preload_adk
preload_adk()
print(can_fork(), all(name in sys.modules for name in ADK_MODULES))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="workers are forked only on Linux")
def test_importing_adk_before_forking_starts_no_thread_so_the_workers_can_still_be_forked():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.split() == ["True", "True"]


def test_a_process_with_a_second_thread_is_not_forked():
    import threading

    from evalkit.engine.forked_worker import can_fork

    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()
    try:
        assert not can_fork()
    finally:
        release.set()
        other.join(timeout=10)
