"""Compiled bytecode for the suite's Python processes when the environment forbids writing it.

With `PYTHONDONTWRITEBYTECODE` set (some CI images and containers set it), every Python
process the suite starts (`python -m evalkit`, agents, servers, xdist workers) compiles all
it imports from source again: about 2.5 s of CPU for an `evalkit run` (google-adk, nltk,
scipy), over half of its start-up. The suite then keeps bytecode in a cache folder of its
own, outside the checkout and the virtual environment (`sys.pycache_prefix`), so nothing is
written where the variable meant nothing to be; Python checks each file against its
source, so a stale entry is recompiled, never used.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

PREFIX_VARIABLE = "PYTHONPYCACHEPREFIX"


def keep_bytecode_outside_the_tree() -> None:
    """For this process and those it starts: bytecode cached under the user's cache folder."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE") or os.environ.get(PREFIX_VARIABLE):
        return  # bytecode is written as usual, or the user chose where
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "evalkit-tests" / "pycache"
    os.environ.pop("PYTHONDONTWRITEBYTECODE")
    os.environ[PREFIX_VARIABLE] = str(cache)
    sys.dont_write_bytecode = False
    sys.pycache_prefix = str(cache)
