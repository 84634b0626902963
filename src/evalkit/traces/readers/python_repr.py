"""Python reprs some instrumentation writes instead of JSON, read without running any code.

The OpenAI Agents SDK's instrumentation records the Responses API's output items as their
repr (`ResponseFunctionToolCall(arguments='{}', call_id='call_1', name='transfer_to_x', …)`)
and content blocks as dict reprs (`{'annotations': [], 'text': '…', 'type': 'output_text'}`).
`literal` parses such text with `ast` and keeps only literals: a call `Name(k=v, …)` becomes
the dict `{"__class__": "Name", "k": v, …}`, anything else that is not a literal is None.
Nothing is evaluated.
"""

from __future__ import annotations

import ast
import re
from typing import Any

MAX_TEXT = 1_000_000  # longer text is not parsed (the parser's cost grows with it)
_START = re.compile(r"[A-Za-z_][\w.]*\(|[{\[]")


def literal(text: str) -> Any:
    """The value a repr spells, or None when the text is not one."""
    text = text.strip()
    if len(text) > MAX_TEXT or not _START.match(text):
        return None
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    try:
        return _value(tree.body)
    except RecursionError:
        return None


def _value(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Dict):
        return {_value(k) if k is not None else None: _value(v) for k, v in zip(node.keys, node.values)}
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_value(item) for item in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        value = node.operand.value
        return -value if isinstance(value, (int, float)) else None
    if isinstance(node, ast.Call):
        return {"__class__": _name(node.func), **{k.arg: _value(k.value) for k in node.keywords if k.arg}}
    return None


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""
