"""Cassette files: one per eval case (and per repeated run), pretty JSON, diffable.

    {
      "evalkit_cassette": 1,
      "eval_set_id": "weather", "eval_id": "paris", "run": 1,
      "exchanges": [
        {"turn": 1, "protocol": "gemini",
         "path": "/v1beta/models/gemini-2.0-flash:generateContent",
         "request": {...the JSON body...},
         "response": {"status": 200, "content_type": "application/json", "body": {...}}}
      ]
    }

A streamed response keeps its server-sent events as `"events": [...]` (each event's
JSON) instead of `"body"`. An in-process ADK agent's tool calls and its MCP toolsets'
tool listings are kept beside the exchanges, as `"tool_calls"` and `"tool_listings"`
(evalkit.cassettes.tool_calls, evalkit.cassettes.mcp_listings). Headers are never written and the query string is
reduced to `alt=sse`, so an API key cannot end up in a cassette. Files are written
whole, through a temporary file, when their case finishes. See docs/cassettes.md.
"""

from __future__ import annotations

import hashlib
import os
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from evalkit.cassettes.media_refs import media_folder, with_blobs, without_blobs
from evalkit.errors import UsageError
from evalkit.foundation.documents import read_json
from evalkit.foundation.redaction import mask_secrets
from evalkit.foundation.files import write_run_file

FORMAT_VERSION = 1
_T = TypeVar("_T")
SUFFIX = ".cassette.json"


@dataclass
class RecordedResponse:
    status: int
    content_type: str
    body: Any = None  # the JSON body (or its text when it is not JSON)
    events: list[Any] | None = None  # a server-sent event stream: each event's data

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"status": self.status, "content_type": self.content_type}
        if self.events is not None:
            data["events"] = self.events
        else:
            data["body"] = self.body
        return data


@dataclass
class Exchange:
    turn: int | None
    protocol: str
    path: str
    request: dict[str, Any]
    response: RecordedResponse | None  # None while the upstream has not answered (or failed)

    def to_dict(self) -> dict[str, Any]:
        return {"turn": self.turn, "protocol": self.protocol, "path": self.path,
                "request": self.request, "response": self.response.to_dict() if self.response else None}


