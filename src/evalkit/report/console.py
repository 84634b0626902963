"""The console report: one row per case, one column per gating criterion, then what failed.

Rendered with rich; on a terminal with colour, elsewhere (CI logs, pipes) as plain text.
"""

from __future__ import annotations

import re

from rich.console import Console
from rich.text import Text

from evalkit.defaults import CONSOLE_TEXT_LIMIT
from evalkit.foundation.text import shorten
from evalkit.report.hanging import print_hanging
from evalkit.results.notation import call_text
from evalkit.results.reasoning import judge_reasoning
from evalkit.schema.results import CaseResult, CriterionResult, JudgeStatistics, RunResult, Status
from evalkit.schema.run_figures import Concurrency, LatencyStats, RunLatency

_STYLE = {
    Status.PASSED: "green",
    Status.FAILED: "red",
    Status.ERROR: "magenta",
    Status.NOT_EVALUATED: "yellow",
    Status.INFORMATIONAL: "dim",
}
_MARK = {Status.PASSED: "✓", Status.FAILED: "✗", Status.ERROR: "!", Status.NOT_EVALUATED: "–", Status.INFORMATIONAL: ""}


# Where an error case's traceback or worker log is, when the console shows only its one line.
DETAIL_HINT = "(run with --debug to see where the agent failed; the result file keeps it as error_detail)"
# The same for a criterion that raised.
CRITERION_DETAIL_HINT = "(run with --debug to see where the criterion failed; the result file keeps it as error_detail)"
# Under the flaky cases, when one of them failed the gate (and is not quarantined).
FLAKY_HINT = ("(a flaky case passes or fails by chance: let it pass on a share of its runs with --pass-rate, "
              "or hold it out with --quarantine until it is fixed; see docs/repeats.md)")


def render(result: RunResult, console: Console, *, debug: bool = False) -> None:
    from evalkit.report.case_table import print_case_table
    from evalkit.report.tool_sources import tool_source_lines

    columns = gating_criterion_names(result.cases)
    if result.cases:  # an interrupted run shows what finished: maybe nothing, then no empty table
        print_case_table(result.cases, columns, console, _cell, _status)
    for line in failure_lines(result.cases, debug=debug) + unmatched_tool_lines(result.cases):
        print_hanging(console, line)
    if not debug and any(case.error_detail for case in result.cases):
        console.print(Text(DETAIL_HINT, style="dim"), soft_wrap=True)
    elif not debug and any(c.error_detail for case in result.cases for c in case.criteria):
        console.print(Text(CRITERION_DETAIL_HINT, style="dim"), soft_wrap=True)
    console.print(Text(summary_line(result), style="bold"))
    for line in tool_source_lines(result):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if result.coverage is not None:
        from evalkit.results.coverage import coverage_lines

        for line in coverage_lines(result.coverage):
            console.print(line, highlight=False, markup=False, soft_wrap=True)
    for line in flaky_lines(result.cases) + quarantine_lines(result.cases):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if any(case.repeat is not None and case.repeat.flaky and case.status is not Status.PASSED
           and not case.quarantined for case in result.cases):
        console.print(Text(FLAKY_HINT, style="dim"), soft_wrap=True)
    if result.judge:
        console.print(judge_line(result.judge), highlight=False)
    if result.concurrency:
        console.print(concurrency_line(result.concurrency), highlight=False)
    for line in latency_lines(result.latency):
        console.print(line, highlight=False)


def gating_criterion_names(cases: list[CaseResult]) -> list[str]:
    """The criteria that decide pass or fail, in first-seen order (report-only metrics left out)."""
    names: dict[str, None] = {}
    for case in cases:
        for criterion in case.criteria:
            if criterion.status is not Status.INFORMATIONAL:
                names.setdefault(criterion.name)
    return list(names)


def _status(case: CaseResult) -> Text:
    return Text(case.status.value + repeat_note(case), style=_STYLE[case.status])


def _cell(criterion: CriterionResult | None) -> Text:
    if criterion is None:
        return Text("")
    if criterion.status is Status.ERROR:
        return Text("error", style=_STYLE[Status.ERROR])
    score = "n/a" if criterion.score is None else f"{criterion.score:.3f}"
    threshold = "" if criterion.threshold is None else f"/{criterion.threshold:g}"
    return Text(f"{score}{threshold} {_MARK[criterion.status]}".strip(), style=_STYLE[criterion.status])


