"""`a2a:URL` against an agent written with the a2a-sdk's own server classes (real processes on
127.0.0.1): both interfaces, streaming or not, A2A 1.0 and 0.3, and every way a turn can fail."""

from __future__ import annotations

import json
import sys

import pytest

pytest.importorskip("a2a.client")

from evalkit.api import run_evals  # noqa: E402

from tests.agents.a2a_fixture import start_many_scripted  # noqa: E402
from tests.agents.adk_server_fixture import free_port  # noqa: E402
from tests.agents.test_adk_server import tool_calls_and_answers, turn, write_set  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402

# Each interface streaming and not, and the 0.3 protocol (its card at the old path) on each.
SERVERS = {
    "jsonrpc-stream-1.0": (),
    "jsonrpc-send-0.3-old-card": ("--no-streaming", "--version", "0.3", "--old-card"),
    "rest-stream-0.3-old-card": ("--binding", "HTTP+JSON", "--version", "0.3", "--old-card"),
    "rest-send-1.0": ("--binding", "HTTP+JSON", "--no-streaming"),
}

CASES = [
    {"eval_id": "weather", "conversation": [turn("weather in oslo", "It is sunny in Oslo.",
                                                 [{"name": "get_weather", "args": {"city": "Oslo"}}])]},
    {"eval_id": "booking", "conversation": [turn("book a table", "For how many people?"),
                                            turn("4", "Booked a table for 4.")]},
    {"eval_id": "who", "session_input": {"app_name": "bookings", "user_id": "ada", "state": {"table": "window"}},
     "conversation": [turn("whoami"), turn("whoami")]},
    {"eval_id": "count", "conversation": [turn("count", "1, 2, 3", [{"name": "count_to", "args": {"n": 3, "step": 0.5}}])]},
]


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    started = start_many_scripted({name: (tmp_path_factory.mktemp(name), options) for name, options in SERVERS.items()})
    yield started
    for server in started.values():
        server.stop()


@pytest.fixture(scope="module")
def default_server(servers):
    return servers["jsonrpc-stream-1.0"]


def answers(result) -> dict[str, list]:
    return {case.eval_id: [(i.actual.get("final_response") or {}).get("parts", [{}])[0].get("text")
                           for i in case.invocations] for case in result.cases}


@pytest.mark.parametrize("name", sorted(SERVERS))
def test_every_interface_protocol_version_and_mode_gives_the_same_turns(servers, name, tmp_path):
    evalset = write_set(tmp_path, "scripted", CASES)

    result = run_evals(evalset, agent=servers[name].spec, jobs=4)

    statuses = {case.eval_id: case.status for case in result.cases}
    assert statuses == {"weather": "passed", "booking": "passed", "who": "failed", "count": "passed"}, answers(result)
    trajectories = tool_calls_and_answers(result)
    (calls, responses, authors, final), = trajectories["weather"]
    assert calls == [("get_weather", {"city": "Oslo"})] and responses == [{"condition": "sunny"}]
    assert authors == ["scripted_weather"] * 4  # "Checking the weather.", call, response, the answer's event
    assert final == {"role": "model", "parts": [{"text": "It is sunny in Oslo."}]}  # the artifact
    events = result.cases[0].invocations[0].actual["intermediate_data"]["invocation_events"]
    assert events[0]["content"]["parts"] == [{"text": "Checking the weather."}]  # intermediate text kept
    count_call = trajectories["count"][0][0]
    assert count_call == [("count_to", {"n": 3, "step": 0.5})] and isinstance(count_call[0][1]["n"], int)


@pytest.mark.parametrize("name", ["jsonrpc-stream-1.0", "rest-stream-0.3-old-card"])
def test_media_arrive_as_file_parts_with_their_bytes_type_and_name(servers, name, tmp_path):
    from tests.media.evalsets import file_part, inline_part, media_case, write_evalset
    from tests.media.samples import png_bytes, sha256, wav_bytes

    (tmp_path / "receipt.png").write_bytes(png_bytes(padding=20_000))
    evalset = write_evalset(tmp_path, media_case("media", file_part("receipt.png", "image/png"),
                                                 inline_part(wav_bytes(), "audio/wav"), text="media"))

    result = run_evals(str(evalset), agent=servers[name].spec)

    [seen] = answers(result)["media"]
    assert seen.splitlines() == [f"receipt.png image/png {sha256(png_bytes(padding=20_000))}",
                                 f"part-2 audio/wav {sha256(wav_bytes())}"]


