"""Score one case: every criterion concurrently, each failure kept as data.

A criterion that raises does not crash the run: a judge that failed for good, or a
criterion's own exception, becomes that criterion's `error` status, and so the case's.
A criterion's own exception keeps its traceback in the criterion's `error_detail`, shown
like a case's (`--debug`).
"""

from __future__ import annotations

import asyncio
import logging
import traceback
from dataclasses import dataclass

from evalkit.criteria.base import Criterion, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion
from evalkit.errors import EvalkitError
from evalkit.schema.judging import MediaNotReadable
from evalkit.schema.results import CriterionResult, InvocationScore, Status

log = logging.getLogger("evalkit.engine.scoring")


@dataclass(frozen=True)
class _Crash:
    """A criterion that raised instead of scoring: its one-line message and, for a bug, the traceback."""

    message: str
    detail: str | None = None


async def score_case(context: EvalContext, criteria: list[Criterion]) -> list[CriterionResult]:
    outcomes = await asyncio.gather(*(_evaluate(c, context) for c in criteria))
    return [_result(c, o, len(context.actual)) for c, o in zip(criteria, outcomes)]


async def _evaluate(criterion: Criterion, context: EvalContext) -> Outcome | _Crash:
    if criterion.requires_expected and context.expected is None:
        return Outcome(score=None, status=Status.NOT_EVALUATED,
                       details={"reason": "needs expected turns, and this case has none (a conversation scenario)"})
    if not context.actual:
        # ADK: an empty conversation scores nothing (E19).
        return Outcome(score=None, status=Status.INFORMATIONAL if criterion.informational else Status.NOT_EVALUATED,
                       details={"reason": "the agent played no turn"})
    try:
        return await criterion.evaluate(context)
    except asyncio.CancelledError:
        raise
    except MediaNotReadable as refusal:  # judged on the text alone it would be a verdict without the media
        return Outcome(score=None, status=Status.NOT_EVALUATED,
                       invocations=[InvocationScore(status=Status.NOT_EVALUATED) for _ in context.actual],
                       details={"reason": str(refusal)})
    except EvalkitError as error:
        return _Crash(str(error))
    except Exception as error:  # a criterion's own bug, or a custom metric's: report, don't crash
        log.debug("criterion %s raised", criterion.name, exc_info=True)
        return _Crash(f"{criterion.name} raised {type(error).__name__}: {error}", traceback.format_exc().rstrip())


def _result(criterion: Criterion, outcome: Outcome | _Crash, turns: int) -> CriterionResult:
    result = _plain_result(criterion, outcome, turns)
    if isinstance(criterion, JudgeCriterion):
        from evalkit.criteria.judging.calibration_gate import judged_result

        return judged_result(criterion, result)
    return result


def _plain_result(criterion: Criterion, outcome: Outcome | _Crash, turns: int) -> CriterionResult:
    if isinstance(outcome, _Crash):
        return CriterionResult(
            name=criterion.name, threshold=criterion.threshold, status=Status.ERROR, error=outcome.message,
            error_detail=outcome.detail, invocations=[InvocationScore(status=Status.ERROR) for _ in range(turns)],
        )
    details = outcome.details
    if outcome.status is Status.NOT_EVALUATED and not details.get("reason"):
        details = {**details, "reason": not_evaluated_reason(outcome.invocations)}
    return CriterionResult(
        name=criterion.name,
        threshold=criterion.threshold,
        score=outcome.score,
        status=outcome.status,
        invocations=outcome.invocations,
        details=details,
        error=_first_error(outcome),
    )


def not_evaluated_reason(turns: list[InvocationScore]) -> str:
    """Why no turn gave a score, in one line: the console shows it, one per criterion."""
    for turn in turns:
        for key in ("reason", "skipped"):
            if turn.details.get(key):
                return str(turn.details[key])
    replies = [reply for turn in turns for reply in turn.details.get("judge_replies") or ()]
    if replies:
        return f"no judge reply could be read ({len(replies)} repl{'y' if len(replies) == 1 else 'ies'})"
    return "no turn gave a score"


def _first_error(outcome: Outcome) -> str | None:
    if outcome.status is not Status.ERROR:
        return None
    for turn in outcome.invocations:
        if turn.status is Status.ERROR and turn.details.get("error"):
            return str(turn.details["error"])
    return outcome.details.get("error")
