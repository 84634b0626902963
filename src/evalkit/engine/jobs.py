"""One eval case to run: the unit the runner, the repeat logic and the simulator pass around."""

from __future__ import annotations

from dataclasses import dataclass

from evalkit.criteria.base import Criterion
from evalkit.schema.evalset import EvalCase


@dataclass
class CaseJob:
    eval_set_id: str
    case: EvalCase
    criteria: list[Criterion]
    source_file: str | None = None
    simulator_config: dict | None = None
    run_index: int = 0  # which of the `--repeat` runs this is
