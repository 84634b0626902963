"""What the viewer's pages ask for, answered from the index, the progress files and the labels file.

The server (`server.py`) and the static export (`export.py`) both answer through here;
the server only maps routes to these calls. `None` means "no such run or case" (404).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalkit.results.media_folder import as_shown, media_folders_near, read_media_from
from evalkit.view.index import Run, RunIndex
from evalkit.view.live import FINISHED_ID_PREFIX, LIVE_ID_PREFIX, LiveRun, LiveRuns
from evalkit.view.query import CaseQuery, select
from evalkit.view.rows import history_entry, judge_reasons

if TYPE_CHECKING:
    from evalkit.results.reader import ScoredRun


class ViewData:
    def __init__(self, sources: list[Path], labels: Path | None = None, poll_s: float = 1.0,
                 media_dir: Path | None = None):
        self.sources = sources
        # Where the runs' media are kept by hash: beside this history (`.evalkit/media`), then beside
        # each folder or result file named, so runs copied from elsewhere show theirs too.
        folders = [media_dir] if media_dir is not None else []
        self.media_dirs = list(dict.fromkeys(folders + [f for source in sources for f in media_folders_near(source)]))
        self.index = RunIndex(sources)
        self.live = LiveRuns([source for source in sources if source.is_dir() or not source.exists()])
        self.labels = labels
        self.poll_s = poll_s
        self._comparisons: dict[tuple, dict[str, Any]] = {}

    def medium(self, sha256: str) -> bytes | None:
        """A medium the runs refer to, by hash (checked against it); None when no media folder has it."""
        return read_media_from(self.media_dirs, sha256)

    def runs(self) -> dict[str, Any]:
        """`GET /api/runs`: the contract's `runs`, newest first, and where the viewer looked."""
        finished = [run.listing() for run in self.index.runs()]
        live = [run.listing() for run in self.live.runs()]
        runs = sorted(finished + live, key=lambda item: str(item.get("started_at") or ""), reverse=True)
        return {"runs": runs, "looked_in": [str(source) for source in self.sources],
                "skipped": {path.name: why for path, why in self.index.skipped.items()},
                "labels": str(self.labels) if self.labels else None, "poll_s": self.poll_s}

    def find(self, run_id: str) -> Run | LiveRun | None:
        if run_id.startswith(LIVE_ID_PREFIX):  # a run page polls every second: no rescan of the history for it
            return self.live.run(run_id) or self.index.run(run_id)
        return self.index.run(run_id) or self.live.run(run_id)

    def cases(self, run_id: str, params: dict[str, str]) -> dict[str, Any] | None:
        run = self.find(run_id)
        if run is None:
            moved = self.finished_run(run_id)
            return None if moved is None else {"moved_to": moved}
        if isinstance(run, LiveRun):
            page = select(run.rows, run.texts, CaseQuery.of(params))
            header, complete = run.document(), True
            header.pop("cases", None)
        else:
            page = select(*run.snapshot(), CaseQuery.of(params))
            header, complete = run.listing(), run.complete
        return {**page, "run": header, "criteria": run.criterion_names(), "complete": complete}

    def finished_run(self, live_id: str) -> str | None:
        """The history's run that a run seen in progress became: the file its stamp names (`run-<stamp>.json`);
        for progress files named before runs shared one stamp, the run of the same eval sets started then or just after."""
        header = self.live.finished.get(live_id)
        if header is None:
            return None
        named = self.index.run(FINISHED_ID_PREFIX + live_id.removeprefix(LIVE_ID_PREFIX))
        if named is not None:
            return named.id
        started, sets = str(header.get("started_at") or ""), header.get("eval_set_ids") or []
        later = [run for run in self.index.runs() if run.complete and run.eval_set_ids == sets
                 and str(run.header.get("started_at") or "") >= started]
        return min(later, key=lambda run: str(run.header.get("started_at"))).id if later else None

    def case(self, run_id: str, index: int) -> dict[str, Any] | None:
        run = self.find(run_id)
        if run is None or not 0 <= index < len(run.rows) or (isinstance(run, Run) and run.failure):
            return None
        return self.case_of(run, index)

    def case_of(self, run: Run | LiveRun, index: int) -> dict[str, Any]:
        """One case of a run in full, with what the case page shows beside it; its media say how the page offers
        them (results/media_folder.py's `as_shown`)."""
        case = run.cases[index] if isinstance(run, LiveRun) else run.case(index)
        return {"case": as_shown(case), "index": index, "run": run.id, "labels": self.case_labels(case),
                "judged": judged_criteria(case), "reasons": judge_reasons(case),
                "live": isinstance(run, LiveRun), "cassette": None if isinstance(run, LiveRun) else cassette_of(run, case)}

    def history(self, eval_set_id: str, eval_id: str) -> dict[str, Any] | None:
        """`GET /api/cases/{eval_set_id}/{eval_id}/history`: that case in every run of the history, newest first."""
        found = []
        for run in self.index.runs():
            row = next((row for row in run.snapshot()[0]
                        if row["eval_id"] == eval_id and row["eval_set_id"] == eval_set_id), None)
            if row is not None:
                found.append(history_entry(run.id, run.header.get("started_at"), row, run.header.get("agent")))
        return {"runs": found} if found else None

    def locate(self, run_id: str, eval_set_id: str, eval_id: str) -> int | None:
        """The index of a case in a run: by eval set and id, else by an id unique in the run (as compare pairs them)."""
        run = self.find(run_id)
        if run is None:
            return None
        by_id = []
        for row in run.rows:
            if row["eval_id"] == eval_id:
                if row["eval_set_id"] == eval_set_id:
                    return int(row["index"])
                by_id.append(int(row["index"]))
        return by_id[0] if len(by_id) == 1 else None

    def compare(self, base_id: str, new_id: str) -> dict[str, Any] | None:
        """`GET /api/compare`: the object `evalkit compare --json` writes."""
        from evalkit.compare.diff import compare_runs
        from evalkit.errors import InputError
        from evalkit.results.reader import read_scored_run

        base, new = self.index.run(base_id), self.index.run(new_id)
        if base is None or new is None:
            return None
        key = (base.path, base.stamp, new.path, new.stamp)
        if key not in self._comparisons:
            base.done.wait()
            new.done.wait()
            try:
                comparison = compare_runs(scored_run(base) or read_scored_run(base.path),
                                          scored_run(new) or read_scored_run(new.path))
            except InputError:
                return None
            self._comparisons = {key: comparison.to_dict()}  # the last one only: memory stays flat
        return self._comparisons[key]

    def case_labels(self, case: dict[str, Any]) -> dict[str, Any]:
        """The case's labels by criterion (empty without `--labels`)."""
        if self.labels is None:
            return {}
        from evalkit.calibration.labels import load_labels

        return {label.criterion: label.model_dump() for label in load_labels(self.labels)
                if label.eval_set_id == case.get("eval_set_id") and label.eval_id == case.get("eval_id")}

    def save_label(self, body: Any) -> dict[str, Any]:
        """Write one label (upsert); raises ValueError on a body that is not a label."""
        from pydantic import ValidationError

        from evalkit.calibration.labels import Label, save_label

        if self.labels is None:
            raise PermissionError("no labels file: start evalkit view with --labels FILE")
        try:
            label = Label.model_validate(body)
        except ValidationError as error:
            raise ValueError(str(error.errors()[0]["msg"])) from None
        save_label(self.labels, label)
        return label.model_dump()


