"""What every LLM-judge criterion shares: asking the judge, sampling, and judge failures.

Criteria never build a model client; they send `JudgeRequest`s to the run's
`JudgeService`, which adds the disk cache, retries and the run-wide concurrency limit.
Here each criterion adds its own limit (`parallelism_limit`, per eval case as in ADK).

A judge call that fails for good is not the agent's fault: the turn it was judging
gets status `error` with the reason, and so does the criterion (and then the case).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, cast

from evalkit.criteria.base import Criterion, EvalContext, OptionsT, Outcome
from evalkit.criteria.judging.options import JudgeModelOptions
from evalkit.errors import JudgeError
from evalkit.schema.judging import Judge, JudgeRequest, MediaNotReadable
from evalkit.schema.media_parts import MediaPart, conversation_media
from evalkit.schema.results import InvocationScore, Status


@dataclass
class Samples:
    """The judge's replies to one prompt, by sample index (None where a call failed)."""

    replies: list[str | None]
    error: str | None = None

    @property
    def texts(self) -> list[str]:
        return [r for r in self.replies if r is not None]


class JudgedOptions(Protocol):
    """What every judge criterion's options hold."""

    judge_model_options: JudgeModelOptions


class JudgeCriterion(Criterion[OptionsT]):
    """Base of the criteria scored by an LLM judge; its options hold `judge_model_options`."""

    uses_judge = True
    # The templates (`prompts/<name>.txt`) the judge's prompts are filled from.
    prompt_templates: ClassVar[tuple[str, ...]] = ()
    # Set when the run's plan is made, if `judge_model_options.calibration` holds the
    # criterion back: why it may not gate (evalkit.criteria.judging.calibration_gate).
    calibration_hold: str | None = None
    _provenance: dict[str, Any] | None = None

    @property
    def judge_options(self) -> JudgeModelOptions:
        return cast(JudgedOptions, self.options).judge_model_options

    def prompt_identity(self) -> list[str]:
        """What the judge is asked, apart from one case's data: the template texts.

        Criteria that build their prompt in code override this with that code's fixed
        text, so that a change of wording changes the prompt hash.
        """
        from evalkit.criteria.judging.prompting import template_text

        return [template_text(name) for name in self.prompt_templates]

    def provenance(self) -> dict[str, Any]:
        """`judge_model` and `prompt_hash`, recorded in each result of this criterion (computed once)."""
        if self._provenance is None:
            from evalkit.criteria.judging.provenance import provenance_of

            self._provenance = provenance_of(self.judge_options.judge_model, self.name, self.prompt_identity(), self.options)
        return self._provenance

    def _service(self, ctx: EvalContext) -> Judge:
        if ctx.judge is None:
            raise JudgeError(f"{self.name} needs a judge model, but no judge service was set up for this run")
        return ctx.judge

    async def ask(self, ctx: EvalContext, prompt: str, sample_index: int = 0,
                  media: Sequence[MediaPart] | None = None) -> str:
        """One judge call; JudgeError once the service has given up on it.

        `media` are the images, sounds and files the judge sees with the prompt: by default
        the whole conversation's (a criterion judging one turn passes that turn's). A judge
        that cannot read one of them raises MediaNotReadable: the criterion is then
        `not_evaluated`, never judged on the text alone.
        """
        options = self.judge_options
        request = JudgeRequest(
            model=options.judge_model,
            prompt=prompt,
            config=options.request_config(),
            sample_index=sample_index,
            media=conversation_media(ctx.actual) if media is None else tuple(media),
        )
        reply = await self._service(ctx).generate(request)
        return reply.text

    async def sample(self, ctx: EvalContext, prompts: Sequence[str],
                     media: Sequence[Sequence[MediaPart]] | None = None) -> list[Samples]:
        """Every prompt `num_samples` times (sample_index 0..n-1), all at once.

        At most `parallelism_limit` of this call's requests are in flight together
        (the judge service adds the run-wide limit). A failed request does not stop
        the others, so each prompt's surviving replies can still be reported.
        `media[i]` goes with `prompts[i]` (by default the whole conversation's, as `ask`).
        """
        options = self.judge_options
        gate = asyncio.Semaphore(options.parallelism_limit)
        shown = [conversation_media(ctx.actual)] * len(prompts) if media is None else list(media)

        async def one(prompt: str, index: int, prompt_media: Sequence[MediaPart] | None) -> str:
            async with gate:
                return await self.ask(ctx, prompt, index, prompt_media)

        count = options.num_samples
        outcomes = await asyncio.gather(
            *(one(prompt, index, prompt_media) for prompt, prompt_media in zip(prompts, shown, strict=True)
              for index in range(count)),
            return_exceptions=True,
        )
        refusal = next((outcome for outcome in outcomes if isinstance(outcome, MediaNotReadable)), None)
        if refusal is not None:  # the whole criterion goes unjudged, not only this prompt
            raise refusal
        results: list[Samples] = []
        for start in range(0, len(outcomes), count):
            replies: list[str | None] = []
            error: str | None = None
            for outcome in outcomes[start : start + count]:
                if isinstance(outcome, JudgeError):
                    replies.append(None)
                    error = error or str(outcome)
                elif isinstance(outcome, BaseException):
                    raise outcome  # a bug, not a judge failure: let the runner report it
                else:
                    replies.append(outcome)
            results.append(Samples(replies, error))
        return results

    def judged_outcome(self, turns: list[InvocationScore], mean: Callable[[Sequence[float]], float | None]) -> Outcome:
        """The case's outcome from its judged turns: `mean` over the turns that got a score, gated.

        The one ending of the per-turn judge criteria. Each passes the mean its reference
        computes (`share`, `mean_or_none`, `statistics.fmean`): they can differ in the
        last bit, and a score at a threshold must come out as the reference's does. If
        any turn's judging failed, the criterion is `error` (`outcome_with_errors`).
        """
        scores = [turn.score for turn in turns if turn.score is not None]
        overall = mean(scores) if scores else None
        return outcome_with_errors(turns, Outcome(score=overall, status=self.gate(overall), invocations=turns))


