"""What a judge model is asked and what it answers, and the judge a run hands its criteria.

Criteria and the user simulator send a `JudgeRequest` to the run's `Judge` and get a
`JudgeReply`. The judge they are given is the run's `evalkit.judge.service.JudgeService`
(disk cache, retries, the run-wide limit); they see only this protocol, so that criteria,
the simulator and the judge package do not import one another (docs/architecture.md,
"Layers").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from evalkit.schema.media_parts import MediaNotReadable, MediaPart

__all__ = ["Judge", "JudgeReply", "JudgeRequest", "MediaNotReadable", "MediaPart"]


@dataclass(frozen=True)
class JudgeRequest:
    """One prompt for one judge model.

    `model` is a Gemini model name (`gemini-2.5-flash`) or `openai/<model>` for an
    OpenAI-compatible chat-completions server. `prompt` is sent as a single user
    message. `config` holds google-genai `GenerateContentConfig` fields as a
    snake_case dict (temperature, thinking_config, ...). `sample_index` tells apart
    the N samples of one prompt, so each sample is cached on its own. `media` go in
    the same user message after the prompt's text, in the order of the conversation
    (a turn's user content, then its answer): the prompt's text is the same with or
    without them.
    """

    model: str
    prompt: str
    config: Mapping[str, Any] | None = None
    sample_index: int = 0
    media: tuple[MediaPart, ...] = ()


@dataclass(frozen=True)
class JudgeReply:
    """The judge's answer: the non-thought text of its first candidate."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    from_cache: bool = False


class Judge(Protocol):
    """Where judged criteria and the user simulator send their requests: the run's judge service."""

    async def generate(self, request: JudgeRequest) -> JudgeReply: ...
