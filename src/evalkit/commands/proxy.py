"""`evalkit proxy --cassettes DIR`: the model proxy alone, for an agent the user starts.

Without a runner to say which eval case is running, each conversation (told apart by
its first user message) gets a cassette of its own, under `DIR/proxy/`, written after
every recorded call. See docs/cassettes.md, "An agent you start yourself".
"""

from __future__ import annotations

import sys
from pathlib import Path

from evalkit.errors import UsageError


def proxy_command(folder: Path, mode: str, port: int) -> int:
    from evalkit.cassettes.deck import CassetteDeck, check_cassette_options
    from evalkit.cassettes.proxy import ModelProxy
    from evalkit.cassettes.upstream import Forwarder, Upstreams

    check_cassette_options(folder, mode)
    forwarder = None if mode == "replay" else Forwarder(Upstreams.from_environment())
    deck = CassetteDeck(folder, mode, forwarder, per_conversation=True)
    try:
        proxy = ModelProxy(deck, port=port).start()
    except OSError as error:
        raise UsageError(f"--port {port}: cannot listen on 127.0.0.1:{port} ({error.strerror}); pick another port") from None
    print(f"evalkit: model proxy at {proxy.url} ({mode}, cassettes in {folder}); start your agent with:", file=sys.stderr)
    for name, value in proxy.environment().items():
        print(f"export {name}={value}")
    sys.stdout.flush()
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        proxy.stop()
        if forwarder is not None:
            forwarder.close()
    print(f"evalkit: proxy stopped ({deck.stats['replayed']} replayed, {deck.stats['recorded']} recorded, "
          f"{deck.stats['missed']} missed)", file=sys.stderr)
    return 0
