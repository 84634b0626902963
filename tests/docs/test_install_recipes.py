"""docs/ci.md's recipes install evalkit itself (its checkout or a wheel of it), never the
unrelated project that owns the name `evalkit` on the package index."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
CI_DOC = ROOT / "docs" / "ci.md"
if sys.version_info >= (3, 11):
    import tomllib
else:  # the same parser on Python 3.10, from the package index (the dev extra)
    import tomli as tomllib

FENCE = re.compile(r"```ya?ml\n(.*?)```", re.S)


def yaml_blocks() -> list[str]:
    return FENCE.findall(CI_DOC.read_text())


def install_lines(block: str) -> list[str]:
    lines = []
    for line in block.splitlines():
        found = re.search(r"pip install (.*)", line)
        if found:
            lines.append(found.group(1).split(" #")[0].strip())
    return lines


def test_the_distribution_is_not_named_evalkit():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["name"] == "evalkit-agents"
    assert project["scripts"] == {"evalkit": "evalkit.cli:main"}


def test_every_recipe_installs_a_checkout_or_a_wheel_it_has_fetched():
    recipes = [block for block in yaml_blocks() if install_lines(block)]
    assert len(recipes) >= 4  # GitHub Actions, its shards, GitLab, GitLab's shards
    for block in recipes:
        for line in install_lines(block):
            targets = [word for word in shlex.split(line) if not word.startswith("-")]
            assert targets, line
            for target in targets:
                assert target.startswith("./") or target == "." or target.endswith(".whl"), (
                    f"docs/ci.md installs {target!r} from the package index: {line}")
                folder = target.removeprefix("./").split("[")[0]
                if target != ".":
                    before = block[: block.index(line)]
                    assert f"path: {folder}" in before or re.search(rf"git clone .* {folder}\n", before), (
                        f"docs/ci.md installs {target} without fetching it first")


def test_pre_commit_extra_packages_do_not_name_evalkit():
    extras = []
    for block in yaml_blocks():
        document = yaml.safe_load(block)
        if isinstance(document, dict) and "repos" in document:
            for repo in document["repos"]:
                for hook in repo["hooks"]:
                    extras += hook.get("additional_dependencies", [])
    assert extras, "the pre-commit recipe lists the ADK package"
    assert not [name for name in extras if re.match(r"evalkit\b", name)]


def with_pip(tmp_path: Path) -> dict[str, str]:
    """The environment in which this interpreter runs `-m pip`: its own pip where it has one (a `python -m venv`
    environment, as CI makes); where it has none (one `uv venv` made), the pip of a fresh `python -m venv` is
    put after this environment's own packages, so that the build still uses this environment's setuptools."""
    import importlib.util
    import sysconfig

    if importlib.util.find_spec("pip") is not None:
        return dict(os.environ)
    fresh = tmp_path / "with-pip"
    subprocess.run([sys.executable, "-m", "venv", str(fresh)], check=True, timeout=300, capture_output=True)
    own = sysconfig.get_path("purelib")
    bootstrapped = sysconfig.get_path("purelib", vars={"base": str(fresh), "platbase": str(fresh)})
    assert (Path(bootstrapped) / "pip").is_dir(), f"python -m venv made no pip in {bootstrapped}"
    paths = [own, bootstrapped, *filter(None, [os.environ.get("PYTHONPATH")])]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(paths)}


def test_the_recipes_install_line_installs_evalkit_from_a_checkout(tmp_path):
    import setuptools

    if tuple(int(p) for p in setuptools.__version__.split(".")[:2]) < (77, 0):
        pytest.skip("building offline needs setuptools>=77: pip install -e '.[dev]'")
    checkout = tmp_path / "evalkit-src"
    checkout.mkdir()
    shutil.copy(ROOT / "pyproject.toml", checkout)
    shutil.copy(ROOT / "README.md", checkout)
    shutil.copytree(ROOT / "src", checkout / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    line = install_lines(yaml_blocks()[0])[0]
    assert line == "./evalkit-src"
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation", "--no-index",
                    "--target", str(site), *shlex.split(line)], cwd=tmp_path, check=True, timeout=300,
                   capture_output=True, env=with_pip(tmp_path))

    assert [p.name for p in site.glob("*.dist-info")] == ["evalkit_agents-0.1.0.dist-info"]
    env = {**os.environ, "PYTHONPATH": str(site)}
    done = subprocess.run([str(site / "bin" / "evalkit"), "validate", "--help"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Check eval sets and configs" in done.stdout
    where = subprocess.run([sys.executable, "-c", "import evalkit; print(evalkit.__file__)"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert where.stdout.strip() == str(site / "evalkit" / "__init__.py")
