"""`replay:RESULT.json`: no agent; re-score the actual turns stored in an earlier result.

Reads evalkit result files and ADK's `*.evalset_result.json` alike, so a run recorded
by either tool can be scored again under a different config.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.errors import AgentError, AgentLoadError, InputError
from evalkit.loading.documents import read_document
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation


class ReplaySession(AgentSession):
    def __init__(self, turns: list[Invocation], where: str, state: dict[str, Any] | None = None):
        self.turns = turns
        self.where = where
        self.state = state
        self.no_state_reason = "the recorded run holds no final session state for this case"

    async def final_state(self) -> dict[str, Any] | None:
        return self.state

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        if index >= len(self.turns):
            raise AgentError(f"{self.where}: the recorded run has only {len(self.turns)} turns")
        return self.turns[index]


class ReplayAgent(Agent):
    def __init__(self, recorded: dict[tuple[str, str], list[dict[str, Any]]], source: str,
                 states: dict[tuple[str, str], dict[str, Any]] | None = None):
        self.recorded = recorded
        self.states = states or {}  # evalkit result files keep each case's final state
        self.description = f"replay:{source}"

    @classmethod
    def from_file(cls, path: str) -> ReplayAgent:
        try:
            data = read_document(Path(path))
        except InputError as error:
            raise AgentLoadError(error.problems) from None
        if isinstance(data, str):  # ADK's older double-encoded result files
            import json

            data = json.loads(data)
        recorded: dict[tuple[str, str], list[dict[str, Any]]] = {}
        states: dict[tuple[str, str], dict[str, Any]] = {}
        if isinstance(data, dict) and "cases" in data:
            for case in data["cases"]:
                turns = [r.get("actual") for r in case.get("invocations", [])]
                key = (case.get("eval_set_id", ""), case["eval_id"])
                recorded[key] = [t for t in turns if t]
                if isinstance(case.get("final_state"), dict):
                    states[key] = case["final_state"]
        elif isinstance(data, dict) and ("eval_case_results" in data or "evalCaseResults" in data):
            for case in data.get("eval_case_results") or data.get("evalCaseResults") or []:
                per_turn = case.get("eval_metric_result_per_invocation") or case.get("evalMetricResultPerInvocation") or []
                turns = [t.get("actual_invocation") or t.get("actualInvocation") for t in per_turn]
                set_id = case.get("eval_set_id") or case.get("evalSetId") or data.get("eval_set_id", "")
                recorded[(set_id, case.get("eval_id") or case.get("evalId"))] = [t for t in turns if t]
        else:
            raise AgentLoadError(f"replay:{path}: not an evalkit result file or an ADK eval set result")
        return cls(recorded, path, states)

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
