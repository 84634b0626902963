"""Eval sets and agents for the `--cluster` tests: a run compared with the same run in one process."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import FIXTURES

AGENTS = FIXTURES / "agents_py" / "agents.py"
CONFIG = FIXTURES / "rouge_only.config.json"


def write_set(folder: Path, cases: int = 12, *, boom: int | None = 3) -> Path:
    """`cases` one-turn cases `c00`, `c01`, ...; the one numbered `boom` makes `explodes_on_boom` fail (`error`)."""
    evalset = {"eval_set_id": "spread", "eval_cases": [
        {"eval_id": f"c{i:02d}", "conversation": [
            {"user_content": {"role": "user", "parts": [{"text": "boom" if i == boom else f"hi {i}"}]},
             "final_response": {"role": "model", "parts": [{"text": f"you said: hi {i}"}]}}]}
        for i in range(cases)]}
    path = folder / "spread.evalset.json"
    path.write_text(json.dumps(evalset))
    return path


def write_agent(folder: Path, body: str) -> str:
    """An agent file whose `agent(turn)` runs `body` first, then echoes as the fixtures' `echo` does;
    `MARKS` is the folder it may leave marks in (which process ran what)."""
    path = folder / "cluster_agent.py"
    path.write_text("import os, signal, time\nfrom pathlib import Path\n\n"
                    f"MARKS = Path({str(folder)!r})\n\n"
                    "def agent(turn):\n"
                    + "".join(f"    {line}\n" for line in body.splitlines())
                    + "    return {'final_response': 'you said: ' + turn.user_text}\n")
    return f"{path}:agent"


def verdicts(result_file: Path) -> list[tuple[str, str]]:
    return [(case["eval_id"], case["status"]) for case in json.loads(result_file.read_text())["cases"]]
