"""Attribute names from before the GenAI conventions settled, as frameworks still write them.

- pydantic-ai's instrumentation formats 1 and 2: tool spans (`running tool`) with
  `tool_arguments` / `tool_response`; the agent span (`agent run`) with `final_result` and
  the whole conversation in `pydantic_ai.all_messages`.
- OpenLLMetry (`traceloop.*`): model spans with `gen_ai.prompt.N.role` / `.content` and
  `gen_ai.completion.N.role` / `.content` / `.tool_calls.K.name|arguments|id`; tools with
  `traceloop.entity.input` / `.output` (LangChain's callback payloads).

Each fills in only what the conventions' reader (`genai.py`) left empty.
"""

from __future__ import annotations

import re
from typing import Any

from evalkit.traces.otlp_json import RawSpan
from evalkit.traces.readers.content import fill_model, fill_tool
from evalkit.traces.readers.messages import Message, message, messages
from evalkit.traces.spans import AGENT, MODEL, TOOL, SlimSpan

_NUMBERED = re.compile(r"gen_ai\.(prompt|completion)\.(\d+)\.(.+)")


def read(span: RawSpan, record: SlimSpan) -> None:
    attributes = span.attributes
    if record.kind == TOOL and record.tool_args is None and record.tool_error is None:
        arguments = attributes.get("tool_arguments", attributes.get("traceloop.entity.input"))
        if arguments is not None:
            fill_tool(record, arguments, attributes.get("tool_response", attributes.get("traceloop.entity.output")),
                      span.failed, span.status_message)
    elif record.kind == AGENT and not record.has_content:
        history = messages(attributes.get("pydantic_ai.all_messages"))
        final = attributes.get("final_result")
        answer = [{"role": "assistant", "parts": [{"type": "text", "content": str(final)}]}] if final else None
        if history is not None or answer is not None:
            fill_model(record, history, answer)
    elif record.kind == MODEL and not record.has_content:
        prompt, completion = _numbered(attributes, "prompt"), _numbered(attributes, "completion")
        if prompt is not None or completion is not None:
            fill_model(record, prompt, completion)


def _numbered(attributes: dict[str, Any], which: str) -> list[Message] | None:
    """`gen_ai.prompt.N.*` / `gen_ai.completion.N.*` back into messages."""
    by_index: dict[int, dict[str, Any]] = {}
    for key, value in attributes.items():
        found = _NUMBERED.fullmatch(key)
        if not found or found[1] != which:
            continue
        item = by_index.setdefault(int(found[2]), {})
        rest = found[3].split(".")
        if rest[0] == "tool_calls" and len(rest) == 3 and rest[1].isdigit():
            item.setdefault("tool_calls", {}).setdefault(int(rest[1]), {})[rest[2]] = value
        else:
            item[found[3]] = value
    if not by_index:
        return None
    found_messages = []
    for index in sorted(by_index):
        item = by_index[index]
        calls = [{"id": c.get("id"), "function": {"name": c.get("name"), "arguments": c.get("arguments")}}
                 for _, c in sorted((item.pop("tool_calls", None) or {}).items())]
        converted = message({**item, "tool_calls": calls})
        if converted is not None:
            found_messages.append(converted)
    return found_messages
