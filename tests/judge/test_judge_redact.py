"""Credentials are masked in every message built from a library's error."""

from __future__ import annotations

from evalkit.judge.redact import redact


def test_values_of_key_variables_are_masked(monkeypatch, marker_key) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", marker_key)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-other-secret-value")
    text = redact(f"request failed with key {marker_key}; fallback sk-other-secret-value")
    assert marker_key not in text and "sk-other-secret-value" not in text
    assert text.count("[redacted]") == 2


def test_keys_in_urls_and_headers_are_masked_whatever_they_are() -> None:
    text = redact(
        "GET https://host/v1beta/models/m?key=AIzaSyUNKNOWN&alt=sse "
        "headers={'Authorization': 'Bearer tok.en-123', 'x-goog-api-key': 'AIzaZZZ'}"
    )
    assert "AIzaSyUNKNOWN" not in text and "tok.en-123" not in text and "AIzaZZZ" not in text
    assert "&alt=sse" in text


def test_messages_become_one_short_line() -> None:
    text = redact("line one\n  line two\t" + "x" * 1000)
    assert "\n" not in text and text.startswith("line one line two")
    assert len(text) <= 300
