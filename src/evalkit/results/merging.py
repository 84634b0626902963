"""Shard results → one run: the cases of every shard, a recounted summary, checks that they fit.

Used by `evalkit merge` (docs/ci.md); `evalkit run --processes N` adds its workers'
cases to its own run instead (evalkit.engine.processes). Result-file code: it reads and
writes nothing but result files' models. Merging
refuses inputs that cannot be one run: a case found in two files, shards of different
splits (1/3 with 2/4), a shard missing from a split, or runs with different `--repeat`
settings or budgets. The shards' budget records become one (`BudgetUse.of_shards`): each
shard had its own budget, so the limits are theirs and what they spent is added up.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from evalkit.errors import InputError, Problem
from evalkit.results.coverage import merged_coverage
from evalkit.results.shard import Shard
from evalkit.schema.budget_use import BudgetUse
from evalkit.schema.results import CaseResult, JudgeStatistics, RunResult, Summary
from evalkit.schema.run_figures import AutoRepeat


def merge_results(results: list[tuple[Path, RunResult]],
                  order: Callable[[list[CaseResult]], list[CaseResult]] = list) -> RunResult:
    """The parts as one run, its cases put in `order` (`evalkit merge`: that of their eval set files)."""
    if not results:
        raise InputError("merge: give the result files to combine")
    problems: list[Problem] = []
    seen: dict[tuple[str, str], Path] = {}
    cases: list[CaseResult] = []
    for path, result in results:
        for case in result.cases:
            key = (case.eval_set_id, case.eval_id)
            if key in seen:
                problems.append(Problem(str(path), f"case {case.eval_set_id}/{case.eval_id}",
                                        f"is also in {seen[key]}; shards of one run never share a case"))
                continue
            seen[key] = path
            cases.append(case)
    problems += _shard_problems(results) + _setting_problems(results) + _budget_problems(results)
    if problems:
        raise InputError(problems)
    cases = order(cases)
    first = min((r for _, r in results), key=lambda r: r.started_at)
    shards = [r.shard for _, r in results if r.shard]
    return RunResult(
        evalkit_version=first.evalkit_version,
        started_at=first.started_at,
        duration_s=max(r.duration_s for _, r in results),  # shards run side by side
        summary=Summary.of(cases, planned=_planned([r for _, r in results])),
        cases=cases,
        interrupted=any(r.interrupted for _, r in results),
        judge=sum_judge_stats([r.judge for _, r in results]),
        repeat=first.repeat,
        pass_rate=first.pass_rate,
        confidence=first.confidence,
        repeat_auto=_merged_auto([r for _, r in results]),
        shards=sorted(shards, key=lambda s: Shard.parse(s).index) or None,
        agent=first.agent if len({r.agent for _, r in results}) == 1 else None,
        coverage=merged_coverage(r.coverage for _, r in results),  # one inventory, the calls of every shard
        budget=_merged_budget([r for _, r in results]),
    )


def _merged_budget(results: list[RunResult]) -> BudgetUse | None:
    """The shards' budget records as one; None when none had a budget (a shard with no case has no record)."""
    parts = [r.budget for r in results if r.budget is not None]
    return BudgetUse.of_shards(parts) if parts else None


def _merged_auto(results: list[RunResult]) -> AutoRepeat | None:
    """`--repeat auto`: the rule (the same in every part, or the merge is refused), and the
    parts' runs added up when every part says. `compare` reads the rule back to test the counts right."""
    first = results[0].repeat_auto
    if not first:
        return None
    parts = [r.repeat_auto for r in results]
    agent_runs = [p.agent_runs if p else None for p in parts]
    runs_saved = [p.runs_saved if p else None for p in parts]
    return first.model_copy(update={
        "agent_runs": None if None in agent_runs else sum(n for n in agent_runs if n is not None),
        "runs_saved": None if None in runs_saved else sum(n for n in runs_saved if n is not None)})


def _auto_rule(result: RunResult) -> str | None:
    auto = result.repeat_auto
    return None if not auto else auto.rule_only().model_dump_json()


def agent_warning(results: list[tuple[Path, RunResult]]) -> str | None:
    """When the shards name different agents: a merged run would mix their answers, so say which ran where."""
    agents = {r.agent for _, r in results}
    if len(agents) <= 1:
        return None
    listing = ", ".join(f"{path} ({r.agent or 'an agent object'})" for path, r in results)
    return (f"the results were run with different agents: {listing}; the merged run mixes their answers "
            "(merge the shards of one agent's run)")


def _planned(results: list[RunResult]) -> int | None:
    """The cases the parts set out to run, when every part says."""
    counts = [r.summary.planned for r in results]
    return None if any(count is None for count in counts) else sum(c for c in counts if c is not None)


def _shard_problems(results: list[tuple[Path, RunResult]]) -> list[Problem]:
    labelled: list[tuple[Path, Shard]] = []
    for path, result in results:
        if result.shard:
            try:
                labelled.append((path, Shard.parse(result.shard)))
            except ValueError as error:
                return [Problem(str(path), "shard", f"{result.shard!r}: {error}")]
    if not labelled:
        return []
    counts = {shard.count for _, shard in labelled}
    if len(counts) > 1:
        listing = ", ".join(f"{path} ({shard})" for path, shard in labelled)
        return [Problem("", "", f"the shards come from different splits: {listing}")]
    count = counts.pop()
    problems = []
    by_index: dict[int, Path] = {}
    for path, shard in labelled:
        index = shard.index
        if index in by_index:
            problems.append(Problem(str(path), "", f"shard {shard} is also {by_index[index]}"))
        by_index[index] = path
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in by_index]
    if missing:
        problems.append(Problem("", "", f"shard {', '.join(missing)} missing: every shard's result file is needed"))
    return problems


def _setting_problems(results: list[tuple[Path, RunResult]]) -> list[Problem]:
    settings = {(r.repeat, r.pass_rate, r.confidence, _auto_rule(r)) for _, r in results}
    if len(settings) <= 1:
        return []
    listing = ", ".join(f"{path} (--repeat {r.repeat})" for path, r in results)
    return [Problem("", "", f"the results were run with different --repeat/--pass-rate settings: {listing}")]


def _budget_problems(results: list[tuple[Path, RunResult]]) -> list[Problem]:
    """Shards run with different budgets: their records cannot say what the one run allowed."""
    budgets = [(path, r.budget) for path, r in results if r.budget is not None]
    if len({(b.max_cost, b.max_tokens, b.max_model_calls) for _, b in budgets}) <= 1:
        return []
    listing = ", ".join(f"{path} ({budget.limits_text()})" for path, budget in budgets)
    return [Problem("", "", f"the results were run with different budgets: {listing}; merge the shards of one run, "
                            "each run with the same --max-cost, --max-tokens and --max-model-calls")]


def shard_index(result: RunResult) -> int:
    try:
        return Shard.parse(result.shard).index if result.shard else 0
    except ValueError:
        return 0  # merge_results names the bad shard


def sum_judge_stats(stats: list[JudgeStatistics | None]) -> JudgeStatistics | None:
    present = [s for s in stats if s]
    if not present:
        return None
    total = present[0]
    for entry in present[1:]:
        total = total.plus(entry)
    return total
