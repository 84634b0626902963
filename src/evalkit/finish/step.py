"""The end of a run, the same for every front end: its outputs and gates, checked before, done after.

`Finish.plan(...)` checks everything a finished run will need before anything runs: the
output paths, settings given without their partners, the gate, a reachable confidence
gate and the baseline (loaded now, before this run enters the history). After the run,
`compare`, `judge` (the one decider's verdict, kept in the result), `write`, `show` and
`tell` do the rest in one order for `evalkit run`, `rescore` and `merge`; the Python API
and the pytest plugin ask the same decider (evalkit.results.run_verdict).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalkit.errors import EvalkitError, InputError, StorageError, UsageError
from evalkit.settings import (GATE_BOTH, GATE_REGRESSIONS, GATE_THRESHOLDS, Environment, FinishSettings, RunSettings,
                              check_partners)

if TYPE_CHECKING:
    from rich.console import Console

    from evalkit.compare.diff import CaseChange, Comparison
    from evalkit.results.reader import ScoredRun
    from evalkit.results.run_verdict import Verdict
    from evalkit.schema.results import CaseResult, RunResult

FullCases = Callable[[], Iterable["CaseResult"]]


@dataclass
class Finish:
    """What one run writes, compares with and gates on, checked up front."""

    settings: FinishSettings
    baseline: ScoredRun | None = None

    @classmethod
    def plan(cls, finish: FinishSettings, run: RunSettings | None = None,
             eval_set_ids: set[str] | None = None) -> Finish:
        """Check the outputs and the gates, and load the baseline: bad input is exit 2 before the run."""
        from evalkit.report.output_paths import check_output_paths

        check_output_paths(finish.outputs)
        _check_report_formats(finish)
        check_partners(*(m for m in (run, finish) if m is not None))
        if finish.gate in (GATE_REGRESSIONS, GATE_BOTH) and not finish.baseline:
            raise UsageError(f"--gate {finish.gate}: regressions need something to regress from; add --baseline "
                             "FILE, last or history, or use --gate thresholds")
        if run is not None:
            _check_confidence_reachable(run)
        baseline = None
        if finish.baseline:
            from evalkit.compare.baseline import load_baseline

            environment = run.environment if run is not None else Environment.read()  # the history's folder
            baseline = load_baseline(finish.baseline, environment.runs_dir, eval_set_ids)
        return cls(finish, baseline)

    def compare(self, result: RunResult, full_cases: FullCases | None = None) -> Comparison | None:
        """What changed since the baseline (with the significance tests when asked), kept in the result."""
        if self.baseline is None:
            return None
        from evalkit.compare.diff import compare_runs
        from evalkit.results.reader import from_result

        whole = result.model_copy(update={"cases": list(full_cases())}) if full_cases else result
        this_run = from_result(whole, "this run")
        comparison = compare_runs(self.baseline, this_run, self.settings.tolerance or 0.0)
        if self.settings.significance is not None:
            from evalkit.compare.significance import add_significance

            add_significance(comparison, self.baseline, this_run, self.settings.significance,
                             self.settings.gate_scores, held=_held(whole))
        result.comparison = comparison.to_record()
        return comparison

    def write(self, result: RunResult, full_cases: FullCases | None = None) -> EvalkitError | None:
        """Every file asked for; a failure after the run (a full disk) is returned as the run's error (exit 3)."""
        from evalkit.report.writing import write_reports

        s = self.settings
        try:
            write_reports(result, s.report_files, json_out=s.json_out, full_cases=full_cases)
        except EvalkitError as failure:
            return StorageError("\n".join(failure.lines())) if isinstance(failure, InputError) else failure
        return None

    def show(self, result: RunResult, console: Console, full_cases: FullCases | None = None) -> None:
        """The summary line (`--quiet`) or the table, and every criterion with `--print_detailed_results`."""
        from evalkit.report.console import render, summary_line

        try:
            if self.settings.quiet:
                console.print(summary_line(result), highlight=False)
                return
            render(result, console, debug=self.settings.debug)
            if self.settings.detailed:
                from evalkit.report.detailed import render_detailed

                render_detailed(result.model_copy(update={"cases": list(full_cases())}) if full_cases else result,
                                console)
        except BrokenPipeError:
            # The reader went away; keep Python from complaining about stdout at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())

    def judge(self, result: RunResult, *, min_coverage: float | None,
              comparison: Comparison | None = None) -> Verdict:
        """The run's verdict from the one decider (evalkit.results.run_verdict), through what `--gate`
        counts, the coverage minimum (`min_coverage`: the run's own, or a flag's) and the regressions
        against the baseline; kept in the result, so every report written after says it."""
        from evalkit.results.run_verdict import decide

        gate = self.settings.chosen_gate
        regressions = _regressions(comparison, result) if comparison is not None and gate != GATE_THRESHOLDS else None
        verdict = decide(result, min_coverage=min_coverage, count_cases=gate != GATE_REGRESSIONS,
                         regressions=regressions)
        result.verdict = verdict.record
        return verdict

    def tell(self, verdict: Verdict, comparison: Comparison | None, console: Console) -> None:
        """After the table: what changed since the baseline, and why the coverage gate failed or what a reached
        budget spent (on stderr)."""
        if comparison is not None:
            from evalkit.compare.render import render_comparison, summary_line

            if self.settings.quiet:
                console.print(summary_line(comparison), highlight=False, soft_wrap=True)
            else:
                render_comparison(comparison, console)
        for failure in verdict.record.failures:
            if failure.gate in ("coverage", "budget"):
                print(f"evalkit: {failure.message}", file=sys.stderr)


