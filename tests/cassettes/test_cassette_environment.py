"""What `run --cassettes` does to the environment: the agent's variables name the proxy, judges keep theirs."""

from __future__ import annotations

import os

from evalkit.cassettes.session import REPLAY_PLACEHOLDER_KEY, CassetteRun
from evalkit.judge.gemini_backend import gemini_base_url
from evalkit.judge.openai_backend import openai_base_url
from evalkit.testing.fake_gemini import FOREIGN_ENVIRONMENT


def test_agent_variables_name_the_proxy_while_judges_keep_their_servers_and_all_is_restored(monkeypatch, tmp_path):
    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", "http://gemini.example:1")
    cassettes = CassetteRun(tmp_path, "replay").start()
    try:
        url = cassettes.proxy.url
        assert os.environ["GOOGLE_GEMINI_BASE_URL"] == url
        assert os.environ["OPENAI_BASE_URL"] == url + "/v1"
        assert gemini_base_url() == "http://gemini.example:1"
        assert openai_base_url() == "https://api.openai.com/v1"
        assert os.environ["GOOGLE_API_KEY"] == os.environ["OPENAI_API_KEY"] == REPLAY_PLACEHOLDER_KEY
        assert cassettes.upstreams.gemini == "http://gemini.example:1"
    finally:
        cassettes.stop()
    assert os.environ["GOOGLE_GEMINI_BASE_URL"] == "http://gemini.example:1"
    for name in ("OPENAI_BASE_URL", "GOOGLE_VERTEX_BASE_URL", "GOOGLE_API_KEY", "OPENAI_API_KEY",
                 "EVALKIT_JUDGE_GEMINI_BASE_URL", "EVALKIT_JUDGE_OPENAI_BASE_URL"):
        assert name not in os.environ


def test_recording_keeps_the_real_key_and_sets_no_placeholder(monkeypatch, tmp_path):
    for name in (*FOREIGN_ENVIRONMENT, "GOOGLE_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    cassettes = CassetteRun(tmp_path, "record").start()
    try:
        assert "GOOGLE_API_KEY" not in os.environ and "OPENAI_API_KEY" not in os.environ
        assert cassettes.upstreams.gemini == "https://generativelanguage.googleapis.com"
    finally:
        cassettes.stop()
