"""`evalkit import adk-session FILE [--out PATH] [--app] [--user] [--session]`."""

from __future__ import annotations

from pathlib import Path


def import_adk_session_command(file: str, out: Path | None, *, app: str | None = None, user: str | None = None,
                               session: str | None = None) -> list[str]:
    """Write the eval set; return the lines to print (what was written, what was left out)."""
    from evalkit.importers.adk_session import SessionFilter, import_adk_sessions, summary_lines

    result = import_adk_sessions(file, out, SessionFilter(app=app, user=user, session=session))
    return summary_lines(result)
