"""`--max-cost`, `--max-tokens`, `--max-model-calls`: a run that stops starting cases at its budget.

The agent is a Python callable that asks a model through the real google-genai client
(a FakeGemini on 127.0.0.1) and reports the usage the model returned in the turn
protocol; judges are the real judge backends against the same server. Each case's
question is 40 characters and the model's answer 20, so a call is 10 + 5 tokens as the
fake counts them (about four characters a token).
"""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from evalkit.testing import FakeGemini
from tests.in_process import invoke_evalkit

pytest_plugins = ["pytester"]

AGENT_MODEL = "gemini-2.0-flash-lite"
ANSWER = "The answer is forty."  # 20 characters: 5 tokens
# 1,000 and 4,000 USD per million tokens: 10 input and 5 output tokens cost 0.03 a call.
PRICES = {AGENT_MODEL: {"input": 1000.0, "output": 4000.0}}
JUDGE_VERDICT = json.dumps({"reasoning": "matches the reference", "is_the_agent_response_valid": "valid"})

AGENT = f'''
from google import genai

_client = None


def answer(turn):
    global _client
    if _client is None:
        _client = genai.Client()
    response = _client.models.generate_content(model="{AGENT_MODEL}", contents=turn.user_text)
    usage = response.usage_metadata
    return {{"final_response": response.text,
             "usage": {{"input_tokens": usage.prompt_token_count, "output_tokens": usage.candidates_token_count,
                       "model": response.model_version}}}}


def unpriced(turn):
    reply = answer(turn)
    reply["usage"]["model"] = "house-model-7"
    return reply
'''


def reply(prompt: str, _body: dict) -> str:
    return ANSWER if prompt.startswith("Q") else JUDGE_VERDICT  # the agent's questions, else a judge's prompt


@pytest.fixture
def fake():
    with FakeGemini() as server:
        server.responder(reply)
        yield server


def write_run(tmp_path: Path, cases: int, criteria: dict | None = None, **config_keys: object) -> tuple[Path, Path]:
    evalset = tmp_path / "budget.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "budget", "eval_cases": [
        {"eval_id": f"c{i:02d}", "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": f"Q{i:02d}: what is six times seven, minus two?"}]},
             "final_response": {"role": "model", "parts": [{"text": ANSWER}]}}]}
        for i in range(cases)]}))
    config = tmp_path / "test_config.json"
    config.write_text(json.dumps({"criteria": criteria if criteria is not None else {
        "response_match_score": 0.8, "cost_v1": {"prices": PRICES}}, **config_keys}))
    (tmp_path / "agent.py").write_text(AGENT)
    return evalset, config


def run(fake: FakeGemini, tmp_path: Path, evalset: Path, config: Path, *flags: str, agent: str = "answer"):
    out = tmp_path / "result.json"
    env = {"GOOGLE_GEMINI_BASE_URL": fake.base_url, "GOOGLE_API_KEY": "dummy-test-key", "GEMINI_API_KEY": "",
           "EVALKIT_JUDGE_RETRY_BASE_DELAY": "0.001", "EVALKIT_JUDGE_RETRY_MAX_DELAY": "0.01"}
    done = invoke_evalkit("run", str(evalset), "--agent", f"{tmp_path / 'agent.py'}:{agent}", "--config", str(config),
                          "--json", str(out), "--jobs", "1", *flags, cwd=tmp_path, env=env)
    return done, json.loads(out.read_text()) if out.exists() else None


def not_started(result: dict) -> list[str]:
    return [case["reason"] for case in result["cases"] if case["status"] == "not_evaluated"]


