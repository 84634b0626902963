"""`judge_model_options.calibration`: a judged criterion gates only on a judge proven against people.

`{"file": "judge.calibration.json", "min_kappa": 0.6}` names a calibration file written
by `evalkit calibrate --json` (relative to the config's folder). When the run's plan is
made, the criterion's own judge model and prompt hash are compared with the ones that
file recorded: if the calibration is missing, was made for another judge (drift) or
falls below `min_kappa`, the criterion is held back. A held-back criterion still asks
its judge and records the verdict (`details.judge_verdict`, `details.judge_score`, so
`evalkit label` and `calibrate` can use the run to calibrate the new judge), but its
status is `not_evaluated` with the reason, instead of passing or failing the case.
Without this option a criterion behaves as ADK's does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from evalkit.criteria.judging.calibration_option import CalibrationRequirement
from evalkit.errors import InputError, Problem
from evalkit.schema.results import CriterionResult, Status

if TYPE_CHECKING:
    from evalkit.criteria.base import Criterion
    from evalkit.criteria.judging.criterion import JudgeCriterion


class CalibrationEntry(BaseModel):
    """One criterion of a calibration file (the fields the gate reads; the others are kept)."""

    model_config = ConfigDict(extra="allow")

    name: str
    n: int = Field(ge=0)
    kappa: float | None = None
    judge_model: str | None = None
    prompt_hash: str | None = None
    threshold: float | None = None


def bind_calibration(criterion: Criterion, config_file: str, where: str) -> list[Problem]:
    """Decide once, when the plan is made, whether `criterion` may gate; problems with the calibration file."""
    from evalkit.criteria.judging.criterion import JudgeCriterion

    if not isinstance(criterion, JudgeCriterion):
        return []
    requirement = criterion.judge_options.calibration
    if requirement is None:
        return []
    path = Path(config_file).parent / requirement.file
    try:
        criterion.calibration_hold = hold_reason(criterion, requirement, path)
    except InputError as error:
        return [*error.problems, Problem(config_file, f"{where}.judge_model_options.calibration.file",
                                         "names this calibration file; write it again with `evalkit calibrate "
                                         "RESULT --labels LABELS --json FILE`")]
    return []


def hold_reason(criterion: JudgeCriterion, requirement: CalibrationRequirement, path: Path) -> str | None:
    """Why `criterion` may not gate under `requirement`, or None when its judge is calibrated."""
    again = f"label cases it judged (`evalkit label RESULT --labels LABELS`), then `evalkit calibrate RESULT " \
            f"--labels LABELS --json {path}`"
    if not path.exists():
        return f"not gated: no calibration file {path}; {again}"
    entry = read_calibration(path).get(criterion.name)
    if entry is None:
        return f"not gated: {path} has no calibration of {criterion.name}; {again}"
    provenance = criterion.provenance()
    if entry.judge_model != provenance["judge_model"]:
        return (f"not gated: judge drift: calibrated with judge_model {entry.judge_model}, now "
                f"{provenance['judge_model']}; {again}")
    if entry.prompt_hash != provenance["prompt_hash"]:
        return (f"not gated: judge drift: the prompt or its options changed since calibration (prompt_hash "
                f"{entry.prompt_hash}, now {provenance['prompt_hash']}); {again}")
    if entry.threshold is not None and entry.threshold != criterion.threshold:
        return (f"not gated: the threshold changed since calibration ({entry.threshold:g}, now "
                f"{criterion.threshold:g}), so the verdicts people checked have changed; {again}")
    if entry.kappa is None:
        return (f"not gated: κ is undefined over the {entry.n} labels in {path} (judge and people gave one verdict "
                "all round); label cases of both kinds and calibrate again")
    if entry.kappa < requirement.min_kappa:
        return (f"not gated: κ {entry.kappa:.2f} with people's labels is below min_kappa {requirement.min_kappa:g} "
                f"({entry.n} labels); improve the judge (rubric, judge_model or num_samples; docs/criteria.md, "
                "\"Trusting a judge\") and calibrate again")
    return None


def read_calibration(path: Path) -> dict[str, CalibrationEntry]:
    """The criteria of a calibration file by name; InputError naming the file and place if malformed."""
    from evalkit.foundation.documents import read_document
    from evalkit.schema.problems import known_keys, problems_from

    data = read_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("criteria"), list):
        raise InputError(Problem(str(path), "criteria" if isinstance(data, dict) else "",
                                 'not a calibration file: expected {"criteria": [...]} as `evalkit calibrate --json` '
                                 "writes it"))
    entries: dict[str, CalibrationEntry] = {}
    problems: list[Problem] = []
    for index, raw in enumerate(data["criteria"]):
        try:
            entry = CalibrationEntry.model_validate(raw)
        except ValidationError as error:
            problems += problems_from(error, str(path), raw, known_keys(CalibrationEntry), prefix=f"criteria[{index}]")
            continue
        entries[entry.name] = entry
    if problems:
        raise InputError(problems)
    return entries


def judged_result(criterion: JudgeCriterion, result: CriterionResult) -> CriterionResult:
    """`result` with the judge's provenance in its details, held back if the judge is not calibrated."""
    details: dict[str, Any] = {**result.details, **criterion.provenance()}
    hold = criterion.calibration_hold
    if hold is None or result.status not in (Status.PASSED, Status.FAILED):
        return result.model_copy(update={"details": details})
    details.update(reason=hold, judge_verdict=result.status.value, judge_score=result.score)
    return result.model_copy(update={"status": Status.NOT_EVALUATED, "score": None, "details": details})
