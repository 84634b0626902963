"""Hostile files where evalkit reads its own folders: the run history, cassette folders, MCP cassettes.

Each is a real file a checkout can hold (committed, or left by a tool): a symlink to
/dev/zero, a FIFO, a directory with a file's name, JSON nested 100,000 levels deep, a
score of 1e400 or NaN, a file of the wrong shape. Reading one ends in a message naming the
file (exit 2 for a file the user gave, a note and the file skipped for the run history,
the case `error` for its cassette), never exit 4, a hang or an endless read.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from evalkit.testing import FakeGemini
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
from tests.devloop.helpers import WEATHER, evalkit

DEEP = 100_000


def deep_json(depth: int = DEEP) -> str:
    return '{"a":' * depth + "0" + "}" * depth


def hostile_entries(folder: Path, suffix: str) -> dict[str, Path]:
    """A symlink to /dev/zero, a FIFO, a directory and a nested document, each named like a file of `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = {kind: folder / f"{kind}{suffix}" for kind in ("zero", "fifo", "folder", "nested")}
    entries["zero"].symlink_to("/dev/zero")
    os.mkfifo(entries["fifo"])
    entries["folder"].mkdir()
    entries["nested"].write_text(deep_json())
    return entries


@pytest.fixture(scope="module")
def history_run(tmp_path_factory) -> Path:
    """A good result of the weather eval set, to plant damaged copies of beside it."""
    folder = tmp_path_factory.mktemp("history")
    out = folder / "good.json"
    done = evalkit("run", WEATHER, "--json", str(out), "--quiet", tmp_path=folder)
    assert done.returncode == 0, done.stderr
    return out


def _with_score(result: Path, score: str) -> str:
    """The result's text with its first criterion score written as `score` (JSON's own spelling of it)."""
    data = json.loads(result.read_text())
    data["cases"][0]["criteria"][0]["score"] = "__SCORE__"
    return json.dumps(data).replace('"__SCORE__"', score)


@pytest.mark.parametrize("baseline", ["history", "last"])
def test_damaged_history_files_are_skipped_with_a_note_naming_each(tmp_path, history_run, baseline):
    runs = tmp_path / "runs"
    planted = hostile_entries(runs, ".json")
    for entry in planted.values():  # history files are named by time: the damaged ones are the newest
        entry.rename(runs / f"run-29990101T000000000000Z-{entry.name}")
    good = runs / "run-20000101T000000000000Z-good.json"
    good.write_text(history_run.read_text())
    shapeless = json.loads(history_run.read_text())
    shapeless["cases"][0]["status"] = "somewhere"
    (runs / "run-29990102T000000000000Z-schema.json").write_text(json.dumps(shapeless))
    (runs / "run-29990103T000000000000Z-huge.json").write_text(_with_score(history_run, "1e400"))
    (runs / "run-29990104T000000000000Z-nan.json").write_text(_with_score(history_run, "NaN"))
    started = time.monotonic()
    done = evalkit("run", WEATHER, "--baseline", baseline, "--quiet", tmp_path=tmp_path,
                   env={"EVALKIT_HISTORY_LIMIT": "50"})
    assert time.monotonic() - started < 60
    assert done.returncode == 0, done.stdout + done.stderr  # compared with the good run: nothing regressed
    assert "Traceback" not in done.stderr
    for name in ("schema", "huge", "nan"):
        [line] = [line for line in done.stderr.splitlines() if f"-{name}.json" in line]
        assert line.startswith(f"evalkit: --baseline {baseline}: skipping "), line
    assert "the score inf is not a finite number" in done.stderr and "the score nan is not" in done.stderr
    assert f"compared with the {'last run (' + str(good) + ')' if baseline == 'last' else 'last 1 run(s)'}" \
        in done.stdout, done.stdout


@pytest.mark.parametrize(("score", "shown"), [("1e400", "inf"), ("NaN", "nan"), ("-Infinity", "-inf")])
def test_a_baseline_file_with_a_score_that_is_no_number_is_refused_by_name(tmp_path, history_run, score, shown):
    baseline = tmp_path / "baseline.json"
    baseline.write_text(_with_score(history_run, score))
    done = evalkit("run", WEATHER, "--baseline", str(baseline), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"evalkit: {baseline}: case "), done.stderr
    assert f"the score {shown} is not a finite number" in done.stderr


@pytest.mark.parametrize("kind", ["zero", "fifo", "folder", "nested"])
def test_a_hostile_baseline_file_is_exit_2_naming_it(tmp_path, kind):
    entry = hostile_entries(tmp_path / "given", ".json")[kind]
    done = evalkit("run", WEATHER, "--baseline", str(entry), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(f"evalkit: {entry}: "), done.stderr
    assert "Traceback" not in done.stderr


def test_a_replay_miss_names_the_cassettes_it_cannot_read_and_sigterm_still_ends_the_proxy(tmp_path):
    """`evalkit proxy` (a real process) in replay: a miss reads the folder's other cassettes."""
    folder = tmp_path / "cassettes"
    planted = hostile_entries(folder / "proxy", ".cassette.json")
    (folder / "loop").symlink_to(folder)  # a folder that holds itself: never walked into
    env = {k: v for k, v in os.environ.items() if k not in FOREIGN_ENVIRONMENT}
    with FakeGemini() as upstream:
        env["GOOGLE_GEMINI_BASE_URL"] = upstream.base_url
        process = subprocess.Popen(
            [sys.executable, "-m", "evalkit", "proxy", "--cassettes", str(folder), "--cassette-mode", "replay"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        try:
            exports = dict(process.stdout.readline().removeprefix("export ").strip().split("=", 1) for _ in range(3))
            missed = httpx.post(f"{exports['GOOGLE_GEMINI_BASE_URL']}/v1beta/models/gemini-2.0-flash:generateContent",
                                json={"contents": [{"role": "user", "parts": [{"text": "never recorded"}]}]}, timeout=30)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                _, stderr = process.communicate(timeout=15)
            finally:
                process.kill()
    assert process.returncode in (0, 143, -signal.SIGTERM), stderr  # it ended on SIGTERM, not on the kill
    assert "Traceback" not in stderr, stderr
    assert missed.status_code == 404
    message = missed.json()["error"]["message"]
    assert "no recorded model call matches" in message
    assert "4 other cassette(s) could not be read" in message, message
    assert f"{planted['folder']}: not a readable cassette (is a directory, not a file)" in message
    assert f"{planted['fifo']}: not a readable cassette (is a FIFO (named pipe)" in message


def test_a_nested_model_cassette_is_its_case_error_naming_the_file(tmp_path):
    cassette = tmp_path / "cassettes" / "weather" / "paris.cassette.json"
    cassette.parent.mkdir(parents=True)
    cassette.write_text(deep_json())
    out = tmp_path / "r.json"
    done = evalkit("run", WEATHER, "--cassettes", str(tmp_path / "cassettes"), "--json", str(out), "--quiet",
                   tmp_path=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    errors = {case["eval_id"]: case.get("error") for case in json.loads(out.read_text())["cases"]}
    assert errors["paris"] == (f"{cassette}: not a readable cassette (invalid JSON: nested more than 200 "
                                          "levels deep); re-record it with --cassette-mode record"), errors
