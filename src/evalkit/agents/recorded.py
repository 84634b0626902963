"""No agent: each case's own recorded answers, graded as they stand (agents-cli's `eval grade`).

An Agent Platform case that holds `responses`, or an `agent_data` ending with the agent's
message, already has what the agent said (`EvalCase.recorded_answers`); when a run is
given no agent and every case it runs holds its answers, this agent plays them back.
"""

from __future__ import annotations

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.agents.replay import ReplaySession
from evalkit.errors import AgentError

DESCRIPTION = "the answers the eval cases hold"


class RecordedAnswersAgent(Agent):
    description = DESCRIPTION

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        answers = spec.case.recorded_answers
        where = f"case {spec.case.eval_id!r}"
        if answers is None:
            raise AgentError(f"{where} holds no answer of the agent; give an agent to answer it")
        return ReplaySession(list(answers.turns), f"{where}'s recorded answers")
