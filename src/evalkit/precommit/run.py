"""The `evalkit-run` pre-commit hook: `evalkit run --quiet ARGS`, and when it blocks, which cases did.

    python -m evalkit.precommit run ARGS...

The run is a real `evalkit run` in its own process, with its exit code; its result file
(the hook's `--json`, or a temporary one) is read afterwards to name each case that did
not pass, with its reason, so a blocked commit says what to look at (docs/ci.md).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from evalkit.errors import ExitCode


def run_hook(args: list[str]) -> int:
    """Run the eval sets in `args`; print the cases that did not pass when the run fails."""
    with tempfile.TemporaryDirectory(prefix="evalkit-hook-") as folder:
        given = _json_path(args)
        result_file = given or Path(folder) / "result.json"
        extra = [] if given else ["--json", str(result_file)]
        done = subprocess.run([sys.executable, "-m", "evalkit", "run", "--quiet", *extra, *args], check=False)
        if done.returncode not in (ExitCode.FAILED, ExitCode.RUN_ERROR) or not result_file.is_file():
            return done.returncode
        for line in blocking_lines(result_file):
            print(line, file=sys.stderr)
    return done.returncode


def blocking_lines(result_file: Path) -> list[str]:
    """What the blocked commit needs: each case that did not pass, with its reason."""
    from evalkit.report.console import failure_lines
    from evalkit.results.reader import read_result
    from evalkit.schema.results import Status

    result = read_result(result_file)
    blocking = [f"{case.eval_set_id}/{case.eval_id}" for case in result.cases if case.status is not Status.PASSED]
    if not blocking:
        return []
    shown = ", ".join(blocking[:10]) + (f" and {len(blocking) - 10} more" if len(blocking) > 10 else "")
    return [*failure_lines(result.cases),
            (f"evalkit: blocked by {len(blocking)} case{'' if len(blocking) == 1 else 's'} that did not pass: "
             f"{shown}; fix the agent, or accept the new answers with `evalkit accept`")]


def _json_path(args: list[str]) -> Path | None:
    """The `--json FILE` the hook's args already give, if any."""
    for index, arg in enumerate(args):
        if arg == "--json" and index + 1 < len(args):
            return Path(args[index + 1])
        if arg.startswith("--json="):
            return Path(arg.removeprefix("--json="))
    return None
