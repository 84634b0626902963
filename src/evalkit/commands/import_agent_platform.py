"""`evalkit import agent-platform FILE [--out PATH]`: an agents-cli dataset as an ADK eval set."""

from __future__ import annotations

from pathlib import Path


def import_agent_platform_command(file: Path, out: Path | None) -> list[str]:
    from evalkit.importers.agent_platform import import_dataset, summary_lines

    return summary_lines([import_dataset(file, out)])
