"""One eval case to run: the unit the runner, the repeat logic and the simulator pass around."""

from __future__ import annotations

from dataclasses import dataclass, replace

from evalkit.criteria.base import Criterion
from evalkit.loading.packed import PackedCase, PlannedCase


@dataclass(slots=True)  # one per case, all made at the start of a run: no __dict__ each
class CaseJob:
    eval_set_id: str
    case: PlannedCase  # packed until the job runs (`unpacked`)
    criteria: list[Criterion]
    source_file: str | None = None
    simulator_config: dict | None = None
    run_index: int = 0  # which of the `--repeat` runs this is

    def unpacked(self) -> CaseJob:
        """This job with its case whole: what the runner works on, for as long as the case runs."""
        return replace(self, case=self.case.unpack()) if isinstance(self.case, PackedCase) else self
