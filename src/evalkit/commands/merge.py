"""`evalkit merge A.json B.json … --json ALL.json`: shard results → one result and one exit code.

The merged file is an ordinary result file: its cases are the shards' cases, in the
order of their eval set files when those are at hand (as in the CI job's checkout),
else shard by shard; its summary is recounted, and its exit code is the one
`evalkit run` would have given for all the cases at once. Merging refuses inputs that
cannot be one run: a case found in two files, shards of different splits (1/3 with
2/4), a shard missing from a split, or runs with different `--repeat` settings or budgets.
The shards' budget records become one (what they spent, added up), gated as a run's.
The shards' coverage is joined (every call of every shard against one inventory) and
gated here, by `--min-coverage` or the gate the shards were run with (docs/coverage.md).
The media the shards' cases show are copied from beside each shard's file into this run's
media folder (results/shard_media.py); one missing or damaged is exit 2 naming the shard.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

from evalkit.errors import InputError
from evalkit.loading.file_order import in_file_order
from evalkit.results.merging import agent_warning, merge_results, shard_index
from evalkit.schema.results import RunResult
from evalkit.settings import Environment, FinishSettings, RunSettings


def merge_command(files: list[Path], settings: RunSettings, finish_settings: FinishSettings) -> int:
    from evalkit.finish import Finish
    from evalkit.report.console import make_console
    from evalkit.results.reader import read_result
    from evalkit.results.shard_media import gather_shard_media

    finish = Finish.plan(finish_settings)
    loaded = [(path, read_result(path)) for path in files]
    loaded.sort(key=lambda item: shard_index(item[1]))
    merged = merge_results(loaded, order=in_file_order)
    # The shards' media, into this run's media folder, before anything is written (docs/ci.md, "Shards").
    missing = gather_shard_media(loaded, Environment.read().media_dir)
    if missing:
        raise InputError(missing)
    warning = agent_warning(loaded)
    if warning:
        print(f"evalkit: warning: {warning}", file=sys.stderr)
    # `--min-coverage`, else the minimum the shards were run with (each shard left it to the merge).
    minimum = settings.min_coverage if settings.min_coverage is not None else shards_min_coverage(r for _, r in loaded)
    verdict = finish.judge(merged, min_coverage=minimum)
    failure = finish.write(merged)
    if failure is not None:
        raise failure
    console = make_console()
    finish.show(merged, console)
    finish.tell(verdict, None, console)
    return verdict.exit_code


def shards_min_coverage(shards: Iterable[RunResult]) -> float | None:
    """The strictest coverage minimum the shards were run with (each recorded it and left it to the merge)."""
    given = [minimum for shard in shards for minimum in (
        shard.verdict.min_coverage if shard.verdict is not None else None,
        shard.coverage.min_ratio if shard.coverage is not None else None) if minimum is not None]
    return max(given) if given else None
