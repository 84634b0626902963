"""`evalkit proxy` on its own, for an agent the user starts: a real proxy process, real clients.

The agent is an HTTP service on 127.0.0.1 whose google-genai client is pointed at the
proxy, evaluated by the `evalkit run` command; the upstream is evalkit's fake
Gemini. Recording N conversations writes N cassettes; a replay proxy serves any
number of consecutive runs alike and never forwards a call upstream.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest

from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.in_process import invoke_evalkit

CITIES = {"Paris": "sunny", "London": "rainy", "Tokyo": "cloudy", "Lima": "foggy", "Oslo": "snowy"}


class GenaiAgent:
    """An HTTP agent (the turn protocol) that asks Gemini through google-genai, at `base_url`."""

    def __init__(self) -> None:
        self.base_url = ""
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/turn"

    def answer(self, turn: dict[str, Any]) -> str:
        from google import genai

        client = genai.Client(api_key="placeholder-key", http_options={"base_url": self.base_url})
        contents = []
        for earlier in turn["history"]:  # the conversation so far, so later turns carry it to the model
            contents.append({"role": "user", "parts": [{"text": earlier["user_text"]}]})
            contents.append({"role": "model", "parts": [{"text": earlier["final_response"] or ""}]})
        contents.append({"role": "user", "parts": [{"text": turn["user_text"]}]})
        return client.models.generate_content(model="gemini-2.0-flash", contents=contents).text or ""

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        agent = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet tests
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                turn = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                try:
                    reply = {} if turn.get("type") == "end_session" else {"final_response": agent.answer(turn)}
                    status = 200
                except Exception as error:  # the model call failed: the case's error, with the reason
                    reply, status = {"error": str(error)}, 500
                body = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        return Handler

    def __enter__(self) -> GenaiAgent:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def weather_reply(prompt: str, body: dict) -> str:
    city = max(CITIES, key=prompt.rfind) if any(c in prompt for c in CITIES) else None  # the latest one named
    return f"It is {CITIES[city]} in {city}." if city else f"You said: {prompt[-40:]}"


def write_evalset(folder: Path) -> Path:
    def turn(city: str, prefix: str = "What is the weather in") -> dict:
        return {"user_content": {"role": "user", "parts": [{"text": f"{prefix} {city}?"}]},
                "final_response": {"role": "model", "parts": [{"text": f"It is {CITIES[city]} in {city}."}]}}

    cases = [{"eval_id": city.lower(), "conversation": [turn(city)]} for city in ("Paris", "London", "Tokyo", "Lima")]
    cases.append({"eval_id": "two_turns", "conversation": [turn("Oslo"), turn("Paris", "And what about")]})
    path = folder / "weather.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "weather", "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.9}}))
    return path


@contextmanager
def proxy(folder: Path, mode: str, upstream: str) -> Iterator[str]:
    """`evalkit proxy` as a real process; yields its Gemini URL; Ctrl-C stops it."""
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
    env["GOOGLE_GEMINI_BASE_URL"] = upstream
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "proxy", "--cassettes", str(folder), "--cassette-mode", mode],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    try:
        exports = dict(process.stdout.readline().removeprefix("export ").strip().split("=", 1) for _ in range(3))
        yield exports["GOOGLE_GEMINI_BASE_URL"]
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=20)
        assert "Traceback" not in stderr, stderr


def run_once(folder: Path, evalset: Path, agent: GenaiAgent) -> tuple[int, dict]:
    out = folder / f"result-{len(list(folder.glob('result-*.json')))}.json"
    done = invoke_evalkit("run", str(evalset), "--agent", agent.url, "--jobs", "4", "--json", str(out), "--quiet",
                          cwd=folder)
    assert out.exists(), done.stdout + done.stderr
    cases = json.loads(out.read_text())["cases"]
    return done.returncode, {c["eval_id"]: (c["status"], c.get("error"), c["invocations"]) for c in cases}


def answers(outcome: dict) -> dict:
    return {case: (status, error, [i["actual"]["final_response"] for i in invocations])
            for case, (status, error, invocations) in outcome.items()}


@pytest.fixture
def upstream() -> Iterator[FakeGemini]:
    with FakeGemini() as fake:
        fake.responder(weather_reply)
        yield fake


def test_n_conversations_make_n_cassettes_and_every_replay_run_is_the_same(tmp_path, upstream):
    evalset = write_evalset(tmp_path)
    cassettes = tmp_path / "cassettes"
    with GenaiAgent() as agent:
        with proxy(cassettes, "record", upstream.base_url) as url:
            agent.base_url = url
            _, recorded_first = run_once(tmp_path, evalset, agent)
            recorded_code, recorded = run_once(tmp_path, evalset, agent)  # recorded again, afresh
        assert recorded_code == 0, recorded
        assert answers(recorded) == answers(recorded_first)
        assert upstream.call_count == 12  # one model call per turn, per run
        files = sorted(cassettes.rglob("*.cassette.json"))
        assert len(files) == 5  # one per conversation, though four of them ran at once
        exchanges = {f.name: json.loads(f.read_text())["exchanges"] for f in files}
        assert sorted(len(e) for e in exchanges.values()) == [1, 1, 1, 1, 2]  # the second run replaced the first
        (two_turns,) = [e for e in exchanges.values() if len(e) == 2]
        assert [e["turn"] for e in two_turns] == [1, 2]

        with proxy(cassettes, "replay", upstream.base_url) as url:  # the upstream still listens...
            agent.base_url = url
            first_code, first = run_once(tmp_path, evalset, agent)
            second_code, second = run_once(tmp_path, evalset, agent)
            unknown = httpx.post(f"{url}/v1beta/models/gemini-2.0-flash:generateContent",
                                 json={"contents": [{"role": "user", "parts": [{"text": "Never recorded"}]}]}, timeout=10)
        assert upstream.call_count == 12  # ...and received nothing from the replay, a miss included
    assert unknown.status_code == 404 and "no recorded model call matches" in unknown.text
    assert first_code == second_code == 0, (first, second)
    assert answers(first) == answers(second) == answers(recorded)
