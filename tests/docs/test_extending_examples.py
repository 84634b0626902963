"""docs/extending.md's examples import only from `evalkit.extend`, and work: installed from
the page's own blocks (its `pyproject.toml` entry points become the package's dist-info),
its criterion, agent prefix and judge backend score a real `evalkit run`; registered in the
process instead, they score a `run_evals` call."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.conftest import ROOT, run_evalkit

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

PAGE = ROOT / "docs" / "extending.md"
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.S)
ANSWERS = {"What's the weather in Paris?": "Sunny in Paris, 24 degrees.",
           "And in Oslo?": "Rain in Oslo all day."}


def blocks(language: str) -> list[str]:
    return [body for fence, body in FENCE.findall(PAGE.read_text(encoding="utf-8")) if fence == language]


def python_examples() -> dict[str, str]:
    """Each Python block by the file its first line names (`# my_package/metrics.py`)."""
    examples = {}
    for body in blocks("python"):
        first = body.splitlines()[0]
        assert first.startswith("# my_package/"), f"a Python block of {PAGE.name} names no file: {first!r}"
        examples[first.removeprefix("# ")] = body
    return examples


def test_the_page_shows_each_kind_of_plugin():
    assert sorted(python_examples()) == ["my_package/agents.py", "my_package/judges.py", "my_package/metrics.py",
                                         "my_package/reports.py"]


@pytest.mark.parametrize("file", sorted(python_examples()))
def test_an_example_imports_evalkit_only_through_evalkit_extend(file):
    tree = ast.parse(python_examples()[file])
    modules = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    modules += [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    from_evalkit = [module for module in modules if module.split(".")[0] == "evalkit"]
    assert from_evalkit, f"{file} imports nothing from evalkit"
    assert set(from_evalkit) == {"evalkit.extend"}, f"{file} imports {from_evalkit}"
    import evalkit.extend

    names = [alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module == "evalkit.extend"
             for alias in node.names]
    assert set(names) <= set(evalkit.extend.__all__), f"{file}: {set(names) - set(evalkit.extend.__all__)}"


def install_examples(site: Path) -> Path:
    """The page's package and a dist-info holding its entry points, on a folder for PYTHONPATH."""
    for file, body in python_examples().items():
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text(body, encoding="utf-8")
    (site / "my_package" / "__init__.py").write_text("", encoding="utf-8")
    (toml,) = blocks("toml")
    groups = tomllib.loads(toml)["project"]["entry-points"]
    dist_info = site / "my_package-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-package\nVersion: 1.0\n", encoding="utf-8")
    (dist_info / "entry_points.txt").write_text("".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items()) + "\n"
        for group, points in groups.items()), encoding="utf-8")
    return site


def write_project(folder: Path) -> tuple[Path, Path, Path]:
    """An eval set of two cases (one answer names the keyword, one does not), the answers, the page's config."""
    cases = [{"eval_id": eval_id, "conversation": [
        {"user_content": {"role": "user", "parts": [{"text": question}]}}]}
        for eval_id, question in zip(("paris", "oslo"), ANSWERS)]
    evalset = folder / "weather.evalset.json"
    evalset.write_text(json.dumps({"eval_set_id": "weather", "eval_cases": cases}), encoding="utf-8")
    answers = folder / "answers.json"
    answers.write_text(json.dumps(ANSWERS), encoding="utf-8")
    (config_text,) = blocks("json")
    config = folder / "config.json"
    config.write_text(config_text, encoding="utf-8")
    return evalset, answers, config


class _Gateway(BaseHTTPRequestHandler):
    """The model gateway the judge example posts to: every verdict "safe", every request kept."""

    asked: list[dict] = []

    def do_POST(self) -> None:
        _Gateway.asked.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        body = json.dumps({"text": '{"verdict": "safe"}'}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def gateway():
    _Gateway.asked = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Gateway)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", _Gateway.asked
    server.shutdown()
    server.server_close()


def scores_of(result: dict) -> dict[str, dict[str, tuple]]:
    """The page's two criteria (ADK's informational metrics come after them)."""
    return {case["eval_id"]: {c["name"]: (c["score"], c["status"]) for c in case["criteria"]
                              if c["name"] in ("keyword_present_v1", "safety_v1")}
            for case in result["cases"]}


EXPECTED_SCORES = {
    "paris": {"keyword_present_v1": (1.0, "passed"), "safety_v1": (1.0, "passed")},
    "oslo": {"keyword_present_v1": (0.0, "failed"), "safety_v1": (1.0, "passed")},
}


def test_the_installed_examples_score_a_real_evalkit_run(tmp_path, gateway):
    url, asked = gateway
    site = install_examples(tmp_path / "site")
    (tmp_path / "project").mkdir()
    evalset, answers, config = write_project(tmp_path / "project")
    env = {"PYTHONPATH": str(site), "HOUSE_JUDGE_URL": url}
    listed = run_evalkit("criteria", "keyword_present_v1", env=env)
    assert listed.returncode == 0 and 'keyword = "sunny"' in listed.stdout, listed.stdout + listed.stderr
    out = tmp_path / "result.json"
    done = run_evalkit("run", str(evalset), "--agent", f"canned:{answers}", "--config", str(config),
                       "--no-cache", "--json", str(out), "--report", f"csv={tmp_path / 'r.csv'}", env=env)
    assert done.returncode == 1, done.stderr  # oslo's answer does not name the keyword
    assert (tmp_path / "r.csv").read_text() == "case,status\nweather/paris,passed\nweather/oslo,failed\nrun,failed\n"
    result = json.loads(out.read_text())
    assert scores_of(result) == EXPECTED_SCORES
    answered = [case["invocations"][0]["actual"]["final_response"]["parts"][0]["text"] for case in result["cases"]]
    assert answered == list(ANSWERS.values())
    assert {request["model"] for request in asked} == {"strict-v2"}
    assert any("Sunny in Paris" in request["prompt"] for request in asked)
    assert result["judge"]["calls"] == len(asked) >= 2


def test_the_examples_registered_in_process_score_run_evals(tmp_path, gateway):
    url, asked = gateway
    site = tmp_path / "site"
    for file, body in python_examples().items():  # importable, not installed: no dist-info
        (site / file).parent.mkdir(parents=True, exist_ok=True)
        (site / file).write_text(body, encoding="utf-8")
    evalset, answers, config = write_project(tmp_path)
    script = f"""
import json, os
os.environ["HOUSE_JUDGE_URL"] = {url!r}
import evalkit
from evalkit.extend import register_agent_prefix, register_criterion, register_judge_backend
from my_package.agents import CANNED
from my_package.judges import HouseJudge
from my_package.metrics import KeywordPresent

register_criterion(KeywordPresent)
register_agent_prefix("canned", CANNED)
register_judge_backend("house", HouseJudge)
result = evalkit.run_evals({str(evalset)!r}, agent={f"canned:{answers}"!r}, config={str(config)!r}, use_cache=False)
print(json.dumps(result.model_dump(mode="json")))
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(site)})
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert scores_of(result) == EXPECTED_SCORES
    assert any("Rain in Oslo" in request["prompt"] for request in asked)

