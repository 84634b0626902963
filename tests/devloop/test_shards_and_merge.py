"""`run --shard K/N` and `evalkit merge`: the shards together are the unsharded run, case for case."""

from __future__ import annotations

import random

import pytest

from evalkit.errors import UsageError
from evalkit.engine.sharding import assign, parse_shard
from tests.devloop.helpers import WEATHER, evalkit, load, save


def scores(result: dict) -> dict:
    return {
        (c["eval_set_id"], c["eval_id"]): (c["status"], [(k["name"], k["status"], k["score"]) for k in c["criteria"]
                                                       if k["status"] != "informational"])
        for c in result["cases"]
    }


@pytest.fixture(scope="module")
def shard_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("shards")
    files = []
    for index in (1, 2, 3):
        out = folder / f"shard{index}.json"
        done = evalkit("run", WEATHER, "--shard", f"{index}/3", "--json", str(out), "--quiet", tmp_path=folder)
        assert done.returncode == 0, done.stderr
        files.append(out)
    return files


def test_three_shards_merged_equal_the_unsharded_run(demo_result, shard_files, tmp_path):
    _, whole = demo_result
    parts = [load(f) for f in shard_files]
    assert [p["shard"] for p in parts] == ["1/3", "2/3", "3/3"]
    assert sorted(len(p["cases"]) for p in parts) == [1, 1, 1]  # three cases, dealt out evenly
    merged_path = tmp_path / "all.json"
    # Given out of order, as CI artifact downloads often are.
    done = evalkit("merge", str(shard_files[2]), str(shard_files[0]), str(shard_files[1]), "--json", str(merged_path),
                   tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "3 cases: 3 passed, 0 failed" in done.stdout
    merged = load(merged_path)
    assert scores(merged) == scores(whole)
    assert [c["eval_id"] for c in merged["cases"]] == [c["eval_id"] for c in whole["cases"]]
    assert merged["summary"] == whole["summary"]
    assert merged["shards"] == ["1/3", "2/3", "3/3"] and merged["shard"] is None


def test_merge_exit_code_is_the_whole_runs(shard_files, tmp_path):
    failing = load(shard_files[1])
    failing["cases"][0]["status"] = "failed"
    failing_path = save(failing, tmp_path / "shard2.json")
    done = evalkit("merge", str(shard_files[0]), str(failing_path), str(shard_files[2]), "--json",
                   str(tmp_path / "all.json"), "--quiet", tmp_path=tmp_path, real_process=True)
    assert done.returncode == 1
    assert done.stdout.startswith("3 cases: 2 passed, 1 failed")
    errored = dict(failing, cases=[{**failing["cases"][0], "status": "error", "error": "agent down"}])
    done = evalkit("merge", str(shard_files[0]), str(save(errored, tmp_path / "e.json")), str(shard_files[2]),
                   "--quiet", tmp_path=tmp_path)
    assert done.returncode == 3


def test_merge_refuses_a_missing_shard_or_a_case_twice(shard_files, tmp_path):
    missing = evalkit("merge", str(shard_files[0]), str(shard_files[2]), "--json", str(tmp_path / "all.json"),
                      tmp_path=tmp_path)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "evalkit: shard 2/3 missing: every shard's result file is needed"
    assert not (tmp_path / "all.json").exists()
    twice = evalkit("merge", *map(str, shard_files), str(shard_files[0]), tmp_path=tmp_path)
    assert twice.returncode == 2
    eval_id = load(shard_files[0])["cases"][0]["eval_id"]
    assert f"{shard_files[0]}: case weather/{eval_id}: is also in {shard_files[0]}" in twice.stderr
    other_split = save({**load(shard_files[1]), "shard": "2/4"}, tmp_path / "other.json")
    mixed = evalkit("merge", str(shard_files[0]), str(other_split), str(shard_files[2]), tmp_path=tmp_path)
    assert mixed.returncode == 2 and "the shards come from different splits" in mixed.stderr


def test_merge_keeps_the_repeat_auto_rule_and_refuses_mixed_rules(shard_files, tmp_path):
    rule = {"max_repeat": 10, "agreeing_runs": 6, "rule": "stability", "required_passes": 0, "same_as_repeat": 6}
    parts = [save({**load(f), "repeat": 10, "repeat_auto": {**rule, "agent_runs": 6, "runs_saved": 0}},
                  tmp_path / f"auto{i}.json") for i, f in enumerate(shard_files)]
    done = evalkit("merge", *map(str, parts), "--json", str(tmp_path / "all.json"), tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    # compare reads the rule back to test the counts as the runs were made (docs/repeats.md).
    assert load(tmp_path / "all.json")["repeat_auto"] == {**rule, "agent_runs": 18, "runs_saved": 0}
    other = save({**load(parts[1]), "repeat_auto": {**rule, "rule": "pass_rate", "required_passes": 8}},
                 tmp_path / "other.json")
    mixed = evalkit("merge", str(parts[0]), str(other), str(parts[2]), tmp_path=tmp_path)
    assert mixed.returncode == 2 and "different --repeat/--pass-rate settings" in mixed.stderr


def test_more_shards_than_cases_leaves_empty_shards_that_pass(tmp_path):
    files = []
    for index in range(1, 5):
        out = tmp_path / f"s{index}.json"
        done = evalkit("run", WEATHER, "--shard", f"{index}/4", "--json", str(out), "--quiet", tmp_path=tmp_path)
        assert done.returncode == 0, done.stderr
        files.append(out)
    empty = [f for f in files if not load(f)["cases"]]
    assert len(empty) == 1
    assert load(empty[0])["summary"]["cases"] == 0
    merged = evalkit("merge", *map(str, files), "--json", str(tmp_path / "all.json"), "--quiet", tmp_path=tmp_path)
    assert merged.returncode == 0, merged.stderr
    assert load(tmp_path / "all.json")["summary"]["passed"] == 3


def test_the_split_is_disjoint_complete_balanced_and_order_free():
    keys = [(f"set{i % 4}", f"case{i}") for i in range(103)]
    owner = assign(keys, 7)
    assert set(owner) == set(keys) and set(owner.values()) == set(range(1, 8))
    sizes = [list(owner.values()).count(k) for k in range(1, 8)]
    assert max(sizes) - min(sizes) <= 1
    shuffled = keys[:]
    random.Random(5).shuffle(shuffled)
    assert assign(shuffled, 7) == owner


@pytest.mark.parametrize("text", ["0/3", "4/3", "1/0", "a/b", "2", ""])
def test_bad_shard_specs_are_usage_errors(text):
    with pytest.raises(UsageError, match=r"^shard="):
        parse_shard(text)


def test_a_bad_shard_on_the_command_line_exits_2(tmp_path):
    done = evalkit("run", WEATHER, "--shard", "3/2", tmp_path=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "evalkit: --shard 3/2: K must be between 1 and N (N at least 1)"


def test_merge_warns_when_the_shards_ran_different_agents(shard_files, tmp_path):
    same = evalkit("merge", *map(str, shard_files), "--json", str(tmp_path / "same.json"), tmp_path=tmp_path)
    assert same.returncode == 0 and "warning" not in same.stderr
    assert load(tmp_path / "same.json")["agent"] == load(shard_files[0])["agent"]
    other = save({**load(shard_files[1]), "agent": "examples/weather_agent/regressed_agent.py:weather_agent"},
                  tmp_path / "other-agent.json")
    mixed = evalkit("merge", str(shard_files[0]), str(other), str(shard_files[2]), "--json", str(tmp_path / "all.json"),
                    tmp_path=tmp_path)
    assert mixed.returncode == 0
    assert "evalkit: warning: the results were run with different agents: " in mixed.stderr
    assert f"{other} (examples/weather_agent/regressed_agent.py:weather_agent)" in mixed.stderr
    assert load(tmp_path / "all.json")["agent"] is None
