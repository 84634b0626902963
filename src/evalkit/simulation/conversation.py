"""Play a conversation scenario: an LLM plays the user and talks to the agent until done.

The loop follows ADK's `LlmBackedUserSimulator` (docs/adk-parity.md, "User simulator"):

1. The turn limit (`max_allowed_invocations`) counts every user message asked for,
   the starting prompt and the reply that ends the conversation included. Reaching it
   ends the conversation normally; it is not an error.
2. The first message is the scenario's `starting_prompt`, sent as written without
   asking a model.
3. Every later message comes from the simulator model, shown the plan, the
   conversation so far (`simulation.history`), the stop signal and the persona.
4. A reply containing `</finished>` (any letter case) ends the conversation; text
   before the signal is not sent to the agent.
5. An empty reply (the model wrote nothing, or only thoughts) ends the case with
   status `error` (exit 3). ADK marks such a case FAILED, as if the agent had
   failed; but the agent did nothing wrong, the simulator did, which is what
   `error` means in evalkit (as for a judge that keeps failing).

Each user message and the agent's answer become one actual invocation, appended to
`actual` as soon as the agent has answered, so when the simulator or the agent fails
midway the conversation up to that point is still in the result file.

The simulator model is called through the run's `JudgeService`, so it has the same
clients, retries, cache and concurrency limit as the judges; when it keeps failing,
`JudgeError` ends the case as `error`. Only `AgentSession.run_turn` (through the
runner's `play_turn`) touches the agent, so every agent adapter works.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from evalkit.errors import JudgeError
from evalkit.schema.content import Content, Part
from evalkit.schema.evalset import ConversationScenario, EvalCase, Invocation
from evalkit.schema.judging import Judge, JudgeRequest
from evalkit.simulation.config import STOP_SIGNAL, LlmBackedUserSimulatorConfig
from evalkit.simulation.history import simulator_history
from evalkit.simulation.personas import resolve_persona
from evalkit.simulation.prompts import simulator_prompt

if TYPE_CHECKING:
    from evalkit.agents.base import AgentSession

PlayTurn = Callable[["AgentSession", Content, int, str], Awaitable[Invocation]]


class Ending(str, Enum):
    STOP_SIGNAL = "stop_signal"
    TURN_LIMIT = "turn_limit"
    REPLAYED = "replayed"  # a recorded conversation was played back; nothing was simulated


@dataclass
class SimulationOutcome:
    """How a simulated conversation ended."""

    ended_by: Ending
    simulator_calls: int  # user messages asked for, the starting prompt included

    def to_dict(self) -> dict[str, Any]:
        return {"ended_by": self.ended_by.value, "simulator_calls": self.simulator_calls}


class UserSimulator:
    """Writes the user's side of one scenario, one message at a time."""

    def __init__(self, scenario: ConversationScenario, config: LlmBackedUserSimulatorConfig,
                 judge: Judge | None, case_id: str):
        self.scenario = scenario
        self.config = config
        self.judge = judge
        self.case_id = case_id
        self.persona = resolve_persona(scenario.user_persona)
        self.calls = 0

    @property
    def limit_reached(self) -> bool:
        limit = self.config.max_allowed_invocations
        return limit >= 0 and self.calls >= limit

    async def next_message(self, conversation: list[Invocation]) -> str | None:
        """The next user message, or None when the simulated user ends the conversation."""
        if self.calls == 0:
            reply = self.scenario.starting_prompt
        else:
            reply = await self._ask(conversation)
        self.calls += 1
        if STOP_SIGNAL in reply.lower():
            return None
        if not reply:
            raise JudgeError(
                f"case {self.case_id!r}, turn {len(conversation) + 1}: the user simulator "
                f"({self.config.model}) returned an empty reply (no text besides any thoughts)"
            )
        return reply

    async def _ask(self, conversation: list[Invocation]) -> str:
        if self.judge is None:
            raise JudgeError(
                f"case {self.case_id!r}: a conversation scenario needs a model to play the user, "
                "but no judge service was set up for this run"
            )
        prompt = simulator_prompt(
            plan=self.scenario.conversation_plan,
            history=simulator_history(conversation, self.config.include_function_calls),
            stop_signal=STOP_SIGNAL,
            persona=self.persona,
            custom_instructions=self.config.custom_instructions,
        )
        request = JudgeRequest(model=self.config.model, prompt=prompt, config=self.config.model_configuration)
        try:
            reply = await self.judge.generate(request)
        except JudgeError as error:
            raise JudgeError(
                f"case {self.case_id!r}, turn {len(conversation) + 1}: the user simulator failed: {error}"
            ) from error
        return reply.text


async def simulate_conversation(
    case: EvalCase,
    simulator_config: dict[str, Any] | None,
    session: AgentSession,
    play_turn: PlayTurn,
    judge: Judge | None,
    actual: list[Invocation],
) -> SimulationOutcome:
    """Run the case's scenario against `session`, appending each turn to `actual` as it happens.

    `simulator_config` is the config's `user_simulator_config` (None: the defaults).
    """
    scenario = case.conversation_scenario
    assert scenario is not None, "simulate_conversation needs a scenario case"
    recorded = session.recorded_turns()
    if recorded is not None:
        for index, turn in enumerate(recorded):
            actual.append(await play_turn(session, turn.user_content, index, case.eval_id))
        return SimulationOutcome(Ending.REPLAYED, 0)

    simulator = UserSimulator(scenario, LlmBackedUserSimulatorConfig.from_raw(simulator_config), judge,
                              case.eval_id)
    while True:
        if simulator.limit_reached:
            return SimulationOutcome(Ending.TURN_LIMIT, simulator.calls)
        message = await simulator.next_message(actual)
        if message is None:
            return SimulationOutcome(Ending.STOP_SIGNAL, simulator.calls)
        user_content = Content(role="user", parts=[Part(text=message)])
        actual.append(await play_turn(session, user_content, len(actual), case.eval_id))
