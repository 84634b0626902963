"""The cassette of one MCP server stood in for by `evalkit mcp`: `DIR/mcp/<name>.mcp.json`.

    {"evalkit_mcp_cassette": 1, "server": "python weather_server.py",
     "tools": [{"name": ..., "description": ..., "inputSchema": {...}}, ...],
     "tool_calls": [{"tool": ..., "args": {...}, "response": {...the CallToolResult...}}, ...]}

An agent may start several copies of its MCP server at once (one per worker process),
each its own `evalkit mcp`, all recording into the same file. So a save adds its calls
to what is on disk, under a lock, rather than writing what one process saw (read back
only when another process wrote the file since this one last did); and
`record` empties the file only when no other `evalkit mcp` is recording it (each
recorder holds a shared lock for its life; the first takes it exclusively). The locks
are files in the user's own folder under /tmp (mode 0700), never beside the cassettes,
opened without following links. Without
`fcntl` (Windows) there are no locks: record with one server process there.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from evalkit.cassettes.store import check_listing, file_name, records
from evalkit.errors import UsageError
from evalkit.foundation.documents import read_json
from evalkit.foundation.files import write_run_file

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

FORMAT_VERSION = 1
SUFFIX = ".mcp.json"


def mcp_json(model: Any) -> dict[str, Any]:
    """An MCP object (a `Tool`, a `CallToolResult`) as the protocol sends it: camelCase keys, nothing unset."""
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def command_text(words: Sequence[str]) -> str:
    """A server's command line for people, its words without their folders: the same on every machine."""
    return " ".join(Path(word).name for word in words)


@dataclass
class McpCassette:
    path: Path
    server: str
    tools: list[dict[str, Any]] | None = None  # the listing, None until recorded
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    exists: bool = False
    _recording: IO[bytes] | None = None  # the shared lock held while this process records
    # What this process last wrote, and the mark of that write: while the mark is still there, no
    # other process wrote the file since, and it need not be read back.
    _written: tuple[dict[str, Any], tuple[Any, ...]] | None = None

    @classmethod
    def load(cls, folder: Path, name: str, server: str) -> McpCassette:
        return cls.at(folder / "mcp" / (file_name(name) + SUFFIX), server)

    @classmethod
    def at(cls, path: Path, server: str = "") -> McpCassette:
        cassette = cls(path, server)
        data = cassette._read()
        if data is not None:
            cassette.tools, cassette.tool_calls, cassette.exists = data.get("tools"), data["tool_calls"], True
        return cassette

    def start_recording(self) -> None:
        """`record`: begin from an empty file, unless another process is recording it right now."""
        self.tools, self.tool_calls = None, []
        if fcntl is None:
            self.path.unlink(missing_ok=True)
            return
        self._recording = _lock_file(self.path, "recording")
        with self._writing():
            try:
                fcntl.flock(self._recording, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.path.unlink(missing_ok=True)  # nobody else is recording: the old recordings go
            except BlockingIOError:
                pass  # another recorder is at work: join it
            fcntl.flock(self._recording, fcntl.LOCK_SH)

    def save(self, new_calls: Sequence[dict[str, Any]] = ()) -> None:
        """Write the listing and add `new_calls` to the calls on disk (other processes' included)."""
        with self._writing() as lock:
            data = self._written[0] if self._written is not None and self._written[1] == _mark(self.path, lock) \
                else self._read()
            calls = (data["tool_calls"] if data is not None else []) + list(new_calls)
            tools = self.tools if self.tools is not None else (data or {}).get("tools")
            content: dict[str, Any] = {"evalkit_mcp_cassette": FORMAT_VERSION, "server": self.server}
            if tools is not None:
                content["tools"] = tools
            content["tool_calls"] = calls
            write_run_file(self.path, json.dumps(content, indent=2, ensure_ascii=False) + "\n")
            if lock is not None:  # this write's token, for the next save to know nobody wrote since
                lock.truncate(0)
                lock.write(secrets.token_hex(8).encode("ascii"))
                lock.flush()
            self._written = (content, _mark(self.path, lock))
        self.exists = True

    def _read(self) -> dict[str, Any] | None:
        if not self.path.is_file():
            return None
        try:
            data = read_json(self.path)
            if not isinstance(data, dict):
                raise ValueError("not a JSON object")
            if data.get("evalkit_mcp_cassette") != FORMAT_VERSION:
                raise ValueError(f"'evalkit_mcp_cassette' is {data.get('evalkit_mcp_cassette')!r}, "
                                 f"expected {FORMAT_VERSION}")
            data["tool_calls"] = list(records(data, "tool_calls", ("tool", "args")))
            if data.get("tools") is not None:
                check_listing(data["tools"], "tools")
            return data
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise UsageError(f"{self.path}: not a readable MCP cassette ({error}); "
                             "re-record it with --cassette-mode record") from None

    @contextmanager
    def _writing(self) -> Iterator[IO[bytes] | None]:
        """Held while the file is read and written: the lock file, whose content is the last write's token."""
        if fcntl is None:
            yield None
            return
        with _lock_file(self.path, "write") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield lock


def recorded_tools(folder: Path, warn: Callable[[str], None]) -> dict[str, list[str]] | None:
    """The tools that the `tools/list` answers recorded in `folder/mcp/` declare, each with its input
    schema's parameter names; None when no cassette there holds a listing. An unreadable cassette is
    left out and named through `warn`."""
    tools: dict[str, list[str]] | None = None
    for path in sorted((folder / "mcp").glob("*" + SUFFIX)):
        try:
            listing = McpCassette.at(path).tools
        except UsageError as error:
            warn(str(error))
            continue
        if not isinstance(listing, list):
            continue
        tools = {} if tools is None else tools
        for tool in listing:
            name = tool.get("name") if isinstance(tool, dict) else None
            if isinstance(name, str) and name:
                properties = (tool.get("inputSchema") or {}).get("properties") or {}
                known = tools.setdefault(name, [])
                known.extend(p for p in properties if p not in known)
    return tools


def _mark(path: Path, lock: IO[bytes] | None) -> tuple[Any, ...]:
    """Which write the file holds: its identity on disk and the token the last writer left in the lock."""
    try:
        status = path.stat()
        identity: tuple[int, ...] = (status.st_ino, status.st_mtime_ns, status.st_size)
    except FileNotFoundError:
        identity = ()
    if lock is None:
        return identity
    lock.seek(0)
    return (*identity, lock.read())


def _lock_file(cassette: Path, purpose: str) -> IO[bytes]:
    """The lock file, in the user's own folder (0700, evalkit.cassettes.mcp_misses), opened without
    following a link: in the shared temporary folder anyone could plant one at its predictable name."""
    import os

    from evalkit.cassettes.mcp_misses import meeting_folder

    digest = hashlib.sha256(str(cassette.resolve()).encode("utf-8")).hexdigest()[:16]
    folder = meeting_folder(create=True) or Path(tempfile.gettempdir())
    flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0)
    try:
        descriptor = os.open(folder / f"evalkit-mcp-{digest}-{purpose}.lock", flags, 0o600)
    except OSError as error:
        raise UsageError(f"evalkit mcp: cannot open its lock file in {folder} ({error.strerror}); remove what is "
                         "at that name (a link is never followed)") from None
    return os.fdopen(descriptor, "a+b")
