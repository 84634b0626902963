"""Two processes writing the labels file at once lose nothing: each label is read, merged and
written under a lock. Real processes, each saving its own labels as fast as it can."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evalkit.calibration.labels import load_labels
from tests.conftest import ROOT

WRITER = """
import sys
from pathlib import Path
from evalkit.calibration.labels import Label, save_label
path, who = Path(sys.argv[1]), sys.argv[2]
for i in range(60):
    save_label(path, Label(eval_set_id="s", eval_id=f"{who}{i}", criterion="c", verdict="pass"))
"""


def _two_writers(path: Path) -> None:
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), who], cwd=ROOT, stderr=subprocess.PIPE,
                                text=True) for who in ("a", "b")]
    for writer in writers:
        _, stderr = writer.communicate(timeout=240)
        assert writer.returncode == 0, stderr


def test_two_writers_of_a_yaml_labels_file_keep_every_label(tmp_path):
    path = tmp_path / "labels.yaml"
    _two_writers(path)
    assert sorted(label.eval_id for label in load_labels(path)) == sorted(f"{w}{i}" for w in "ab" for i in range(60))


def test_two_writers_of_a_json_labels_file_keep_every_label(tmp_path):
    path = tmp_path / "labels.json"
    _two_writers(path)
    assert len(load_labels(path)) == 120
    assert [entry.name for entry in tmp_path.iterdir()] == ["labels.json"]  # no lock file left beside it
