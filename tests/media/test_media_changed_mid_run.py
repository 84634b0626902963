"""A media file that passed the check before the run, then changed or went before its case ran.

That case is an `error` naming the eval set, the case, the part and the file, and saying
what to do; the other cases run, the result file holds them all, and the run exits 3 (an
input that failed at run time, like an agent's failure) rather than stopping with exit 2.
The agent itself changes the file: its first case deletes or rewrites the photo a later case
shows (`--jobs 1` keeps the order).
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_evalkit
from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, media_case, write_evalset
from tests.media.samples import png_bytes, wav_bytes

AGENT = '''
from pathlib import Path

def agent(turn):
    if "change the photo" in turn.user_text:
        photo = Path({photo!r})
        {change}
    return "you said: " + turn.user_text
'''
CHANGES = {"deleted": "photo.unlink()", "rewritten": f"photo.write_bytes({wav_bytes()!r})"}


def changing_run(folder: Path, change: str) -> tuple[Path, Path]:
    """An eval set whose first case's agent turn deletes or rewrites `photo.png`, shown by the second case."""
    (folder / "photo.png").write_bytes(png_bytes())
    (folder / "other.png").write_bytes(png_bytes(rgb=(1, 2, 3)))
    (folder / "agent.py").write_text(AGENT.format(photo=str(folder / "photo.png"), change=CHANGES[change]))
    cases = [media_case(name, *parts, text=text, answer=f"you said: {text}") for name, text, parts in (
        ("first", "change the photo", [file_part("other.png", "image/png")]),
        ("second", "what is in the photo?", [file_part("photo.png", "image/png")]),
        ("third", "what is in the other one?", [file_part("other.png", "image/png")]))]
    return write_evalset(folder, *cases), folder / "agent.py"


def statuses(result_file: Path) -> dict[str, tuple[str, str | None]]:
    result = json.loads(result_file.read_text())
    assert result["summary"]["cases"] == 3 and not result.get("interrupted")
    return {case["eval_id"]: (case["status"], case.get("error")) for case in result["cases"]}


def test_a_media_file_deleted_mid_run_is_that_cases_error_and_the_run_exits_3(tmp_path: Path):
    evalset, agent = changing_run(tmp_path, "deleted")
    done = run_evalkit("run", str(evalset), "--agent", f"{agent}:agent", "--jobs", "1", "--json", "result.json",
                       cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    found = statuses(tmp_path / "result.json")
    assert (found["first"], found["third"]) == (("passed", None), ("passed", None))
    status, error = found["second"]
    assert status == "error"
    assert error.startswith(f"{evalset}: eval case 'second', turn 1, user_content.parts[1]: "
                            f"file_data.file_uri 'photo.png': no such file ({tmp_path / 'photo.png'}); ")
    assert error.endswith("; it changed after evalkit checked it before the run: leave media files as they are "
                          "while a run uses them, then run this case again")
    assert "Traceback" not in done.stdout + done.stderr
    assert "eval case 'second'" in done.stdout + done.stderr  # the console names it too


def test_a_media_file_rewritten_with_another_type_mid_run_is_that_cases_error(tmp_path: Path):
    evalset, agent = changing_run(tmp_path, "rewritten")
    done = invoke_evalkit("run", str(evalset), "--agent", f"{agent}:agent", "--jobs", "1",
                          "--json", str(tmp_path / "result.json"), cwd=tmp_path)
    assert done.returncode == 3, done.stdout + done.stderr
    found = statuses(tmp_path / "result.json")
    assert (found["first"][0], found["second"][0], found["third"][0]) == ("passed", "error", "passed")
    assert found["second"][1].startswith(
        f"{evalset}: eval case 'second', turn 1, user_content.parts[1]: file_data.file_uri 'photo.png' is declared "
        "image/png but its first bytes are a WAV recording (audio/wav); correct its mime_type or the file; "
        "it changed after evalkit checked it before the run: ")


def test_a_media_file_rewritten_with_its_own_type_is_read_as_it_is_now(tmp_path: Path):
    evalset, agent = changing_run(tmp_path, "deleted")
    agent.write_text(AGENT.format(photo=str(tmp_path / "photo.png"),
                                  change=f"photo.write_bytes({png_bytes(rgb=(9, 9, 9), width=3)!r})"))
    done = invoke_evalkit("run", str(evalset), "--agent", f"{agent}:agent", "--jobs", "1",
                          "--json", str(tmp_path / "result.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    second = json.loads((tmp_path / "result.json").read_text())["cases"][1]
    assert second["invocations"][0]["actual"]["user_content"]["parts"][1]["inline_data"]["size"] == \
        len(png_bytes(rgb=(9, 9, 9), width=3))
