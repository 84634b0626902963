"""LLM judges: one async service in front of Gemini and OpenAI-compatible models.

Importing this package is cheap: model clients (google-genai, httpx) are imported
only when the first judge call is made.
"""

from evalkit.judge.base import (
    OPENAI_PREFIX,
    JudgeBackend,
    JudgeReply,
    JudgeRequest,
    TransientJudgeError,
)
from evalkit.judge.cache import JudgeCache, cache_key, default_cache_dir
from evalkit.judge.retry import RetryPolicy
from evalkit.judge.service import JudgeService, JudgeStats

__all__ = [
    "OPENAI_PREFIX",
    "JudgeBackend",
    "JudgeCache",
    "JudgeReply",
    "JudgeRequest",
    "JudgeService",
    "JudgeStats",
    "RetryPolicy",
    "TransientJudgeError",
    "cache_key",
    "default_cache_dir",
]