def test_model_calls_budget_stops_new_cases_and_says_what_was_spent(fake, tmp_path):
    evalset, config = write_run(tmp_path, 10)

    junit, markdown = tmp_path / "junit.xml", tmp_path / "summary.md"

    done, result = run(fake, tmp_path, evalset, config, "--max-model-calls", "3", "--junit", str(junit),
                       "--markdown", str(markdown))

    assert done.returncode == 1, done.stderr
    line = "budget --max-model-calls 3 reached: 3 model calls, 45 tokens, 0.09 USD spent; 7 cases not started"
    assert done.stderr.splitlines().count(f"evalkit: {line}") == 1, done.stderr
    assert fake.call_count == 3
    assert [case["status"] for case in result["cases"][:3]] == ["passed"] * 3
    assert not_started(result) == ["not started: --max-model-calls 3 reached"] * 7
    assert result["budget"] == {
        "max_cost": None, "max_tokens": None, "max_model_calls": 3, "model_calls": 3, "input_tokens": 30,
        "output_tokens": 15, "cost": 0.09, "unpriced_models": [], "reached": "--max-model-calls", "not_started": 7}
    assert {"gate": "budget", "message": line} in result["verdict"]["failures"]
    assert line in markdown.read_text()
    gate = ElementTree.parse(junit).getroot().find("testsuite[@name='evalkit']/testcase[@name='budget']/failure")
    assert gate is not None and gate.get("message") == line


def test_cost_budget_counts_money_from_cost_v1s_prices(fake, tmp_path):
    evalset, config = write_run(tmp_path, 6)

    done, result = run(fake, tmp_path, evalset, config, "--max-cost", "0.05")

    assert done.returncode == 1, done.stderr
    assert "evalkit: budget --max-cost 0.05 reached: 2 model calls, 30 tokens, 0.06 USD spent; 4 cases not started" \
        in done.stderr.splitlines()
    assert not_started(result) == ["not started: --max-cost 0.05 reached"] * 4


def test_a_run_within_its_budget_passes_and_records_what_it_spent(fake, tmp_path):
    evalset, config = write_run(tmp_path, 3)

    done, result = run(fake, tmp_path, evalset, config, "--max-tokens", "1000", "--max-cost", "5")

    assert done.returncode == 0, done.stderr
    assert "budget" not in done.stderr
    assert result["budget"]["reached"] is None and result["budget"]["not_started"] == 0
    assert (result["budget"]["model_calls"], result["budget"]["input_tokens"] + result["budget"]["output_tokens"]) == (3, 45)


def test_the_judges_model_calls_count_with_the_agents(fake, tmp_path):
    judged = {"final_response_match_v2": {"threshold": 0.5, "judge_model_options": {"num_samples": 1}},
              "cost_v1": {"prices": {**PRICES, "gemini-2.5-flash": {"input": 1.0, "output": 1.0}}}}
    evalset, config = write_run(tmp_path, 8, judged)

    done, result = run(fake, tmp_path, evalset, config, "--max-model-calls", "4", "--no-cache")

    assert done.returncode == 1, done.stderr
    # Each case: the agent's model call, then the judge's; the third case would start at 4.
    assert fake.call_count == 4
    assert [case["status"] for case in result["cases"][:2]] == ["passed"] * 2
    assert not_started(result) == ["not started: --max-model-calls 4 reached"] * 6
    budget, judge = result["budget"], result["judge"]
    assert budget["model_calls"] == 4 and judge["calls"] == 2
    assert budget["input_tokens"] == 20 + judge["input_tokens"]
    assert budget["output_tokens"] == 10 + judge["output_tokens"]
    judge_cost = (judge["input_tokens"] + judge["output_tokens"]) / 1_000_000
    assert budget["cost"] == pytest.approx(0.06 + judge_cost)


def test_a_model_without_a_price_makes_the_cost_unknown_which_counts_as_reached(fake, tmp_path):
    evalset, config = write_run(tmp_path, 4)

    done, result = run(fake, tmp_path, evalset, config, "--max-cost", "100", agent="unpriced")

    assert done.returncode == 1, done.stderr
    assert ("evalkit: budget --max-cost 100 reached: 1 model call, 15 tokens spent, cost unknown (no price for "
            "'house-model-7' in cost_v1's prices); 3 cases not started") in done.stderr.splitlines()
    assert result["budget"]["cost"] is None and result["budget"]["unpriced_models"] == ["house-model-7"]
    assert not_started(result) == ["not started: --max-cost 100 reached"] * 3


