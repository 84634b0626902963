"""The viewer's data layer answers any history: a malformed result file is listed with the
reason it was skipped, and no request about it answers 500. Property-based, as the loaders."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from evalkit.view.data import ViewData
from evalkit.view.server import create_app
from tests.conftest import ROOT
from tests.reliability.hostile import barely_json, mutated

RESULT = json.loads((ROOT / "tests" / "report" / "mixed.result.json").read_text())


@given(text=st.one_of(mutated(RESULT), barely_json()))
def test_any_history_file_is_shown_or_listed_as_skipped_never_500(tmp_path_factory, text):
    folder = tmp_path_factory.mktemp("runs")
    (folder / "good.json").write_text(json.dumps(RESULT))
    (folder / "hostile.json").write_text(text, encoding="utf-8", errors="surrogatepass")
    viewer = TestClient(create_app(ViewData([folder])), raise_server_exceptions=False)
    listing = viewer.get("/api/runs")
    assert listing.status_code == 200, listing.text
    body = listing.json()
    ids = [run["id"] for run in body["runs"]]
    assert "good" in ids
    assert "hostile" in ids or body["skipped"].get("hostile.json"), body  # shown, or skipped with a reason
    for run_id in ids:
        for path in (f"/api/runs/{run_id}", f"/api/runs/{run_id}/cases", f"/api/runs/{run_id}/cases/0",
                     f"/api/runs/{run_id}/cases?sort=score&q=a"):
            assert viewer.get(path).status_code in (200, 404), path
        answer = viewer.get("/api/compare", params={"base": "good", "new": run_id})
        assert answer.status_code in (200, 404), answer.text
        answer = viewer.get("/api/compare", params={"base": run_id, "new": "good"})
        assert answer.status_code in (200, 404), answer.text


def test_a_criterion_whose_details_are_a_list_or_whose_score_is_text_still_shows(tmp_path):
    document = json.loads(json.dumps(RESULT))
    criterion = document["cases"][0]["criteria"][0]
    criterion["details"], criterion["score"] = ["not", "a", "dict"], "high"
    (tmp_path / "odd.json").write_text(json.dumps(document))
    (tmp_path / "good.json").write_text(json.dumps(RESULT))
    viewer = TestClient(create_app(ViewData([tmp_path])), raise_server_exceptions=False)
    assert viewer.get("/api/runs").json()["skipped"]["odd.json"] == "case 0: criteria[0]: score is not a number"
    assert viewer.get("/api/runs/odd/cases/0").status_code in (200, 404)
    assert viewer.get("/api/compare", params={"base": "good", "new": "odd"}).status_code in (200, 404)
