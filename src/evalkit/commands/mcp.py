"""`evalkit mcp --cassettes DIR [--cassette-mode MODE] [--name NAME] -- COMMAND [ARGS...]`.

Serves MCP on stdin/stdout in place of the stdio MCP server COMMAND, recording or
replaying its tools (evalkit.cassettes.mcp_standin). stdout is the MCP channel: every
message for a person goes to stderr. See docs/cassettes.md, "MCP servers".
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import MissingExtraError, UsageError


def mcp_command(folder: Path, mode: str, command: list[str], name: str | None) -> int:
    from evalkit.cassettes.deck import MODES

    if mode not in MODES:
        raise UsageError(f"--cassette-mode {mode}: expected one of {', '.join(MODES)}")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--cassettes {folder}: is a file; name the folder that holds the cassettes")
    if not command:
        raise UsageError("evalkit mcp: name the MCP server's command after `--`, "
                         "e.g. evalkit mcp --cassettes DIR -- python server.py")
    try:
        import mcp  # noqa: F401
    except ModuleNotFoundError:
        raise MissingExtraError("evalkit mcp", "mcp", "mcp", "mcp>=2.3,<3") from None
    from evalkit.cassettes.mcp_standin import cassette_name, serve
    from evalkit.foundation.aio import run_sync

    try:
        run_sync(lambda: serve(folder, mode, command, name or cassette_name(command)))
    except KeyboardInterrupt:
        pass
    print("evalkit mcp: stopped", file=sys.stderr)
    return 0
