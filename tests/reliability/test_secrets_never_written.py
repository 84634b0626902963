"""Secrets never reach a file or a page: random API keys and a URL password are planted, then every
file the run writes (result, JUnit, Markdown, HTML, history), the viewer's API and its static export
are searched for them.

The agent is a real HTTP server on 127.0.0.1 whose errors and replies echo the keys, reached
through a URL that carries a password, as a misconfigured proxy or upstream would.
"""

from __future__ import annotations

import json
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from starlette.testclient import TestClient

from evalkit.foundation.redaction import mask_secrets
from evalkit.settings import RunSettings
from evalkit.view.data import ViewData
from evalkit.view.server import create_app
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

KEYS = {name: f"{name.lower()}-{secrets.token_hex(12)}" for name in
        ("GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY")}
PASSWORD = secrets.token_hex(10)


class LeakyAgent(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        if request["type"] == "end_session":
            status, body = 204, b""
        elif "boom" in request["user_text"]:  # an error that quotes the keys it was given
            status, body = 500, f"upstream refused key={KEYS['GOOGLE_API_KEY']} ({KEYS['OPENAI_API_KEY']})".encode()
        else:
            reply = f"you said: {request['user_text']} via {KEYS['GEMINI_API_KEY']} and http://u:{PASSWORD}@up/"
            status, body = 200, json.dumps({"final_response": reply}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def _planted(text: str) -> list[str]:
    return [secret for secret in (*KEYS.values(), PASSWORD) if secret in text]


def test_no_file_or_page_of_a_run_holds_a_planted_secret(tmp_path):
    server = ThreadingHTTPServer(("127.0.0.1", 0), LeakyAgent)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://evalkit:{PASSWORD}@127.0.0.1:{server.server_address[1]}/agent"
    outputs = {kind: tmp_path / "out" / f"r.{kind}" for kind in ("json", "junit", "markdown", "html")}
    try:
        done = invoke_evalkit("run", str(FIXTURES / "echo.evalset.json") + ":hello,boom", "--agent", url,
                              "--config", str(FIXTURES / "rouge_only.config.json"),
                              *(arg for kind, path in outputs.items() for arg in (f"--{kind}", str(path))),
                              env=KEYS)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 3, done.stderr  # the boom case is an agent error
    assert not _planted(done.stdout + done.stderr)
    history = tmp_path / ".evalkit" / "runs"
    written = [*outputs.values(), *history.iterdir()]
    assert len(written) == 5
    for path in written:
        assert not _planted(path.read_text(encoding="utf-8")), path
    result = json.loads(outputs["json"].read_text())
    assert result["agent"] == f"http://evalkit:[redacted]@127.0.0.1:{url.rsplit(':', 1)[1]}"
    boom = next(case for case in result["cases"] if case["eval_id"] == "boom")
    assert "key=[redacted] ([redacted])" in boom["error"]

    viewer = TestClient(create_app(ViewData([history])))
    (run,) = viewer.get("/api/runs").json()["runs"]
    for path in ("/api/runs", f"/api/runs/{run['id']}", f"/api/runs/{run['id']}/cases", f"/api/runs/{run['id']}/cases/0",
                 f"/api/runs/{run['id']}/cases/1"):
        answer = viewer.get(path)
        assert answer.status_code == 200 and not _planted(answer.text), path
    exported = invoke_evalkit("view", str(history), "--export", str(tmp_path / "site"), env=KEYS)
    assert exported.returncode == 0, exported.stderr
    for path in (tmp_path / "site").rglob("*"):
        if path.is_file():
            assert not _planted(path.read_text(encoding="utf-8", errors="replace")), path


def test_a_runs_header_values_are_masked_by_that_run_only():
    # A header's value is a secret of the run given it: its redaction masks it, and nothing outlives the run.
    value = secrets.token_hex(8)
    run = RunSettings.of(headers={"Authorization": value, "X-Short": "ok"})
    assert run.redaction.mask(f"sent {value}") == "sent [redacted]"
    assert run.redaction.mask("short ok") == "short ok"  # values too short to be keys are never masked
    assert mask_secrets(f"sent {value}") == f"sent {value}"  # no process-wide list grew
    assert RunSettings.of().redaction.mask(f"sent {value}") == f"sent {value}"  # nor does the next run mask it
