"""When Python's cyclic garbage collector runs, for the two places where it costs the most.

The collector walks every tracked object each time it runs a full collection, so its
cost grows with what the process holds: the modules of google-adk or google-genai, the
agent, the plan. Two moments make that visible (docs/performance.md, "Memory"):

* building thousands of models at once (loading an eval set) triggers a collection
  every few hundred objects: `gc_paused` holds it off until they are built;
* a run's start-up objects live as long as the run: `start_up_frozen` sets them aside
  (`gc.freeze`), so collections during the run walk only what the run makes;
* the interpreter's own clean-up when the process ends collects once more over
  everything it still holds: `freeze_at_exit` sets it all aside first, since the
  operating system takes the memory back anyway (after a replayed ADK run, that
  collection cost more CPU than writing the result file).

Reference counting frees everything else as usual; only reference cycles wait.
"""

from __future__ import annotations

import atexit
import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    """No cyclic collection inside the block (loading 10,000 cases took 4× as long with it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextmanager
def start_up_frozen() -> Iterator[None]:
    """Everything alive on entry is left out of collections until the block ends."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def freeze_at_exit() -> None:
    """Have the interpreter set aside everything still alive when the process ends (once per process).

    Registered with `atexit`, so it runs when the process really ends (not when the
    command returns: the tests call the command in their own process), after every
    handler registered later (an agent's telemetry flush) and before the interpreter's
    final collection. Reference counting still frees what it frees; only objects kept
    alive by reference cycles are left to the operating system.
    """
    global _registered
    if not _registered:
        atexit.register(gc.freeze)
        _registered = True


_registered = False
