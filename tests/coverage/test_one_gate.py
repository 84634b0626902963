"""One gate: the verdict that sets the exit code is the one every report shows.

The help desk calls 2 of its 4 declared tools (ratio 0.5). With `--min-coverage 0.8` every
case passes but the run fails its coverage gate: the console says so and the exit code is 1,
and the result file, the Markdown summary, the HTML report, JUnit (read with junitparser and
checked against Ant's schema) and the viewer's data must all say the run failed, and why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from junitparser import Failure, JUnitXml

import evalkit
from evalkit.api import EvalFailed
from tests.coverage.desk_project import write_project
from tests.in_process import invoke_evalkit

WHY = "tool coverage 0.5 is below the minimum 0.8; never called: cancel, escalate"
ANT = Path(__file__).resolve().parents[1] / "report" / "junit-ant.xsd"


def junit_cases(path: Path) -> dict[tuple[str, str], Any]:
    """The test cases of a JUnit file as junitparser reads them, by (classname, name)."""
    return {(case.classname, case.name): case for suite in JUnitXml.fromfile(str(path)) for case in suite}


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    folder = tmp_path_factory.mktemp("gate")
    evalset = write_project(folder)
    done = invoke_evalkit("run", str(evalset), "--min-coverage", "0.8", "--json", str(folder / "r.json"),
                          "--junit", str(folder / "r.xml"), "--markdown", str(folder / "r.md"),
                          "--html", str(folder / "r.html"), cwd=folder)
    return folder, done


def test_the_console_and_the_exit_code_fail(gated):
    _, done = gated
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"evalkit: {WHY}" in done.stderr
    assert "3 passed, 0 failed" in done.stdout


def test_the_result_file_holds_the_verdict(gated):
    folder, _ = gated
    verdict = json.loads((folder / "r.json").read_text())["verdict"]
    assert verdict["passed"] is False
    assert verdict["min_coverage"] == 0.8
    assert [f["gate"] for f in verdict["failures"]] == ["coverage"]
    assert WHY in verdict["failures"][0]["message"]


def test_junit_has_a_failing_coverage_test_case(gated):
    folder, _ = gated
    xmlschema.XMLSchema(str(ANT)).validate(str(folder / "r.xml"))
    cases = junit_cases(folder / "r.xml")
    coverage = cases[("evalkit", "coverage")]
    assert not coverage.is_passed
    (failure,) = coverage.result
    assert isinstance(failure, Failure) and WHY in failure.message
    assert all(case.is_passed for key, case in cases.items() if key != ("evalkit", "coverage"))


def test_markdown_and_html_say_the_run_failed_and_why(gated):
    folder, _ = gated
    markdown = (folder / "r.md").read_text()
    assert f"**❌ The run failed: {WHY}" in markdown
    html = (folder / "r.html").read_text()
    assert 'class="verdict failed"' in html and WHY in html


def test_a_report_rendered_later_says_it_too(gated):
    folder, _ = gated
    done = invoke_evalkit("report", str(folder / "r.json"), "--markdown", str(folder / "later.md"), cwd=folder)
    assert done.returncode == 0, done.stderr
    assert (folder / "later.md").read_text() == (folder / "r.md").read_text()


def test_a_passing_gate_is_a_passing_coverage_test_case(tmp_path):
    evalset = write_project(tmp_path)
    done = invoke_evalkit("run", str(evalset), "--min-coverage", "0.5", "--junit", str(tmp_path / "r.xml"),
                          "--markdown", str(tmp_path / "r.md"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    cases = junit_cases(tmp_path / "r.xml")
    assert cases[("evalkit", "coverage")].is_passed
    assert "The run failed" not in (tmp_path / "r.md").read_text()


def test_the_api_judges_with_the_same_gate(tmp_path):
    evalset = write_project(tmp_path)
    result = evalkit.run_evals(str(evalset), min_coverage=0.8)
    assert result.verdict is not None and not result.verdict.passed
    assert [f.gate for f in result.verdict.failures] == ["coverage"]
    with pytest.raises(EvalFailed) as failed:
        evalkit.assert_passes(str(evalset), min_coverage=0.8)
    assert WHY in str(failed.value)


def test_the_configs_minimum_is_the_gate_too(tmp_path):
    """No flag: the config's `min_coverage`, decided once by the engine, is what every report shows."""
    evalset = write_project(tmp_path, min_coverage=0.8)
    done = invoke_evalkit("run", str(evalset), "--markdown", str(tmp_path / "r.md"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert WHY in (tmp_path / "r.md").read_text()


def test_merged_shards_of_an_agent_whose_tools_are_unknown_fail_the_configs_gate(tmp_path):
    """Each shard records its minimum; the merge applies it, as one whole run would (exit 1, with the reason)."""
    evalset = write_project(tmp_path, min_coverage=0.5)
    config = json.loads((tmp_path / "test_config.json").read_text())
    del config["coverage"]
    (tmp_path / "test_config.json").write_text(json.dumps(config))
    (tmp_path / "cassettes").mkdir()  # where `evalkit mcp` could have recorded listings: the run is allowed
    for shard in ("1/2", "2/2"):
        done = invoke_evalkit("run", str(evalset), "--shard", shard, "--cassettes", str(tmp_path / "cassettes"),
                              "--json", str(tmp_path / f"shard{shard[0]}.json"), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    merged = invoke_evalkit("merge", str(tmp_path / "shard1.json"), str(tmp_path / "shard2.json"),
                            "--junit", str(tmp_path / "all.xml"), cwd=tmp_path)
    assert merged.returncode == 1, merged.stdout + merged.stderr
    assert "evalkit does not know this agent's tools" in merged.stderr
    cases = junit_cases(tmp_path / "all.xml")
    assert not cases[("evalkit", "coverage")].is_passed
