"""The busy signal of `--jobs auto`: time the run's event loop did not spend waiting for I/O."""

from __future__ import annotations

import asyncio
import time

from evalkit.engine.aio import run_sync
from evalkit.engine.loop_load import BusyMeter


def test_a_loop_waiting_for_io_is_idle_and_a_loop_kept_from_waiting_is_busy():
    async def measure() -> tuple[float, float, float, float]:
        meter = BusyMeter.for_running_loop()
        started = time.perf_counter()
        await asyncio.sleep(0.05)  # the loop waits in its selector
        waited = time.perf_counter() - started
        idle_busy = meter()
        started = time.perf_counter()
        time.sleep(0.05)  # noqa: ASYNC251 - the loop is held (as by an agent's blocking call): no CPU burnt, still not waiting
        held = time.perf_counter() - started
        return idle_busy, waited, meter() - idle_busy, held

    busy_while_waiting, waited, busy_while_held, held = run_sync(measure)
    assert busy_while_waiting < 0.5 * waited
    # Only the loop's own selector can tell: the process's CPU time barely moved.
    assert busy_while_held >= 0.8 * held


def test_without_a_timed_loop_the_meter_falls_back_to_cpu_time():
    async def spin() -> tuple[float, float]:
        meter = BusyMeter()  # no loop to read
        started = time.perf_counter()
        total = 0
        for number in range(2_000_000):  # CPU work on the loop
            total += number
        return meter(), time.perf_counter() - started

    busy, elapsed = asyncio.run(spin())
    assert 0 < busy <= elapsed