@dataclass
class Cassette:
    path: Path
    eval_set_id: str
    eval_id: str
    run: int = 1
    exchanges: list[Exchange] = field(default_factory=list)
    # {"turn", "tool", "args", "response" | "error"}: in the order the calls were made. None: the
    # file was not recorded with an in-process ADK agent's tools (a cassette older than tool
    # recording, or another kind of agent's), whose tools then run.
    tool_calls: list[dict[str, Any]] | None = None
    # {"toolset", "server", "tools": [MCP Tool objects, as tools/list answers them]}
    tool_listings: list[dict[str, Any]] = field(default_factory=list)
    exists: bool = False  # read from disk (False: nothing was recorded for this case yet)

    def save(self) -> None:
        data = {"evalkit_cassette": FORMAT_VERSION, "eval_set_id": self.eval_set_id,
                "eval_id": self.eval_id, "run": self.run,
                # media by content hash in DIR/media/ (cassettes/media_refs.py), not as base64 in the file
                "exchanges": [without_blobs(e.to_dict(), media_folder(self.path.parent.parent))
                              for e in self.exchanges if e.response is not None]}
        if self.tool_calls is not None:
            data["tool_calls"] = self.tool_calls
        if self.tool_listings:
            data["tool_listings"] = self.tool_listings
        # Atomic: readers never see half a file, even after Ctrl-C.
        write_run_file(self.path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        self.exists = True


def missed_in(path: Path, exists: bool, closest: Callable[[], str] | None = None) -> str:
    """Where a call with no recording was looked for: that there is no cassette at `path`, else
    the cassette (after how the call differs from its closest recording, when given)."""
    if not exists:
        return f"there is no cassette {path}"
    return f"{closest()} (cassette {path})" if closest is not None else f"cassette {path}"


def cassette_path(folder: Path, eval_set_id: str, eval_id: str, run: int = 1) -> Path:
    """`DIR/<eval set>/<case>.cassette.json`; a repeated run adds `.run2`, `.run3`, ..."""
    name = file_name(eval_id) + (f".run{run}" if run > 1 else "")
    return folder / file_name(eval_set_id or "default") / (name + SUFFIX)


def cassette_files(folder: Path) -> list[Path]:
    """Every `*.cassette.json` under `folder`, in name order; symlinked folders are not followed (a
    link to a parent would never end). What is not a file is listed too, for its reader to name."""
    found = []
    for root, folders, files in os.walk(folder):
        found += [Path(root) / name for name in (*files, *folders) if name.endswith(SUFFIX)]
    return sorted(found)


def file_name(text: str) -> str:
    """A file name for an id or a conversation's first message: its secrets masked before it is
    slugged (cassette folders get committed; a name is no place for a key), then its
    characters kept to `[A-Za-z0-9._-]`, with a hash of the whole text when anything changed."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", mask_secrets(text)).strip("._") or "case"
    if safe != text:  # two ids that slug alike must not share a file
        safe += "-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]
    return safe[:120]


def load_cassette(folder: Path, eval_set_id: str, eval_id: str, run: int = 1) -> Cassette:
    path = cassette_path(folder, eval_set_id, eval_id, run)
    cassette = Cassette(path, eval_set_id, eval_id, run)
    if path.is_file():
        data = _read(path)

        def parse() -> None:
            cassette.exchanges = _exchanges(with_blobs(data, media_folder(folder)))
            if "tool_calls" in data:
                cassette.tool_calls = records(data, "tool_calls", ("tool", "args"))
                for index, call in enumerate(cassette.tool_calls):
                    _check_tool_call(call, f"tool_calls[{index}]")
            cassette.tool_listings = records(data, "tool_listings", ("toolset", "tools"))
            for index, listing in enumerate(cassette.tool_listings):
                _expect(isinstance(listing["toolset"], str), f"tool_listings[{index}].toolset", "a text")
                check_listing(listing["tools"], f"tool_listings[{index}].tools")

        _parsed(path, parse)
        cassette.exists = True
    return cassette


def read_exchanges(path: Path) -> list[Exchange]:
    data = _read(path)
    return _parsed(path, lambda: _exchanges(with_blobs(data, media_folder(path.parent.parent))))


def _exchanges(data: dict[str, Any]) -> list[Exchange]:
    items = data.get("exchanges") or []
    if not isinstance(items, list):
        raise ValueError("'exchanges' is not a list")
    return [_exchange(item, f"exchanges[{index}]") for index, item in enumerate(items)]


def _read(path: Path) -> dict[str, Any]:
    def parse() -> dict[str, Any]:
        data = read_json(path)
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        if data.get("evalkit_cassette") != FORMAT_VERSION:
            raise ValueError(f"'evalkit_cassette' is {data.get('evalkit_cassette')!r}, expected {FORMAT_VERSION}")
        return data

    return _parsed(path, parse)


def _parsed(path: Path, parse: Callable[[], _T]) -> _T:
    try:
        return parse()
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise UsageError(
            f"{path}: not a readable cassette ({error}); re-record it with --cassette-mode record"
        ) from None


def records(data: dict[str, Any], key: str, required: tuple[str, ...]) -> list[dict[str, Any]]:
    """The list under `key`, each item an object with the `required` keys."""
    items = data.get(key) or []
    if not isinstance(items, list):
        raise ValueError(f"'{key}' is not a list")
    for index, item in enumerate(items):
        missing = [name for name in required if not isinstance(item, dict) or name not in item]
        if missing:
            raise ValueError(f"{key}[{index}] has no {missing[0]!r}")
    return items


def _exchange(item: Any, place: str) -> Exchange:
    """One recorded exchange, each field of the shape a recording has (a tampered file is named at the field)."""
    from evalkit.cassettes.protocols import PROTOCOLS

    _expect(isinstance(item, dict), place, "an object")
    turn = item.get("turn")
    _expect(turn is None or (type(turn) is int and turn >= 1), f"{place}.turn", "a whole number from 1 (or null)")
    protocol = item.get("protocol")
    names = [p.name for p in PROTOCOLS]
    _expect(protocol in names, f"{place}.protocol", f"one of {', '.join(names)}")
    _expect(isinstance(item.get("path"), str) and item["path"].startswith("/"), f"{place}.path", "a URL path")
    _expect(isinstance(item.get("request"), dict), f"{place}.request", "an object")
    response = item.get("response")
    _expect(isinstance(response, dict), f"{place}.response", "an object")
    status = response.get("status")
    _expect(type(status) is int and 100 <= status <= 599, f"{place}.response.status", "an HTTP status (100 to 599)")
    content_type = response.get("content_type", "application/json")
    _expect(isinstance(content_type, str) and content_type.isprintable() and len(content_type) <= 200,
            f"{place}.response.content_type", "a media type on one line")
    events = response.get("events")
    _expect(events is None or isinstance(events, list), f"{place}.response.events", "a list")
    return Exchange(turn=turn, protocol=protocol, path=item["path"], request=item["request"],
                    response=RecordedResponse(status, content_type, response.get("body"), events))


def _check_tool_call(call: dict[str, Any], place: str) -> None:
    turn = call.get("turn")
    _expect(turn is None or (type(turn) is int and turn >= 1), f"{place}.turn", "a whole number from 1 (or null)")
    _expect(isinstance(call["tool"], str), f"{place}.tool", "a tool's name")
    _expect(isinstance(call["args"], dict), f"{place}.args", "an object")
    _expect(call.get("error") is None or isinstance(call["error"], str), f"{place}.error", "a text")


def check_listing(tools: Any, place: str) -> None:
    """A recorded MCP `tools/list` answer as MCP shapes it: a list of objects, each with a name, and an
    input schema that is an object with an object of properties (a tampered file named at the field)."""
    _expect(isinstance(tools, list), place, "a list")
    for index, tool in enumerate(tools):
        _expect(isinstance(tool, dict) and isinstance(tool.get("name"), str), f"{place}[{index}]",
                "an object with a 'name'")
        schema = tool.get("inputSchema")
        _expect(schema is None or isinstance(schema, dict), f"{place}[{index}].inputSchema", "an object")
        _expect(not schema or isinstance(schema.get("properties", {}), dict),
                f"{place}[{index}].inputSchema.properties", "an object")


def _expect(holds: bool, place: str, what: str) -> None:
    if not holds:
        raise ValueError(f"{place} is not {what}")
