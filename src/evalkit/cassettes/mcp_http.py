"""The stand-in MCP server over streamable HTTP: `evalkit mcp --url URL` serves on 127.0.0.1.

The `mcp` SDK's low-level server makes the ASGI app (its streamable-HTTP session manager
runs in the app's lifespan), uvicorn serves it on a socket bound here, so that the port
is known (`--port 0`: any free one) before the first request, and only requests whose Host
and Origin (when a browser sends one) name that address are served. The local URL keeps the
real URL's path, so an agent's configuration changes only in its host and port. uvicorn
stops on Ctrl-C and SIGTERM, ending the open sessions.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Callable, Iterator
from typing import Any

from evalkit.errors import UsageError

HOST = "127.0.0.1"
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


async def serve_streamable_http(server: Any, path: str, port: int, on_ready: Callable[[str], None]) -> None:
    """Serve the low-level `server` at http://127.0.0.1:PORT`path` until told to stop; `on_ready`
    gets that URL once the socket listens."""
    import uvicorn

    class StandInServer(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            """Ctrl-C and SIGTERM end the serving, and that is all: uvicorn's own handlers raise the
            signal again once it stopped, which would kill the process before its upstream is closed."""
            loop = asyncio.get_running_loop()
            try:
                for stop in STOP_SIGNALS:
                    loop.add_signal_handler(stop, self.handle_exit, stop, None)
            except (NotImplementedError, RuntimeError):  # not the main thread, or no signal handlers here
                with super().capture_signals():
                    yield
                return
            try:
                yield
            finally:
                for stop in STOP_SIGNALS:
                    loop.remove_signal_handler(stop)

    from mcp.server.transport_security import TransportSecuritySettings

    listening = _bind(port)
    bound = listening.getsockname()[1]
    # Its own address only: a page served from another local port must not drive the stand-in.
    own = [f"127.0.0.1:{bound}", f"localhost:{bound}"]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True, allowed_hosts=own,
                                         allowed_origins=[f"http://{host}" for host in own])
    # JSON answers, not server-sent events: a client's SSE reader may stop at 1 MB (the SDK's does), a JSON
    # body has no such limit, so a large tool result reaches the agent as it came from the server
    app = server.streamable_http_app(streamable_http_path=path, host=HOST, transport_security=security,
                                     json_response=True)
    web = StandInServer(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    on_ready(f"http://{HOST}:{listening.getsockname()[1]}{path}")
    try:
        await web.serve(sockets=[listening])
    finally:
        listening.close()


def _bind(port: int) -> socket.socket:
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((HOST, port))
    except OSError as error:
        listening.close()
        raise UsageError(f"--port {port}: cannot listen on {HOST}:{port} ({error.strerror}); "
                         "pick another port, or leave --port out for any free one") from None
    listening.listen(128)
    listening.set_inheritable(False)
    return listening
