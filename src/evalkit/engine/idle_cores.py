"""How many of this process's cores other work is using right now, for `--processes auto`.

The one-minute load average says what the machine did over the last minute, so a run
started right after another CPU-bound step (the previous run of a benchmark, a build
in the same CI job) counts that step's finished processes as busy and stays at one
process on an idle machine. Instead, on Linux, the busy time of the cores this process
may run on is read from `/proc/stat` twice, from when the run started (`mark_start`)
to when the number of processes is chosen, and this process's own CPU time over that
window is taken out: what is left is the other work's, in cores. Where `/proc/stat`
cannot be read, the load average stands in.
"""

from __future__ import annotations

import os
import resource
import time
from dataclasses import dataclass

# The shortest window worth reading: /proc/stat counts in clock ticks (10 ms on Linux).
MIN_WINDOW_S = 0.1


@dataclass(frozen=True)
class Snapshot:
    at: float  # time.monotonic()
    busy_s: float  # busy seconds of the cores, summed over the cores (from /proc/stat)
    own_cpu_s: float  # this process's user + system CPU seconds


def _cores() -> set[int]:
    try:
        return set(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return set(range(os.cpu_count() or 1))


def read_busy_seconds(stat_text: str, cores: set[int], tick_s: float) -> float | None:
    """Busy seconds (all but idle and iowait) of `cores`, summed, from the text of /proc/stat."""
    busy = 0
    found = 0
    for line in stat_text.splitlines():
        name, _, rest = line.partition(" ")
        if not name.startswith("cpu") or name == "cpu":
            continue
        try:
            index = int(name[3:])
            fields = [int(x) for x in rest.split()]
        except ValueError:
            return None
        if index in cores and len(fields) >= 5:
            busy += sum(fields[:8]) - fields[3] - fields[4]  # user nice system idle iowait irq softirq steal
            found += 1
    return busy * tick_s if found else None


def snapshot() -> Snapshot | None:
    """The cores' busy time and this process's CPU time now (None where /proc/stat cannot be read)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            text = stat.read()
        tick_s = 1.0 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, AttributeError):
        return None
    busy = read_busy_seconds(text, _cores(), tick_s)
    if busy is None:
        return None
    own = resource.getrusage(resource.RUSAGE_SELF)
    return Snapshot(time.monotonic(), busy, own.ru_utime + own.ru_stime)


def others_busy_cores(before: Snapshot, after: Snapshot) -> float:
    """The cores' worth of CPU that work other than this process used between the two snapshots."""
    window = after.at - before.at
    if window <= 0:
        return 0.0
    others = (after.busy_s - before.busy_s) - (after.own_cpu_s - before.own_cpu_s)
    return max(0.0, others / window)


_start: Snapshot | None = None


def mark_start() -> None:
    """Remember the cores' busy time as the run starts (the window `busy_cores` reads).

    The first mark since `busy_cores` last read one counts: `evalkit run` marks as the
    command starts, before the run's imports and the plan, so that the window is long
    enough by the time the run chooses and no sleep is needed; `run` marks too (with
    `processes` auto), for the API and the plugin.
    """
    global _start
    if _start is None:
        _start = snapshot()


def busy_cores() -> float:
    """Cores' worth of other work now: over the window since `mark_start` (at least `MIN_WINDOW_S`),
    or the one-minute load average where /proc/stat is not there."""
    global _start
    before, _start = _start or snapshot(), None
    if before is None:
        try:
            return os.getloadavg()[0]
        except (AttributeError, OSError):  # Windows
            return 0.0
    wait = MIN_WINDOW_S - (time.monotonic() - before.at)
    if wait > 0:
        time.sleep(wait)
    after = snapshot()
    return 0.0 if after is None else others_busy_cores(before, after)


def usable_cores() -> int:
    """The cores this process may run on."""
    return len(_cores())