def cassette_of(run: Run, case: dict[str, Any]) -> dict[str, Any] | None:
    """The cassette file a case's model calls were answered from, when its run used `--cassettes`."""
    cassettes = run.header.get("cassettes")
    if not isinstance(cassettes, dict) or not isinstance(cassettes.get("folder"), str):
        return None
    from evalkit.cassettes.store import cassette_path

    path = cassette_path(Path(cassettes["folder"]), str(case.get("eval_set_id", "")), str(case.get("eval_id", "")))
    return {"path": str(path), "mode": cassettes.get("mode"), "exists": path.is_file()}


def scored_run(run: Run) -> ScoredRun | None:
    """What `compare` reads of a run, from its rows: the file is not read again (None: a row it cannot use).

    `evalkit compare --json` and `GET /api/compare` answer the same (tested)."""
    from evalkit.results.reader import ScoredCase, ScoredCriterion, ScoredRun
    from evalkit.schema.results import Status

    scored = ScoredRun(label=str(run.path), kind="evalkit")
    try:
        for row in run.rows:
            criteria = {name: ScoredCriterion(name, Status(c["status"]), c["score"], c["threshold"])
                        for name, c in sorted({**row.get("info", {}), **row["criteria"]}.items(),
                                              key=lambda item: item[1].get("at", 0))}
            scored.cases[(row["eval_set_id"], row["eval_id"])] = ScoredCase(
                row["eval_set_id"], row["eval_id"], Status(row["status"]), criteria=criteria)
    except ValueError:
        return None
    return scored


def judged_criteria(case: dict[str, Any]) -> list[str]:
    """The criteria of `case` that a judge decided: the ones a person can label (`evalkit calibrate`)."""
    from evalkit.calibration.judged import judge_decided

    return [criterion["name"] for criterion in case.get("criteria") or []
            if isinstance(criterion, dict) and isinstance(criterion.get("name"), str)
            and judge_decided(criterion["name"], criterion.get("details") or {})]
