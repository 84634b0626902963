"""Every loader answers hostile input with a message (exit 2) or reads it: never exit 4, never a
traceback. Property-based: valid files with one part replaced by deep nesting, a lone surrogate,
a huge number, a wrong type or a long string, and text that is barely JSON
(tests/reliability/hostile.py; the profiles are in this folder's conftest.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import yaml
from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import FIXTURES, ROOT
from tests.in_process import invoke_evalkit
from tests.reliability.hostile import barely_json, mutated

EVALSET = json.loads((FIXTURES / "echo.evalset.json").read_text())
CONFIG = {"criteria": {"response_match_score": 0.8, "tool_trajectory_avg_score": {"threshold": 1.0}}}
RESULT = json.loads((ROOT / "tests" / "report" / "mixed.result.json").read_text())
SPANS = (ROOT / "examples" / "traces" / "weather_desk.otlp.jsonl").read_text().splitlines()
OTLP = json.loads(SPANS[0])
LABELS = yaml.safe_load((ROOT / "examples" / "weather_agent" / "calibration" / "labels.yaml").read_text())


def _never_crashes(done, *allowed: int) -> None:
    output = done.stdout + done.stderr
    assert "Traceback" not in output and "internal error" not in output, output[-2000:]
    assert done.returncode in (0, 2, *allowed), output[-2000:]
    if done.returncode == 2:
        assert done.stderr.strip(), "exit 2 without a message"


def _folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("hostile")


@given(text=st.one_of(mutated(EVALSET), barely_json()))
def test_validate_reads_any_eval_set_or_says_what_is_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    (folder / "x.evalset.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    _never_crashes(invoke_evalkit("validate", str(folder / "x.evalset.json")))


@given(text=mutated(EVALSET))
def test_validate_reads_any_yaml_eval_set_or_says_what_is_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    (folder / "x.evalset.yaml").write_text(text, encoding="utf-8", errors="surrogatepass")  # JSON is YAML
    _never_crashes(invoke_evalkit("validate", str(folder / "x.evalset.yaml")))


@given(text=st.one_of(mutated(CONFIG), barely_json()))
def test_a_config_is_read_or_named_as_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    (folder / "config.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    _never_crashes(invoke_evalkit("validate", str(FIXTURES / "echo.evalset.json"), "--config",
                                  str(folder / "config.json")))


@given(text=st.one_of(mutated(RESULT), barely_json()))
def test_compare_report_and_merge_read_any_result_or_say_what_is_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    hostile = folder / "hostile.json"
    hostile.write_text(text, encoding="utf-8", errors="surrogatepass")
    good = ROOT / "tests" / "report" / "mixed.result.json"
    _never_crashes(invoke_evalkit("compare", str(good), str(hostile)), 1)
    _never_crashes(invoke_evalkit("report", str(hostile), "--markdown", str(folder / "r.md"),
                                  "--html", str(folder / "r.html"), "--junit", str(folder / "r.xml")), 1, 3)
    _never_crashes(invoke_evalkit("merge", str(hostile), str(good), "--json", str(folder / "m.json")), 1, 3)


@given(text=st.one_of(mutated(OTLP), barely_json()))
def test_import_otel_reads_any_trace_file_or_says_what_is_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    (folder / "t.otlp.jsonl").write_text("\n".join([*SPANS[1:3], text]) + "\n", encoding="utf-8",
                                         errors="surrogatepass")
    _never_crashes(invoke_evalkit("import", "otel", str(folder / "t.otlp.jsonl"), "--out", str(folder / "o.json")))


@given(text=st.one_of(mutated(LABELS), barely_json()))
def test_calibrate_reads_any_labels_file_or_says_what_is_wrong(tmp_path_factory, text):
    folder = _folder(tmp_path_factory)
    (folder / "labels.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    results = ROOT / "examples" / "weather_agent" / "calibration" / "regressed.result.json"
    _never_crashes(invoke_evalkit("calibrate", str(results), "--labels", str(folder / "labels.json")), 1)


def test_a_deep_document_is_named_as_too_deep(tmp_path):
    shutil.copy(FIXTURES / "echo.evalset.json", tmp_path / "ok.evalset.json")
    (tmp_path / "deep.evalset.json").write_text("[" * 5000 + "]" * 5000)
    done = invoke_evalkit("validate", str(tmp_path / "deep.evalset.json"))
    assert done.returncode == 2 and "nested more than 200 levels deep" in done.stderr, done.stderr
