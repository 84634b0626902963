"""The `EVALKIT_*` environment variables are read in the settings package only (`Environment`).

Every other module of evalkit gets their values passed in (a run's `settings.environment`),
so no module of src/evalkit outside settings/ names one in its code. Docstrings and comments
may mention them; a name in any other string (a literal, an f-string, a dict of names read
later) counts, since that is how a variable would be read.
"""

from __future__ import annotations

import ast

from evalkit.settings import Environment
from tests.conftest import ROOT

PACKAGE = ROOT / "src" / "evalkit"
SETTINGS = PACKAGE / "settings"
READER = SETTINGS / "environment.py"


def evalkit_variables_named(tree: ast.AST) -> list[str]:
    """(text, line) of every string in the code, outside docstrings, that names an EVALKIT_ variable."""
    docstrings = {id(node.value) for node in ast.walk(tree)
                  if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    return [f"{node.value!r} (line {node.lineno})" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and "EVALKIT_" in node.value
            and id(node) not in docstrings]


def test_only_settings_names_an_evalkit_variable():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if SETTINGS not in path.parents:
            named = evalkit_variables_named(ast.parse(path.read_text(encoding="utf-8")))
            if named:
                found[str(path.relative_to(PACKAGE))] = named
    assert found == {}


def test_the_check_sees_a_variable_read_and_skips_a_docstring():
    code = ('"""Reads $EVALKIT_RUNS_DIR."""\nimport os\n'
            'def f():\n    """EVALKIT_X in a docstring."""\n    return os.environ.get(f"EVALKIT_{name}")\n'
            'NAMES = {"a": "EVALKIT_JUDGE_GEMINI_BASE_URL"}\n')
    assert sorted(evalkit_variables_named(ast.parse(code))) == ["'EVALKIT_' (line 5)",
                                                                "'EVALKIT_JUDGE_GEMINI_BASE_URL' (line 6)"]
    assert evalkit_variables_named(ast.parse(READER.read_text(encoding="utf-8")))  # where they are read


def test_every_variable_is_in_the_configuration_docs():
    docs = (ROOT / "docs" / "config.md").read_text(encoding="utf-8")
    section = docs[docs.index("## Environment variables"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    assert [name for name in Environment.variables() if f"`{name}`" not in section] == []