def test_max_cost_without_prices_is_refused_before_the_run(fake, tmp_path):
    evalset, config = write_run(tmp_path, 2, {"response_match_score": 0.8})

    done, result = run(fake, tmp_path, evalset, config, "--max-cost", "5")

    assert done.returncode == 2
    assert result is None and fake.call_count == 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("evalkit: --max-cost 5: no prices to count the cost with; add "
                                                   "cost_v1 with its prices to the config's criteria"), done.stderr
    assert '"cost_v1": {"prices":' in lines[0] and "Traceback" not in done.stderr


def test_a_budget_in_the_config_applies_as_the_flag_does(fake, tmp_path):
    evalset, config = write_run(tmp_path, 5, max_tokens=30)

    done, result = run(fake, tmp_path, evalset, config)

    assert done.returncode == 1, done.stderr
    assert "evalkit: budget --max-tokens 30 reached: 2 model calls, 30 tokens, 0.06 USD spent; 3 cases not started" \
        in done.stderr.splitlines()
    assert not_started(result) == ["not started: --max-tokens 30 reached"] * 3

    done, result = run(fake, tmp_path, evalset, config, "--max-tokens", "60")  # the flag wins over the config
    assert not_started(result) == ["not started: --max-tokens 60 reached"]


def test_a_config_max_cost_without_prices_names_the_config(fake, tmp_path):
    evalset, config = write_run(tmp_path, 2, {"response_match_score": 0.8}, max_cost=5)

    done, result = run(fake, tmp_path, evalset, config)

    assert done.returncode == 2 and result is None
    assert done.stderr.startswith(f"evalkit: {config}: max_cost: no prices to count the cost with"), done.stderr

    checked = invoke_evalkit("validate", str(config), cwd=tmp_path)  # found before any run, too
    assert checked.returncode == 2
    assert f"{config}: max_cost: no prices to count the cost with" in checked.stderr, checked.stderr


def test_repeat_auto_stops_its_rounds_at_the_budget(fake, tmp_path):
    evalset, config = write_run(tmp_path, 2)

    done, result = run(fake, tmp_path, evalset, config, "--repeat", "auto", "--max-model-calls", "4")

    assert done.returncode == 1, done.stderr
    # Two rounds of two cases; no third round starts, and each case keeps the runs it had.
    assert fake.call_count == 4
    assert [case["repeat"]["runs"] for case in result["cases"]] == [2, 2]
    assert result["budget"]["not_started"] == 0 and result["budget"]["reached"] == "--max-model-calls"


def test_the_budget_holds_across_processes(fake, tmp_path):
    evalset, config = write_run(tmp_path, 12)

    done, result = run(fake, tmp_path, evalset, config, "--processes", "2", "--max-model-calls", "4")

    assert done.returncode == 1, done.stderr
    budget = result["budget"]
    # Each process starts a case only while the whole run has spent less than 4 calls; two
    # processes may each start one as the run reaches it, never more.
    assert 4 <= budget["model_calls"] == fake.call_count <= 5
    assert budget["not_started"] == 12 - budget["model_calls"] == len(not_started(result))
    assert set(not_started(result)) == {"not started: --max-model-calls 4 reached"}
    assert [case["eval_id"] for case in result["cases"]] == [f"c{i:02d}" for i in range(12)]
    line = (f"evalkit: budget --max-model-calls 4 reached: {budget['model_calls']} model calls, "
            f"{15 * budget['model_calls']} tokens")
    assert any(text.startswith(line) for text in done.stderr.splitlines()), done.stderr


