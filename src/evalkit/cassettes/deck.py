"""The cassettes of one run and the three modes: replay, record, auto.

`CassetteDeck.answer` is called for every model request the proxy receives. It finds
the request's case (`routing.CaseTracker`), then:

* replay: answers with the first unused recorded exchange whose request has the same
  normalised content; a request with none is a miss: the case is marked (its turn
  becomes `error`, naming what differs from the closest recorded request) and the
  agent gets a 404 it will not retry.
* record: forwards to the upstream and keeps the exchange; the case's cassette starts
  empty, so it is re-recorded whole.
* auto: replays what is recorded, forwards and keeps what is not.

A case's cassette is written when the case finishes, so an interrupted run leaves
complete cassettes for the finished cases and the old ones for the rest. See
docs/cassettes.md.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from evalkit.cassettes.matching import closest_difference, request_key
from evalkit.cassettes.protocols import ModelProtocol, protocol_for
from evalkit.cassettes.routing import CaseState, CaseTracker
from evalkit.cassettes.store import Exchange, cassette_files, load_cassette, missed_in, read_exchanges
from evalkit.errors import UsageError
from evalkit.cassettes.upstream import Forwarder, parse_response, render_response

MODES = ("replay", "record", "auto")


def check_cassette_options(folder: Path, mode: str) -> None:
    """`--cassettes DIR --cassette-mode MODE` of a command that serves cassettes (`proxy`, `mcp`)."""
    if mode not in MODES:
        raise UsageError(f"--cassette-mode {mode}: expected one of {', '.join(MODES)}")
    if folder.exists() and not folder.is_dir():
        raise UsageError(f"--cassettes {folder}: is a file; name the folder that holds the cassettes")


@dataclass(frozen=True)
class ProxyAnswer:
    status: int
    content_type: str
    body: bytes


class CassetteDeck:
    def __init__(self, folder: Path, mode: str, forwarder: Forwarder | None, *, per_conversation: bool = False):
        if mode not in MODES:
            raise ValueError(f"cassette mode {mode!r}: expected one of {', '.join(MODES)}")
        self.folder = folder
        self.mode = mode
        self.forwarder = forwarder
        # The standalone proxy has no runner telling it the cases: each conversation
        # (told apart by its first user message) is then a case of its own.
        self.per_conversation = per_conversation
        self.tracker = CaseTracker()
        self.unattributed = 0  # recorded calls that could not be told apart by their user text
        self._runs: dict[tuple[str, str], int] = {}
        self._runs_lock = threading.Lock()
        self.stats = {"replayed": 0, "recorded": 0, "missed": 0}
        self._pool: dict[str, list[Exchange]] | None = None
        self.unreadable: list[str] = []  # cassettes of the folder that could not be read for the pool
        self._finished: dict[str, list[CaseState]] = {}  # finished cases by first user message
        self._conversations: dict[str, CaseState] = {}  # the standalone proxy's, by first user message

    # -- cases (called by the run's agent wrapper) ---------------------------

    def open_case(self, eval_set_id: str, eval_id: str) -> tuple[str, CaseState]:
        """Start tracking a case; its n-th opening in this run uses the n-th run's cassette."""
        with self._runs_lock:
            run = self._runs.get((eval_set_id, eval_id), 0) + 1
            self._runs[(eval_set_id, eval_id)] = run
        cassette = load_cassette(self.folder, eval_set_id, eval_id, run)
        if self.mode == "record":
            cassette.exchanges, cassette.tool_calls, cassette.tool_listings = [], None, []
        label = f"case {eval_id!r} of {eval_set_id}" + (f" (run {run})" if run > 1 else "")
        state = CaseState(cassette, label)
        state.keys = [self._key_of(e) for e in cassette.exchanges]
        key = f"{eval_set_id}\x00{eval_id}\x00{run}"
        self.tracker.open(key, state)
        return key, state

    def close_case(self, key: str, *, save: bool) -> None:
        state = self.tracker.close(key)
        if state is None or not save or self.mode == "replay":
            return
        with self.tracker.lock:
            state.finished = True
            self._finished.setdefault(state.user_texts[0] if state.user_texts else "", []).append(state)
            self._write_finished(state)

    def _write_finished(self, state: CaseState) -> None:
        """Write a finished case's cassette, and its twins' that gave or took a call (lock held)."""
        twins = self._finished[state.user_texts[0] if state.user_texts else ""]
        changed = {id(state): state} if state.changed else {}
        changed.update((id(s), s) for s in share_identical_calls(twins))
        for case in changed.values():
            order = sorted(range(len(case.keys)), key=lambda i: case.cassette.exchanges[i].turn or 0)
            case.cassette.exchanges = [case.cassette.exchanges[i] for i in order]
            case.keys = [case.keys[i] for i in order]
            case.cassette.save()
        # Only a case with a gap or a spare recording can still give or take one: forget the
        # rest, so memory does not grow with the run.
        twins[:] = [t for t in twins if _has_gap_or_spare(t)]

    # -- requests (called on the proxy's handler threads) ---------------------

    def answer(self, path: str, headers: dict[str, str], raw: bytes) -> ProxyAnswer:
        protocol = protocol_for(path)
        if protocol is None:
            return _error(404, f"evalkit's model proxy does not serve {path.split('?', 1)[0]} "
                               "(it serves Gemini generateContent/streamGenerateContent and OpenAI /v1/chat/completions)")
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError("not a JSON object")
        except ValueError as error:
            return _error(400, f"request body is not a JSON object: {error}")
        normalised = protocol.normalise(path, body)
        key = request_key(protocol.name, normalised)
        user_texts = protocol.user_texts(body)
        with self.tracker.lock:
            if self.per_conversation:
                candidates = [self._conversation(user_texts, key)]
            else:
                candidates = self.tracker.candidates(user_texts)
            if self.mode != "record":
                for state in candidates:
                    # A call still waiting for the upstream (a conversation started again meanwhile)
                    # has no answer to replay yet.
                    index = next((i for i, k in enumerate(state.keys) if k == key and i not in state.used
                                  and state.cassette.exchanges[i].response is not None), None)
                    if index is not None:
                        state.used.add(index)
                        self.stats["replayed"] += 1
                        return _replayed(protocol, state.cassette.exchanges[index])
                pooled = self._from_pool(key)
                if pooled is not None:
                    self.stats["replayed"] += 1
                    return _replayed(protocol, pooled)
            if self.mode == "replay":
                self.stats["missed"] += 1
                return _error(404, self._miss(candidates, protocol, normalised))
            owner: CaseState | None
            if self.per_conversation:  # the conversation's turn: how many user messages it has sent
                owner, turn = candidates[0], len(user_texts) or None
            else:
                owner, turn = self.tracker.owner_for_recording(candidates, user_texts, key) if candidates else (None, None)
            if owner is None:
                return _error(400, "evalkit's model proxy received a model call while no eval case was running; "
                                   "nothing to record it into")
            if len(candidates) > 1 and not _names_the_case(owner, user_texts):
                self.unattributed += 1
            # Reserved now, filled in when the upstream answers: concurrent identical calls of
            # tied cases each see the other's reservation, and the file keeps the calls' order.
            slot = Exchange(turn, protocol.name, _recorded_path(path), body, None)
            owner.used.add(len(owner.keys))
            owner.keys.append(key)
            owner.cassette.exchanges.append(slot)
        return self._record(owner, slot, protocol, path, headers, raw)

    def _record(self, owner: CaseState, slot: Exchange, protocol: ModelProtocol, path: str,
                headers: dict[str, str], raw: bytes) -> ProxyAnswer:
        assert self.forwarder is not None
        import httpx

        try:
            status, content_type, answer = self.forwarder.forward(protocol, path, headers, raw)
        except httpx.HTTPError as error:
            status, content_type, answer = 502, "", b""
            url = self.forwarder.upstreams.url_for(protocol, _without_query(path))
            failure = _error(502, f"evalkit's model proxy could not reach the upstream {url}: {error}")
        with self.tracker.lock:
            if 200 <= status < 300:  # failures are passed on, never kept: a replayed 429 would be forever
                slot.response = parse_response(status, content_type, answer)
                owner.changed = True
                self.stats["recorded"] += 1
                if self.per_conversation:  # no case end to wait for: keep every call at once
                    owner.cassette.save()
                elif owner.finished:  # a twin's call, answered after this case was written
                    self._write_finished(owner)
            else:
                # An unanswered reservation: never matched, never written.
                index = next(i for i, e in enumerate(owner.cassette.exchanges) if e is slot)
                owner.keys[index] = ""
        if not content_type:
            return failure
        return ProxyAnswer(status, content_type, answer)

    @property
    def reads_memory_only(self) -> bool:
        """Whether answering can no longer read a file (the folder's cassettes are pooled already)."""
        return self._pool is not None

    def _from_pool(self, key: str) -> Exchange | None:
        """An identical request recorded in any cassette of the folder (call with the lock held).

        Identical requests have interchangeable answers. This answers a case whose twin
        (a case opening with the same messages, run at the same time) kept the recording
        of a call they both made; the folder is read once, on first need.
        """
        if self._pool is None:
            self._pool = {}
            for path in cassette_files(self.folder):
                try:
                    exchanges = read_exchanges(path)
                except UsageError as error:  # named with the miss it could not help
                    self.unreadable.append(str(error))
                    continue
                for exchange in exchanges:
                    self._pool.setdefault(self._key_of(exchange), []).append(exchange)
        recordings = self._pool.get(key)
        return recordings.pop(0) if recordings else None

    def _miss(self, candidates: list[CaseState], protocol: ModelProtocol, normalised: dict[str, Any]) -> str:
        if not candidates:
            return "evalkit's model proxy (replay) received a model call while no eval case was running"
        owner = candidates[0]
        detail = missed_in(owner.cassette.path, owner.cassette.exists, lambda: closest_difference(
            normalised, [protocol.normalise(e.path, e.request) for e in owner.cassette.exchanges
                         if e.protocol == protocol.name]))
        turn = f", turn {owner.turn}" if owner.turn is not None else ""
        message = (f"{owner.label}{turn}: no recorded model call matches: {detail}; if the agent's prompt, "
                   "tools or model settings changed, re-record with --cassette-mode record "
                   "(or auto to add only what is missing)")
        if self.unreadable:
            message += f"; {len(self.unreadable)} other cassette(s) could not be read: {'; '.join(self.unreadable[:3])}"
        owner.misses.append(message)
        return message

    def _conversation(self, user_texts: list[str], key: str) -> CaseState:
        """The standalone proxy's case for a request: its conversation, by its first user message.

        Requests of other conversations never land in it, whatever is open. Its opening
        request arriving again once every recording of that request was answered is the
        conversation played again (the next run of the eval set): it starts over, so any
        number of runs replay alike, and `record` records it afresh (call with the lock held).
        """
        first = user_texts[0] if user_texts else ""
        state = self._conversations.get(first)
        if state is None:
            _, state = self.open_case("proxy", conversation_id(first))
            state.user_texts = [first] if first else []
            self._conversations[first] = state
        elif state.keys and key == state.keys[0] and all(i in state.used for i, k in enumerate(state.keys) if k == key):
            state.used.clear()
            if self.mode == "record":
                state.cassette.exchanges, state.keys = [], []
        return state

    @staticmethod
    def _key_of(exchange: Exchange) -> str:
        protocol = protocol_for(exchange.path)
        if protocol is None:
            return ""
        return request_key(protocol.name, protocol.normalise(exchange.path, exchange.request))


