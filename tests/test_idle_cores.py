"""`--processes auto` reads how busy the cores are now, from /proc/stat, not the last minute's load."""

from __future__ import annotations

from evalkit.engine.idle_cores import Snapshot, busy_cores, others_busy_cores, read_busy_seconds

STAT = """cpu  900 0 300 5000 100 0 0 0 0 0
cpu0 500 0 100 2000 50 0 10 0 0 0
cpu1 400 0 200 3000 50 0 0 5 0 0
intr 123 4 5
ctxt 99
"""


def test_busy_time_counts_only_the_cores_given_and_leaves_out_idle_and_iowait():
    assert read_busy_seconds(STAT, {0}, 0.01) == (500 + 100 + 10) * 0.01
    assert read_busy_seconds(STAT, {0, 1}, 0.01) == (610 + 605) * 0.01
    assert read_busy_seconds(STAT, {7}, 0.01) is None  # none of ours listed: not readable here


def test_this_process_own_cpu_is_not_other_work():
    before = Snapshot(at=10.0, busy_s=100.0, own_cpu_s=1.0)
    # 0.5 s of wall time; the cores were busy 0.9 s, 0.4 s of it this process's own
    after = Snapshot(at=10.5, busy_s=100.9, own_cpu_s=1.4)
    assert abs(others_busy_cores(before, after) - 1.0) < 1e-9
    only_us = Snapshot(at=10.5, busy_s=100.4, own_cpu_s=1.4)
    assert others_busy_cores(before, only_us) < 1e-9


def test_busy_cores_on_this_machine_is_a_share_of_its_cores():
    import os

    assert 0.0 <= busy_cores() <= (os.cpu_count() or 1) + 0.5  # ticks are counted in 10 ms steps


def test_the_first_mark_counts_until_it_is_read_so_a_cli_run_never_waits():
    # The CLI marks as its process starts and `run` marks again: the earlier mark is kept, and
    # once the window is long enough the reading takes no extra time; a reading uses its mark up.
    import time

    import evalkit.engine.idle_cores as idle

    idle._start = None
    idle.mark_start()
    first = idle._start
    time.sleep(idle.MIN_WINDOW_S)
    idle.mark_start()
    assert idle._start is first
    started = time.monotonic()
    busy_cores()
    assert time.monotonic() - started < idle.MIN_WINDOW_S / 2
    assert idle._start is None
