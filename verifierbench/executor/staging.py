"""Read-only sandbox inputs the sandbox uid can reach wherever the checkout lives.

bubblewrap resolves every bind source as the sandbox's unprivileged uid (executor.process drops to it before bwrap
starts), so a source under a directory other users cannot search (root's 0700 home on Debian, a 0700 temporary
directory) fails before the verifier runs. `reachable` returns such a source's staged copy instead: a tree of hard
links (copies across file systems) under a directory this process makes with mkdtemp, owned by the running user,
0711 (searchable, not listable, not writable by others) in the system's temporary directory. mkdtemp's random name
is created atomically and fails on an existing name, so a local user who got to /tmp first cannot hand the harness a
directory of theirs, and the sticky /tmp keeps them from renaming ours. Only what a bind names is staged; the
checkout's other files stay private. Sources every uid can already reach are bound where they are.

Verifiers are staged too (`VerifierStage`, `stage_verifier`): copied, without following any link, into the
executor's private root, so a run uses a frozen copy the sandbox uid can read, whatever later happens to the original.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from verifierbench.core import safe_fs
from verifierbench.core.errors import UserError
from verifierbench.executor import tmpfs
from verifierbench.core.protocol import ENTRYPOINT

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


# -- verifiers ------------------------------------------------------------------------------------

MAX_VERIFIER_BYTES = 64 << 20  # a verifier's files together
MAX_VERIFIER_FILES = 2000  # its files, directories and links
MAX_VERIFIER_DEPTH = 32


class MissingVerifier(Exception):
    """A verifier that cannot be staged (missing, a link, a special file, too large): U for its cases."""


@dataclass(frozen=True)
class FrozenVerifier:
    source: Path
    directory: Path  # staged copy holding verify.py
    sha256: str  # over relative paths and contents of every file


class VerifierStage:
    """An executor's staged verifiers, each a directory of its own under `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._staged: dict[tuple[Path, tuple[tuple[str, int, int, int], ...]], FrozenVerifier] = {}
        self._lock = threading.Lock()
        self._numbers = itertools.count()

    def freeze(self, verifier: "str | Path | FrozenVerifier") -> FrozenVerifier:
        """Copies a verifier (directory with verify.py, or one file) under the root; MissingVerifier if it cannot.

        Runs of a frozen verifier use that copy, so later edits to the original change nothing,
        and the sandbox uid can read it wherever the original lives. A plain path is re-frozen
        only when its files change (their sizes and mtimes).
        """
        if isinstance(verifier, FrozenVerifier):
            return verifier
        path = Path(os.path.abspath(verifier))  # not resolve(): a link named as the verifier is refused, not followed
        signature = (path, tree_signature(path))
        with self._lock:
            if signature not in self._staged:
                self._staged[signature] = stage_verifier(path, self.root / str(next(self._numbers)))
            return self._staged[signature]

    def freeze_copy(self, verifier: "str | Path") -> FrozenVerifier:
        """Like `freeze`, but always a new copy: for sources in temporary places whose path may recur."""
        with self._lock:
            number = next(self._numbers)
        return stage_verifier(Path(os.path.abspath(verifier)), self.root / str(number))


