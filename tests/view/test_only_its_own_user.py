"""The viewer answers only its own user: raw HTTP requests with foreign Host and Origin headers
to a real `evalkit view` process, as a DNS-rebinding page would send them, and the headers
that keep its pages out of other sites' frames."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from tests.view.support import ViewServer, case, result, write_result


def _raw(port: int, request: str) -> tuple[int, dict[str, str], str]:
    """Send `request` as typed; the status, the headers (lower-case names) and the body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.replace("\n", "\r\n").encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.decode("utf-8", "replace").partition("\r\n\r\n")
    status_line, *header_lines = head.split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in header_lines)}
    return int(status_line.split()[1]), headers, body


def _get(port: int, host: str, path: str = "/api/runs") -> tuple[int, dict[str, str], str]:
    return _raw(port, f"GET {path} HTTP/1.1\nHost: {host}\nConnection: close\n\n")


def _post_label(port: int, host: str, origin: str | None) -> int:
    body = json.dumps({"eval_set_id": "s", "eval_id": "a", "criterion": "response_match_score", "verdict": "pass"})
    origin_line = f"Origin: {origin}\n" if origin else ""
    return _raw(port, f"POST /api/labels HTTP/1.1\nHost: {host}\n{origin_line}Content-Type: application/json\n"
                      f"Content-Length: {len(body)}\nConnection: close\n\n{body}")[0]


def test_a_foreign_host_is_refused_and_the_loopback_names_answer(tmp_path: Path):
    write_result(tmp_path / "result.json", result([case("s", "a")]))
    with ViewServer("result.json", cwd=tmp_path) as server:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        for foreign in (f"evil.test:{port}", "evil.test", f"127.0.0.1.evil.test:{port}", f"127.0.0.1:{port + 1}", ""):
            status, _, body = _get(port, foreign)
            assert status == 403 and "answers only its own address" in body, foreign
            assert _get(port, foreign, "/")[0] == 403
        for own in (f"127.0.0.1:{port}", f"localhost:{port}", f"LOCALHOST:{port}"):
            status, _, body = _get(port, own)
            assert status == 200 and json.loads(body)["runs"][0]["id"] == "result", own


def test_a_label_from_another_origin_is_refused_even_with_its_own_host(tmp_path: Path):
    write_result(tmp_path / "result.json", result([case("s", "a")]))
    labels = tmp_path / "labels.json"
    with ViewServer("result.json", "--labels", str(labels), cwd=tmp_path) as server:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        own = f"127.0.0.1:{port}"
        # A rebinding page's requests carry its own name in both headers: Origin is checked against the list.
        assert _post_label(port, f"evil.test:{port}", f"http://evil.test:{port}") == 403
        assert _post_label(port, own, f"http://evil.test:{port}") == 403
        assert _post_label(port, own, f"http://localhost:{port + 1}") == 403
        assert not labels.exists()
        assert _post_label(port, own, f"http://localhost:{port}") == 200
        assert _post_label(port, own, None) == 200  # not from a browser: no Origin to check
    assert "verdict" in labels.read_text()


def test_every_answer_forbids_framing_in_its_headers(tmp_path: Path):
    write_result(tmp_path / "result.json", result([case("s", "a")]))
    with ViewServer("result.json", cwd=tmp_path) as server:
        port = int(server.url.rstrip("/").rsplit(":", 1)[1])
        for path in ("/", "/api/runs", "/static/app.js", "/nowhere"):
            _, headers, _ = _get(port, f"127.0.0.1:{port}", path)
            assert headers["x-frame-options"] == "DENY", path
            assert "frame-ancestors 'none'" in headers["content-security-policy"], path
            assert "default-src 'none'" in headers["content-security-policy"], path
