"""Eval cases kept packed, so a plan's memory stays small in the number of cases.

A validated `EvalCase` of two turns is about 10 KB of Python objects; the file's own
data for it, pickled, is under 1 KB, and it is kept on disk (evalkit.loading.spill). A
run's plan keeps, of each case, the things read of every case (its id, whether it is a
conversation scenario, whether it already holds the agent's answers) and where its data is, and validates it again from that
data when it is needed: for the checks made while loading, and when the case runs
(docs/performance.md, "Memory").
"""

from __future__ import annotations

import pickle
from typing import Any

from evalkit.foundation.gc_control import gc_paused
from evalkit.loading.spill import Spill, process_spill
from evalkit.schema.evalset import EvalCase


class PackedCase:
    __slots__ = ("_length", "_offset", "_spill", "answered_by", "eval_id", "is_scenario")

    def __init__(self, eval_id: str, is_scenario: bool, data: bytes, spill: Spill | None = None,
                 answered_by: str | None = None):
        self.eval_id = eval_id
        self.is_scenario = is_scenario
        self.answered_by = answered_by  # the case already holds the agent's answers (EvalCase.answered_by)
        self._spill = spill or process_spill()
        self._offset, self._length = self._spill.put(data)

    @classmethod
    def of(cls, raw: dict[str, Any], case: EvalCase) -> PackedCase:
        """Pack `raw`, the file's data that validated as `case` (pickle keeps YAML's own types)."""
        return cls(case.eval_id, case.is_scenario, pickle.dumps(raw, protocol=pickle.HIGHEST_PROTOCOL),
                   answered_by=case.answered_by)

    def unpack(self) -> EvalCase:
        raw = pickle.loads(self._spill.get(self._offset, self._length))
        if isinstance(raw, dict) and raw.get("eval_id") == self.eval_id:
            raw["eval_id"] = self.eval_id  # the plan's string: a result keeps it, so a case holds one id, not two
        with gc_paused():
            return EvalCase.model_validate(raw)

    def __repr__(self) -> str:
        return f"PackedCase({self.eval_id!r})"


# What a plan holds for a case: packed when loaded from a file, whole when built in code.
PlannedCase = EvalCase | PackedCase


def unpacked(case: PlannedCase) -> EvalCase:
    return case.unpack() if isinstance(case, PackedCase) else case
