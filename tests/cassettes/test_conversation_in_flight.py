"""The standalone proxy's conversations (`per_conversation`) while a recording is still in flight.

A conversation that starts again (its first call arrives once more) replays what was
recorded; a call whose upstream answer has not come back yet has nothing to replay, so
the repeated call is forwarded too, and both callers get the upstream's answer.
"""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from evalkit.cassettes.deck import CassetteDeck
from evalkit.cassettes.upstream import Forwarder, Upstreams
from evalkit.testing import FakeGemini

PATH = "/v1beta/models/m:generateContent"
BODY = json.dumps({"contents": [{"role": "user", "parts": [{"text": "hello"}]}]}).encode()
HEADERS = {"content-type": "application/json"}


def test_a_conversation_started_again_while_its_first_call_is_in_flight_forwards_that_call(tmp_path):
    arrived: list[str] = []
    release = threading.Event()

    def held(prompt: str, request: dict[str, Any]) -> None:
        arrived.append(prompt)
        release.wait(10)  # bounded: a broken test must not hang
        return None  # the default reply

    with FakeGemini(default_reply="hi") as fake:
        fake.responder(held)
        forwarder = Forwarder(Upstreams(fake.base_url, fake.base_url, fake.base_url))
        deck = CassetteDeck(tmp_path, "auto", forwarder, per_conversation=True)
        try:
            with ThreadPoolExecutor(2) as pool:
                first = pool.submit(deck.answer, PATH, HEADERS, BODY)
                deadline = time.monotonic() + 10
                while not arrived and time.monotonic() < deadline:
                    time.sleep(0.01)
                assert arrived, "the first call never reached the upstream"
                again = pool.submit(deck.answer, PATH, HEADERS, BODY)
                while len(arrived) < 2 and not again.done() and time.monotonic() < deadline:
                    time.sleep(0.01)
                release.set()
                answers = [first.result(timeout=10), again.result(timeout=10)]
        finally:
            release.set()
            forwarder.close()

    assert [answer.status for answer in answers] == [200, 200]
    assert all(b"hi" in answer.body for answer in answers)
    assert len(arrived) == 2  # the repeated call went upstream: there was nothing to replay yet
    assert deck.stats == {"replayed": 0, "recorded": 2, "missed": 0}
