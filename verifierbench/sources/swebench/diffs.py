"""Unified diffs: which files a diff touches, applying one to files of a checkout, and writing new ones.

Everything here reads or writes text; no candidate code is executed (`git apply` only edits files).
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from unidiff.patch import PatchSet
from unidiff.errors import UnidiffParseError

TEST_DIRS = {"tests", "test", "testing"}
TEST_FILE = re.compile(r"(^test_.*\.py$|.*_tests?\.py$|^tests?\.py$|^conftest\.py$)")


class DiffError(ValueError):
    pass


@dataclass(frozen=True)
class FileChange:
    path: str  # the file's path after the change (its old path when deleted)
    added: tuple[str, ...]  # lines the diff adds
    removed: tuple[str, ...]
    is_new: bool
    is_deleted: bool


def _strip(path: str) -> str:
    return path[2:] if path[:2] in ("a/", "b/") else path


def changes(diff: str) -> list[FileChange]:
    """The files a diff touches. An unparsable diff raises DiffError."""
    if not diff.strip():
        return []
    try:
        patch = PatchSet(diff)
    except (UnidiffParseError, UnicodeDecodeError) as e:
        raise DiffError(f"not a unified diff: {e}") from None
    out = []
    for patched in patch:
        path = _strip(patched.source_file if patched.is_removed_file else patched.target_file)
        added = tuple(line.value.rstrip("\n") for hunk in patched for line in hunk if line.is_added)
        removed = tuple(line.value.rstrip("\n") for hunk in patched for line in hunk if line.is_removed)
        out.append(FileChange(path, added, removed, patched.is_added_file, patched.is_removed_file))
    if not out:
        raise DiffError("not a unified diff: no file headers")
    return out


def is_test_path(path: str, test_files: frozenset[str] = frozenset()) -> bool:
    """Test code: a file the hidden test patch touches, conftest.py, test_*.py/*_test.py, or under tests/."""
    parts = Path(path).parts
    return path in test_files or bool(TEST_FILE.match(parts[-1] if parts else "")) or any(p in TEST_DIRS for p in parts[:-1])


def apply_to_copy(checkout: Path, diff: str, paths: list[str]) -> dict[str, str | None]:
    """The text of `paths` after applying `diff` to the checkout (None: the file does not exist)."""
    with tempfile.TemporaryDirectory(prefix="vgb-diff-") as work:
        for rel in paths:
            source = checkout / rel
            if source.is_file():
                (Path(work) / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, Path(work) / rel)
        if diff.strip():
            done = subprocess.run(["git", "apply", "--whitespace=nowarn", "--recount", "-"], input=diff, cwd=work,
                                  capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "HOME": work})
            if done.returncode:
                raise DiffError(f"diff does not apply: {done.stderr.strip()[-500:]}")
        return {rel: (Path(work) / rel).read_text() if (Path(work) / rel).is_file() else None for rel in paths}


def make(files: dict[str, tuple[str | None, str | None]], context: int = 3) -> str:
    """A git-style diff from {path: (old text or None, new text or None)}, files in the given order."""
    out = []
    for path, (old, new) in files.items():
        if old == new:
            continue
        head = [f"diff --git a/{path} b/{path}\n"]
        if old is None:
            head.append("new file mode 100644\n")
        elif new is None:
            head.append("deleted file mode 100644\n")
        body = list(difflib.unified_diff(_lines(old), _lines(new), "/dev/null" if old is None else f"a/{path}",
                                         "/dev/null" if new is None else f"b/{path}", n=context))
        out += head + [line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in body]
    return "".join(out)


def _lines(text: str | None) -> list[str]:
    return [] if text is None else text.splitlines(keepends=True)


def hunks_of(diff: str) -> list[tuple[str, int]]:
    """(file path, hunk index) for every hunk of the diff, in order."""
    return [(_strip(p.target_file if not p.is_removed_file else p.source_file), i) for p in PatchSet(diff) for i in range(len(p))]


def select_hunks(diff: str, keep: set[tuple[str, int]]) -> str:
    """The diff with only the hunks in `keep` (files left with no hunk are dropped)."""
    out = []
    for patched in PatchSet(diff):
        path = _strip(patched.target_file if not patched.is_removed_file else patched.source_file)
        kept = [h for i, h in enumerate(patched) if (path, i) in keep]
        if not kept:
            continue
        header = str(patched).split("@@", 1)[0]
        out.append(header + "".join(str(h) for h in kept))
    return "".join(out)


def reorder_files(diff: str) -> str | None:
    """The same changes with the files in reverse order (None when the diff has one file)."""
    patched = list(PatchSet(diff))
    return "".join(str(p) for p in reversed(patched)) if len(patched) > 1 else None


def package_init(checkout: Path, path: str) -> str | None:
    """The ordinary `__init__.py` of the package holding `path`, when there is one."""
    directory = os.path.dirname(path)
    init = f"{directory}/__init__.py" if directory else "__init__.py"
    return init if (checkout / init).is_file() else None
