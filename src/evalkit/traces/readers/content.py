"""What every reader does with the messages and tool outcomes it found: one place that fills a SlimSpan.

A reader finds a span's input and output messages, or a tool's arguments and outcome,
in its own vocabulary; these functions put them into the record the same way for all.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from evalkit.traces.readers.messages import (
    Message,
    history_texts,
    last_user_media,
    last_user_texts,
    output_parts,
    parsed,
    tool_responses,
)
from evalkit.traces.spans import SlimSpan

# Where tool frameworks wrap the tool's own output: LangChain's ToolMessage (as OpenInference
# and OpenLLMetry record it) keeps it under these keys.
_WRAPPERS = ("output", "data", "kwargs")


def fill_model(record: SlimSpan, inputs: list[Message] | None, outputs: list[Message] | None) -> None:
    """A model call's (or an agent invocation's) content, from its input and output messages."""
    record.captured = inputs is not None or outputs is not None
    record.user_texts = last_user_texts(inputs)
    record.user_media = last_user_media(inputs)
    record.output = output_parts(outputs)
    record.responses = [_response(r) for r in tool_responses(inputs)]
    # The history rule is only for an imported file's turns with no recorded conversation id.
    if inputs and record.conversation is None and record.hash_history:
        before = history_texts(inputs, through_last_user=False)
        record.prior = _digest(before) if before else None
        answered = [f"assistant:{p['text']}" for p in record.output if "text" in p]
        record.exchange = _digest(history_texts(inputs, through_last_user=True) + answered)


def fill_tool(record: SlimSpan, arguments: Any, outcome: Any, failed: bool = False, message: str = "") -> None:
    """A tool call's arguments and its result or error, unwrapping what frameworks put around them."""
    args = parsed(arguments)
    args = _payload_arguments(args)
    record.captured = isinstance(args, dict)
    record.tool_args = args if isinstance(args, dict) else None
    result, error, call_id = _unwrapped(outcome)
    record.tool_call_id = record.tool_call_id or call_id
    if failed or error:
        record.tool_error = str(message or result or "the tool failed")
    elif result is not None:
        record.tool_result = result


def _payload_arguments(args: Any) -> Any:
    """The arguments inside what frameworks record around them: OpenLLMetry's LangChain callback payload
    (`{"input_str": "{'city': 'Paris'}", "tags", "metadata"}`) and a Python call's `{"args": [], "kwargs": {...}}`
    (OpenInference's LlamaIndex and DSPy tools)."""
    if isinstance(args, dict) and "input_str" in args and ("metadata" in args or "tags" in args):
        inner = parsed(args.get("inputs")) or parsed(args["input_str"])
        return inner if isinstance(inner, dict) else None
    if isinstance(args, dict) and args and set(args) <= {"args", "kwargs"} and isinstance(args.get("kwargs"), dict) \
            and not args.get("args"):
        return args["kwargs"]
    return args


def _unwrapped(outcome: Any) -> tuple[Any, bool, str | None]:
    """(the tool's result, whether it failed, the call id) from a result as recorded."""
    value = parsed(outcome) if isinstance(outcome, str) else outcome
    if value is None and isinstance(outcome, str):
        return outcome, False, None  # plain text: kept as text
    for _ in range(3):
        if not isinstance(value, dict):
            break
        if "tool_call_id" in value and "content" in value:  # LangChain's ToolMessage
            content = value.get("content")
            return (content if content not in (None, "") else None), value.get("status") == "error", \
                str(value["tool_call_id"]) if value.get("tool_call_id") else None
        if "raw_output" in value and "is_error" in value:  # LlamaIndex's ToolOutput
            return value["raw_output"], bool(value["is_error"]), None
        inner = next((value[key] for key in _WRAPPERS if isinstance(value.get(key), dict)), None)
        if inner is None:
            break
        value = inner
    if isinstance(value, list) and value and all(isinstance(b, dict) and "text" in b for b in value):
        return "".join(str(b["text"]) for b in value), False, None  # content blocks
    return value, False, None


def _response(found: dict[str, Any]) -> dict[str, Any]:
    result, error, _ = _unwrapped(found.get("response"))
    return {"id": found.get("id"), "result": result, "error": bool(found.get("error") or error)}


def response_object(result: Any, error: str | None) -> dict[str, Any]:
    """What a function_response holds: a dict as it is; text and other values under `result`; errors under `error`."""
    if error is not None:
        return {"error": error}
    if isinstance(result, dict):
        return result
    return {"result": result}


def _digest(texts: list[str]) -> str:
    return hashlib.sha256(json.dumps(texts, ensure_ascii=False).encode()).hexdigest()[:32]
