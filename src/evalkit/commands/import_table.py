"""`evalkit import table FILE --map user=COL --map expected=COL [...] [--out PATH]`: one eval case a row."""

from __future__ import annotations

from pathlib import Path


def import_table_command(file: Path, out: Path | None, maps: list[str]) -> list[str]:
    from evalkit.importers.table import import_table

    path, ids = import_table(file, out, maps)
    return [f"wrote {path} ({len(ids)} eval case{'s' if len(ids) != 1 else ''})"]
