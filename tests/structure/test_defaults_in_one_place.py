"""The run defaults (cases in flight, judge calls in flight, turn timeout, repeats) are written in defaults.py only."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT

from evalkit.defaults import DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_REPEAT, DEFAULT_TIMEOUT_S
from evalkit.settings import RunSettings

PACKAGE = ROOT / "src" / "evalkit"
SETTING_NAME = re.compile(r"jobs|concurrency|workers|connections|threads|timeout|repeat|pass_rate|parallel", re.I)
DEFAULT_VALUES = {DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_TIMEOUT_S}


def defaults_written_out(tree: ast.AST) -> list[str]:
    """(name, value, line) of every setting-like name given one of the default numbers as a literal."""
    found = []

    def check(name: str | None, value: ast.AST | None, line: int) -> None:
        if (name and SETTING_NAME.search(name) and isinstance(value, ast.Constant)
                and not isinstance(value.value, bool) and isinstance(value.value, (int, float, str))
                and (value.value in DEFAULT_VALUES or ("repeat" in name.lower() and value.value == DEFAULT_REPEAT))):
            found.append(f"{name} = {value.value!r} (line {line})")

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = args.posonlyargs + args.args
            for arg, default in zip(positional[len(positional) - len(args.defaults):], args.defaults):
                check(arg.arg, default, node.lineno)
            for arg, default in zip(args.kwonlyargs, args.kw_defaults):
                check(arg.arg, default, node.lineno)
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                check(keyword.arg, keyword.value, node.lineno)
            option = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if option == "Option" and node.args:  # typer.Option(DEFAULT, "--flag", ...)
                flags = " ".join(a.value for a in node.args[1:] if isinstance(a, ast.Constant) and isinstance(a.value, str))
                check(flags, node.args[0], node.lineno)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                check(getattr(target, "id", None) or getattr(target, "attr", None), node.value, node.lineno)
        elif isinstance(node, ast.AnnAssign):
            check(getattr(node.target, "id", None) or getattr(node.target, "attr", None), node.value, node.lineno)
    return found


def test_no_run_default_is_written_outside_defaults_py():
    offenders = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "defaults.py" and path.parent == PACKAGE:
            continue
        found = defaults_written_out(ast.parse(path.read_text(encoding="utf-8")))
        if found:
            offenders[str(path.relative_to(PACKAGE))] = found
    assert offenders == {}, "take these from evalkit.defaults instead"


def test_the_check_finds_a_default_written_out():
    # Guards the test itself: the shapes the defaults used to be written in are caught.
    source = (
        f"def load(spec, jobs={DEFAULT_JOBS!r}, timeout=None): ...\n"
        f"class Settings:\n    judge_jobs: int = {DEFAULT_JUDGE_JOBS!r}\n"
        f"runner = Runner(timeout={DEFAULT_TIMEOUT_S!r})\n"
        f"jobs = typer.Option({DEFAULT_JOBS!r}, '--jobs')\n"
        f"repeat: int = {DEFAULT_REPEAT!r}\n"
    )
    assert len(defaults_written_out(ast.parse(source))) == 5


def test_the_settings_hold_the_defaults():
    settings = RunSettings()
    assert (settings.jobs, settings.judge_jobs, settings.timeout, settings.repeat, settings.pass_rate,
            settings.use_cache) == (DEFAULT_JOBS, DEFAULT_JUDGE_JOBS, DEFAULT_TIMEOUT_S, DEFAULT_REPEAT, None, True)
