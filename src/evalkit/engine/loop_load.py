"""How busy evalkit's process is: the signal `--jobs auto` uses to tell CPU-bound from waiting.

More cases in flight add throughput only while the event loop has time to spare: while
the cases wait on a model, a server or a subprocess, the loop sits idle in its
selector. When the cases' own work (an in-process ADK agent's Runner, a replayed model
call) keeps the loop busy all the time, another case in flight adds nothing but
contention (docs/performance.md, "The default, `--jobs auto`").

`TimedSelector` is the standard selector, timing the waits in which the loop blocked
for I/O; `run_sync` (evalkit.engine.aio) builds the run's loop on it. `BusyMeter`
then reports, as a running total of seconds, how long the process was busy: the loop's
time outside those waits, or the process's CPU time when that is more (work on
threads, such as a synchronous agent, leaves the loop idle while it burns CPU). Time
the machine gave to other processes counts as busy, as it should: another case in
flight would not get it either.
"""

from __future__ import annotations

import asyncio
import selectors
import time
import weakref
from typing import Any

_selectors: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, TimedSelector] = weakref.WeakKeyDictionary()


class TimedSelector(selectors.DefaultSelector):  # type: ignore[misc,valid-type]  # the platform's best selector
    """The platform's default selector, adding up the seconds spent blocked in `select`."""

    def __init__(self) -> None:
        super().__init__()
        self.idle_seconds = 0.0

    def select(self, timeout: float | None = None) -> list[tuple[Any, int]]:
        if timeout is not None and timeout <= 0:  # a poll: the loop has work ready
            return super().select(timeout)
        started = time.perf_counter()
        try:
            return super().select(timeout)
        finally:
            self.idle_seconds += time.perf_counter() - started


def timed_loop() -> asyncio.AbstractEventLoop:
    """A new event loop whose idle time `BusyMeter` can read."""
    selector = TimedSelector()
    loop = asyncio.SelectorEventLoop(selector)
    _selectors[loop] = selector
    return loop


class BusyMeter:
    """Seconds the process was busy since it was made, as a running total (see the module's docstring)."""

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None):
        self._selector = _selectors.get(loop) if loop is not None else None
        self._last_wall = time.perf_counter()
        self._last_cpu = time.process_time()
        self._last_idle = self._idle()
        self.busy_seconds = 0.0

    @classmethod
    def for_running_loop(cls) -> BusyMeter:
        return cls(asyncio.get_running_loop())

    def _idle(self) -> float:
        return self._selector.idle_seconds if self._selector is not None else 0.0

    def __call__(self) -> float:
        wall, cpu, idle = time.perf_counter(), time.process_time(), self._idle()
        elapsed = wall - self._last_wall
        loop_busy = elapsed - (idle - self._last_idle) if self._selector is not None else 0.0
        self.busy_seconds += min(elapsed, max(loop_busy, cpu - self._last_cpu))
        self._last_wall, self._last_cpu, self._last_idle = wall, cpu, idle
        return self.busy_seconds