def conversation_id(first_user_text: str) -> str:
    """A conversation's cassette name: its first user message, shortened (with a hash when cut)."""
    if not first_user_text:
        return "no-user-text"
    if len(first_user_text) <= 60:
        return first_user_text
    return f"{first_user_text[:60]}-{hashlib.sha256(first_user_text.encode('utf-8')).hexdigest()[:8]}"


def share_identical_calls(twins: list[CaseState]) -> list[CaseState]:
    """Give each finished case its own recording of the calls it shared with its twins.

    Cases that open with the same messages send identical requests at the same turn, and
    while they run the proxy cannot tell whose request arrived (routing.CaseTracker), so
    one case may have kept two recordings of a call while its twin kept none. Once both
    have finished, one recording moves over. Returns the cases whose cassettes changed.
    """
    changed: dict[int, CaseState] = {}
    for receiver in twins:
        for turn in range(1, len(receiver.user_texts) + 1):
            if any(e.turn == turn for e in receiver.cassette.exchanges):
                continue
            for donor in twins:
                if donor is receiver or donor.user_texts[:turn] != receiver.user_texts[:turn]:
                    continue
                at_turn = [i for i, e in enumerate(donor.cassette.exchanges) if e.turn == turn and e.response]
                keys = [donor.keys[i] for i in at_turn]
                surplus = next((i for i in at_turn if keys.count(donor.keys[i]) > 1), None)
                if surplus is None:
                    continue
                exchange = donor.cassette.exchanges.pop(surplus)
                moved_key = donor.keys.pop(surplus)
                position = sum(1 for e in receiver.cassette.exchanges if (e.turn or 0) <= turn)
                receiver.cassette.exchanges.insert(position, exchange)
                receiver.keys.insert(position, moved_key)
                changed[id(donor)], changed[id(receiver)] = donor, receiver
                break
    return list(changed.values())


