"""The cases-in-flight controller (`--jobs auto`) against scripted servers, in virtual time.

A `VirtualTime` clock only moves when every task is waiting on it, so each test is
deterministic and takes no real time; the assertions are on counts and levels.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools

import pytest

from evalkit.foundation.concurrency import AdaptiveLimit, Tuning, parse_jobs
from evalkit.foundation.overloads import listen_for_upstream_overloads, overload_of, report_upstream_overload
from evalkit.errors import AgentError, AgentOverloaded


class VirtualTime:
    def __init__(self):
        self.now = 0.0
        self._timers: list[tuple[float, int, asyncio.Future]] = []
        self._order = itertools.count()
        self.slept: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        future = asyncio.get_running_loop().create_future()
        heapq.heappush(self._timers, (self.now + max(seconds, 0.0), next(self._order), future))
        await future

    async def drive(self, until: asyncio.Future) -> None:
        """Let tasks run; when all wait on the clock, jump to the next timer."""
        while not until.done():
            for _ in range(20):
                await asyncio.sleep(0)
            if until.done():
                break
            for _ in range(2000):  # tasks handing places on one by one (a low level draining idle workers)
                if self._timers or until.done():
                    break
                await asyncio.sleep(0)
            if until.done():
                break
            if not self._timers:
                raise AssertionError("every task waits, but not on the clock: a deadlock")
            when, _, future = heapq.heappop(self._timers)
            self.now = max(self.now, when)
            if not future.done():
                future.set_result(None)


class OneCore:
    """The process's one core in virtual time: work queues for it, one piece at a time.

    `busy()` is the running total of seconds it worked, the figure evalkit.engine.loop_load
    gives the controller.
    """

    def __init__(self, time: VirtualTime):
        self.time = time
        self.free_at = 0.0
        self.reserved = 0.0

    async def work(self, seconds: float) -> None:
        start = max(self.time.now, self.free_at)
        self.free_at = start + seconds
        self.reserved += seconds
        await self.time.sleep(self.free_at - self.time.now)

    def busy(self) -> float:
        return self.reserved - max(0.0, self.free_at - self.time.now)


class ScriptedServer:
    """Answers in `latency` seconds while at most `capacity` calls are in flight; 429 above that.

    With a `core`, each call first needs `cpu` seconds of it (the agent's own work in
    evalkit's process, which more calls in flight cannot speed up).
    """

    def __init__(self, time: VirtualTime, *, latency: float, capacity: int = 10**9,
                 retry_after: float | None = None, slow_above: int | None = None, slow_power: float = 1.0,
                 core: OneCore | None = None, cpu: float = 0.0):
        self.time = time
        self.core = core
        self.cpu = cpu
        self.latency = latency
        self.capacity = capacity
        self.retry_after = retry_after
        self.slow_above = slow_above  # above this many in flight, each call takes longer (a CPU-bound agent)
        self.slow_power = slow_power
        self.in_flight = 0
        self.most_in_flight = 0
        self.served = 0
        self.rejected = 0

    async def call(self) -> float:
        if self.in_flight >= self.capacity:
            self.rejected += 1
            raise AgentOverloaded("HTTP 429", retry_after=self.retry_after)
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            queued = 0.0  # waiting for the core, and working on it
            if self.core is not None:
                started = self.time.now
                await self.core.work(self.cpu)
                queued = self.time.now - started
            latency = self.latency
            if self.slow_above is not None and self.in_flight > self.slow_above:
                latency *= (self.in_flight / self.slow_above) ** self.slow_power
            await self.time.sleep(latency)
            self.served += 1
            return queued + latency
        finally:
            self.in_flight -= 1


async def run_cases(limit: AdaptiveLimit, server: ScriptedServer, time: VirtualTime, cases: int,
                    workers: int = 300) -> list[int]:
    """The runner's loop in miniature: a rejected case goes back in the queue. Returns the levels seen."""
    queue = list(range(cases))
    levels: list[int] = []

    async def worker():
        while queue:
            slot = await limit.acquire()
            if not queue:
                limit.release(slot, completed=False)
                return
            queue.pop()
            try:
                latency = await server.call()
            except AgentOverloaded as error:
                limit.overloaded(slot, error.retry_after)
                limit.release(slot, completed=False)
                queue.append(0)
                continue
            limit.release(slot, latency)
            levels.append(limit.level)

    done = asyncio.ensure_future(asyncio.gather(*(worker() for _ in range(workers))))  # noqa: RUF006
    await time.drive(done)
    await done
    return levels


def make_limit(time: VirtualTime, setting="auto", core: OneCore | None = None, **tuning) -> AdaptiveLimit:
    return AdaptiveLimit(setting, tuning=Tuning(**tuning), clock=time.clock, sleep=time.sleep,
                         busy=core.busy if core is not None else None)


async def test_grows_while_throughput_grows_and_latency_does_not():
    time = VirtualTime()
    limit = make_limit(time)
    server = ScriptedServer(time, latency=0.05)
    levels = await run_cases(limit, server, time, cases=2000)
    assert server.served == 2000 and server.rejected == 0
    assert levels[0] == 4 and max(levels) >= 128  # doubled, window after window
    assert limit.stats.backoffs == 0 and limit.stats.raises >= 5
    assert server.most_in_flight == limit.stats.peak_in_flight <= limit.stats.peak


async def test_never_exceeds_a_fixed_level():
    time = VirtualTime()
    limit = make_limit(time, setting=6)
    server = ScriptedServer(time, latency=0.05)
    levels = await run_cases(limit, server, time, cases=300)
    assert set(levels) == {6} and server.most_in_flight == 6
    assert limit.stats.raises == 0 and limit.summary()["mode"] == "fixed"


async def test_backs_off_on_429_and_settles_under_the_servers_limit():
    time = VirtualTime()
    limit = make_limit(time)
    server = ScriptedServer(time, latency=0.05, capacity=12)
    levels = await run_cases(limit, server, time, cases=3000)
    assert server.served == 3000  # every case done in the end
    assert limit.stats.overloads == server.rejected > 0
    assert 1 <= limit.stats.backoffs <= server.rejected
    # After the first back-off it climbs by one per window: few overruns over the whole run.
    assert server.rejected < 3000 * 0.05
    late = levels[len(levels) // 2:]
    assert max(late) <= 13 and sum(late) / len(late) >= 6


async def test_a_burst_of_429s_from_one_overrun_costs_one_halving():
    time = VirtualTime()
    limit = make_limit(time, initial=16)
    slots = [await limit.acquire() for _ in range(16)]
    for slot in slots[:10]:
        limit.overloaded(slot)
        limit.release(slot, completed=False)
    assert limit.level == 8 and limit.stats.backoffs == 1 and limit.stats.overloads == 10
    late = await limit.acquire()  # started after the back-off: its 429 cuts again
    limit.overloaded(late)
    assert limit.level == 4 and limit.stats.backoffs == 2


async def test_honours_retry_after_before_starting_anything_new():
    time = VirtualTime()
    limit = make_limit(time)
    first = await limit.acquire()
    limit.overloaded(first, retry_after=5.0)
    limit.release(first, completed=False)
    assert limit.level == 2
    started = asyncio.ensure_future(limit.acquire())
    await time.drive(started)
    assert time.now == pytest.approx(5.0)  # nothing started before the server's Retry-After passed
    assert time.slept == [pytest.approx(5.0)] and limit.stats.waited_for_retry_after_s == pytest.approx(5.0)


async def test_retry_after_from_a_scripted_server_spaces_the_reruns():
    time = VirtualTime()
    limit = make_limit(time)
    server = ScriptedServer(time, latency=0.05, capacity=3, retry_after=2.0)
    await run_cases(limit, server, time, cases=200)
    assert server.served == 200 and server.rejected > 0
    # every rejection paused new work for two seconds: the run took at least that long per pause
    assert time.now >= 2.0 * limit.stats.backoffs


async def test_stops_raising_when_latency_grows_with_the_level():
    time = VirtualTime()
    limit = make_limit(time)
    server = ScriptedServer(time, latency=0.01, slow_above=4)  # beyond 4 in flight, no gain, only waiting
    levels = await run_cases(limit, server, time, cases=1000)
    assert max(levels) == 8 and limit.stats.raises == 1 and server.rejected == 0


async def test_backs_off_when_latency_rises_without_more_throughput():
    time = VirtualTime()
    limit = make_limit(time)
    server = ScriptedServer(time, latency=0.01, slow_above=4, slow_power=2)  # more in flight: less done
    levels = await run_cases(limit, server, time, cases=1000)
    assert limit.stats.backoffs >= 1 and server.rejected == 0
    assert max(levels[len(levels) // 2:]) <= 6


async def test_a_cpu_bound_agent_is_held_at_one_case_in_flight():
    time = VirtualTime()
    core = OneCore(time)
    limit = make_limit(time, core=core)
    server = ScriptedServer(time, latency=0.0, core=core, cpu=0.005)  # all work, no waiting
    # Few workers: at one in flight, idle workers leave one by one, each a step of the loop.
    levels = await run_cases(limit, server, time, cases=2000, workers=16)
    assert server.served == 2000
    assert limit.stats.peak <= 8  # one step up from where it started, which bought nothing
    late = levels[len(levels) // 4:]
    assert set(late) == {1}
    assert limit.stats.saturated_windows > 0 and limit.stats.backoffs >= 3
    assert time.now == pytest.approx(2000 * 0.005)  # the core never idled: nothing was lost by holding


async def test_a_waiting_agent_climbs_to_where_the_core_saturates_and_stays_near_it():
    time = VirtualTime()
    core = OneCore(time)
    limit = make_limit(time, core=core)
    # 1 ms of the core and 50 ms of waiting per call: about 50 in flight keep the core busy.
    server = ScriptedServer(time, latency=0.05, core=core, cpu=0.001)
    levels = await run_cases(limit, server, time, cases=20000)
    assert server.served == 20000
    assert limit.stats.peak >= 32 and limit.stats.saturated_windows > 0
    late = levels[len(levels) // 2:]
    assert 24 <= sum(late) / len(late) <= 72 and max(late) <= 96
    # Held near the knee, the run took little longer than the core's own work.
    assert time.now <= 20000 * 0.001 * 1.25


async def test_the_level_climbs_again_when_the_agent_stops_being_cpu_bound():
    time = VirtualTime()
    core = OneCore(time)
    limit = make_limit(time, core=core)
    server = ScriptedServer(time, latency=0.0, core=core, cpu=0.005)
    levels = await run_cases(limit, server, time, cases=1000, workers=16)
    assert levels[-1] == 1
    server.cpu, server.latency = 0.0, 0.05  # from now on the agent only waits
    levels = await run_cases(limit, server, time, cases=3000, workers=64)
    assert max(levels) >= 32


async def test_the_model_proxy_hook_reaches_the_running_controller():
    time = VirtualTime()
    limit = make_limit(time)
    stop = listen_for_upstream_overloads(limit)
    try:
        assert report_upstream_overload(retry_after=1.5) == 1
    finally:
        stop()
    assert limit.stats.overloads == 1 and limit.level == 2
    assert report_upstream_overload() == 0  # nobody listens after the run


def test_report_from_another_thread_is_delivered_on_the_loop():
    import threading

    async def main():
        limit = AdaptiveLimit("auto")
        stop = listen_for_upstream_overloads(limit)
        thread = threading.Thread(target=report_upstream_overload, args=(None,))
        thread.start()
        thread.join()
        await asyncio.sleep(0)
        stop()
        return limit.stats.overloads

    assert asyncio.run(main()) == 1


def test_overload_signals_are_found_in_error_chains():
    import httpx

    response = httpx.Response(429, headers={"retry-after": "3"}, request=httpx.Request("POST", "http://x"))
    try:
        try:
            response.raise_for_status()
        except httpx.HTTPStatusError as error:
            raise AgentError("turn 1: the agent raised HTTPStatusError") from error
    except AgentError as wrapped:
        found = overload_of(wrapped)
    assert found is not None and found.retry_after == 3.0
    assert overload_of(AgentError("429 RESOURCE_EXHAUSTED. quota exceeded")) is not None
    assert overload_of(AgentOverloaded("HTTP 503", retry_after=1.0)).retry_after == 1.0
    assert overload_of(AgentError("HTTP 500: boom")) is None
    assert overload_of(ValueError("bad input")) is None


def test_jobs_values_are_parsed_in_one_place():
    assert parse_jobs("auto") == "auto" and parse_jobs(" AUTO ") == "auto"
    assert parse_jobs("16") == 16 and parse_jobs(3) == 3
    for bad in ("0", "-2", "many", "1.5"):
        with pytest.raises(ValueError):
            parse_jobs(bad)


def test_the_settings_parse_jobs_and_name_the_setting():
    from evalkit.errors import SettingError
    from evalkit.settings import RunSettings

    settings = RunSettings.of(jobs="auto", judge_jobs="12")
    assert (settings.jobs, settings.judge_jobs) == ("auto", 12)
    assert settings.most_jobs_in_flight == Tuning().maximum
    assert RunSettings.of(jobs=5).most_jobs_in_flight == 5
    for name in ("jobs", "judge_jobs"):
        with pytest.raises(SettingError) as raised:
            RunSettings.of(**{name: "many"})
        assert raised.value.name == name
        with pytest.raises(SettingError):
            RunSettings.of(**{name: 0})
