"""At exit an evalkit process sets its heap aside before the interpreter's final collection."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = """
import atexit, gc, sys
atexit.register(lambda: print("frozen at exit:", gc.get_freeze_count() > 0))
from evalkit.foundation.gc_control import freeze_at_exit
freeze_at_exit()
freeze_at_exit()  # once per process, however often a command is called
print("frozen while running:", gc.get_freeze_count() > 0)
"""


def test_the_heap_is_frozen_when_the_process_ends_and_not_before():
    done = subprocess.run([sys.executable, "-c", PROGRAM], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.splitlines() == ["frozen while running: False", "frozen at exit: True"]
