"""`evalkit mcp --cassettes DIR [--cassette-mode MODE] [--name NAME] (-- COMMAND [ARGS...] | --url URL [--port P])`.

Stands in for an MCP server, recording or replaying its tools (evalkit.cassettes.mcp_standin):
for the stdio server COMMAND, on stdin/stdout, where stdout is the MCP channel and every
message for a person goes to stderr; for the streamable-HTTP server at URL, on 127.0.0.1,
announcing the local URL on stdout (one line) until Ctrl-C or SIGTERM. See
docs/cassettes.md, "MCP servers".
"""

from __future__ import annotations

import sys
from pathlib import Path
from urllib.parse import urlsplit

from evalkit.errors import MissingExtraError, UsageError

_EXAMPLE = "e.g. evalkit mcp --cassettes DIR -- python server.py, or evalkit mcp --cassettes DIR --url http://host/mcp"


def mcp_command(folder: Path, mode: str, command: list[str], name: str | None, url: str | None = None,
                port: int | None = None) -> int:
    from evalkit.cassettes.deck import check_cassette_options

    check_cassette_options(folder, mode)
    if command and url is not None:
        raise UsageError(f"evalkit mcp: --url {url} and a command after `--` both name the MCP server; "
                         "give one of them")
    if not command and url is None:
        raise UsageError(f"evalkit mcp: name the MCP server's command after `--`, or its streamable-HTTP URL with --url; {_EXAMPLE}")
    if url is not None and (urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname):
        raise UsageError(f"--url {url}: not an http(s) URL; give the streamable-HTTP MCP server's URL, "
                         "e.g. http://127.0.0.1:8000/mcp")
    if port is not None and url is None:
        raise UsageError(f"--port {port}: only with --url (a stand-in for a stdio server serves on stdin/stdout)")
    try:
        import mcp  # noqa: F401
    except ModuleNotFoundError:
        raise MissingExtraError("evalkit mcp", "mcp", "mcp", "mcp>=2.3,<3") from None
    import logging

    from evalkit.cassettes.mcp_standin import serve
    from evalkit.cassettes.mcp_upstream import RealServer

    # The SDK logs what it cannot parse from the real server with a traceback on stderr; evalkit's
    # own line says what failed and what to do.
    logging.getLogger("mcp").addHandler(logging.NullHandler())
    from evalkit.foundation.aio import run_sync

    real = RealServer(command=tuple(command), url=url)

    def announce(local_url: str) -> None:
        print(f"evalkit mcp ({mode}): standing in for {real.shown}; the agent's URL:", file=sys.stderr)
        print(local_url, flush=True)

    try:
        run_sync(lambda: serve(folder, mode, real, name or real.cassette_name(), port=port or 0, on_ready=announce))
    except KeyboardInterrupt:
        pass
    print("evalkit mcp: stopped", file=sys.stderr)
    return 0