def stage_verifier(source: Path, target: Path) -> FrozenVerifier:
    """Copies the verifier at `source` (a directory holding verify.py, or one file) to `target`.

    No link is followed: `source` itself must not be one (it may name any host file), links inside
    a directory stay links (inside the sandbox they resolve in its view, not the host's). A FIFO,
    device or socket, or more than MAX_VERIFIER_FILES entries or MAX_VERIFIER_BYTES bytes, refuse
    the verifier with one line (MissingVerifier: U for its cases).
    """
    try:
        mode = os.lstat(source).st_mode
    except FileNotFoundError:
        raise MissingVerifier(f"missing verifier: no {source}") from None
    except OSError as exc:
        raise MissingVerifier(f"verifier {source}: {exc.strerror}") from None
    budget = _Budget(source)
    try:
        if stat.S_ISDIR(mode):
            with _opened_dir(source, follow=True) as fd:  # the path the caller named: its own, links allowed
                entry = _lstat_mode(fd, ENTRYPOINT)
                if entry is None or not stat.S_ISREG(entry):
                    what = "no" if entry is None else f"{safe_fs.kind(entry)} as its"
                    raise MissingVerifier(f"missing verifier: {source} has {what} {ENTRYPOINT}")
                target.mkdir(parents=True)
                _copy_tree(fd, target, budget, "", 0)
        elif stat.S_ISREG(mode):
            with _opened_dir(source.parent, follow=True) as fd:
                data = safe_fs.read_regular(fd, source.name, budget.bytes_left())
            target.mkdir(parents=True)
            (target / ENTRYPOINT).write_bytes(data)
        else:
            why = "a symbolic link (verifiers are staged without following links)" if stat.S_ISLNK(mode) else safe_fs.kind(mode)
            raise MissingVerifier(f"verifier {source} is {why}, not a file or directory")
    except safe_fs.FileTooLarge:
        raise MissingVerifier(f"verifier {source}: more than {MAX_VERIFIER_BYTES} bytes") from None
    except OSError as exc:  # a link or special file found on the way (UnsafePath), or unreadable
        raise MissingVerifier(f"verifier {source}: {exc.strerror or exc}") from None
    digest = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(target):
        dirnames.sort()
        os.chmod(dirpath, 0o755)
        for name in sorted(dirnames + filenames):
            path = Path(dirpath) / name
            if path.is_symlink():  # never chmod or read through a link (it may name a host file)
                content = b"link:" + os.readlink(path).encode()
            elif path.is_dir():
                continue
            else:
                os.chmod(path, 0o644)
                content = path.read_bytes()
            digest.update(str(path.relative_to(target)).encode() + b"\0" + content + b"\0")
    return FrozenVerifier(source, target, "sha256:" + digest.hexdigest())


class _Budget:
    def __init__(self, source: Path) -> None:
        self.source, self.entries, self.bytes = source, 0, 0

    def count_entry(self) -> None:
        self.entries += 1
        if self.entries > MAX_VERIFIER_FILES:
            raise MissingVerifier(f"verifier {self.source}: more than {MAX_VERIFIER_FILES} files")

    def bytes_left(self) -> int:
        return MAX_VERIFIER_BYTES - self.bytes


@contextmanager
def _opened_dir(path: Path | str, follow: bool = False, dir_fd: int | None = None) -> Iterator[int]:
    flags = safe_fs.DIR_FLAGS & ~(os.O_NOFOLLOW if follow else 0)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        yield fd
    finally:
        os.close(fd)


def _lstat_mode(dir_fd: int, name: str) -> int | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None


def _copy_tree(src_fd: int, target: Path, budget: _Budget, relative: str, depth: int) -> None:
    """Copies the directory open at `src_fd` into `target`, by descriptors only (no path is re-resolved)."""
    if depth > MAX_VERIFIER_DEPTH:
        raise MissingVerifier(f"verifier {budget.source}: directories nested deeper than {MAX_VERIFIER_DEPTH}")
    for name in sorted(os.listdir(src_fd)):
        if name == "__pycache__":
            continue
        budget.count_entry()
        mode = _lstat_mode(src_fd, name)
        if mode is None:
            continue  # removed meanwhile
        if stat.S_ISLNK(mode):
            os.symlink(os.readlink(name, dir_fd=src_fd), target / name)
        elif stat.S_ISDIR(mode):
            (target / name).mkdir()
            with _opened_dir(name, dir_fd=src_fd) as child:  # O_NOFOLLOW: a swap for a link is refused
                _copy_tree(child, target / name, budget, f"{relative}{name}/", depth + 1)
        elif stat.S_ISREG(mode):
            data = safe_fs.read_regular(src_fd, name, budget.bytes_left())
            budget.bytes += len(data)
            (target / name).write_bytes(data)
        else:
            raise MissingVerifier(f"verifier {budget.source}: {relative}{name} is {safe_fs.kind(mode)}, not a regular file")


def tree_signature(path: Path) -> tuple[tuple[str, int, int, int], ...]:
    """What changes when a verifier's files change: each file's relative path, mode, size and mtime (lstat)."""
    try:  # lstat throughout: a link is a change of its own, and nothing is followed
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode):
            return ((path.name, info.st_mode, info.st_size, info.st_mtime_ns),)
        entries = []
        for dirpath, dirnames, filenames in os.walk(path):
            dirnames.sort()
            for name in sorted(filenames):
                info = os.lstat(os.path.join(dirpath, name))
                entries.append((os.path.relpath(os.path.join(dirpath, name), path), info.st_mode, info.st_size, info.st_mtime_ns))
        return tuple(entries)
    except OSError:
        return ()
