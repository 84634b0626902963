"""A tool call `evalkit mcp` could not answer in replay, told to the run whose case made it.

An agent's MCP client may swallow the stand-in's error (the agent answers "an error occurred"
and the case passes), and may start `evalkit mcp` without passing the environment on. So
the stand-in and the run find each other through the process tree instead:

* every run (`evalkit run`, each `--processes` worker, the Python API) listens on a Unix
  socket in a folder of the user's own, `/tmp/evalkit-runs-UID/` (not `$TMPDIR`, which the
  stand-in may not be given; mode 0700, refused
  when it is a link or another user's): `PID-TOKEN.sock`, PID being the run's process
  (`MissWatch`);
* the stand-in, on a miss, walks up its own ancestors (itself, its parent, ...) — over
  HTTP, those of the process that sent the request, found from its end of the connection
  (`connected_process`) — and tells the nearest one that has a socket there what it could
  not answer, with that list of ancestors, and waits for the run's acknowledgement before it answers the agent with the
  MCP error (`tell_the_run`) — so the miss is on record before the agent can end the turn;
* the run gives the miss to the turn in flight in the agent process that started the
  stand-in: the nearest ancestor that serves a turn (a `cmd:` agent's worker process);
  when no ancestor serves one (an agent in the run's own process, or one the run's
  process started otherwise), to every turn in flight whose process the run does not know.
  That turn's case becomes `error`, with the stand-in's text (`Runner.play_turn`).

A stand-in no run is an ancestor of (an agent started by hand, on another machine) answers
the agent with the MCP error only, as before. Without Unix sockets (Windows) there is no
watch. See docs/cassettes.md, "A replay miss is the case's error".
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ACK = b"noted\n"
TELL_TIMEOUT_S = 5.0  # the run answers at once; a run that hangs must not hang the agent
MESSAGE_LIMIT = 64 * 1024


def meeting_folder(create: bool = False) -> Path | None:
    """`$TMPDIR/evalkit-runs-UID`, only when it is this user's own folder that no one else may enter."""
    if not hasattr(os, "getuid") or not hasattr(socket, "AF_UNIX"):
        return None
    # Not $TMPDIR: an MCP client may start the stand-in without the run's environment.
    folder = Path("/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()) / f"evalkit-runs-{os.getuid()}"
    if create:
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700)
    try:
        status = folder.lstat()
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o077:
        return None  # a link, a file, another user's folder, or one others may write in: not used
    return folder


def ancestors(pid: int | None = None) -> list[int]:
    """This process and its ancestors, nearest first (Linux's /proc; elsewhere this process and its parent)."""
    pid = os.getpid() if pid is None else pid
    chain = [pid]
    while pid > 1 and len(chain) < 64:
        try:
            text = Path(f"/proc/{pid}/stat").read_text()
            pid = int(text.rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            if pid == os.getpid():
                chain.append(os.getppid())
            break
        if pid <= 0:
            break
        chain.append(pid)
    return chain


def connected_process(port: int) -> int | None:
    """The process on this machine whose TCP connection to us comes from local port `port` (Linux's
    /proc: the socket's inode in /proc/net/tcp*, then the process holding it); None when unknown."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9 and fields[1].rsplit(":", 1)[-1] == f"{port:04X}":
                inodes.add(f"socket:[{fields[9]}]")
    if not inodes:
        return None
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                return int(entry.name)
        except OSError:
            continue
    return None


def tell_the_run(message: str, caller_port: int | None = None) -> bool:
    """The stand-in's side: tell the nearest run of a miss among its ancestors (a stdio stand-in: the
    agent started it), or, over HTTP, among the ancestors of the process that made the request
    (`caller_port`: its end of the connection); whether a run took it."""
    folder = meeting_folder()
    if folder is None:
        return False
    caller = connected_process(caller_port) if caller_port is not None else None
    chain = ancestors(caller) if caller is not None else ancestors()
    try:
        listening = {name: name.split("-", 1)[0] for name in os.listdir(folder) if name.endswith(".sock")}
    except OSError:
        return False
    for pid in chain:
        sockets = [name for name, owner in listening.items() if owner == str(pid)]
        told = [_tell(folder / name, {"ancestors": chain, "message": message[:MESSAGE_LIMIT]}) for name in sockets]
        if any(told):
            return True
    return False


def _tell(path: Path, report: dict[str, Any]) -> bool:
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(TELL_TIMEOUT_S)
            connection.connect(str(path))
            connection.sendall(json.dumps(report).encode("utf-8") + b"\n")
            return connection.makefile("rb").readline() == ACK
    except OSError:
        return False


def _sweep(folder: Path) -> None:
    """Sockets of runs that are gone (killed before they could remove theirs)."""
    with contextlib.suppress(OSError):
        for name in os.listdir(folder):
            owner = name.split("-", 1)[0]
            if name.endswith(".sock") and owner.isdigit() and not _alive(int(owner)):
                (folder / name).unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # someone else's process: alive
    return True


@dataclass
class TurnInFlight:
    """One turn being played: where it is, the agent process serving it (None: not known), the misses it made."""

    where: str
    process: int | None
    misses: list[str] = field(default_factory=list)


class MissWatch:
    """The run's side: a socket the stand-ins of its agents tell their misses to, and the turns in flight."""

    def __init__(self) -> None:
        self._turns: dict[int, TurnInFlight] = {}
        self._lock = threading.Lock()
        self.unclaimed: list[str] = []  # misses that came while no turn was in flight
        self._listener: socket.socket | None = None
        self._path: Path | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> MissWatch:
        folder = meeting_folder(create=True)
        if folder is None:
            return self
        _sweep(folder)
        path = folder / f"{os.getpid()}-{secrets.token_hex(4)}.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            listener.bind(str(path))
            listener.listen(16)
        except OSError:
            listener.close()
            return self
        self._listener, self._path = listener, path
        self._thread = threading.Thread(target=self._serve, name="evalkit-mcp-misses", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        if self._path is not None:
            self._path.unlink(missing_ok=True)
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    @contextlib.contextmanager
    def turn(self, where: str, process: int | None) -> Iterator[TurnInFlight]:
        """While a turn is played: the misses told meanwhile that belong to it land in what this yields."""
        in_flight = TurnInFlight(where, process)
        with self._lock:
            self._turns[id(in_flight)] = in_flight
        try:
            yield in_flight
        finally:
            with self._lock:
                del self._turns[id(in_flight)]

    def take(self, report: dict[str, Any]) -> None:
        """A stand-in's report → the turn(s) it belongs to (the module docstring says which)."""
        chain = [pid for pid in report.get("ancestors") or () if isinstance(pid, int)]
        message = str(report.get("message") or "")
        with self._lock:
            turns = list(self._turns.values())
            owners: list[TurnInFlight] = []
            for pid in chain:
                owners = [t for t in turns if t.process == pid]
                if owners:
                    break
            if not owners:
                owners = [t for t in turns if t.process is None]
            for owner in owners:
                owner.misses.append(message)
            if not owners:
                self.unclaimed.append(message)

    def _serve(self) -> None:
        while (listener := self._listener) is not None:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                try:
                    connection.settimeout(TELL_TIMEOUT_S)
                    line = connection.makefile("rb").readline(MESSAGE_LIMIT + 4096)
                    report = json.loads(line)
                    if isinstance(report, dict):
                        self.take(report)
                    connection.sendall(ACK)
                except (OSError, ValueError):
                    continue
