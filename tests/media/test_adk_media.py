"""ADK agents receive media as genai parts holding the bytes: in this process through ADK's Runner,
and an `adk api_server` process through its JSON (`inlineData`, base64)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("google.adk")

from tests.agents.adk_server_fixture import start_adk_server, stop_adk_server  # noqa: E402
from tests.conftest import FIXTURES  # noqa: E402
from tests.in_process import invoke_evalkit  # noqa: E402
from tests.media.evalsets import file_part, inline_part, media_case, write_evalset  # noqa: E402
from tests.media.samples import png_bytes, sha256, wav_bytes  # noqa: E402

EXPECTED = [f"image/png {sha256(png_bytes(padding=30_000))} bytes", f"audio/wav {sha256(wav_bytes())} bytes"]


def media_evalset(folder: Path) -> Path:
    (folder / "receipt.png").write_bytes(png_bytes(padding=30_000))
    return write_evalset(folder, media_case("both", file_part("receipt.png", "image/png"),
                                            inline_part(wav_bytes(), "audio/wav")))


def answered(result_file: Path) -> list[str]:
    case, = json.loads(result_file.read_text())["cases"]
    assert case["status"] != "error", case
    return case["invocations"][0]["actual"]["final_response"]["parts"][0]["text"].splitlines()


def test_an_adk_agent_in_this_process_gets_inline_data_bytes_and_no_file_data(tmp_path: Path) -> None:
    evalset = media_evalset(tmp_path)
    out = tmp_path / "out.json"
    done = invoke_evalkit("run", str(evalset), "--agent", str(FIXTURES / "adk_agents" / "media_agent"),
                          "--json", str(out), cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    assert answered(out) == EXPECTED


def test_an_adk_api_server_gets_inline_data_with_the_same_bytes(tmp_path: Path) -> None:
    server = start_adk_server(tmp_path / "server", {}, agents=("media_agent",))
    try:
        evalset = media_evalset(tmp_path)
        out = tmp_path / "out.json"
        done = invoke_evalkit("run", str(evalset), "--agent", server.spec("media_agent"), "--json", str(out),
                              cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr
        assert answered(out) == EXPECTED
    finally:
        stop_adk_server(server)
