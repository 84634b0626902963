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
    def __init__(self, turns: list[Invocation], where: str):
        self.turns = turns
        self.where = where

    def recorded_turns(self) -> list[Invocation]:
        return self.turns

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        if index >= len(self.turns):
            raise AgentError(f"{self.where}: the recorded run has only {len(self.turns)} turns")
        return self.turns[index]


class ReplayAgent(Agent):
    def __init__(self, recorded: dict[tuple[str, str], list[dict[str, Any]]], source: str,
                 cases: list[ScoredCase] | None = None):
        self.recorded = recorded
        self.cases = cases or []  # the whole record, for `evalkit rescore`
        self.description = f"replay:{source}"

    @classmethod
    def from_file(cls, path: str) -> ReplayAgent:
        from evalkit.results.reader import read_scored_run

        run = read_scored_run(Path(path))
        return cls({key: case.actual for key, case in run.cases.items()}, path, list(run.cases.values()))

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        case_id = spec.case.eval_id
        turns = self.recorded.get((spec.eval_set_id, case_id))
        if turns is None:  # fall back to the eval id alone (sets renamed between runs)
            turns = next((t for (_, eid), t in self.recorded.items() if eid == case_id), None)
        where = f"{self.description}: case {case_id!r}"
        if turns is None:
            raise AgentError(f"{where}: not in the recorded run")
        return ReplaySession([Invocation.model_validate(t) for t in turns], where)
