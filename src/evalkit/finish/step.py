"""The end of a run, the same for every front end: its outputs and gates, checked before, done after.

`Finish.plan(...)` checks everything a finished run will need before anything runs: the
output paths, settings given without their partners, the gate, a reachable confidence
gate and the baseline (loaded now, before this run enters the history). After the run,
`compare`, `write`, `show` and `exit_code` do the rest in one order for `evalkit run`,
`rescore` and `merge`; the Python API and the pytest plugin use `coverage_gate` and the
verdicts (evalkit.results.run_verdict.exit_code) the same way.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from evalkit.errors import EvalkitError, ExitCode, InputError, StorageError, UsageError
from evalkit.settings import (GATE_BOTH, GATE_REGRESSIONS, GATE_THRESHOLDS, Environment, FinishSettings, RunSettings,
                              check_partners)

if TYPE_CHECKING:
    from rich.console import Console

    from evalkit.compare.diff import Comparison
    from evalkit.results.reader import ScoredRun
    from evalkit.schema.coverage import Coverage
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
            write_reports(result, json_out=s.json_out, junit=s.junit, markdown=s.markdown, html=s.html,
                          full_cases=full_cases)
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

    def exit_code(self, result: RunResult, verdict: int, *, coverage_minimum: float | None,
                  comparison: Comparison | None = None, console: Console | None = None) -> int:
        """The run's exit code from its verdicts (`verdict`), through the gates: what `--gate` counts,
        the coverage minimum, and the regressions against the baseline (printed here)."""
        code = verdict
        gate = self.settings.chosen_gate
        if gate == GATE_REGRESSIONS and code == ExitCode.FAILED:
            code = ExitCode.OK  # failed thresholds alone do not fail this gate; errors (exit 3) still do
        if coverage_gate(result, coverage_minimum) and code == ExitCode.OK:
            code = ExitCode.FAILED
        if comparison is not None and console is not None:
            regressed = self._report_baseline(comparison, result, console)
            if regressed and gate != GATE_THRESHOLDS and code == ExitCode.OK:
                code = ExitCode.FAILED
        return code

    def _report_baseline(self, comparison: Comparison, result: RunResult, console: Console) -> bool:
        """Print what changed since the baseline; True when it fails the gate. A quarantined
        case does not (with `--significance` it is left out of the tests as well)."""
        from evalkit.compare.render import render_comparison, summary_line

        if self.settings.quiet:
            console.print(summary_line(comparison), highlight=False, soft_wrap=True)
        else:
            render_comparison(comparison, console)
        if comparison.significance is not None:
            return comparison.fails_gate
        held = _held(result)
        return any((c.eval_set_id, c.eval_id) not in held for c in comparison.regressions)


def coverage_minimum(coverage: Coverage | None, requested: float | None) -> float | None:
    """The coverage gate's minimum: the one asked for now (a flag, a keyword, a plugin option), else
    the run's own (its settings', else its configs': evalkit.engine.coverage.gate_ratio)."""
    if requested is not None:
        if coverage is not None:
            coverage.min_ratio = requested  # so the reports show the minimum that was gated on
        return requested
    return coverage.min_ratio if coverage is not None else None


def coverage_gate(result: RunResult, minimum: float | None) -> bool:
    """Say why the coverage gate fails, on stderr; True when it does. `minimum` (a flag) overrides
    the run's own; None leaves the run's, which a merge of shards gates as one run."""
    from evalkit.results.coverage import gate_message

    message = gate_message(result.coverage, minimum)
    if message is not None:
        print(f"evalkit: {message}", file=sys.stderr)
    return message is not None


def _held(result: RunResult) -> set[tuple[str, str]]:
    return {(case.eval_set_id, case.eval_id) for case in result.cases if case.quarantined}


def _check_confidence_reachable(settings: RunSettings) -> None:
    """A confidence gate that no number of passing runs reaches is a mistake, not a failing agent."""
    if settings.confidence is None or settings.required_passes <= settings.repeat:
        return
    needed = next(n for n in range(settings.repeat + 1, 100_000) if settings.passes_required(n) <= n)
    flag = "--max-repeat" if settings.auto_repeat else "--repeat"
    raise UsageError(f"--pass-rate {settings.pass_rate:g} --confidence {settings.confidence:g}: no case can pass "
                     f"in {settings.repeat} runs (even all passing leaves the interval's low end below "
                     f"{settings.pass_rate:g}); use {flag} {needed} or more, or a lower --pass-rate or --confidence")
