"""`hallucinations_v1`: is each sentence the agent wrote backed by its context? (docs/adk-parity.md)

Per text to check (a "step"): a first judge call splits the text into sentences, a
second labels each sentence against the context the agent had. Supported and
not-applicable sentences score 1, unsupported, contradictory and disputed ones 0; the
step scores their mean, the turn the mean of its steps, the case the mean of its turns.

Steps, as in ADK: by default one per turn, the final response, checked against all of
the turn's events. With `evaluate_intermediate_nl_responses`, also every text part of
every event, checked against the events before it. Only recorded events (Form B) give
context; `num_samples` and `parallelism_limit` do not apply (one call at a time).

Unlike ADK, where a failed judge call silently scores the step None, a judge that
fails for good makes the turn (and the criterion) `error`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import Field

from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error
from evalkit.criteria.judging.inputs import events_of, grounding_json, tool_declarations_json
from evalkit.criteria.judging.options import JudgeModelOptions, judge_options_field
from evalkit.criteria.judging.prompting import quote, render
from evalkit.criteria.judging.voting import mean_or_none
from evalkit.errors import JudgeError
from evalkit.schema.content import FunctionCall, FunctionResponse, content_text
from evalkit.schema.evalset import Invocation, InvocationEvent
from evalkit.schema.media_parts import turn_media
from evalkit.schema.results import InvocationScore, Status
from evalkit.schema.views import user_text

_SENTENCE = re.compile(r"<sentence>(.*?)</sentence>", re.DOTALL)
_FIELDS = ("sentence", "label", "rationale", "supporting_excerpt", "contradicting_excerpt")
# The five fields in order, each on its own line; a block runs to the next "sentence:".
_BLOCK = re.compile(
    "\n".join(f"{field}:(.*?)" for field in _FIELDS) + r"(?=\nsentence:|\Z)", re.DOTALL | re.IGNORECASE
)
_SCORE_BY_LABEL = {"supported": 1, "not_applicable": 1, "unsupported": 0, "contradictory": 0, "disputed": 0}


def parse_sentences(reply: str) -> list[str]:
    return _SENTENCE.findall(reply)


def parse_labels(reply: str) -> list[dict[str, str | None]]:
    """The validator's blocks; `null` excerpts become None."""
    blocks = []
    for match in _BLOCK.finditer(reply.strip()):
        values = [value.strip() for value in match.groups()]
        block: dict[str, str | None] = dict(zip(_FIELDS, values))
        for excerpt in ("supporting_excerpt", "contradicting_excerpt"):
            if (block[excerpt] or "").lower() == "null":
                block[excerpt] = None
        blocks.append(block)
    return blocks


def labels_score(blocks: list[dict[str, str | None]]) -> float | None:
    """Mean over sentences with a known label (others are skipped); None if there are none."""
    scores = [_SCORE_BY_LABEL.get((b.get("label") or "").strip().lower()) for b in blocks]
    return mean_or_none(scores)


@dataclass(frozen=True)
class Step:
    text: str
    context: str


def _context(invocation: Invocation, events: list[InvocationEvent]) -> str:
    """What the agent knew when it wrote a text: instructions, prompt, tools, prior events."""
    instructions = ""
    if invocation.app_details is not None:
        instructions = "\n\n".join(
            f"{name}:\n{details.instructions}"
            for name, details in invocation.app_details.agent_details.items()
            if details.instructions
        )
    parts = [
        f"Developer instructions:\n{instructions}\n",
        f"User prompt:\n{user_text(invocation)}\n",
        "Tool definitions:",
        f"{tool_declarations_json(invocation.app_details)}\n",
        "Grounding metadata:",
        f"{grounding_json(events)}\n",
    ]
    for event in events:
        if event.content is None or not event.content.parts:
            continue
        event_parts = event.content.parts
        texts = [p.text for p in event_parts if p.text]
        calls = [_as_adk_dumps(p.function_call, _CALL_FIELDS) for p in event_parts if p.function_call]
        outputs = [_as_adk_dumps(p.function_response, _RESPONSE_FIELDS) for p in event_parts if p.function_response]
        if texts:
            parts.append("\n".join(texts) + "\n")
        # ADK writes these with json.dumps' defaults (non-ASCII escaped): the judge reads the same bytes.
        if calls:
            parts += ["tool_calls:", json.dumps(calls, indent=2) + "\n"]
        if outputs:
            parts += ["tool_outputs:", json.dumps(outputs, indent=2) + "\n"]
    return "\n".join(parts)


