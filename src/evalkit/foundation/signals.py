"""Ctrl-C and SIGTERM once a run has ended: noted, never cutting the writing of its files short.

While a run's cases run, Ctrl-C and SIGTERM stop it (asyncio cancels the run; see
`aio.run_sync`). Once its evaluation has ended (finished or stopped), what is left is
writing what finished: the result file, the reports, the history, a `--processes`
worker's lines. A signal then (a second Ctrl-C, the SIGTERM a CI runner sends to the
whole process group, a parent passing it on) must not leave half a file or none, so
from that moment a signal is noted instead of raised, and the command's exit code says
it came (130 or 143).

`signals_noted_after_the_run()` is the command's side: inside it, `run_has_ended()`
(called by the engine when the evaluation returns) switches to noting. Outside it (the
Python API, the pytest plugin) `run_has_ended()` does nothing: the caller owns signals.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class NotedSignals:
    """The signals that came after the run ended, and who to tell of them (workers to pass SIGTERM on to)."""

    def __init__(self) -> None:
        self.received: list[int] = []
        self.listeners: list[Callable[[int], None]] = []
        self._saved: dict[int, Any] = {}

    @property
    def first(self) -> int | None:
        return self.received[0] if self.received else None

    def start_noting(self) -> None:
        if self._saved or threading.current_thread() is not threading.main_thread():
            return
        for number in STOP_SIGNALS:
            self._saved[number] = signal.signal(number, self._note)

    def stop_noting(self) -> None:
        for number, handler in self._saved.items():
            signal.signal(number, handler)
        self._saved.clear()

    def _note(self, number: int, frame: object) -> None:
        self.received.append(number)
        for listener in list(self.listeners):
            listener(number)


_active: list[NotedSignals] = []


@contextmanager
def signals_noted_after_the_run() -> Iterator[NotedSignals]:
    """Around a command that runs and then writes: signals after `run_has_ended()` are noted in what it yields."""
    noted = NotedSignals()
    _active.append(noted)
    try:
        yield noted
    finally:
        _active.remove(noted)
        noted.stop_noting()


def run_has_ended() -> NotedSignals | None:
    """The run's evaluation has returned: from now on signals are noted (inside `signals_noted_after_the_run`)."""
    if not _active:
        return None
    _active[-1].start_noting()
    return _active[-1]


@contextmanager
def told_of_signals(listener: Callable[[int], None]) -> Iterator[None]:
    """`listener(signal)` for each signal noted while the body runs (nothing outside `signals_noted_after_the_run`)."""
    noted = _active[-1] if _active else None
    if noted is not None:
        noted.listeners.append(listener)
    try:
        yield
    finally:
        if noted is not None:
            noted.listeners.remove(listener)


@contextmanager
def stop_signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM held back while the body runs, delivered after it. Around starting a
    worker process: the worker inherits them held, and lets them in (`let_stop_signals_in`)
    once its own handlers are in place, so a signal to the process group at that moment
    is handled by the worker rather than by the parent's handlers it was forked with."""
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def let_stop_signals_in() -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)


def leave_stop_signals_to_the_parent() -> None:
    """In a worker process its parent owns (a local `--cluster` worker): Ctrl-C and SIGTERM sent to the
    whole process group are ignored here, for the parent, which gets them too, stops this worker's work
    in order (what finished is sent back) and then ends the process itself. Only the main thread may set
    handlers; elsewhere this does nothing."""
    if threading.current_thread() is threading.main_thread():
        for number in STOP_SIGNALS:
            signal.signal(number, signal.SIG_IGN)
