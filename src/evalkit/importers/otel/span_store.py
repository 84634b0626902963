"""A temporary on-disk store that groups spans by trace and turns by conversation.

The spans of one trace may be spread over a whole file (each batch an exporter sends
is a line), and the turns of one conversation over many traces. Holding them all
until the end would make memory grow with the file; they are kept in a SQLite file
in a temporary folder instead (deleted when the import ends), so memory stays flat
in the file's size (docs/performance.md, "Importing traces").
"""

from __future__ import annotations

import json
import pickle
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from types import TracebackType

from evalkit.traces.spans import SlimSpan
from evalkit.traces.turn_events import Turn

_BATCH = 2_000  # rows per insert: few round-trips, little held


class SpanStore:
    def __init__(self) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="evalkit-otel-")
        self._db = sqlite3.connect(str(Path(self._folder.name) / "spans.sqlite"))
        # A scratch file: nothing to recover after a crash, so no journal and no fsync.
        self._db.execute("PRAGMA journal_mode = OFF")
        self._db.execute("PRAGMA synchronous = OFF")
        self._db.execute("CREATE TABLE spans (trace TEXT NOT NULL, data BLOB NOT NULL)")
        self._db.execute("CREATE TABLE turns (conversation TEXT NOT NULL, start INTEGER NOT NULL, data TEXT NOT NULL, "
                         "recorded INTEGER NOT NULL, prior TEXT, exchange TEXT)")
        self._pending: list[tuple[str, bytes]] = []

    def __enter__(self) -> SpanStore:  # noqa: PYI034 - Self needs Python 3.11
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._db.close()
        self._folder.cleanup()

    def add_span(self, span: SlimSpan) -> None:
        # pickled, not JSON: three times quicker both ways, and only this process reads its own scratch file
        self._pending.append((span.trace_id, pickle.dumps(span, protocol=pickle.HIGHEST_PROTOCOL)))
        if len(self._pending) >= _BATCH:
            self._flush()

    def traces(self) -> Iterator[list[SlimSpan]]:
        """Each trace's spans together, traces in no particular order."""
        self._flush()
        self._db.execute("CREATE INDEX spans_by_trace ON spans (trace)")
        current: str | None = None
        spans: list[SlimSpan] = []
        for trace_id, data in self._db.execute("SELECT trace, data FROM spans ORDER BY trace"):
            if trace_id != current and spans:
                yield spans
                spans = []
            current = trace_id
            spans.append(pickle.loads(data))  # noqa: S301 - written above by this process, never by a user
        if spans:
            yield spans

    def add_turns(self, turns: Iterable[Turn]) -> None:
        self._db.executemany("INSERT INTO turns VALUES (?, ?, ?, ?, ?, ?)",
                             [(t.conversation, t.start_ns, json.dumps(t.__dict__, ensure_ascii=False), t.recorded,
                               t.prior, t.exchange) for t in turns])

    def link_conversations(self) -> None:
        """The history rule, for turns whose spans record no conversation: a turn whose model input
        begins with another turn's whole exchange (its input and its answer) continues that conversation."""
        if self._db.execute("SELECT 1 FROM turns WHERE recorded = 0 LIMIT 1").fetchone() is None:
            return
        ends: dict[str, tuple[str, str]] = {}  # an exchange's hash → (conversation, recorded or not)
        moved: list[tuple[str, int]] = []
        rows = self._db.execute("SELECT rowid, conversation, recorded, prior, exchange FROM turns ORDER BY start, rowid")
        for rowid, conversation, recorded, prior, exchange in rows.fetchall():
            if not recorded and prior in ends:
                conversation = ends.pop(prior)[0]
                moved.append((conversation, rowid))
            if exchange:
                ends[exchange] = (conversation, recorded)
        self._db.executemany("UPDATE turns SET conversation = ?1, data = json_set(data, '$.conversation', ?1) "
                             "WHERE rowid = ?2", moved)

    def conversations(self) -> Iterator[list[Turn]]:
        """Each conversation's turns in time order; conversations in the order they began."""
        self._db.execute("CREATE INDEX turns_by_conversation ON turns (conversation, start)")
        keys = self._db.execute("SELECT conversation, MIN(start) AS began FROM turns GROUP BY conversation "
                                "ORDER BY began, conversation")
        for (conversation, _began) in keys:
            rows = self._db.execute("SELECT data FROM turns WHERE conversation = ? ORDER BY start, rowid", (conversation,))
            yield [Turn(**json.loads(data)) for (data,) in rows]

    def _flush(self) -> None:
        if self._pending:
            self._db.executemany("INSERT INTO spans VALUES (?, ?)", self._pending)
            self._pending = []
