"""`multi_turn_task_success_v1`, `multi_turn_trajectory_quality_v1`, `multi_turn_tool_use_quality_v1`.

ADK hands these three to the Vertex AI Gen AI evaluation service (docs/adk-parity.md,
"Multi-turn quality criteria"), whose adaptive-rubric metrics write their own checks for each conversation
and return the share of checks passed. evalkit scores them itself, on any judge model
the run can reach (Gemini through google-genai, or an OpenAI-compatible server), with
its own prompt:

* the judge reads the whole conversation once: every user message, the agent's
  texts, tool calls and tool outputs, the agents' instructions and tools, and, for a
  simulated conversation, the plan the simulated user followed;
* it gives a yes/no verdict on a fixed list of properties per criterion (listed
  below), in the rubric format of the rubric-based criteria; "yes" also means the
  property does not apply;
* each property's verdict is voted over `num_samples` replies (ties go to "no"), and
  the score is the share of properties with "yes", from 0 to 1.

As in ADK, only the last turn carries the score; the earlier turns are not
evaluated, and the criterion's score is the last turn's. The scores measure the same
thing as Vertex's but are not Vertex's numbers: the properties are fixed rather than
generated per conversation, so a threshold tuned on Vertex scores may need adjusting.
Unlike ADK, no Google Cloud project or Vertex credentials are needed.
"""

from __future__ import annotations

from typing import ClassVar

from evalkit.criteria.adk.rubric_criterion import vote_on_rubrics
from evalkit.criteria.adk.rubric_multi_turn import agents_overview, dialogue, properties_json
from evalkit.criteria.base import CriterionOptions, EvalContext, Outcome
from evalkit.criteria.judging.criterion import JudgeCriterion, judge_error, outcome_with_errors
from evalkit.criteria.judging.options import JudgeModelOptions, judge_options_field
from evalkit.criteria.judging.prompting import quote, render
from evalkit.criteria.judging.voting import mean_or_none
from evalkit.schema.evalset import Rubric, RubricContent
from evalkit.schema.results import InvocationScore, Status


class MultiTurnOptions(CriterionOptions):
    judge_model_options: JudgeModelOptions = judge_options_field()


def _properties(*pairs: tuple[str, str]) -> tuple[Rubric, ...]:
    return tuple(Rubric(rubric_id=i, rubric_content=RubricContent(text_property=text)) for i, text in pairs)


class MultiTurnConversationCriterion(JudgeCriterion[MultiTurnOptions]):
    """The whole conversation judged once against the criterion's fixed properties."""

    Options = MultiTurnOptions
    focus: ClassVar[str]
    properties: ClassVar[tuple[Rubric, ...]]
    prompt_templates = ("multi_turn_quality",)

    def prompt_identity(self) -> list[str]:
        return [*super().prompt_identity(), self.focus, properties_json(self.properties)]

    def build_prompt(self, ctx: EvalContext) -> str:
        instructions, tools = agents_overview(ctx.actual)
        scenario = ctx.scenario
        return render(
            "multi_turn_quality",
            focus=self.focus,
            user_goal=quote("USER GOAL", scenario.conversation_plan if scenario is not None else ""),
            agent_instructions=quote("AGENT INSTRUCTIONS", instructions),
            tool_definitions=quote("AGENT TOOLS", tools),
            dialogue=quote("CONVERSATION", dialogue(ctx.actual)),
            properties=properties_json(self.properties),
        )

    async def evaluate(self, ctx: EvalContext) -> Outcome:
        turns = len(ctx.actual)
        invocations = [InvocationScore(score=None, status=Status.NOT_EVALUATED) for _ in range(turns)]
        (samples,) = await self.sample(ctx, [self.build_prompt(ctx)])
        if samples.error is not None:
            invocations[-1] = judge_error(samples.error, samples.replies)
            return outcome_with_errors(invocations, Outcome(score=None, status=Status.ERROR, invocations=invocations))
        chosen, details = vote_on_rubrics(samples.texts, self.properties)
        score = mean_or_none(v.score for v in chosen)
        details["judge_replies"] = samples.replies
        invocations[-1] = InvocationScore(score=score, status=self.gate(score), details=details)
        return outcome_with_errors(invocations, Outcome(
            score=score,
            status=self.gate(score),
            invocations=invocations,
            details={"rubric_scores": [{"rubric_id": v.rubric_id, "score": v.score} for v in chosen]},
        ))


class MultiTurnTaskSuccessCriterion(MultiTurnConversationCriterion):
    name = "multi_turn_task_success_v1"
    description = "An LLM judge decides whether the agent got done what the user wanted over the conversation"
    focus = "whether, by the end of the conversation, the agent accomplished what the user wanted"
    properties = _properties(
        ("understood_goals", "The agent understood what the user wanted, including requests the user added or "
                             "changed during the conversation."),
        ("goals_accomplished", "By the end of the conversation every request of the user has been carried out, or "
                               "the agent has truthfully explained why it could not be and offered what it could."),
        ("truthful_outcome", "The agent reported the outcome of each request accurately: it never claimed that "
                             "something was done, found or booked when the conversation (tool outputs included) "
                             "does not show it."),
        ("no_unwanted_actions", "The agent took no action that the user did not ask for or agree to."),
    )


class MultiTurnTrajectoryQualityCriterion(MultiTurnConversationCriterion):
    name = "multi_turn_trajectory_quality_v1"
    description = "An LLM judge rates the path the agent took through the conversation"
    focus = "the path the agent took through the conversation: how it got to the outcome, turn by turn"
    properties = _properties(
        ("purposeful_turns", "Every agent turn moves the conversation toward the user's goals; the agent does not "
                             "wander off topic or pad its replies."),
        ("no_needless_repetition", "The agent does not ask again for information the user already gave, nor redo "
                                   "steps it had already completed."),
        ("clarifies_when_needed", "The agent asks for missing or ambiguous information before acting on it, "
                                  "instead of guessing."),
        ("consistent", "What the agent says is consistent across its turns and with the tool outputs it received."),
        ("recovers_from_problems", "When something goes wrong (an error, a misunderstanding, a correction from the "
                                   "user), the agent acknowledges it and recovers, or explains what it cannot do."),
    )


class MultiTurnToolUseQualityCriterion(MultiTurnConversationCriterion):
    name = "multi_turn_tool_use_quality_v1"
    description = "An LLM judge rates how the agent used its tools over the conversation"
    focus = "how the agent used its tools over the conversation"
    properties = _properties(
        ("needed_tools_called", "The agent called the tools that the user's requests needed, when they were needed."),
        ("no_unneeded_calls", "The agent made no tool call that the requests did not need, and did not repeat a "
                              "call without reason."),
        ("grounded_arguments", "Every tool argument is correct and comes from what the user said or from earlier "
                               "tool outputs; none is invented."),
        ("outputs_used_correctly", "The agent used the tool outputs correctly in its replies and its later calls, "
                                   "without misreporting them."),
        ("handles_tool_errors", "When a tool returned an error or an unexpected result, the agent handled it "
                                "sensibly (retrying with corrected input, or telling the user)."),
    )

