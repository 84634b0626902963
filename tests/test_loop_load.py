"""The busy signal of `--jobs auto`: the CPU the process used, at most the time that passed."""

from __future__ import annotations

import time

from evalkit.engine.loop_load import BusyMeter


def test_waiting_is_not_busy_and_burning_cpu_is():
    meter = BusyMeter()
    started = time.perf_counter()
    time.sleep(0.05)  # waiting, as for a model's answer
    waited = time.perf_counter() - started
    busy_while_waiting = meter()
    assert busy_while_waiting < 0.5 * waited
    started_cpu, total = time.process_time(), 0
    while time.process_time() - started_cpu < 0.05:  # work, as an in-process agent's Runner does
        total += 1
    burnt = meter() - busy_while_waiting
    assert burnt >= 0.04  # at least the CPU seconds the loop above used


def test_busy_never_runs_ahead_of_the_clock():
    started = time.perf_counter()
    meter = BusyMeter()
    readings = [meter() for _ in range(1000)]
    assert readings[-1] <= time.perf_counter() - started
    assert readings == sorted(readings)
