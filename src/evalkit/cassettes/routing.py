"""Which eval case a model request belongs to, when many cases run at once.

In-process agents share one process environment, so every case's model calls reach
the proxy at the same URL, with nothing in the request that names the case. What a
request does carry is its conversation: the user's messages of the case so far. The
runner tells the tracker each case's user messages as it sends them
(`CaseTracker.open` / `user_turn` / `close`); a request belongs to the case in flight
whose latest user message appears in it, and among several such cases to the one with
most of its messages in it (the case further along the same conversation).

Two cases in flight at once that have sent the very same messages are
indistinguishable, and so are their requests: such a request is answered from
whichever of those cases has an unused recording of exactly that request (identical
requests have interchangeable answers). When recording, each of those
cases takes one such request in turn. When no case's message appears (the agent
rewrote the user's text), every case in flight is a candidate and the exact request
content decides. See docs/cassettes.md, "Concurrent cases".
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from evalkit.cassettes.store import Cassette


@dataclass
class CaseState:
    """One case in flight: its cassette, its conversation so far, what replay used up."""

    cassette: Cassette
    label: str  # "case 'paris' of weather (run 2)": for messages
    user_texts: list[str] = field(default_factory=list)
    turn: int | None = None  # 1-based turn in flight
    used: set[int] = field(default_factory=set)  # indices of exchanges already replayed
    keys: list[str] = field(default_factory=list)  # match key of each exchange
    misses: list[str] = field(default_factory=list)  # replay misses, turned into the case's error
    changed: bool = False  # new exchanges to write when the case finishes
    finished: bool = False  # all its turns played (a twin's call may still be filled in)
    opened: int = 0  # order of opening: ties go to the earlier case


class CaseTracker:
    def __init__(self) -> None:
        self._lock = threading.RLock()  # a request may open a case while holding it
        self._cases: dict[str, CaseState] = {}
        self._opened = 0

    @property
    def lock(self) -> threading.RLock:
        """Held while a request picks and uses up a recording, so two never take the same one."""
        return self._lock

    def open(self, key: str, state: CaseState) -> None:
        with self._lock:
            self._opened += 1
            state.opened = self._opened
            self._cases[key] = state

    def user_turn(self, key: str, turn: int, text: str) -> None:
        with self._lock:
            state = self._cases[key]
            state.turn = turn
            if text:
                state.user_texts.append(text)

    def close(self, key: str) -> CaseState | None:
        with self._lock:
            return self._cases.pop(key, None)

    def candidates(self, request_user_texts: list[str]) -> list[CaseState]:
        """Cases the request may belong to, most likely first (call with `lock` held)."""
        joined = "\n".join(request_user_texts)
        scored = []
        for state in self._cases.values():
            if not state.user_texts or state.user_texts[-1] not in joined:
                continue
            exact = set(request_user_texts)
            score = sum(2 if text in exact else 1 for text in state.user_texts if text in joined)
            scored.append((-score, state.opened, state))
        if scored:
            return [state for _, _, state in sorted(scored, key=lambda item: item[:2])]
        return sorted(self._cases.values(), key=lambda state: state.opened)

    def owner_for_recording(
        self, candidates: list[CaseState], request_user_texts: list[str], key: str
    ) -> tuple[CaseState, int | None]:
        """Which case keeps a recorded call, and at which turn (call with `lock` held).

        Cases that opened with the same messages send identical requests, and the proxy
        cannot tell whose arrived. Each such case must still end up with one recording
        of it: the call goes to the first of them (including those that have since moved
        on to later turns) that has none yet at that point of the conversation.
        """
        best = candidates[0]
        joined = "\n".join(request_user_texts)
        if not best.user_texts or best.user_texts[-1] not in joined:
            return best, best.turn
        position = len(best.user_texts)  # the turn the request was sent in, whoever sent it
        same_start = [c for c in self._cases.values() if c.user_texts[:position] == best.user_texts]
        for state in sorted(same_start, key=lambda c: (c is not best, c.opened)):
            if not any(k == key for k, e in zip(state.keys, state.cassette.exchanges) if e.turn == position):
                return state, position
        return best, position
