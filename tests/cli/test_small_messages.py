"""Small messages a user meets early: each names the place and says what to do, in evalkit's words."""

from __future__ import annotations

from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

ECHO = str(FIXTURES / "echo.evalset.json")
AGENTS = str(FIXTURES / "agents_py" / "agents.py")


def test_a_tab_in_yaml_indentation_says_to_indent_with_spaces(tmp_path):
    lead = tmp_path / "lead.evalset.yaml"
    lead.write_text("eval_set_id: c\neval_cases:\n\t- eval_id: x\n")
    inner = tmp_path / "inner.evalset.yaml"
    inner.write_text("eval_set_id: c\neval_cases:\n  - eval_id: x\n\tconversation: []\n")
    done = invoke_evalkit("validate", str(lead), str(inner))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"evalkit: {lead}: line 3 column 1: invalid YAML: tabs are not allowed in YAML; indent with spaces",
        f"evalkit: {inner}: line 4 column 1: invalid YAML: tabs are not allowed in YAML; indent with spaces"]


def test_timeout_and_repeat_out_of_range_are_worded_like_jobs():
    for flag, value, says in (
        ("--timeout", "0", "expected a number of seconds per turn above 0, such as 60"),
        ("--timeout", "-5", "expected a number of seconds per turn above 0, such as 60"),
        ("--repeat", "0", "expected 'auto' or a whole number of runs per case, at least 1, such as 5 "
                          "(see docs/repeats.md)"),
        ("--jobs", "0", "expected 'auto' or a whole number of cases at a time, at least 1, such as 16"),
    ):
        done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", flag, value)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines() == [f"evalkit: {flag} {value}: {says}"]


def test_criteria_name_shows_that_criterion_alone():
    done = invoke_evalkit("criteria", "response_match_score")
    assert done.returncode == 0, done.stderr
    headings = [line for line in done.stdout.splitlines() if line and not line.startswith(" ")]
    assert headings == ["response_match_score  (threshold; needs expected turns)"]
    assert "ROUGE-1" in done.stdout
    wrong = invoke_evalkit("criteria", "respons_match_score")
    assert wrong.returncode == 2 and wrong.stdout == ""
    assert wrong.stderr.splitlines() == [("evalkit: no criterion named 'respons_match_score'; did you mean "
                                          "'response_match_score'? (`evalkit criteria` lists them all)")]


def test_a_missing_config_or_baseline_file_is_named_with_its_flag(tmp_path):
    done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", "--config", str(tmp_path / "nothere.json"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"evalkit: --config {tmp_path / 'nothere.json'}: no such file; "
                                        "give the path of a config file (docs/config.md)"]
    done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", "--baseline", str(tmp_path / "old.json"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"evalkit: --baseline {tmp_path / 'old.json'}: no such file; give a result "
                                        "file (evalkit run --json writes one) or `last` for the newest run in the history"]


def test_a_cassette_mode_without_cassettes_is_refused():
    done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", "--cassette-mode", "recrd")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "evalkit: --cassette-mode recrd: only means something with --cassettes DIR (and it is not a mode: expected "
        "one of replay, record, auto); add --cassettes, or drop --cassette-mode"]
    done = invoke_evalkit("run", ECHO, "--agent", f"{AGENTS}:echo", "--cassette-mode", "record")
    assert done.returncode == 2 and "add --cassettes, or drop --cassette-mode" in done.stderr
