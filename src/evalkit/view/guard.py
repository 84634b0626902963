"""The viewer answers only its own user: its own addresses, its own pages, never inside a frame.

A page on another site cannot read the viewer through DNS rebinding (its name made to
resolve to 127.0.0.1) because every request whose `Host` is not one of the viewer's
addresses is refused: the loopback names and the `--host` address, with the port it
listens on. A state-changing request (a label) is refused unless its `Origin`, when a
browser sends one, is such an address too (checked against the list, never against
the request's own `Host`, which the rebinding page controls). Every answer carries
`X-Frame-Options: DENY` and the page's Content-Security-Policy as headers, where
`frame-ancestors` takes effect (a `<meta>` policy ignores it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from evalkit.view.page import HEADER_POLICY

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
_SAFE_METHODS = ("GET", "HEAD", "OPTIONS")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


@dataclass
class Addresses:
    """The names the viewer answers to: the loopback names and `host`, on `port` (set once it is bound)."""

    host: str = "127.0.0.1"
    port: int | None = None

    def allows(self, authority: str) -> bool:
        """Whether `authority` (`name:port`, as in `Host`) is one of the viewer's addresses."""
        parsed = urlsplit(f"//{authority.strip()}")
        try:
            port = parsed.port
        except ValueError:
            return False
        name = (parsed.hostname or "").lower().rstrip(".")
        return name in {*LOOPBACK_NAMES, self.host.lower().strip("[]")} and (self.port is None or port == self.port)

    def allows_origin(self, origin: str) -> bool:
        parsed = urlsplit(origin)
        return parsed.scheme == "http" and self.allows(parsed.netloc)


class ViewerGuard:
    """ASGI middleware: Host and Origin checks, and the security headers on every answer.

    `addresses` None (the app made without a server, as in tests of its routes): any Host,
    and an Origin must match the request's own Host.
    """

    def __init__(self, app: App, addresses: Addresses | None):
        self.app = app
        self.addresses = addresses

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value.decode("latin-1") for key, value in scope["headers"]}
        refusal = self._refusal(scope["method"], headers)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (b"x-frame-options", b"DENY"),
                                      (b"content-security-policy", HEADER_POLICY.encode())]
            await send(message)

        if refusal is None:
            await self.app(scope, receive, with_headers)
            return
        body = refusal.encode()
        await with_headers({"type": "http.response.start", "status": 403,
                            "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                        (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})

    def _refusal(self, method: str, headers: dict[str, str]) -> str | None:
        host, origin = headers.get("host", ""), headers.get("origin")
        if self.addresses is not None and not self.addresses.allows(host):
            return (f"evalkit view answers only its own address, not {host or 'a request without Host'}; "
                    "open the address it printed when it started\n")
        if method in _SAFE_METHODS or origin is None:
            return None
        allowed = self.addresses.allows_origin(origin) if self.addresses is not None else origin == f"http://{host}"
        return None if allowed else "changes are accepted only from this viewer's own pages\n"
