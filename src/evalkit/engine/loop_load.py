"""How busy evalkit's process is: the signal `--jobs auto` uses to tell CPU-bound from waiting.

More cases in flight add throughput only while the process has CPU to spare: while the
cases wait on a model, a server or a subprocess, it sits idle. When the cases' own work
(an in-process ADK agent's Runner, a replayed model call, a Python agent on its threads)
keeps it burning CPU all the time, another case in flight adds contention, not
throughput (docs/performance.md, "The default, `--jobs auto`").

`BusyMeter` reports, as a running total of seconds, the process's CPU time (all its
threads), at most the time that passed. Time the process waited for a core that other
processes held does not count: on a machine shared with other work, a process that
waits more often claims more of the contended cores by having more cases in flight
(measured: a 50 ms agent ran twice as fast at 23 in flight as at 3 there), so only CPU
actually obtained says the cases' own work is the limit.
"""

from __future__ import annotations

import time


class BusyMeter:
    """Seconds of CPU the process used since the meter was made, at most the seconds that passed."""

    def __init__(self) -> None:
        self._last_wall = time.perf_counter()
        self._last_cpu = time.process_time()
        self.busy_seconds = 0.0

    def __call__(self) -> float:
        wall, cpu = time.perf_counter(), time.process_time()
        self.busy_seconds += max(0.0, min(wall - self._last_wall, cpu - self._last_cpu))
        self._last_wall, self._last_cpu = wall, cpu
        return self.busy_seconds
