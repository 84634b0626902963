"""`replay:RESULT.json`: no agent; re-score the actual turns stored in an earlier result.

Reads evalkit result files and ADK's `*.evalset_result.json` alike, so a run recorded
by either tool can be scored again under a different config.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.agents.base import Agent, AgentSession, SessionSpec
from evalkit.errors import AgentError, AgentLoadError, InputError
from evalkit.loading.documents import read_document
from evalkit.schema.content import Content
from evalkit.schema.evalset import Invocation


class ReplaySession(AgentSession):
    def __init__(self, turns: list[Invocation], where: str):
        self.turns = turns
        self.where = where

    async def run_turn(self, user_content: Content, index: int) -> Invocation:
        if index >= len(self.turns):
            raise AgentError(f"{self.where}: the recorded run has only {len(self.turns)} turns")
        return self.turns[index]


@dataclass
class RecordedCase:
    """One case of a result file: its ids, where it came from, and its turns as recorded."""

    eval_set_id: str
    eval_id: str
    actual: list[dict[str, Any]]
    expected: list[dict[str, Any] | None] = field(default_factory=list)
    source_file: str | None = None


class ReplayAgent(Agent):
    def __init__(self, recorded: dict[tuple[str, str], list[dict[str, Any]]], source: str,
                 cases: list[RecordedCase] | None = None):
        self.recorded = recorded
        self.cases = cases or []  # the whole record, for `evalkit rescore`
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
        cases: list[RecordedCase] = []
        if isinstance(data, dict) and "cases" in data:
            for case in data["cases"]:
                turns = case.get("invocations", [])
                cases.append(RecordedCase(
                    eval_set_id=case.get("eval_set_id", ""), eval_id=case["eval_id"],
                    actual=[t["actual"] for t in turns if t.get("actual")],
                    expected=[t.get("expected") for t in turns], source_file=case.get("source_file")))
        elif isinstance(data, dict) and ("eval_case_results" in data or "evalCaseResults" in data):
            for case in data.get("eval_case_results") or data.get("evalCaseResults") or []:
                per_turn = case.get("eval_metric_result_per_invocation") or case.get("evalMetricResultPerInvocation") or []
                actual = [t.get("actual_invocation") or t.get("actualInvocation") for t in per_turn]
                cases.append(RecordedCase(
                    eval_set_id=case.get("eval_set_id") or case.get("evalSetId") or data.get("eval_set_id", ""),
                    eval_id=case.get("eval_id") or case.get("evalId"),
                    actual=[t for t in actual if t],
                    expected=[t.get("expected_invocation") or t.get("expectedInvocation") for t in per_turn]))
        else:
            raise AgentLoadError(f"replay:{path}: not an evalkit result file or an ADK eval set result")
        return cls({(c.eval_set_id, c.eval_id): c.actual for c in cases}, path, cases)

    async def open_session(self, spec: SessionSpec) -> AgentSession:
        case_id = spec.case.eval_id
        turns = self.recorded.get((spec.eval_set_id, case_id))
        if turns is None:  # fall back to the eval id alone (sets renamed between runs)
            turns = next((t for (_, eid), t in self.recorded.items() if eid == case_id), None)
        where = f"{self.description}: case {case_id!r}"
        if turns is None:
            raise AgentError(f"{where}: not in the recorded run")
        return ReplaySession([Invocation.model_validate(t) for t in turns], where)