def test_the_turns_of_a_case_share_one_context_and_the_first_carries_session_input(default_server, tmp_path):
    evalset = write_set(tmp_path, "who", CASES[2:3])

    result = run_evals(evalset, agent=default_server.spec)

    (case,) = result.cases
    first, second = answers(result)["who"]
    context = first.split(";")[0].removeprefix("context ")
    assert context == case.session_id and second.startswith(f"context {context};")
    given = json.loads(first.split("session_input ", 1)[1])
    assert given == {"app_name": "bookings", "user_id": "ada", "state": {"table": "window"}}
    assert second.endswith("session_input null")  # only the first turn carries it


def test_an_input_required_task_is_continued_by_the_next_turn(default_server, tmp_path):
    evalset = write_set(tmp_path, "booking", CASES[1:2])

    result = run_evals(evalset, agent=default_server.spec)

    assert answers(result)["booking"] == ["For how many people?", "Booked a table for 4."]


FAILURES = {
    "failed": ("fail", "the A2A agent's task ended failed: the weather service is down"),
    "rejected": ("reject", "the A2A agent's task ended rejected: I only talk about the weather."),
    "canceled": ("cancel", "the A2A agent's task ended canceled: Cancelled by the operator."),
    "auth": ("sign in", "the A2A agent's task ended auth-required: Sign in to your calendar first."),
    "rpc_error": ("broken rpc", "the A2A agent answered with an error: InvalidParamsError: the city parameter is malformed"),
}


def test_each_failure_is_the_cases_error_with_the_agents_message_and_exit_3(default_server, tmp_path):
    cases = [{**CASES[0], "eval_id": "fine"}]
    cases += [{"eval_id": name, "conversation": [turn(text)]} for name, (text, _) in FAILURES.items()]
    evalset = write_set(tmp_path, "failures", cases)

    done = invoke_evalkit("run", str(evalset), "--agent", default_server.spec, "--json", str(tmp_path / "r.json"),
                          cwd=tmp_path)

    assert done.returncode == 3, done.stderr
    result = json.loads((tmp_path / "r.json").read_text())
    errors = {case["eval_id"]: case["error"] for case in result["cases"]}
    assert errors.pop("fine") is None
    assert errors == {name: f"case {name!r}, turn 1: {message}" for name, (_, message) in FAILURES.items()}
    assert result["summary"]["errors"] == len(FAILURES) and result["summary"]["passed"] == 1


def test_a_task_left_working_is_followed_until_the_timeout_which_names_its_last_state(servers, default_server,
                                                                                     tmp_path):
    """Polled with tasks/get (a card that does not stream), resubscribed (one that does)."""
    evalset = write_set(tmp_path, "early", [{"eval_id": "early", "conversation": [turn("stop early")]}])

    for spec in (servers["rest-send-1.0"].spec, default_server.spec):
        result = run_evals(evalset, agent=spec, timeout=2.0)

        assert result.cases[0].error == ("case 'early', turn 1: no reply within 2 s (per-turn timeout); the task "
                                         "had not reached a final state (its last state: working)"), spec


def test_timeout_bounds_each_turn(default_server, tmp_path):
    evalset = write_set(tmp_path, "slow", [{"eval_id": "slow", "conversation": [turn("sleep")]},
                                           {"eval_id": "quick", "conversation": [turn("weather in oslo")]}])

    result = run_evals(evalset, agent=default_server.spec, timeout=1.0)

    errors = {case.eval_id: case.error for case in result.cases}
    assert errors == {"slow": "case 'slow', turn 1: no reply within 1 s (per-turn timeout); the task had not "
                              "reached a final state (its last state: working)", "quick": None}


# --- before the run: exit 2 -----------------------------------------------------------------


