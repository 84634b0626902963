"""The media of shard results, gathered into the merged run's media folder (`evalkit merge`).

A shard run keeps its cases' media by hash beside its own history (`.evalkit/media/SHA256`);
shards run on other machines bring that folder along with their result files (docs/ci.md,
"Shards"). Merging copies each medium a shard's cases refer to into the media folder of
this run (where the viewer and the reports of the merged run look), each checked against
its hash, each once. A medium that no folder beside the shard holds whole is a problem
naming the shard's file: the merged run would show a hole where the shard's run showed an
image, so the merge is refused before it writes anything.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from evalkit.errors import Problem
from evalkit.media.blob_store import blob_path
from evalkit.results.media_folder import bring_medium, hashes_in, media_folders_near
from evalkit.schema.results import CaseResult, RunResult


def gather_shard_media(shards: list[tuple[Path, RunResult]], target: Path) -> list[Problem]:
    """Copy into `target` every medium the shards' cases refer to; what could not be, as problems."""
    problems: list[Problem] = []
    present: set[str] = set()  # in `target`, whole: each medium is read and hashed once, however many shards show it
    for path, result in shards:
        folders = [folder for folder in media_folders_near(path) if folder.resolve() != target.resolve()]
        for sha256, case in _referred(result.cases):
            if sha256 in present:
                continue  # brought by another shard, or there already
            if not bring_medium(sha256, target, folders):
                problems.append(Problem(str(path), f"case {case.eval_set_id}/{case.eval_id}",
                                        _why_missing(sha256, folders, target)))
                continue
            present.add(sha256)
    return problems


def _referred(cases: list[CaseResult]) -> Iterator[tuple[str, CaseResult]]:
    """Each medium the cases refer to (their turns, and their repeated runs' turns), once, with the first case."""
    seen: set[str] = set()
    for case in cases:
        for run in (case, *(case.runs or ())):
            for record in run.invocations:
                for sha256 in hashes_in([record.actual, record.expected]):
                    if sha256 not in seen:
                        seen.add(sha256)
                        yield sha256, case


def _why_missing(sha256: str, folders: list[Path], target: Path) -> str:
    damaged = [folder for folder in (*folders, target) if blob_path(folder, sha256).is_file()]
    if damaged:
        found = f"{blob_path(damaged[0], sha256)} does not hash to its name (the file is damaged)"
    else:
        found = f"it is in none of {', '.join(str(folder) for folder in folders) or str(target)}"
    return (f"refers to the medium {sha256} and {found}; copy the .evalkit/media folder of the run that wrote "
            "this shard beside its result file (in CI, keep it with the result file as an artifact), then merge again")