# The field order of google.genai's FunctionCall and FunctionResponse, which ADK dumps into the context.
_CALL_FIELDS = ("id", "args", "name", "partial_args", "will_continue")
_RESPONSE_FIELDS = ("will_continue", "scheduling", "parts", "id", "name", "response")


def _as_adk_dumps(part: FunctionCall | FunctionResponse, fields: tuple[str, ...]) -> dict:
    dumped = part.model_dump(mode="json", exclude_none=True)
    return {field: dumped[field] for field in fields if field in dumped}


def steps_of(invocation: Invocation, include_intermediate: bool) -> list[Step]:
    events = events_of(invocation)
    steps: list[Step] = []
    if include_intermediate:
        before: list[InvocationEvent] = []
        for event in events:
            texts = [p.text for p in (event.content.parts or ()) if p.text] if event.content is not None else []
            if texts:
                # Grounding attached to this very event is part of what backs its text.
                seen = [*before, event.model_copy(update={"content": None})] if event.grounding_metadata else before
                context = _context(invocation, seen)
                steps += [Step(text, context) for text in texts]
            before.append(event)
    final = content_text(invocation.final_response)
    if final:
        steps.append(Step(final, _context(invocation, events)))
    return steps


class HallucinationsOptions(CriterionOptions):
    judge_model_options: JudgeModelOptions = judge_options_field(
        "judge_model and judge_model_config; num_samples and parallelism_limit do not apply (one call at a time)"
    )
    evaluate_intermediate_nl_responses: bool = Field(
        default=False, description="also check the texts the agent wrote before its final response"
    )
    include_intermediate_responses_in_final: bool = Field(
        default=False, description="accepted for ADK compatibility; this criterion does not use it"
    )


class HallucinationsCriterion(JudgeCriterion[HallucinationsOptions]):
    name = "hallucinations_v1"
    description = "An LLM judge checks that each sentence of the response is supported by the agent's context"
    Options = HallucinationsOptions
    prompt_templates = ("hallucinations_segmenter", "hallucinations_validator")

    async def _check(self, ctx: EvalContext, invocation: Invocation, step: Step, log: list[str]) -> dict:
        media = turn_media(invocation)
        segmented = await self.ask(ctx, render("hallucinations_segmenter", response=quote("RESPONSE", step.text)),
                                   media=media)
        log.append(segmented)
        sentences = parse_sentences(segmented)
        if not sentences:
            return {"response": step.text, "score": None, "reason": "the judge found no sentences"}
        wrapped = "\n".join(f"<sentence>{s}</sentence>" for s in sentences)
        prompt = render(
            "hallucinations_validator", context=quote("CONTEXT", step.context), sentences=quote("SENTENCES", wrapped)
        )
        validated = await self.ask(ctx, prompt, media=media)
        log.append(validated)
        blocks = parse_labels(validated)
        return {"response": step.text, "score": labels_score(blocks), "sentences": blocks}

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        include_intermediate = self.options.evaluate_intermediate_nl_responses
        invocations: list[InvocationScore] = []
        failure: str | None = None
        for invocation in ctx.actual:
            if failure is not None:
                invocations.append(InvocationScore(status=Status.NOT_EVALUATED, details={"skipped": failure}))
                continue
            steps = steps_of(invocation, include_intermediate)
            log: list[str] = []
            checked: list[dict] = []
            try:
                for step in steps:
                    checked.append(await self._check(ctx, invocation, step, log))
            except JudgeError as error:
                failure = f"not judged: the judge failed on an earlier turn ({error})"
                invocations.append(judge_error(str(error), log, steps=checked))
                continue
            score = mean_or_none(s["score"] for s in checked)
            details: dict = {"steps": checked, "judge_replies": log}
            if score is None and checked and all(step.get("reason") for step in checked):
                details["reason"] = checked[0]["reason"]  # nothing to check, which is not a missing verdict
            invocations.append(InvocationScore(score=score, status=self.gate(score), details=details))
        return self.judged_outcome(invocations, mean_or_none)
