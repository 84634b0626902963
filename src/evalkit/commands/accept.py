"""`evalkit accept RESULT.json [--case ID]... [--interactive]`: a run's answers become the expected ones.

Default: every case that failed. With `--interactive`, each case's change to its file
is shown as a diff and accepted only on `y` (`a` accepts it and the rest, `n` skips
it, `q` or the end of input stops). Nothing is written before every chosen case has
passed its checks; each edited file is written once, at the end. See docs/evalsets.md.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable
from pathlib import Path

from typing import TYPE_CHECKING

from evalkit.errors import ExitCode
from evalkit.foundation.answer_keys import ALL, NO, QUIT, SKIP, YES

if TYPE_CHECKING:
    from rich.console import Console

ANSWERS = f"[{YES}]es, [{NO}]o, [{SKIP}]kip (as no), [{ALL}]ll the rest, [{QUIT}]uit"


def accept_command(result_file: Path, case_ids: list[str], *, interactive: bool = False,
                   ask: Callable[[str], str | None] | None = None) -> int:
    from evalkit.report.console import make_console
    from evalkit.golden.accept import case_name, choose_cases, prepare, write
    from evalkit.results.reader import read_result

    result = read_result(result_file)
    cases = choose_cases(result, result_file, case_ids)
    console = make_console()
    if not cases:
        console.print(f"nothing to accept: no case failed in {result_file} (name cases with --case)", highlight=False)
        return ExitCode.OK
    pending = prepare(result, result_file, cases)
    ask = ask or _read_answer
    accept_rest = not interactive
    for item in pending:
        edits, targets = item.file.case_edits(item.position, item.case)
        if not accept_rest:
            _show_diff(console, item.file.path, item.file.original, item.file.preview(edits))
            answer = ask(f"accept {case_name(item.case)}? {ANSWERS} ")
            if answer in (None, QUIT):
                break
            if answer == ALL:
                accept_rest = True
            elif answer != YES:
                continue
        item.file.accept(case_name(item.case), edits, targets)
    files = list({id(item.file): item.file for item in pending if item.file.accepted}.values())
    texts = [file.edited_text() for file in files]  # every file checked before any is written
    for file, text in zip(files, texts):
        write(file, text)
        console.print(f"accepted {', '.join(file.accepted)} into {file.path}", highlight=False, soft_wrap=True)
    count = sum(len(file.accepted) for file in files)
    console.print(f"{count} of {len(pending)} case{'' if len(pending) == 1 else 's'} accepted"
                  + ("; run the eval sets again to check" if count else ""), highlight=False)
    return ExitCode.OK


def _show_diff(console: Console, path: Path, before: str, after: str) -> None:
    from rich.text import Text

    for line in difflib.unified_diff(before.splitlines(), after.splitlines(), f"{path}", f"{path} (accepted)",
                                     lineterm=""):
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "cyan" if line.startswith("@") else ""
        console.print(Text(line, style=style), soft_wrap=True)


def _read_answer(prompt: str) -> str | None:
    """One answer from stdin: its first letter, lowercased; None at the end of input."""
    while True:
        print(prompt, end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            return None
        answer = line.strip().lower()[:1]
        if answer in (YES, NO, SKIP, ALL, QUIT):
            return answer
        print(f"please answer {ANSWERS}")
