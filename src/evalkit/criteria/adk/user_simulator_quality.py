"""`per_turn_user_simulator_quality_v1`: did the simulated user play its part well? (docs/adk-parity.md)

This judges the user simulator, not the agent, and needs a conversation scenario.

* Turn 1 is scored without a model: 1 if its user text equals the starting prompt
  (both stripped), else 0; no user text at all is not evaluated.
* Every later turn: a judge sees the plan, the conversation before the turn, the
  user message of the turn, the stop signal and the persona, and answers JSON with
  `is_valid`, asked `num_samples` times and voted on (ties are invalid; if no reply
  can be read the turn is not evaluated).
* Stop check: the judge is asked once more whether ending the conversation now (the
  stop signal as the next message) is right. If that check fails, its result replaces
  the last turn's.
* Case score = (sum of the scores of passing turns) / (number of turns), where
  not-evaluated turns count in the denominator (E17).

`is_valid` is read with ADK's regex, lower-cased, so `True`, `"valid"` and `true}`
all count: `true`/`valid` → 1.0; `false`/`invalid`/`almost`/`partially...` → 0.0;
anything else does not vote. A judge call that keeps failing makes the criterion
`error` (ADK: NOT_EVALUATED), as for every evalkit judge.
"""

from __future__ import annotations

import re

from pydantic import Field

from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, Samples, judge_error, outcome_with_errors
from evalkit.criteria.judging.options import JudgeModelOptions, judge_options_field
from evalkit.criteria.judging.voting import binary_majority
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import InvocationScore, Status
from evalkit.simulation.config import STOP_SIGNAL
from evalkit.simulation.history import judge_history
from evalkit.simulation.personas import resolve_persona
from evalkit.simulation.prompts import judge_prompt

# `"is_valid":`, then the value: optional [ and quotes around a run without quotes or
# `]`, ended (after optional quote, whitespace and `]`) by a comma, newline or `}`.
_IS_VALID = re.compile(r'"is_valid":\s*\[*[\n\s]*"*([^"\]]*)"*[\n\s]*\]*\s*[,\n\}]')
_INVALID_WORDS = frozenset({"invalid", "almost", "false", "partially_valid", "partially valid", "partially"})
_VALID_WORDS = frozenset({"valid", "true"})


def parse_is_valid(reply: str) -> float | None:
    """1.0 (valid), 0.0 (invalid) or None (no readable verdict) for one judge reply."""
    match = _IS_VALID.search(reply)
    if match is None:
        return None
    label = match.group(1).strip("}").replace(",", "").strip().lower()
    if label in _INVALID_WORDS:
        return 0.0
    if label in _VALID_WORDS:
        return 1.0
    return None


class UserSimulatorQualityOptions(CriterionOptions):
    judge_model_options: JudgeModelOptions = judge_options_field()
    stop_signal: str = Field(
        default=STOP_SIGNAL,
        min_length=1,
        description="the text that ends a simulated conversation, as the judge is told it "
        "(the simulator itself always uses </finished>)",
    )
    include_intermediate_responses_in_final: bool = Field(
        default=False, description="accepted for ADK compatibility; this criterion does not use it"
    )


class PerTurnUserSimulatorQualityCriterion(JudgeCriterion[UserSimulatorQualityOptions]):
    name = "per_turn_user_simulator_quality_v1"
    description = "An LLM judge checks each simulated-user message against the scenario's plan and persona"
    Options = UserSimulatorQualityOptions
    requires_scenario = True

    @property
    def stop_signal(self) -> str:
        return self.options.stop_signal

    def prompt_identity(self) -> list[str]:
        # The prompt is built in code: its text with placeholders where each case's data goes.
        return [judge_prompt(plan="{plan}", history="{history}", message="{message}",
                             stop_signal=self.stop_signal, persona=None)]

    def build_prompt(self, ctx: EvalContext, history: list[Invocation], message: str) -> str:
        scenario = ctx.scenario
        assert scenario is not None
        return judge_prompt(
            plan=scenario.conversation_plan,
            history=judge_history(history),
            message=message,
            stop_signal=self.stop_signal,
            persona=resolve_persona(scenario.user_persona),
        )

    def first_turn(self, ctx: EvalContext) -> InvocationScore:
        scenario = ctx.scenario
        assert scenario is not None
        user_content = ctx.actual[0].user_content
        if not user_content.parts:
            return InvocationScore(score=None, status=Status.NOT_EVALUATED, details={"reason": "no user text"})
        score = float(user_content.text().strip() == scenario.starting_prompt.strip())
        return InvocationScore(score=score, status=self.gate(score), details={"starting_prompt_matches": bool(score)})

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        if ctx.scenario is None:
            return Outcome(score=None, status=Status.NOT_EVALUATED, details={"reason": "needs a conversation scenario"})
        actual = ctx.actual
        prompts = [self.build_prompt(ctx, actual[:i], actual[i].user_content.text()) for i in range(1, len(actual))]
        prompts.append(self.build_prompt(ctx, actual, self.stop_signal))  # the stop check
        judged = [self._verdict(samples) for samples in await self.sample(ctx, prompts)]
        turns = [self.first_turn(ctx), *judged[:-1]]
        stop_check = judged[-1]
        stop_check.details["stop_check"] = True
        if stop_check.status is Status.FAILED:
            # The conversation should not have ended here: ADK charges that to the last turn.
            turns[-1] = stop_check
        passed = sum(t.score for t in turns if t.status is Status.PASSED and t.score is not None)
        overall = passed / len(turns)
        outcome = Outcome(score=overall, status=self.gate(overall), invocations=turns,
                          details={"stop_check": stop_check.status.value})
        if stop_check.status is Status.ERROR:
            # Judging stops being a verdict when any judge call failed, the stop check's too.
            return Outcome(score=None, status=Status.ERROR, invocations=turns,
                           details={**outcome.details, "error": stop_check.details.get("error")})
        return outcome_with_errors(turns, outcome)

    def _verdict(self, samples: Samples) -> InvocationScore:
        if samples.error is not None:
            return judge_error(samples.error, samples.replies)
        votes = [parse_is_valid(reply) for reply in samples.texts]
        score = binary_majority(votes)
        return InvocationScore(
            score=score,
            status=self.gate(score),
            details={"votes": [_vote_name(v) for v in votes], "judge_replies": samples.replies},
        )


def _vote_name(vote: float | None) -> str:
    return {1.0: "valid", 0.0: "invalid"}.get(vote, "not_found")  # type: ignore[arg-type]
