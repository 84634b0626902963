"""The ready configs in `configs/` load, and each holds what its README line promises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalkit.commands.validate import check_config, is_config_file
from evalkit.loading.configs import load_config
from evalkit.schema.config import DEFAULT_CRITERIA

CONFIGS = Path(__file__).resolve().parents[1] / "configs"
NAMES = sorted(p.name for p in CONFIGS.glob("*.json"))


def test_the_promised_configs_are_there_and_listed():
    assert NAMES == ["adk_defaults.json", "ces_thresholds.json", "gemini_judges.json", "local_openai_judges.json",
                     "strict_trajectory.json"]
    listing = (CONFIGS / "README.md").read_text()
    assert all(f"`{name}`" in listing for name in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_config_loads_and_validates(name):
    path = CONFIGS / name
    assert is_config_file(path)
    assert check_config(path).startswith(f"ok  {path}: config: ")


def criteria(name: str) -> dict:
    return load_config(CONFIGS / name).criteria


def test_adk_defaults_are_adks_defaults():
    assert criteria("adk_defaults.json") == dict(DEFAULT_CRITERIA)


def test_strict_trajectory_is_exact():
    assert criteria("strict_trajectory.json")["tool_trajectory_avg_score"]["match_type"] == "EXACT"


def test_judge_configs_name_their_judges():
    gemini = json.loads((CONFIGS / "gemini_judges.json").read_text())["criteria"]
    local = json.loads((CONFIGS / "local_openai_judges.json").read_text())["criteria"]
    assert {c["judge_model_options"]["judge_model"] for c in gemini.values() if "judge_model_options" in c} == {
        "gemini-2.5-flash"}
    assert all(c["judge_model_options"]["judge_model"].startswith("openai/")
               for c in local.values() if "judge_model_options" in c)


def test_ces_thresholds_are_what_the_importer_writes_without_overrides(tmp_path):
    from evalkit.importers.ces.importer import import_ces_file

    evaluation = {"displayName": "plain", "golden": {"turns": [{"steps": [
        {"userInput": {"text": "what do I owe?"}},
        {"expectation": {"toolCall": {"tool": "projects/p/locations/us/apps/a/tools/get_balance",
                                      "args": {"account_id": "42"}}}},
        {"expectation": {"agentResponse": {"role": "agent", "chunks": [{"text": "120 EUR"}]}}},
    ]}]}}
    source = tmp_path / "plain.json"
    source.write_text(json.dumps(evaluation))
    written = import_ces_file(source, tmp_path / "out" / "plain.evalset.json")
    assert json.loads(written.config_path.read_text())["criteria"] == criteria("ces_thresholds.json")
