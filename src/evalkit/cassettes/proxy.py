"""The model proxy: an HTTP server on 127.0.0.1 that hands every request to a `CassetteDeck`.

It runs on its own threads (the standard library's threading HTTP server, like
`evalkit.testing`'s fake model servers), not on the run's event loop: an in-process
agent that calls a model synchronously blocks that loop, and a proxy on the same loop
could then never answer it. Each connection gets a thread; recording forwards on that
thread with a shared httpx client.

    proxy = ModelProxy(deck).start()
    proxy.environment()  # {"GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:PORT", "OPENAI_BASE_URL": ".../v1", ...}
    proxy.stop()
"""

from __future__ import annotations

import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from evalkit.cassettes.deck import CassetteDeck
from evalkit.cassettes.protocols import GEMINI, OPENAI
from evalkit.cassettes.upstream import VERTEX_ENV_VAR


class ModelProxy:
    def __init__(self, deck: CassetteDeck, *, port: int = 0):
        self.deck = deck
        self._port = port
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> ModelProxy:
        handler = type("Handler", (_Handler,), {"deck": self.deck})
        self._httpd = _Server(("127.0.0.1", self._port), handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="evalkit-model-proxy", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def serve_forever(self) -> None:
        """For `evalkit proxy`: block until Ctrl-C."""
        assert self._thread is not None
        while self._thread.is_alive():
            self._thread.join(0.5)

    @property
    def url(self) -> str:
        assert self._httpd is not None, "the proxy is not running"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def environment(self) -> dict[str, str]:
        """The variables that send an agent's model calls here."""
        return {GEMINI.env_var: self.url, VERTEX_ENV_VAR: self.url, OPENAI.env_var: self.url + "/v1"}


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a client that keeps its connection open must not hold up the exit
    # socketserver's default backlog is 5: with dozens of cases connecting at once on a busy
    # machine the kernel drops the overflow and the clients see 'connection reset by peer'.
    request_queue_size = 128

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # the agent went away mid-answer
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    deck: CassetteDeck
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in two writes

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - keep the run's output clean
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = dict(self.headers.items())
        answer = self.deck.answer(self.path, headers, raw)
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)

    def do_GET(self) -> None:  # noqa: N802
        answer = self.deck.answer(self.path, {}, b"")
        self.send_response(404)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        self.end_headers()
        self.wfile.write(answer.body)
