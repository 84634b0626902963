"""A scripted model server on 127.0.0.1 for offline tests and benchmarks.

The HTTP side is a real server in a background thread, so the real client libraries
talk to it exactly as they would to a provider. Subclasses speak one provider's
protocol (`FakeGemini`, `FakeOpenAI`); this module holds what they share:

* replies chosen by rules on the prompt text: `server.when("substring").reply("a", "b")`
  answers the 1st, 3rd, ... call with a given prompt "a" and the 2nd, 4th, ... "b"
  (each prompt has its own position in the cycle); `server.responder(fn)` lets
  `fn(prompt, request_json)` decide (return None to fall through); otherwise
  `default_reply`.
* a reply is a text, or a `Reply` of several parts: texts and function calls
  (`Reply(function_call("get_weather", city="Paris"))`), so an agent with tools can
  be driven offline. The subclass renders it in its provider's shape.
* fault injection: the next N calls fail with a status (`fail_next`), return a
  garbled body (`malformed_next`) or drop the connection (`drop_next`); a fraction of
  all calls fails at random with a fixed seed (`fail_randomly`); `fail_always`
  simulates an outage; every reply can be delayed by `latency` seconds.
* a record of every request (`requests`, `prompts`), with the media parts it carried
  decoded (`RecordedRequest.media`: type and bytes; a part the real service would refuse,
  such as bad base64, is answered 400), the number of calls and the most requests ever in
  flight at once (`max_in_flight`).

Failed calls do not advance a prompt's reply cycle, so retried calls get the reply
the failed one would have had. Everything is thread-safe.
"""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
from collections import deque
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evalkit.testing.replies import (
    FunctionCall,
    ParsedCall,
    RecordedRequest,
    Reply,
    ReceivedMedia,
    ReplyRule,
    RequestRejected,
    Responder,
    _Fault,
    _Rule,
    as_reply,
    function_call,
    reply_token_text,
    token_count,
)

__all__ = ["FunctionCall", "ParsedCall", "ReceivedMedia", "RecordedRequest", "Reply", "ReplyRule",
           "RequestRejected", "ScriptedModelServer",
           "as_reply", "function_call", "reply_token_text", "token_count"]

