"""Each kind of agent receives the case's media in its own protocol, byte for byte.

The agents answer with the sha256 of the bytes they received (tests/fixtures/agents/media_echo.py),
so a test compares hashes of what was sent and what arrived. A2A agents are in
tests/agents/test_a2a_agent.py (beside their servers), ADK ones in tests/media/test_adk_media.py.
"""

from __future__ import annotations

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, inline_part, media_case, write_evalset
from tests.media.samples import png_bytes, sha256, wav_bytes

ECHO = FIXTURES / "agents" / "media_echo.py"
sys.path.insert(0, str(ECHO.parent))
from media_echo import describe  # noqa: E402


def media_evalset(folder: Path) -> tuple[Path, list[str]]:
    """A case with a file part and an inline part; the lines an echoing agent answers (without its last word)."""
    (folder / "media").mkdir()
    (folder / "media" / "receipt.png").write_bytes(png_bytes(padding=50_000))
    evalset = write_evalset(folder, media_case("both", file_part("media/receipt.png", "image/png"),
                                               inline_part(wav_bytes(), "audio/wav")))
    return evalset, [f"image/png {sha256(png_bytes(padding=50_000))}", f"audio/wav {sha256(wav_bytes())}"]


def answered(result_file: Path) -> list[str]:
    case, = json.loads(result_file.read_text())["cases"]
    assert case["status"] != "error", case
    return case["invocations"][0]["actual"]["final_response"]["parts"][0]["text"].splitlines()


def test_a_python_agent_gets_genai_parts_holding_the_bytes(tmp_path: Path) -> None:
    evalset, hashes = media_evalset(tmp_path)
    out = tmp_path / "out.json"
    done = invoke_evalkit("run", str(evalset), "--agent", f"{ECHO}:python_agent", "--json", str(out), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    # the file part became inline_data with the bytes themselves; its file_data is not beside it
    assert answered(out) == [f"{hashes[0]} - bytes", f"{hashes[1]} - bytes"]


def test_a_cmd_agent_gets_base64_inline_data_and_keeps_the_file_uri(tmp_path: Path) -> None:
    evalset, hashes = media_evalset(tmp_path)
    out = tmp_path / "out.json"
    done = invoke_evalkit("run", str(evalset), "--agent", f"cmd:{sys.executable} {ECHO}", "--json", str(out),
                          cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert answered(out) == [f"{hashes[0]} media/receipt.png base64", f"{hashes[1]} - base64"]


class _EchoHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        turn = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        body = json.dumps({"final_response": describe(turn["user_content"])} if turn.get("type") == "turn" else {})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def echo_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _EchoHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/turn"
    server.shutdown()
    server.server_close()


def test_an_http_agent_gets_base64_inline_data_and_keeps_the_file_uri(tmp_path: Path, echo_server: str) -> None:
    evalset, hashes = media_evalset(tmp_path)
    out = tmp_path / "out.json"
    done = invoke_evalkit("run", str(evalset), "--agent", echo_server, "--json", str(out), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert answered(out) == [f"{hashes[0]} media/receipt.png base64", f"{hashes[1]} - base64"]
