"""`evalkit view` as a user starts it: the first line, nothing to show, other hosts, bad paths, the extra."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from tests.conftest import ROOT, run_evalkit
from tests.view.support import ViewServer, case, result, write_result


def test_the_first_line_is_the_address_and_the_api_answers(tmp_path: Path):
    write_result(tmp_path / "result.json", result([case("s", "a")]))
    with ViewServer("result.json", cwd=tmp_path) as server:
        assert server.first_line.startswith("evalkit view: http://127.0.0.1:") and server.url.endswith("/")
        runs = httpx.get(server.url + "api/runs", timeout=10).json()["runs"]
        assert [run["id"] for run in runs] == ["result"]
        assert httpx.get(server.url + "api/runs/result", timeout=10).json()["cases"][0]["eval_id"] == "a"


def test_with_nothing_to_show_it_says_where_it_looked_and_how_to_make_a_run(tmp_path: Path):
    server = ViewServer(cwd=tmp_path, env={"EVALKIT_RUNS_DIR": ""})
    stderr = server.close()
    assert "no result files in .evalkit/runs" in stderr and "evalkit run" in stderr


def test_another_host_is_served_with_a_warning(tmp_path: Path):
    write_result(tmp_path / "result.json", result([case("s", "a")]))
    server = ViewServer("result.json", "--host", "127.0.0.2", cwd=tmp_path)
    assert server.url.startswith("http://127.0.0.2:")
    assert "warning: serving on 127.0.0.2" in server.close()


def test_a_missing_path_is_bad_input(tmp_path: Path):
    done = run_evalkit("view", "--no-open", "nowhere.json", cwd=tmp_path)
    assert done.returncode == 2 and "nowhere.json: no such file or folder" in done.stderr and not done.stdout


def test_without_the_view_extra_it_names_the_install_command(tmp_path: Path):
    code = ("import sys; sys.modules['uvicorn'] = None; from evalkit.cli import main; "
            "sys.argv = ['evalkit', 'view', '--no-open']; main()")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 2
    assert 'python -m pip install "evalkit-agents[view]"' in done.stderr and "Traceback" not in done.stderr


def test_export_writes_a_static_copy(tmp_path: Path):
    write_result(tmp_path / "runs" / "run-1.json", result([case("s", "a")], started_at="2026-01-01T00:00:00+00:00"))
    write_result(tmp_path / "runs" / "run-2.json", result([case("s", "a", "failed", 0.1)]))
    done = run_evalkit("view", "runs", "--export", "site", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote 2 runs to site" in done.stdout
    site = tmp_path / "site"
    assert (site / "index.html").read_text().count('data-mode="static"') == 1
    assert (site / "static" / "app.js").read_bytes() == (ROOT / "src/evalkit/view/static/app.js").read_bytes()
    assert (site / "data" / "runs" / "run-2" / "cases" / "0.json").is_file()
    assert (site / "data" / "compare" / "run-1" / "run-2.json").is_file()
