"""Test helpers shipped with evalkit: fake model servers for offline judge tests."""

from evalkit.testing.fake_gemini import FakeGemini
from evalkit.testing.fake_openai import FakeOpenAI
from evalkit.testing.scripted_server import RecordedRequest, ScriptedModelServer, token_count

__all__ = ["FakeGemini", "FakeOpenAI", "RecordedRequest", "ScriptedModelServer", "token_count"]
