"""No secret in a file name: `evalkit proxy` (a real process) names each conversation's cassette
after its first user message, and a user who pastes a key into that message must not find the
key in the name of a file that gets committed.

The key is shaped like a real Gemini key and set in the proxy's environment, as a user's shell
would; the upstream is evalkit's fake Gemini on 127.0.0.1.
"""

from __future__ import annotations

import os
import secrets
import signal
import string
import subprocess
import sys

import httpx

from evalkit.cassettes.store import file_name
from evalkit.foundation.redaction import MASK
from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT

ALPHABET = string.ascii_letters + string.digits + "_-"
KEY = "AIzaSy" + "".join(secrets.choice(ALPHABET) for _ in range(33))  # the shape of a Gemini API key


def test_a_key_in_the_first_user_message_is_not_in_the_cassette_file_name(tmp_path):
    folder = tmp_path / "cassettes"
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
    with FakeGemini() as upstream:
        upstream.responder(lambda prompt, body: "done")
        env.update(GOOGLE_GEMINI_BASE_URL=upstream.base_url, GOOGLE_API_KEY=KEY)
        process = subprocess.Popen(
            [sys.executable, "-m", "evalkit", "proxy", "--cassettes", str(folder), "--cassette-mode", "record"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            exports = dict(process.stdout.readline().removeprefix("export ").strip().split("=", 1) for _ in range(3))
            text = f"Use the key {KEY} to call the API"
            answer = httpx.post(f"{exports['GOOGLE_GEMINI_BASE_URL']}/v1beta/models/gemini-2.0-flash:generateContent",
                                json={"contents": [{"role": "user", "parts": [{"text": text}]}]},
                                headers={"x-goog-api-key": KEY}, timeout=20)
        finally:
            process.send_signal(signal.SIGINT)
            _, stderr = process.communicate(timeout=20)
    assert answer.status_code == 200, answer.text
    assert "Traceback" not in stderr, stderr
    written = [path for path in folder.rglob("*") if path.is_file()]
    assert len(written) == 1, written  # the conversation's cassette
    names = [str(path.relative_to(tmp_path)) for path in written]
    assert not [name for name in names if KEY in name or KEY[:12] in name], names
    assert "redacted" in names[0], names  # the name still says what the conversation was
    assert KEY not in written[0].read_text(encoding="utf-8")


def test_every_cassette_name_is_masked_before_it_is_slugged(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-" + secrets.token_hex(20))
    secret = os.environ["OPENAI_API_KEY"]
    for text in (secret, f"case {secret}", f"{secret}/{secret}", "x" * 200 + secret):
        name = file_name(text)
        assert secret not in name and secret[:10] not in name, name
    assert file_name(f"a {secret}") != file_name(f"a {MASK}")  # still one file per id
