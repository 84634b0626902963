"""No module of evalkit is over 400 lines: past that, a module holds more than one abstraction."""

from __future__ import annotations

from tests.conftest import ROOT

LIMIT = 400


def test_no_module_is_over_400_lines():
    sizes = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in (ROOT / "src" / "evalkit").rglob("*.py")}
    assert sizes, "no modules found"
    assert {path: lines for path, lines in sizes.items() if lines > LIMIT} == {}