class ScriptedModelServer:
    """Base class; subclasses implement `_parse`, `_render_reply`, `_render_error`."""

    url_suffix = ""

    def __init__(self, *, default_reply: str = "ok", latency: float = 0.0):
        self.default_reply = default_reply
        self.latency = latency
        self._lock = threading.Lock()
        self._rules: list[_Rule] = []
        self._faults: deque[_Fault] = deque()
        self._random_failure: tuple[float, tuple[int, ...], float | None] | None = None
        self._rng = random.Random(0)
        self._most_failures_in_a_row: int | None = None
        self._failures_in_a_row: dict[str, int] = {}  # prompt → random failures since its last success
        self._requests: list[RecordedRequest] = []
        self._in_flight = 0
        self._max_in_flight = 0
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------

    def start(self) -> ScriptedModelServer:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        handler = type("Handler", (_Handler,), {"owner": self})
        httpd = _QuietServer(("127.0.0.1", 0), handler)
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.02},  # so stop() returns promptly
            name=type(self).__name__,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:  # unblock handler threads held by keep-alive
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the server is not running")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}{self.url_suffix}"

    # -- scripting ----------------------------------------------------------

    def when(self, substring: str) -> ReplyRule:
        """A rule for prompts containing `substring`; rules are tried in order."""
        rule = _Rule(match=lambda prompt: substring in prompt)
        with self._lock:
            self._rules.append(rule)
        return ReplyRule(rule, self._lock)

    def responder(self, fn: Responder) -> None:
        """`fn(prompt, request_json)` returns the reply (a text, `FunctionCall` or `Reply`), or None to fall through."""
        with self._lock:
            self._rules.append(_Rule(responder=fn))

    def fail_next(self, n: int = 1, *, status: int = 503, retry_after: float | None = None) -> None:
        with self._lock:
            self._faults.extend(_Fault("status", status, retry_after) for _ in range(n))

    def malformed_next(self, n: int = 1) -> None:
        with self._lock:
            self._faults.extend(_Fault("malformed") for _ in range(n))

    def drop_next(self, n: int = 1) -> None:
        with self._lock:
            self._faults.extend(_Fault("dropped") for _ in range(n))

    def fail_randomly(
        self,
        rate: float,
        *,
        statuses: tuple[int, ...] = (429, 503),
        retry_after: float | None = None,
        seed: int = 0,
        at_most_in_a_row: int | None = None,
    ) -> None:
        """Fail each call with probability `rate`, with one of `statuses` (seeded).

        Which call draws which fault depends on the order concurrent calls arrive in.
        `at_most_in_a_row` lets a prompt through once it has failed that many times in a
        row, so a client allowed more attempts always gets its answer, whatever the order.
        """
        with self._lock:
            self._random_failure = (rate, statuses, retry_after) if rate > 0 else None
            self._rng = random.Random(seed)
            self._most_failures_in_a_row = at_most_in_a_row
            self._failures_in_a_row.clear()

    def fail_always(self, status: int = 503) -> None:
        self.fail_randomly(1.0, statuses=(status,))

    def heal(self) -> None:
        """Forget all injected faults."""
        with self._lock:
            self._faults.clear()
            self._random_failure = None

    # -- observations -------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def prompts(self) -> list[str]:
        return [r.prompt for r in self.requests]

    @property
    def call_count(self) -> int:
        with self._lock:
            return len(self._requests)

    @property
    def reply_count(self) -> int:
        """Calls answered with a model reply (not failed, garbled or dropped)."""
        return sum(1 for r in self.requests if r.outcome == "reply")

    @property
    def max_in_flight(self) -> int:
        with self._lock:
            return self._max_in_flight

    def reset_counters(self) -> None:
        with self._lock:
            self._requests.clear()
            self._max_in_flight = self._in_flight

    # -- protocol hooks (subclasses) ----------------------------------------

    def _parse(self, path: str, body: dict[str, Any]) -> ParsedCall | None:
        """The call in this request, or None if the path is not served (404)."""
        raise NotImplementedError

    def _render_reply(
        self, call: ParsedCall, reply: Reply, thought: str | None, input_tokens: int, output_tokens: int
    ) -> tuple[str, bytes]:
        """(content type, body) of a successful reply."""
        raise NotImplementedError

    def _render_error(self, status: int, message: str) -> bytes:
        raise NotImplementedError

    # -- request handling (handler threads) ---------------------------------

    def _decide(self, call: ParsedCall, body: dict[str, Any]) -> tuple[_Fault | None, Reply, str | None]:
        """The fault to inject, or the reply text (and thought) for this call."""
        with self._lock:
            if self._faults:
                return self._faults.popleft(), Reply(), None
            if self._random_failure is not None:
                rate, statuses, retry_after = self._random_failure
                in_a_row = self._failures_in_a_row.get(call.prompt, 0)
                allowed = self._most_failures_in_a_row is None or in_a_row < self._most_failures_in_a_row
                if self._rng.random() < rate and allowed:
                    self._failures_in_a_row[call.prompt] = in_a_row + 1
                    status = statuses[self._rng.randrange(len(statuses))]
                    return _Fault("status", status, retry_after), Reply(), None
                self._failures_in_a_row.pop(call.prompt, None)
            rules = list(self._rules)
        for rule in rules:
            if rule.responder is not None:
                try:
                    text = rule.responder(call.prompt, body)
                    reply = None if text is None else as_reply(text)
                except Exception as error:  # a broken script shows up as a server error
                    return _Fault("status", 500, None, f"responder raised {error!r}"), Reply(), None
                if reply is not None:
                    return None, reply, None
            elif rule.match is not None and rule.match(call.prompt) and rule.texts:
                with self._lock:
                    position = rule.positions.get(call.prompt, 0)
                    rule.positions[call.prompt] = position + 1
                return None, rule.texts[position % len(rule.texts)], rule.thought
        return None, as_reply(self.default_reply), None

    def _record(
        self, path: str, call: ParsedCall, body: dict[str, Any], headers: dict[str, str], outcome: str
    ) -> None:
        recorded = RecordedRequest(path, call.model, call.prompt, call.config, body, headers, outcome, call.media)
        with self._lock:
            self._requests.append(recorded)

    def _enter(self, connection: socket.socket) -> None:
        with self._lock:
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)
            self._connections.add(connection)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def _forget_connection(self, connection: socket.socket) -> None:
        with self._lock:
            self._connections.discard(connection)


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    # socketserver's default backlog is 5: with dozens of cases connecting at once on a busy
    # machine the kernel drops the overflow and the clients see 'connection reset by peer'.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that timed out or went away is part of the tests, not an error.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    owner: ScriptedModelServer
    protocol_version = "HTTP/1.1"  # keep-alive, as real providers allow
    # Headers and body go out in two writes; without this, Nagle's algorithm and
    # delayed ACKs add ~40 ms to every reply on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet tests
        pass

    def finish(self) -> None:
        self.owner._forget_connection(self.connection)
        super().finish()

    def _send(
        self, status: int, content_type: str, payload: bytes, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._send(404, "application/json", self.owner._render_error(404, "not found"))

    def do_POST(self) -> None:  # noqa: N802
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, "application/json", owner._render_error(400, "request body is not JSON"))
            return
        try:
            call = owner._parse(self.path, body)
        except RequestRejected as rejected:
            self._send(400, "application/json", owner._render_error(400, str(rejected)))
            return
        if call is None:
            self._send(404, "application/json", owner._render_error(404, f"no such method: {self.path}"))
            return
        headers = {k.lower(): v for k, v in self.headers.items()}
        owner._enter(self.connection)
        try:
            fault, reply, thought = owner._decide(call, body)
            if fault is None:
                outcome = "reply"
            else:
                outcome = f"status {fault.status}" if fault.kind == "status" else fault.kind
            # Recorded on arrival, so a caller that times out is still counted.
            owner._record(self.path, call, body, headers, outcome)
            if owner.latency > 0:
                owner._stopping.wait(owner.latency)
            if fault is None:
                content_type, payload = owner._render_reply(
                    call, reply, thought, token_count(call.prompt), token_count(reply_token_text(reply))
                )
                self._send(200, content_type, payload)
            elif fault.kind == "status":
                extra = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
                try:
                    phrase = HTTPStatus(fault.status).phrase
                except ValueError:
                    phrase = "Error"
                error_body = owner._render_error(fault.status, f"{phrase} ({fault.message})")
                self._send(fault.status, "application/json", error_body, extra)
            elif fault.kind == "malformed":
                self._send(200, "application/json", b'{"candidates": [{"content": {"parts": [{"te')
            else:
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        finally:
            owner._leave()
