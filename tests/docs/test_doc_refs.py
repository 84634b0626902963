"""Every evalkit version the docs pin (`ref:`, `rev:`, `EVALKIT_REF:`, `--branch`) exists in this
repository, so a recipe works when copied (pre-commit and git fail on a ref that is not there)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from tests.conftest import ROOT

PINNED = re.compile(r"(?:\b(?:rev|ref|EVALKIT_REF):\s*|--branch\s+)([0-9A-Za-z][0-9A-Za-z._/-]*)")
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


def _git(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, timeout=30, check=False)


def _pinned_refs() -> list[tuple[str, str]]:
    return [(f"{doc.relative_to(ROOT)}", ref) for doc in DOCS for ref in PINNED.findall(doc.read_text())]


def test_the_docs_pin_some_version():
    assert _pinned_refs(), "the recipes in docs/ci.md pin evalkit's version; the pattern no longer finds them"


@pytest.mark.skipif(shutil.which("git") is None or _git("rev-parse", "--git-dir").returncode != 0
                    or _git("rev-parse", "--is-shallow-repository").stdout.strip() == "true",
                    reason="not a full git checkout of evalkit: its history cannot be asked")
@pytest.mark.parametrize(("doc", "ref"), _pinned_refs())
def test_each_pinned_ref_exists_in_the_repository(doc, ref):
    found = _git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}")
    assert found.returncode == 0, f"{doc} pins {ref}, which is no commit, branch or tag of this repository"
    assert _git("cat-file", "-e", f"{ref}:.pre-commit-hooks.yaml").returncode == 0, (
        f"{doc} pins {ref}, which has no .pre-commit-hooks.yaml")
