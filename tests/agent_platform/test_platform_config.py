"""agents-cli's eval_config.yaml: managed metrics by evalkit's judges, custom metrics, thresholds."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from evalkit.testing import FakeGemini
from tests.conftest import point_genai_at
from tests.in_process import invoke_evalkit

ANSWERED = {"eval_cases": [{
    "eval_case_id": "sum",
    "prompt": {"role": "user", "parts": [{"text": "What is 2 + 2?"}]},
    "responses": [{"response": {"role": "model", "parts": [{"text": "It is 4."}]}}],
    "reference": {"response": {"role": "model", "parts": [{"text": "4"}]}},
    "ticket": "T-1",
}]}
ALL_YES = "\n".join(f"ID: {i}\nProperty: x\nRationale: fine\nVerdict: yes"
                    for i in ("addresses_request", "accurate", "follows_instructions", "clear"))


def project(tmp_path: Path, config: str, dataset: dict | None = None) -> Path:
    """agents-cli's layout: tests/eval/eval_config.yaml, tests/eval/datasets/*-dataset.json."""
    datasets = tmp_path / "tests" / "eval" / "datasets"
    datasets.mkdir(parents=True)
    (tmp_path / "tests" / "eval" / "eval_config.yaml").write_text(textwrap.dedent(config))
    (datasets / "math-dataset.json").write_text(json.dumps(dataset or ANSWERED))
    return datasets


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with FakeGemini(default_reply="no verdict here") as server:
        point_genai_at(server, monkeypatch, tmp_path)
        yield server


def run(tmp_path: Path, *args: str) -> tuple[int, dict | None, str]:
    out = tmp_path / "r.json"
    done = invoke_evalkit("run", *args, "--json", str(out), "--quiet", cwd=tmp_path)
    return done.returncode, (json.loads(out.read_text()) if out.exists() else None), done.stderr


def test_metrics_run_under_their_names_gated_by_thresholds_or_informational(tmp_path, fake):
    datasets = project(tmp_path, """\
        metrics_to_run: [final_response_quality, turn_count, judge_it]
        custom_metrics:
          - name: turn_count
            custom_function: |
              def evaluate(instance):
                  turns = (instance.get("agent_data") or {}).get("turns", [])
                  return {'score': len(turns), 'explanation': sorted(instance)}
          - name: judge_it
            prompt_template: |
              Rate 1-5. Prompt: {prompt} Response: {response} Reference: {reference} Context: {context}
            judge_model_sampling_count: 3
        thresholds: {turn_count: 1, final_response_quality: 0.5}
        """)
    fake.when("Rate 1-5").reply('{"score": 4, "explanation": "good"}')
    fake.when("The agent's answer").reply(ALL_YES)
    code, result, stderr = run(tmp_path, str(datasets))
    assert code == 0, stderr
    (case,) = result["cases"]
    criteria = {c["name"]: c for c in case["criteria"]}
    assert list(criteria) == ["final_response_quality", "turn_count", "judge_it"]
    assert (criteria["final_response_quality"]["score"], criteria["final_response_quality"]["status"]) == (1.0, "passed")
    assert (criteria["turn_count"]["score"], criteria["turn_count"]["status"]) == (1.0, "passed")
    # agents-cli's instance: the case without `responses`, with `response` and `prompt`, extra fields kept.
    assert criteria["turn_count"]["details"]["explanation"] == ["agent_data", "eval_case_id", "prompt", "reference",
                                                                 "response", "ticket"]
    assert (criteria["judge_it"]["score"], criteria["judge_it"]["status"]) == (4.0, "informational")
    asked = [p for p in fake.prompts if "Rate 1-5" in p]
    assert len(asked) == 3  # judge_model_sampling_count votes
    assert "What is 2 + 2?" in asked[0] and "It is 4." in asked[0] and "{context}" in asked[0]  # no context: kept
    assert case["status"] == "passed"


def test_a_case_with_only_informational_metrics_passes(tmp_path, fake):
    datasets = project(tmp_path, """\
        metrics_to_run: [judge_it]
        custom_metrics:
          - name: judge_it
            prompt_template: "Rate 1-5: {response}"
        """)
    fake.when("Rate 1-5").reply('{"score": 1}')
    code, result, stderr = run(tmp_path, str(datasets))
    assert code == 0, stderr
    assert result["cases"][0]["status"] == "passed"
    assert result["cases"][0]["criteria"][0]["status"] == "informational"