def test_run_evals_takes_the_budgets_as_keywords(fake, tmp_path, monkeypatch):
    import evalkit

    evalset, config = write_run(tmp_path, 4)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", fake.base_url)
    monkeypatch.setenv("GOOGLE_API_KEY", "dummy-test-key")
    monkeypatch.delenv("GEMINI_API_KEY", raising=False)
    # The file the CLI tests name as a spec, as an object here (read by path: another test's
    # module named `agent` may already be imported).
    answer = runpy.run_path(str(tmp_path / "agent.py"))["answer"]

    result = evalkit.run_evals(evalset, agent=answer, config=config, jobs=1, max_model_calls=1)

    assert result.budget is not None and result.budget.reached == "--max-model-calls"
    assert [case.reason for case in result.cases if case.reason] == ["not started: --max-model-calls 1 reached"] * 3
    assert result.verdict is not None and result.verdict.failures[-1].gate == "budget"
    no_prices = tmp_path / "no_prices.json"
    no_prices.write_text('{"criteria": {"response_match_score": 0.8}}')
    with pytest.raises(evalkit.errors.InputError, match=r"max_cost=5.*no prices to count the cost with"):
        evalkit.run_evals(evalset, agent=answer, config=no_prices, max_cost=5)


CMD_AGENT = '''
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "turn":
        print(json.dumps({"final_response": "done", "usage": {"input_tokens": 10, "output_tokens": 5,
                                                               "model": "house-model"}}), flush=True)
'''


def write_two_file_session(pytester: pytest.Pytester) -> None:
    """A `cmd:` agent that reports one model call a turn, and two eval set folders: `first`, one case of
    two turns (it spends a budget of two calls), and `second`, three cases of one turn."""
    agent = pytester.path / "agent.py"
    agent.write_text(CMD_AGENT)
    turn = {"user_content": {"parts": [{"text": "hi"}]}}
    for name, cases, turns in (("first", 1, 2), ("second", 3, 1)):
        folder = pytester.mkdir(name)
        (folder / f"{name}.evalset.json").write_text(json.dumps({"eval_set_id": name, "eval_cases": [
            {"eval_id": f"{name}{i}", "conversation": [turn] * turns} for i in range(cases)]}))
        (folder / "test_config.json").write_text(json.dumps({
            "agent": f"cmd:{sys.executable} {agent}",
            "criteria": {"response_checks_v1": {"threshold": 1.0, "checks": [{"contains": "done"}]}}}))


def test_the_pytest_plugins_budget_bounds_the_whole_session(pytester):
    # The first eval set file's one case of two turns spends the budget of two calls; the second file's
    # three cases never start.
    from tests.coverage.test_pytest_gate import plugin_args

    write_two_file_session(pytester)
    outcome = pytester.runpytest("--evalkit", "first", "--evalkit", "second", "--evalkit-max-model-calls", "2",
                                 *plugin_args())

    outcome.assert_outcomes(passed=1, failed=3)
    assert outcome.ret == pytest.ExitCode.TESTS_FAILED
    outcome.stdout.fnmatch_lines([
        "*evalkit budget*",
        "evalkit: budget --max-model-calls 2 reached: 2 model calls, 30 tokens spent; 3 cases not started"])
    assert outcome.stdout.str().count("not started: --max-model-calls 2 reached") >= 3


def test_an_adk_agents_replayed_model_calls_count_with_their_recorded_usage(tmp_path, monkeypatch):
    # The demo ADK agent through ADK's Runner, its model calls answered from the recorded
    # cassettes: the usage the recordings hold is what the budget counts (9 + 13 and 9 + 9
    # tokens for the first case's two calls).
    pytest.importorskip("google.adk")
    from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT
    from tests.conftest import ROOT

    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "result.json"

    done = invoke_evalkit("run", str(ROOT / "evalsets" / "llm_weather"), "--cassettes",
                          str(ROOT / "evalsets" / "cassettes"), "--jobs", "1", "--max-tokens", "30", "--json", str(out),
                          cwd=tmp_path)

    assert done.returncode == 1, done.stderr
    result = json.loads(out.read_text())
    first = result["cases"][0]
    assert (first["eval_id"], first["status"]) == ("paris_today", "passed")
    assert not_started(result) == ["not started: --max-tokens 30 reached"] * 3
    assert "evalkit: budget --max-tokens 30 reached: 2 model calls, 40 tokens spent; 3 cases not started" \
        in done.stderr.splitlines()
