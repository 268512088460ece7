"""Read-only sandbox inputs the sandbox uid can reach wherever the checkout lives.

bubblewrap resolves every bind source as the sandbox's unprivileged uid (executor.process drops to it before bwrap
starts), so a source under a directory other users cannot search (root's 0700 home on Debian, a 0700 temporary
directory) fails before the verifier runs. `reachable` returns such a source's staged copy instead: a tree of hard
links (copies across file systems) under a directory this process makes with mkdtemp, owned by the running user,
0711 (searchable, not listable, not writable by others) in the system's temporary directory. mkdtemp's random name
is created atomically and fails on an existing name, so a local user who got to /tmp first cannot hand the harness a
directory of theirs, and the sticky /tmp keeps them from renaming ours. Only what a bind names is staged; the
checkout's other files stay private. Sources every uid can already reach are bound where they are.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile
import threading
from pathlib import Path

from verifierbench.errors import UserError
from verifierbench.executor import tmpfs

PREFIX = "verifierbench-stage-"
_lock = threading.Lock()
_root: Path | None = None
# (real path, inode, mtime_ns of the top) -> its staged copy: a source staged once per process, again when it changed.
_staged: dict[tuple[str, int, int], str] = {}


def searchable_by_others(path: "str | os.PathLike[str]") -> bool:
    """Whether every directory above `path` has o+x (what another uid needs to resolve it). `path` itself is left
    to its own modes: a slot's output directory is its sandbox uid's, 0700."""
    return all(os.stat(part).st_mode & stat.S_IXOTH for part in Path(os.path.realpath(path)).parents)


def reachable(source: str, writable: bool = False) -> str:
    """`source` if the sandbox uid can resolve it, else its staged copy (read-only binds only)."""
    if os.geteuid() != 0 or searchable_by_others(source):
        return source  # not root: the sandbox runs as this uid, which reaches what the harness reaches
    if writable:  # a writable bind is the harness's own scratch, made under the work directory, never staged
        raise UserError(f"sandbox directory {source} is inside a directory other users cannot search; set TMPDIR or "
                        "VERIFIERBENCH_WORKDIR to a directory with o+x on every parent (e.g. /tmp)")
    real = os.path.realpath(source)
    info = os.stat(real)
    key = (real, info.st_ino, info.st_mtime_ns)
    with _lock:
        if key not in _staged:
            holder = Path(tempfile.mkdtemp(dir=_stage_root()))  # the source's own name kept, beside none other
            os.chmod(holder, 0o711)
            target = holder / Path(real).name
            _copy(real, target)
            _staged[key] = str(target)
        return _staged[key]


def _stage_root() -> Path:
    global _root
    if _root is None:
        base = Path(tempfile.gettempdir())
        if not searchable_by_others(base / "x"):
            raise UserError(f"temporary directory {base} is not searchable by other users, so sandboxes cannot read "
                            "staged files; set TMPDIR to a directory with o+x on every parent (e.g. /tmp)")
        _sweep_stale(base)
        _root = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=base))
        os.chmod(_root, 0o711)
        atexit.register(_remove, _root, os.getpid())
    return _root


def _sweep_stale(base: Path) -> None:
    """Removes the stages of this user's processes that died without their exit handler (killed)."""
    for entry in base.glob(f"{PREFIX}*"):
        info = entry.lstat()
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not tmpfs.owner_alive(entry.name, PREFIX):
            shutil.rmtree(entry, ignore_errors=True)


def _remove(root: Path, owner: int) -> None:
    if os.getpid() == owner:  # a forked child that exits through atexit leaves its parent's stage alone
        shutil.rmtree(root, ignore_errors=True)


def _copy(source: str, target: Path) -> None:
    """Hard links (the files' own modes) in fresh directories (0755), links kept as links."""
    if not os.path.isdir(source):
        _link_or_copy(source, str(target))
        return
    shutil.copytree(source, target, symlinks=True, copy_function=_link_or_copy,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for directory, _, _ in os.walk(target):
        os.chmod(directory, 0o755)


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target, follow_symlinks=False)
    except OSError:  # another file system (EXDEV) or links refused: a copy
        shutil.copy2(source, target, follow_symlinks=False)
