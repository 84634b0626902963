"""Eval set names and the `file.json:id,id` selector: one parser, used by run, validate, pre-commit and pytest."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.engine.sharding import Shard
from evalkit.loading.evalset_paths import default_id, evalset_files, is_evalset_name, named_forms, split_selector


def test_a_selector_names_a_file_and_its_ids():
    never = lambda name: False  # noqa: E731
    assert split_selector("a.json:x, y,,z", never) == ("a.json", ["x", "y", "z"])
    assert split_selector("a.json:x:ignored", never) == ("a.json", ["x"])  # as ADK: past a second ':' is dropped
    assert split_selector("a.json", never) == ("a.json", [])
    assert split_selector("odd:name.json", lambda name: name == "odd:name.json") == ("odd:name.json", [])


def test_every_eval_set_suffix_is_found_in_a_folder_and_named_in_messages(tmp_path):
    for name in ("a.evalset.json", "b.evalset.yaml", "c.evalset.yml", "d.test.json", "notes.json"):
        (tmp_path / name).write_text("{}")
    (tmp_path / ".evalkit").mkdir()
    (tmp_path / ".evalkit" / "old.evalset.json").write_text("{}")
    assert [p.name for p in evalset_files(tmp_path)] == ["a.evalset.json", "b.evalset.yaml", "c.evalset.yml",
                                                         "d.test.json"]
    assert "*.evalset.yml" in named_forms() and is_evalset_name(Path("x/c.evalset.yml"))
    assert not is_evalset_name(Path("notes.json"))
    assert default_id(Path("trips.evalset.yml")) == "trips" and default_id(Path("plain.yaml")) == "plain"


@pytest.mark.parametrize(("text", "reason"), [("0/3", "K must be between"), ("a/b", "expected K/N"), ("", "expected K/N")])
def test_the_shard_notation_has_one_parser(text, reason):
    assert Shard.parse(" 2 / 3 ") == Shard(2, 3) and str(Shard(2, 3)) == "2/3"
    with pytest.raises(ValueError, match=reason):
        Shard.parse(text)
