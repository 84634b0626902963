"""Compiled bytecode for the suite's Python processes when the environment forbids writing it.

With `PYTHONDONTWRITEBYTECODE` set (some CI images and containers set it), every Python
process the suite starts (`python -m evalkit`, agents, servers, xdist workers) compiles all
it imports from source again: about 2.5 s of CPU for an `evalkit run` (google-adk, nltk,
scipy), over half of its start-up. The suite then keeps bytecode in a cache folder of its
own, outside the checkout and the virtual environment (`sys.pycache_prefix`), so nothing is
written where the variable meant nothing to be; Python checks each file against its
source, so a stale entry is recompiled, never used.

`python -m tests.bytecode_cache` compiles ahead what every test worker imports, where the
suite will look (`.ci/run` does, in the background while it waits on its other installs). In a
fresh environment, otherwise, the test workers all start by compiling the same imports side by
side as they collect: 21 s of CPU each instead of 8 (measured alone, 2 cores).
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


def compile_ahead() -> None:
    """Fill the bytecode cache with what every test worker imports: the test collection (pytest rewrites
    the asserts of the tests and of its plugins' packages, evalkit's included, and keeps that bytecode
    apart), and `src/` as the `python -m evalkit` processes import it. Libraries that only some tests
    import are compiled by the first of them, once, as before."""
    import compileall
    import subprocess

    keep_bytecode_outside_the_tree()
    root = Path(__file__).resolve().parents[1]
    subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider"],
                   cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    compileall.compile_dir(root / "src", quiet=2, workers=0)


if __name__ == "__main__":
    compile_ahead()
