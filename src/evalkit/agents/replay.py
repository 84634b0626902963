"""`replay:RESULT.json`: no agent; re-score the actual turns stored in an earlier result.

Reads evalkit result files and ADK's `*.evalset_result.json` alike (through
`evalkit.results.reader`), so a run recorded by either tool can be scored again under a
different config.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.errors import AgentError
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation

if TYPE_CHECKING:
    from evalkit.results.reader import ScoredCase


class ReplaySession(AgentSession):
    def __init__(self, turns: list[Invocation], where: str, state: dict[str, Any] | None = None):
        self.turns = turns
        self.where = where
        self.state = state
        self.no_state_reason = "the recorded run holds no final session state for this case"

    async def final_state(self) -> dict[str, Any] | None:
        return self.state

    def recorded_turns(self) -> list[Invocation]:
        return self.turns

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        if index >= len(self.turns):
            raise AgentError(f"{self.where}: the recorded run has only {len(self.turns)} turns")
        return self.turns[index]


class ReplayAgent(Agent):
    def __init__(self, recorded: dict[tuple[str, str], list[dict[str, Any]]], source: str,
                 cases: list[ScoredCase] | None = None, states: dict[tuple[str, str], dict[str, Any]] | None = None):
        self.recorded = recorded
        self.cases = cases or []  # the whole record, for `evalkit rescore`
        self.states = states or {}  # evalkit result files keep each case's final state
        self.description = f"replay:{source}"

    @classmethod
    def from_file(cls, path: str) -> ReplayAgent:
        from evalkit.results.reader import read_scored_run

        run = read_scored_run(Path(path))
        states = {key: case.final_state for key, case in run.cases.items() if case.final_state is not None}
        return cls({key: case.actual for key, case in run.cases.items()}, path, list(run.cases.values()), states)

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        case_id = spec.case.eval_id
        key: tuple[str, str] | None = (spec.eval_set_id, case_id)
        if key not in self.recorded:  # fall back to the eval id alone (sets renamed between runs)
            key = next((k for k in self.recorded if k[1] == case_id), None)
        turns = self.recorded.get(key) if key is not None else None
        where = f"{self.description}: case {case_id!r}"
        if turns is None:
            raise AgentError(f"{where}: not in the recorded run")
        state = self.states.get(key) if key is not None else None
        return ReplaySession([Invocation.model_validate(t) for t in turns], where, state)
