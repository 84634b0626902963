"""The run's OTLP/HTTP receiver: `POST /v1/traces` on 127.0.0.1, served by uvicorn in a thread.

The socket is bound when the receiver is made, before the run starts, so a port already
taken is the run's exit 2 naming it and the port is known before any agent starts. The
app is a plain ASGI callable (no framework: one route). A bad export is answered with its
HTTP status (400, 413, 415) and counted; nothing an exporter sends can stop the run. The
spans go to `deliver`, called on the receiver's thread.
"""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Callable
from typing import Any

from evalkit.errors import SettingError
from evalkit.telemetry.otlp_body import JSON, MAX_BODY_BYTES, PROTOBUF, BadExport, decompressed, spans_of_body
from evalkit.traces.otlp_json import RawSpan

HOST = "127.0.0.1"
TRACES_PATH = "/v1/traces"
# The empty ExportTraceServiceResponse: a protobuf message with no fields is zero bytes.
EMPTY_RESPONSE = {PROTOBUF: b"", JSON: b"{}"}

Deliver = Callable[[list[RawSpan]], None]


class OtlpReceiver:
    """Bound at once (`port` None: a free one); `start` serves, `stop` ends the serving."""

    def __init__(self, deliver: Deliver, port: int | None = None):
        self.deliver = deliver
        self.socket = _bind(port)
        self.port: int = self.socket.getsockname()[1]
        self.refused: dict[int, int] = {}  # HTTP status → exports refused with it
        self.last_refusal = ""
        self._server: Any = None
        self._stopping = asyncio.Event()  # set on the receiver's loop, from `stop`
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._served = False  # an exporter connected at least once

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}{TRACES_PATH}"

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    def start(self) -> OtlpReceiver:
        import uvicorn

        receiver = self

        class QuietServer(uvicorn.Server):
            def install_signal_handlers(self) -> None:  # the run's thread handles Ctrl-C, not this one
                pass

            async def main_loop(self) -> None:
                # Until `stop`, at once: uvicorn's own loop looks for the end every tenth of a second,
                # which every run with --otel waited up to that long for at its end.
                await self.on_tick(0)
                await receiver._stopping.wait()

        # log_config=None: uvicorn's default logging config would reset the logging of the process
        # the run lives in (an API caller's, a pytest session's), closing the handlers it holds.
        # ws="none": OTLP is plain HTTP; no WebSocket library is imported for a receiver.
        self._server = QuietServer(uvicorn.Config(self.app, interface="asgi3", log_level="error", access_log=False, lifespan="off",
                                                  timeout_graceful_shutdown=1, log_config=None, date_header=False, ws="none"))
        ready = threading.Event()

        def serve() -> None:
            loop = self._loop = asyncio.new_event_loop()
            loop.call_soon(ready.set)
            try:
                loop.run_until_complete(self._server.serve(sockets=[self.socket]))
            finally:
                loop.close()

        self._thread = threading.Thread(target=serve, name="evalkit-otlp-receiver", daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._loop is not None and not self._loop.is_closed():
            try:
                self._loop.call_soon_threadsafe(self._stopping.set)
            except RuntimeError:  # closed meanwhile: the server has ended
                pass
        if self._thread is not None and not self._served:
            # No exporter ever connected (an agent in this process): nothing is in flight, so the run does not
            # wait out uvicorn's tenth of a second of grace; the thread closes the socket as it ends, and a
            # receiver bound after this one waits for that first (`_bind`).
            _ENDING.append(self._thread)
            return
        if self._thread is not None:
            self._thread.join(5)
        self.socket.close()

    async def app(self, scope: dict[str, Any], receive: Callable[[], Any], send: Callable[[dict[str, Any]], Any]) -> None:
        if scope["type"] != "http":
            return
        self._served = True
        if scope["path"] != TRACES_PATH:
            await _answer(send, 404, b"evalkit receives traces only, at POST /v1/traces", "text/plain")
            return
        if scope["method"] != "POST":
            await _answer(send, 405, b"POST an OTLP export to /v1/traces", "text/plain")
            return
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        media = headers.get("content-type", "").split(";")[0].strip().lower()
        try:
            body = await _body(receive, headers)
            spans = spans_of_body(decompressed(body, headers.get("content-encoding", "")), media)
        except BadExport as refused:
            self.refused[refused.status] = self.refused.get(refused.status, 0) + 1
            self.last_refusal = str(refused)
            await _answer(send, refused.status, str(refused).encode("utf-8", "replace"), "text/plain")
            return
        if spans:
            self.deliver(spans)
        answer = JSON if media == JSON else PROTOBUF
        await _answer(send, 200, EMPTY_RESPONSE[answer], answer)


async def _body(receive: Callable[[], Any], headers: dict[str, str]) -> bytes:
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_BODY_BYTES:
        raise BadExport(413, f"the export is over {MAX_BODY_BYTES // (1024 * 1024)} MiB; export in smaller batches")
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise BadExport(400, "the exporter went away before sending its whole body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise BadExport(413, f"the export is over {MAX_BODY_BYTES // (1024 * 1024)} MiB; export in smaller batches")
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send: Callable[[dict[str, Any]], Any], status: int, body: bytes, media: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", media.encode()), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


# Receivers' threads still ending after their `stop` (they close their sockets as they end).
_ENDING: list[threading.Thread] = []


def _bind(port: int | None) -> socket.socket:
    while _ENDING:  # the port of a receiver that is ending is free once its thread ends
        _ENDING.pop().join(5)
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        listening.bind((HOST, port or 0))
    except OSError as error:
        listening.close()
        raise SettingError("otel_port", port, f"cannot receive on {HOST}:{port} ({error.strerror}): another program "
                           "listens there; pick another port, or leave {otel_port} out for a free one",
                           mentions=("otel_port",)) from None
    listening.listen(128)
    listening.set_inheritable(False)
    return listening
