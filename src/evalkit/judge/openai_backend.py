"""Judges on OpenAI-compatible chat-completions servers: `judge_model: openai/<model>`.

This is how local judges run (Ollama, vLLM, llama.cpp server, LM Studio) as well as
OpenAI itself. `OPENAI_BASE_URL` picks the server (default the OpenAI API, e.g.
`http://localhost:11434/v1` for Ollama); `OPENAI_API_KEY` is sent as a bearer token
when set, and local servers usually need none.

The judge config is written in google-genai's terms; the fields that have a
chat-completions counterpart are translated, the rest (thinking_config, safety
settings, ...) have no equivalent and are left out.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Mapping
from typing import Any

from evalkit.errors import JudgeError
from evalkit.judge.base import OPENAI_PREFIX, JudgeUnavailable, TransientJudgeError, config_dict
from evalkit.judge.endpoints import JudgeEndpoints
from evalkit.judge.redact import redact
from evalkit.foundation.retry_after import parse_retry_after
from evalkit.judge.retry import PERMANENT_STATUSES, is_retryable_status
from evalkit.media.sniff import usual_type
from evalkit.schema.judging import JudgeReply, JudgeRequest, MediaNotReadable
from evalkit.schema.media_parts import MediaPart

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"

# genai GenerateContentConfig field -> chat-completions field, for plain values.
_CONFIG_FIELDS = {
    "temperature": "temperature",
    "top_p": "top_p",
    "max_output_tokens": "max_tokens",
    "stop_sequences": "stop",
    "seed": "seed",
    "presence_penalty": "presence_penalty",
    "frequency_penalty": "frequency_penalty",
}
# Reasoning models served locally often put their thinking inline; like Gemini's
# thought parts, it is not part of the judge's answer.
_LEADING_THINK_BLOCK = re.compile(r"^\s*<think>.*?</think>\s*", re.DOTALL)
# What chat completions takes besides text: images as `image_url` (a data URL), and audio
# as `input_audio` in the two formats it names. Anything else (PDF, video) it cannot be sent.
# By usual type: an alias (`image/jpg`, `audio/x-wav`) is read as the type it stands for (media/sniff.py).
_IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})
_AUDIO_FORMATS = {"audio/wav": "wav", "audio/mpeg": "mp3"}


def openai_can_read(mime_type: str) -> bool:
    usual = usual_type(mime_type)
    return usual in _IMAGE_TYPES or usual in _AUDIO_FORMATS


def openai_base_url(endpoints: JudgeEndpoints = JudgeEndpoints()) -> str:
    # The judges' own server first: under `run --cassettes`, OPENAI_BASE_URL names the agent's proxy.
    configured = endpoints.openai or os.environ.get("OPENAI_BASE_URL")
    return (configured or DEFAULT_OPENAI_BASE_URL).rstrip("/")


def chat_completions_body(model: str, prompt: str, config: Mapping[str, Any] | None,
                          media: tuple[MediaPart, ...] = ()) -> dict[str, Any]:
    """The request body for `model` (without the `openai/` prefix).

    Without media the user message's content is the prompt itself, as before media existed;
    with media it is a list: the prompt's text, then each image or sound in order.
    """
    settings = config_dict(config)
    content: Any = prompt
    if media:
        content = [{"type": "text", "text": prompt}, *(_media_item(model, part) for part in media)]
    body: dict[str, Any] = {"model": model, "messages": [{"role": "user", "content": content}]}
    for genai_name, openai_name in _CONFIG_FIELDS.items():
        value = settings.get(genai_name)
        if value is not None:
            body[openai_name] = value
    if settings.get("response_mime_type") == "application/json":
        body["response_format"] = {"type": "json_object"}
    return body


def _media_item(model: str, part: MediaPart) -> dict[str, Any]:
    encoded = base64.b64encode(part.data).decode("ascii")
    usual = usual_type(part.mime_type)
    if usual in _IMAGE_TYPES:
        return {"type": "image_url", "image_url": {"url": f"data:{usual};base64,{encoded}"}}
    audio_format = _AUDIO_FORMATS.get(usual)
    if audio_format is not None:
        return {"type": "input_audio", "input_audio": {"data": encoded, "format": audio_format}}
    raise MediaNotReadable(f"judge {OPENAI_PREFIX}{model} cannot read {part.mime_type}")


def _reply_from_body(body: Any) -> JudgeReply:
    """Text of the first choice and token usage; TransientJudgeError if malformed."""
    try:
        message = body["choices"][0]["message"]
        content = message.get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError):
        raise TransientJudgeError("unreadable reply (no choices[0].message)") from None
    if not isinstance(content, str):
        # Some servers send content as a list of typed parts.
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    usage = body.get("usage") or {}
    return JudgeReply(
        text=_LEADING_THINK_BLOCK.sub("", content, count=1),
        input_tokens=usage.get("prompt_tokens"),
        output_tokens=usage.get("completion_tokens"),
    )


def _error_detail(response: Any) -> str:
    try:
        error = response.json().get("error")
        if isinstance(error, dict):
            return str(error.get("message") or "")
        return str(error or "")
    except (ValueError, AttributeError):
        return response.text[:200]


class OpenAICompatibleBackend:
    """One httpx client for all `openai/...` judge calls of a service."""

    def __init__(self) -> None:
        self.endpoints = JudgeEndpoints()  # where the run's judges call, if not where the model variables say
        self._client: Any = None

    def use_endpoints(self, endpoints: JudgeEndpoints) -> None:
        self.endpoints = endpoints

    def describe_endpoint(self, model: str) -> str:
        return f"{openai_base_url(self.endpoints)} (model {model})"

    def can_read(self, mime_type: str) -> bool:
        return openai_can_read(mime_type)

    def _http_client(self) -> Any:
        if self._client is None:
            import httpx

            headers = {"Content-Type": "application/json"}
            api_key = os.environ.get("OPENAI_API_KEY", "").strip()
            if api_key:
                headers["Authorization"] = f"Bearer {api_key}"
            # No httpx timeout: the retry policy bounds each attempt itself.
            self._client = httpx.AsyncClient(
                headers=headers, timeout=None, limits=httpx.Limits(max_connections=None)
            )
        return self._client

    async def start(self) -> None:
        """Check the base URL once, so a typo fails at once instead of after retries."""
        base_url = openai_base_url(self.endpoints)
        if not base_url.startswith(("http://", "https://")):
            raise JudgeUnavailable(
                f"OPENAI_BASE_URL={base_url!r} is not an http(s) URL "
                "(for example http://localhost:11434/v1 for Ollama)"
            )

    async def generate(self, request: JudgeRequest) -> JudgeReply:
        import httpx

        model = request.model.removeprefix(OPENAI_PREFIX)
        body = chat_completions_body(model, request.prompt, request.config, request.media)
        try:
            response = await self._http_client().post(
                f"{openai_base_url(self.endpoints)}/chat/completions", json=body
            )
        except httpx.ConnectError as error:  # DNS failure or connection refused: it will not heal
            detail = redact(str(error)) or "no detail"
            raise JudgeUnavailable(
                f"judge {self.describe_endpoint(request.model)}: unreachable ({type(error).__name__}: {detail})"
            ) from None
        except httpx.TransportError as error:
            detail = redact(str(error)) or "no detail"
            raise TransientJudgeError(f"{type(error).__name__}: {detail}") from None
        except (httpx.HTTPError, httpx.InvalidURL) as error:
            raise JudgeError(
                f"judge {self.describe_endpoint(request.model)} failed: "
                f"{type(error).__name__}: {redact(str(error))}"
            ) from None
        if response.status_code != 200:
            reason = redact(f"{response.status_code} {response.reason_phrase}: {_error_detail(response)}")
            if is_retryable_status(response.status_code):
                raise TransientJudgeError(
                    reason, retry_after=parse_retry_after(response.headers.get("retry-after")),
                    status=response.status_code,
                )
            refusal = JudgeUnavailable if response.status_code in PERMANENT_STATUSES else JudgeError
            raise refusal(f"judge {self.describe_endpoint(request.model)} refused the request: {reason}")
        try:
            payload = response.json()
        except ValueError:
            raise TransientJudgeError("unreadable reply (not JSON)") from None
        return _reply_from_body(payload)

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()
