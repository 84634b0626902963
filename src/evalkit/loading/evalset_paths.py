"""Eval sets as users name them: which files are eval sets, and the `file.json:id,id` selector.

The one place both are parsed: `evalkit run` and `validate`, the pre-commit hook and the
pytest plugin all come here (docs/evalsets.md).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

# The names an eval set file ends with; a folder is searched for these (`-dataset.json`: the
# Agent Platform datasets of agents-cli, evalkit.loading.platform_dataset).
EVALSET_SUFFIXES = (".evalset.json", ".evalset.yaml", ".evalset.yml", ".test.json", "-dataset.json")
EVALSET_PATTERNS = tuple(f"*{suffix}" for suffix in EVALSET_SUFFIXES)
# Any JSON or YAML file named on the command line is read as an eval set too.
DOCUMENT_SUFFIXES = (".json", ".yaml", ".yml")


def is_dataset_name(path: Path) -> bool:
    """Whether a file is named as an Agent Platform dataset (`basic-dataset.json`)."""
    return path.name.endswith("-dataset.json")


def is_evalset_name(path: Path) -> bool:
    """Whether a file is named as an eval set (what a folder is searched for)."""
    return path.name.endswith(EVALSET_SUFFIXES)


def evalset_files(folder: Path, *, recursive: bool = True) -> list[Path]:
    """The eval set files in a folder (and its subfolders), sorted; evalkit's own `.evalkit/` left out."""
    found = folder.rglob if recursive else folder.glob
    return sorted({f for pattern in EVALSET_PATTERNS for f in found(pattern) if ".evalkit" not in f.parts})


def named_forms() -> str:
    """The eval set names, for messages: `*.evalset.json, *.evalset.yaml, ...`."""
    return ", ".join(EVALSET_PATTERNS)


def default_id(path: Path) -> str:
    """An eval set's id when the file gives none: its name without the eval set suffix."""
    for suffix in (*EVALSET_SUFFIXES, *DOCUMENT_SUFFIXES):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return path.stem


def split_selector(raw: str, exists: Callable[[str], bool] | None = None) -> tuple[str, list[str]]:
    """`a.json:x,y` → ("a.json", ["x", "y"]) (ADK's grammar); a path that exists as written is no selector.

    `exists` says whether a name is an existing path (default: relative to the current
    folder). Unlike ADK, ids are stripped of surrounding spaces; text after a second `:`
    is ignored, as ADK does.
    """
    exists = exists or (lambda name: Path(name).exists())
    if ":" not in raw or exists(raw):
        return raw, []
    target, _, rest = raw.partition(":")
    ids = rest.split(":", 1)[0]
    return target, [i.strip() for i in ids.split(",") if i.strip()]