def _regressions(comparison: Comparison, result: RunResult) -> str | None:
    """Why the comparison fails the gate (None: it does not). A quarantined case does not (with
    `--significance` it is left out of the tests as well)."""
    if comparison.significance is not None:
        if not comparison.fails_gate:
            return None
        named = comparison.gate_regressions
        return (f"significant regressions against the baseline at {comparison.significance.level:g}"
                + (f": {_names(named)}" if named else " (the overall test)"))
    held = _held(result)
    regressed = [c for c in comparison.regressions if (c.eval_set_id, c.eval_id) not in held]
    if not regressed:
        return None
    return f"{len(regressed)} case{'' if len(regressed) == 1 else 's'} regressed against the baseline: {_names(regressed)}"


def _names(changes: list[CaseChange], shown: int = 10) -> str:
    names = ", ".join(c.name for c in changes[:shown])
    return names + (f" and {len(changes) - shown} more" if len(changes) > shown else "")


def _held(result: RunResult) -> set[tuple[str, str]]:
    return {(case.eval_set_id, case.eval_id) for case in result.cases if case.quarantined}


def _check_report_formats(finish: FinishSettings) -> None:
    """Every `--report NAME=PATH` names a known format (a built-in, a registered or an installed one)."""
    from evalkit.foundation.registry import UnknownName
    from evalkit.report.formats import REPORTS

    for name, path in finish.reports:
        try:
            REPORTS.require(name)
        except UnknownName as unknown:
            raise UsageError(f"--report {name}={path}: {unknown}; install the package that provides it, "
                             "or pick a known one") from None


def _check_confidence_reachable(settings: RunSettings) -> None:
    """A confidence gate that no number of passing runs reaches is a mistake, not a failing agent."""
    if settings.confidence is None or settings.required_passes <= settings.repeat:
        return
    needed = next(n for n in range(settings.repeat + 1, 100_000) if settings.passes_required(n) <= n)
    flag = "--max-repeat" if settings.auto_repeat else "--repeat"
    raise UsageError(f"--pass-rate {settings.pass_rate:g} --confidence {settings.confidence:g}: no case can pass "
                     f"in {settings.repeat} runs (even all passing leaves the interval's low end below "
                     f"{settings.pass_rate:g}); use {flag} {needed} or more, or a lower --pass-rate or --confidence")
