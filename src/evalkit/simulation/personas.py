"""User personas: how the simulated user behaves, and what its judge counts as a slip.

A persona is a description plus behaviours. Each behaviour tells the simulator what
to do (`behavior_instructions`) and tells per_turn_user_simulator_quality_v1 what a
violation looks like (`violation_rubrics`). The three built-in personas carry ADK's
ids and the same mix of behaviours (docs/adk-parity.md, "User simulator"), described in our own
words. Texts may use `{{ stop_signal }}`, filled in when a prompt is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from evalkit.schema.evalset import BUILT_IN_PERSONAS, UserBehavior, UserPersona

# -- behaviours ------------------------------------------------------------

_COMPLETED_GOAL_AGAIN = "The message brings back a goal that was already completed earlier in the conversation."
_DETAILS_FOR_DONE_GOAL = "The message repeats details for a goal that is already done."
_SEVERAL_GOALS = "The message asks for more than one goal of the plan at once."
_ANSWER_FROM_PLAN = "Answer the agent's questions with information from the plan."
_NOTHING_UNASKED = "Do not volunteer information the agent did not ask for."
_NEVER_INVENT = "If the plan does not hold what the agent asks for, say you don't know; never make it up."
_MOVE_ON = "When the agent has done what you asked, bring up the next item of the plan."
_SKIP_DONE = "Leave out items the agent has already taken care of."
_TONE_DRIFT = "The message's tone does not match the user's earlier messages."

ADVANCE_WITH_DETAILS = UserBehavior(
    name="Move on, with every detail up front",
    description=(
        "The user follows the plan. When they bring up a new item, they say what they want "
        "and give all the details from the plan that the agent will need for it."
    ),
    behavior_instructions=[
        _MOVE_ON,
        _SKIP_DONE,
        "When you bring up an item, state the goal and include every detail of it that the plan gives.",
    ],
    violation_rubrics=[
        _COMPLETED_GOAL_AGAIN,
        _DETAILS_FOR_DONE_GOAL,
        "The message goes along with a change of topic, or a task, that the plan does not contain.",
        "The message makes up a goal that is not in the plan.",
        "The message makes up details (a phone number, an address, a date) that the plan does not give.",
        "The message names a goal but leaves out details the plan gives, so the agent has to ask for them.",
        _SEVERAL_GOALS,
    ],
)

ADVANCE_GOAL_ONLY = UserBehavior(
    name="Move on, goal first",
    description=(
        "The user follows the plan but lets the agent lead: they say what they want in broad "
        "terms and wait for the agent to ask for the specifics. They may stray from the plan "
        "when the agent asks them to."
    ),
    behavior_instructions=[
        _MOVE_ON,
        _SKIP_DONE,
        "When you bring up an item, state only what you want to achieve, not its details.",
        "Give a detail only once the agent asks for it.",
    ],
    violation_rubrics=[
        _COMPLETED_GOAL_AGAIN,
        _DETAILS_FOR_DONE_GOAL,
        "The message makes up a goal found neither in the plan nor in the agent's messages.",
        "The message makes up details that neither the plan nor the agent's messages give.",
        "The message gives specific details (contents, addresses, numbers) before the agent asked for them.",
        _SEVERAL_GOALS,
    ],
)

ANSWER_ON_TOPIC = UserBehavior(
    name="Answer only questions about the task",
    description=(
        "The user answers the agent's questions that serve the goals of the plan and ignores "
        "small talk. If nothing the agent asked is about the task, the user steers back to the plan."
    ),
    behavior_instructions=[
        _ANSWER_FROM_PLAN,
        _NOTHING_UNASKED,
        _NEVER_INVENT,
        "Do not answer questions that have nothing to do with the goals of the plan.",
    ],
    violation_rubrics=[
        "The agent asked something unrelated to the goals of the plan and the message answers it.",
    ],
)

ANSWER_EVERYTHING = UserBehavior(
    name="Answer every question",
    description="The user responds to every question the agent asks, small talk included.",
    behavior_instructions=[
        _ANSWER_FROM_PLAN,
        _NOTHING_UNASKED,
        _NEVER_INVENT + " Admit that you do not have that information.",
    ],
    violation_rubrics=[
        "The agent asked one or more questions and the message leaves at least one of them unanswered.",
        "The agent asked for something the plan does not hold and the message invents an answer "
        "instead of saying the user does not know.",
    ],
)

CORRECT_MISTAKES = UserBehavior(
    name="Point out the agent's mistakes",
    description="The user notices when the agent is wrong and says so.",
    behavior_instructions=[
        "If the agent says something wrong or illogical, challenge it.",
        "If the agent did something wrong, ask it to put it right.",
    ],
    violation_rubrics=[
        "The agent gave wrong information and the message carries on as if it were right.",
        "The agent acted on a risky assumption (for example, sending a message without asking what "
        "it should say) and the message lets it pass.",
    ],
)

NEVER_CORRECT = UserBehavior(
    name="Leave the agent's mistakes uncorrected",
    description=(
        "The user cannot tell the agent how to fix things: when the agent says something wrong "
        "or illogical, the user ends the conversation."
    ),
    behavior_instructions=[
        "If the agent says something wrong or illogical, end the conversation with {{ stop_signal }}.",
    ],
    violation_rubrics=["The agent made a mistake or an assumption and the message corrects it."],
)

RETRY_ONCE = UserBehavior(
    name="Help the agent once after a failure",
    description=(
        "When the agent fails (an action it could not carry out, such as a broken tool call, or a "
        "reply that the plan needed and did not get), the user helps it try again, but only once "
        "in the whole conversation. Answering the agent's clarifying questions is not helping it "
        "after a failure. Count the agent's failures in the history."
    ),
    behavior_instructions=[
        "After the agent's first failure, help it try again.",
        "Do this only once per conversation: if the history shows you already helped after a "
        "failure, do not do it again.",
    ],
    violation_rubrics=[
        "The message ends the conversation right after the agent's first failure.",
        "The agent has just failed for the second time and the message continues without {{ stop_signal }}.",
        "After the agent's second failure, the message keeps the conversation going, or keeps "
        "working on the failures, instead of using {{ stop_signal }}.",
    ],
)

_FAILURE = (
    "A failure is an action the agent could not carry out (such as a broken tool call) or a reply "
    "that the plan needed and did not get; a clarifying question is not a failure."
)
_END_WHEN_DONE = "End the conversation only when one of the conditions holds, never earlier."
_WAIT_FOR_CONFIRMATION = "If you end because all goals are done, wait until the agent has confirmed every one of them."
_HOW_TO_END = "To end the conversation, write {{ stop_signal }} in your message."
_MISSED_END = "One of the conditions holds but the message does not contain {{ stop_signal }}."
_EARLY_END = "The message contains {{ stop_signal }} but none of the conditions holds."

END_AFTER_SECOND_FAILURE = UserBehavior(
    name="End the conversation at the right time",
    description=(
        "The conversation is over when any of these holds:\n"
        "- the agent has confirmed that every goal of the plan is done;\n"
        "- the agent has handed the user over to a human;\n"
        "- the agent has failed twice.\n" + _FAILURE
    ),
    behavior_instructions=[
        _END_WHEN_DONE,
        _WAIT_FOR_CONFIRMATION,
        _HOW_TO_END,
        "Keep count of the agent's failures in the history; the second one ends the conversation.",
    ],
    violation_rubrics=[_MISSED_END, _EARLY_END],
)

END_AFTER_FIRST_FAILURE = UserBehavior(
    name="End the conversation at the right time",
    description=(
        "The conversation is over when any of these holds:\n"
        "- the agent has confirmed that every goal of the plan is done;\n"
        "- the agent has handed the user over to a human;\n"
        "- the agent has failed (once is enough).\n" + _FAILURE
    ),
    behavior_instructions=[
        _END_WHEN_DONE,
        _WAIT_FOR_CONFIRMATION,
        _HOW_TO_END,
        "If the agent's last message shows a failure, end the conversation.",
    ],
    violation_rubrics=[
        _MISSED_END,
        _EARLY_END,
        "The agent has just failed and the message continues without {{ stop_signal }}.",
        "After a failure of the agent, the message tries to keep the conversation going without {{ stop_signal }}.",
    ],
)

TONE_PROFESSIONAL = UserBehavior(
    name="Professional tone",
    description="The user writes clearly and precisely, as at work. Writing {{ stop_signal }} is fine.",
    behavior_instructions=[
        "Write clear, precise sentences.",
        "No slang, casual abbreviations, emojis, pleasantries or personal asides.",
    ],
    violation_rubrics=[
        'The message uses slang ("gonna", "lol"), casual abbreviations ("btw", "pls") or emojis.',
        "The message spends words on pleasantries or personal asides.",
        "The message is a long block of text where one direct sentence would do.",
        _TONE_DRIFT,
    ],
)

TONE_CASUAL = UserBehavior(
    name="Casual tone",
    description=(
        "The user sounds like a person chatting, not like a form being filled in. "
        "Writing {{ stop_signal }} is fine."
    ),
    behavior_instructions=[
        "Write the way people talk in a relaxed chat.",
        "Avoid stiff or overly polite wording.",
        "Avoid bare commands: frame requests the way a person would.",
    ],
    violation_rubrics=[
        "The message is a bare command with no conversational framing.",
        "The message is stiff or overly polite.",
        "The message is a long block of text where a short sentence would do.",
        _TONE_DRIFT,
    ],
)

# -- personas --------------------------------------------------------------

EXPERT = UserPersona(
    id="EXPERT",
    description=(
        "An expert knows exactly what they want and uses the agent as a tool to get it done as "
        "quickly as possible. They have little patience for small talk or needless questions."
    ),
    behaviors=[ADVANCE_WITH_DETAILS, ANSWER_ON_TOPIC, CORRECT_MISTAKES, RETRY_ONCE,
               END_AFTER_SECOND_FAILURE, TONE_PROFESSIONAL],
)

NOVICE = UserPersona(
    id="NOVICE",
    description=(
        "A novice has a problem they do not fully understand and leans on the agent to guide "
        "them. They answer the agent's questions patiently, but cannot work out what went wrong "
        "when the agent fails, nor correct it."
    ),
    behaviors=[ADVANCE_GOAL_ONLY, NEVER_CORRECT, ANSWER_EVERYTHING, END_AFTER_FIRST_FAILURE, TONE_CASUAL],
)

EVALUATOR = UserPersona(
    id="EVALUATOR",
    description="An evaluator wants to find out whether the agent can accomplish the goals of the plan.",
    behaviors=[ADVANCE_WITH_DETAILS, ANSWER_ON_TOPIC, END_AFTER_FIRST_FAILURE, NEVER_CORRECT, TONE_CASUAL],
)

BUILT_IN: dict[str, UserPersona] = {p.id: p for p in (EXPERT, NOVICE, EVALUATOR)}
assert tuple(BUILT_IN) == BUILT_IN_PERSONAS, "the schema's persona ids and the built-in personas must agree"


def resolve_persona(value: UserPersona | str | None) -> UserPersona | None:
    """A scenario's `user_persona` as a persona: built-in ids are looked up."""
    if value is None or isinstance(value, UserPersona):
        return value
    return BUILT_IN[value]  # the schema has already rejected unknown ids