def test_a_function_that_raises_or_gives_no_score_is_that_criterions_error(tmp_path, fake):
    (tmp_path / "tests" / "eval").mkdir(parents=True)
    (tmp_path / "tests" / "eval" / "metrics.py").write_text(
        "def evaluate(instance):\n    raise RuntimeError('boom')\n")
    datasets = project(tmp_path / "p", """\
        metrics_to_run: [from_file, no_score, fine]
        custom_metrics:
          - name: from_file
            custom_function_file: ../../../tests/eval/metrics.py
          - name: no_score
            custom_function: |
              def evaluate(instance):
                  return {'explanation': 'forgot'}
          - name: fine
            custom_function: "def evaluate(instance):\\n    return 1\\n"
        """)
    code, result, stderr = run(tmp_path, str(datasets))
    assert code == 3, stderr
    criteria = {c["name"]: c for c in result["cases"][0]["criteria"]}
    assert criteria["from_file"]["status"] == "error"
    assert "from_file" in criteria["from_file"]["error"] and "metrics.py" in criteria["from_file"]["error"]
    assert "case 'sum'" in criteria["from_file"]["error"] and "RuntimeError: boom" in criteria["from_file"]["error"]
    assert criteria["no_score"]["status"] == "error"
    assert "returned a dict without 'score'" in criteria["no_score"]["error"]
    assert (criteria["fine"]["score"], criteria["fine"]["status"]) == (1.0, "informational")
    assert result["cases"][0]["status"] == "error"


def test_config_mistakes_are_named_by_file_and_place_before_the_run(tmp_path):
    datasets = project(tmp_path, """\
        metrics_to_run: [groundedness, broken, final_response_match]
        custom_metrics:
          - name: broken
            custom_function: "def evaluate(instance) return 1"
        thresholds: {nothing_runs_this: 1}
        """)
    done = invoke_evalkit("validate", str(datasets), cwd=tmp_path)
    config = tmp_path / "tests" / "eval" / "eval_config.yaml"
    assert done.returncode == 2, done.stderr
    assert f"{config}: metrics_to_run[0]: unknown metric 'groundedness': name a managed metric" in done.stderr
    assert f"{config}: custom_metrics.broken: cannot be compiled: SyntaxError" in done.stderr
    assert f"{config}: thresholds.nothing_runs_this: no metric 'nothing_runs_this' runs" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_config_in_the_datasets_folder_and_a_thresholds_only_config(tmp_path, fake):
    datasets = project(tmp_path, "metrics_to_run: [unused]\n")
    (datasets / "eval_config.json").write_text(json.dumps({
        "metrics_to_run": ["ones"],
        "custom_metrics": [{"name": "ones", "custom_function": "def evaluate(instance):\n    return 0.5\n"}]}))
    (tmp_path / "gate.yaml").write_text("thresholds: {ones: 0.9}\n")
    code, result, stderr = run(tmp_path, str(datasets), "--config", str(tmp_path / "gate.yaml"))
    assert code == 1, stderr
    assert result["cases"][0]["criteria"][0]["status"] == "failed"
    assert result["cases"][0]["criteria"][0]["threshold"] == 0.9


def test_a_shape_b_case_shows_its_history_to_the_multi_turn_judge(tmp_path, fake):
    dataset = {"eval_cases": [{"eval_case_id": "trip", "agent_data": {"turns": [{"turn_index": 0, "events": [
        {"author": "user", "content": {"role": "user", "parts": [{"text": "I want to see Lisbon."}]}},
        {"author": "planner", "content": {"role": "model", "parts": [{"text": "Which month?"}]}},
        {"author": "user", "content": {"role": "user", "parts": [{"text": "May."}]}},
        {"author": "planner", "content": {"role": "model", "parts": [{"text": "May is lovely there."}]}}]}]}}]}
    datasets = project(tmp_path, "metrics_to_run: [multi_turn_task_success]\n", dataset)
    code, result, stderr = run(tmp_path, str(datasets))
    assert code == 3, stderr  # the fake judge's default reply holds no verdict: the criterion's error
    prompt = next(p for p in fake.prompts if "I want to see Lisbon." in p)
    assert prompt.index("Which month?") < prompt.index("May is lovely there.")


def test_the_config_alone_is_validated(tmp_path):
    project(tmp_path, "metrics_to_run: [safety, instruction_following]\nthresholds: {safety: 1}\n")
    config = tmp_path / "tests" / "eval" / "eval_config.yaml"
    done = invoke_evalkit("validate", str(config), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"ok  {config}: agents-cli config: safety, instruction_following"
    config.write_text("metrics_to_run: [safety, nope]\n")
    done = invoke_evalkit("validate", str(config), cwd=tmp_path)
    assert done.returncode == 2 and f"{config}: metrics_to_run[1]: unknown metric 'nope'" in done.stderr
