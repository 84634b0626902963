"""The viewer's case history answers any eval set id and case id, a `/` in either included: the page
sends each percent-encoded (`%2F`), and the server splits the path before it decodes each part."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from starlette.testclient import TestClient

from evalkit.view.data import ViewData
from evalkit.view.server import create_app
from tests.view.support import case, result, write_result

IDS = [("team/weather", "paris"), ("team/weather", "a/b"), ("s", "x/y/z"), ("per%cent", "sp ace"), ("s", "flaky")]


def test_case_history_is_found_for_ids_with_slashes(tmp_path: Path):
    write_result(tmp_path / "runs" / "run-1.json", result([case(set_id, eval_id) for set_id, eval_id in IDS]))
    client = TestClient(create_app(ViewData([tmp_path / "runs"])))
    for set_id, eval_id in IDS:
        answer = client.get(f"/api/cases/{quote(set_id, safe='')}/{quote(eval_id, safe='')}/history")
        assert answer.status_code == 200, (set_id, eval_id, answer.text)
        assert [run["id"] for run in answer.json()["runs"]] == ["run-1"]
    assert client.get(f"/api/cases/{quote('team/weather', safe='')}/nobody/history").status_code == 404
    assert client.get("/api/cases/team/weather/paris/history").status_code == 404  # an unencoded / is a separator
