"""The judge reply cache: one SQLite file shared by every run on the machine.

A rerun of an unchanged eval makes no judge call. Several evalkit processes (CI
shards, a developer's parallel runs) may write the same file at once, so the
database runs in WAL mode with a busy timeout and every write is one tiny
autocommit statement. SQLite calls run in a worker thread so a slow disk or a
lock wait never stalls the event loop.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalkit.schema.judging import JudgeReply, JudgeRequest

logger = logging.getLogger(__name__)

CACHE_FILE_NAME = "judge-cache.sqlite3"
# Bump when the meaning of a stored reply changes, so old entries stop matching.
_KEY_VERSION = 1
# How long a writer waits for another process's lock before giving up on one entry.
_BUSY_TIMEOUT_S = 30.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS judge_replies (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    input_tokens INTEGER,
    output_tokens INTEGER,
    created_at REAL NOT NULL
)
"""


def default_cache_dir() -> Path:
    """`$EVALKIT_CACHE_DIR`, else `.evalkit/cache` in the current folder (`evalkit.settings.Environment`)."""
    from evalkit.settings import Environment

    return Environment.read().cache_dir


def _jsonable(value: Any) -> Any:
    """Config values as plain JSON: pydantic models become their non-empty fields."""
    if hasattr(value, "model_dump"):
        return _jsonable(value.model_dump(mode="json", exclude_none=True))
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def cache_key(request: JudgeRequest) -> str:
    """sha256 of the canonical JSON of everything that can change a reply.

    Media count by their type and sha256 only; a request without media keeps the key it had
    before media existed, so existing caches stay valid.
    """
    payload = {
        "v": _KEY_VERSION,
        "model": request.model,
        "prompt": request.prompt,
        "config": _jsonable(request.config or {}),
        "sample_index": request.sample_index,
    }
    if request.media:  # by content hash: two requests differing only in an image's bytes differ here too
        payload["media"] = [[part.mime_type, part.sha256] for part in request.media]
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class JudgeCache:
    """Stored judge replies by `cache_key`. Opens the file on first use.

    A cache that cannot be opened or read (unwritable folder, damaged file) is
    switched off with one warning: judging goes on, only slower.
    """

    def __init__(self, directory: str | os.PathLike[str] | None = None):
        self.path = (Path(directory) if directory is not None else default_cache_dir()) / CACHE_FILE_NAME
        self._connection: sqlite3.Connection | None = None
        self._disabled = False
        # One connection per process, used from worker threads one call at a time.
        self._lock = threading.Lock()

    async def get(self, request: JudgeRequest) -> JudgeReply | None:
        if self._disabled:
            return None
        return await asyncio.to_thread(self._get_sync, cache_key(request))

    async def put(self, request: JudgeRequest, reply: JudgeReply) -> None:
        if self._disabled:
            return
        await asyncio.to_thread(self._put_sync, cache_key(request), request.model, reply)

    def close(self) -> None:
        with self._lock:
            if self._connection is not None:
                self._connection.close()
                self._connection = None

    # -- worker-thread side -------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None:
            from evalkit.foundation.state_folder import make_folder

            make_folder(self.path.parent)
            connection = sqlite3.connect(
                self.path,
                timeout=_BUSY_TIMEOUT_S,
                isolation_level=None,  # autocommit: each statement is its own short transaction
                check_same_thread=False,
            )
            try:
                connection.execute(f"PRAGMA busy_timeout = {int(_BUSY_TIMEOUT_S * 1000)}")
                _with_lock_retries(lambda: connection.execute("PRAGMA journal_mode = WAL"))
                connection.execute("PRAGMA synchronous = NORMAL")
                _with_lock_retries(lambda: connection.execute(_SCHEMA))
            except BaseException:
                connection.close()
                raise
            self._connection = connection
        return self._connection

    def _disable(self, error: Exception) -> None:
        if not self._disabled:
            self._disabled = True
            logger.warning("judge cache %s is not usable, continuing without it: %s", self.path, error)

    def _get_sync(self, key: str) -> JudgeReply | None:
        with self._lock:
            if self._disabled:
                return None
            try:
                row = self._connect().execute(
                    "SELECT text, input_tokens, output_tokens FROM judge_replies WHERE key = ?",
                    (key,),
                ).fetchone()
            except sqlite3.OperationalError as error:
                if not _is_lock_error(error):
                    self._disable(error)
                return None  # another process held the lock too long: a miss, not a broken cache
            except (sqlite3.Error, OSError) as error:
                self._disable(error)
                return None
        if row is None:
            return None
        text, input_tokens, output_tokens = row
        return JudgeReply(text, input_tokens, output_tokens, from_cache=True)

    def _put_sync(self, key: str, model: str, reply: JudgeReply) -> None:
        with self._lock:
            if self._disabled:
                return
            try:
                self._connect().execute(
                    "INSERT OR REPLACE INTO judge_replies"
                    " (key, model, text, input_tokens, output_tokens, created_at)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    (key, model, reply.text, reply.input_tokens, reply.output_tokens, time.time()),
                )
            except sqlite3.OperationalError as error:
                if _is_lock_error(error):
                    logger.debug("judge cache %s busy; not storing one reply: %s", self.path, error)
                else:
                    self._disable(error)
            except (sqlite3.Error, OSError) as error:
                self._disable(error)


def _is_lock_error(error: sqlite3.OperationalError) -> bool:
    message = str(error).lower()
    return "locked" in message or "busy" in message


def _with_lock_retries(statement: Any, attempts: int = 100, pause_s: float = 0.05) -> Any:
    """Run a setup statement that SQLite may refuse with "locked" without waiting.

    Switching to WAL mode and creating the table need a lock that SQLite does not always
    wait for (the busy timeout does not cover every case), so processes opening a new
    cache file at the same moment retry here instead of giving the cache up.
    """
    for attempt in range(attempts):
        try:
            return statement()
        except sqlite3.OperationalError as error:
            if not _is_lock_error(error) or attempt == attempts - 1:
                raise
            time.sleep(pause_s)
