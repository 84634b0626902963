"""Coverage of an agent evalkit cannot look inside (a `cmd:` process): the config declares its tools.
Also: the config key's checks, `validate`'s static check, `merge` of shards, the Python API."""

from __future__ import annotations

import json

import pytest

import evalkit
from evalkit.api import EvalFailed
from tests.coverage.desk_project import turn, write_project
from tests.in_process import invoke_evalkit


# look: lookup(q); book: book(day), then lookup(q) and book(day) by `booking`; typo: nothing.
EXPECTED = {
    "tools": {"declared": ["book", "cancel", "escalate", "lookup"], "called": {"book": 2, "lookup": 2},
              "never_called": ["cancel", "escalate"], "unknown": ["lookupp"], "ratio": 0.5},
    "agents": {"declared": ["billing", "booking"], "called": {"booking": 2}, "never_called": ["billing"]},
    "arguments": {"book": {"day": 2, "seats": 0}, "cancel": {}, "escalate": {}, "lookup": {"q": 2}},
}


def coverage_of(path):
    coverage = json.loads(path.read_text())["coverage"]
    return {key: coverage[key] for key in ("tools", "agents", "arguments")}


def test_a_cmd_agent_is_covered_by_its_declared_tools(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert coverage_of(tmp_path / "r.json") == EXPECTED
    assert "tools: 2 of 4 called; never: cancel, escalate" in done.stdout.splitlines()


def test_worker_processes_add_their_cases(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--processes", "2", "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert coverage_of(tmp_path / "r.json") == EXPECTED


def test_repeated_runs_all_count(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--repeat", "2", "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    coverage = coverage_of(tmp_path / "r.json")
    assert coverage["tools"]["called"] == {"book": 4, "lookup": 4}
    assert coverage["agents"]["called"] == {"booking": 4}


def test_without_an_inventory_there_is_no_coverage_and_the_gate_cannot_pass(tmp_path):
    evalset = write_project(tmp_path)
    config = json.loads((tmp_path / "test_config.json").read_text())
    del config["coverage"]
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    plain = invoke_evalkit("run", str(evalset), "--json", str(tmp_path / "r.json"), cwd=tmp_path)
    assert plain.returncode == 0 and "coverage" not in json.loads((tmp_path / "r.json").read_text())
    assert "tools:" not in plain.stdout
    # With a cassette folder, `evalkit mcp` could have recorded the agent's servers' listings during
    # the run: it runs, and finds none.
    (tmp_path / "cassettes").mkdir()
    gated = invoke_evalkit("run", str(evalset), "--min-coverage", "0.1", "--cassettes", str(tmp_path / "cassettes"),
                           cwd=tmp_path)
    assert gated.returncode == 1, gated.stderr
    assert "evalkit does not know this agent's tools" in gated.stderr and 'under "coverage"' in gated.stderr
    assert "desk/look   passed" in gated.stdout


def test_a_gate_no_run_could_pass_is_refused_before_the_run(tmp_path):
    """A `cmd:` agent never declares its tools: without a config's `coverage` or a cassette folder, exit 2."""
    evalset = write_project(tmp_path)
    config = json.loads((tmp_path / "test_config.json").read_text())
    del config["coverage"]
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    flag = invoke_evalkit("run", str(evalset), "--min-coverage", "0.1", cwd=tmp_path)
    assert flag.returncode == 2, flag.stdout + flag.stderr
    assert "--min-coverage 0.1: evalkit cannot know the tools of the agent 'cmd:" in flag.stderr
    assert 'declare them under "coverage" in the config' in flag.stderr and "--cassettes DIR" in flag.stderr
    assert "case" not in flag.stdout  # nothing ran

    (tmp_path / "test_config.json").write_text(json.dumps({**config, "min_coverage": 0.5}))
    key = invoke_evalkit("run", str(evalset), cwd=tmp_path)
    assert key.returncode == 2, key.stdout + key.stderr
    assert f"{tmp_path / 'test_config.json'}: min_coverage: evalkit cannot know the tools" in key.stderr


@pytest.mark.parametrize(("config", "place", "words"), [
    ({"coverage": {"tool": ["a"]}}, "coverage.tool", "tool"),
    ({"coverage": {"tools": "lookup"}}, "coverage.tools", "list"),
    ({"coverage": {"tools": [{"name": "a", "params": ["x"]}]}}, "coverage.tools[0]", "params"),
    ({"coverage": ["lookup"]}, "coverage", "dictionary"),
    ({"min_coverage": 1.5}, "min_coverage", "1"),
])
def test_bad_coverage_keys_exit_2_naming_file_and_key(tmp_path, config, place, words):
    evalset = write_project(tmp_path)
    data = json.loads((tmp_path / "test_config.json").read_text())
    data.update(config)
    (tmp_path / "test_config.json").write_text(json.dumps(data))
    for command in (["validate", str(evalset)], ["run", str(evalset)]):
        done = invoke_evalkit(*command, cwd=tmp_path)
        assert done.returncode == 2, done.stdout + done.stderr
        line = next(line for line in done.stderr.splitlines() if "test_config.json" in line)
        assert place in line and words in line.lower() and "Traceback" not in done.stderr


def test_validate_names_expected_tools_the_config_does_not_declare(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("validate", str(evalset), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    output = done.stdout + done.stderr
    assert "eval case 'typo': conversation[0]: tool 'lookupp' is not among the tools" in output
    assert "did you mean 'lookup'?" in output
    assert "'lookup' is not among" not in output and "'book' is not among" not in output


def test_merge_unions_the_shards_and_gates_the_whole(tmp_path):
    again = {"eval_id": "look2", "conversation": [turn("look again")]}  # so that each shard calls some tools
    evalset = write_project(tmp_path, [again], min_coverage=0.75)
    expected = json.loads(json.dumps(EXPECTED))
    expected["tools"]["called"]["lookup"] = expected["arguments"]["lookup"]["q"] = 3
    for shard in ("1/2", "2/2"):
        out = tmp_path / f"shard{shard[0]}.json"
        done = invoke_evalkit("run", str(evalset), "--shard", shard, "--json", str(out), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr  # a shard's coverage is a part: not gated
        assert "below the minimum" not in done.stderr
    parts = [coverage_of(tmp_path / f"shard{k}.json") for k in "12"]
    assert all(part["tools"]["called"] and part["tools"]["called"] != expected["tools"]["called"] for part in parts)
    merged = invoke_evalkit("merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"),
                            "--json", str(tmp_path / "all.json"), cwd=tmp_path)
    assert coverage_of(tmp_path / "all.json") == expected
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "tool coverage 0.5 is below the minimum 0.75; never called: cancel, escalate" in merged.stderr
    lowered = invoke_evalkit("merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"),
                             "--min-coverage", "0.5", cwd=tmp_path)
    assert lowered.returncode == 0, lowered.stdout + lowered.stderr


def test_the_python_api_takes_min_coverage(tmp_path):
    evalset = write_project(tmp_path)
    result = evalkit.run_evals(str(evalset), min_coverage=0.5)
    assert result.coverage is not None and result.coverage.tools.ratio == 0.5
    evalkit.assert_passes(str(evalset), min_coverage=0.5)
    with pytest.raises(EvalFailed) as failed:
        evalkit.assert_passes(str(evalset), min_coverage=0.6)
    assert "tool coverage 0.5 is below the minimum 0.6; never called: cancel, escalate" in str(failed.value)
