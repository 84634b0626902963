"""`evalkit mcp` recording a real server that writes a line that is no JSON-RPC: no SDK traceback on
stderr, and the stand-in goes on serving the answers that are well formed."""

from __future__ import annotations

import asyncio
import os
import sys

import pytest

pytest.importorskip("mcp")

BROKEN_SERVER = '''
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if message.get("method") == "initialize":
        result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                  "serverInfo": {"name": "broken", "version": "1"}}
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    elif message.get("method") == "tools/list":
        print("{this is no JSON-RPC", flush=True)
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}), flush=True)
'''


def test_a_line_of_no_json_rpc_from_the_real_server_prints_no_traceback(tmp_path):
    from mcp import ClientSession, StdioServerParameters, stdio_client

    (tmp_path / "broken_server.py").write_text(BROKEN_SERVER)
    stand_in = StdioServerParameters(
        command=sys.executable, args=["-m", "evalkit", "mcp", "--cassettes", str(tmp_path / "cassettes"),
                                      "--cassette-mode", "record", "--", sys.executable, "broken_server.py"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, cwd=str(tmp_path))

    async def listed() -> list:
        with (tmp_path / "stand-in.err").open("w") as errors:
            async with stdio_client(stand_in, errlog=errors) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                return (await session.list_tools()).tools

    assert asyncio.run(listed()) == []
    assert "Traceback" not in (tmp_path / "stand-in.err").read_text()
