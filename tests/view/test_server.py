"""The viewer's JSON API: the fixed routes (docs/viewer.md), the pages' own, 404s and the labels endpoint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from evalkit.view.data import ViewData
from evalkit.view.server import create_app
from tests.conftest import run_evalkit
from tests.view.support import case, result, write_result


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    folder = tmp_path / "runs"
    write_result(folder / "run-1.json", result([case("s", "a"), case("s", "b")], started_at="2026-01-01T00:00:00+00:00"))
    write_result(folder / "run-2.json", result([case("s", "a"), case("s", "b", "failed", 0.1)],
                                               started_at="2026-01-02T00:00:00+00:00"))
    (tmp_path / "secret.json").write_text(json.dumps(result([case("x", "secret")])))
    return folder


def client(sources: list[Path], labels: Path | None = None) -> TestClient:
    return TestClient(create_app(ViewData(sources, labels=labels)))


def test_runs_newest_first_with_the_contract_fields(runs: Path):
    body = client([runs]).get("/api/runs").json()
    assert [run["id"] for run in body["runs"]] == ["run-2", "run-1"]
    assert all({"id", "started_at", "summary", "eval_set_ids"} <= set(run) for run in body["runs"])
    assert body["runs"][0]["summary"]["failed"] == 1 and body["runs"][0]["eval_set_ids"] == ["s"]


def test_a_run_is_its_result_file(runs: Path):
    response = client([runs]).get("/api/runs/run-1")
    assert response.status_code == 200 and response.headers["content-type"].startswith("application/json")
    assert response.json() == json.loads((runs / "run-1.json").read_text())


def test_compare_answers_what_evalkit_compare_json_writes(runs: Path, tmp_path: Path):
    done = run_evalkit("compare", str(runs / "run-1.json"), str(runs / "run-2.json"), "--json", str(tmp_path / "c.json"))
    assert done.returncode == 1, done.stderr
    answer = client([runs]).get("/api/compare", params={"base": "run-1", "new": "run-2"}).json()
    expected = json.loads((tmp_path / "c.json").read_text())
    assert answer == expected and answer["summary"]["regressed"] == 1


def test_compare_keeps_informational_criteria_and_their_order_as_the_cli_does(tmp_path: Path):
    def counted(status: str, count_status: str, score: float) -> dict:
        item = case("s", "a", status, score)
        item["criteria"].insert(0, {"name": "tool_call_count_v1", "threshold": None, "score": 3.0,
                                    "status": count_status, "invocations": [], "details": {}})
        item["criteria"].append({"name": "cost_v1", "threshold": None, "score": 0.01, "status": "informational"})
        return item

    base = write_result(tmp_path / "runs" / "base.json", result([counted("passed", "informational", 1.0), case("s", "b")],
                                                                 started_at="2026-01-01T00:00:00+00:00"))
    new = write_result(tmp_path / "runs" / "new.json", result([counted("failed", "failed", 0.5), case("s", "c")]))
    done = run_evalkit("compare", str(base), str(new), "--json", str(tmp_path / "c.json"))
    assert done.returncode == 1, done.stderr
    answer = client([tmp_path / "runs"]).get("/api/compare", params={"base": "base", "new": "new"}).json()
    assert answer == json.loads((tmp_path / "c.json").read_text())
    assert [c["name"] for c in answer["cases"][0]["criteria"]] == ["tool_call_count_v1", "response_match_score"]


@pytest.mark.parametrize("url", [
    "/api/runs/nope", "/api/runs/..%2Fsecret", "/api/runs/%2Fetc%2Fpasswd", "/api/runs/run-1/cases/7",
    "/api/runs/secret", "/api/compare?base=run-1&new=secret", "/api/compare?base=run-1", "/api/runs/nope/cases",
    "/static/..%2F..%2Fdefaults.py", "/nothing-here",
])
def test_unknown_ids_and_paths_answer_404_and_never_another_file(runs: Path, url: str):
    response = client([runs]).get(url)
    assert response.status_code == 404
    assert "secret" not in response.text and "DEFAULT" not in response.text


def test_cases_are_paged_and_filtered_by_the_server(runs: Path):
    http = client([runs])
    page = http.get("/api/runs/run-2/cases", params={"status": "failed"}).json()
    assert (page["total"], page["matched"], [row["eval_id"] for row in page["cases"]]) == (2, 1, ["b"])
    assert page["criteria"] == ["response_match_score"] and page["run"]["id"] == "run-2"
    assert http.get("/api/runs/run-2/cases", params={"limit": 1, "offset": 1}).json()["cases"][0]["eval_id"] == "b"
    one = http.get("/api/runs/run-2/cases/1").json()
    assert one["case"]["eval_id"] == "b" and one["labels"] == {}
    assert http.get("/api/runs/run-2/locate", params={"eval_set_id": "s", "eval_id": "b"}).json() == {"index": 1}


def test_the_page_allows_no_network_but_its_own_server(runs: Path):
    page = client([runs]).get("/")
    policy = next(line for line in page.text.splitlines() if "Content-Security-Policy" in line)
    assert "default-src 'none'" in policy and "script-src 'self'" in policy and "http" not in policy.split("content=")[1]
    assert "<script src=\"static/app.js\"></script>" in page.text


def test_labels_are_written_to_the_labels_file(runs: Path, tmp_path: Path):
    labels = tmp_path / "labels.yaml"
    http = client([runs], labels=labels)
    label = {"eval_set_id": "s", "eval_id": "b", "criterion": "response_match_score", "verdict": "pass"}
    assert http.post("/api/labels", json=label).json() == {"label": {**label, "note": None}}
    assert "verdict: pass" in labels.read_text()
    assert http.get("/api/runs/run-2/cases/1").json()["labels"]["response_match_score"]["verdict"] == "pass"
    assert http.post("/api/labels", json={**label, "verdict": "maybe"}).status_code == 400
    assert http.post("/api/labels", content=json.dumps(label), headers={"content-type": "text/plain"}).status_code == 415
    assert http.post("/api/labels", json=label, headers={"origin": "http://evil.example"}).status_code == 403
    assert client([runs]).post("/api/labels", json=label).status_code == 409  # no --labels: nothing is written


def test_a_case_names_the_cassette_it_replayed_from(tmp_path: Path):
    from evalkit.cassettes.store import cassette_path

    folder = tmp_path / "cassettes"
    recorded = cassette_path(folder, "s", "a")
    recorded.parent.mkdir(parents=True)
    recorded.write_text("{}")
    write_result(tmp_path / "runs" / "r.json",
                 result([case("s", "a"), case("s", "b")], cassettes={"folder": str(folder), "mode": "replay"}))
    http = client([tmp_path / "runs"])
    assert http.get("/api/runs/r/cases/0").json()["cassette"] == {"path": str(recorded), "mode": "replay", "exists": True}
    assert http.get("/api/runs/r/cases/1").json()["cassette"]["exists"] is False
