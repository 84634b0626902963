"""The `.evalkit/` folder: run history and the judge cache, local to one machine.

Whoever creates `.evalkit/` also writes a `.gitignore` holding `*` into it, so its
contents never end up in a commit, whatever the project's own `.gitignore` says
(README, "What evalkit keeps in .evalkit/").
"""

from __future__ import annotations

from pathlib import Path

STATE_FOLDER_NAME = ".evalkit"


def make_folder(folder: Path) -> None:
    """`mkdir -p folder`, giving a `.evalkit` folder on its path its `.gitignore` when creating it."""
    folder = Path(folder)
    parts = folder.parts
    if STATE_FOLDER_NAME in parts:
        state = Path(*parts[: parts.index(STATE_FOLDER_NAME) + 1])
        if not state.exists():
            state.mkdir(parents=True, exist_ok=True)
            (state / ".gitignore").write_text("# evalkit's run history and judge cache; never committed\n*\n")
    folder.mkdir(parents=True, exist_ok=True)
