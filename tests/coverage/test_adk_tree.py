"""Coverage of a real ADK agent tree: function tools, an AgentTool, sub-agents, an MCP toolset on a real
stdio server; the model is FakeGemini. The eval set exercises a known subset, so the whole coverage
object is computed here by hand."""

from __future__ import annotations

import json
import shutil

import pytest
from junitparser import JUnitXml

from evalkit.testing import FakeGemini
from tests.conftest import FIXTURES
from tests.in_process import invoke_evalkit

pytest.importorskip("google.adk")
pytest.importorskip("mcp")

AGENT = "tests.fixtures.coverage.agent_tree:root_agent"

# weather → get_weather(city); docs → search_docs(query) on the MCP server; owls → the researcher
# AgentTool(request), inside which lookup_fact(topic); refund → transfer to billing, which calls
# refund(order_id). Never: fetch_page (MCP), track (of shipping, never reached). The refund case
# expects `refund_order`, which the agent does not declare.
EXPECTED = {
    "tools": {
        "declared": ["fetch_page", "get_weather", "lookup_fact", "refund", "researcher", "search_docs", "track"],
        "called": {"get_weather": 1, "lookup_fact": 1, "refund": 1, "researcher": 1, "search_docs": 1},
        "never_called": ["fetch_page", "track"],
        "unknown": ["refund_order"],
        "ratio": 0.7143,
    },
    "agents": {"declared": ["billing", "researcher", "shipping"], "called": {"billing": 1, "researcher": 1},
               "never_called": ["shipping"]},
    "arguments": {
        "fetch_page": {"url": 0}, "get_weather": {"city": 1, "units": 0}, "lookup_fact": {"topic": 1},
        "refund": {"order_id": 1, "amount": 0}, "researcher": {"request": 1}, "search_docs": {"query": 1, "limit": 0},
        "track": {"order_id": 0},
    },
}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tree")
    shutil.copy(FIXTURES / "coverage" / "tree.evalset.json", folder)
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 0.0}}))
    from tests.fixtures.coverage.agent_tree import respond

    with FakeGemini() as fake, pytest.MonkeyPatch.context() as patch:
        fake.responder(respond)
        for name, value in fake.environment().items():
            patch.delenv(name, raising=False) if value is None else patch.setenv(name, value)

        def run(*flags: str):
            return invoke_evalkit("run", str(folder / "tree.evalset.json"), "--agent", AGENT, *flags, cwd=folder)

        yield folder, run


@pytest.fixture(scope="module")
def reported(project):
    folder, run = project
    done = run("--json", str(folder / "r.json"), "--junit", str(folder / "r.xml"), "--markdown", str(folder / "r.md"),
               "--html", str(folder / "r.html"))
    assert done.returncode == 0, done.stdout + done.stderr
    return folder, done


def test_the_coverage_object_is_exact(reported):
    folder, _ = reported
    coverage = json.loads((folder / "r.json").read_text())["coverage"]
    assert {key: coverage[key] for key in ("tools", "agents", "arguments")} == EXPECTED
    assert coverage.get("min_ratio") is None


def test_the_console_says_it_in_a_line(reported):
    _, done = reported
    lines = done.stdout.splitlines()
    assert "tools: 5 of 7 called; never: fetch_page, track" in lines
    assert "agents: 2 of 3 called; never: shipping" in lines
    assert "tools the expected turns name but the agent does not declare: refund_order" in lines


def test_junit_carries_it_as_suite_properties(reported):
    folder, _ = reported
    suites = list(JUnitXml.fromfile(str(folder / "r.xml")))
    properties = {p.name: p.value for p in suites[0].properties()}
    assert properties["coverage_ratio"] == "0.7143"
    assert properties["coverage_tools_declared"] == "7" and properties["coverage_tools_called"] == "5"
    assert properties["coverage_tools_never_called"] == "fetch_page, track"
    assert properties["coverage_agents_never_called"] == "shipping"
    assert properties["coverage_tools_unknown"] == "refund_order"


def test_markdown_has_a_section_with_each_tools_arguments(reported):
    folder, _ = reported
    markdown = (folder / "r.md").read_text()
    section = markdown[markdown.index("#### Coverage"):]
    assert "- tools: 5 of 7 called; never: fetch\\_page, track" in section or \
        "- tools: 5 of 7 called; never: fetch_page, track" in section
    assert "| get_weather | 1 | city 1, units 0 |" in section
    assert "| track | 0 | order_id 0 |" in section


def test_the_html_report_has_the_matrix(reported):
    folder, _ = reported
    html = (folder / "r.html").read_text()
    assert 'id="coverage"' in html and "coverage-matrix" in html
    assert html.count('class="hit"') == 5  # one cell per case and tool called: 1 + 1 + 2 (owls) + 1 (refund)


def test_the_gate_from_the_config_and_the_flag_at_both_sides(project):
    folder, run = project
    (folder / "test_config.json").write_text(json.dumps(
        {"criteria": {"tool_trajectory_avg_score": 0.0}, "min_coverage": 0.75}))
    try:
        below = run("--json", str(folder / "gated.json"))
        assert below.returncode == 1, below.stdout + below.stderr
        assert ("evalkit: tool coverage 0.7143 is below the minimum 0.75; never called: fetch_page, track; "
                "add eval cases that call them") in below.stderr
        assert json.loads((folder / "gated.json").read_text())["coverage"]["min_ratio"] == 0.75
        above = run("--min-coverage", "0.71")  # the flag wins over the config
        assert above.returncode == 0, above.stdout + above.stderr
        assert "below the minimum" not in above.stderr
        flag_below = run("--min-coverage", "0.72")
        assert flag_below.returncode == 1 and "below the minimum 0.72" in flag_below.stderr
    finally:
        (folder / "test_config.json").write_text(json.dumps({"criteria": {"tool_trajectory_avg_score": 0.0}}))
