"""`evalkit import adk-session`: sessions from a real ADK server and from ADK's SQL session store."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import httpx
import pytest

pytest.importorskip("google.adk")

from evalkit.errors import InputError  # noqa: E402
from evalkit.importers.adk_session import SessionFilter, import_adk_sessions  # noqa: E402

from tests.agents.adk_server_fixture import start_adk_server, stop_adk_server  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402

AGENTS = FIXTURES / "adk_agents"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    started = start_adk_server(tmp_path_factory.mktemp("adk_server"), {})
    yield started
    stop_adk_server(started)


def converse(server, user: str, state: dict, turns: list[tuple[str, dict | None]]) -> dict:
    """Talk to table_agent through the server as a user would, and return the session as the server exports it."""
    session = httpx.post(f"{server.url}/apps/table_agent/users/{user}/sessions", json={"state": state}).json()
    for text, state_delta in turns:
        body = {"appName": "table_agent", "userId": user, "sessionId": session["id"],
                "newMessage": {"role": "user", "parts": [{"text": text}]}}
        if state_delta:
            body["stateDelta"] = state_delta
        httpx.post(f"{server.url}/run", json=body, timeout=30).raise_for_status()
    return httpx.get(f"{server.url}/apps/table_agent/users/{user}/sessions/{session['id']}").json()


def load_in_adk(path) -> object:
    from google.adk.evaluation.eval_set import EvalSet

    return EvalSet.model_validate_json(path.read_text())


def test_an_exported_session_becomes_an_eval_set_that_adk_loads_and_that_passes(server, tmp_path):
    exported = converse(server, "ada", {"user_name": "Ada"},
                        [("greet me", {"visited": True}), ("weather in paris", None)])
    file = tmp_path / "ada-session.json"
    file.write_text(json.dumps(exported))
    out = tmp_path / "regression.evalset.json"

    done = invoke_evalkit("import", "adk-session", str(file), "--out", str(out), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    assert f"wrote {out} (1 eval case: {exported['id']})" in done.stdout
    assert "wrote visited; these keys are not in the initial state" in done.stdout
    (case,) = load_in_adk(out).eval_cases
    assert case.session_input.app_name == "table_agent" and case.session_input.user_id == "ada"
    assert case.session_input.state == {"user_name": "Ada"}  # `visited` was written by the first turn
    assert case.final_session_state == {"user_name": "Ada", "visited": True}
    assert [i.final_response.parts[0].text for i in case.conversation] == ["Howdy, Ada!", "It is sunny in Paris."]
    from evalkit.schema.evalset import Invocation
    from evalkit.schema.views import tool_calls

    second = Invocation.model_validate(json.loads(out.read_text())["eval_cases"][0]["conversation"][1])
    assert [(c.name, c.args) for c in tool_calls(second)] == [("get_weather", {"city": "Paris"})]

    for agent in (f"adk-server:{server.url}/table_agent", str(AGENTS / "table_agent")):
        result = tmp_path / "result.json"
        ran = invoke_evalkit("run", str(out), "--agent", agent, "--json", str(result), "--quiet", cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        summary = json.loads(result.read_text())["summary"]
        assert (summary["cases"], summary["passed"]) == (1, 1)


def test_a_list_of_sessions_gives_one_case_each_and_filters_choose(server, tmp_path):
    first = converse(server, "u1", {}, [("two answers", None)])
    second = converse(server, "u2", {}, [("weather in paris", None)])
    file = tmp_path / "sessions.json"
    file.write_text(json.dumps([first, second]))

    everything = import_adk_sessions(str(file), cwd=tmp_path)
    only_u2 = import_adk_sessions(str(file), tmp_path / "u2.evalset.json", SessionFilter(user="u2"))

    assert everything.evalset_path == tmp_path / "sessions.evalset.json"
    assert everything.case_ids == [first["id"], second["id"]]
    assert only_u2.case_ids == [second["id"]]
    assert json.loads(only_u2.evalset_path.read_text())["eval_set_id"] == "u2"
    with pytest.raises(InputError, match="no session matches"):
        import_adk_sessions(str(file), tmp_path / "none.evalset.json", SessionFilter(app="other_app"))


async def _write_database(url: str) -> dict[str, str]:
    from google.adk.runners import Runner
    from google.adk.sessions.database_session_service import DatabaseSessionService
    from google.genai import types

    from tests.fixtures.adk_agents.llm_tool_agent.agent import root_agent as llm_agent
    from tests.fixtures.adk_agents.table_agent.agent import root_agent as table_agent

    service = DatabaseSessionService(db_url=url)
    ids = {}
    for app, agent, user, state, texts in (
        ("table_agent", table_agent, "ada", {"user_name": "Ada", "app:motd": "hi"}, ["greet me", "two answers"]),
        ("llm_tool_agent", llm_agent, "bob", {}, ["weather in Oslo"]),
    ):
        runner = Runner(app_name=app, agent=agent, session_service=service)
        session = await service.create_session(app_name=app, user_id=user, state=state)
        for text in texts:
            message = types.Content(role="user", parts=[types.Part(text=text)])
            async for _ in runner.run_async(user_id=user, session_id=session.id, new_message=message):
                pass
        ids[app] = session.id
    await service.close()
    return ids


def test_adks_sql_session_database_becomes_eval_sets_that_pass(tmp_path, monkeypatch):
    pytest.importorskip("sqlalchemy")
    database = tmp_path / "sessions.db"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EVALKIT_TABLE_AGENT_GREETING", "Howdy")  # what the agent folder's .env says
    ids = asyncio.run(_write_database(f"sqlite+aiosqlite:///{database}"))
    assert "event_data" in {row[1] for row in sqlite3.connect(database).execute("PRAGMA table_info(events)")}

    done = invoke_evalkit("import", "adk-session", f"sqlite+aiosqlite:///{database}", "--app", "table_agent", cwd=tmp_path)
    everything = import_adk_sessions(str(database), tmp_path / "all.evalset.json")

    assert done.returncode == 0, done.stderr
    written = tmp_path / "sessions.evalset.json"
    (case,) = load_in_adk(written).eval_cases
    assert case.eval_id == ids["table_agent"]
    assert case.session_input.state == {"user_name": "Ada", "app:motd": "hi"}
    assert [i.final_response.parts[0].text for i in case.conversation] == ["Howdy, Ada!", "Second answer."]
    assert everything.case_ids == [ids["table_agent"], ids["llm_tool_agent"]]
    assert len(load_in_adk(everything.evalset_path).eval_cases) == 2

    for app, evalset in (("table_agent", written), ("llm_tool_agent", f"{everything.evalset_path}:{ids['llm_tool_agent']}")):
        result = tmp_path / f"{app}.json"
        ran = invoke_evalkit("run", str(evalset), "--agent", str(AGENTS / app), "--json", str(result), "--quiet", cwd=tmp_path)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert json.loads(result.read_text())["summary"]["passed"] == 1


@pytest.mark.parametrize("content, message", [
    (b"SQLite format 3\x00", "cannot"),
    (b'{"id": "s"}', "app_name"),
    (b"[]", "no sessions in the file"),
])
def test_bad_files_are_input_errors(tmp_path, content, message):
    file = tmp_path / "bad.json"
    file.write_bytes(content)
    with pytest.raises(InputError, match=message):
        import_adk_sessions(str(file), cwd=tmp_path)


def test_an_old_schema_database_names_the_migration(tmp_path):
    database = tmp_path / "old.db"
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE sessions (app_name, user_id, id, state, create_time, update_time)")
        connection.execute("CREATE TABLE events (id, app_name, user_id, session_id, invocation_id, author, content)")
    with pytest.raises(InputError, match="adk migrate session"):
        import_adk_sessions(str(database), cwd=tmp_path)
