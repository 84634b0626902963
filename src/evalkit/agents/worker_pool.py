"""Long-lived agent processes that answer one JSON line with one JSON line, and their pool.

A process serves one request at a time: write a line to its stdin, read a line from its
stdout. Anything that leaves a reply unread in the pipe (a cancelled turn, a line that is
not JSON, a line over the size limit) makes the process unusable, because the next
reader would take that stale line for its own answer; such a process is killed and the
pool starts a fresh one for the next lease. Stderr is drained continuously into the
`evalkit.agents` log, so a chatty process never blocks on a full pipe.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
from typing import Any

from evalkit.agents.worker_stderr import StderrTail
from evalkit.errors import AgentError

log = logging.getLogger("evalkit.agents")

LINE_LIMIT = 64 * 1024 * 1024  # replies (and stderr lines) may be large; asyncio's default is 64 KiB
STOP_GRACE_S = 2.0  # between SIGTERM and SIGKILL
NOTIFY_TIMEOUT_S = 5.0  # a process that stops reading its stdin must not hold up the run
EXIT_WAIT_S = 2.0  # after stdout closes, how long the process may take to exit
SNIPPET_CHARS = 200
_STDERR_CHUNK = 64 * 1024

# CPython's default child watcher waits for each child on a thread of its own; when the
# child has exited and asyncio's transport polls it first (closing it), the thread finds
# it reaped and logs this warning (python/cpython#86276). The exit code evalkit reports
# comes from the process object either way, so the warning only adds a stray line under
# evalkit's one-line messages, on a busy machine, about nothing the user can act on.
_REAPED_FIRST = "Unknown child process pid %d, will report returncode 255"


def _not_the_reaping_race(record: logging.LogRecord) -> bool:
    return record.msg != _REAPED_FIRST


logging.getLogger("asyncio").addFilter(_not_the_reaping_race)


def snippet(data: bytes | str, limit: int = SNIPPET_CHARS) -> str:
    """A short, single-line, quoted excerpt for error messages."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    text = " ".join(text.split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return repr(text)


def _encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


