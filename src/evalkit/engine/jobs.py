"""One eval case to run: the unit the runner, the repeat logic and the simulator pass around."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from evalkit.criteria.base import Criterion
from evalkit.loading.media_parts import resolve_media
from evalkit.loading.packed import PackedCase, PlannedCase, unpacked


@dataclass(slots=True)  # one per case, all made at the start of a run: no __dict__ each
class CaseJob:
    eval_set_id: str
    case: PlannedCase  # packed until the job runs (`unpacked`)
    criteria: list[Criterion]
    source_file: str | None = None
    simulator_config: dict | None = None
    run_index: int = 0  # which of the `--repeat` runs this is

    def unpacked(self) -> CaseJob:
        """This job with its case whole, its media files read into bytes (loading/media_parts.py):
        what the runner works on, for as long as the case runs."""
        folder = Path(self.source_file).parent if self.source_file else Path.cwd()
        if not isinstance(self.case, PackedCase):
            resolve_media(self.case, folder)  # a case built in code: read in place, once
            return self
        return replace(self, case=resolve_media(unpacked(self.case), folder))
