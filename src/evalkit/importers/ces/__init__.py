"""Customer Engagement Suite (Conversational Agents) evaluations in evalkit.

`import_ces` turns a CES Evaluation resource into an eval set and a `test_config.json`;
the `ces_*` criteria score golden turns the way CES does.
"""

from __future__ import annotations

from pathlib import Path


def import_ces(path: Path, out: Path | None = None) -> tuple[Path, Path]:
    """Convert the CES evaluation(s) in `path`; returns (eval set file, test_config.json)."""
    from evalkit.importers.ces.importer import import_ces as run_import

    return run_import(path, out)


__all__ = ["import_ces"]
