"""Fixtures for judge tests: fake model servers wired in through the environment."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from evalkit.judge import RetryPolicy
from evalkit.testing import FakeGemini, FakeOpenAI
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT

MARKER_KEY = "MARKER-KEY-12345"



@pytest.fixture(autouse=True)
def isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    for name in FOREIGN_ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("EVALKIT_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def fake_gemini(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGemini]:
    with FakeGemini(default_reply="default reply") as fake:
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
        monkeypatch.setenv("GOOGLE_API_KEY", MARKER_KEY)
        yield fake


@pytest.fixture
def fake_openai(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(default_reply="default reply") as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        yield fake


@pytest.fixture
def marker_key() -> str:
    """The API key the fakes are called with; it must never show up in output."""
    return MARKER_KEY


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """The default budget of five attempts, with waits short enough for tests."""
    return RetryPolicy(max_attempts=5, attempt_timeout=2.0, base_delay=0.002, max_delay=0.05)
