"""`evalkit export agent-platform RESULT.json|EVALSET --out DIR`: agents-cli datasets, one per eval set."""

from __future__ import annotations

from pathlib import Path


def export_agent_platform_command(source: Path, out: Path) -> list[str]:
    from evalkit.importers.agent_platform import export_datasets, summary_lines

    return summary_lines(export_datasets(source, out))
