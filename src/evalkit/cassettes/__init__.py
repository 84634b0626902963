"""Model-call cassettes: a local proxy that records an agent's Gemini and OpenAI calls and replays them.

`run --cassettes DIR [--cassette-mode replay|record|auto]` and `evalkit proxy`; see
docs/cassettes.md. One abstraction per module:

- protocols: what the Gemini and OpenAI APIs' requests mean for matching
- store: cassette files
- matching: request keys and the "closest recorded request" difference
- routing: which running case a request belongs to
- upstream: forwarding when recording, and the recorded response's shape
- deck: the modes (replay, record, auto) over the cassettes of one run
- proxy: the HTTP server
- agent: the agent wrapper that tells the deck about cases and turns
- session: one run's proxy and environment
"""