class AgentProcess:
    """One running agent process and the single conversation lane it offers."""

    def __init__(self, process: asyncio.subprocess.Process, name: str):
        if process.stdin is None or process.stdout is None or process.stderr is None:
            raise ValueError("an agent process needs pipes for stdin, stdout and stderr (AgentProcess.start)")
        self._process = process
        self._stdin, self._stdout, self._stderr = process.stdin, process.stdout, process.stderr
        self.name = name
        self.stderr = StderrTail()
        self._unusable = False
        self._lock = asyncio.Lock()
        self._stderr_task = asyncio.create_task(self._drain_stderr())

    @classmethod
    async def start(cls, argv: list[str], env: dict[str, str] | None = None) -> AgentProcess:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            limit=LINE_LIMIT,
            # Own process group: Ctrl-C reaches evalkit only (which then stops the
            # workers itself), and stopping a worker also stops whatever it spawned.
            start_new_session=True,
        )
        return cls(process, name=os.path.basename(argv[0]))

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def usable(self) -> bool:
        return not self._unusable and self._process.returncode is None

    async def request(self, message: dict[str, Any], where: str) -> Any:
        """Send one JSON line and return the decoded JSON line that answers it.

        A failure carries the worker's last stderr lines as its detail.
        """
        try:
            return await self._request(message, where)
        except AgentError as failure:
            if failure.detail is None:
                failure.detail = self.stderr.text()
            raise

    async def _request(self, message: dict[str, Any], where: str) -> Any:
        async with self._lock:
            if not self.usable:
                raise AgentError(f"{where}: {await self._exit_reason()}")
            try:
                self._stdin.write(_encode(message))
                await self._stdin.drain()
                line = await self._stdout.readline()
            except asyncio.CancelledError:
                self.discard()  # the reply would be left in the pipe for the next reader
                raise
            except (BrokenPipeError, ConnectionResetError):
                line = b""
            except ValueError:  # readline's way of saying the line is over LINE_LIMIT
                self.discard()
                raise AgentError(f"{where}: the agent wrote a reply line longer than {LINE_LIMIT} bytes") from None
            if not line:
                raise AgentError(f"{where}: {await self._exit_reason()}")
            try:
                return json.loads(line)
            except (UnicodeDecodeError, json.JSONDecodeError):
                # Whatever wrote this line may write more; the lane is out of step.
                self.discard()
                raise AgentError(f"{where}: the agent wrote a line that is not JSON: {snippet(line)}; stdout carries "
                                 "only the JSON replies: write logs to stderr (console.error in Node.js, "
                                 "print(..., file=sys.stderr) in Python)") from None

    async def notify(self, message: dict[str, Any]) -> None:
        """Send a line that gets no reply; failures only retire the process."""
        if not self.usable:
            return
        async with self._lock:
            try:
                self._stdin.write(_encode(message))
                await asyncio.wait_for(self._stdin.drain(), NOTIFY_TIMEOUT_S)
            except asyncio.CancelledError:
                self.discard()
                raise
            except (OSError, asyncio.TimeoutError):
                self.discard()

    async def exits_within(self, seconds: float, unless: asyncio.Event) -> bool:
        """Whether the process exits within `seconds` (False as soon as `unless` is set)."""
        exited = asyncio.ensure_future(self._process.wait())
        cleared = asyncio.ensure_future(unless.wait())
        try:
            await asyncio.wait({exited, cleared}, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for waiting in (exited, cleared):
                waiting.cancel()
        return self._process.returncode is not None

    async def exit_reason(self) -> str:
        """How the process ended and the stderr line that explains it (once it has exited)."""
        return await self._exit_reason()

    def discard(self) -> None:
        """Mark the process unusable and kill it now (the pool reaps it later)."""
        self._unusable = True
        self._signal(signal.SIGKILL)

    async def stop(self, grace: float = STOP_GRACE_S) -> None:
        """Close stdin and let the worker finish; terminate it, then kill it, if it lingers.

        A worker gets a moment to exit on its own after end of input, so it reads the last
        `end_session` and cleans up, instead of being terminated with that line unread.
        """
        self._unusable = True
        with contextlib.suppress(OSError):
            self._stdin.close()
        if self._process.returncode is None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._process.wait(), min(grace, 0.5))
        if self._process.returncode is None:
            self._signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self._process.wait(), grace)
            except asyncio.TimeoutError:
                self._signal(signal.SIGKILL)
                await self._process.wait()
        await self._finish_stderr(timeout=0.2)

    def _signal(self, sig: int) -> None:
        if self._process.returncode is not None:
            return
        try:
            if hasattr(os, "killpg"):
                os.killpg(self._process.pid, sig)
            else:  # pragma: no cover - platforms without process groups
                self._process.send_signal(sig)
        except (ProcessLookupError, PermissionError):
            pass

    async def _exit_reason(self) -> str:
        """Why the lane is closed: the exit code and the last thing the process said."""
        self._unusable = True
        try:
            code = await asyncio.wait_for(self._process.wait(), EXIT_WAIT_S)
            how = _describe_exit(code)
        except asyncio.TimeoutError:
            self._signal(signal.SIGKILL)
            await self._process.wait()
            how = "closed its stdout (it was killed)"
        await self._finish_stderr(timeout=0.5)
        reason = f"the agent process {how}"
        explaining = self.stderr.explaining_line()
        if explaining:
            reason += f"; stderr: {snippet(explaining)}"
        return reason

    async def _finish_stderr(self, timeout: float) -> None:
        # A grandchild may hold stderr open after the process itself has gone.
        if self._stderr_task.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._stderr_task), timeout)
        except asyncio.TimeoutError:
            self._stderr_task.cancel()
        except asyncio.CancelledError:
            self._stderr_task.cancel()
            raise

    async def _drain_stderr(self) -> None:
        stream = self._stderr
        pending = b""
        while True:
            try:
                chunk = await stream.read(_STDERR_CHUNK)
            except OSError:  # the pipe broke: nothing more will come
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._log_stderr(line)
            if len(pending) > _STDERR_CHUNK:  # a huge line without newline: log it in pieces
                self._log_stderr(pending)
                pending = b""
        if pending:
            self._log_stderr(pending)

    def _log_stderr(self, raw: bytes) -> None:
        text = raw.decode("utf-8", errors="replace").rstrip()
        if not text:
            return
        self.stderr.add(text)
        log.info("%s[%d]: %s", self.name, self._process.pid, text[:4000])  # shown under --debug


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "closed its stdout"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"was killed by signal {name}"
    return f"exited with code {code}"


