"""`final_response_match_v2`: an LLM judge says whether the answer matches the reference (docs/adk-parity.md).

The judge sees the expected turn's user message, the agent's answer and the reference
answer, and replies with JSON holding `is_the_agent_response_valid`. Each turn is asked
`num_samples` times and voted on; the case score is the share of judged turns voted
valid. The label is read with ADK's regex-level rules, quirks included (E15), so the
same replies give ADK's scores:

* the label is case-sensitive: `valid`/`true` are valid; `invalid`, `almost`, `false`,
  `partially_valid`, `partially` are invalid; anything else (`Valid`, `VALID`) is not
  found and does not vote;
* a reply using `is_the_agent_response_invalid` instead counts as invalid only for
  `true`/`invalid`, and as valid for any other value;
* a tie goes to invalid; a turn where no reply had a readable label is not evaluated.
"""

from __future__ import annotations

import re
from enum import Enum

from evalkit.criteria.base import EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error, share
from evalkit.criteria.judging.options import JudgedResponseOptions
from evalkit.criteria.judging.prompting import quote, render
from evalkit.criteria.judging.voting import binary_majority
from evalkit.schema.evalset import Invocation
from evalkit.schema.media_parts import turn_media
from evalkit.schema.results import InvocationScore
from evalkit.schema.views import response_text, user_text


class Label(str, Enum):
    VALID = "valid"
    INVALID = "invalid"
    NOT_FOUND = "not_found"

    @property
    def score(self) -> float | None:
        return {Label.VALID: 1.0, Label.INVALID: 0.0}.get(self)


_INVALID_WORDS = frozenset({"invalid", "almost", "false", "partially_valid", "partially valid", "partially"})
_VALID_WORDS = frozenset({"valid", "true"})


def _label_field(key: str) -> re.Pattern[str]:
    # The key, then the value: optionally in [brackets] and "quotes", a run of characters
    # without quotes, `]`, `^` or whitespace, which must be followed (after an optional
    # quote, whitespace and `]`) by a comma, a newline or a closing brace.
    return re.compile('"' + key + r'":\s*\[*\s*"*([^"^\]\s]*)"*\s*\]*\s*[,\n}]')


_VALID_FIELD = _label_field("is_the_agent_response_valid")
_INVALID_FIELD = _label_field("is_the_agent_response_invalid")


def _captured(match: re.Match[str]) -> str:
    return match.group(1).strip().rstrip(",}")


def parse_label(reply: str) -> Label:
    """The verdict in one judge reply, read as ADK reads it."""
    match = _VALID_FIELD.search(reply)
    if match is not None:
        word = _captured(match)
        if word in _INVALID_WORDS:
            return Label.INVALID
        return Label.VALID if word in _VALID_WORDS else Label.NOT_FOUND
    match = _INVALID_FIELD.search(reply)
    if match is not None:
        return Label.INVALID if _captured(match) in ("true", "invalid") else Label.VALID
    return Label.NOT_FOUND


class FinalResponseMatchV2Criterion(JudgeCriterion[JudgedResponseOptions]):
    name = "final_response_match_v2"
    description = "An LLM judge decides whether the final response is as correct as the expected one"
    Options = JudgedResponseOptions
    prompt_templates = ("final_response_match_v2",)
    requires_expected = True

    def _answer(self, invocation: Invocation) -> str:
        return response_text(invocation, self.options.include_intermediate_responses_in_final)

    def build_prompt(self, actual: Invocation, expected: Invocation) -> str:
        return render(
            "final_response_match_v2",
            user_prompt=quote("USER PROMPT", user_text(expected)),
            agent_response=quote("AGENT RESPONSE", self._answer(actual)),
            reference_response=quote("REFERENCE RESPONSE", self._answer(expected)),
        )

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        assert ctx.expected is not None
        prompts = [self.build_prompt(a, e) for a, e in zip(ctx.actual, ctx.expected)]
        invocations: list[InvocationScore] = []
        for samples in await self.sample(ctx, prompts, [turn_media(turn) for turn in ctx.actual]):
            if samples.error is not None:
                invocations.append(judge_error(samples.error, samples.replies))
                continue
            labels = [parse_label(reply) for reply in samples.texts]
            score = binary_majority([label.score for label in labels])
            invocations.append(InvocationScore(
                score=score,
                status=self.gate(score),
                details={"votes": [label.value for label in labels], "judge_replies": samples.replies},
            ))
        # ADK: the share of valid turns among the turns that got a verdict.
        return self.judged_outcome(invocations, share)
