"""The one way evalkit runs async code from sync code."""

from __future__ import annotations

import asyncio
import signal
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from evalkit.errors import Terminated, raise_terminated

T = TypeVar("T")


def run_sync(make_coroutine: Callable[[], Awaitable[T]]) -> T:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    Inside a loop (an async test, a notebook) it runs on a fresh loop in its own thread.
    The value travels in a closure and the main coroutine returns None, because Python
    3.11's asyncio.Runner formats the main task, result included, when it restores the
    Ctrl-C handler: for a whole run's results that cost about 0.4 s per 1,000 cases.

    When the CLI asked for SIGTERM to end runs (`errors.raise_terminated` is its handler),
    SIGTERM cancels the main coroutine as asyncio does for Ctrl-C, so everything it holds
    (agent processes, clients) is closed inside the loop, and `Terminated` is raised here.
    """
    box: dict[str, Any] = {}

    async def main() -> None:
        if watch_sigterm:
            _cancel_on_sigterm(box)
        box["value"] = await make_coroutine()

    try:
        asyncio.get_running_loop()
        inside_a_loop = True
    except RuntimeError:
        inside_a_loop = False
    on_main_thread = threading.current_thread() is threading.main_thread()
    watch_sigterm = not inside_a_loop and on_main_thread and signal.getsignal(signal.SIGTERM) is raise_terminated
    if not inside_a_loop:  # run outside the `except`, or every traceback of the run would carry it
        try:
            asyncio.run(main())
        except asyncio.CancelledError:
            if box.get("terminated"):
                raise Terminated() from None
            raise
        finally:
            if watch_sigterm:  # closing the loop put back the default handler, which kills at once
                signal.signal(signal.SIGTERM, raise_terminated)
        return box["value"]

    def work() -> None:
        try:
            asyncio.run(main())
        except BaseException as error:  # re-raised in the caller's thread
            box["error"] = error

    thread = threading.Thread(target=work, name="evalkit-run")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["value"]


def _cancel_on_sigterm(box: dict[str, Any]) -> None:
    """SIGTERM cancels the running main task once; a second SIGTERM does not cut its clean-up short."""
    task = asyncio.current_task()
    assert task is not None

    def terminate() -> None:
        if not box.get("terminated"):
            box["terminated"] = True
            task.cancel()

    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, terminate)


class LoopThread:
    """An event loop of its own, running in a thread, for sync code that runs many coroutines
    against objects bound to one loop: a `--cluster` worker's agent, built once and used by every
    chunk of cases the worker runs (its clients and processes belong to the loop they were made on).

    `run` may be called from any thread but the loop's own, by several threads at once."""

    def __init__(self, name: str) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=name, daemon=True)
        self._thread.start()

    def run(self, make_coroutine: Callable[[], Awaitable[T]]) -> T:
        async def main() -> T:
            return await make_coroutine()

        return asyncio.run_coroutine_threadsafe(main(), self._loop).result()

    def call_soon(self, callback: Callable[[], object]) -> None:
        """`callback()` on the loop's thread, soon, from any thread; not waited for."""
        self._loop.call_soon_threadsafe(callback)

    def close(self) -> None:
        """Stop the loop once what it runs has returned, and wait for its thread."""
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()
