"""Test helpers shipped with evalkit: fake model servers for offline tests."""

from evalkit.testing.fake_gemini import FakeGemini
from evalkit.testing.fake_openai import FakeOpenAI
from evalkit.testing.scripted_server import (
    FunctionCall,
    RecordedRequest,
    Reply,
    ScriptedModelServer,
    function_call,
    token_count,
)

__all__ = [
    "FakeGemini", "FakeOpenAI", "FunctionCall", "RecordedRequest", "Reply", "ScriptedModelServer",
    "function_call", "token_count",
]
