"""The labels file: people's verdicts on judged cases, one per case and criterion.

`{"labels": [{"eval_set_id", "eval_id", "criterion", "verdict": "pass"|"fail", "note"?}]}`
in JSON or YAML (by the file's suffix). It lives in the repository beside the eval sets;
`evalkit label` and the viewer write it, `evalkit calibrate` reads it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from evalkit.errors import InputError, Problem

Verdict = Literal["pass", "fail"]
LabelKey = tuple[str, str, str]  # (eval_set_id, eval_id, criterion)


class Label(BaseModel):
    """One person's verdict on one criterion of one case."""

    model_config = ConfigDict(extra="forbid")

    eval_set_id: str
    eval_id: str
    criterion: str
    verdict: Verdict
    note: str | None = None

    @property
    def key(self) -> LabelKey:
        return (self.eval_set_id, self.eval_id, self.criterion)


def load_labels(path: Path) -> list[Label]:
    """The labels in `path`; [] when the file does not exist (or is empty).

    A malformed file is an InputError naming the file and the place in it.
    """
    data = _read(path)
    if data is None:
        return []
    return _parsed(data, path)


def save_label(path: Path, label: Label) -> None:
    """Add `label`, or replace the one with the same case and criterion; the file is written atomically.

    Read, merged and written under a lock (evalkit.foundation.file_lock): two `evalkit label`
    sessions and a viewer writing at once each keep the others' labels."""
    from evalkit.foundation.file_lock import updating

    with updating(path):
        labels = load_labels(path)
        for index, existing in enumerate(labels):
            if existing.key == label.key:
                labels[index] = label
                break
        else:
            labels.append(label)
        _write(path, labels)


def _read(path: Path) -> Any:
    from evalkit.foundation.documents import UnreadableFile, read_document, read_text

    try:
        if not read_text(path).strip():
            return None
    except UnreadableFile as error:
        if not path.exists():
            return None
        raise InputError(Problem(str(path), error.where, error.reason)) from None
    return read_document(path)


def _parsed(data: Any, path: Path) -> list[Label]:
    from evalkit.schema.problems import known_keys, problems_from

    hint = 'expected {"labels": [{"eval_set_id", "eval_id", "criterion", "verdict": "pass" or "fail"}, ...]}'
    if not isinstance(data, dict) or not isinstance(data.get("labels"), list):
        raise InputError(Problem(str(path), "labels" if isinstance(data, dict) else "", f"not a labels file: {hint}"))
    extra = sorted(set(data) - {"labels"})
    if extra:
        raise InputError(Problem(str(path), extra[0], f"unknown key {extra[0]!r}: {hint}"))
    labels: list[Label] = []
    problems: list[Problem] = []
    seen: dict[LabelKey, int] = {}
    for index, entry in enumerate(data["labels"]):
        where = f"labels[{index}]"
        try:
            label = Label.model_validate(entry)
        except ValidationError as error:
            problems += problems_from(error, str(path), entry, known_keys(Label), prefix=where)
            continue
        if label.key in seen:
            problems.append(Problem(str(path), where, f"labels case {label.eval_set_id}/{label.eval_id} "
                                    f"for {label.criterion} again (first at labels[{seen[label.key]}]); keep one"))
            continue
        seen[label.key] = index
        labels.append(label)
    if problems:
        raise InputError(problems)
    return labels


def _write(path: Path, labels: list[Label]) -> None:
    from evalkit.foundation.documents import YAML_SUFFIXES
    from evalkit.foundation.files import write_user_file

    document = {"labels": [label.model_dump(exclude_none=True) for label in labels]}
    if path.suffix.lower() in YAML_SUFFIXES:
        import yaml

        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_user_file(path, text)
