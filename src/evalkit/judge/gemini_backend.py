"""Gemini judges through google-genai, configured by its own environment variables.

Credentials and endpoints are whatever google-genai reads: `GOOGLE_API_KEY` or
`GEMINI_API_KEY`, Vertex AI's `GOOGLE_GENAI_USE_VERTEXAI` + `GOOGLE_CLOUD_PROJECT` +
`GOOGLE_CLOUD_LOCATION`, and `GOOGLE_GEMINI_BASE_URL` / `GOOGLE_VERTEX_BASE_URL`
to send requests elsewhere (a proxy, or a local fake server in tests).

google-genai is imported on the first call only: it costs about a second, and runs
that use no judge should not pay it.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

from evalkit.errors import JudgeError
from evalkit.judge.base import JudgeUnavailable, TransientJudgeError, config_dict
from evalkit.judge.endpoints import JudgeEndpoints
from evalkit.judge.redact import redact
from evalkit.foundation.retry_after import parse_retry_after
from evalkit.judge.retry import PERMANENT_STATUSES, is_retryable_status
from evalkit.media.sniff import usual_type
from evalkit.schema.judging import JudgeReply, JudgeRequest, MediaNotReadable

_GEMINI_DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com/"
# What a Gemini model reads as bytes parts: images, audio, video, PDF and text documents
# (https://ai.google.dev/gemini-api/docs/document-processing and its image, audio and video pages).
_READABLE_FAMILIES = ("image/", "audio/", "video/", "text/")
_READABLE_TYPES = frozenset({"application/pdf"})


def gemini_can_read(mime_type: str) -> bool:
    usual = usual_type(mime_type)  # an alias reads as the type it stands for (media/sniff.py)
    return usual.startswith(_READABLE_FAMILIES) or usual in _READABLE_TYPES


def _env_flag(name: str) -> bool | None:
    value = os.environ.get(name)
    return None if value is None else value.strip().lower() in ("true", "1")


def _uses_vertex() -> bool:
    # Same precedence as google-genai: the newer variable wins when both are set.
    enterprise = _env_flag("GOOGLE_GENAI_USE_ENTERPRISE")
    if enterprise is not None:
        return enterprise
    return bool(_env_flag("GOOGLE_GENAI_USE_VERTEXAI"))


def judge_base_url_override(endpoints: JudgeEndpoints) -> str | None:
    """The judges' own server, if they have one (under `run --cassettes` the agent's variables name the proxy)."""
    return (endpoints.vertex if _uses_vertex() else endpoints.gemini) or None


def gemini_base_url(endpoints: JudgeEndpoints = JudgeEndpoints()) -> str:
    """The base URL google-genai will use, as far as `endpoints` and the environment decide it."""
    override = judge_base_url_override(endpoints)
    if override:
        return override
    if _uses_vertex():
        configured = os.environ.get("GOOGLE_VERTEX_BASE_URL")
        if configured:
            return configured
        location = os.environ.get("GOOGLE_CLOUD_LOCATION", "").strip()
        if location and location != "global":
            return f"https://{location}-aiplatform.googleapis.com/"
        return "https://aiplatform.googleapis.com/"
    return os.environ.get("GOOGLE_GEMINI_BASE_URL") or _GEMINI_DEFAULT_BASE_URL


def _reply_from_response(response: Any) -> JudgeReply:
    """The non-thought text of the first candidate, and the token counts."""
    text = ""
    candidates = response.candidates or []
    if candidates and candidates[0].content and candidates[0].content.parts:
        text = "".join(
            part.text
            for part in candidates[0].content.parts
            if part.text and not part.thought
        )
    usage = response.usage_metadata
    input_tokens = output_tokens = None
    if usage is not None:
        input_tokens = usage.prompt_token_count
        # Thinking tokens are billed as output, so they count as output here too.
        if usage.candidates_token_count is not None or usage.thoughts_token_count is not None:
            output_tokens = (usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0)
    return JudgeReply(text=text, input_tokens=input_tokens, output_tokens=output_tokens)


def _is_connection_error(error: BaseException) -> bool:
    """httpx or aiohttp transport failures (refused, reset, dropped, timed out)."""
    import httpx

    if isinstance(error, (httpx.TransportError, ConnectionError)):
        return True
    # aiohttp is optional for google-genai; recognise its errors without importing it.
    module = type(error).__module__ or ""
    return module.startswith(("aiohttp", "google.auth.exceptions"))


def _is_unreachable(error: BaseException) -> bool:
    """Nobody answers at that address (DNS failure, connection refused): retrying cannot help."""
    import httpx

    if isinstance(error, httpx.ConnectError):
        return True
    # aiohttp's equivalents, recognised without importing it (google-genai may use it).
    return type(error).__name__ in ("ClientConnectorError", "ClientConnectorDNSError")


def _is_garbled_reply(error: BaseException) -> bool:
    """A 200 reply whose body is not JSON, or not a GenerateContentResponse."""
    import pydantic

    return isinstance(error, (json.JSONDecodeError, pydantic.ValidationError))


class GeminiBackend:
    """One google-genai client for all Gemini judge calls of a service."""

    def __init__(self) -> None:
        self.endpoints = JudgeEndpoints()  # where the run's judges call, if not where the model variables say
        self._client: Any = None
        self._types: Any = None
        self._errors: Any = None
        self._setup_lock = asyncio.Lock()

    def use_endpoints(self, endpoints: JudgeEndpoints) -> None:
        self.endpoints = endpoints

    def describe_endpoint(self, model: str) -> str:
        return f"{gemini_base_url(self.endpoints)} (model {model})"

    def can_read(self, mime_type: str) -> bool:
        return gemini_can_read(mime_type)

    async def start(self) -> None:
        """Import google-genai and build the client, once."""
        if self._client is not None:
            return
        async with self._setup_lock:
            if self._client is None:
                # Importing and building the client is slow, blocking work.
                await asyncio.to_thread(self._create_client)

    def _create_client(self) -> None:
        from google import genai
        from google.genai import errors, types

        # One attempt per call: evalkit's retry policy is the only one, so the budget
        # it promises holds. (An explicit retry_options also stops google-genai's
        # hidden reconnect-and-sleep on aiohttp connection errors.)
        http_options = types.HttpOptions(retry_options=types.HttpRetryOptions(attempts=1),
                                         base_url=judge_base_url_override(self.endpoints))
        reason = None
        try:
            client = genai.Client(http_options=http_options)
        except ValueError as error:
            reason = redact(str(error))
        if reason is not None:
            # Raised outside the `except`, so nothing keeps the half-built client alive:
            # it is collected here, in a thread without an event loop, where its finaliser
            # cannot schedule a close task that fails on the run's loop.
            raise JudgeUnavailable(
                f"cannot set up the Gemini judge client: {reason} "
                "(set GOOGLE_API_KEY or GEMINI_API_KEY, or GOOGLE_GENAI_USE_VERTEXAI=true "
                "with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)"
            )
        self._types, self._errors = types, errors
        self._client = client

    def _build_config(self, request: JudgeRequest) -> Any:
        types = self._types
        try:
            config = types.GenerateContentConfig.model_validate(config_dict(request.config))
        except ValueError as error:
            raise JudgeError(
                f"judge_model_config for {request.model} is invalid: {redact(str(error))}"
            ) from None
        # Judges never pass tools; leaving automatic function calling on only makes
        # google-genai log a warning on every call.
        config.automatic_function_calling = types.AutomaticFunctionCallingConfig(disable=True)
        return config

    async def generate(self, request: JudgeRequest) -> JudgeReply:
        await self.start()
        config = self._build_config(request)
        contents = [self._types.Content(role="user", parts=self._parts(request))]
        try:
            response = await self._client.aio.models.generate_content(
                model=request.model, contents=contents, config=config
            )
        except self._errors.APIError as error:
            raise self._translate_api_error(error, request.model) from None
        except Exception as error:
            if _is_unreachable(error):
                detail = redact(str(error)) or "no detail"
                raise JudgeUnavailable(
                    f"judge {self.describe_endpoint(request.model)}: unreachable ({type(error).__name__}: {detail})"
                ) from None
            if _is_connection_error(error):
                detail = redact(str(error)) or "no detail"
                raise TransientJudgeError(f"{type(error).__name__}: {detail}") from None
            if _is_garbled_reply(error):
                raise TransientJudgeError(
                    f"unreadable reply ({type(error).__name__}: {redact(str(error), max_length=120)})"
                ) from None
            # Anything else is unexpected; it still ends as this call's error, not a crash.
            raise JudgeError(
                f"judge {self.describe_endpoint(request.model)} failed: "
                f"{type(error).__name__}: {redact(str(error))}"
            ) from None
        return _reply_from_response(response)

    def _parts(self, request: JudgeRequest) -> list[Any]:
        """The prompt's text, then each media part as bytes, in the request's order."""
        part = self._types.Part
        parts = [part(text=request.prompt)]
        for media in request.media:
            if not gemini_can_read(media.mime_type):
                raise MediaNotReadable(f"judge {request.model} cannot read {media.mime_type}")
            parts.append(part.from_bytes(data=media.data, mime_type=media.mime_type))
        return parts

    def _translate_api_error(self, error: Any, model: str) -> JudgeError:
        code = getattr(error, "code", None) or 0
        status = getattr(error, "status", None) or ""
        message = getattr(error, "message", None) or ""
        reason = redact(" ".join(str(p) for p in (code, status) if p) + (f": {message}" if message else ""))
        if is_retryable_status(code):
            response = getattr(error, "response", None)
            headers = getattr(response, "headers", None) or {}
            return TransientJudgeError(reason, retry_after=parse_retry_after(headers.get("retry-after")), status=code)
        refusal = JudgeUnavailable if code in PERMANENT_STATUSES else JudgeError
        return refusal(f"judge {self.describe_endpoint(model)} refused the request: {reason}")

    async def aclose(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            await client.aio.aclose()
            client.close()
