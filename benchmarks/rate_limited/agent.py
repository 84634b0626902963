"""The agent of `bench_rate_limit.py`: each turn is one call to the "model" at $BENCH_MODEL_URL.

A 429 from the model becomes an `httpx.HTTPStatusError`, as it would with a real client
library that does not retry on its own.
"""

from __future__ import annotations

import os

import httpx

_client = httpx.Client(timeout=30.0, limits=httpx.Limits(max_connections=512, max_keepalive_connections=512))


def agent(turn):
    reply = _client.post(os.environ["BENCH_MODEL_URL"], json={"prompt": turn.user_text})
    reply.raise_for_status()
    return {"final_response": reply.json()["text"]}
