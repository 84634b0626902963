"""`--header 'Name: value'`: sent with every request to http(s)://, adk-server: and a2a: agents,
and written to no file a run makes (result, JUnit, Markdown, HTML, history)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evalkit.agents.registry import load_agent
from evalkit.settings import RunSettings
from tests.agents.test_adk_server import turn, write_set
from tests.agents.test_http_agent import WEATHER_SET, server  # noqa: F401 (its weather server, as a fixture)
from tests.in_process import invoke_evalkit

SECRET = "s3cret-7f41c0de-token"
REPORTS = ("--json", "result.json", "--junit", "junit.xml", "--markdown", "summary.md", "--html", "report.html")


def files_holding(folder: Path, text: str) -> list[str]:
    """Every file under `folder` whose bytes hold `text`."""
    return [str(path) for path in folder.rglob("*") if path.is_file() and text.encode() in path.read_bytes()]


def reports_written(folder: Path) -> None:
    """The run wrote every report and its history entry, so "no file holds the secret" means something."""
    for name in REPORTS[1::2]:
        assert (folder / name).stat().st_size > 0, name
    assert list((folder / ".evalkit" / "test-runs").glob("*.json")), "no history entry"


def test_an_http_agent_gets_the_headers_on_every_request_and_no_file_holds_them(server, tmp_path):
    done = invoke_evalkit("run", WEATHER_SET, "--agent", server.url, "--header", f"Authorization: Bearer {SECRET}",
                          "--header", "X-Team: evals", *REPORTS, cwd=tmp_path)

    assert done.returncode == 3, done.stderr  # the weather set has one failing and one crashing case by design
    assert server.headers_seen
    assert {(h.get("Authorization"), h.get("X-Team")) for h in server.headers_seen} == {
        (f"Bearer {SECRET}", "evals")}
    reports_written(tmp_path)
    assert files_holding(tmp_path, SECRET) == []
    assert SECRET not in done.stdout + done.stderr


def send_json(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class AppsHandler(BaseHTTPRequestHandler):
    """Just enough of ADK's API server for the probe evalkit makes before a run: `/list-apps`."""

    seen: list[dict[str, str]] = []

    def do_GET(self) -> None:
        AppsHandler.seen.append(dict(self.headers))
        send_json(self, 200 if self.path == "/list-apps" else 404, b'["my_app"]' if self.path == "/list-apps" else b"{}")

    def log_message(self, *args) -> None:
        pass


