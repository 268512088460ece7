"""Diff handling for code tasks: what a diff touches, which paths are test code, and diffs we write
apply with git (hunk subsets, reordered files, new files)."""

from __future__ import annotations

import subprocess

import pytest

from verifierbench.sources.swebench import diffs


def test_changes_lists_files_and_added_lines():
    diff = diffs.make({"pkg/a.py": ("x = 1\n", "x = 2\n"), "pkg/new.py": (None, "y = 1\n")})
    changes = {c.path: c for c in diffs.changes(diff)}
    assert changes["pkg/a.py"].added == ("x = 2",) and changes["pkg/a.py"].removed == ("x = 1",)
    assert changes["pkg/new.py"].is_new and not changes["pkg/a.py"].is_new


def test_unparsable_diff_is_an_error():
    with pytest.raises(diffs.DiffError):
        diffs.changes("hello\n")


@pytest.mark.parametrize("path, is_test", [
    ("conftest.py", True), ("sub/conftest.py", True), ("tests/test_x.py", True), ("pkg/tests/helpers.py", True),
    ("pkg/test_x.py", True), ("pkg/x_test.py", True), ("pkg/testing.py", False), ("pkg/contest.py", False),
    ("lib/matplotlib/axes/_base.py", False), ("pkg/__init__.py", False),
])
def test_test_paths(path, is_test):
    assert diffs.is_test_path(path) is is_test


def test_test_patch_files_count_as_test_code():
    assert diffs.is_test_path("docs/example.py", frozenset({"docs/example.py"}))


def _apply(tmp_path, files: dict[str, str], diff: str) -> dict[str, str]:
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    subprocess.run(["git", "apply", "--recount", "-"], input=diff, text=True, cwd=tmp_path, check=True)
    return {p.relative_to(tmp_path).as_posix(): p.read_text() for p in tmp_path.rglob("*.py")}


def test_written_diffs_apply_and_hunks_can_be_selected(tmp_path):
    old = "".join(f"line{i}\n" for i in range(30))
    new = old.replace("line2\n", "LINE2\n").replace("line25\n", "LINE25\n")
    diff = diffs.make({"m.py": (old, new), "n.py": ("a\n", "b\n")})
    assert len(diffs.hunks_of(diff)) == 3
    only_second = diffs.select_hunks(diff, {("m.py", 1)})
    result = _apply(tmp_path, {"m.py": old, "n.py": "a\n"}, only_second)
    assert "LINE25" in result["m.py"] and "LINE2\n" not in result["m.py"] and result["n.py"] == "a\n"
    reordered = diffs.reorder_files(diff)
    assert reordered.index("n.py") < reordered.index("m.py")
    assert _apply(tmp_path / "r", {"m.py": old, "n.py": "a\n"}, reordered) == {"m.py": new, "n.py": "b\n"}


def test_apply_to_copy_leaves_the_checkout_alone(tmp_path):
    (tmp_path / "m.py").write_text("x = 1\n")
    after = diffs.apply_to_copy(tmp_path, diffs.make({"m.py": ("x = 1\n", "x = 2\n")}), ["m.py"])
    assert after == {"m.py": "x = 2\n"} and (tmp_path / "m.py").read_text() == "x = 1\n"
    with pytest.raises(diffs.DiffError, match="does not apply"):
        diffs.apply_to_copy(tmp_path, diffs.make({"m.py": ("y = 1\n", "y = 2\n")}), ["m.py"])
