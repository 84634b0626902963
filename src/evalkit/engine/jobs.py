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
        """This job with its case whole: what the runner works on, for as long as the case runs."""
        return self if not isinstance(self.case, PackedCase) else replace(self, case=unpacked(self.case))

    def read_media(self) -> None:
        """Read the whole case's media files into bytes, checked again (loading/media_parts.py); a
        file changed since the check before the run raises MediaChanged, this case's error."""
        assert not isinstance(self.case, PackedCase)  # unpacked() first
        folder = Path(self.source_file).parent if self.source_file else Path.cwd()
        resolve_media(self.case, folder, self.source_file or "")  # a case built in code is read in place, once
