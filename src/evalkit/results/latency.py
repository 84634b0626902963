"""The run-level report CES gives its evaluation runs: progress, latency percentiles, tool outcomes.

A pure function of the case results, so it can be computed for a live run, a saved
result file or merged shards alike:

* progress: total, completed, passed, failed, error and not-evaluated case counts;
* turn latency: p50 / p90 / p99 of the measured duration of every turn;
* per tool: how often it was called, p50 / p90 / p99 of its measured call durations,
  and how many expected calls of it passed or failed.

A call's duration is measured when its response part carries `part_metadata.duration_s`
(adapters that time each call record it there), or when it was the only tool call of
its turn, whose tool time (`tool_duration`) is then exactly that call's. Other calls are
counted but not timed. Pass/fail counts come from the per-call results the CES criteria
report (`details.calls` entries with a `tool` and a `status`).

Percentiles interpolate linearly between the two nearest samples (NumPy's default
method): for sorted samples x[0..n-1], p is read at position (n - 1) * p / 100.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

from evalkit.foundation.stats import percentile
from evalkit.schema.results import CaseResult, Status
from evalkit.schema.run_figures import LatencyStats, ProgressCounts, RunLatency, ToolFigures

PERCENTILES = (50, 90, 99)


def latency_stats(samples: Sequence[float]) -> LatencyStats:
    p50, p90, p99 = (percentile(samples, p) for p in PERCENTILES)
    return LatencyStats(count=len(samples), p50_s=p50, p90_s=p90, p99_s=p99)


def run_report(cases: Iterable[CaseResult], total: int | None = None) -> RunLatency:
    """Progress, turn latency and per-tool figures of these cases (`total`: cases planned, if known)."""
    figures = RunFigures()
    for case in cases:
        figures.add(case)
    return figures.report(total)


class RunFigures:
    """The figures of `run_report`, gathered one case at a time.

    A live run feeds each case as it finishes, so building its report never reads the
    finished cases back (they live on disk, docs/performance.md, "Memory").
    """

    def __init__(self) -> None:
        self.statuses = dict.fromkeys(Status, 0)
        # Every duration is kept for exact percentiles: as machine doubles, 8 bytes each, not a float object.
        self.turn_durations = array("d")
        self.call_counts: dict[str, int] = {}
        self.call_durations: dict[str, array[float]] = {}
        self.outcomes: dict[str, list[int]] = {}  # tool → [passed, failed]

    def add(self, case: CaseResult) -> None:
        self.statuses[case.status] += 1
        # With --repeat a case holds its runs: every run's turns and calls count, not the one shown.
        for run in case.runs or [case]:
            for record in run.invocations:
                actual = record.actual or {}
                duration = actual.get("duration")
                if isinstance(duration, (int, float)):
                    self.turn_durations.append(float(duration))
                for name, seconds in timed_calls(actual):
                    self.call_counts[name] = self.call_counts.get(name, 0) + 1
                    if seconds is not None:
                        self.call_durations.setdefault(name, array("d")).append(seconds)
            for criterion in run.criteria:
                for turn in criterion.invocations:
                    for call in turn.details.get("calls") or ():
                        if isinstance(call, dict) and call.get("tool") and call.get("status") in ("passed", "failed"):
                            counts = self.outcomes.setdefault(call["tool"], [0, 0])
                            counts[0 if call["status"] == "passed" else 1] += 1

    def report(self, total: int | None = None) -> RunLatency:
        tools = [
            ToolFigures(tool=name, calls=self.call_counts.get(name, 0),
                        latency=latency_stats(self.call_durations.get(name, array("d"))),
                        passed=self.outcomes.get(name, [0, 0])[0], failed=self.outcomes.get(name, [0, 0])[1])
            for name in sorted(set(self.call_counts) | set(self.outcomes))
        ]
        completed = sum(self.statuses.values())
        progress = ProgressCounts(
            total=max(total or 0, completed),
            completed=completed,
            passed=self.statuses[Status.PASSED],
            failed=self.statuses[Status.FAILED],
            error=self.statuses[Status.ERROR],
            not_evaluated=self.statuses[Status.NOT_EVALUATED],
        )
        return RunLatency(progress=progress, turn_latency=latency_stats(self.turn_durations), tools=tools)


def timed_calls(actual: dict[str, Any]) -> list[tuple[str, float | None]]:
    """(tool name, measured seconds or None) for every tool call of a recorded turn (ADK JSON)."""
    calls: list[str] = []
    durations: dict[str | None, float] = {}
    data = actual.get("intermediate_data") or {}
    if "invocation_events" in data:
        for event in data.get("invocation_events") or ():
            for part in ((event or {}).get("content") or {}).get("parts") or ():
                if part.get("function_call"):
                    calls.append(part["function_call"].get("name") or "")
                response = part.get("function_response")
                metadata = part.get("part_metadata")
                if response and isinstance(metadata, dict) and isinstance(metadata.get("duration_s"), (int, float)):
                    durations[response.get("id")] = float(metadata["duration_s"])
        ids = [p["function_call"].get("id") for e in data.get("invocation_events") or ()
               for p in ((e or {}).get("content") or {}).get("parts") or () if p.get("function_call")]
    else:
        calls = [(c or {}).get("name") or "" for c in data.get("tool_uses") or ()]
        ids = [(c or {}).get("id") for c in data.get("tool_uses") or ()]
    tool_time = actual.get("tool_duration")
    timed: list[tuple[str, float | None]] = []
    for name, call_id in zip(calls, ids):
        if call_id is not None and call_id in durations:
            timed.append((name, durations[call_id]))
        elif len(calls) == 1 and isinstance(tool_time, (int, float)):
            timed.append((name, float(tool_time)))  # the turn's only call: its tool time is this call's
        else:
            timed.append((name, None))
    return timed
