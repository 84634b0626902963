"""The guard between the a2a-sdk client and the network (evalkit.agents.a2a_wire): what an
agent sends is bounded, its JSON-RPC ids checked and its timestamps and text made readable."""

from __future__ import annotations

import json

import httpx
import pytest

from evalkit.agents import a2a_wire
from evalkit.agents.a2a_wire import GuardedTransport, PeerError, made_readable, readable_timestamp


def test_a_timestamp_without_a_zone_is_read_as_utc_and_one_that_is_no_date_is_dropped():
    assert readable_timestamp("2026-11-29T01:27:17.921990") == "2026-11-29T01:27:17.921990Z"
    assert readable_timestamp("2026-11-29T03:27:17+02:00") == "2026-11-29T01:27:17.000000Z"
    assert readable_timestamp("2026-11-29T01:27:17Z") == "2026-11-29T01:27:17.000000Z"
    assert readable_timestamp("yesterday") is None
    status = made_readable({"status": {"state": "working", "timestamp": "2026-11"}})
    assert status == {"status": {"state": "working", "timestamp": "2026-11-01T00:00:00.000000Z"}} or \
        status == {"status": {"state": "working"}}
    assert made_readable({"timestamp": "not a date", "text": "2026-11-29T01:27:17"}) == {
        "text": "2026-11-29T01:27:17"}  # only timestamps are touched


def test_a_lone_surrogate_is_kept_escaped():
    data = json.loads('{"parts": [{"text": "a\\ud800b"}]}')
    assert made_readable(data) == {"parts": [{"text": "a\\ud800b"}]}
    assert made_readable(data)["parts"][0]["text"].encode("utf-8")  # now valid UTF-8


def client_of(handler) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=GuardedTransport(httpx.MockTransport(handler)))


async def test_an_answer_to_another_json_rpc_id_is_refused():
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": "other", "result": {}})

    async with client_of(answer) as client:
        with pytest.raises(PeerError, match="answered JSON-RPC request 'mine' with the id 'other'"):
            await client.post("http://agent/", json={"jsonrpc": "2.0", "id": "mine", "method": "SendMessage"})


async def test_streamed_events_are_rewritten_one_by_one_and_their_ids_checked():
    events = [{"jsonrpc": "2.0", "id": "r1", "result": {"statusUpdate": {"status": {
        "state": "working", "timestamp": "2026-11-29T01:27:17.921990"}}}},
        {"jsonrpc": "2.0", "id": "r2", "result": {}}]
    body = "".join(f": comment\nevent: message\ndata: {json.dumps(e)}\r\n\r\n" for e in events).encode()

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    async with client_of(answer) as client:
        request = client.build_request("POST", "http://agent/", json={"jsonrpc": "2.0", "id": "r1"})
        response = await client.send(request, stream=True)
        lines = []
        with pytest.raises(PeerError, match="with the id 'r2'"):
            async for line in response.aiter_lines():
                lines.append(line)
        first = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
        assert first["result"]["statusUpdate"]["status"]["timestamp"] == "2026-11-29T01:27:17.921990Z"


async def test_an_answer_or_event_past_the_limit_stops_the_reading(monkeypatch):
    monkeypatch.setattr(a2a_wire, "EVENT_LIMIT", 1000)
    monkeypatch.setattr(a2a_wire, "STREAM_LIMIT", 5000)

    def big(request: httpx.Request) -> httpx.Response:
        kind = request.url.path
        if kind == "/json":
            return httpx.Response(200, headers={"content-type": "application/json"}, content=b"[" + b"1," * 2000 + b"1]")
        if kind == "/event":
            return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=b"data: " + b"x" * 2000)
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=b"data: {}\n\n" * 1000)

    async with client_of(big) as client:
        with pytest.raises(PeerError, match="an answer larger than"):
            await client.get("http://agent/json")
        for path, what in (("/event", "an event"), ("/stream", "a stream")):
            response = await client.send(client.build_request("GET", f"http://agent{path}"), stream=True)
            with pytest.raises(PeerError, match=f"{what} larger than"):
                await response.aread()


async def test_header_values_go_only_to_the_agents_own_origin_not_elsewhere_nor_through_redirects():
    seen: dict[str, dict[str, str]] = {}

    def answer(request: httpx.Request) -> httpx.Response:
        seen[str(request.url)] = dict(request.headers)
        if request.url.path == "/moved":
            return httpx.Response(302, headers={"location": "http://other.example/landing"})
        return httpx.Response(200, json={})

    private = a2a_wire.private_to("http://agent.example:8000/a2a", ("https://named.example",),
                                  {"X-Api-Key": "", "Authorization": ""})
    transport = GuardedTransport(httpx.MockTransport(answer), private=private)
    headers = {"X-Api-Key": "k-123", "Authorization": "Bearer t-456", "User-Agent": "evalkit"}
    async with httpx.AsyncClient(transport=transport, headers=headers, follow_redirects=True) as client:
        await client.get("http://agent.example:8000/rpc")
        await client.get("http://agent.example:9000/rpc")  # another port: another origin
        await client.get("http://agent.example:8000/moved")
        await client.get("https://named.example:443/rpc")  # the user named it (--header-origin)

    for url in ("http://agent.example:8000/rpc", "https://named.example/rpc"):
        assert seen[url]["x-api-key"] == "k-123" and seen[url]["authorization"] == "Bearer t-456"
    for url in ("http://agent.example:9000/rpc", "http://other.example/landing"):
        assert "x-api-key" not in seen[url] and "authorization" not in seen[url], seen[url]
        assert seen[url]["user-agent"] == "evalkit"
