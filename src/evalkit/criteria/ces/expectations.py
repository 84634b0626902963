"""`ces_expectations`: every CES expectation checked on its own and reported by its note.

A golden turn's expectations each get an outcome, reported as CES reports them:
"Check_Payment_Tool_Called: FAIL". The checks:

* `toolCall`: a call of that tool whose parameter correctness reaches the threshold;
* `toolResponse`: a response of that tool holding every expected field and value;
* `agentResponse`: by `comparisonType`: EQUALS (a reply text equal to it, trimmed),
  CONTAINS (the reply contains it, ignoring case) or, by default, SEMANTIC_SIMILARITY
  (the CES 0–4 judge scale, passing at the semantic similarity threshold);
* `agentTransfer`: a hand-over to that agent (a `transfer_to_agent` call naming it, or
  an event written by it);
* `noToolCalls`: the turn called no tool;
* `updatedVariables`: not evaluated, since agents do not report session variables per turn.

`mockToolResponse` is an instruction, not a check, and `skipEvaluation` expectations
are skipped. A scenario's expectations are checked over the whole conversation. The
score is the share of passed expectations among those evaluated; with the default
threshold 1.0 every one must pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import Field

from evalkit.schema.ces_case import CesCaseData, ces_data
from evalkit.criteria.ces.checks import (
    TRANSFER_TOOL,
    CallMatch,
    describe,
    match_calls,
    parameter_correctness,
    response_matches,
    responses_of,
    transferred_to,
)
from evalkit.schema.ces import GoldenExpectation, ScenarioExpectation, last_segment
from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.ces.semantic_similarity import agent_text, combine_samples, parse_similarity, similarity_prompt
from evalkit.criteria.judging.criterion import JudgeCriterion, outcome_with_errors
from evalkit.criteria.judging.single_sample import SingleSampleJudgeOptions
from evalkit.schema.evalset import Invocation
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import final_text, intermediate_texts, tool_calls, user_text

_WORD = {Status.PASSED: "PASS", Status.FAILED: "FAIL", Status.NOT_EVALUATED: "NOT_EVALUATED", Status.ERROR: "ERROR"}


class ExpectationsOptions(CriterionOptions):
    tool_parameter_correctness_threshold: float = Field(
        default=1.0, ge=0.0, le=1.0, description="parameter correctness a toolCall expectation needs to pass"
    )
    semantic_similarity_threshold: int = Field(
        default=3, ge=0, le=4, description="0–4 judge score a semantically compared agentResponse needs to pass"
    )
    judge_model_options: SingleSampleJudgeOptions = Field(
        default_factory=SingleSampleJudgeOptions, description="the judge for semantically compared agent responses"
    )


@dataclass
class Check:
    """One expectation's outcome; `pending` ones wait for the judge."""

    note: str
    kind: str
    turn: int | None
    status: Status = Status.NOT_EVALUATED
    reason: str = ""
    pending: list[tuple[str, str, str]] = field(default_factory=list)  # (user, expected, actual) to judge
    threshold: float = 0.0

    def line(self) -> str:
        return f"{self.note}: {_WORD[self.status]}"

    def to_dict(self) -> dict:
        return {"note": self.note, "kind": self.kind, "turn": self.turn, "status": self.status.value,
                "outcome": _WORD[self.status], "reason": self.reason}


