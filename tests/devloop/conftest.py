"""One real run of the demo eval set, shared by the tests that compare and merge result files."""

from __future__ import annotations

import json

import pytest

from tests.devloop.helpers import WEATHER, evalkit


@pytest.fixture(scope="session")
def demo_result(tmp_path_factory):
    """(path, data) of a passing `evalkit run` of the weather eval set."""
    folder = tmp_path_factory.mktemp("demo")
    out = folder / "base.json"
    done = evalkit("run", WEATHER, "--json", str(out), "--quiet", tmp_path=folder)
    assert done.returncode == 0, done.stderr
    return out, json.loads(out.read_text())