# -- what custom templates see -----------------------------------------------


@dataclass(frozen=True)
class BehaviorView:
    """A behaviour as Jinja templates see it; the two methods match ADK's, for its templates."""

    name: str
    description: str
    behavior_instructions: tuple[str, ...]
    violation_rubrics: tuple[str, ...]

    def get_behavior_instructions_str(self) -> str:
        return bullet_list(self.behavior_instructions)

    def get_violation_rubrics_str(self) -> str:
        return bullet_list(self.violation_rubrics)


@dataclass(frozen=True)
class PersonaView:
    """`{{ persona }}` in a custom template: attributes for loops, readable text when printed."""

    id: str
    description: str
    behaviors: tuple[BehaviorView, ...]

    def __str__(self) -> str:
        blocks = [self.description]
        for behavior in self.behaviors:
            blocks.append(f"{behavior.name}: {behavior.description}\n{behavior.get_behavior_instructions_str()}")
        return "\n\n".join(blocks)


def persona_view(persona: UserPersona, fill: Callable[[str], str] = str) -> PersonaView:
    """The persona with `fill` applied to every text (it fills in `{{ stop_signal }}`)."""
    return PersonaView(
        id=persona.id,
        description=fill(persona.description),
        behaviors=tuple(
            BehaviorView(
                fill(b.name),
                fill(b.description),
                tuple(fill(i) for i in b.behavior_instructions),
                tuple(fill(v) for v in b.violation_rubrics),
            )
            for b in persona.behaviors
        ),
    )


def bullet_list(items: tuple[str, ...] | list[str]) -> str:
    return "\n".join(f"  * {item}" for item in items)
