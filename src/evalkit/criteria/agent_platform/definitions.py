"""What each managed Agent Platform metric checks, in evalkit's own words (docs/criteria.md).

The platform's adaptive-rubric metrics write their checks for each case; evalkit judges a
fixed list of properties per metric that says what the metric's definition asks, so a
score is the share of properties the judge found satisfied, from 0 to 1. Metrics that
take a case's `rubric_groups` judge those instead when the case has them.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.schema.evalset import Rubric, RubricContent


@dataclass(frozen=True)
class MetricDefinition:
    name: str  # the metric's id in agents-cli's `metrics_to_run`, and the criterion's name
    summary: str  # what `evalkit criteria` says the metric measures
    focus: str
    properties: tuple[Rubric, ...]
    needs: tuple[str, ...] = ()  # template values without which the metric cannot be judged
    takes_rubric_groups: bool = True


def _properties(*pairs: tuple[str, str]) -> tuple[Rubric, ...]:
    return tuple(Rubric(rubric_id=i, rubric_content=RubricContent(text_property=text)) for i, text in pairs)


GROUNDING = MetricDefinition(
    name="grounding", summary="every sentence of the answer backed by the case's context",
    focus="whether every statement of the answer rests on the context given with the case",
    properties=_properties(
        ("supported_by_context", "Every factual sentence of the answer is backed by the context; none adds facts "
                                 "that the context does not give."),
        ("no_contradiction", "No sentence of the answer contradicts the context."),
    ),
    needs=("context",), takes_rubric_groups=False)

TOOL_USE_QUALITY = MetricDefinition(
    name="tool_use_quality", summary="tool choice, arguments and order for the last message",
    focus="how the agent chose and called its tools for the last user message",
    properties=_properties(
        ("right_tools", "The agent called the tools the request needed and no tool it did not need."),
        ("right_arguments", "Every argument of every call is correct and comes from the conversation or from "
                            "earlier tool outputs; none is invented."),
        ("sensible_order", "The calls come in an order that makes sense: a call that needs another's output "
                           "comes after it, and no call is repeated without reason."),
        ("outputs_used", "The answer uses the tool outputs faithfully."),
    ))

FINAL_RESPONSE_QUALITY = MetricDefinition(
    name="final_response_quality", summary="the final answer, given the steps taken",
    focus="the quality of the agent's final answer, given the steps it took to reach it",
    properties=_properties(
        ("addresses_request", "The answer addresses what the user asked, completely."),
        ("accurate", "What the answer states is correct, and agrees with the tool outputs the agent received."),
        ("follows_instructions", "The answer respects the constraints the user and the agent's instructions set."),
        ("clear", "The answer is clear and well organised for the user."),
    ))

FINAL_RESPONSE_REFERENCE_FREE = MetricDefinition(
    name="final_response_reference_free", summary="the final answer without a reference",
    focus="the quality of the agent's final answer on its own merits, without a reference answer",
    properties=_properties(
        ("addresses_request", "The answer addresses what the user asked, completely."),
        ("plausible_and_consistent", "Nothing in the answer is implausible or contradicts itself or the "
                                     "conversation."),
        ("clear", "The answer is clear, specific and useful to the user."),
    ))

GENERAL_QUALITY = MetricDefinition(
    name="general_quality", summary="the answer's overall quality",
    focus="the overall quality of the answer",
    properties=_properties(
        ("helpful", "The answer helps the user with what was asked."),
        ("correct", "The answer contains no factual or logical error."),
        ("complete", "The answer covers every part of the request."),
        ("well_written", "The answer is fluent, coherent and appropriately concise."),
        ("follows_instructions", "The answer respects every constraint stated in the request."),
    ))

TEXT_QUALITY = MetricDefinition(
    name="text_quality", summary="fluency, coherence, grammar",
    focus="the quality of the answer's writing: fluency, coherence and grammar",
    properties=_properties(
        ("fluent", "The answer reads naturally, without awkward or broken phrasing."),
        ("coherent", "The answer's ideas follow one another logically."),
        ("grammatical", "The answer has no grammar, spelling or punctuation errors."),
        ("fitting_style", "The tone and length suit the request."),
    ))

INSTRUCTION_FOLLOWING = MetricDefinition(
    name="instruction_following", summary="the constraints of the user's message kept",
    focus="whether the answer keeps to the instructions and constraints in the user's message",
    properties=_properties(
        ("every_instruction", "The answer does everything the user's message asks of it."),
        ("every_constraint", "The answer respects every constraint of the message (format, length, language, "
                             "what to include or leave out)."),
    ))