class CesExpectationsCriterion(JudgeCriterion[ExpectationsOptions]):
    name = "ces_expectations"
    description = "CES: each expectation of a golden turn or scenario checked and reported by its note (Note: PASS/FAIL)"
    Options = ExpectationsOptions
    prompt_templates = ("ces_semantic_similarity",)

    @property
    def opts(self) -> ExpectationsOptions:
        return self.options

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        data = ces_data(ctx.case)
        checks: list[Check] = []
        for index, actual in enumerate(ctx.actual):
            checks += self._golden_turn(data, index, actual)
        checks += [self._scenario(data, e, n, ctx.actual) for n, e in enumerate(data.scenario_expectations)]
        await self._judge(ctx, checks)
        return self._outcome(checks, len(ctx.actual))

    # ---- golden turns ------------------------------------------------------------------

    def _golden_turn(self, data: CesCaseData, index: int, actual: Invocation) -> list[Check]:
        expectations = data.turn(index).expectations
        calls = {id(m.expectation): m for m in match_calls(expectations, actual).matches}
        checks: list[Check] = []
        for expectation in expectations:
            if expectation.mock_tool_response is not None or expectation.skip_evaluation:
                continue
            check = Check(describe(expectation, index), expectation.kind, index + 1)
            self._check(check, expectation, actual, data, calls.get(id(expectation)), index)
            checks.append(check)
        return checks

    def _check(self, check: Check, expectation: GoldenExpectation, actual: Invocation, data: CesCaseData,
               match: CallMatch | None, index: int) -> None:
        if expectation.tool_call is not None:
            threshold = data.parameter_threshold(self.opts.tool_parameter_correctness_threshold, expectation)
            if match is None or match.actual is None:
                _set(check, False, f"{expectation.tool_call.tool_name} was not called")
            else:
                _set(check, match.correctness >= threshold,
                     f"parameter correctness {match.correctness:.3g} (needs {threshold:g})")
        elif expectation.tool_response is not None:
            tool = expectation.tool_response.tool_name
            got = responses_of(actual, tool)
            ok = any(response_matches(r.response, expectation.tool_response.response) for r in got)
            _set(check, ok, "" if ok else (f"{tool} returned {got[0].response!r}" if got else f"no response from {tool}"))
        elif expectation.agent_response is not None:
            self._reply(check, expectation, actual, data, index)
        elif expectation.agent_transfer is not None:
            transfer = expectation.agent_transfer
            ok = any(transferred_to(actual, name) for name in {transfer.agent_name, last_segment(transfer.target_agent)})
            _set(check, ok, "" if ok else f"no transfer to {transfer.agent_name}")
        elif expectation.no_tool_calls is not None:
            made = [c for c in tool_calls(actual) if c.name != TRANSFER_TOOL]  # a hand-over is no tool use
            ok = not expectation.no_tool_calls or not made
            _set(check, ok, "" if ok else f"{len(made)} tool call(s) made")
        elif expectation.updated_variables is not None:
            check.reason = "session variables are not reported per turn, so updatedVariables cannot be checked"

    def _reply(self, check: Check, expectation: GoldenExpectation, actual: Invocation, data: CesCaseData,
               index: int) -> None:
        assert expectation.agent_response is not None
        wanted = expectation.agent_response.text()
        mode = expectation.comparison_type or "SEMANTIC_SIMILARITY"
        texts = [*intermediate_texts(actual), final_text(actual)]
        if mode == "EQUALS":
            ok = any(t.strip() == wanted.strip() for t in texts)
            _set(check, ok, "" if ok else f"expected {wanted!r}, got {agent_text(actual)!r}")
        elif mode == "CONTAINS":
            ok = wanted.strip().casefold() in agent_text(actual).casefold()
            _set(check, ok, "" if ok else f"{wanted!r} not in {agent_text(actual)!r}")
        else:
            check.threshold = data.turn_threshold(index, "semantic_similarity_success_threshold",
                                                  self.opts.semantic_similarity_threshold)
            check.pending.append((user_text(actual), wanted, agent_text(actual)))

    # ---- scenarios: checked over the whole conversation -----------------------------------

    def _scenario(self, data: CesCaseData, expectation: ScenarioExpectation, number: int,
                  turns: list[Invocation]) -> Check:
        if expectation.tool_expectation is not None:
            wanted = expectation.tool_expectation.expected_tool_call
            check = Check(f"scenario expectation {number + 1} ({wanted.tool_name})", "tool_call", None)
            threshold = data.parameter_threshold(self.opts.tool_parameter_correctness_threshold)
            best = max((parameter_correctness(c.args, wanted.args) for t in turns for c in tool_calls(t)
                        if c.name == wanted.tool_name), default=None)
            _set(check, best is not None and best >= threshold,
                 f"{wanted.tool_name} was not called" if best is None else f"best parameter correctness {best:.3g}")
            return check
        check = Check(f"scenario expectation {number + 1} (agent response)", "agent_response", None)
        if expectation.agent_response is not None:
            check.threshold = self.opts.semantic_similarity_threshold
            response = expectation.agent_response.text()
            check.pending += [(user_text(t), response, agent_text(t)) for t in turns]
        return check

    # ---- the judge, then the verdict ---------------------------------------------------

    async def _judge(self, ctx: EvalContext, checks: list[Check]) -> None:
        """Ask the judge about every pending reply; a check passes on its best-rated reply."""
        waiting = [(check, item) for check in checks for item in check.pending]
        if not waiting:
            return
        results = await self.sample(ctx, [similarity_prompt(*item) for _, item in waiting])
        rated: dict[int, list[float]] = {}
        for (check, _), samples in zip(waiting, results):
            if samples.error is not None:
                check.status, check.reason = Status.ERROR, samples.error
                continue
            score = combine_samples([parse_similarity(r) for r in samples.texts])
            if score is not None:
                rated.setdefault(id(check), []).append(score)
        for check in checks:
            if not check.pending or check.status is Status.ERROR:
                continue
            scores = rated.get(id(check))
            if not scores:
                check.reason = "the judge's replies held no readable score"
            else:
                best = max(scores)
                _set(check, best >= check.threshold, f"similarity {best:g} of 4 (needs {check.threshold:g})")

    def _outcome(self, checks: list[Check], turn_count: int) -> Outcome:
        turns = [self._turn_score([c for c in checks if c.turn == number]) for number in range(1, turn_count + 1)]
        scenario = [c for c in checks if c.turn is None]
        if scenario and turns:
            # A scenario's expectations concern the whole conversation: reported on its last turn.
            turns[-1] = self._turn_score([*[c for c in checks if c.turn == turn_count], *scenario])
        evaluated = [c for c in checks if c.status in (Status.PASSED, Status.FAILED)]
        score = sum(c.status is Status.PASSED for c in evaluated) / len(evaluated) if evaluated else None
        outcome = Outcome(score=score, status=self.gate(score), invocations=turns,
                          details={"outcomes": [c.line() for c in checks]})
        return outcome_with_errors(turns, outcome)

    def _turn_score(self, checks: list[Check]) -> InvocationScore:
        evaluated = [c for c in checks if c.status in (Status.PASSED, Status.FAILED)]
        if any(c.status is Status.ERROR for c in checks):
            return InvocationScore(score=None, status=Status.ERROR,
                                   details={"expectations": [c.to_dict() for c in checks],
                                            "error": next(c.reason for c in checks if c.status is Status.ERROR)})
        if not evaluated:
            return InvocationScore(score=None, status=Status.NOT_EVALUATED,
                                   details={"expectations": [c.to_dict() for c in checks]} if checks else {})
        score = sum(c.status is Status.PASSED for c in evaluated) / len(evaluated)
        details: dict = {"expectations": [c.to_dict() for c in checks], "outcomes": [c.line() for c in checks]}
        failed = [c for c in checks if c.status is Status.FAILED]
        if failed:
            details["difference"] = "; ".join(f"{c.line()} ({c.reason})" if c.reason else c.line() for c in failed)
        return InvocationScore(score=score, status=self.gate(score), details=details)


def _set(check: Check, ok: bool, reason: str) -> None:
    check.status = Status.PASSED if ok else Status.FAILED
    check.reason = reason
