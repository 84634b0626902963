"""`ces_semantic_similarity`: CES's 0–4 judge scale for the agent's reply in a golden turn.

Per turn, a judge rates how close in meaning the agent's reply (its intermediate and
final texts) is to the turn's expected `agentResponse` text (those compared by meaning,
CES's default, not by EQUALS or CONTAINS): 4 same meaning, 3 nearly
the same, 2 partly, 1 barely related, 0 unrelated or contradictory. A turn passes at
`semanticSimilaritySuccessThreshold` (default 3, overridable per evaluation and turn);
the case passes only if every judged turn does, as a CES golden does. The case score
is the mean of the turn scores. Turns without an expected reply are not judged.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence

from pydantic import Field

from evalkit.schema.ces_case import ces_data
from evalkit.schema.ces import GoldenExpectation
from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error, outcome_with_errors
from evalkit.criteria.judging.prompting import quote, render
from evalkit.criteria.judging.single_sample import SingleSampleJudgeOptions
from evalkit.schema.evalset import Invocation
from evalkit.schema.media_parts import turn_media
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import response_text, user_text

_SCORE_FIELD = re.compile(r'"score"\s*:\s*"?\s*([0-4])(?:\.0+)?\s*"?\s*[,}\n]')
_SCORE_LINE = re.compile(r"\bscore\s*[:=]\s*\**\s*([0-4])\b", re.IGNORECASE)


def parse_similarity(reply: str) -> int | None:
    """The 0–4 score in a judge reply: the JSON `score` field, else a `Score: N` line; None if absent."""
    found = _SCORE_FIELD.findall(reply) or _SCORE_LINE.findall(reply)
    return int(found[-1]) if found else None


def combine_samples(scores: Sequence[int | None]) -> float | None:
    """The median of the readable scores (the lower one of the middle two); None if none were readable."""
    readable = [s for s in scores if s is not None]
    return float(statistics.median_low(readable)) if readable else None


def similarity_prompt(user: str, expected: str, actual: str) -> str:
    return render(
        "ces_semantic_similarity",
        user_message=quote("USER MESSAGE", user),
        expected_reply=quote("EXPECTED REPLY", expected),
        actual_reply=quote("ACTUAL REPLY", actual),
    )


def agent_text(invocation: Invocation) -> str:
    return response_text(invocation, include_intermediate=True)


def expected_reply(expectations: list[GoldenExpectation]) -> str | None:
    """The turn's expected reply: its semantically compared agentResponse texts, newline-joined."""
    texts = [e.agent_response.text() for e in expectations if e.compared_by_meaning and e.agent_response is not None]
    return "\n".join(texts) if texts else None


class SemanticSimilarityOptions(CriterionOptions):
    judge_model_options: SingleSampleJudgeOptions = Field(
        default_factory=SingleSampleJudgeOptions,
        description="the judge model and sampling; with several samples the median score counts",
    )


class CesSemanticSimilarityCriterion(JudgeCriterion[SemanticSimilarityOptions]):
    name = "ces_semantic_similarity"
    description = "CES: a judge rates the agent's reply against the expected one from 0 (unrelated) to 4 (same meaning)"
    Options = SemanticSimilarityOptions
    prompt_templates = ("ces_semantic_similarity",)
    score_range = (0.0, 4.0)

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert self.threshold is not None
        data = ces_data(ctx.case)
        judged: list[int] = []
        prompts: list[str] = []
        for index, actual in enumerate(ctx.actual):
            reference = expected_reply(data.turn(index).expectations)
            if reference is not None:
                judged.append(index)
                prompts.append(similarity_prompt(user_text(actual), reference, agent_text(actual)))
        turns = [InvocationScore(score=None, status=Status.NOT_EVALUATED) for _ in ctx.actual]
        shown = [turn_media(ctx.actual[index]) for index in judged]
        for index, samples in zip(judged, await self.sample(ctx, prompts, shown)):
            if samples.error is not None:
                turns[index] = judge_error(samples.error, samples.replies)
                continue
            votes = [parse_similarity(reply) for reply in samples.texts]
            score = combine_samples(votes)
            threshold = data.turn_threshold(index, "semantic_similarity_success_threshold", self.threshold)
            status = Status.NOT_EVALUATED if score is None else Status.PASSED if score >= threshold else Status.FAILED
            details: dict = {"votes": votes, "threshold": threshold, "judge_replies": samples.replies}
            if status is Status.FAILED:
                details["expected"] = expected_reply(data.turn(index).expectations)
                details["actual"] = agent_text(ctx.actual[index])
            turns[index] = InvocationScore(score=score, status=status, details=details)
        scores = [t.score for t in turns if t.score is not None]
        overall = sum(scores) / len(scores) if scores else None
        statuses = [t.status for t in turns]
        verdict = Status.FAILED if Status.FAILED in statuses else Status.PASSED if Status.PASSED in statuses \
            else Status.NOT_EVALUATED
        return outcome_with_errors(turns, Outcome(score=overall, status=verdict, invocations=turns))
