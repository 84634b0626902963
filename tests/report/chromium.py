"""A headless Chromium driven over the DevTools protocol, for testing the HTML report.

Just enough of the protocol to load a page, read its console, see dialogs, type into it
and evaluate expressions. Chromium runs offline: no network services, a throwaway
profile, and the debugging port on 127.0.0.1 only.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio",
    "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
)


def find_chromium() -> str | None:
    for name in CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None


class Chromium:
    """One browser with one page; events are kept in order for the test to inspect."""

    def __init__(self, binary: str, profile: Path, timeout: float = 10.0):
        self.timeout = timeout
        self.events: list[dict[str, Any]] = []
        self._next_id = 0
        self._process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            self._socket = self._connect(profile / "DevToolsActivePort")
            target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                self.send(f"{domain}.enable", session=True)
        except BaseException:
            self.close()
            raise

    def _connect(self, port_file: Path):
        from websockets.sync.client import connect

        deadline = time.monotonic() + self.timeout
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if self._process.poll() is not None:
                raise RuntimeError(f"chromium exited with code {self._process.returncode} before it listened")
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not open its DevTools port")
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        return connect(f"ws://127.0.0.1:{port}{path}", max_size=None, open_timeout=self.timeout)

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = False) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        self._socket.send(json.dumps(message))
        while True:
            reply = self._receive()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def _receive(self) -> dict[str, Any]:
        message = json.loads(self._socket.recv(timeout=self.timeout))
        if "method" in message:
            self.events.append(message)
            if message["method"] == "Page.javascriptDialogOpening":
                # A dialog blocks the page until answered: it stays in `events`, and is dismissed.
                self._socket.send(json.dumps({
                    "id": 0, "method": "Page.handleJavaScriptDialog", "params": {"accept": True},
                    "sessionId": self._session,
                }))
        return message

    def open(self, url: str) -> int:
        """Navigate and wait for the load event; returns the index of this page's first event."""
        before = len(self.events)
        self.send("Page.navigate", {"url": url}, session=True)
        deadline = time.monotonic() + self.timeout
        while not any(e["method"] == "Page.loadEventFired" for e in self.events[before:]):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not finish loading")
            self._receive()
        return before

    def evaluate(self, expression: str) -> Any:
        reply = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                               "awaitPromise": True}, session=True)
        if "exceptionDetails" in reply:
            raise RuntimeError(f"{expression}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def type_text(self, text: str) -> None:
        """Type into the focused element as a user would (fires `input` events)."""
        self.send("Input.insertText", {"text": text}, session=True)

    def problems(self, since: int = 0) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (CSP violations land here)."""
        found = []
        for event in self.events[since:]:
            params = event.get("params", {})
            if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append("console: " + " ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
            elif event["method"] == "Runtime.exceptionThrown":
                found.append("exception: " + json.dumps(params["exceptionDetails"])[:500])
            elif event["method"] == "Log.entryAdded" and params["entry"].get("level") == "error":
                found.append(f"log ({params['entry'].get('source')}): {params['entry'].get('text')}")
        return found

    def requested_urls(self, since: int = 0) -> list[str]:
        return [e["params"]["request"]["url"] for e in self.events[since:]
                if e["method"] == "Network.requestWillBeSent"]

    def dialogs(self, since: int = 0) -> list[str]:
        """Messages of the alert/confirm/prompt dialogs the page opened."""
        return [e["params"]["message"] for e in self.events[since:] if e["method"] == "Page.javascriptDialogOpening"]

    def close(self) -> None:
        socket = getattr(self, "_socket", None)
        if socket is not None:
            try:
                socket.send(json.dumps({"id": -1, "method": "Browser.close", "params": {}}))
            except Exception:
                pass
            socket.close()
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
