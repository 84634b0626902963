"""`evalkit calibrate`: per labelled criterion, how far its judge agrees with people.

For each criterion that has labels: the labelled cases it gave a verdict on (`n`;
those it did not evaluate or errored on are `excluded`), the confusion counts, the
agreement with its 95% Wilson interval, Cohen's κ, and the judge model and prompt
hash the verdicts came from. The JSON (`--json`) is the calibration file that
`judge_model_options.calibration` reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalkit.calibration.agreement import Confusion, kappa_words
from evalkit.calibration.judged import JudgedCriterion
from evalkit.calibration.labels import Label, LabelKey
from evalkit.errors import InputError, Problem
from evalkit.schema.results import Status
from evalkit.stats.interval import wilson_interval

# Below this many labels a calibration is rough, and the report says so.
FEW_LABELS = 30


@dataclass
class CriterionCalibration:
    name: str
    confusion: Confusion = field(default_factory=Confusion)
    excluded: int = 0
    judge_model: str | None = None
    prompt_hash: str | None = None
    threshold: float | None = None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The agreement's 95% Wilson interval; None before any labelled verdict."""
        if self.confusion.n == 0:
            return None
        return wilson_interval(self.confusion.agreed, self.confusion.n)

    def to_dict(self) -> dict[str, Any]:
        interval = self.interval
        return {
            "name": self.name,
            "n": self.confusion.n,
            "excluded": self.excluded,
            "agreement": self.confusion.agreement,
            "agreement_interval": list(interval) if interval is not None else None,
            "kappa": self.confusion.kappa,
            "confusion": self.confusion.as_dict(),
            "judge_model": self.judge_model,
            "prompt_hash": self.prompt_hash,
            "threshold": self.threshold,
        }


def calibrate(results: dict[LabelKey, JudgedCriterion], labels: list[Label], labels_file: str) -> list[CriterionCalibration]:
    """The calibration of every labelled criterion, by name; InputError for labels the results cannot place."""
    problems = _unplaced(results, labels, labels_file)
    if problems:
        raise InputError(problems)
    by_name: dict[str, CriterionCalibration] = {}
    judges: dict[str, dict[tuple[str | None, str | None], str]] = {}
    for label in labels:
        item = results[label.key]
        calibration = by_name.setdefault(label.criterion, CriterionCalibration(label.criterion))
        verdict = item.verdict
        if verdict is None:
            calibration.excluded += 1
            continue
        calibration.confusion = calibration.confusion.adding(verdict is Status.PASSED, label.verdict == "pass")
        calibration.judge_model, calibration.prompt_hash = item.judge_model, item.prompt_hash
        calibration.threshold = item.result.threshold
        judges.setdefault(label.criterion, {}).setdefault((item.judge_model, item.prompt_hash), item.file)
    mixed = [Problem(next(iter(seen.values())), "", f"{name} was judged by more than one judge (" + ", ".join(
        f"{model} with prompt {prompt}" for model, prompt in seen) + "); calibrate the results of one judge at a time")
        for name, seen in judges.items() if len(seen) > 1]
    if mixed:
        raise InputError(mixed)
    return [by_name[name] for name in sorted(by_name)]


def _unplaced(results: dict[LabelKey, JudgedCriterion], labels: list[Label], labels_file: str) -> list[Problem]:
    cases = {(set_id, eval_id) for set_id, eval_id, _ in results}
    problems = []
    for index, label in enumerate(labels):
        if label.key in results:
            continue
        case = f"{label.eval_set_id}/{label.eval_id}"
        if (label.eval_set_id, label.eval_id) not in cases:
            message = f"names case {case}, which the result files do not have; fix the ids or pass the run that has it"
        else:
            message = (f"names criterion {label.criterion!r}, which case {case} was not scored on; "
                       "fix the name or pass the run that scored it")
        problems.append(Problem(labels_file, f"labels[{index}]", message))
    return problems


def to_json(calibrations: list[CriterionCalibration]) -> dict[str, Any]:
    return {"criteria": [c.to_dict() for c in calibrations]}


def report_lines(calibration: CriterionCalibration) -> list[str]:
    """The console's account of one criterion."""
    confusion = calibration.confusion
    judge = f"judge {calibration.judge_model or 'unknown'}, prompt {calibration.prompt_hash or 'unknown'}"
    lines = [f"{calibration.name}: {judge}"]
    excluded = f" ({calibration.excluded} more not evaluated or errored, left out)" if calibration.excluded else ""
    lines.append(f"  labelled cases  {confusion.n}{excluded}")
    if confusion.n == 0:
        lines.append("  no labelled case has a verdict of the judge: nothing to compare")
        return lines
    assert confusion.agreement is not None
    interval = calibration.interval
    assert interval is not None
    lines.append(f"  agreement       {confusion.agreement:.0%} ({confusion.agreed} of {confusion.n}; "
                 f"95% interval {interval[0]:.0%}–{interval[1]:.0%})")
    kappa = confusion.kappa
    shown = f"{kappa:.2f}" if kappa is not None else "undefined"
    why = " (judge and people gave one verdict all round)" if kappa is None else f" ({kappa_words(kappa)})"
    lines.append(f"  Cohen's κ       {shown}{why}")
    lines.append(f"  {'':16}people pass  people fail")
    lines.append(f"  {'judge pass':16}{confusion.judge_pass_human_pass:>11}  {confusion.judge_pass_human_fail:>11}")
    lines.append(f"  {'judge fail':16}{confusion.judge_fail_human_pass:>11}  {confusion.judge_fail_human_fail:>11}")
    if confusion.lenient or confusion.harsh:
        leaning = ("too lenient" if confusion.lenient > confusion.harsh else
                   "too harsh" if confusion.harsh > confusion.lenient else "wrong both ways, equally")
        slips = [f"passed {confusion.lenient} case(s) people failed" if confusion.lenient else "",
                 f"failed {confusion.harsh} case(s) people passed" if confusion.harsh else ""]
        lines.append(f"  the judge is {leaning}: it " + " and ".join(slip for slip in slips if slip))
    return lines


def warnings(calibration: CriterionCalibration) -> list[str]:
    n = calibration.confusion.n
    if n < FEW_LABELS:
        return [(f"{calibration.name}: only {n} labelled case(s); below about {FEW_LABELS} agreement and κ are "
                 "rough (see the interval): label more with `evalkit label`")]
    return []
