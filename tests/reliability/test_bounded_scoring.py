"""Scoring is bounded: a regular expression that backtracks without end (`(a+)+$` on a 30,000-
character reply) makes its criterion `error` naming the pattern, and a signal ends a run that
is scoring, with its result file. Real `python -m evalkit run` processes, real signals.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

HOSTILE = "(a+)+$"
REPLY_CHARS = 30_000


def write_run(folder: Path, hostile_checks: int) -> list[str]:
    """An eval set of one case, an agent that answers 30,000 a's and a b (and leaves a mark when it has),
    and a config whose response_checks_v1 has `hostile_checks` copies of the hostile pattern."""
    (folder / "agent.py").write_text(
        "from pathlib import Path\n\n"
        "def agent(turn):\n"
        f"    Path({str(folder / 'answered')!r}).touch()\n"
        f"    return {{'final_response': 'a' * {REPLY_CHARS} + 'b'}}\n")
    (folder / "set.evalset.json").write_text(json.dumps({"eval_set_id": "s", "eval_cases": [{
        "eval_id": "long_reply", "conversation": [{"user_content": {"role": "user", "parts": [{"text": "go"}]}}]}]}))
    checks = [{"contains": HOSTILE, "regex": True} for _ in range(hostile_checks)] + [{"max_chars": 10}]
    (folder / "config.json").write_text(json.dumps({"criteria": {"response_checks_v1": {"threshold": 1.0,
                                                                                         "checks": checks}}}))
    return [sys.executable, "-m", "evalkit", "run", str(folder / "set.evalset.json"), "--agent",
            f"{folder / 'agent.py'}:agent", "--config", str(folder / "config.json"), "--json", str(folder / "r.json")]


def _env(folder: Path) -> dict[str, str]:
    return {**os.environ, "EVALKIT_RUNS_DIR": str(folder / "runs"), "EVALKIT_CACHE_DIR": str(folder / "cache")}


def test_a_pattern_that_never_ends_is_its_criterion_error_naming_it(tmp_path):
    started = time.monotonic()
    done = subprocess.run(write_run(tmp_path, 1), capture_output=True, text=True, env=_env(tmp_path), timeout=120)
    assert done.returncode == 3, done.stdout + done.stderr
    assert time.monotonic() - started < 60
    [case] = json.loads((tmp_path / "r.json").read_text())["cases"]
    [criterion] = [c for c in case["criteria"] if c["name"] == "response_checks_v1"]
    assert criterion["status"] == "error"
    assert criterion["error"].startswith(f"the regular expression {HOSTILE!r} did not finish within 1 s on a text "
                                         f"of {REPLY_CHARS + 1:,} characters"), criterion["error"]
    assert "Traceback" not in done.stderr


def test_sigterm_while_scoring_ends_the_run_with_its_result_file(tmp_path):
    process = subprocess.Popen(write_run(tmp_path, 60), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=_env(tmp_path))
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "answered").exists():
            assert process.poll() is None and time.monotonic() < deadline, "the agent was never asked"
            time.sleep(0.05)
        # The answer is in, and its first check, a match that runs out its second, is being scored (the criterion
        # ends at that check's error: a later signal could find the run already over).
        time.sleep(0.3)
        process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        _, stderr = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 143, stderr
    assert time.monotonic() - signalled < 15  # a match in progress ends within its time limit
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["interrupted"] is True
    assert "Traceback" not in stderr


def test_property_names_checked_for_additional_properties_are_matched_within_the_limit():
    """jsonschema matches `patternProperties` for `additionalProperties` with `re`: on this key `(a+)+$` would never end."""
    from evalkit.criteria.extended.response_check import ResponseCheck
    from evalkit.errors import EvalkitError

    check = ResponseCheck(json_schema={"type": "object", "patternProperties": {HOSTILE: {}},
                                       "additionalProperties": False})
    started = time.process_time()
    try:
        check.failure(json.dumps({"a" * REPLY_CHARS + "b": 1}))
    except EvalkitError as error:
        assert str(error).startswith(f"the regular expression {HOSTILE!r} did not finish within 1 s"), error
    else:
        raise AssertionError("the hostile pattern finished")
    assert time.process_time() - started < 10


def test_additional_properties_beside_patterns_still_means_what_the_schema_says():
    from evalkit.criteria.extended.response_check import ResponseCheck

    check = ResponseCheck(json_schema={"type": "object", "properties": {"id": {}}, "patternProperties": {
        "^x_": {"type": "integer"}}, "additionalProperties": {"type": "string"}})
    closed = ResponseCheck(json_schema={"patternProperties": {"^x_": {}}, "additionalProperties": False})

    assert check.failure('{"id": [], "x_a": 1, "other": "text"}') is None
    assert check.failure('{"x_a": "one"}') == "json_schema: at $.x_a: 'one' is not of type 'integer'"
    assert check.failure('{"other": 2}') == "json_schema: at $.other: 2 is not of type 'string'"
    assert closed.failure('{"x_a": 1, "zz": 2, "y": 3}') == \
        "json_schema: at $: 'y', 'zz' match no property name pattern ('^x_')"
