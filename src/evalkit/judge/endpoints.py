"""Where evalkit's own judges send their calls when that is not where the agent's go.

Without them the judges follow the model variables google-genai and OpenAI clients read
(`GOOGLE_GEMINI_BASE_URL`, `GOOGLE_VERTEX_BASE_URL`, `OPENAI_BASE_URL`). The values come
from the run's settings (`evalkit.settings.Environment`, the `EVALKIT_JUDGE_*_BASE_URL`
variables); under `run --cassettes` the agent's variables name the model proxy, and the
cassettes fill these in with the servers the judges would have called.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evalkit.settings import Environment


@dataclass(frozen=True)
class JudgeEndpoints:
    gemini: str | None = None  # the Gemini API's base URL for judges
    vertex: str | None = None  # Vertex AI's, when google-genai is set to use Vertex AI
    openai: str | None = None  # an OpenAI-compatible server's (`judge_model: openai/...`)

    @classmethod
    def of(cls, environment: Environment) -> JudgeEndpoints:
        return cls(gemini=environment.judge_gemini_base_url, vertex=environment.judge_vertex_base_url,
                   openai=environment.judge_openai_base_url)
