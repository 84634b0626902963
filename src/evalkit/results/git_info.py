"""Which commit and branch a run was made on, read from `.git` directly (no `git` process).

A run made outside a repository, or in one whose files this cannot read, records none:
this is a label for the run history (docs/viewer.md), never a reason to fail a run.
"""

from __future__ import annotations

from pathlib import Path

from evalkit.schema.results import GitInfo

_MAX_PARENTS = 64  # folders walked up in search of `.git`; a bound, not a limit anyone meets


def current_git(start: Path | None = None) -> GitInfo | None:
    """The commit HEAD names and its branch (None when detached), or None outside a repository."""
    try:
        git_dir = _find_git_dir((start or Path.cwd()).resolve())
        if git_dir is None:
            return None
        head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
        if not head.startswith("ref:"):
            return GitInfo(commit=head, branch=None) if _is_sha(head) else None
        ref = head[4:].strip()
        commit = _resolve_ref(git_dir, ref)
        branch = ref.removeprefix("refs/heads/")
        return GitInfo(commit=commit, branch=branch) if commit else None
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _find_git_dir(folder: Path) -> Path | None:
    for candidate in [folder, *folder.parents][:_MAX_PARENTS]:
        dot_git = candidate / ".git"
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():  # a worktree or submodule: "gitdir: PATH"
            text = dot_git.read_text(encoding="utf-8").strip()
            if text.startswith("gitdir:"):
                target = Path(text[len("gitdir:"):].strip())
                return target if target.is_absolute() else (candidate / target).resolve()
    return None


def _common_dir(git_dir: Path) -> Path:
    """A worktree's own folder holds HEAD; the branches live in the main repository's folder."""
    pointer = git_dir / "commondir"
    if pointer.is_file():
        common = Path(pointer.read_text(encoding="utf-8").strip())
        return common if common.is_absolute() else (git_dir / common).resolve()
    return git_dir


def _resolve_ref(git_dir: Path, ref: str) -> str | None:
    common = _common_dir(git_dir)
    for folder in dict.fromkeys([git_dir, common]):
        loose = folder / ref
        if loose.is_file():
            value = loose.read_text(encoding="utf-8").strip()
            return value if _is_sha(value) else None
    packed = common / "packed-refs"
    if packed.is_file():
        for line in packed.read_text(encoding="utf-8").splitlines():
            parts = line.split(" ", 1)
            if len(parts) == 2 and parts[1].strip() == ref and _is_sha(parts[0]):
                return parts[0]
    return None  # a branch with no commit yet


def _is_sha(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)