def failure_lines(cases: list[CaseResult], *, debug: bool = False) -> list[str]:
    """For each case that did not pass, its reason: the error, or each failing criterion's first difference.

    With `debug`, an error case's or criterion's `error_detail` (traceback, worker stderr) follows, indented.
    """
    lines: list[str] = []
    shared = shared_errors(cases)
    for error, count in shared.items():
        lines.append(f"! {error}: {_count(count, 'criterion')} not scored".replace("criterions", "criteria"))
        detail = next((c.error_detail for case in cases for c in case.criteria if c.error == error and c.error_detail),
                      None) if debug else None
        if detail:
            lines.extend("    " + line for line in detail.splitlines())
    repeated = repeated_case_errors(cases)
    for error, erred in repeated.items():
        names = [f"{case.eval_set_id}/{case.eval_id}" for case in erred]
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        lines.append(f"! {len(names)} cases, the same error: {error} ({', '.join(names[:3])}{more})")
        if debug and erred[0].error_detail:
            lines.extend("    " + line for line in erred[0].error_detail.splitlines())
    for case in cases:
        name = f"{case.eval_set_id}/{case.eval_id}"
        if case.status is Status.ERROR and case.error and case_error_text(case.error) in repeated:
            continue  # said once above, with the count
        if case.status is Status.ERROR and case.error:
            lines.append(f"! {name}: {_shortened(case.error)}")
            if debug and case.error_detail:
                lines.extend("    " + line for line in case.error_detail.splitlines())
            continue
        if case.status is Status.NOT_EVALUATED and case.reason:
            lines.append(f"– {name}: not evaluated: {case.reason}")
            continue
        for criterion in case.criteria:
            if criterion.status is Status.ERROR and criterion.error in shared:
                continue  # said once above
            if criterion.status is Status.ERROR:
                lines.append(f"! {name}: {criterion.name}: {criterion.error or 'error'}")
                if debug and criterion.error_detail:
                    lines.extend("    " + line for line in criterion.error_detail.splitlines())
            elif criterion.status is Status.FAILED and criterion.threshold is None:
                reason = criterion.details.get("reason", "over its budget")
                lines.append(f"✗ {name}: {criterion.name} over budget: {reason}")
            elif criterion.status is Status.FAILED and criterion.spread is not None:
                spread = criterion.spread
                lines.append(f"✗ {name}: {criterion.name} passed {spread.passed} of {spread.runs} runs, "
                             f"needed {case.repeat.required if case.repeat else spread.runs} "
                             f"(mean {_score(criterion)}, threshold {criterion.threshold:g}){turn_differences(criterion)}")
            elif criterion.status is Status.FAILED:
                lines.append(f"✗ {name}: {criterion.name} {_score(criterion)} < {criterion.threshold:g}{turn_differences(criterion)}")
            elif criterion.status is Status.NOT_EVALUATED and case.status is not Status.PASSED:
                reason = criterion.details.get("reason") or "no turn gave a score"
                lines.append(f"– {name}: {criterion.name} not evaluated: {reason}")
    return lines


def shared_errors(cases: list[CaseResult]) -> dict[str, int]:
    """Criterion errors with the same text in several places (a judge that is down): said once, counted."""
    counts: dict[str, int] = {}
    for case in cases:
        for criterion in case.criteria:
            if criterion.status is Status.ERROR and criterion.error:
                counts[criterion.error] = counts.get(criterion.error, 0) + 1
    return {error: count for error, count in counts.items() if count > 1}


# Where a case's error names its case and turn ("case 'paris', turn 2: "): the rest is what went wrong.
_CASE_PREFIX = re.compile(r"^case '[^']*'(?:, turn \d+)?: ")


def case_error_text(error: str) -> str:
    """A case's error without the case and turn it names, so cases that failed alike compare equal."""
    return _CASE_PREFIX.sub("", error, count=1)


def repeated_case_errors(cases: list[CaseResult]) -> dict[str, list[CaseResult]]:
    """Error cases that failed alike (an agent that is down): each error once, with its cases."""
    alike: dict[str, list[CaseResult]] = {}
    for case in cases:
        if case.status is Status.ERROR and case.error:
            alike.setdefault(case_error_text(case.error), []).append(case)
    return {error: erred for error, erred in alike.items() if len(erred) > 1}


