"""Text no file can hold (a lone surrogate) from an agent or an eval set never stops a run.

It is stored escaped (`\\ud800` as six characters) in the result file, the history and
every report, and `validate` and `run` agree on the eval set that holds it.
"""

from __future__ import annotations

import json

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

AGENTS = str(FIXTURES / "agents_py" / "agents.py")
ROUGE = str(FIXTURES / "rouge_only.config.json")


def _evalset(tmp_path):
    cases = [{"eval_id": f"c{i}", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "bad" if i == 3 else "hi"}]},
         "final_response": {"role": "model", "parts": [{"text": "you said: hi"}]}}]} for i in range(5)]
    cases.append({"eval_id": "from_the_set", "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": "x \ud800 y"}]},
         "final_response": {"role": "model", "parts": [{"text": "z"}]}}]})
    path = tmp_path / "s.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "s", "eval_cases": cases}))  # ASCII: the file holds `\ud800`
    return path


def test_a_lone_surrogate_from_the_agent_or_the_eval_set_is_stored_escaped(tmp_path):
    evalset = _evalset(tmp_path)
    assert invoke_evalkit("validate", str(evalset)).returncode == 0
    reports = {kind: tmp_path / f"r.{kind}" for kind in ("json", "junit", "markdown", "html")}
    done = invoke_evalkit("run", str(evalset), "--agent", f"{AGENTS}:lone_surrogate", "--config", ROUGE,
                          *(arg for kind, path in reports.items() for arg in (f"--{kind}", str(path))))
    assert done.returncode == 1, done.stderr  # two cases fail their threshold; none is lost
    result = json.loads(reports["json"].read_text(encoding="utf-8"))
    assert result["summary"]["cases"] == 6
    by_id = {case["eval_id"]: case for case in result["cases"]}
    assert by_id["c3"]["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] == "half a pair: \\ud800"
    assert by_id["from_the_set"]["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] == (
        "you said: x \\ud800 y")
    for path in reports.values():
        assert "\\ud800" in path.read_text(encoding="utf-8"), path
    history = list((tmp_path / ".evalkit" / "runs").glob("run-*.json"))
    assert len(history) == 1 and "\\ud800" in history[0].read_text(encoding="utf-8")
    assert "half a pair: \\\\ud800" in done.stdout  # the console shows the escape too


def test_a_10_mb_reply_is_shortened_on_the_console_and_whole_in_the_file(tmp_path):
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", str(FIXTURES / "echo.evalset.json") + ":hello,boom", "--agent",
                          f"{AGENTS}:huge_reply", "--config", ROUGE, "--json", str(out))
    assert done.returncode == 3, done.stderr[-500:]
    assert max(len(line) for line in (done.stdout + done.stderr).splitlines()) < 1_000
    assert "(9,999,500 more characters)" in done.stdout  # the reply, and how much was left out
    cases = {case["eval_id"]: case for case in json.loads(out.read_text())["cases"]}
    assert cases["hello"]["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] == "x" * 10_000_000
    assert len(cases["boom"]["error"]) > 10_000_000 - 1
