"""An ADK server that reports a failed turn as an event with an error code, with HTTP 200.

ADK for TypeScript's `adk api_server` answers so on `/run` and `/run_sse` when the
agent's model call fails (tests/agents/test_adk_ts_server.py runs the real one). Here a
small stand-in on 127.0.0.1 sends the same events, so the rule is checked in a second:
any event with an error code makes the turn the case's error, naming code and message.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from evalkit.agents.adk_events import raise_on_error_event
from evalkit.api import run_evals
from evalkit.errors import AgentError, AgentOverloaded
from evalkit.schema.adk_session import AdkEvent

APP = "ts_app"


def answer_event(text: str) -> dict[str, Any]:
    return {"invocationId": "e-1", "author": "root", "content": {"role": "model", "parts": [{"text": text}]}}


def error_event(code: str, message: str) -> dict[str, Any]:
    # The shape ADK for TypeScript 2.0 sends (author, codes as strings, no content).
    return {"invocationId": "e-2", "author": "root", "errorCode": code, "errorMessage": message,
            "actions": {"stateDelta": {}}, "longRunningToolIds": [], "timestamp": 1795516732326}


class _StandIn(BaseHTTPRequestHandler):
    overloads_left = 0

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, content_type: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path == "/list-apps":
            self._send(200, json.dumps([APP]).encode())
        else:
            self._send(404, b'{"error": "not found"}')  # no app-info route, like the TypeScript server

    def do_DELETE(self) -> None:
        self._send(204, b"")

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path.endswith("/sessions"):
            self._send(200, json.dumps({"id": "server-made-id", "appName": APP, "state": {}}).encode())
            return
        text = request["newMessage"]["parts"][0]["text"]
        if "fail" in text:
            events = [error_event("500", "Internal Server Error\n(injected)")]
        elif "busy" in text and type(self).overloads_left > 0:
            type(self).overloads_left -= 1
            events = [error_event("429", "Resource exhausted")]
        else:
            events = [answer_event(f"You said: {text}")]
        if self.path == "/run_sse":
            self._send(200, b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events), "text/event-stream")
        else:
            self._send(200, json.dumps(events).encode())


@pytest.fixture
def stand_in() -> Iterator[str]:
    handler = type("Handler", (_StandIn,), {"overloads_left": 1})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def write_set(folder: Path) -> Path:
    def case(eval_id: str, text: str) -> dict:
        return {"eval_id": eval_id, "conversation": [{
            "user_content": {"role": "user", "parts": [{"text": text}]},
            "final_response": {"role": "model", "parts": [{"text": f"You said: {text}"}]},
        }]}

    path = folder / "errors.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "errors", "eval_cases": [
        case("fine", "hello"), case("fails", "please fail"), case("busy_once", "busy now"),
    ]}))
    return path


@pytest.mark.parametrize("options", ["", "?transport=sse"])
def test_an_error_event_answered_with_http_200_is_the_cases_error(stand_in, tmp_path, options):
    result = run_evals(write_set(tmp_path), agent=f"adk-server:{stand_in}/{APP}{options}", jobs=1)

    cases = {case.eval_id: case for case in result.cases}
    assert cases["fine"].status == "passed"
    assert cases["fails"].status == "error"
    assert cases["fails"].error == ("case 'fails', turn 1: the agent on the ADK server reported error 500: "
                                    "Internal Server Error (injected) (event by root)")
    # A 429 in an event is an overload, as an HTTP 429 is: the case runs again and passes.
    assert cases["busy_once"].status == "passed"
    assert result.concurrency is not None and result.concurrency.reruns == 1


def test_the_rule_reads_adks_own_events_and_json_events_alike():
    google_adk = pytest.importorskip("google.adk.events")
    from google.genai import types

    blocked = google_adk.Event(author="root", error_code=types.FinishReason.SAFETY, error_message="blocked")
    with pytest.raises(AgentError, match=r"^case 'c', turn 1: the agent reported error SAFETY: blocked \(event by root\)$"):
        raise_on_error_event([blocked], "case 'c', turn 1", "the agent")
    with pytest.raises(AgentOverloaded):
        raise_on_error_event([AdkEvent.model_validate(error_event("RESOURCE_EXHAUSTED", "quota"))], "w", "s")
    raise_on_error_event([AdkEvent.model_validate(answer_event("fine"))], "w", "s")  # no error code: no error