def unmatched_tool_lines(cases: list[CaseResult]) -> list[str]:
    """One line per case whose agent called a faked tool in a way no `tool_mocks` entry matched."""
    lines: list[str] = []
    for case in cases:
        calls = [call for run in (case.runs or [case]) for call in run.unmatched_tool_calls or ()]
        if calls:
            shown = ", ".join(
                f"turn {c.invocation_index + 1} {call_text(c.name, c.args)}" for c in calls[:3])
            more = f" and {len(calls) - 3} more" if len(calls) > 3 else ""
            lines.append(f"? {case.eval_set_id}/{case.eval_id}: no tool_mocks entry matched {shown}{more}; "
                         "these calls were not faked: add entries that match them")
    return lines


def repeat_note(case: CaseResult) -> str:
    """With --repeat: passing runs out of all, and whether they disagreed; a quarantined case says so."""
    quarantined = " quarantined" if case.quarantined else ""
    if case.repeat is None:
        return quarantined
    return f" {case.repeat.passed}/{case.repeat.runs}" + (" flaky" if case.repeat.flaky else "") + quarantined


# The flaky cases named under the summary; the rest are counted (all are in the result file).
FLAKY_SHOWN = 10
SHOWN_TURNS = 10  # failed turns named per criterion; the result file and the reports keep every one


def flaky_lines(cases: list[CaseResult]) -> list[str]:
    """With --repeat: the flaky cases by name, each with its pass rate's 95% interval."""
    flaky = [case for case in cases if case.repeat is not None and case.repeat.flaky]
    if not flaky:
        return []
    shown = ", ".join(f"{case.eval_set_id}/{case.eval_id} {case.repeat.passed}/{case.repeat.runs}{interval(case)}"
                      for case in flaky[:FLAKY_SHOWN] if case.repeat is not None)
    more = f" and {len(flaky) - FLAKY_SHOWN} more (see the result file)" if len(flaky) > FLAKY_SHOWN else ""
    return [f"flaky: {shown}{more}"]


def interval(case: CaseResult) -> str:
    """A case's 95% interval of its pass rate, as ` (95% 0.49–0.94)`; empty without one."""
    if case.repeat is None or not case.repeat.pass_rate_ci:
        return ""
    low, high = case.repeat.pass_rate_ci
    return f" (95% {low:.2f}–{high:.2f})"


def quarantine_lines(cases: list[CaseResult]) -> list[str]:
    """The quarantined cases that did not pass: run and reported, not counted in the exit code."""
    held = [f"{case.eval_set_id}/{case.eval_id} {case.status}" for case in cases
            if case.quarantined and case.status is not Status.PASSED]
    if not held:
        return []
    return [f"quarantined, not counted in the exit code: {', '.join(held)}"]


def _score(criterion: CriterionResult) -> str:
    return "n/a" if criterion.score is None else f"{criterion.score:.4g}"


def _shortened(text: str) -> str:
    """Long text cut for the terminal (a 10 MB reply is not one 10 MB line); the files keep it whole."""
    return shorten(text, CONSOLE_TEXT_LIMIT)


def _quoted(value: object) -> str:
    return repr(_shortened(value)) if isinstance(value, str) else _shortened(repr(value))


def turn_differences(criterion: CriterionResult) -> str:
    """Why each failed turn failed, a line (or two) per turn, for up to `SHOWN_TURNS` turns: a case whose
    turns 1 and 2 both failed shows both, so fixing turn 1 does not hide turn 2."""
    failed = [(index, turn) for index, turn in enumerate(criterion.invocations) if turn.status is Status.FAILED]
    text = "".join(_turn_difference(index, turn.details, turn.score) for index, turn in failed[:SHOWN_TURNS])
    more = len(failed) - SHOWN_TURNS
    return text + (f"\n    …and {more} more failed turn{'' if more == 1 else 's'} (the result file has each)"
                   if more > 0 else "")


def _turn_difference(index: int, details: dict, score: float | None) -> str:
    if "difference" in details:
        return f"\n    turn {index + 1}: {_shortened(str(details['difference']))}"
    if "expected" in details and "actual" in details:
        return (f"\n    turn {index + 1}: expected {_quoted(details['expected'])}\n"
                f"    {'':{len(str(index + 1)) + 6}}got      {_quoted(details['actual'])}")
    if details.get("reason"):
        return f"\n    turn {index + 1}: {_shortened(str(details['reason']))}"
    if details.get("failed_checks"):
        return "".join(f"\n    turn {index + 1}: {check}" for check in details["failed_checks"])
    reasons = judge_reasoning(details)
    if reasons:
        return "".join(f"\n    turn {index + 1}: the judge: {reason}" for reason in reasons[:1])
    return f"\n    turn {index + 1}: score {score if score is not None else 'n/a'}"


