"""`evalkit merge` of shards run in other folders (other machines) carries their media.

Each shard is run in its own folder, so it keeps its cases' media in its own
`.evalkit/media`; the merge, run from a third folder, copies them into its own media folder
(checked by hash), where the merged run's report finds them. A medium missing or damaged
beside a shard is exit 2 naming the shard's file, and nothing is written.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.in_process import invoke_evalkit
from tests.media.evalsets import file_part, media_case, write_evalset
from tests.media.samples import png_bytes, sha256, wav_bytes

AGENT = f"{ROOT}/tests/fixtures/agents_py/agents.py:echo"
RED, BLUE, SOUND = png_bytes(rgb=(250, 0, 0)), png_bytes(rgb=(0, 0, 250)), wav_bytes()


@pytest.fixture
def shards(tmp_path: Path) -> list[Path]:
    """Two shard result files, each run in its own folder with its own .evalkit/media."""
    evals = tmp_path / "evals"
    evals.mkdir()
    for name, data in (("red.png", RED), ("blue.png", BLUE), ("note.wav", SOUND)):
        (evals / name).write_bytes(data)
    evalset = write_evalset(evals, media_case("red", file_part("red.png", "image/png"), file_part("note.wav", "audio/wav")),
                            media_case("blue", file_part("blue.png", "image/png"), file_part("note.wav", "audio/wav")))
    files = []
    for index in (1, 2):
        folder = tmp_path / f"machine{index}"
        folder.mkdir()
        done = invoke_evalkit("run", str(evalset), "--agent", AGENT, "--shard", f"{index}/2", "--json", "shard.json",
                              "--quiet", cwd=folder)
        assert done.returncode in (0, 1), done.stdout + done.stderr
        files.append(folder / "shard.json")
    assert sorted(len(json.loads(f.read_text())["cases"]) for f in files) == [1, 1]
    (tmp_path / "merged").mkdir()
    return files


def merge(folder: Path, *files: Path):
    return invoke_evalkit("merge", *map(str, files), "--json", "all.json", "--html", "report.html", cwd=folder)


def test_the_merged_run_holds_every_shards_media_and_its_report_shows_them(shards: list[Path], tmp_path: Path):
    merged = tmp_path / "merged"
    done = merge(merged, *shards)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    media = merged / ".evalkit" / "media"
    assert sorted(path.name for path in media.iterdir()) == sorted(sha256(d) for d in (RED, BLUE, SOUND))
    assert [(media / sha256(d)).read_bytes() for d in (RED, BLUE, SOUND)] == [RED, BLUE, SOUND]
    assert all((merged / "all.json").read_text().count(sha256(d)) >= 1 for d in (RED, BLUE, SOUND))
    report = (merged / "report.html").read_text()
    island = json.loads(report.split('<script type="application/json" id="media">', 1)[1].split("</script>", 1)[0])
    assert sorted(island) == sorted(sha256(d) for d in (RED, BLUE, SOUND))
    (media / sha256(RED)).write_bytes(bytes(len(RED)))  # a damaged copy of the same size here
    again = merge(merged, *shards)
    assert again.returncode == done.returncode, again.stderr
    assert [(media / sha256(d)).read_bytes() for d in (RED, BLUE, SOUND)] == [RED, BLUE, SOUND]  # mended


def test_a_shard_whose_media_folder_stayed_behind_is_exit_2_naming_it(shards: list[Path], tmp_path: Path):
    shutil.rmtree(shards[1].parent / ".evalkit" / "media")
    eval_id = json.loads(shards[1].read_text())["cases"][0]["eval_id"]
    done = merge(tmp_path / "merged", *shards)
    assert done.returncode == 2, done.stdout + done.stderr
    [line] = done.stderr.strip().splitlines()  # the shared sound came with the other shard: one medium is missing
    missing = sha256(RED if eval_id == "red" else BLUE)
    assert line.startswith(f"evalkit: {shards[1]}: case media/{eval_id}: refers to the medium {missing} and it is in "
                           f"none of {tmp_path / 'machine2' / '.evalkit' / 'media'}, {tmp_path / 'media'}; ")
    assert line.endswith("copy the .evalkit/media folder of the run that wrote this shard beside its result file "
                         "(in CI, keep it with the result file as an artifact), then merge again")
    assert not (tmp_path / "merged" / "all.json").exists() and not (tmp_path / "merged" / "report.html").exists()


def test_a_damaged_medium_beside_a_shard_is_exit_2_naming_the_file(shards: list[Path], tmp_path: Path):
    blob = shards[0].parent / ".evalkit" / "media" / sha256(SOUND)
    blob.write_bytes(b"RIFF not the recording any more")
    done = merge(tmp_path / "merged", *shards)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"evalkit: {shards[0]}: case media/" in done.stderr
    assert f"{blob} does not hash to its name (the file is damaged)" in done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "merged" / "all.json").exists()


def test_a_report_of_a_result_kept_elsewhere_shows_the_media_beside_it(shards: list[Path], tmp_path: Path):
    # `evalkit report` of a shard's result file, from another folder: the shard's .evalkit/media is beside it.
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = invoke_evalkit("report", str(shards[0]), "--html", "report.html", cwd=elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    report = (elsewhere / "report.html").read_text()
    island = json.loads(report.split('<script type="application/json" id="media">', 1)[1].split("</script>", 1)[0])
    eval_id = json.loads(shards[0].read_text())["cases"][0]["eval_id"]
    assert sorted(island) == sorted(sha256(d) for d in ((RED if eval_id == "red" else BLUE), SOUND))
    assert not (elsewhere / ".evalkit" / "media").exists()  # read where they are, copied nowhere
