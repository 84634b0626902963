"""A tampered MCP cassette (`DIR/mcp/NAME.mcp.json`) is named with its field, never a crash: a tool's
`inputSchema` that is a string, JSON nested 100,000 levels deep, a symlink to /dev/zero. `evalkit mcp`
refuses it (a `UsageError`, exit 2); coverage leaves it out with a warning naming it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.cassettes.mcp_cassette import McpCassette, recorded_tools
from evalkit.errors import UsageError

TAMPERED = {
    "schema_text": (json.dumps({"evalkit_mcp_cassette": 1, "server": "s", "tool_calls": [],
                                "tools": [{"name": "get_weather", "inputSchema": "city"}]}),
                    "tools[0].inputSchema is not an object"),
    "properties_list": (json.dumps({"evalkit_mcp_cassette": 1, "server": "s", "tool_calls": [],
                                    "tools": [{"name": "t", "inputSchema": {"properties": ["city"]}}]}),
                        "tools[0].inputSchema.properties is not an object"),
    "nameless": (json.dumps({"evalkit_mcp_cassette": 1, "server": "s", "tool_calls": [], "tools": [3]}),
                 "tools[0] is not an object with a 'name'"),
    "nested": ('{"a":' * 100_000 + "0" + "}" * 100_000, "nested more than 200 levels deep"),
    "not_an_object": ("[1, 2]", "not a JSON object"),
}


@pytest.mark.parametrize("kind", sorted(TAMPERED))
def test_a_tampered_mcp_cassette_is_named_with_its_field(tmp_path: Path, kind: str):
    text, reason = TAMPERED[kind]
    path = tmp_path / "mcp" / "weather.mcp.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(UsageError) as refused:
        McpCassette.at(path)
    assert str(refused.value).startswith(f"{path}: not a readable MCP cassette (") and reason in str(refused.value)
    warnings: list[str] = []
    assert recorded_tools(tmp_path, warnings.append) is None
    assert [reason in warning and str(path) in warning for warning in warnings] == [True]