class WorkerPool:
    """Up to `size` processes, started lazily; each lease holds one process exclusively.

    A lease takes an idle process when there is one. Otherwise it starts a new one only
    while fewer starts are under way than processes already run (at least one): so the
    pool grows one, then two, four… at a time while leases keep waiting, and a fast
    agent, whose processes come back quickly, never pays for `size` start-ups.
    """

    def __init__(self, argv: list[str], size: int, env: dict[str, str] | None = None):
        self.argv = argv
        self.size = max(1, size)
        self.env = env
        self._slots = asyncio.Semaphore(self.size)
        self._idle: list[AgentProcess] = []
        self._running: set[AgentProcess] = set()
        self._watched: set[AgentProcess] = set()  # started outside the pool (the start-up check's), not yet adopted
        self._starting = 0
        self._changed: asyncio.Future[None] | None = None
        self._closed = False
        self.started = 0  # processes started over the pool's life

    @property
    def process_count(self) -> int:
        return len(self._running)

    async def acquire(self) -> AgentProcess:
        await self._slots.acquire()
        try:
            while True:
                while self._idle:
                    worker = self._idle.pop()
                    if worker.usable:
                        return worker
                    await self._retire(worker)  # died while idle
                if self._starting < max(1, len(self._running)):
                    return await self._start()
                await asyncio.shield(self._next_change())
        except BaseException:
            self._slots.release()
            raise

    async def _start(self) -> AgentProcess:
        self._starting += 1
        try:
            worker = await AgentProcess.start(self.argv, self.env)
        finally:
            self._starting -= 1
            self._notify()
        self.started += 1
        self._running.add(worker)
        return worker

    def _next_change(self) -> asyncio.Future[None]:
        if self._changed is None or self._changed.done():
            self._changed = asyncio.get_running_loop().create_future()
        return self._changed

    def _notify(self) -> None:
        if self._changed is not None and not self._changed.done():
            self._changed.set_result(None)

    async def release(self, worker: AgentProcess) -> None:
        try:
            if worker.usable and not self._closed:
                self._idle.append(worker)
            else:
                await self._retire(worker)
        finally:
            self._slots.release()
            self._notify()

    async def _retire(self, worker: AgentProcess) -> None:
        # Kept in `_running` until reaped: a stop cut short (a cancelled run) is finished by aclose().
        await worker.stop()
        self._running.discard(worker)

    def watch(self, worker: AgentProcess) -> None:
        """Own a process started outside the pool until `adopt`: `aclose` reaps it, however its watcher ends."""
        self._watched.add(worker)

    async def adopt(self, worker: AgentProcess) -> None:
        """Take a watched process as an idle one if there is room; else stop it."""
        if self._closed or len(self._running) >= self.size or not worker.usable:
            await worker.stop()
            self._watched.discard(worker)
            return
        self._watched.discard(worker)
        self.started += 1
        self._running.add(worker)
        self._idle.append(worker)
        self._notify()

    async def aclose(self) -> None:
        self._closed = True
        workers, self._idle = list(self._running | self._watched), []
        self._running.clear()
        self._watched.clear()
        self._notify()
        await asyncio.gather(*(worker.stop() for worker in workers), return_exceptions=True)