def test_an_unreachable_agent_is_exit_2_before_any_case_runs(tmp_path):
    evalset = write_set(tmp_path, "down", CASES[:1])
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there

    done = invoke_evalkit("run", str(evalset), "--agent", f"a2a:{url}", "--json", str(tmp_path / "r.json"), cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"evalkit: --agent a2a:{url}: cannot reach the A2A agent at "
                                  f"{url}/.well-known/agent-card.json (ConnectError: ")
    assert "start its server first, or fix the URL" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_a_url_without_a_card_or_with_an_unreadable_one_is_exit_2(default_server, tmp_path):
    evalset = write_set(tmp_path, "nocard", CASES[:1])
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "broken.json").write_text('{"name": 5, "skills": []}')
    (tmp_path / "cards" / "empty.json").write_text('{"name": "no interfaces"}')
    (tmp_path / "cards" / "html.json").write_text("<html>not a card</html>")
    import subprocess
    import sys
    import time

    import httpx

    port = free_port()
    files = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                             cwd=tmp_path / "cards", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                httpx.get(f"http://127.0.0.1:{port}/broken.json", timeout=1.0)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        outcomes = {}
        for name, spec in {"no card": f"{default_server.url}/rpc", "broken": f"http://127.0.0.1:{port}/broken.json",
                           "html": f"http://127.0.0.1:{port}/html.json",
                           "empty": f"http://127.0.0.1:{port}/empty.json"}.items():
            done = invoke_evalkit("run", str(evalset), "--agent", f"a2a:{spec}", cwd=tmp_path)
            outcomes[name] = (done.returncode, done.stderr.strip())
    finally:
        files.terminate()
        files.wait()

    assert {code for code, _ in outcomes.values()} == {2}, outcomes
    assert outcomes["no card"][1] == (
        f"evalkit: --agent a2a:{default_server.url}/rpc: no agent card at {default_server.url}/rpc/.well-known/"
        f"agent-card.json or {default_server.url}/rpc/.well-known/agent.json (HTTP 404); give the agent's base URL "
        "or its card's URL")
    assert f"http://127.0.0.1:{port}/broken.json holds no readable agent card" in outcomes["broken"][1]
    assert f"http://127.0.0.1:{port}/html.json holds no readable agent card" in outcomes["html"][1]
    assert outcomes["empty"][1].endswith(f"the card at http://127.0.0.1:{port}/empty.json offers no interface; "
                                         "evalkit speaks JSONRPC and HTTP+JSON: serve the agent over one of them")
    assert all(len(message.splitlines()) == 1 for _, message in outcomes.values()), outcomes


def test_the_config_file_may_name_the_a2a_agent(default_server, tmp_path):
    evalset = write_set(tmp_path, "configured", CASES[:1])
    (tmp_path / "test_config.json").write_text(json.dumps({"agent": default_server.spec,
                                                           "criteria": {"tool_trajectory_avg_score": 1.0}}))

    done = invoke_evalkit("run", str(evalset), cwd=tmp_path)

    assert done.returncode == 0, done.stderr


def test_cassettes_are_refused_for_an_a2a_agent_with_the_proxy_recipe(default_server, tmp_path):
    evalset = write_set(tmp_path, "tapes", CASES[:1])
    (tmp_path / "tapes").mkdir()

    done = invoke_evalkit("run", str(evalset), "--agent", default_server.spec, "--cassettes", str(tmp_path / "tapes"),
                          cwd=tmp_path)

    assert done.returncode == 2, done.stderr
    assert "runs in a server evalkit does not start" in done.stderr
    assert f"evalkit proxy --cassettes {tmp_path / 'tapes'}" in done.stderr


def test_without_the_sdk_the_run_stops_with_the_install_hint(monkeypatch, tmp_path):
    for name in ("a2a", "a2a.client"):
        monkeypatch.setitem(sys.modules, name, None)  # as if a2a-sdk were not installed
    evalset = write_set(tmp_path, "nosdk", CASES[:1])

    done = invoke_evalkit("run", str(evalset), "--agent", "a2a:http://127.0.0.1:9", cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.strip() == ("evalkit: Running an A2A agent needs the optional package 'a2a-sdk': "
                                   'pip install "a2a-sdk>=1.0,<2" (or, in evalkit\'s checkout, pip install -e ".[a2a]")')
