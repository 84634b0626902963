"""A new setting is one field: declared on the settings model, it reaches every front end.

A scratch copy of evalkit gets one more field on `RunSettings`; with nothing else changed,
`evalkit run --help` lists its flag, `run_evals` takes its keyword (and passes it into the
run's settings), the pytest plugin offers its option and ini key, and a bad value is worded
with the flag on the command line.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

DUMMY = '''
    dummy_knob: Annotated[float | None, Setting(
        "--dummy-knob", "A knob only this test knows", "KNOB", "expected a knob from 0 to 1",
        parsed_as=float, in_pytest=True)] = Field(default=None, ge=0, le=1)
'''


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("scratch")
    shutil.copytree(ROOT / "src" / "evalkit", root / "evalkit", ignore=shutil.ignore_patterns("__pycache__"))
    run_py = root / "evalkit" / "settings" / "run.py"
    text = run_py.read_text()
    anchor = "    # The EVALKIT_* variables, as they were when the settings were built."
    assert anchor in text
    run_py.write_text(text.replace(anchor, DUMMY + anchor))
    return root


def python(scratch: Path, code: str) -> subprocess.CompletedProcess[str]:
    prelude = f"import sys; sys.path.insert(0, {str(scratch)!r}); "
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120,
                          cwd=ROOT)


def test_the_scratch_copy_is_the_one_imported(scratch):
    done = python(scratch, "import evalkit; print(evalkit.__file__)")
    assert done.stdout.strip() == str(scratch / "evalkit" / "__init__.py")


def test_the_cli_lists_it_and_words_a_bad_value_with_its_flag(scratch):
    done = python(scratch, "from evalkit.cli import main; sys.argv = ['evalkit', 'run', '--help']; main()")
    assert "--dummy-knob KNOB" in done.stdout and "A knob only this test knows" in done.stdout
    bad = python(scratch, "from evalkit.cli import main; sys.argv = ['evalkit', 'run', 'evalsets/weather.evalset.json', "
                          "'--dummy-knob', '7']; main()")
    assert bad.returncode == 2
    assert bad.stderr.strip() == "evalkit: --dummy-knob 7: expected a knob from 0 to 1"


def test_the_api_takes_it_as_a_keyword(scratch):
    done = python(scratch, "import inspect, evalkit; print(list(inspect.signature(evalkit.run_evals).parameters)); "
                           "from evalkit.errors import InputError\n"
                           "try:\n    evalkit.run_evals('evalsets/weather.evalset.json', dummy_knob=7)\n"
                           "except InputError as error:\n    print(error)")
    assert "'dummy_knob'" in done.stdout.splitlines()[0]
    assert done.stdout.splitlines()[1] == "dummy_knob=7: expected a knob from 0 to 1"


def test_the_pytest_plugin_offers_it(scratch):
    done = python(scratch, "import pytest; sys.exit(pytest.main(['--help']))")
    assert "--evalkit-dummy-knob=KNOB" in done.stdout
    assert "evalkit_dummy_knob" in done.stdout  # its ini key
    bad = python(scratch, "import pytest; sys.exit(pytest.main(['-n', '0', '--evalkit-dummy-knob', "
                          "'7', '--evalkit', 'evalsets/weather.evalset.json', 'evalsets/weather.evalset.json', '-q', "
                          "'-p', 'no:cacheprovider']))")
    assert "evalkit: --evalkit-dummy-knob 7: expected a knob from 0 to 1" in bad.stdout + bad.stderr