def share(scores: Sequence[float]) -> float:
    """sum / count: how ADK averages verdicts that are 0 or 1 (final_response_match_v2, safety_v1)."""
    return sum(scores) / len(scores)


def judge_error(reason: str, replies: Sequence[str | None] = (), **details: object) -> InvocationScore:
    """The score of a turn whose judging failed: status `error`, with what was received."""
    return InvocationScore(
        score=None,
        status=Status.ERROR,
        details={"error": reason, "judge_replies": list(replies), **details},
    )


NO_VERDICT = ("the judge answered, but no verdict could be read from its reply (empty, a refusal, or not in "
              "the form asked for); see judge_replies in the result file, or use another judge_model")


def without_verdict(turn: InvocationScore) -> bool:
    """A turn the judge answered (its replies are kept) that still has no score: nothing readable came back."""
    replies, details = turn.details.get("judge_replies") or (), turn.details
    explained = details.get("reason") or details.get("skipped")  # not judged, and why (no sentences to check)
    return turn.score is None and turn.status is Status.NOT_EVALUATED and not explained and \
        any(r is not None for r in replies)


def outcome_with_errors(invocations: list[InvocationScore], outcome: Outcome) -> Outcome:
    """`outcome`, unless a turn's judging failed: then the criterion is `error` too.

    A turn whose judge answered without a readable verdict is such a failure (`error`,
    never a silent `not_evaluated`, which would let the case pass on its other criteria),
    marked `no_verdict` for the run's judge figures. The score is dropped on error: a
    mean over the turns that happened to be judged would look like a verdict on the
    agent, which it is not.
    """
    invocations[:] = [InvocationScore(score=None, status=Status.ERROR,
                                      details={**turn.details, "error": NO_VERDICT, "no_verdict": True})
                      if without_verdict(turn) else turn for turn in invocations]
    failed = [turn for turn in invocations if turn.status is Status.ERROR]
    if not failed:
        return outcome
    return Outcome(
        score=None,
        status=Status.ERROR,
        invocations=invocations,
        details={**outcome.details, "error": failed[0].details.get("error")},
    )
