"""Every malformed input is exit 2 with the file, the place in it and the problem; never a traceback."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from evalkit.cli import app
from tests.conftest import FIXTURES, ROOT

MALFORMED = FIXTURES / "malformed"
GOOD_EVALSET = str(ROOT / "evalsets" / "weather.evalset.json")

# file → (location, message fragment)
EVALSETS = {
    "syntax_error.evalset.json": ("line 4 column 1", "invalid JSON"),
    "syntax_error.evalset.yaml": ("line 4 column 4", "invalid YAML"),
    "empty.evalset.json": ("", "the file is empty"),
    "top_level_string.evalset.json": ("", "expected an eval set object"),
    "missing_eval_set_id.evalset.json": ("eval_set_id", "field required"),
    "missing_eval_cases.evalset.json": ("eval_cases", "field required"),
    "camel_case_top_level.evalset.json": ("evalSetId", "top-level keys are snake_case"),
    "eval_cases_not_a_list.evalset.json": ("eval_cases", "valid list"),
    "missing_eval_id.evalset.json": ("eval_cases[0].eval_id", "field required"),
    "both_conversation_and_scenario.evalset.json": ("eval_cases[0]", "has both"),
    "neither_conversation_nor_scenario.evalset.json": ("eval_cases[0]", "has neither"),
    "missing_user_content.evalset.json": ("eval_cases[0].conversation[0].user_content", "field required"),
    "unknown_key_in_invocation.evalset.json": ("eval_cases[0].conversation[0].final_responce", "did you mean 'final_response'"),
    "parts_not_a_list.evalset.json": ("eval_cases[0].conversation[0].user_content.parts", "valid list"),
    "unknown_key_in_part.evalset.json": ("eval_cases[0].conversation[0].user_content.parts[0].txt", "did you mean 'text'"),
    "duplicate_eval_ids.evalset.json": ("eval_cases[1].eval_id", "duplicate eval id 'c1'"),
    "tool_args_not_an_object.evalset.json": ("eval_cases[0].conversation[0].intermediate_data.tool_uses[0].args", "valid dictionary"),
    "mixed_intermediate_forms.evalset.json": ("eval_cases[0].conversation[0].intermediate_data.tool_uses", "not both"),
    "event_without_author.evalset.json": ("eval_cases[0].conversation[0].intermediate_data.invocation_events[0].author", "field required"),
    "unknown_persona.evalset.json": ("eval_cases[0].conversation_scenario.user_persona", "unknown persona id 'GRUMPY'"),
    "scenario_without_plan.evalset.json": ("eval_cases[0].conversation_scenario.conversation_plan", "field required"),
    "session_input_without_user_id.evalset.json": ("eval_cases[0].session_input.user_id", "field required"),
    "rubric_without_content.evalset.json": ("eval_cases[0].rubrics[0].rubric_content", "field required"),
    "timestamp_not_a_number.evalset.json": ("eval_cases[0].creation_timestamp", "valid number"),
    "tool_mock_without_name.evalset.json": ("eval_cases[0].tool_mocks[0].name", "field required"),
    "duplicate_rubric_ids.evalset.json": ("eval case 'c1'", "rubric id 'r1' is used more than once"),
    "role_not_a_string.evalset.json": ("eval_cases[0].conversation[0].user_content.role", "valid string"),
    "legacy_turn_without_query.test.json": ("[0].data[0]", "needs 'query'"),
    "legacy_initial_session_not_an_object.test.json": ("[0].initial_session", "expected an object"),
    "legacy_tool_use_without_input.test.json": ("[0].data[0].expected_tool_use[0]", "'tool_name' and 'tool_input'"),
}

CONFIGS = {
    "unknown_criterion.config.json": ("criteria.tool_trajectory_avg_scor", "did you mean 'tool_trajectory_avg_score'"),
    "misspelt_option.config.json": ("criteria.tool_trajectory_avg_score.match_typ", "did you mean 'match_type'"),
    "threshold_out_of_range.config.json": ("criteria.response_match_score", "outside the score range [0, 1]"),
    "unknown_match_type.config.json": ("criteria.tool_trajectory_avg_score.match_type", "unknown match_type 'SOMETIMES'"),
    "object_without_threshold.config.json": ("criteria.response_match_score", "needs a 'threshold'"),
    "threshold_not_a_number.config.json": ("criteria.response_match_score", "expected a threshold number"),
    "threshold_on_informational.config.json": ("criteria.token_usage_v1", "takes no threshold"),
    "unknown_top_level_key.config.json": ("critera", "did you mean 'criteria'"),
    "no_criteria.config.json": ("criteria", "names no criteria"),
    "syntax_error.config.yaml": ("line 3 column 1", "invalid YAML"),
    "custom_metric_not_importable.config.json": ("custom_metrics.my_metric.code_config.name", "no_such_pkg"),
    "custom_metric_not_in_criteria.config.json": ("custom_metrics.my_metric", "never run"),
}


# Problems that only show when a config meets an eval set: reported against the eval set.
COMBINED = {
    "rubric_criterion_without_rubrics.config.json": ("weather.evalset.json", "eval case 'paris'", "has no rubric for turn 1"),
}


def test_the_corpus_is_complete():
    on_disk = {p.name for p in MALFORMED.iterdir()}
    assert on_disk == set(EVALSETS) | set(CONFIGS) | set(COMBINED)
    assert len(on_disk) >= 30


def _check(result, file: str, where: str, message: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = result.stderr
    assert "Traceback" not in errors and "Traceback" not in result.stdout
    line = next((text for text in errors.splitlines() if file in text), None)
    assert line is not None, errors
    assert f"{file}: {where}: " in line or (not where and f"{file}: " in line), line
    assert message in line, line


@pytest.mark.parametrize("name", sorted(EVALSETS))
def test_malformed_evalset(name: str):
    where, message = EVALSETS[name]
    for extra in (["validate"], ["run", "--agent", "no_such_module:agent"]):
        result = CliRunner().invoke(app, [*extra, str(MALFORMED / name)])
        _check(result, name, where, message)


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_malformed_config(name: str):
    where, message = CONFIGS[name]
    result = CliRunner().invoke(app, ["validate", GOOD_EVALSET, "--config", str(MALFORMED / name)])
    _check(result, name, where, message)


def test_all_problems_of_all_files_are_reported_at_once():
    files = [str(MALFORMED / n) for n in ("duplicate_eval_ids.evalset.json", "unknown_key_in_part.evalset.json")]
    result = CliRunner().invoke(app, ["validate", *files])
    assert result.exit_code == 2
    assert "duplicate eval id" in result.stderr and "did you mean 'text'" in result.stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ([f"{GOOD_EVALSET}:paris,nope"], "selector 'nope': no eval case with that id"),
        ([GOOD_EVALSET, "--case", "nope"], "--case nope: no eval case"),
        (["no/such/file.evalset.json"], "no/such/file.evalset.json: no such file or folder"),
        ([GOOD_EVALSET, "--config", "no/such/config.json"], "no/such/config.json: no such file"),
        (["{empty}"], "no eval set files"),
    ],
)
def test_bad_selection_is_an_input_error(args: list[str], fragment: str, tmp_path):
    args = [a.replace("{empty}", str(tmp_path)) for a in args]
    result = CliRunner().invoke(app, ["validate", *args])
    assert result.exit_code == 2
    assert fragment in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", sorted(COMBINED))
def test_config_that_does_not_fit_the_eval_set(name: str):
    file, where, message = COMBINED[name]
    result = CliRunner().invoke(app, ["validate", GOOD_EVALSET, "--config", str(MALFORMED / name)])
    _check(result, file, where, message)