def _has_gap_or_spare(state: CaseState) -> bool:
    turns = [e.turn for e in state.cassette.exchanges if e.response is not None]
    if any(turn not in turns for turn in range(1, len(state.user_texts) + 1)):
        return True
    pairs = [(e.turn, k) for e, k in zip(state.cassette.exchanges, state.keys) if e.response is not None]
    return len(pairs) != len(set(pairs)) or any(e.response is None for e in state.cassette.exchanges)


def _names_the_case(state: CaseState, user_texts: list[str]) -> bool:
    return bool(state.user_texts) and state.user_texts[-1] in "\n".join(user_texts)


def _replayed(protocol: ModelProtocol, exchange: Exchange) -> ProxyAnswer:
    response = exchange.response
    assert response is not None  # only answered calls are matched (`answer`); files hold only those (store)
    return ProxyAnswer(response.status, response.content_type, render_response(protocol, response))


def _recorded_path(path: str) -> str:
    """The path without its query, except `alt=sse`: a `key=` parameter is never written."""
    route, _, query = path.partition("?")
    kept = [(k, v) for k, v in parse_qsl(query) if k == "alt"]
    return route + ("?" + urlencode(kept) if kept else "")


def _without_query(path: str) -> str:
    return path.split("?", 1)[0]


def _error(status: int, message: str) -> ProxyAnswer:
    names = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 502: "UNAVAILABLE", 503: "UNAVAILABLE"}
    # One shape both clients read: Google's code/status and OpenAI's type.
    error = {"code": status, "message": message, "status": names.get(status, "UNKNOWN"), "type": "evalkit_cassette"}
    return ProxyAnswer(status, "application/json", json.dumps({"error": error}).encode("utf-8"))
