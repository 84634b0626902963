"""`evalkit view --export DIR`: the viewer as static files, for a CI artifact or a static site.

The same page, in its static mode: the runs list, each run's rows (filtered and paged
in the browser by the rules of `query.py`), each case, and each run compared with the
run before it of the same eval sets. Serve the folder over HTTP (any static server).
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from evalkit.foundation.files import write_run_file
from evalkit.results.media_folder import bring_medium, hashes_in
from evalkit.view.coverage import history_coverage, run_coverage
from evalkit.view.data import ViewData
from evalkit.view.index import Run
from evalkit.view.page import render_page


@dataclass
class Exported:
    """What an export wrote: its runs, and the media the runs show that no media folder held."""

    runs: int = 0
    media: set[str] = field(default_factory=set)  # in the copy, whole: each checked once
    missing_media: set[str] = field(default_factory=set)


def export_site(data: ViewData, folder: Path) -> Exported:
    """Write the site into `folder`."""
    from evalkit.errors import Problem, UsageError

    if folder.exists() and not folder.is_dir():
        raise UsageError(Problem(str(folder), "", "is a file; --export takes a folder"))
    try:
        return _write(data, folder)
    except OSError as error:
        raise UsageError(Problem(str(folder), "", f"cannot write here: {error.strerror or error}")) from None


def _write(data: ViewData, folder: Path) -> Exported:
    static = folder / "static"
    static.mkdir(parents=True, exist_ok=True)
    for source in (resources.files("evalkit.view") / "static").iterdir():
        if source.name.endswith((".js", ".css")):
            with resources.as_file(source) as path:
                shutil.copyfile(path, static / source.name)
    (folder / "index.html").write_text(render_page(static=True), encoding="utf-8")
    runs = data.index.wait()
    exported = Exported(len(runs))
    listing = data.runs()
    listing["runs"] = [item for item in listing["runs"] if not item.get("live")]
    listing.update(labels=None, looked_in=[str(source) for source in data.sources])
    _dump(folder / "data" / "runs.json", listing)
    for run in runs:
        _write_run(folder / "data" / "runs" / run.id, run, data, exported)
    _dump(folder / "data" / "coverage.json", history_coverage(runs))
    for newer, older in _consecutive(runs):
        comparison = data.compare(older.id, newer.id)
        if comparison is not None:
            _dump(folder / "data" / "compare" / older.id / f"{newer.id}.json", comparison)
    return exported


def _write_run(folder: Path, run: Run, data: ViewData, exported: Exported) -> None:
    _dump(folder / "rows.json", {"rows": run.rows, "texts": run.texts, "run": run.listing(),
                                 "criteria": run.criterion_names()})
    _dump(folder / "coverage.json", run_coverage(run))
    cases = folder / "cases"
    cases.mkdir(parents=True, exist_ok=True)
    for index in range(len(run.rows)):
        document = data.case_of(run, index)
        _dump(cases / f"{index}.json", {**document, "labels": {}})
        _copy_media(document, folder.parent.parent / "media", data, exported)


def _copy_media(document: dict[str, Any], target: Path, data: ViewData, exported: Exported) -> None:
    """The media a case shows, beside the data (`data/media/SHA256`), each once; those no media
    folder has are counted, for the command to say so."""
    for sha256 in set(hashes_in(document)) - exported.media - exported.missing_media:
        (exported.media if bring_medium(sha256, target, data.media_dirs) else exported.missing_media).add(sha256)


def _consecutive(runs: list[Run]) -> list[tuple[Run, Run]]:
    """Each run with the newest earlier run of the same eval sets (runs are newest first)."""
    pairs = []
    for position, run in enumerate(runs):
        earlier = next((other for other in runs[position + 1:] if other.eval_set_ids == run.eval_set_ids), None)
        if earlier is not None:
            pairs.append((run, earlier))
    return pairs


def _dump(path: Path, document: Any) -> None:
    write_run_file(path, json.dumps(document, ensure_ascii=False, separators=(",", ":")))