def verdict_line(result: RunResult) -> str | None:
    """`The run failed: …` with each gate it failed (the exit code's verdict); None when it passed,
    or for a result that carries no verdict (an older file's)."""
    verdict = result.verdict
    if verdict is None or verdict.passed:
        return None
    return f"The run failed: {'; '.join(verdict.reasons())}."


def summary_line(result: RunResult) -> str:
    s = result.summary
    parts = [f"{s.passed} passed", f"{s.failed} failed"]
    if s.not_evaluated:
        parts.append(f"{s.not_evaluated} not evaluated")
    if s.errors:
        parts.append(f"{s.errors} error{'' if s.errors == 1 else 's'}")
    if s.flaky:
        parts.append(f"{s.flaky} flaky")
    if s.quarantined:
        parts.append(f"{s.quarantined} quarantined")
    if result.repeat_auto:
        auto = result.repeat_auto
        same_as = auto.same_as_repeat if auto.same_as_repeat is not None else result.repeat
        counts = (f": {auto.agent_runs} agent runs, {auto.runs_saved} fewer than --repeat {same_as}, "
                  "the same verdicts" if auto.agent_runs is not None else "")
        parts.append(f"up to {same_as} runs each (auto){counts}")
    elif result.repeat > 1:
        parts.append(f"{result.repeat} runs each")
    if s.run_pass_rate is not None and s.run_pass_rate_ci:
        low, high = s.run_pass_rate_ci
        parts.append(f"runs passed {s.run_pass_rate:.0%} (95% {low:.0%}–{high:.0%})")
    if s.cost is not None:
        parts.append(f"cost {money(s.cost)}")
    tail = ""
    if result.interrupted:
        never = s.never_ran
        tail = f" (interrupted; {never} of {_count(s.planned or 0, 'case')} never ran)" if never else " (interrupted)"
    return f"{_count(s.cases, 'case')}: {', '.join(parts)} in {result.duration_s:.2f} s{tail}"


def money(amount: float) -> str:
    """A cost in the price table's currency: four decimals, enough for per-token prices."""
    return f"{amount:,.4f}"


def judge_line(stats: JudgeStatistics) -> str:
    """Judge usage: what the run cost, and what the cache saved."""
    line = (f"judge: {stats.calls} calls, {stats.cache_hits} from cache, {stats.retries} retries, "
            f"{stats.input_tokens:,} tokens in, {stats.output_tokens:,} out")
    line += f", {stats.failures} failed for good" if stats.failures else ""
    return line + (f", {stats.no_verdict} without a readable verdict" if stats.no_verdict else "")


def concurrency_line(figures: Concurrency) -> str:
    """Cases in flight: where `--jobs auto` started, peaked and ended, and what pushed it back."""
    if figures.mode == "fixed":
        line = f"jobs: {figures.final} (fixed)"
    else:
        line = f"jobs: auto, {figures.initial} → peak {figures.peak}, ended at {figures.final}"
    if figures.overloads:
        line += (f"; {_count(figures.overloads, 'rate limit')} (429/503) seen, "
                 f"{_count(figures.backoffs, 'back-off')}, {_count(figures.reruns, 'case')} run again")
    elif figures.backoffs:
        line += f"; {_count(figures.backoffs, 'back-off')} on rising latency"
    return line


def latency_lines(report: RunLatency | None) -> list[str]:
    """Turn latency percentiles, and per tool its calls, timings and verdicts when known."""
    if report is None or not report.turn_latency.count:
        return []
    turn = report.turn_latency
    lines = [f"turn latency: {_percentiles(turn)} over {_count(turn.count, 'turn')}"]
    for tool in report.tools:
        timing = f", {_percentiles(tool.latency)}" if tool.latency.count else ""
        verdicts = f", {tool.passed} passed, {tool.failed} failed" if tool.passed or tool.failed else ""
        lines.append(f"  {tool.tool}: {_count(tool.calls, 'call')}{timing}{verdicts}")
    return lines


def _percentiles(stats: LatencyStats) -> str:
    return f"p50 {_seconds(stats.p50_s)}, p90 {_seconds(stats.p90_s)}, p99 {_seconds(stats.p99_s)}"


def _seconds(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"


def make_console() -> Console:
    """A terminal gets colour and its own width; logs and pipes get plain, wide text."""
    console = Console()
    if not console.is_terminal:
        console = Console(width=160, no_color=True, highlight=False)
    return console
