"""One reader of result files: `replay:`, `compare` and the pairwise baseline accept and reject the same files."""

from __future__ import annotations

import json

import pytest

from tests.devloop.helpers import WEATHER, evalkit, load, save
from tests.devloop.test_compare import adk_result


def broken_files(tmp_path):
    not_json = tmp_path / "not_json.json"
    not_json.write_text("{ this is not json")
    string = tmp_path / "string.json"
    string.write_text(json.dumps("a JSON string whose content is not JSON"))
    other = save({"hello": "world"}, tmp_path / "other.json")
    return {"not_json": not_json, "string": string, "other": other}


@pytest.mark.parametrize("kind", ["not_json", "string", "other"])
def test_replay_of_a_broken_file_exits_2_with_the_message_compare_gives(demo_result, tmp_path, kind):
    base_path, _ = demo_result
    broken = broken_files(tmp_path)[kind]
    replayed = evalkit("run", WEATHER, "--agent", f"replay:{broken}", tmp_path=tmp_path)
    compared = evalkit("compare", str(broken), str(base_path), tmp_path=tmp_path)
    assert replayed.returncode == 2, replayed.stderr
    assert compared.returncode == 2, compared.stderr
    assert "Traceback" not in replayed.stderr and "JSONDecodeError" not in replayed.stderr
    assert str(broken) in replayed.stderr
    assert replayed.stderr.strip() == compared.stderr.strip()


def test_replay_rescores_an_adk_result_file(demo_result, tmp_path):
    _, data = demo_result
    recorded = save(adk_result(data), tmp_path / "weather.evalset_result.json")
    out = tmp_path / "again.json"
    done = evalkit("run", WEATHER, "--agent", f"replay:{recorded}", "--json", str(out), "--quiet", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    again = load(out)
    assert [c["eval_id"] for c in again["cases"]] == [c["eval_id"] for c in data["cases"]]
    for before, after in zip(data["cases"], again["cases"]):
        assert [r["actual"] for r in after["invocations"]] == [r["actual"] for r in before["invocations"]]
        assert {c["name"]: c["score"] for c in after["criteria"]} == {c["name"]: c["score"] for c in before["criteria"]}
