"""How many cases (or judge calls) run at once: a fixed number, or `auto` (docs/performance.md).

`AdaptiveLimit` is a semaphore whose size a controller moves. With `auto` it starts
small and, one window of finished work at a time (a window is as many completions as
the current level, at least `min_window`):

- doubles the level while throughput grows and latency does not ("slow start");
- once doubling stops paying, raises it by one per window while latency stays within
  `latency_rise` × the best window seen, and holds it when latency rose;
- lowers it by a quarter when latency passed `latency_cut` × the best with no more
  throughput (the agent is slowing down, not scaling);
- lowers it by a quarter when the process used CPU for `saturated` of the window or
  more and the window brought no more throughput than the last (or latency rose):
  CPU-bound, the cases' own work keeps the process busy, so another case in flight
  adds contention, not throughput. That level is then treated like one
  that was overrun (below); at the minimum it holds;
- halves it on an overload signal (HTTP 429/503, `RESOURCE_EXHAUSTED`), once per
  level: signals from work started before the last cut are counted but do not cut
  again, so a burst of 429s from one overrun costs one halving. It then climbs back
  quickly to just below the level that was overrun and stays there, trying that level
  again only every `probe_every` windows;
- starts nothing new until a `Retry-After` has passed.

Recognising overloads and the hook for a model proxy live in `evalkit.foundation.overloads`;
how busy the process is comes from the caller (a `busy` callable: a running total of CPU
seconds, the engine's `evalkit.engine.loop_load.BusyMeter`; without one, only throughput
and latency steer).
A fixed level never moves, but still honours `Retry-After`. Time comes from an
injectable clock and sleep, so the behaviour can be tested without waiting.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Final, Literal


AUTO: Final = "auto"  # Final: its type is Literal["auto"], a JobsSetting
JobsSetting = int | Literal["auto"]


def parse_jobs(value: object) -> JobsSetting:
    """`auto` or a whole number ≥ 1: the one parser of `jobs` and `judge_jobs` values.

    Used by `evalkit.settings.RunSettings`, which words a `ValueError` with the flag or
    keyword the value came from.
    """
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        text = str(value).strip().lower()
        if text == AUTO:
            return AUTO
        try:
            number = int(text)
        except ValueError:
            raise ValueError("expected 'auto' or a whole number") from None
    if number < 1:
        raise ValueError("must be at least 1 (or 'auto')")
    return number


def most_in_flight(setting: JobsSetting) -> int:
    """How large a pool of connections, threads or processes the setting can ever use."""
    return Tuning().maximum if setting == AUTO else int(setting)


@dataclass(frozen=True)
class Tuning:
    initial: int = 4
    minimum: int = 1
    maximum: int = 256
    min_window: int = 4
    growth: float = 1.1  # in slow start, a window must beat the last one's throughput by this factor
    latency_rise: float = 1.5  # a window's mean latency over the best seen by this factor: raise no more
    latency_cut: float = 2.0  # … by this factor, with no more throughput: back off
    backoff: float = 0.5  # on an overload signal
    latency_backoff: float = 0.75  # on rising latency
    probe_every: int = 8  # windows spent just below a level that was overrun before trying it again
    saturated: float = 0.9  # share of a window the process used CPU at which more in flight cannot help
    saturation_backoff: float = 0.75  # on a saturated window


@dataclass(frozen=True)
class Slot:
    """One piece of work holding a place; remembers when it started and at which level epoch."""

    started: float
    epoch: int


@dataclass
class LimitStats:
    mode: str = AUTO
    initial: int = 0
    final: int = 0
    peak: int = 0
    peak_in_flight: int = 0
    raises: int = 0
    backoffs: int = 0
    saturated_windows: int = 0  # windows in which the process was busy nearly all the time (CPU-bound)
    overloads: int = 0  # 429/503/RESOURCE_EXHAUSTED signals seen
    waited_for_retry_after_s: float = 0.0

    def to_dict(self) -> dict:
        return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


@dataclass
class _Window:
    started: float
    busy_at_start: float = 0.0
    completions: int = 0
    latency_sum: float = 0.0
    latency_count: int = 0
    overloaded: bool = False


class AdaptiveLimit:
    def __init__(
        self,
        setting: JobsSetting = AUTO,
        *,
        tuning: Tuning | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        busy: Callable[[], float] | None = None,
    ):
        self.tuning = tuning or Tuning()
        self.adaptive = setting == AUTO
        self._clock = clock
        self._sleep = sleep
        self._busy = busy  # running total of the process's CPU seconds (evalkit.engine.loop_load)
        start = self.tuning.initial if self.adaptive else int(setting)
        self.level = max(1, start)
        self.in_flight = 0
        self.stats = LimitStats(mode=AUTO if self.adaptive else "fixed", initial=self.level, peak=self.level)
        self._epoch = 0
        self._paused_until = 0.0
        self._waiters: deque[asyncio.Future[None]] = deque()
        self._window = self._open_window()
        self._last_throughput: float | None = None
        self._best_latency: float | None = None
        self._slow_start = True
        self._ceiling: int | None = None  # the level last overrun (a 429), approached carefully
        self._windows_below_ceiling = 0
        self._last_backoff_at = float("-inf")
        self._was_saturated = False

    def now(self) -> float:
        return self._clock()

    @property
    def maximum(self) -> int:
        """The most work that can ever be in flight at once (the size of a worker pool)."""
        return self.tuning.maximum if self.adaptive else self.level

    # -- holding places ---------------------------------------------------------------

    async def acquire(self) -> Slot:
        while True:
            wait = self._paused_until - self._clock()
            if wait > 0:
                self.stats.waited_for_retry_after_s += wait
                await self._sleep(wait)
                continue
            if self.in_flight < self.level:  # first come, first served: a woken waiter may lose its turn
                break
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._wake()  # pass the place we were given to the next in line
                raise
            finally:
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
            if self.in_flight < self.level and self._paused_until <= self._clock():
                break
        self.in_flight += 1
        self.stats.peak_in_flight = max(self.stats.peak_in_flight, self.in_flight)
        return Slot(started=self._clock(), epoch=self._epoch)

    def release(self, slot: Slot, latency: float | None = None, *, completed: bool = True) -> None:
        """Give the place back; `latency` is what this piece of work measured (None: not comparable)."""
        self.in_flight -= 1
        if completed:
            self._record(latency)
        self._wake()

    def _wake(self) -> None:
        free = self.level - self.in_flight
        while free > 0 and self._waiters:
            waiter = self._waiters.popleft()
            if not waiter.done():
                waiter.set_result(None)
                free -= 1

    # -- signals ----------------------------------------------------------------------

    def overloaded(self, slot: Slot | None, retry_after: float | None = None) -> None:
        """The agent's side said 429/503/RESOURCE_EXHAUSTED for work holding `slot`.

        Without a slot (a report from the model proxy) the signal cuts the level unless
        the last cut was less than one best latency ago.
        """
        self.stats.overloads += 1
        self._window.overloaded = True
        now = self._clock()
        if retry_after is not None and retry_after > 0:
            self._paused_until = max(self._paused_until, now + retry_after)
        if slot is not None:
            fresh = slot.epoch == self._epoch
        else:
            fresh = now - self._last_backoff_at > max(self._best_latency or 0.0, 0.05)
        if self.adaptive and fresh:
            self._cut(self.tuning.backoff, overrun=True)

    def _cut(self, factor: float, overrun: bool = False) -> None:
        if overrun:
            self._ceiling, self._windows_below_ceiling = self.level, 0
        self.level = max(self.tuning.minimum, int(self.level * factor))
        self._epoch += 1
        self._slow_start = False
        self._last_backoff_at = self._clock()
        self.stats.backoffs += 1
        self._new_window(forget_throughput=True)

    # -- the controller ---------------------------------------------------------------

    def _record(self, latency: float | None) -> None:
        window = self._window
        window.completions += 1
        if latency is not None:
            window.latency_sum += latency
            window.latency_count += 1
        if not self.adaptive or window.completions < max(self.level, self.tuning.min_window):
            return
        if window.overloaded:  # the cut is made; judge the new level on a window of its own
            self._new_window(forget_throughput=True)
            return
        elapsed = self._clock() - window.started
        throughput = window.completions / elapsed if elapsed > 0 else float("inf")
        grew = self._last_throughput is None or throughput >= self._last_throughput * self.tuning.growth
        self._last_throughput = throughput
        rising = slowing = False
        if window.latency_count:
            mean = window.latency_sum / window.latency_count
            best = self._best_latency
            rising = best is not None and mean > best * self.tuning.latency_rise
            slowing = best is not None and mean > best * self.tuning.latency_cut
            self._best_latency = mean if best is None else min(best, mean)
        saturated = self._saturated(window, elapsed)
        if self._was_saturated and not saturated:
            # Latency measured while cases queued for the CPU says nothing about waiting cases.
            self._best_latency, rising, slowing = None, False, False
        self._was_saturated = saturated
        if saturated:
            self.stats.saturated_windows += 1
            if not grew or rising:  # busy all the time, and the last step bought nothing: step back
                self._slow_start = False
                if self.level > self.tuning.minimum:
                    self._cut(self.tuning.saturation_backoff, overrun=True)
                else:
                    self._new_window()
                return
        if slowing and not grew and self.level > self.tuning.minimum:
            self._cut(self.tuning.latency_backoff)
            return
        if self._slow_start and not (grew and not rising):
            self._slow_start = False  # more in flight stopped paying: from here on, one at a time
        elif not rising:
            self._raise_to(self._next_level())
        self._new_window()

    def _saturated(self, window: _Window, elapsed: float) -> bool:
        if self._busy is None or elapsed <= 0:
            return False
        return (self._busy() - window.busy_at_start) >= self.tuning.saturated * elapsed

    def _next_level(self) -> int:
        level, ceiling = self.level, self._ceiling
        if self._slow_start:
            return level * 2
        if ceiling is None:
            return level + 1
        if level + 1 < ceiling:  # back up quickly towards the level that was overrun
            return level + max(1, (ceiling - 1 - level) // 2)
        self._windows_below_ceiling += 1
        if self._windows_below_ceiling < self.tuning.probe_every:
            return level
        self._ceiling = None  # probe it again: the limit may have moved
        return level + 1

    def _raise_to(self, target: int) -> None:
        target = min(self.tuning.maximum, target)
        if target > self.level:
            self.level = target
            self.stats.raises += 1
            self.stats.peak = max(self.stats.peak, self.level)
            self._wake()

    def _open_window(self) -> _Window:
        return _Window(started=self._clock(), busy_at_start=self._busy() if self._busy is not None else 0.0)

    def _new_window(self, forget_throughput: bool = False) -> None:
        self._window = self._open_window()
        if forget_throughput:
            self._last_throughput = None

    def held(self) -> Held:
        """`async with limit.held() as place:` one piece of work; its time is its latency."""
        return Held(self)

    def summary(self) -> dict:
        self.stats.final = self.level
        return self.stats.to_dict()


class Held:
    """A place in an `AdaptiveLimit` for the body of an `async with`; a failed body is not timed."""

    def __init__(self, limit: AdaptiveLimit):
        self.limit = limit
        self.slot: Slot | None = None

    async def __aenter__(self) -> Held:
        self.slot = await self.limit.acquire()
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        slot, self.slot = self.slot, None
        if slot is not None:
            latency = self.limit.now() - slot.started
            self.limit.release(slot, latency if kind is None else None, completed=kind is None)

    def overloaded(self, retry_after: float | None = None) -> None:
        self.limit.overloaded(self.slot, retry_after)
