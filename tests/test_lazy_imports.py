"""`evalkit --help` and `evalkit validate` must not pay for heavy libraries they don't use."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT

HEAVY = ("google.genai", "google.adk", "rouge_score", "nltk", "httpx", "starlette", "uvicorn", "scipy", "dask",
         "distributed")

PROBE = """
import sys
from evalkit.cli import app
try:
    app(sys.argv[1:])
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.startswith({heavy!r}))
print("HEAVY:" + ",".join(heavy))
"""


def loaded_modules(*args: str) -> list[str]:
    code = PROBE.format(heavy=HEAVY)
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, timeout=60)
    line = next(text for text in done.stdout.splitlines() if text.startswith("HEAVY:"))
    return [m for m in line.removeprefix("HEAVY:").split(",") if m]


def test_help_imports_nothing_heavy():
    assert loaded_modules("--help") == []


def test_validate_imports_nothing_heavy():
    assert loaded_modules("validate", "evalsets/weather.evalset.json") == []


def test_the_probe_does_see_heavy_imports():
    # Guards the test itself: a real run of the demo does load rouge_score; Dask only with --cluster.
    loaded = loaded_modules("run", "evalsets/weather.evalset.json", "--quiet")
    assert any(m.startswith("rouge_score") for m in loaded)
    assert not any(m.startswith(("dask", "distributed")) for m in loaded)


def test_the_plugin_api_imports_nothing_heavy():
    # A plug-in package imports evalkit.extend at its own import; that must not load a model client.
    code = f"import sys, evalkit.extend; print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
