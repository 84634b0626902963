"""evalkit's pre-commit hooks, as `.pre-commit-hooks.yaml` runs them (docs/ci.md).

    python -m evalkit.precommit validate [--config FILE] FILE...   the evalkit-validate hook (validate.py)
    python -m evalkit.precommit run ARGS...                         the evalkit-run hook (run.py)
"""

from __future__ import annotations

import argparse
import sys

from evalkit.errors import ExitCode


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["run"]:  # the evalkit-run hook: everything after `run` is evalkit run's
        from evalkit.precommit.run import run_hook

        return run_hook(argv[1:])
    parser = argparse.ArgumentParser(prog="python -m evalkit.precommit", description="evalkit's pre-commit hooks")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("validate", help="check eval sets and configs (offline)")
    check.add_argument("--config", help="EvalConfig for every eval set (default: test_config.json beside each)")
    check.add_argument("files", nargs="*")
    args = parser.parse_args(argv)
    from evalkit.precommit.validate import validate

    ok, problems = validate(args.files, args.config)
    for line in ok:
        print(line)
    for problem in problems:
        print(f"evalkit: {problem}", file=sys.stderr)
    if problems:
        count = len(problems)
        print(f"evalkit: {count} problem{'' if count == 1 else 's'} in eval sets or configs", file=sys.stderr)
    return ExitCode.INPUT if problems else ExitCode.OK


if __name__ == "__main__":
    sys.exit(main())
