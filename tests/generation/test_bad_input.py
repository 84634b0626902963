"""What `evalkit generate` does with bad input and a failing model: exit 2 before any call, a skipped round,
exit 2 with no file when the model never answers, exit 3 with the cases so far when it fails midway."""

from __future__ import annotations

import json
import socket

import pytest

from evalkit.testing import FakeGemini
from tests.coverage.desk_project import AGENT, DECLARED
from tests.generation.support import WRITER_MARK, reply, rounds, scenario, summary_line, writer_prompts
from tests.in_process import invoke_evalkit

LOOKUP = scenario("Look up tea.", "Ask about tea.", tools=["lookup"])
THE_REST = scenario("Book Monday, then cancel it, or escalate.", "Go on until billing answers.",
                    tools=["cancel", "escalate"], parameters={"book": ["day", "seats"]}, agents=["booking", "billing"])


@pytest.fixture
def desk(tmp_path):
    (tmp_path / "desk.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 1.0},
                                                    "coverage": DECLARED}))
    return tmp_path


def generate(desk, fake, *flags: str, env: dict[str, str] | None = None):
    variables = {**{k: v or "" for k, v in fake.environment().items()}, **(env or {})} if fake is not None else env
    return invoke_evalkit("generate", "--agent", AGENT, "--out", str(desk / "gen.evalset.json"), *flags, cwd=desk,
                          env=variables)


def test_an_agent_with_no_inventory_is_exit_2_before_any_model_call(desk):
    with FakeGemini() as fake:
        done = generate(desk, fake)  # no --config: a cmd: agent declares nothing
        assert fake.call_count == 0
    assert done.returncode == 2, done.stdout + done.stderr
    assert "knows no tool or sub-agent of this agent" in done.stderr
    assert 'declare them under "coverage" in a config given with --config (docs/coverage.md)' in done.stderr
    assert "Traceback" not in done.stderr and not (desk / "gen.evalset.json").exists()


@pytest.mark.parametrize("ratio", ["1.5", "-0.1"])
def test_min_coverage_outside_0_to_1_is_exit_2(desk, ratio):
    done = generate(desk, None, "--config", str(desk / "desk.json"), "--min-coverage", ratio)
    assert done.returncode == 2 and f"--min-coverage {ratio}: expected a share" in done.stderr, done.stderr


def test_cassette_mode_without_cassettes_is_exit_2(desk):
    done = generate(desk, None, "--config", str(desk / "desk.json"), "--cassette-mode", "record")
    assert done.returncode == 2 and "--cassette-mode record: only means something with --cassettes" in done.stderr


def test_a_reply_that_is_not_the_json_is_asked_again_then_its_round_is_skipped_and_counted(desk):
    answers = iter(["Sure! Here are some scenarios: ...", '{"cases": []}',  # round 1: twice not the JSON
                    "```json\n" + reply(LOOKUP) + "\n```",                     # round 2: fenced, still read
                    "[1, 2]", reply(THE_REST)])                               # round 3: asked again, then usable

    def writer(prompt: str, request: dict) -> str | None:
        return next(answers) if WRITER_MARK in prompt else None

    with FakeGemini() as fake:
        fake.responder(writer)
        done = generate(desk, fake, "--config", str(desk / "desk.json"))
        prompts = writer_prompts(fake.prompts)
    assert done.returncode == 0, done.stdout + done.stderr
    assert rounds(done.stderr)[0] == ('round 1: skipped, the replies were not the asked JSON (expected {"scenarios": '
                                      '[...]}, found an object without a "scenarios" list)')
    assert "Your previous answer to this request could not be used (not JSON" in prompts[1]
    assert "could not be used" not in prompts[2]
    assert "Your previous answer to this request could not be used (expected" in prompts[4]
    assert summary_line(done.stdout) == ("planned coverage 4 of 4 tools, 2 of 2 parameters, 2 of 2 sub-agents; "
                                         "2 proposed, 0 rejected, 0 dropped, 1 round skipped (reply not the asked JSON)")


def test_a_model_unreachable_before_its_first_answer_is_exit_2_and_writes_no_file(desk):
    (desk / "gen.evalset.json").write_text("{}")  # an earlier file stays as it was
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    done = generate(desk, None, "--config", str(desk / "desk.json"), "--model", "openai/writer",
                    env={"OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1"})
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("evalkit: --model openai/writer: no answer from the model (judge http://127.0.0.1:")
    assert "unreachable" in done.stderr and "no file was written" in done.stderr
    assert (desk / "gen.evalset.json").read_text() == "{}" and not (desk / "test_config.json").exists()


def test_a_failure_after_some_rounds_is_exit_3_and_keeps_the_cases_so_far(desk):
    def writer(prompt: str, request: dict) -> str | None:
        if WRITER_MARK not in prompt:
            return None
        if "tool lookup" in prompt:
            return reply(LOOKUP)
        raise RuntimeError("the model fell over")  # the fake answers 500

    with FakeGemini() as fake:
        fake.responder(writer)
        done = generate(desk, fake, "--config", str(desk / "desk.json"), env={"EVALKIT_JUDGE_MAX_ATTEMPTS": "1"})
    assert done.returncode == 3, done.stdout + done.stderr
    assert summary_line(done.stdout).startswith("planned coverage 1 of 4 tools, 0 of 2 parameters, 0 of 2 sub-agents")
    assert "evalkit: the model failed after 1 round(s): " in done.stderr
    assert "the cases so far are kept in" in done.stderr
    cases = json.loads((desk / "gen.evalset.json").read_text())["eval_cases"]
    assert [c["targets"]["tools"] for c in cases] == [["lookup"]]
