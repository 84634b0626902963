"""The MCP stand-in's cassette file: several recorders add to one file, each save keeps the others' calls."""

from __future__ import annotations

import json

import pytest

from evalkit.cassettes.mcp_cassette import McpCassette
from evalkit.errors import UsageError


def call(n: int) -> dict:
    return {"tool": "lookup", "args": {"n": n}, "response": {"content": [], "isError": False}}


def test_saves_of_two_recorders_interleaved_keep_every_call(tmp_path):
    first = McpCassette.load(tmp_path, "server", "python server.py")
    second = McpCassette.load(tmp_path, "server", "python server.py")
    first.tools = [{"name": "lookup", "inputSchema": {"type": "object"}}]
    first.save([call(1)])
    first.save([call(2)])  # nobody wrote in between
    second.save([call(3)])  # another process's save, between two of the first's
    first.save([call(4)])
    data = json.loads(first.path.read_text())
    assert [c["args"]["n"] for c in data["tool_calls"]] == [1, 2, 3, 4]
    assert data["tools"] == first.tools


def test_a_file_changed_by_hand_between_saves_is_read_again(tmp_path):
    cassette = McpCassette.load(tmp_path, "server", "python server.py")
    cassette.save([call(1)])
    data = json.loads(cassette.path.read_text())
    data["tool_calls"].append(call(9))
    cassette.path.write_text(json.dumps(data))
    cassette.save([call(2)])
    assert [c["args"]["n"] for c in json.loads(cassette.path.read_text())["tool_calls"]] == [1, 9, 2]


def test_a_call_without_its_arguments_is_an_unreadable_cassette(tmp_path):
    path = tmp_path / "mcp" / "server.mcp.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"evalkit_mcp_cassette": 1, "tool_calls": [{"tool": "lookup"}]}))
    with pytest.raises(UsageError, match=r"server\.mcp\.json: not a readable MCP cassette \(tool_calls\[0\] has no 'args'\)"):
        McpCassette.load(tmp_path, "server", "python server.py")
