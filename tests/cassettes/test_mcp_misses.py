"""How a replay miss of `evalkit mcp` reaches the run (evalkit.cassettes.mcp_misses), and the
stand-in's lock files, kept in the user's own folder and never through a link."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

from evalkit.cassettes.mcp_cassette import McpCassette
from evalkit.cassettes.mcp_misses import MissWatch, ancestors, meeting_folder
from evalkit.errors import UsageError


def test_a_miss_goes_to_the_turn_of_the_nearest_ancestor_else_to_the_turns_of_unknown_process():
    watch = MissWatch()
    with watch.turn("worker 111", 111) as first, watch.turn("in process", None) as local, \
            watch.turn("worker 222", 222) as second:
        watch.take({"ancestors": [999, 222, 111, 1], "message": "from under 222"})
        watch.take({"ancestors": [998, 1], "message": "from no worker"})
    assert (first.misses, second.misses, local.misses) == ([], ["from under 222"], ["from no worker"])
    watch.take({"ancestors": [997], "message": "while nothing ran"})
    assert watch.unclaimed == ["while nothing ran"]


def test_a_stand_in_started_without_the_runs_environment_finds_it_through_its_ancestors():
    watch = MissWatch().start()
    try:
        with watch.turn("case 'x', turn 1", None) as in_flight:
            told = subprocess.run(
                [sys.executable, "-c", "from evalkit.cassettes.mcp_misses import tell_the_run; "
                                       "print(tell_the_run('no recorded tools/call matches f({})'))"],
                env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": os.pathsep.join(sys.path)},
                capture_output=True, text=True, timeout=60)
        assert told.stdout.strip() == "True", told.stderr
        assert in_flight.misses == ["no recorded tools/call matches f({})"]
    finally:
        watch.stop()
    assert ancestors()[0] == os.getpid() and ancestors()[1] == os.getppid()


def test_the_lock_file_never_follows_a_link_planted_at_its_name(tmp_path):
    folder = meeting_folder(create=True)
    if folder is None:
        pytest.skip("no private folder for locks on this system (no Unix sockets or user ids)")
    assert folder.stat().st_mode & 0o077 == 0
    cassette_path = tmp_path / "mcp" / "server.mcp.json"
    digest = hashlib.sha256(str(cassette_path.resolve()).encode("utf-8")).hexdigest()[:16]
    victim = tmp_path / "precious.txt"
    victim.write_text("keep me")
    planted = folder / f"evalkit-mcp-{digest}-write.lock"
    planted.unlink(missing_ok=True)
    planted.symlink_to(victim)
    try:
        cassette = McpCassette.at(cassette_path, "server")
        with pytest.raises(UsageError, match="cannot open its lock file"):
            cassette.save([{"tool": "f", "args": {}, "response": {"content": []}}])
    finally:
        planted.unlink()
    assert victim.read_text() == "keep me"
    assert not cassette_path.exists() or json.loads(cassette_path.read_text())
