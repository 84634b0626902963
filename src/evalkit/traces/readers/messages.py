"""Chat messages in every shape instrumentation writes them → the GenAI conventions' message shape.

The one shape the rest of the importer reads: `{"role": "user"|"assistant"|"system"|"tool",
"parts": [{"type": "text", "content"}, {"type": "tool_call", "id", "name", "arguments"},
{"type": "tool_call_response", "id", "response"}]}`. Read from: that shape itself, OpenAI
chat-completions messages (`content`, `tool_calls`, `tool_call_id`), Strands' content blocks
(`text`, `toolUse`, `toolResult`), Haystack's `ChatMessage` (`tool_call`, `tool_call_result`), LangChain's
serialized messages, and genai `Content`.
Text that is JSON is parsed as JSON; text that is a Python literal (what some
instrumentation writes instead of JSON: an SDK object's repr) is read with
`ast.literal_eval`, which evaluates no code.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from evalkit.foundation.text import escape_surrogates
from evalkit.traces.readers.python_repr import literal

Message = dict[str, Any]
ROLES = {"human": "user", "ai": "assistant", "model": "assistant", "function": "tool"}
LANGCHAIN_ROLES = {"HumanMessage": "user", "AIMessage": "assistant", "SystemMessage": "system",
                   "ToolMessage": "tool"}
TEXT_BLOCKS = ("output_text", "input_text", "text")  # the typed text blocks of OpenAI's APIs
_REPR_CALL = re.compile(r"[A-Z]\w*\(\w+=")  # `ResponseFunctionToolCall(arguments=…`: an object's repr
MAX_LITERAL = 1_000_000  # longer text is not read as a Python literal (literal_eval's cost grows with it)


def parsed(value: Any) -> Any:
    """JSON text (or a Python literal's text) as a value; other values as they are; None if unreadable."""
    if not isinstance(value, str):
        return value
    text = value.strip()
    if not text or text[0] not in "{[\"'0123456789-tfnTFN":
        return None
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        if len(text) > MAX_LITERAL or text[0] not in "{[":
            return None
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    # a `\ud800` escape with no partner decodes to a str no file can hold: kept as its six characters
    return escape_surrogates(value) if "\\ud" in text or "\\uD" in text else value


def messages(value: Any, role: str | None = None) -> list[Message] | None:
    """A list of messages from any shape above; None when there is none (not recorded)."""
    value = parsed(value)
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        value = value["messages"]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        return None
    if value and isinstance(value[0], dict) and _is_block(value[0]):
        return [{"role": role or "assistant", "parts": _blocks(value)}]  # one message's content blocks
    found = [message(item, role) for item in value if isinstance(item, (dict, list))]
    return [m for m in found if m is not None]


def message(item: Any, role: str | None = None) -> Message | None:
    if isinstance(item, list):  # LangChain's batch of messages
        return None
    kwargs = _langchain(item)
    if kwargs is not None:
        item, role = kwargs
    said = ROLES.get(str(item.get("role") or item.get("type") or ""), item.get("role")) or role
    parts_given = item.get("parts")
    if isinstance(parts_given, list) and (not parts_given or (isinstance(parts_given[0], dict) and "type" in parts_given[0])):
        return {"role": said, "parts": [{**p, "content": _block_text(p["content"])} if _is_text(p) else p
                                         for p in item["parts"] if isinstance(p, dict)]}
    if isinstance(item.get("parts"), list):  # genai Content
        return {"role": said, "parts": _blocks(item["parts"])}
    parts: list[dict[str, Any]] = []
    content = item.get("content")
    if isinstance(content, str) and content:
        if said == "tool":
            parts.append({"type": "tool_call_response", "id": item.get("tool_call_id"), "response": content,
                          **({"error": True} if item.get("status") == "error" else {})})
        else:
            parts.append({"type": "text", "content": content})
    elif isinstance(content, list):
        parts += _blocks(content)
    for call in item.get("tool_calls") or ():
        if isinstance(call, dict):
            function: dict[str, Any] = call["function"] if isinstance(call.get("function"), dict) else call
            parts.append({"type": "tool_call", "id": call.get("id"), "name": function.get("name"),
                          "arguments": function.get("arguments", function.get("args"))})
    return {"role": said, "parts": parts}


def _langchain(item: dict[str, Any]) -> tuple[dict[str, Any], str | None] | None:
    """LangChain's serialized message (`{"lc": 1, "id": [..., "AIMessage"], "kwargs"}` or `{"type", "data"}`)."""
    if item.get("lc") == 1 and isinstance(item.get("kwargs"), dict):
        kind = str((item.get("id") or [""])[-1])
        return item["kwargs"], LANGCHAIN_ROLES.get(kind)
    if isinstance(item.get("data"), dict) and item.get("type") in ("human", "ai", "system", "tool"):
        return item["data"], ROLES.get(item["type"], item["type"])
    return None


def _is_block(block: dict[str, Any]) -> bool:
    """A content block (not a message): messages have a role or parts; blocks are a text or a tool's use."""
    return "role" not in block and "parts" not in block and ("text" in block or "toolUse" in block
                                                              or "toolResult" in block or "tool_call" in block
                                                              or "tool_call_result" in block)


def _blocks(blocks: list[Any]) -> list[dict[str, Any]]:
    """Content blocks (Strands', OpenAI's typed parts, genai's Parts) as parts; reasoning left out."""
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if not isinstance(block, dict) or block.get("thought"):
            continue
        if isinstance(block.get("text"), str):
            parts.append({"type": "text", "content": block["text"]})
        elif isinstance(block.get("function_call", block.get("functionCall")), dict):  # Python's and JS's genai
            call = block.get("function_call") or block["functionCall"]
            parts.append({"type": "tool_call", "name": call.get("name"), "arguments": call.get("args"),
                          "id": call.get("id")})
        elif isinstance(block.get("function_response", block.get("functionResponse")), dict):
            answer = block.get("function_response") or block["functionResponse"]
            response = answer.get("response")
            failed = isinstance(response, dict) and set(response) == {"error"}  # how ADK reports a tool that threw
            parts.append({"type": "tool_call_response", "id": answer.get("id"),
                          "response": response["error"] if failed else response, **({"error": True} if failed else {})})
        elif isinstance(block.get("tool_call"), dict) and "tool_name" in block["tool_call"]:  # Haystack's ChatMessage
            call = block["tool_call"]
            parts.append({"type": "tool_call", "id": call.get("id"), "name": call.get("tool_name"),
                          "arguments": call.get("arguments")})
        elif isinstance(block.get("tool_call_result"), dict):
            result = block["tool_call_result"]
            origin = result.get("origin") if isinstance(result.get("origin"), dict) else {}
            parts.append({"type": "tool_call_response", "id": origin.get("id"), "response": result.get("result"),
                          **({"error": True} if result.get("error") else {})})
        elif isinstance(block.get("toolUse"), dict):
            use = block["toolUse"]
            parts.append({"type": "tool_call", "id": use.get("toolUseId"), "name": use.get("name"),
                          "arguments": use.get("input")})
        elif isinstance(block.get("toolResult"), dict):
            result = block["toolResult"]
            texts = [c.get("text") for c in result.get("content") or () if isinstance(c, dict) and "text" in c]
            response = "".join(str(t) for t in texts) if texts else result.get("content")
            parts.append({"type": "tool_call_response", "id": result.get("toolUseId"), "response": response,
                          **({"error": True} if result.get("status") == "error" else {})})
    return parts


def texts(message: Message) -> list[str]:
    return [p["content"] for p in message.get("parts") or () if _is_text(p)]


def last_user_texts(found: list[Message] | None) -> list[str] | None:
    """The texts of the last user message that has text (tool results are not the user's words)."""
    for item in reversed(found or ()):
        if item.get("role") == "user" and texts(item):
            return texts(item)
    return None


def last_user_media(found: list[Message] | None) -> list[dict[str, Any]]:
    """The media of the message `last_user_texts` reads, in genai form: the GenAI conventions' `blob`
    parts become `inline_data` (base64 `content`), `uri` and `file` parts `file_data` (docs/media.md)."""
    for item in reversed(found or ()):
        if item.get("role") == "user" and texts(item):
            return [media for part in item.get("parts") or () if (media := _media_part(part)) is not None]
    return []


def _media_part(part: Any) -> dict[str, Any] | None:
    if not isinstance(part, dict):
        return None
    mime_type = part.get("mime_type") or part.get("mimeType")
    kind = part.get("type")
    if kind == "blob" and isinstance(part.get("content"), str):
        return {"inline_data": {"mime_type": mime_type, "data": part["content"]}}
    where = part.get("uri") if kind == "uri" else part.get("file_id") if kind == "file" else None
    if isinstance(where, str) and where:
        return {"file_data": {"mime_type": mime_type, "file_uri": where}}
    return None


def output_parts(found: list[Message] | None) -> list[dict[str, Any]]:
    """An answer's parts in genai form: texts (reasoning left out) and the tool calls it asked for."""
    parts: list[dict[str, Any]] = []
    for item in found or ():
        if item.get("role") not in (None, "assistant", "model"):
            continue
        for part in item.get("parts") or ():
            if _is_text(part):
                nested = _repr_message(part["content"])
                parts += output_parts([nested]) if nested else [{"text": part["content"]}]
            elif isinstance(part, dict) and part.get("type") == "tool_call" and part.get("name"):
                arguments = parsed(part.get("arguments"))
                call = {"name": str(part["name"]), "args": arguments if isinstance(arguments, dict) else {}}
                parts.append({"function_call": {**call, **({"id": str(part["id"])} if part.get("id") else {})}})
    return parts


def tool_responses(found: list[Message] | None) -> list[dict[str, Any]]:
    """The tool results a model call was sent after the last user message: `{id, response, error}`."""
    responses: list[dict[str, Any]] = []
    for item in found or ():
        if item.get("role") == "user" and texts(item):
            responses = []
        for part in item.get("parts") or ():
            if isinstance(part, dict) and part.get("type") == "tool_call_response":
                responses.append({"id": part.get("id"), "response": part.get("response"),
                                  "error": bool(part.get("error"))})
    return responses


def history_texts(found: list[Message] | None, *, through_last_user: bool) -> list[str]:
    """The user's and the assistant's texts in order: what a later turn's history repeats."""
    said: list[tuple[str, str]] = []
    for item in found or ():
        if item.get("role") in ("user", "assistant"):
            said += [(item["role"], text) for text in texts(item)]
    if not through_last_user:
        while said and said[-1][0] != "user":
            said.pop()
        if said:
            said.pop()  # the turn's own message: the history is what came before it
    return [f"{role}:{text}" for role, text in said]


def _repr_message(text: str) -> Message | None:
    """An assistant message written as an SDK object's repr: a chat message (`{'content': None, 'tool_calls':
    [...]}`), a Responses-API output message, or a function call (`ResponseFunctionToolCall(arguments=…)`)."""
    if not text.startswith(("{'", '{"')) and not _REPR_CALL.match(text):
        return None
    value = literal(text)
    if not isinstance(value, dict):
        return None
    if ("tool_calls" in value or "content" in value) and "role" in value:
        return message(value, "assistant")
    if isinstance(value.get("name"), str) and "arguments" in value and ("call_id" in value or "id" in value):
        call = {"id": value.get("call_id") or value.get("id"), "function": {"name": value["name"],
                                                                             "arguments": value["arguments"]}}
        return message({"role": "assistant", "tool_calls": [call]})
    return None


def _block_text(text: str) -> str:
    """A text that is a content block's repr or JSON (`{'text': '…', 'type': 'output_text'}`): its text."""
    if not text.startswith(("{'", '{"')) or "text" not in text:
        return text
    value = literal(text)
    if isinstance(value, dict) and isinstance(value.get("text"), str) and value.get("type") in TEXT_BLOCKS:
        return value["text"]
    return text


def _is_text(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("content"), str)


def text_or_none(value: Any) -> str | None:
    """An attribute's value as text; None for a missing or empty one."""
    return str(value) if value not in (None, "") else None
