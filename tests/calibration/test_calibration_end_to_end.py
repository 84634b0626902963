"""Calibrating a judge end to end, as a user would: real runs judged by the fake Gemini server,
`evalkit label` driven through a pseudo-terminal (quit, then resume), `evalkit calibrate`
reporting exactly the hand-worked numbers, and the gate holding back a judge that drifted.

The judge is scripted to pass the five "good" cases and fail the three "bad" ones; the
person disagrees on good-5 (it should fail) and bad-3 (it should pass). So the table is
4 / 1 / 1 / 2: agreement 6/8, κ = (8·6 − 34) / (64 − 34) = 14/30.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.conftest import ROOT
from tests.in_process import invoke_evalkit

AGENT = f"{ROOT / 'tests/fixtures/agents_py/agents.py'}:echo"
CASES = ["good-1", "good-2", "good-3", "good-4", "good-5", "bad-1", "bad-2", "bad-3"]
PEOPLE_DISAGREE = {"good-5", "bad-3"}
PROMPT = b"[q]uit > "


def verdict(prompt: str, _request) -> str:
    label = "valid" if "question good" in prompt else "invalid"
    return json.dumps({"reasoning": f"the answer is {label} against the reference",
                       "is_the_agent_response_valid": label})


@pytest.fixture
def fake():
    with FakeGemini() as server:
        server.responder(verdict)
        yield server


@pytest.fixture
def project(tmp_path: Path) -> Path:
    cases = [{"eval_id": name, "conversation": [{
        "user_content": {"role": "user", "parts": [{"text": f"question {name}"}]},
        "final_response": {"role": "model", "parts": [{"text": f"you said: question {name}"}]}}]} for name in CASES]
    (tmp_path / "demo.evalset.json").write_text(json.dumps({"eval_set_id": "demo", "eval_cases": cases}))
    return tmp_path


def judged_run(fake: FakeGemini, project: Path, out: str, **judge_options) -> tuple[subprocess.CompletedProcess, dict]:
    config = project / "eval_config.json"
    config.write_text(json.dumps({"criteria": {"final_response_match_v2": {
        "threshold": 0.5, "judge_model_options": {"num_samples": 1, **judge_options}}}}))
    env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "dummy", "GEMINI_API_KEY": "",
           "EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001", "EVALKIT_JUDGE_RETRY_MAX_DELAY": "0.01"}
    done = invoke_evalkit("run", "demo.evalset.json", "--agent", AGENT, "--config", str(config), "--json", out,
                          "--no-cache", cwd=project, env=env)
    result = json.loads((project / out).read_text()) if (project / out).exists() else {}
    return done, result


def criterion_of(result: dict) -> dict[str, dict]:
    return {case["eval_id"]: case["criteria"][0] for case in result["cases"]}


def label_in_a_terminal(project: Path, answers: int, *, quit_after: bool, note_on: str | None = None) -> str:
    """Run `evalkit label` on a pseudo-terminal and press keys as a person would, one key per case."""
    controller, terminal = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "evalkit", "label", "r1.json", "--labels", "labels.yaml"],
        stdin=terminal, stdout=terminal, stderr=terminal, cwd=project, env={**os.environ, "COLUMNS": "120"},
    )
    os.close(terminal)
    screen = b""
    deadline = time.monotonic() + 60

    def read_until(marker: bytes, count: int) -> None:
        nonlocal screen
        while screen.count(marker) < count:
            assert time.monotonic() < deadline, screen.decode(errors="replace")
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    screen += os.read(controller, 4096)
                except OSError:  # the program ended and closed the terminal
                    break

    try:
        prompts = 0
        for _ in range(answers):
            prompts += 1
            read_until(PROMPT, prompts)
            shown = screen.decode(errors="replace").rsplit("──", 1)[-1]
            case = next(name for name in CASES if f"demo / {name} " in shown)
            if case == note_on:
                os.write(controller, b"c")
                read_until(b"note: ", 1)
                os.write(controller, b"reads well but names the wrong city\r")
                prompts += 1
                read_until(PROMPT, prompts)
            os.write(controller, b"n" if case in PEOPLE_DISAGREE else b"y")
        if quit_after:
            read_until(PROMPT, prompts + 1)
            os.write(controller, b"q")
        read_until(b"calibrate", 1)
        assert process.wait(timeout=30) == 0, screen.decode(errors="replace")
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
    return screen.decode(errors="replace")


def test_label_then_calibrate_then_gate_and_catch_drift(fake, project):
    done, first = judged_run(fake, project, "r1.json")
    assert done.returncode == 1, done.stdout + done.stderr
    recorded = criterion_of(first)
    assert {case: c["status"] for case, c in recorded.items()} == {
        case: "passed" if case.startswith("good") else "failed" for case in CASES}
    provenance = {(c["details"]["judge_model"], c["details"]["prompt_hash"]) for c in recorded.values()}
    assert len(provenance) == 1 and next(iter(provenance))[0] == "gemini-2.5-flash"
    (_, prompt_hash), = provenance

    # A first sitting: three cases, then quit. A second one resumes at the fourth.
    screen = label_in_a_terminal(project, 3, quit_after=True)
    assert "8 judged case(s) to label (0 labelled before)" in screen
    assert "the answer is valid against the reference" in screen and "user      question good-" in screen
    assert "3 labelled, 0 skipped, 5 left for next time" in screen
    screen = label_in_a_terminal(project, 5, quit_after=False, note_on="good-5")
    assert "5 judged case(s) to label (3 labelled before)" in screen and "5 labelled, 0 skipped;" in screen
    labels = (project / "labels.yaml").read_text()
    assert labels.count("eval_id:") == 8 and "note: reads well but names the wrong city" in labels

    calibrated = invoke_evalkit("calibrate", "r1.json", "--labels", "labels.yaml", "--json", "cal.json", cwd=project)
    assert calibrated.returncode == 0, calibrated.stdout + calibrated.stderr
    assert "agreement       75% (6 of 8; 95% interval 41%–93%)" in calibrated.stdout
    assert "Cohen's κ       0.47 (moderate)" in calibrated.stdout
    assert "only 8 labelled case(s)" in calibrated.stderr
    (entry,) = json.loads((project / "cal.json").read_text())["criteria"]
    assert entry["name"] == "final_response_match_v2" and entry["n"] == 8 and entry["excluded"] == 0
    assert entry["agreement"] == 0.75 and entry["kappa"] == pytest.approx(14 / 30)
    assert entry["confusion"] == {"judge_pass_human_pass": 4, "judge_pass_human_fail": 1,
                                  "judge_fail_human_pass": 1, "judge_fail_human_fail": 2}
    assert (entry["judge_model"], entry["prompt_hash"], entry["threshold"]) == ("gemini-2.5-flash", prompt_hash, 0.5)

    bounded = invoke_evalkit("calibrate", "r1.json", "--labels", "labels.yaml", "--min-kappa", "0.5", cwd=project)
    assert bounded.returncode == 1 and "κ 0.47 is below --min-kappa 0.5" in bounded.stderr

    # The calibrated judge gates as before.
    calibration = {"file": "cal.json", "min_kappa": 0.4}
    done, gated = judged_run(fake, project, "r2.json", calibration=calibration)
    assert done.returncode == 1 and {c: r["status"] for c, r in criterion_of(gated).items()} == {
        c: r["status"] for c, r in recorded.items()}

    # Another judge model: the calibration does not vouch for it.
    done, drifted = judged_run(fake, project, "r3.json", calibration=calibration, judge_model="gemini-2.5-pro")
    assert done.returncode == 1, done.stdout + done.stderr
    assert fake.requests[-1].model.endswith("gemini-2.5-pro")
    for case, result in criterion_of(drifted).items():
        assert result["status"] == "not_evaluated" and result["score"] is None
        assert result["details"]["reason"].startswith(
            "not gated: judge drift: calibrated with judge_model gemini-2.5-flash, now gemini-2.5-pro")
        assert result["details"]["judge_verdict"] == recorded[case]["status"]
    assert "judge drift" in done.stdout and drifted["summary"]["not_evaluated"] == 8


def test_labels_the_results_cannot_place_are_exit_2_naming_file_and_place(fake, project):
    judged_run(fake, project, "r1.json")
    (project / "labels.json").write_text(json.dumps({"labels": [
        {"eval_set_id": "demo", "eval_id": "good-1", "criterion": "final_response_match_v2", "verdict": "pass"},
        {"eval_set_id": "demo", "eval_id": "nope", "criterion": "final_response_match_v2", "verdict": "pass"},
        {"eval_set_id": "demo", "eval_id": "bad-1", "criterion": "safety_v1", "verdict": "fail"},
    ]}))
    done = invoke_evalkit("calibrate", "r1.json", "--labels", "labels.json", cwd=project)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "labels.json: labels[1]: names case demo/nope, which the result files do not have" in done.stderr
    assert "labels.json: labels[2]: names criterion 'safety_v1', which case demo/bad-1 was not scored on" in done.stderr
    (project / "labels.json").write_text('{"labels": [{"eval_set_id": "demo", "eval_id": "good-1"}]}')
    done = invoke_evalkit("calibrate", "r1.json", "--labels", "labels.json", cwd=project)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "labels.json: labels[0].criterion: field required" in done.stderr


def test_label_reads_answers_piped_on_stdin(fake, project):
    judged_run(fake, project, "r1.json")
    done = subprocess.run([sys.executable, "-m", "evalkit", "label", "r1.json", "--labels", "labels.json"],
                          input="x\ns\nn\n", cwd=project, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "keys: [y]es, the judge is right  [n]o, it is wrong  [s]kip  [c]omment  [q]uit" in done.stdout
    assert "1 labelled, 1 skipped, 6 left for next time" in done.stdout  # the end of the input ends the walk
    second = done.stdout.split("── 2 of 8 ── demo / ", 1)[1].split(" ", 1)[0]
    (label,) = json.loads((project / "labels.json").read_text())["labels"]
    assert label["eval_id"] == second and label["verdict"] == ("fail" if second.startswith("good") else "pass")