def test_an_adk_server_agent_sends_the_headers_from_its_first_request():
    server = ThreadingHTTPServer(("127.0.0.1", 0), AppsHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings = RunSettings.of(headers=[f"X-Api-Key: {SECRET}"])
        agent = load_agent(f"adk-server:http://127.0.0.1:{server.server_address[1]}/my_app", settings)
    finally:
        server.shutdown()
        server.server_close()

    assert [h.get("X-Api-Key") for h in AppsHandler.seen] == [SECRET, SECRET]  # /list-apps, then app-info
    assert SECRET not in repr(agent.__dict__.get("server")) and SECRET not in agent.description


def test_a_malformed_header_is_exit_2_without_echoing_its_value(tmp_path):
    done = invoke_evalkit("run", WEATHER_SET, "--agent", "http://127.0.0.1:9/agent", "--header", f"Bearer {SECRET}",
                          cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.strip() == ("evalkit: --header …: 'Bearer'… has no colon; write --header 'Name: value', "
                                   "such as --header 'Authorization: Bearer TOKEN'")


def test_settings_never_serialize_or_show_the_headers():
    settings = RunSettings.of(headers={"Authorization": f"Bearer {SECRET}"})

    assert settings.headers == (("Authorization", f"Bearer {SECRET}"),)
    assert SECRET not in settings.model_dump_json() and SECRET not in repr(settings)
    assert SECRET not in str(settings.model_dump())


# --- a2a: ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    pytest.importorskip("a2a.client")
    from tests.agents.a2a_fixture import start_scripted

    folder = tmp_path_factory.mktemp("guarded")
    server = start_scripted(folder, "--require-header", f"X-Api-Key: {SECRET}", "--log", str(folder / "requests.jsonl"))
    yield server, folder / "requests.jsonl"
    server.stop()


WEATHER_CASES = [{"eval_id": f"weather_{city}", "conversation": [
    turn(f"weather in {city}", f"It is sunny in {city.title()}.", [{"name": "get_weather", "args": {"city": city.title()}}])]}
    for city in ("oslo", "lima", "paris", "rome")]


def test_an_a2a_agent_gets_the_headers_on_every_request_and_no_file_holds_them(guarded, tmp_path):
    server, requests = guarded
    evalset = write_set(tmp_path, "guarded", WEATHER_CASES)

    done = invoke_evalkit("run", str(evalset), "--agent", server.spec, "--header", f"X-Api-Key: {SECRET}", *REPORTS,
                          cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    seen = [json.loads(line) for line in requests.read_text().splitlines()]
    assert {(r["method"], r["path"]) for r in seen} >= {("GET", "/.well-known/agent-card.json"), ("POST", "/rpc")}
    assert {r["headers"].get("x-api-key") for r in seen} == {SECRET}
    reports_written(tmp_path)
    assert files_holding(tmp_path, SECRET) == []
    assert SECRET not in done.stdout + done.stderr


def test_without_the_header_the_card_is_refused_and_the_run_stops_with_exit_2(guarded, tmp_path):
    server, _ = guarded
    evalset = write_set(tmp_path, "refused", WEATHER_CASES[:1])

    done = invoke_evalkit("run", str(evalset), "--agent", server.spec, cwd=tmp_path)

    assert done.returncode == 2
    assert done.stderr.startswith(f"evalkit: --agent {server.spec}: {server.url}/.well-known/agent-card.json answered "
                                  "HTTP 401")
    assert done.stderr.rstrip().endswith("give the credentials it wants with --header 'Name: value'")


def test_worker_processes_get_the_headers_without_a_file(guarded, tmp_path):
    server, requests = guarded
    evalset = write_set(tmp_path, "spread", WEATHER_CASES)

    done = invoke_evalkit("run", str(evalset), "--agent", server.spec, "--header", f"X-Api-Key: {SECRET}",
                          "--processes", "2", "--json", str(tmp_path / "result.json"), cwd=tmp_path)

    assert done.returncode == 0, done.stderr  # a worker without the header would have been refused (401)
    assert json.loads((tmp_path / "result.json").read_text())["summary"]["passed"] == len(WEATHER_CASES)
    assert files_holding(tmp_path, SECRET) == []


class EchoingHandler(BaseHTTPRequestHandler):
    """An HTTP agent that repeats its token in its answer, as a careless debug line would."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        token = self.headers.get("X-Api-Token", "")
        send_json(self, 200, json.dumps({"final_response": f"I was called with token {token}."}).encode())

    def log_message(self, *args) -> None:
        pass


def test_a_header_value_the_agent_repeats_is_masked_in_every_file(tmp_path):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), EchoingHandler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        evalset = write_set(tmp_path, "echo", [{"eval_id": "hello", "conversation": [turn("hi", "Hello.")]}])
        done = invoke_evalkit("run", str(evalset), "--agent", f"http://127.0.0.1:{httpd.server_port}/",
                              "--header", f"X-Api-Token: {SECRET}", *REPORTS, cwd=tmp_path)
    finally:
        httpd.shutdown()
        httpd.server_close()

    assert done.returncode == 1, done.stderr  # the answer does not match: a verdict, with the reply in every report
    reports_written(tmp_path)
    assert "I was called with token [redacted]." in (tmp_path / "result.json").read_text()
    assert files_holding(tmp_path, SECRET) == []
    assert SECRET not in done.stdout + done.stderr


def test_headers_go_to_another_origin_only_when_the_user_names_it(guarded, tmp_path):
    """The agent is reached as `localhost`; its card names its interface at `127.0.0.1`, another origin."""
    server, requests = guarded
    port = server.url.rsplit(":", 1)[1]
    evalset = write_set(tmp_path, "elsewhere", WEATHER_CASES[:1])
    agent = f"a2a:http://localhost:{port}"
    requests.write_text("")

    kept = invoke_evalkit("run", str(evalset), "--agent", agent, "--header", f"X-Api-Key: {SECRET}", cwd=tmp_path)
    withheld = [json.loads(line) for line in requests.read_text().splitlines()]
    requests.write_text("")
    named = invoke_evalkit("run", str(evalset), "--agent", agent, "--header", f"X-Api-Key: {SECRET}",
                           "--header-origin", f"http://127.0.0.1:{port}", cwd=tmp_path)
    sent = [json.loads(line) for line in requests.read_text().splitlines()]

    assert kept.returncode == 3, kept.stderr  # the interface refused the turn that came without the header
    assert [r["headers"].get("x-api-key") for r in withheld if r["path"] == "/rpc"] == [None]
    assert {r["headers"].get("x-api-key") for r in withheld if r["path"] != "/rpc"} == {SECRET}  # the card
    assert named.returncode == 0, named.stderr
    assert {r["headers"].get("x-api-key") for r in sent} == {SECRET} and any(r["path"] == "/rpc" for r in sent)


@pytest.mark.parametrize(("arguments", "said"), [
    (["--header-origin", "http://127.0.0.1:9"], "only means something with --header 'NAME: VALUE'; add --header"),
    (["--header", "X-Api-Key: k", "--header-origin", "ftp://host"], "'ftp://host' is not an http(s) origin"),
])
def test_a_header_origin_that_cannot_work_is_exit_2(tmp_path, arguments, said):
    done = invoke_evalkit("run", WEATHER_SET, "--agent", "a2a:http://127.0.0.1:9", *arguments, cwd=tmp_path)

    assert done.returncode == 2 and said in done.stderr, done.stderr
