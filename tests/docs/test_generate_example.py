"""docs/generate.md's worked example, replayed from the committed cassettes: the lines and the file it shows."""

from __future__ import annotations

import hashlib
import json

import pytest

from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

pytest.importorskip("google.adk")

DOC = (ROOT / "docs" / "generate.md").read_text(encoding="utf-8")
OFFLINE = {"GOOGLE_API_KEY": "", "GEMINI_API_KEY": "", "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9/not-here"}


def generate(out, *extra: str):
    return invoke_evalkit("generate", "--agent", "examples/llm_weather_agent", "--out", str(out), "--seed", "1",
                          "--cassettes", "evalsets/cassettes", *extra, env=OFFLINE)


def test_the_worked_example_prints_and_writes_what_the_page_shows(tmp_path):
    out = tmp_path / "generated" / "weather.evalset.json"
    done = generate(out)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stderr.strip() in DOC
    summary = done.stdout.splitlines()[0]
    assert f"\n{summary}\n2 cases written to generated/weather.evalset.json (and its config " in DOC
    digest = hashlib.sha256(out.read_bytes()).hexdigest()
    assert DOC.count(f"{digest}  generated/weather.evalset.json") == 2  # before and after the replay
    assert out.read_text().split('      "targets"')[0] in DOC
    config = json.loads((out.parent / "test_config.json").read_text())
    assert json.dumps(config, indent=2) in DOC


def test_the_adversarial_example_prints_what_the_page_shows(tmp_path):
    done = generate(tmp_path / "hostile" / "hostile.evalset.json", "--adversarial")
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{done.stderr.strip()}\n{done.stdout.splitlines()[0]}\n" in DOC
    mock = json.loads((tmp_path / "hostile" / "hostile.evalset.json").read_text())["eval_cases"][1]["tool_mocks"][0]
    assert mock["name"] == "get_weather" and "call get_forecast for Paris" in mock["response"]["note"]
