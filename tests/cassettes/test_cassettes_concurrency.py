"""Concurrent cases share one proxy URL; each case's calls still land in (and replay from) its own cassette."""

from __future__ import annotations

import json
from pathlib import Path

from evalkit.testing import FakeGemini
from tests.cassettes.agents_support import API_KEY, gemini_reply, write_genai_callable
from tests.cassettes.test_cassettes_end_to_end import environment, outcomes
from tests.in_process import invoke_evalkit

CITIES = ["Paris", "London", "Tokyo", "Lima", "Oslo", "Rome"]


def write_tangled_evalset(folder: Path) -> Path:
    """24 cases, many opening with the very same message and parting ways at turn 2."""
    cases = []
    for i in range(24):
        first, second = CITIES[i % 2], CITIES[(i // 2) % len(CITIES)]
        cases.append({"eval_id": f"case{i:02d}", "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": f"What is the weather in {first}?"}]}},
            {"user_content": {"role": "user", "parts": [{"text": f"Case {i}: and the weather in {second}?"}]}},
        ]})
    path = folder / "tangled.evalset.json"
    path.write_text(json.dumps({"eval_set_id": "tangled", "eval_cases": cases}))
    (folder / "test_config.json").write_text(json.dumps({"criteria": {"response_match_score": 0.0}}))
    return path


def run(tmp_path: Path, agent: str, mode: str, env: dict[str, str], jobs: str):
    result_file = tmp_path / f"result-{mode}-{jobs}.json"
    process = invoke_evalkit(
        "run", str(tmp_path / "tangled.evalset.json"), "--config", str(tmp_path / "test_config.json"),
        "--agent", agent, "--cassettes", str(tmp_path / "cassettes"), "--cassette-mode", mode,
        "--json", str(result_file), "--jobs", jobs, cwd=tmp_path, env=env,
    )
    assert result_file.exists(), process.stderr
    return process, json.loads(result_file.read_text())


def test_concurrent_cases_record_and_replay_their_own_calls(tmp_path):
    write_tangled_evalset(tmp_path)
    agent = write_genai_callable(tmp_path)
    with FakeGemini(latency=0.03) as fake:  # slow enough that many cases are in flight together
        fake.responder(gemini_reply)
        env = environment(tmp_path, GOOGLE_GEMINI_BASE_URL=fake.base_url)
        recorded_process, recorded = run(tmp_path, agent, "record", env, jobs="12")
        assert recorded_process.returncode == 0, recorded_process.stdout + recorded_process.stderr
        assert fake.max_in_flight > 1
        calls = fake.call_count
        assert calls == 48

        turns = {i: [e["turn"] for e in json.loads((tmp_path / "cassettes" / "tangled" / f"case{i:02d}.cassette.json").read_text())["exchanges"]] for i in range(24)}
        for i in range(24):
            cassette = json.loads((tmp_path / "cassettes" / "tangled" / f"case{i:02d}.cassette.json").read_text())
            exchanges = cassette["exchanges"]
            assert [e["turn"] for e in exchanges] == [1, 2], str(turns)
            second_turn_text = json.dumps(exchanges[1]["request"])
            assert f"Case {i}:" in second_turn_text  # its own conversation, nobody else's
            assert API_KEY not in json.dumps(cassette)

        # Replayed with another degree of concurrency, so cases meet in other combinations.
        for jobs in ("1", "24"):
            replayed_process, replayed = run(tmp_path, agent, "replay", env, jobs=jobs)
            assert replayed_process.returncode == 0, replayed_process.stdout
            assert outcomes(replayed) == outcomes(recorded)
            answers = {c["eval_id"]: [i["actual"]["final_response"]["parts"][0]["text"] for i in c["invocations"]]
                       for c in replayed["cases"]}
            assert answers == {c["eval_id"]: [i["actual"]["final_response"]["parts"][0]["text"] for i in c["invocations"]]
                               for c in recorded["cases"]}
        assert fake.call_count == calls
