"""Host-side file access below directories untrusted code controls (verifierbench.core.safe_fs)."""

from __future__ import annotations

import os

import pytest

from verifierbench.core import safe_fs


def test_walk_refuses_links_and_creates_nothing_past_them(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    root.mkdir()
    (outside / "existing").mkdir(parents=True)
    (root / "hl").symlink_to(outside)
    with pytest.raises(safe_fs.UnsafePath, match="symbolic link"):
        safe_fs.write_below(root, ["hl", "existing", "new", "f.txt"], b"x")
    with pytest.raises(safe_fs.UnsafePath):
        safe_fs.read_below(root, ["hl", "existing"], 10)
    assert [p.name for p in outside.iterdir()] == ["existing"] and not any((outside / "existing").iterdir())
    with pytest.raises(safe_fs.UnsafePath):
        safe_fs.write_below(root, ["..", "x"], b"x")


@pytest.mark.timeout(10)
def test_special_files_are_refused_without_blocking_and_reads_are_capped(tmp_path):
    os.mkfifo(tmp_path / "p")
    with pytest.raises(safe_fs.UnsafePath, match="FIFO"):
        safe_fs.read_below(tmp_path, ["p"], 10)
    with pytest.raises(safe_fs.UnsafePath, match="FIFO"):
        safe_fs.write_below(tmp_path, ["p"], b"x")
    for named in (tmp_path / "p", "/dev/zero"):
        with pytest.raises(safe_fs.UnsafePath):
            safe_fs.read_named_file(named, 10)
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(safe_fs.FileTooLarge):
        safe_fs.read_below(tmp_path, ["big"], 10)
    with pytest.raises(safe_fs.FileTooLarge):
        safe_fs.read_named_file(tmp_path / "big", 10)
    assert safe_fs.read_named_file(tmp_path / "big", 11) == b"x" * 11
    safe_fs.write_below(tmp_path, ["a", "b", "c.txt"], b"ok")
    assert safe_fs.read_below(tmp_path, ["a", "b", "c.txt"], 2) == b"ok"
