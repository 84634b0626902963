"""The labels file: a human's verdict on a judged criterion of a case (JSON or YAML).

`{"labels": [{"eval_set_id", "eval_id", "criterion", "verdict": "pass"|"fail", "note"?}]}`.
A label is keyed by (eval_set_id, eval_id, criterion): saving one replaces the earlier
label of that key, and the file is written atomically.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from evalkit.errors import InputError, Problem


class Label(BaseModel):
    model_config = ConfigDict(extra="forbid")

    eval_set_id: str
    eval_id: str
    criterion: str
    verdict: Literal["pass", "fail"]
    note: str | None = None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.eval_set_id, self.eval_id, self.criterion)


def load_labels(path: Path) -> list[Label]:
    """The labels in `path`; a missing file holds none."""
    from evalkit.loading.documents import read_document

    if not path.exists():
        return []
    data = read_document(path)
    if not isinstance(data, dict) or not isinstance(data.get("labels"), list):
        raise InputError(Problem(str(path), "", 'expected {"labels": [...]}'))
    labels = []
    for index, raw in enumerate(data["labels"]):
        try:
            labels.append(Label.model_validate(raw))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(["labels", str(index), *(str(p) for p in first["loc"])])
            raise InputError(Problem(str(path), where, first["msg"])) from None
    return labels


def save_label(path: Path, label: Label) -> None:
    """Add `label`, or replace the label of the same case and criterion."""
    from evalkit.loading.documents import YAML_SUFFIXES
    from evalkit.results.writer import write_text_atomically

    labels = {existing.key: existing for existing in load_labels(path)}
    labels[label.key] = label
    document = {"labels": [item.model_dump(exclude_none=True) for item in labels.values()]}
    if path.suffix.lower() in YAML_SUFFIXES:
        import yaml

        text = yaml.safe_dump(document, sort_keys=False, allow_unicode=True)
    else:
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    write_text_atomically(path, text)
